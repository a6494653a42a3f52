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
    assert "±2.0%" in text and "no interval" in text
    assert "±2.0%" in report.trial_line(s.points[0])


def test_a_cheapest_batch_inside_anothers_interval_is_no_clear_winner():
    close = _summary([_trial(1, 16, 100.0, [90.0, 110.0]), _trial(2, 64, 105.0, [95.0, 115.0])])
    assert close.cheapest_batch == 64 and close.cheapest_rivals == (16,)
    said = close.notes[0]  # the summary says it: the CLI's notes and the app's alike
    assert said.startswith("no clear winner between batch 64 and batch 16")
    assert "their 95% intervals overlap (±9.5%, ±10%); more measuring windows (repeats)" in said
    assert "a quieter machine" in said
    assert said in report.text(close) and close.to_dict()["cheapest_rivals"] == [16]
    apart = _summary([_trial(1, 16, 100.0, [98.0, 102.0]), _trial(2, 64, 200.0, [196.0, 204.0])])
    assert apart.cheapest_rivals == () and "no clear winner" not in report.text(apart)
    # the sweep: intervals of +-160%, +-73% and +-32% all overlap
    wide = _summary(
        [
            _trial(1, 16, 100.0, [1.0, 260.0]),  # its low end clipped
            _trial(2, 32, 150.0, [40.5, 259.5]),
            _trial(3, 64, 180.0, [122.4, 237.6]),
        ]
    )
    assert wide.cheapest_batch == 64 and wide.cheapest_rivals == (16, 32)
    assert wide.notes[0].startswith("no clear winner between batch 64, batch 16 and batch 32")
    # points stored before intervals: nothing to judge by, nothing said
    bare = _summary([_trial(1, 16, 100.0, None), _trial(2, 64, 200.0, None)])
    assert bare.cheapest_rivals == () and not bare.notes
