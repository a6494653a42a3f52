"""Helpers for the GUI tests: forms typed as a user would, and short run configs."""

from __future__ import annotations

import importlib.util

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from engine.measure.config import RunConfig
from engine.workloads import registry

# A run short enough for tests, typed into the form as a user would.
TINY_FORM = {
    "batch_size": "16",
    "warmup_steps": "2",
    "min_steps": "5",
    "max_steps": "20",
    "max_seconds": "5",
    "target_precision_pct": "",  # three windows, not a target's (test_run_precision.py has one)
}
RUN_TIMEOUT_MS = 90_000  # importing torch in a fresh worker takes seconds on a busy 2-core box
# A run that goes on until it is stopped (60 s cap), for cancel, close and crash tests.
LONG_FORM = {**TINY_FORM, "min_steps": "100000", "max_steps": "1000000", "max_seconds": "60"}


def fill_form(panel, model: str = "tiny-mlp", **texts: str) -> None:
    """Choose a model and type field texts into the configuration panel."""
    panel.model.setCurrentIndex(panel.model.findData(model))
    for name, text in texts.items():
        widget = panel.numbers.get(name)
        if widget is None:
            widget = panel.price.edit if name == "usd_per_hour" else None
        assert isinstance(widget, QLineEdit), name
        widget.setText(text)


def run_to_end(qtbot, window) -> None:
    """Press Run and wait until the run is over (stored, shown)."""
    with qtbot.waitSignal(
        window.controller.running_changed,
        timeout=RUN_TIMEOUT_MS,
        check_params_cb=lambda running: not running,
    ):
        qtbot.mouseClick(window.panel.run_button, Qt.MouseButton.LeftButton)


def finished_head(result: dict) -> str:
    """How a finished run's status line begins, by the engine's precision rule
    (engine/core/precision.py): a real run on the busy two-core test machine may well be "not
    precise enough to price", and the status must say which it is."""
    from engine.core.precision import MARK, imprecise

    return "Finished:" if imprecise(result) is None else f"Finished, {MARK}:"


def tiny_config(**changes) -> RunConfig:
    values = dict(
        model="tiny-mlp",
        batch_size=16,
        warmup_steps=2,
        min_steps=5,
        max_steps=20,
        max_seconds=5.0,
        usd_per_hour=0.9,
        device="cpu",
    )
    values.update(changes)
    return RunConfig(**values).validated()


def torch_and_jax_workload() -> registry.Workload:
    """A workload that runs on torch and on jax, which is not installed here."""
    assert importlib.util.find_spec("jax") is None  # the premise of the tests that use it
    return registry.Workload(
        name="x",
        task="classification",
        description="",
        input_shape=(4,),
        num_classes=2,
        epoch_samples=10,
        epoch_unit="rows",
        frameworks=("torch", "jax"),
        data_set="",
    )


def show_tab(window, title: str):
    """The main window's tab page titled `title`, made current (pages build when first shown)."""
    assert title in window.pages, list(window.pages)
    return window.show_page(title)


def shown_chart(qtbot, title: str, unit: str, colors, size: tuple[int, int] = (640, 360)):
    """A Chart alone on screen at `size` in the theme's `colors`, once it has been shown."""
    from gui.common.chart import Chart

    chart = Chart("t", title, unit)
    chart.set_colors(colors)
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    return chart
