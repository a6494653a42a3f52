"""Issue 15 in compare: the measured 95% interval shows on the measured row and widens every
projected row's range (the estimate scales a figure known only to within it); issue 30: in
quadrature with the estimate's own 80% range, the interval first taken to 80%."""

from __future__ import annotations

import math

import pytest

from engine.pricing import catalog
from engine.pricing.compare import compare
from engine.pricing.compare_rows import CompareOptions
from tests.engine.test_result_validation import _gpu


def _rows(result):
    return {
        (r.cloud, r.instance_type): r
        for r in compare(result, catalog.load(), CompareOptions(), []).rows
    }


def test_the_measured_interval_carries_into_compare():
    plain = _gpu()
    spread = {**plain, "throughput_ci95": [90.0, 110.0]}  # ± 10% around 100 samples/s
    before, after = _rows(plain), _rows(spread)
    local = next(r for r in after.values() if r.local)
    assert (local.throughput_low, local.throughput_high) == pytest.approx((90.0, 110.0))
    assert local.usd_per_epoch_low < local.usd_per_epoch < local.usd_per_epoch_high
    estimated = [k for k, r in after.items() if r.status == "estimated"]
    assert estimated
    for key in estimated:
        a, b = before[key], after[key]
        assert b.throughput_samples_per_s == a.throughput_samples_per_s  # the figure stays
        figure, z = a.throughput_samples_per_s, 1.2815516 / 1.9599640
        for edge, factor, got in (
            (a.throughput_low, 0.9, b.throughput_low),
            (a.throughput_high, 1.1, b.throughput_high),
        ):
            log_a, log_m = math.log(edge / figure), math.log(factor) * z
            assert got == pytest.approx(
                figure * math.exp(math.copysign(math.hypot(log_a, log_m), log_a))
            )
        assert b.usd_per_epoch_high > a.usd_per_epoch_high


def test_instances_of_the_measured_gpu_carry_the_runs_interval():
    # A T4 run: the T4 machines are priced from the run itself, with its interval (as a run
    # measured elsewhere brings its own), not a range collapsed to the figure.
    t4 = {**_gpu(), "throughput_ci95": [90.0, 110.0]}
    t4["environment"] = {**t4["environment"], "device_name": "Tesla T4"}
    rows = _rows(t4)
    g4dn = rows[("aws", "g4dn.xlarge")]
    assert g4dn.status == "measured"
    assert (g4dn.throughput_low, g4dn.throughput_high) == pytest.approx((90.0, 110.0))
