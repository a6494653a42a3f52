"""Issue 30: an estimate's range is the 80% range of the projection's own checked errors, and
a measurement's own interval widens it in quadrature."""

from __future__ import annotations

import math

import pytest

from engine.pricing import catalog, coverage, family_mean, projection_errors
from engine.pricing.calibration import Calibration
from engine.pricing.projection import Basis, project
from engine.pricing.published import Figure, PublishedTable
from engine.pricing.result_projection import project_result
from tests.engine.price_results import result

CAT = catalog.load()
A, B = CAT.gpu("GeForce GTX 1080 Ti"), CAT.gpu("Tesla V100 SXM2 16GB")
LN2 = math.log(2)


def _small_table(fp16: tuple[float, ...] = ()) -> PublishedTable:
    """Two GPUs, four convolutional models; B trains them 1, 2, 4 and 16 times as fast as A in
    fp32, and `fp16` times as fast in AMP fp16 (none without)."""
    figures = []
    for precision, ratios in (("fp32", (1, 2, 4, 16)), ("amp", fp16)):
        for model, ratio in zip(("m1", "m2", "m3", "m4"), ratios, strict=False):
            for gpu, value in ((A.name, 100.0), (B.name, 100.0 * ratio)):
                figures.append(
                    Figure(
                        gpu,
                        model,
                        "convolutional",
                        precision,
                        value,
                        "v1",
                        gpu,
                        "test",
                        "0" * 40,
                        "",
                    )
                )
    return PublishedTable(tuple(figures))


def test_leave_one_model_out_residuals_by_hand():
    # log ratios 0, l, 2l, 4l (l = ln 2). Each against the mean of the other three:
    # m1 0 - 7l/3, m2 l - 2l, m3 2l - 5l/3, m4 4l - l; each both ways round, in the group of
    # the model left out.
    found = projection_errors.model_out(_small_table())[("family", "convolutional", "", "fp32")]
    expected = {"m1": 7 / 3, "m2": 1, "m3": 1 / 3, "m4": 3}
    assert sorted(g for _, g in found) == ["m1", "m1", "m2", "m2", "m3", "m3", "m4", "m4"]
    for value, group in found:
        assert abs(value) == pytest.approx(expected[group] * LN2)
    assert sum(v for v, _ in found) == pytest.approx(0)


def test_the_80_percent_range_is_the_10th_to_90th_percentile_by_hand():
    # Sorted residuals (x l): -3, -7/3, -1, -1/3, 1/3, 1, 7/3, 3 (n = 8). The 10th percentile
    # sits at (n-1) x 0.1 = 0.7: -3 + 0.7 x (-7/3 + 3) = -2.5333; the 90th at 6.3:
    # 7/3 + 0.3 x (3 - 7/3) = 2.5333. Factors 2^-2.5333 = 0.17274, 2^2.5333 = 5.7891.
    found = projection_errors.model_out(_small_table())[("family", "convolutional", "", "fp32")]
    low, high = projection_errors.quantile_range([v for v, _ in found])
    assert (low, high) == (pytest.approx(0.17274, rel=1e-4), pytest.approx(5.7891, rel=1e-4))


def test_the_spread_is_the_narrowest_that_holds_80_percent_of_each_group_left_out_by_hand():
    # Groups a: -2, 2; b: -1, 1; c: -1.5, 1.5; d: 0 four times (10 checks: 8 must fall inside).
    # a never can (no other group reaches 2), so b, c and d must all. Without c the others
    # sorted are -2, -1, 0, 0, 0, 0, 1, 2 (n = 8): the low end at 7 x tail is -2 + 7 x tail,
    # at most -1.5 when tail <= 1/14: spread 0.86 (tail 0.07: -1.51) holds c, 0.85 (-1.475)
    # does not. Without b: -2 + 0.7 x 0.5 = -1.65 already at 0.80; d's zeros always.
    checks = [(-2.0, "a"), (2.0, "a"), (-1.0, "b"), (1.0, "b"), (-1.5, "c"), (1.5, "c")]
    checks += [(0.0, "d")] * 4
    assert coverage.held_out_spread(checks) == 0.86
    # The range: of all ten sorted, the 7th percentile at 9 x 0.07 = 0.63, between -2 and
    # -1.5: -2 + 0.63 x 0.5 = -1.685; the 93rd at +1.685.
    r = projection_errors.error_range(checks, ("stand-in, same model", "convolutional", "m", ""))
    assert (r.low, r.high) == (pytest.approx(math.exp(-1.685)), pytest.approx(math.exp(1.685)))
    assert r.spread == 0.86 and r.count == 10
    assert "(their percentiles 7 to 93)" in r.text()


def test_a_spread_no_group_allows_is_the_widest_and_one_group_is_the_10th_to_90th():
    # The small table's checks: m4 (+-3 l) lies beyond every other group's, so at most 6 of
    # 8 can fall inside: the widest spread, 0.98. One group alone: nothing to leave out.
    found = projection_errors.model_out(_small_table())[("family", "convolutional", "", "fp32")]
    assert coverage.held_out_spread(found) == 0.98
    assert coverage.held_out_spread([(v, "one") for v, _ in found]) == 0.8


def test_a_projection_on_the_small_table_carries_that_range(monkeypatch):
    monkeypatch.setattr(projection_errors, "MIN_RESIDUALS", 8)
    table = _small_table()
    ranges = projection_errors.ranges(projection_errors.model_out(table))
    basis = Basis(table, Calibration(ranges=ranges), CAT.gpus)
    # A model of the family that is not published: the geometric mean ratio
    # (1 x 2 x 4 x 16)^(1/4) = 2^(7/4) = 3.36359. Its range: spread 0.98 (above), the 1st
    # percentile of the sorted residuals (x l) -3, -7/3, ... at 7 x 0.01 = 0.07:
    # -3 + 0.07 x 2/3 = -2.95333, the 99th at +2.95333: factors 2^-+2.95333.
    p = project(1000.0, A, B, "fp32", basis=basis, family="convolutional")
    assert p.method == "published" and p.samples_per_s == pytest.approx(3363.59, rel=1e-5)
    assert p.low == pytest.approx(3363.59 * 2**-2.953333, rel=1e-5)
    assert p.high == pytest.approx(3363.59 * 2**2.953333, rel=1e-5)
    assert p.range_label == "80% range"
    assert "80% range from 8 checks of convolutional tf32+fp32 'family' estimates" in p.basis
    assert "(their percentiles 1 to 99)" in p.basis


def test_each_precision_has_its_own_range_where_it_has_enough_checks(monkeypatch):
    # fp16 ratios 1, 2, 2, 4: log ratios (x l) 0, 1, 1, 2, each against the mean of the
    # other three: m1 -4/3, m2 0, m3 0, m4 +4/3, both ways round. No other group reaches m1's
    # or m4's +-4/3 (without m1 the low end is -4/3 + 5 x tail x 4/3 > -4/3), so at most 4 of
    # 8 fall inside: spread 0.98, whose 1st percentile of -4/3, -4/3, 0, ... (at 7 x 0.01,
    # between the two -4/3) is -4/3: factors 2^-+4/3. The estimate: (1 x 2 x 2 x 4)^(1/4) = 2.
    monkeypatch.setattr(projection_errors, "MIN_RESIDUALS", 8)
    table = _small_table(fp16=(1, 2, 2, 4))
    ranges = projection_errors.ranges(projection_errors.model_out(table))
    basis = Basis(table, Calibration(ranges=ranges), CAT.gpus)
    p = project(1000.0, A, B, "fp16", basis=basis, family="convolutional")
    assert p.samples_per_s == pytest.approx(2000.0)
    assert (p.low, p.high) == (
        pytest.approx(2000 * 2 ** (-4 / 3)),
        pytest.approx(2000 * 2 ** (4 / 3)),
    )
    assert "80% range from 8 checks of convolutional amp 'family' estimates" in p.basis
    # fp32 keeps its own (the small table's, above: 2^-+2.95333)
    p32 = project(1000.0, A, B, "fp32", basis=basis, family="convolutional")
    assert p32.low == pytest.approx(p32.samples_per_s * 2**-2.953333, rel=1e-5)
    # Too few of one precision's checks: both precisions' together (16), said without one
    monkeypatch.setattr(projection_errors, "MIN_RESIDUALS", 9)
    ranges = projection_errors.ranges(projection_errors.model_out(table))
    assert set(ranges) == {("family", "convolutional", "", ""), ("family", "", "", "")}
    pooled = Calibration(ranges=ranges).range_for("family", "convolutional", "", "fp16")
    assert pooled.count == 16 and pooled.precision == "" and pooled.asked == "amp"
    assert "16 checks of convolutional 'family' estimates" in pooled.text()
    assert "every precision pooled (too few amp checks)" in pooled.text()


def test_a_stand_in_estimate_within_one_chip_has_its_own_range():
    # An A10G (GA102, 8.6; not in the table) stood in for by a GA102 of the table: from an
    # RTX 3090 (GA102 too) the estimate is a ratio and a step within one chip, from a V100
    # (GV100) across chips; each carries the range of its own kind's checks (leave one GPU
    # out, the GPU measured of the target's chip or not), resnet50's in AMP (a run's fp16).
    basis = Basis.of(CAT)
    a10g, rtx3090 = CAT.gpu("A10G"), CAT.gpu("GeForce RTX 3090")
    assert projection_errors.stand_in_kind("stand-in, same model", rtx3090, a10g).endswith(
        ", same chip"
    )
    assert (
        projection_errors.stand_in_kind("stand-in, same model", B, a10g) == "stand-in, same model"
    )
    assert projection_errors.stand_in_kind("stand-in, family", rtx3090, a10g) == "stand-in, family"
    ranges = basis.calibration.ranges
    for source, kind in ((rtx3090, "stand-in, same model, same chip"), (B, "stand-in, same model")):
        p = project(
            1000.0,
            source,
            a10g,
            "fp16",
            basis=basis,
            family="convolutional",
            published_model="resnet50",
        )
        want = ranges[(kind, "convolutional", "resnet50", "amp")]
        assert p.method == "stand-in"
        assert (p.low, p.high) == (
            pytest.approx(p.samples_per_s * want.low),
            pytest.approx(p.samples_per_s * want.high),
        )
        assert f"checks of resnet50 amp '{kind}' estimates" in p.basis


def test_too_few_checks_give_the_default_range_and_say_so():
    table = _small_table()
    basis = Basis(
        table,
        Calibration(ranges=projection_errors.ranges(projection_errors.model_out(table))),
        CAT.gpus,
    )
    p = project(1000.0, A, B, "fp32", basis=basis, family="convolutional")
    assert p.low == pytest.approx(p.samples_per_s * 0.6)
    assert p.high == pytest.approx(p.samples_per_s * 1.4)
    assert "default" in p.basis


def test_the_measurements_interval_widens_the_range_in_quadrature():
    # Shipped table: 1080 Ti -> V100, a resnet50 run. The estimate's range as factors (lo, hi);
    # the run's 95% interval is +-10%, taken to 80% by z(0.90)/z(0.975) = 1.28155/1.95996,
    # then added in quadrature on a log scale, each side apart.
    run = result(model="resnet50-cifar")
    run["throughput_ci95"] = [900.0, 1100.0]
    basis = Basis.of(CAT)
    bare = project_result({**run, "throughput_ci95": None}, A, B, basis)
    widened = project_result(run, A, B, basis)
    z = 1.2815516 / 1.9599640
    for edge, factor, got in ((bare.low, 0.9, widened.low), (bare.high, 1.1, widened.high)):
        a, m = math.log(edge / bare.samples_per_s), math.log(factor) * z
        want = bare.samples_per_s * math.exp(math.copysign(math.hypot(a, m), a))
        assert got == pytest.approx(want, rel=1e-6)
    assert widened.low < bare.low and widened.high > bare.high
    # narrower than widening each side by the whole interval (the previous rule)
    assert widened.low > bare.low * 0.9 and widened.high < bare.high * 1.1
    assert "with the measurement's own 95% interval" in widened.basis


def test_the_shipped_table_gives_every_kind_a_range_and_leave_one_gpu_out_is_narrow():
    ranges = Basis.of(CAT).calibration.ranges
    assert {kind for kind, _, _, _ in ranges} == set(projection_errors.KINDS)
    stand_in = ranges[("stand-in, same model", "", "", "")]
    assert stand_in.count > 5000 and stand_in.high / stand_in.low <= 1.8
    # a published model's own range where it has one: resnet50's ratios follow the specs
    resnet50 = ranges[("stand-in, same model", "convolutional", "resnet50", "")]
    assert resnet50.high / resnet50.low < stand_in.high / stand_in.low


def test_family_weights_by_hand():
    # One pair of GPUs, log ratios 0, l, 2l, 4l. Whole table: each model's miss against the
    # mean of the other three (as above) m1 -7l/3, m2 -l, m3 l/3, m4 3l; weights 1 / miss^2:
    # 9/49, 1, 9, 1/9 (x 1/l^2). With m4 left out (the checks of m4): 0, l, 2l against the
    # others' mean: m1 -1.5l, m2 0 (the floor: 1 / 1e-4), m3 1.5l.
    weights = family_mean.family_weights(_small_table())
    for model, want in (("m1", 9 / 49), ("m2", 1), ("m3", 9), ("m4", 1 / 9)):
        assert weights[""][model] == pytest.approx(want / LN2**2)
    assert set(weights["m4"]) == {"m1", "m2", "m3"}
    assert weights["m4"]["m1"] == pytest.approx(1 / (1.5 * LN2) ** 2)
    assert weights["m4"]["m2"] == pytest.approx(1 / family_mean.FLOOR)


def test_a_model_that_strays_counts_less_in_its_familys_ratio():
    # The whole table's weights (above) on the ratios 1, 2, 4, 16: log2 of the ratio is
    # (0 x 9/49 + 1 x 1 + 2 x 9 + 4 x 1/9) / (9/49 + 1 + 9 + 1/9) = 19.44444 / 10.29478 =
    # 1.888767: x3.70318, where the plain geometric mean is 2^(7/4) = x3.36359. Leaving m4
    # out of the family's mean, m1..m3 weigh 1/(1.5l)^2, 1e4, 1/(1.5l)^2: m4's check misses
    # by 4l - (l x 1e4 + 2l / (1.5l)^2) / (1e4 + 2 / (1.5l)^2).
    table = _small_table()
    weights = family_mean.family_weights(table)
    basis = Basis(table, Calibration(family_weights=weights[""]), CAT.gpus)
    p = project(1000.0, A, B, "fp32", basis=basis, family="convolutional")
    assert p.samples_per_s == pytest.approx(1000 * 2**1.888767, rel=1e-6)
    found = projection_errors.model_out(table, weights)[("family", "convolutional", "", "fp32")]
    w = 1 / (1.5 * LN2) ** 2
    mean = (LN2 * 1e4 + 2 * LN2 * w) / (1e4 + 2 * w)
    assert sorted(abs(v) for v, g in found if g == "m4") == [
        pytest.approx(4 * LN2 - mean),
        pytest.approx(4 * LN2 - mean),
    ]


def test_an_estimate_on_another_source_than_lambda_is_widened_by_the_between_source_range():
    from engine.pricing import catalog as _catalog
    from engine.pricing.projection import Basis as _Basis
    from engine.pricing.projection import project as _project

    cat = _catalog.load()
    basis = _Basis.of(cat)
    between = basis.calibration.between
    assert between is not None and between.count >= 20 and between.low < 1 < between.high
    # jcjohnson's Torch7 table alone holds the GTX TITAN X (Maxwell) with a TITAN X (Pascal)
    maxwell, pascal = cat.gpu("GeForce GTX TITAN X"), cat.gpu("TITAN X (Pascal)")
    p = _project(100.0, maxwell, pascal, "fp32", basis=basis, family="convolutional", tf32=True)
    assert p.status == "estimated" and "jcjohnson" in p.basis
    assert "missed another source's of the same model and GPUs" in p.basis
    # Lambda's own pairs are not widened: their checks hold another harness's figures as they are
    v100 = cat.gpu("Tesla V100 SXM2 16GB")
    q = _project(
        100.0, cat.gpu("GeForce GTX 1080 Ti"), v100, "fp32", basis=basis, family="convolutional"
    )
    assert "Lambda PyTorch benchmark v1" in q.basis and "another source's" not in q.basis
