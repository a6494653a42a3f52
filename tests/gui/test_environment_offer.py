"""The panel offers to make the framework environment a run needs (issue: the slim download
has no framework), and the offer opens File > Settings making it there."""

from __future__ import annotations

import pytest

from gui.panel import environment_offer, run_rules
from gui.panel.environment_offer import framework_to_make


@pytest.mark.parametrize(
    ("errors", "chosen", "supported", "offered"),
    [
        ({"framework": "none installed"}, "", ["torch", "tensorflow"], "torch"),
        ({"framework": "none installed"}, "", ["tensorflow"], "tensorflow"),
        ({"framework": "none installed"}, "", ["jax"], None),  # epochcost makes no jax
        ({"device": "cannot run"}, "torch", ["torch", "tensorflow"], "torch"),
        ({"device": "cannot run"}, "tensorflow", ["torch", "tensorflow"], "tensorflow"),
        ({}, "torch", ["torch"], None),  # it can run: nothing to make
        ({"batch_size": "0 is out of range"}, "torch", ["torch"], None),  # not for this
    ],
)
def test_which_framework_is_offered(errors, chosen, supported, offered):
    assert framework_to_make(errors, chosen, supported) == offered


@pytest.fixture
def no_framework(monkeypatch):
    """This Python as the slim download's: neither framework found (their import names point
    to packages that exist nowhere)."""
    monkeypatch.setattr(
        run_rules,
        "FRAMEWORK_PACKAGES",
        {"torch": "epochcost_no_torch_here", "tensorflow": "epochcost_no_tf_here"},
    )


def test_a_model_with_no_framework_here_offers_to_make_one(qtbot, window, no_framework):
    panel = window.panel
    panel.set_interpreters({})
    assert panel.framework.count() == 0
    assert not panel.run_button.isEnabled()
    offer = panel.environment
    assert offer.isVisible()
    assert offer.text() == "Make a PyTorch environment for this machine…"
    started: list[str] = []
    window.show_settings = _settings_recording(window, started)
    offer.click()
    assert started == ["torch"]


def test_with_a_framework_here_nothing_is_offered(window):
    assert window.panel.framework.count() > 0
    assert not window.panel.environment.isVisible()


def _settings_recording(window, started):
    """File > Settings as the window opens it, its make_environment recorded instead of run
    (that downloads gigabytes; tests/gui/test_settings_dialog.py runs it for real)."""
    real = type(window).show_settings

    def show() -> object:
        dialog = real(window)
        dialog.make_environment = started.append
        return dialog

    return show


def test_the_offer_says_what_it_does(qtbot):
    # qtbot: a widget needs the QApplication, which this test process may not have made yet
    # (run alone, or first in its xdist worker, it aborted the process).
    offer = environment_offer.EnvironmentOffer()
    qtbot.addWidget(offer)
    assert "File > Settings" in offer.toolTip()
