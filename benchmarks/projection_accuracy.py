"""How well the projection to another GPU matches published measurements.

    .venv/bin/python benchmarks/projection_accuracy.py [--json]

Over the shipped table (assets/published_throughput.csv), for every published figure of a
model on GPU B and every other GPU A that ran the same model in the same benchmark version:
project A's figure to B and compare with B's own.

- leave-one-GPU-out (the issue's check): B's figures are taken out of the table before
  projecting, and the calibration is redone without them, so the estimate rests on stand-ins
  of B's chip (GPUs of its compute capability) or on spec ratios, never on B itself.
- leave-one-GPU-and-model-out (the strictest): the model's figures go too, as for a model of
  yours that was never published, projected to a GPU that was never benchmarked.
- leave-one-model-out (the common case: your model is not published, both GPUs are): only the
  model's figures are taken out.
- independent (TensorFlow): Lambda's TensorFlow tables (benchmarks/data/, never used to
  calibrate), projected with the whole PyTorch table: other models, another framework.

v1 is the projection before the table (spec ratios, geometric mean, range between the two
ratios, FP32 without TF32); v2 is engine/pricing/projection.py. For each: median relative error
of the answered pairs, the share of answered pairs whose range holds the published figure, and
the share of pairs answered.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.pricing import calibration, catalog, published  # noqa: E402
from engine.pricing.projection import Basis, project  # noqa: E402
from engine.pricing.roofline import spec_ratios  # noqa: E402


@dataclass
class Tally:
    pairs: int = 0
    errors: list[float] | None = None
    inside: int = 0

    def add(self, truth: float, estimate: float | None, low: float | None, high: float | None):
        self.pairs += 1
        if self.errors is None:
            self.errors = []
        if estimate is None or low is None or high is None:
            return
        self.errors.append(abs(estimate - truth) / truth)
        self.inside += low <= truth * (1 + 1e-9) and truth <= high * (1 + 1e-9)

    def figures(self) -> dict[str, float]:
        answered = len(self.errors or [])
        return {
            "pairs": self.pairs,
            "answered": answered / self.pairs if self.pairs else 0.0,
            "median_error": statistics.median(self.errors) if answered else float("nan"),
            "in_range": self.inside / answered if answered else 0.0,
        }


def v1(value: float, source, target, precision: str):
    ratios = spec_ratios(source, target, precision, tf32=False)
    if isinstance(ratios, str):
        return None, None, None
    low, high = sorted((ratios.compute, ratios.bandwidth))
    return value * ratios.midpoint, value * low, value * high


def run(hide_gpu: bool, hide_model: bool) -> dict[str, dict[str, float]]:
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    table = published.shipped()
    tallies = {"v1": Tally(), "v2": Tally()}
    by_method: dict[str, Tally] = {}
    models = sorted({f.model for f in table.figures})
    bases: dict[tuple[str, str], Basis] = {}
    for _, precision, a, b, fa, fb in table.pairs(ordered=True):
        for model in sorted(fa.keys() & fb.keys()):
            key = (b if hide_gpu else "", model if hide_model else "")
            if key not in bases:
                held = table.without(
                    gpus=[b] if hide_gpu else [], models=[model] if hide_model else []
                )
                bases[key] = Basis(held, calibration.calibrate(held, cat.gpus), cat.gpus)
            proj = project(
                fa[model],
                specs[a],
                specs[b],
                precision,
                basis=bases[key],
                family=table.family_of(model) or "",
                tf32=True,  # the published runs: NVIDIA's containers run TF32
                published_model="" if hide_model else model,
            )
            tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], precision))
            tallies["v2"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
            method = by_method.setdefault(f"v2 {proj.method or 'none'}", Tally())
            method.add(fb[model], proj.samples_per_s, proj.low, proj.high)
    assert models
    tallies.update(sorted(by_method.items()))
    return {name: t.figures() for name, t in tallies.items()}


def independent() -> dict[str, dict[str, float]]:
    """Lambda's TensorFlow CNN tables, projected with the shipped (PyTorch) table as it is."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    tf = published.read(Path(__file__).parent / "data" / "lambda_tensorflow_throughput.csv")
    basis = Basis.of(cat)
    tallies = {"v1": Tally(), "v2": Tally()}
    for _, precision, a, b, fa, fb in tf.pairs(ordered=True):
        for model in sorted(fa.keys() & fb.keys()):
            proj = project(
                fa[model],
                specs[a],
                specs[b],
                precision,
                basis=basis,
                family="convolutional",
                tf32=True,  # TensorFlow runs fp32 as TF32 on Ampere by default
            )
            tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], precision))
            tallies["v2"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
    return {name: t.figures() for name, t in tallies.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    out = {
        "leave-one-GPU-out": run(hide_gpu=True, hide_model=False),
        "leave-one-GPU-and-model-out": run(hide_gpu=True, hide_model=True),
        "leave-one-model-out": run(hide_gpu=False, hide_model=True),
        "independent (TensorFlow tables)": independent(),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    table = published.shipped()
    print(
        f"published table: {len(table.figures)} figures, {len(table.gpus)} GPUs, "
        f"versions {', '.join(table.versions)}"
    )
    for check, results in out.items():
        print(f"\n{check}")
        print(f"  {'':14} {'pairs':>6} {'answered':>9} {'median error':>13} {'in range':>9}")
        for name, f in results.items():
            error = "-" if f["median_error"] != f["median_error"] else f"{f['median_error']:.1%}"
            print(
                f"  {name:14} {f['pairs']:6d} {f['answered']:9.0%} {error:>13} {f['in_range']:9.0%}"
            )
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
