"""Re-pricing from what was typed: the panel hands the tabs only a price that passed its checks,
a price of 0 is a price, and the Run tab's cost curve is computed again from the projected
epoch times at each new price (never scaled from the figures drawn at the last one)."""

from __future__ import annotations

import pytest

from engine.core.events import Step
from engine.pricing.cost import Price
from gui.pages.run.series import RunSeries

RUN = "20260101T000000-abcdef12"


def measured_series(usd_per_hour: float | None) -> RunSeries:
    series = RunSeries(batch_size=16, epoch_samples=50_000, usd_per_hour=usd_per_hour)
    for first in range(0, 40, 4):
        series.add_steps(
            Step(
                run_id=RUN,
                index=first,
                step_times_s=[0.01, 0.012, 0.011, 0.013],
                samples=16,
                repeat=1,
                elapsed_s=1.0 + first * 0.0125,
                window_samples=(first + 4) * 16,
                window_seconds=(first + 4) * 0.0125,
            )
        )
    return series


def test_a_free_hour_does_not_flatten_the_cost_curve_for_good():
    series = measured_series(0.9)
    at_09 = series.proj_mid.values.copy()
    assert len(at_09) and at_09.min() > 0
    series.reprice(0.0)
    assert series.proj_mid.values.max() == 0.0 and series.window.usd_per_epoch == (0, 0, 0)
    series.reprice(None)  # no price: the projected epoch seconds
    assert series.proj_mid.values == pytest.approx(series.epoch_mid.values)
    series.reprice(0.9)
    assert series.proj_mid.values == pytest.approx(at_09)
    series.reprice(3.6)
    assert series.proj_mid.values == pytest.approx(at_09 * 4)
    assert series.proj_high.values == pytest.approx(series.epoch_high.values * 3.6 / 3600)


def test_the_panel_hands_on_only_prices_that_passed(qtbot, window):
    panel, said = window.panel, []
    panel.price_changed.connect(lambda: said.append(panel.accepted_price))
    edit = panel.price.edit
    for text in ("0", "-", "-5", "abc", "1e309", "0.7", ""):
        edit.setText(text)
    assert [None if p is None else p.usd_per_hour for p in said] == [0.0, 0.7, None]
    assert isinstance(said[0], Price) and said[0].source == "user"
    edit.setText("-5")
    assert panel.errors["usd_per_hour"] == "-5 is out of range (allowed 0 to 100000)"
    assert edit.property("invalid") and panel.accepted_price is None  # the last that passed
