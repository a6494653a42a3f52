"""Light and dark palettes are both legible, and switching follows through to the plots."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from gui.common import settings, theme

ROLES = QPalette.ColorRole
TEXT_PAIRS = (
    (ROLES.WindowText, ROLES.Window),
    (ROLES.Text, ROLES.Base),
    (ROLES.Text, ROLES.AlternateBase),
    (ROLES.ButtonText, ROLES.Button),
    (ROLES.HighlightedText, ROLES.Highlight),
    (ROLES.ToolTipText, ROLES.ToolTipBase),
)


@pytest.fixture
def app(qapp):
    yield qapp
    theme.apply(qapp, "light")  # the palette is application-wide: leave it as found


@pytest.mark.parametrize("name", ["light", "dark"])
def test_window_text_is_legible(app, name):
    theme.apply(app, name)
    palette = QApplication.palette()
    for fg, bg in TEXT_PAIRS:
        ratio = theme.contrast_ratio(palette.color(fg), palette.color(bg))
        assert ratio >= 4.5, (name, fg, bg, ratio)
    disabled = palette.color(QPalette.ColorGroup.Disabled, ROLES.Text)
    assert theme.contrast_ratio(disabled, palette.color(ROLES.Base)) >= 3.0


@pytest.mark.parametrize("colors", [theme.LIGHT_PLOTS, theme.DARK_PLOTS])
def test_plot_colours_stand_out_from_their_background(colors):
    assert theme.contrast_ratio(colors.foreground, colors.background) >= 7.0
    curves = (
        colors.warmup,
        colors.measured,
        colors.median,
        colors.process_memory,
        colors.device_memory,
        colors.limit,
        colors.peak,
        colors.phase,
        *colors.overlay,
    )
    for c in curves:
        assert theme.contrast_ratio(c, colors.background) >= 3.0, c


def test_switching_theme_recolours_the_plots_and_is_remembered(app, window):
    window.menu_actions.themes["dark"].trigger()
    assert window.plots.throughput.backgroundBrush().color().name() == theme.DARK_PLOTS.background
    # Every label takes the theme's text colour (a label is set again only when it changes).
    for chart in window.plots.charts.values():
        labels = [chart.plot.titleLabel, chart.caption, *(lab for _, lab in chart.legend.items)]
        for label in (lab for lab in labels if lab.text):
            assert theme.DARK_PLOTS.foreground[1:] in label.item.toHtml().lower()
    assert QApplication.palette().color(ROLES.Window).lightness() < 80
    window.menu_actions.themes["light"].trigger()
    assert window.plots.memory.backgroundBrush().color().name() == theme.LIGHT_PLOTS.background
    assert window.prefs.text(settings.THEME, "") == "light"


def test_contrast_ratio_is_wcag():
    assert theme.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert theme.contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
