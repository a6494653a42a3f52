"""How well the projection to another GPU matches published measurements.

    .venv/bin/python benchmarks/projection_accuracy.py [--json]

Over the shipped table (assets/published_throughput.csv), for every published figure of a
model on GPU B and every other GPU A that ran the same model in the same benchmark version of
Lambda's PyTorch tables (the other sources calibrate, as the engine's table holds them): project
A's figure to B and compare with B's own.

- leave-one-GPU-out (the issue's check): B's figures are taken out of the table before
  projecting, and the calibration (weights and the ranges' own errors) is redone without them,
  so the estimate and its range rest on stand-ins of B's chip or on spec ratios, never on B.
- leave-one-GPU-and-model-out (the strictest): the model's figures go too, as for a model of
  yours that was never published, projected to a GPU that was never benchmarked.
- leave-one-model-out (the common case: your model is not published, both GPUs are): only the
  model's figures are taken out.
- leave-one-source-out: each source of this checkout's published table (Lambda's PyTorch
  tables, ryujaehun, u39kun, jcjohnson's Torch7, cgnorthcutt, llm-foundry) left out of the
  engine's table and its calibration, its pairs (within one harness version) projected from
  the rest; a GPU the engine's catalog does not hold leaves its pairs unanswered.
- independent (TensorFlow): Lambda's TensorFlow tables (benchmarks/data/, never used to
  calibrate), projected with the whole PyTorch table: another framework; resnet50 as the same
  published model, the other CNNs by their family.

For each: median relative error of the answered pairs, the share of answered pairs whose range
holds the published figure, the median high/low of the ranges, and the share of all published
pairs answered: a row whose GPU name no catalog GPU resolves counts as a GPU of its own, all
of whose pairs go unanswered. v1 is the projection before the table (spec ratios, geometric
mean, range between the two ratios, FP32 without TF32); "now" is engine/pricing/projection.py.

The engine measured is this checkout's, or another's: to measure an older one side by side,

    git archive COMMIT engine assets | tar -x -C DIR
    PROJECTION_ENGINE_ROOT=DIR .venv/bin/python benchmarks/projection_accuracy.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("PROJECTION_ENGINE_ROOT") or HERE.parent).resolve()
sys.path.insert(0, str(ROOT))

from engine.pricing import calibration, catalog, published  # noqa: E402
from engine.pricing.projection import Basis, project  # noqa: E402
from engine.pricing.roofline import spec_ratios  # noqa: E402

TOLERANCE = 1e-9  # a figure on the range's edge is inside it


@dataclass
class Tally:
    pairs: int = 0
    errors: list[float] = field(default_factory=list)
    widths: list[float] = field(default_factory=list)  # high / low of each range
    inside: int = 0

    def add(self, truth: float, estimate: float | None, low: float | None, high: float | None):
        self.pairs += 1
        if estimate is None or low is None or high is None:
            return
        self.errors.append(abs(estimate - truth) / truth)
        self.widths.append(high / low if low > 0 else float("inf"))
        self.inside += low <= truth * (1 + TOLERANCE) and truth <= high * (1 + TOLERANCE)

    def unanswered(self, count: int) -> None:
        self.pairs += count

    def figures(self) -> dict[str, float | None]:
        answered = len(self.errors)
        return {
            "pairs": self.pairs,
            "answered": answered / self.pairs if self.pairs else 0.0,
            "median_error": statistics.median(self.errors) if answered else None,
            "in_range": self.inside / answered if answered else 0.0,
            "median_high_low": statistics.median(self.widths) if answered else None,
        }


def v1(value: float, source, target, precision: str):
    ratios = spec_ratios(source, target, precision, tf32=False)
    if isinstance(ratios, str):
        return None, None, None
    low, high = sorted((ratios.compute, ratios.bandwidth))
    return value * ratios.midpoint, value * low, value * high


def _derive_throughput():
    """The engine's own assets/derive_throughput.py (its GPU_NAMES resolve the rows)."""
    path = ROOT / "assets" / "derive_throughput.py"
    spec = importlib.util.spec_from_file_location("derive_throughput", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unresolved_pairs(rows: list[tuple[str, str, str, str, str]]) -> int:
    """Ordered pairs (same version, precision and model) with a GPU no catalog GPU resolves.
    `rows`: (version, precision, GPU: catalog name, or "?" + the row's name, model, resolved
    "y"/"")."""
    gpus: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    resolved: set[str] = set()
    for version, precision, gpu, model, ok in rows:
        gpus[(version, precision, model)].add(gpu)
        if ok:
            resolved.add(gpu)
    count = 0
    for names in gpus.values():
        unknown = len(names - resolved)
        count += unknown * (len(names) - 1) * 2 - unknown * (unknown - 1)
    return count


def pytorch_unresolved(specs: dict) -> int:
    derive = _derive_throughput()
    rows = []
    with (ROOT / "assets" / "sources" / "lambda_pytorch_throughput.csv").open() as f:
        import csv

        for r in csv.DictReader(f):
            if r["model"] not in derive.FAMILIES or float(r["samples_per_s"]) <= 0:
                continue
            gpu = derive.catalog_gpu(r["row"])
            ok = gpu is not None and gpu in specs
            rows.append(
                (r["version"], r["precision"], gpu if ok else "?" + r["row"], r["model"], "y" * ok)
            )
    return unresolved_pairs(rows)


LAMBDA = ("v1", "v2")  # the versions of Lambda's PyTorch tables in the published table


def source_of(version: str) -> str:
    """The source of a version of the published table: 'lambda' for v1 and v2, else its first
    word ('ryujaehun v2018-10' -> 'ryujaehun')."""
    return "lambda" if version in LAMBDA else version.split()[0]


def run(hide_gpu: bool, hide_model: bool) -> dict[str, dict[str, float | None]]:
    """Over Lambda's pairs (the figures of earlier engines are of these), the engine's whole
    table calibrating."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    table = published.shipped()
    tallies = {"v1": Tally(), "now": Tally()}
    by_method: dict[str, Tally] = {}
    bases: dict[tuple[str, str], Basis] = {}
    for version, precision, a, b, fa, fb in table.pairs(ordered=True):
        if version not in LAMBDA:
            continue
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
            tallies["now"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
            method = by_method.setdefault(f"now {proj.method or 'none'}", Tally())
            method.add(fb[model], proj.samples_per_s, proj.low, proj.high)
    missing = pytorch_unresolved(specs)
    for t in tallies.values():
        t.unanswered(missing)
    if missing:
        by_method["now unresolved"] = Tally(pairs=missing)
    tallies.update(sorted(by_method.items()))
    return {name: t.figures() for name, t in tallies.items()}


def independent() -> dict[str, dict[str, float | None]]:
    """Lambda's TensorFlow CNN tables, projected with the shipped (PyTorch) table as it is."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    every = published.read(HERE / "data" / "lambda_tensorflow_throughput.csv")
    ok = [f for f in every.figures if f.gpu in specs]
    tf = published.PublishedTable(tuple(ok))
    rows = [
        (
            f.version,
            f.precision,
            f.gpu if f.gpu in specs else "?" + f.source_row,
            f.model,
            "y" * (f.gpu in specs),
        )
        for f in every.figures
    ]
    basis = Basis.of(cat)
    own_models = {f.model for f in basis.table.figures}
    tallies = {"v1": Tally(), "now": Tally()}
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
                published_model=model if model in own_models else "",
            )
            tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], precision))
            tallies["now"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
    for t in tallies.values():
        t.unanswered(unresolved_pairs(rows))
    return {name: t.figures() for name, t in tallies.items()}


def source_out() -> dict[str, dict[str, float | None]]:
    """Each source of this checkout's published table left out in turn: its pairs (one source
    and harness version each) projected with the engine's table less that source, calibrated
    without it. An engine whose table never held the source projects with all it has."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    checks = published.read(HERE.parent / "assets" / published.FILE)
    table = published.shipped()
    tallies: dict[str, Tally] = {"v1": Tally(), "now": Tally()}
    for source in sorted({source_of(v) for v in checks.versions}):
        held = published.PublishedTable(
            tuple(f for f in table.figures if source_of(f.version) != source)
        )
        basis = Basis(held, calibration.calibrate(held, cat.gpus), cat.gpus)
        models = {f.model for f in held.figures}
        mine = tallies.setdefault(f"now {source}", Tally())
        for version, precision, a, b, fa, fb in checks.pairs(ordered=True):
            if source_of(version) != source:
                continue
            if a not in specs or b not in specs:  # a GPU the engine's catalog lacks
                for tally in (tallies["v1"], tallies["now"], mine):
                    tally.unanswered(len(fa.keys() & fb.keys()))
                continue
            for model in sorted(fa.keys() & fb.keys()):
                proj = project(
                    fa[model],
                    specs[a],
                    specs[b],
                    precision,
                    basis=basis,
                    family=checks.family_of(model) or "",
                    tf32=True,
                    published_model=model if model in models else "",
                )
                tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], precision))
                for tally in (tallies["now"], mine):
                    tally.add(fb[model], proj.samples_per_s, proj.low, proj.high)
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
        "leave-one-source-out": source_out(),
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
        print(
            f"  {'':16} {'pairs':>6} {'answered':>9} {'median error':>13} {'in range':>9} "
            f"{'high/low':>9}"
        )
        for name, f in results.items():
            error = "-" if f["median_error"] is None else f"{f['median_error']:.1%}"
            width = "-" if f["median_high_low"] is None else f"{f['median_high_low']:.2f}"
            print(
                f"  {name:16} {f['pairs']:6d} {f['answered']:9.1%} {error:>13} "
                f"{f['in_range']:9.1%} {width:>9}"
            )
    print(f"\n(engine: {ROOT}; {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
