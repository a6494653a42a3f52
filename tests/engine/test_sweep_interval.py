"""Issue 15 in a sweep: each point carries its 95% interval (JSON, CSV, table), and a cheapest
batch the intervals cannot tell from another says so."""

from __future__ import annotations

from engine.sweep import report
from engine.sweep.events import Trial
from engine.sweep.summary import summarize


def _trial(index: int, batch: int, tput: float, ci: list[float] | None) -> Trial:
    result = {
        "throughput_samples_per_s": tput,
        "epoch_seconds": 50_000 / tput,
        "usd_per_epoch": 50_000 / tput / 3600,
        "memory_fill": 0.1,
    }
    if ci is not None:
        result["throughput_ci95"] = ci
        result["usd_per_epoch_ci95"] = [50_000 / ci[1] / 3600, 50_000 / ci[0] / 3600]
    return Trial(index, batch, "point", "ok", f"run-{index}", 1.0, "", result)


def _summary(trials: list[Trial]):
    return summarize(
        group_id="g",
        model="tiny-mlp",
        mode="sizes",
        status="completed",
        trials=trials,
        search=None,
        knee_tolerance=0.05,
        seconds=2.0,
    )


def test_points_carry_their_intervals_and_the_table_shows_them():
    s = _summary([_trial(1, 16, 100.0, [98.0, 102.0]), _trial(2, 64, 200.0, None)])
    rows = [p.to_row() for p in s.points]
    assert (rows[0]["throughput_low"], rows[0]["throughput_high"]) == (98.0, 102.0)
    assert rows[0]["usd_per_epoch_low"] < rows[0]["usd_per_epoch"] < rows[0]["usd_per_epoch_high"]
    assert rows[1]["throughput_low"] is None  # a point stored before intervals
    text = report.text(s)
    assert "± 2.0%" in text and "no interval" in text
    assert "± 2.0%" in report.trial_line(s.points[0])


def test_a_cheapest_batch_inside_anothers_interval_is_said():
    close = _summary([_trial(1, 16, 100.0, [90.0, 110.0]), _trial(2, 64, 105.0, [95.0, 115.0])])
    assert close.cheapest_batch == 64
    assert "within the 95% interval of batch 16" in report.text(close)
    apart = _summary([_trial(1, 16, 100.0, [98.0, 102.0]), _trial(2, 64, 200.0, [196.0, 204.0])])
    assert "within the 95% interval" not in report.text(apart)
