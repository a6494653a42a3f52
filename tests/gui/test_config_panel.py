"""The configuration form: defaults, validation shown beside each field, Run gated on it,
frameworks offered only when installed, and values that persist between sessions."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engine.measure.config import DEFAULT_TARGET_PRECISION_PCT, RunConfig
from engine.measure.devices import list_devices
from engine.workloads import registry
from gui.panel.panel import ConfigPanel
from gui.panel.run_rules import installed_frameworks, validate_all
from tests.gui.helpers import TINY_FORM, fill_form, torch_and_jax_workload


@pytest.fixture
def panel(qtbot):
    p = ConfigPanel(list_devices())
    qtbot.addWidget(p)
    p.show()
    return p


def shown_error(panel, field: str) -> str:
    label = panel._error_labels[field]
    return label.text() if label.isVisible() else ""


def test_defaults_are_the_cli_defaults_on_the_first_detected_device(panel):
    assert panel.validate()
    assert panel.run_button.isEnabled()
    # The form says synthetic where the CLI's default, auto, means it for a built-in model.
    expected = RunConfig(device=list_devices()[0].id, usd_per_hour=0.9, data="synthetic")
    expected = expected.with_changes(target_precision_pct=DEFAULT_TARGET_PRECISION_PCT)
    assert panel.config == expected
    assert "One epoch: 50,000 images" in panel.model_info.text()


def test_a_bad_batch_size_is_explained_beside_it_and_blocks_run(panel, qtbot):
    with qtbot.waitSignal(panel.validity_changed, check_params_cb=lambda ok: not ok):
        panel.numbers["batch_size"].setText("0")
    assert "out of range" in shown_error(panel, "batch_size")
    assert "allowed 1 to" in shown_error(panel, "batch_size")
    assert panel.numbers["batch_size"].property("invalid")  # the field itself is marked
    assert not panel.run_button.isEnabled()
    panel.numbers["batch_size"].setText("32")
    assert shown_error(panel, "batch_size") == ""
    assert not panel.numbers["batch_size"].property("invalid")
    assert panel.run_button.isEnabled()
    assert panel.config.batch_size == 32


def test_text_that_is_not_a_number_says_what_to_enter(panel):
    panel.numbers["warmup_steps"].setText("ten")
    panel.numbers["max_seconds"].setText("1 minute")
    assert shown_error(panel, "warmup_steps") == "'ten' is not a whole number; give one such as 10"
    assert shown_error(panel, "max_seconds") == "'1 minute' is not a number; give one such as 60"
    assert panel.numbers["warmup_steps"].property("invalid")
    assert panel.numbers["max_seconds"].property("invalid")
    assert not panel.run_button.isEnabled()


def test_every_wrong_field_gets_its_own_reason(panel):
    panel.numbers["batch_size"].setText("-4")
    panel.numbers["max_seconds"].setText("0")
    panel.price.edit.setText("-1")
    assert "out of range" in shown_error(panel, "batch_size")
    assert "out of range" in shown_error(panel, "max_seconds")
    assert "out of range" in shown_error(panel, "usd_per_hour")
    assert shown_error(panel, "warmup_steps") == ""


def test_cross_field_rule_points_at_the_field_to_fix(panel):
    fill_form(panel, min_steps="50", max_steps="20")
    assert "allowed 50 to" in shown_error(panel, "max_steps")
    assert not panel.run_button.isEnabled()


def test_price_and_epoch_size_may_be_left_empty(panel):
    fill_form(panel, usd_per_hour="", epoch_samples="")
    assert panel.config is not None
    assert panel.config.usd_per_hour is None and panel.config.epoch_samples is None
    fill_form(panel, usd_per_hour="$1.25", epoch_samples="10,000")
    assert panel.config.usd_per_hour == 1.25 and panel.config.epoch_samples == 10_000


def test_run_emits_the_validated_config(panel, qtbot):
    fill_form(panel, **TINY_FORM)
    with qtbot.waitSignal(panel.run_requested) as signal:
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    config = signal.args[0]
    assert isinstance(config, RunConfig)
    assert (config.model, config.batch_size, config.max_steps) == ("tiny-mlp", 16, 20)


def test_while_running_the_form_is_locked_and_cancel_offered(panel, qtbot):
    panel.set_running(True)
    assert not panel.run_button.isEnabled() and panel.cancel_button.isEnabled()
    assert not panel.numbers["batch_size"].isEnabled()
    with qtbot.assertNotEmitted(panel.run_requested):
        panel.request_run()
    with qtbot.waitSignal(panel.cancel_requested):
        qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)


def test_only_installed_frameworks_that_the_model_supports_are_offered():
    workload = torch_and_jax_workload()
    assert installed_frameworks(workload) == ["torch"]


def test_framework_box_follows_the_model(panel):
    for name in registry.names():
        fill_form(panel, model=name)
        offered = [panel.framework.itemText(i) for i in range(panel.framework.count())]
        assert offered == installed_frameworks(registry.get(name))
        assert set(offered) <= set(registry.get(name).frameworks)


def test_validate_all_matches_the_cli_rules():
    config, errors = validate_all({"model": "tiny-mlp", "batch_size": 8})
    assert errors == {} and config == RunConfig(model="tiny-mlp", batch_size=8)
    config, errors = validate_all({"model": "nope", "batch_size": 0})
    assert config is None and set(errors) == {"model", "batch_size"}
    assert "known:" in errors["model"]


def test_form_values_and_geometry_persist_between_sessions(qtbot):
    from gui.shell.main_window import MainWindow

    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    fill_form(first.panel, model="resnet50-cifar", batch_size="48", usd_per_hour="2.5")
    first.panel.precision.setCurrentText("bf16")
    first.resize(760, 640)  # within the offscreen screen (800 x 800)
    first.close()

    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.panel.model.currentData() == "resnet50-cifar"
    assert second.panel.numbers["batch_size"].text() == "48"
    assert second.panel.precision.currentText() == "bf16"
    assert second.panel.config.usd_per_hour == 2.5
    assert (second.width(), second.height()) == (760, 640)
