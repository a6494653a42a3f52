"""How well the projection to another GPU matches published measurements.

    .venv/bin/python benchmarks/projection_accuracy.py [--json] [--only CHECK ...]

(--only gpu, gpu-and-model, model, source, tf: a part of the checks, while iterating.)

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

Each pair is projected as a run of the figures' precision (engine/pricing/published.py): AMP
figures as an fp16 run, TF32 and FP32 ones as an fp32 run whose environment says TF32 ran (the
published runs ran TF32 where the GPU has it; between two GPUs without TF32 the engine takes it
as FP32); pure fp16 (.half()) figures are no run's and are not checked. A run with TF32 off
projected to an Ampere or newer GPU has no published figure to be checked against.

The model-file split ("... (model file)", for leave-one-GPU-out, leave-one-source-out and the
TensorFlow tables): the same pairs projected as a result whose model is a file, for each
published model: no published name (the engine takes no model's own ratio), its family the one
engine/workloads/family.py's composition rule gives such a file (the table's family; NCF, the
table's recommender, is matrix products: transformer).

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
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("PROJECTION_ENGINE_ROOT") or HERE.parent).resolve()
sys.path.insert(0, str(ROOT))

from engine.pricing import calibration, catalog, published  # noqa: E402
from engine.pricing.projection import Basis, project  # noqa: E402
from engine.pricing.roofline import spec_ratios  # noqa: E402

TOLERANCE = 1e-9  # a figure on the range's edge is inside it
# The run a table precision's figures are projected as: (precision, TF32 ran). The old labels
# (fp16: AMP; fp32: as the framework ran it) are read alike, for an older engine's table and
# the TensorFlow tables; pure fp16 (.half()) is no run's.
RUN = {"amp": ("fp16", False), "fp16": ("fp16", False), "tf32": ("fp32", True)}
RUN["fp32"] = ("fp32", True)
# The family the composition rule (engine/workloads/family.py) gives a file of each table family.
FILE_FAMILY = {"recommender": "transformer"}
CHECKS = ("gpu", "gpu-and-model", "model", "source", "tf")


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


def precision_class(precision: str, a, b) -> str:
    """amp, tf32 or fp32: the table precision a pair is projected in (the engine's rule, for an
    older engine's labels too): fp32 is tf32 where either GPU has TF32 (compute capability
    8.0 or newer)."""
    if RUN[precision][0] == "fp16":
        return "amp"
    tf32 = any((g.compute_capability_tuple or (0, 0)) >= (8, 0) for g in (a, b))
    return "tf32" if tf32 else "fp32"


def file_family(family: str) -> str:
    """The family of a model file of a published model of `family` (FILE_FAMILY)."""
    return FILE_FAMILY.get(family, family)


def _project(value: float, a, b, precision: str, basis: Basis, family: str, model: str):
    """`value` of GPU `a` projected to `b` as a run of the table precision `precision`
    (RUN) of a model of `family`, the published `model` ("" none, or a model file)."""
    run_precision, tf32 = RUN[precision]
    return project(
        value,
        a,
        b,
        run_precision,
        basis=basis,
        family=family,
        tf32=tf32,
        published_model=model,
    )


def run(hide_gpu: bool, hide_model: bool) -> dict[str, dict[str, float | None]]:
    """Over Lambda's pairs (the figures of earlier engines are of these), the engine's whole
    table calibrating. Leaving one GPU out (only), the model-file split too ("... file")."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    table = published.shipped()
    as_file = hide_gpu and not hide_model
    tallies = {"v1": Tally(), "now": Tally()}
    files: dict[str, Tally] = {"now file": Tally()} if as_file else {}
    by_method: dict[str, Tally] = {}
    bases: dict[tuple[str, str], Basis] = {}
    for version, precision, a, b, fa, fb in table.pairs(ordered=True):
        if version not in LAMBDA or precision not in RUN:
            continue
        for model in sorted(fa.keys() & fb.keys()):
            key = (b if hide_gpu else "", model if hide_model else "")
            if key not in bases:
                held = table.without(
                    gpus=[b] if hide_gpu else [], models=[model] if hide_model else []
                )
                bases[key] = Basis(held, calibration.calibrate(held, cat.gpus), cat.gpus)
            family = table.family_of(model) or ""
            where = (specs[a], specs[b], precision, bases[key])
            proj = _project(fa[model], *where, family, "" if hide_model else model)
            tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], RUN[precision][0]))
            tallies["now"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
            method = by_method.setdefault(f"now {proj.method or 'none'}", Tally())
            method.add(fb[model], proj.samples_per_s, proj.low, proj.high)
            of = by_method.setdefault(f"now {precision_class(precision, *where[:2])}", Tally())
            of.add(fb[model], proj.samples_per_s, proj.low, proj.high)
            if as_file:
                mine = _project(fa[model], *where, file_family(family), "")
                for name in ("now file", f"file {mine.method or 'none'}"):
                    tally = files.setdefault(name, Tally())
                    tally.add(fb[model], mine.samples_per_s, mine.low, mine.high)
    missing = pytorch_unresolved(specs)
    for t in (tallies["v1"], tallies["now"], *([files["now file"]] if as_file else [])):
        t.unanswered(missing)
    if missing:
        by_method["now unresolved"] = Tally(pairs=missing)
    tallies.update(sorted(by_method.items()))
    tallies.update(files)
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
    tallies = {"v1": Tally(), "now": Tally(), "now file": Tally()}
    for _, precision, a, b, fa, fb in tf.pairs(ordered=True):
        for model in sorted(fa.keys() & fb.keys()):
            # TensorFlow runs fp32 as TF32 on Ampere by default (RUN: fp32 with TF32)
            where = (specs[a], specs[b], precision, basis, "convolutional")
            proj = _project(fa[model], *where, model if model in own_models else "")
            mine = _project(fa[model], *where, "")  # a file of the same model
            tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], RUN[precision][0]))
            tallies["now"].add(fb[model], proj.samples_per_s, proj.low, proj.high)
            tallies["now file"].add(fb[model], mine.samples_per_s, mine.low, mine.high)
    for t in tallies.values():
        t.unanswered(unresolved_pairs(rows))
    return {name: t.figures() for name, t in tallies.items()}


def _engine_labels(table):
    """`table` in the precisions of the engine measured: an engine before the precisions were
    named (no published.run_precision) had fp16 (AMP) and fp32 (as the framework ran it), and
    no pure fp16 figures."""
    if hasattr(published, "run_precision"):
        return table
    old = {"amp": "fp16", "tf32": "fp32", "fp32": "fp32"}
    return published.PublishedTable(
        tuple(replace(f, precision=old[f.precision]) for f in table.figures if f.precision in old)
    )


def source_out() -> dict[str, dict[str, float | None]]:
    """Each source of this checkout's published table left out in turn: its pairs (one source
    and harness version each) projected with the engine's table less that source, calibrated
    without it. An engine whose table never held the source projects with all it has."""
    cat = catalog.load()
    specs = {g.name: g for g in cat.gpus}
    checks = _engine_labels(published.read(HERE.parent / "assets" / published.FILE))
    table = published.shipped()
    tallies: dict[str, Tally] = {"v1": Tally(), "now": Tally(), "now file": Tally()}
    files: dict[str, Tally] = {}
    for source in sorted({source_of(v) for v in checks.versions}):
        held = published.PublishedTable(
            tuple(f for f in table.figures if source_of(f.version) != source)
        )
        basis = Basis(held, calibration.calibrate(held, cat.gpus), cat.gpus)
        models = {f.model for f in held.figures}
        mine = tallies.setdefault(f"now {source}", Tally())
        mine_file = files.setdefault(f"file {source}", Tally())
        for version, precision, a, b, fa, fb in checks.pairs(ordered=True):
            if source_of(version) != source or precision not in RUN:
                continue
            if a not in specs or b not in specs:  # a GPU the engine's catalog lacks
                for tally in (tallies["v1"], tallies["now"], tallies["now file"], mine, mine_file):
                    tally.unanswered(len(fa.keys() & fb.keys()))
                continue
            for model in sorted(fa.keys() & fb.keys()):
                family = checks.family_of(model) or ""
                where = (specs[a], specs[b], precision, basis)
                proj = _project(fa[model], *where, family, model if model in models else "")
                as_file = _project(fa[model], *where, file_family(family), "")
                run_precision = RUN[precision][0]
                tallies["v1"].add(fb[model], *v1(fa[model], specs[a], specs[b], run_precision))
                for tally in (tallies["now"], mine):
                    tally.add(fb[model], proj.samples_per_s, proj.low, proj.high)
                for tally in (tallies["now file"], mine_file):
                    tally.add(fb[model], as_file.samples_per_s, as_file.low, as_file.high)
    tallies.update(files)
    return {name: t.figures() for name, t in tallies.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", nargs="+", choices=CHECKS, default=CHECKS, metavar="CHECK")
    args = parser.parse_args()
    started = time.perf_counter()
    checks = {
        "gpu": ("leave-one-GPU-out", lambda: run(hide_gpu=True, hide_model=False)),
        "gpu-and-model": (
            "leave-one-GPU-and-model-out",
            lambda: run(hide_gpu=True, hide_model=True),
        ),
        "model": ("leave-one-model-out", lambda: run(hide_gpu=False, hide_model=True)),
        "source": ("leave-one-source-out", source_out),
        "tf": ("independent (TensorFlow tables)", independent),
    }
    out = {checks[c][0]: checks[c][1]() for c in CHECKS if c in args.only}
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
