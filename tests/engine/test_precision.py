"""Issue 38, "Intervals as they are": one function writes an interval (its two ends, -x% / +y%
where it is not symmetric, never a "±" that reaches below zero), one decides whether a result
is precise enough to price (docs/measuring.md, "Precise enough to price"), with its cause."""

from __future__ import annotations

from engine.core.interval import interval_text
from engine.core.precision import MARK, PRICE_TOLERANCE, imprecise
from tests.engine.test_store import _result


def RATE(samples_per_s: float) -> str:  # noqa: N802 (a constant's name: how a rate's ends read)
    return f"{samples_per_s:,.1f}"


def busy_result() -> dict:
    """The issue's run on a busy machine: 12.7 samples/s, its interval 1.5 to 109.0."""
    r = _result("20261122T030000-0000b051", 12.7)
    r.update(
        throughput_ci95=[1.5, 109.0],
        usd_per_epoch_ci95=[r["usd_per_epoch"] * 12.7 / 109.0, r["usd_per_epoch"] * 12.7 / 1.5],
        throughput_repeats=[12.2, 12.7, 13.1],
        repeats=3,
        other_cpu_fraction=0.48,
        interval_method="Student t over 3 windows; widened for other processes' 48% of the CPU "
        "(2 threads)",
    )
    return r


def test_an_interval_is_written_as_it_is():
    assert interval_text([1.5, 109.0], 12.7) == "-88% / +758%"
    assert interval_text([1.5, 109.0], 12.7, RATE) == "95% interval 1.5 to 109.0 (-88% / +758%)"
    assert interval_text([75.1, 78.3], 76.7) == "±2.1%"  # symmetric: one figure
    assert interval_text([75.1, 78.3], 76.7, RATE) == "95% interval 75.1 to 78.3 (±2.1%)"
    assert interval_text([0.0, 8054.0], 1342.0) == "-100% / +500%"  # tiny-mlp's, not "± 300%"
    assert interval_text([0.2, None], 0.5) == "-60% / no upper bound"  # a cost, turned over
    assert interval_text(None, 76.7) == "no interval"
    assert interval_text([1.0, 2.0], None) == "no interval"


def test_a_result_wider_than_a_quarter_is_not_precise_enough_to_price_and_says_why():
    verdict = imprecise(busy_result())
    assert verdict is not None
    text = verdict.text()
    assert text.startswith(f"{MARK}: its 95% interval (-88% / +758%) is wider than ±25%")
    assert "other processes used 48% of the CPU while it was measured" in text
    assert "quiet machine" in verdict.todo
    assert "windows disagree" not in text  # its windows agree: the busy share widened it


def test_the_cause_is_read_from_what_the_result_recorded():
    windows = _result("20261122T030000-0000b052", 100.0)
    windows.update(throughput_ci95=[1.0, 199.0], throughput_repeats=[60.0, 100.0, 140.0])
    verdict = imprecise(windows)
    assert verdict is not None
    assert "its 3 windows disagree (60.0 to 140.0 samples/s)" in verdict.why
    assert "more windows" in verdict.todo
    one = _result("20261122T030000-0000b053", 100.0)
    one.update(throughput_ci95=[50.0, 150.0], throughput_repeats=[100.0])
    verdict = imprecise(one)
    assert verdict is not None and "20 steps in 1 window" in verdict.why


def test_the_rule_is_a_quarter_on_either_side():
    assert PRICE_TOLERANCE == 0.25
    r = _result("20261122T030000-0000b054", 100.0)
    assert imprecise({**r, "throughput_ci95": [75.0, 125.0]}) is None
    assert imprecise({**r, "throughput_ci95": [97.9, 102.1]}) is None
    assert imprecise({**r, "throughput_ci95": [90.0, 126.0]}) is not None  # one side is enough
    assert imprecise(r) is None  # no interval recorded: nothing to judge
    assert imprecise({**r, "status": "failed", "throughput_ci95": [1.0, 900.0]}) is None


def test_a_sweeps_cheapest_batch_says_which_batches_are_not_precise_enough():
    from tests.engine.test_sweep_interval import _summary, _trial

    s = _summary([_trial(1, 16, 100.0, [98.0, 102.0]), _trial(2, 64, 200.0, [20.0, 900.0])])
    said = next(n for n in s.notes if MARK in n)
    assert said.startswith(f"batch 64: {MARK} (95% interval wider than ±25%)")
    assert "the cheapest batch may be another" in said
    steady = _summary([_trial(1, 16, 100.0, [98.0, 102.0]), _trial(2, 64, 200.0, [196.0, 204.0])])
    assert not any(MARK in n for n in steady.notes)


def test_each_way_to_measure_again_is_said_once_when_two_causes_are_found():
    """A busy run whose windows also disagree: one 'measure again', the quiet machine once."""
    both = busy_result()
    figure = both["throughput_samples_per_s"]
    both["throughput_repeats"] = [figure * 0.2, figure, figure * 1.8]
    verdict = imprecise(both)
    assert verdict is not None and len(verdict.causes) == 2
    assert verdict.todo == (
        "measure again on a quiet machine (close other programs), with more windows (three or more)"
    )
    assert verdict.text().count("measure again") == 1
