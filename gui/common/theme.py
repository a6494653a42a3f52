"""Light and dark palettes for the window and matching colours for the plots.

"system" follows the desktop's colour scheme where Qt can read it, else light. Both palettes
keep text at a WCAG contrast of at least 4.5:1 and plot curves at 3:1 against their background
(tests/gui/test_theme.py checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("system", "light", "dark")


@dataclass(frozen=True)
class PlotColors:
    """Colours (hex) of the live plots for one palette."""

    background: str
    foreground: str
    warmup: str
    measured: str
    median: str
    process_memory: str
    device_memory: str
    limit: str  # device total, final figures
    peak: str
    phase: str
    overlay: tuple[str, ...]


LIGHT_PLOTS = PlotColors(
    background="#ffffff",
    foreground="#202020",
    warmup="#767676",
    measured="#1f6fb4",
    median="#c0392b",
    process_memory="#1e8449",
    device_memory="#b9770e",
    limit="#4d4d4d",
    peak="#c0392b",
    phase="#6c3483",
    overlay=("#7d3c98", "#117a65", "#a04000", "#2e4053", "#b03a2e"),
)

DARK_PLOTS = PlotColors(
    background="#1b1d21",
    foreground="#e0e0e0",
    warmup="#9a9a9a",
    measured="#5dade2",
    median="#ff7b72",
    process_memory="#58d68d",
    device_memory="#f5b041",
    limit="#c8c8c8",
    peak="#ff7b72",
    phase="#c39bd3",
    overlay=("#d2b4de", "#76d7c4", "#f0b27a", "#aed6f1", "#f1948a"),
)


_TEXT_ROLES = (
    QPalette.ColorRole.Text,
    QPalette.ColorRole.ButtonText,
    QPalette.ColorRole.WindowText,
)


def light_palette() -> QPalette:
    """Fusion's light palette, with a selection colour dark enough for white text."""
    p = QApplication.style().standardPalette() if QApplication.instance() else QPalette()
    p.setColor(QPalette.ColorRole.Highlight, QColor("#2a6fb0"))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    # The form is disabled while a run goes; its values must stay readable.
    for role in _TEXT_ROLES:
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return p


def dark_palette() -> QPalette:
    p = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#25272b",
        QPalette.ColorRole.WindowText: "#e6e6e6",
        QPalette.ColorRole.Base: "#1b1d21",
        QPalette.ColorRole.AlternateBase: "#2b2e33",
        QPalette.ColorRole.ToolTipBase: "#2b2e33",
        QPalette.ColorRole.ToolTipText: "#e6e6e6",
        QPalette.ColorRole.PlaceholderText: "#9a9a9a",
        QPalette.ColorRole.Text: "#e6e6e6",
        QPalette.ColorRole.Button: "#2f3237",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.BrightText: "#ff7b72",
        QPalette.ColorRole.Highlight: "#2f6aa8",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#6cb6ff",
        QPalette.ColorRole.Light: "#3a3d42",
        QPalette.ColorRole.Midlight: "#33363b",
        QPalette.ColorRole.Mid: "#2a2c30",
        QPalette.ColorRole.Dark: "#151618",
        QPalette.ColorRole.Shadow: "#000000",
    }
    for role, color in colors.items():
        p.setColor(role, QColor(color))
    for role in _TEXT_ROLES:
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor("#8a8a8a"))
    return p


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints is not None and hints.colorScheme() == Qt.ColorScheme.Dark


def resolve(theme: str) -> str:
    """ "light" or "dark" for a theme name ("system" asks the desktop)."""
    if theme == "system":
        return "dark" if system_is_dark() else "light"
    return theme if theme in ("light", "dark") else "light"


def apply(app: QApplication, theme: str) -> PlotColors:
    """Set the application palette for `theme`; return the plot colours that go with it."""
    # Replacing the style re-polishes every widget, and crashes when some are being deleted
    # (windows closed earlier in the same app): set it once.
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    if resolve(theme) == "dark":
        app.setPalette(dark_palette())
        return DARK_PLOTS
    app.setPalette(light_palette())
    return LIGHT_PLOTS


def blend(color: QColor | str, over: QColor | str, share: float) -> QColor:
    """`share` of `color` and the rest of `over`, opaque: how `color` at that opacity shows over
    `over`, drawn without translucency (which a software-rendered display pays for)."""
    c, b = QColor(color), QColor(over)
    return QColor(
        round(c.red() * share + b.red() * (1 - share)),
        round(c.green() * share + b.green() * (1 - share)),
        round(c.blue() * share + b.blue() * (1 - share)),
    )


def contrast_ratio(a: QColor | str, b: QColor | str) -> float:
    """WCAG 2 contrast ratio of two colours, 1 to 21."""

    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())
        )

    la, lb = sorted((luminance(QColor(a)), luminance(QColor(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)
