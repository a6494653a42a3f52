"""Published, measured training throughput per GPU and model: assets/published_throughput.csv.

Derived by assets/derive.py from the PyTorch tables of Lambda's deeplearning-benchmark
repository (assets/derive_throughput.py) and from the other published tables that train models
across GPUs with one harness (assets/derive_published.py: ryujaehun's and u39kun's PyTorch
tables, jcjohnson's Torch7 one, cgnorthcutt's ImageNet ResNets, llm-foundry's MPT runs), each
row with its source file, commit and date. The projection (engine/pricing/projection.py) takes
from it the ratio of two GPUs' throughput on published models of the family of the measured
one: how much faster B trained the same models than A did, measured, not read off a spec sheet.

Each version is one source's harness (Lambda's v1 and v2 ran different set-ups; the others are named
"<source> <harness>"), so ratios are taken within one version, Lambda's where its tables hold the
pair (the other sources answer the pairs Lambda lacks: they made no check better); a pair that no
version holds together is bridged through a GPU both versions measured. Several rows of one GPU
(hosts, commits, cards) count as their median.

Each figure's precision is what its source measured (assets/derive_throughput.py,
assets/derive_published.py): `amp` (autocast fp16 or bf16: a run's fp16 and bf16), `half` (the
model cast whole with `.half()`: no run of epochcost does this; kept apart, never paired with
AMP), `tf32` (float32 tensors, TF32 matmuls and convolutions: Lambda's fp32 on Ampere and newer,
in NVIDIA's containers) and `fp32` (FP32 arithmetic: every source's fp32 before Ampere). Ratios
are taken within one of these. A GPU without TF32 runs a TF32 run's arithmetic in FP32, so in
`tf32` its `fp32` figures are what such a run gets there (a GPU is taken to have TF32 where the
table holds a `tf32` figure of it: every source's fp32 on an Ampere or newer GPU ran TF32); a
pair of two such GPUs is an `fp32` pair, counted there once.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, permutations
from pathlib import Path

from engine.core import paths

FILE = "published_throughput.csv"
FAMILIES = ("convolutional", "transformer", "recurrent", "recommender")
# The versions of Lambda's PyTorch tables; every other version is "<source> <harness>".
LAMBDA_VERSIONS = ("v1", "v2")
# What a figure measured (the module's docstring), and those a run of epochcost can be.
PRECISIONS = ("amp", "half", "tf32", "fp32")
RUN_PRECISIONS = ("amp", "tf32", "fp32")
# The table's precision for a run's: autocast fp16 and bf16 both run on the tensor cores; fp32
# with TF32 (the run's environment says so) is tf32 (table_precision).
TABLE_PRECISION = {"fp32": "fp32", "tf32": "tf32", "fp16": "amp", "bf16": "amp"}
# As an estimate names the precision whose figures and checks it rests on.
WORDS = {
    "amp": "precision: AMP (autocast fp16/bf16)",
    "half": "precision: pure fp16 (.half())",
    "tf32": "precision: TF32 (FP32 on a GPU without it)",
    "fp32": "precision: FP32",
}


def table_precision(precision: str, tf32: bool = False) -> str | None:
    """The table's precision for a run's `precision` (fp32, tf32, fp16, bf16) whose fp32
    arithmetic ran as TF32 if `tf32`; another table precision (PRECISIONS) as it is; None:
    neither."""
    found = TABLE_PRECISION.get(precision, precision if precision in PRECISIONS else None)
    return "tf32" if found == "fp32" and tf32 else found


def run_precision(precision: str, tf32: bool, with_tf32: bool) -> str | None:
    """The table's precision (RUN_PRECISIONS) a run of `precision` (fp32, tf32, fp16, bf16;
    its fp32 arithmetic run as TF32 if `tf32`) is projected in between two GPUs, one of which
    has TF32 if `with_tf32`: `tf32` is `fp32` between two without, where it is FP32
    arithmetic. None: not a precision a run can be."""
    found = table_precision(precision, tf32)
    if found not in RUN_PRECISIONS:
        return None
    return "fp32" if found == "tf32" and not with_tf32 else found


@dataclass(frozen=True)
class Figure:
    """One published figure: `gpu` (catalog name) trained `model` at `samples_per_s`."""

    gpu: str
    model: str
    family: str
    precision: str
    samples_per_s: float
    version: str
    source_row: str
    source: str
    commit: str
    date: str


@dataclass(frozen=True)
class Ratio:
    """Target over source throughput on one published model, and what it rests on."""

    model: str
    ratio: float
    version: str  # "v1", "v2", or "v1+v2 via GPU" for a bridged pair


@dataclass(frozen=True)
class PublishedTable:
    figures: tuple[Figure, ...] = ()
    _medians: dict[tuple[str, str, str], dict[str, float]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _families: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _tf32: set[str] = field(default_factory=set, compare=False, repr=False)
    _gpus: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    _versions: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Asked for on every pair a projection weighs: made once (a compare priced every row
        # through them, 92,092 and 18,780 rebuilds in one test: benchmarks/RESULTS.md, issue 42).
        object.__setattr__(self, "_gpus", frozenset(f.gpu for f in self.figures))
        object.__setattr__(self, "_versions", tuple(sorted({f.version for f in self.figures})))
        groups: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
        for f in self.figures:
            groups[(f.version, f.precision, f.gpu, f.model)].append(f.samples_per_s)
            self._families.setdefault(f.model, f.family)
            if f.precision == "tf32":
                self._tf32.add(f.gpu)
        for (version, precision, gpu, model), values in groups.items():
            self._medians.setdefault((version, precision, gpu), {})[model] = statistics.median(
                values
            )

    @property
    def gpus(self) -> frozenset[str]:
        return self._gpus

    @property
    def versions(self) -> tuple[str, ...]:
        return self._versions

    @property
    def precisions(self) -> tuple[str, ...]:
        """The table's precisions (PRECISIONS) it holds figures of, in PRECISIONS' order."""
        held = {f.precision for f in self.figures}
        return tuple(p for p in PRECISIONS if p in held) + tuple(sorted(held - set(PRECISIONS)))

    def family_of(self, model: str) -> str | None:
        return self._families.get(model)

    def has_tf32(self, gpu: str) -> bool:
        """Whether the table holds a TF32 figure of `gpu` (it has TF32: the docstring)."""
        return gpu in self._tf32

    def of_precision(self, precision: str, a: str, b: str) -> bool:
        """Whether a pair of `a` and `b` counts in `precision`: a `tf32` pair has a GPU with
        TF32 (two without are an `fp32` pair, counted there)."""
        return precision != "tf32" or self.has_tf32(a) or self.has_tf32(b)

    def pairs(
        self, ordered: bool = False
    ) -> Iterator[tuple[str, str, str, str, dict[str, float], dict[str, float]]]:
        """(version, precision, GPU a, GPU b, a's figures, b's figures) for every two GPUs
        measured in one version and precision: each pair once, or both ways if `ordered`."""
        for version in self.versions:
            for precision in self.precisions:
                gpus = sorted(g for g in self.gpus if self.figures_of(version, precision, g))
                for a, b in (permutations if ordered else combinations)(gpus, 2):
                    if not self.of_precision(precision, a, b):
                        continue
                    yield (
                        version,
                        precision,
                        a,
                        b,
                        self.figures_of(version, precision, a),
                        self.figures_of(version, precision, b),
                    )

    def without(
        self, gpus: Iterable[str] = (), models: Iterable[str] = (), versions: Iterable[str] = ()
    ) -> PublishedTable:
        """The table less some GPUs', models' and versions' figures (leave-one-out checks)."""
        drop_gpus, drop_models, drop_versions = set(gpus), set(models), set(versions)
        return PublishedTable(
            tuple(
                f
                for f in self.figures
                if f.gpu not in drop_gpus
                and f.model not in drop_models
                and f.version not in drop_versions
            )
        )

    def figures_of(self, version: str, precision: str, gpu: str) -> dict[str, float]:
        """{model: median samples/s} of one GPU in one version and precision (`tf32`: its
        `fp32` figures for a GPU without TF32)."""
        if precision == "tf32" and not self.has_tf32(gpu):
            precision = "fp32"
        return self._medians.get((version, precision, gpu), {})

    def ratios(
        self, source: str, target: str, precision: str, family: str | None, bridge: bool = True
    ) -> list[Ratio]:
        """target/source throughput ratios on the published models of `family` (None: every
        family) at the table precision `precision` (a run's: table_precision): Lambda's where
        its tables measured both GPUs, else every other source's; bridged across versions
        when no version measured both GPUs (and `bridge`). Empty when the table cannot say."""
        wanted = table_precision(precision)
        if wanted is None:
            return []
        found = []
        for version in self.versions:
            a = self.figures_of(version, wanted, source)
            b = self.figures_of(version, wanted, target)
            for model in sorted(a.keys() & b.keys()):
                if family is None or self.family_of(model) == family:
                    found.append(Ratio(model, b[model] / a[model], version))
        if any(is_lambda(r.version) for r in found):  # the others only where Lambda lacks it
            found = [r for r in found if is_lambda(r.version)]
        if found or not bridge:
            return found
        return self._bridged(source, target, wanted, family)

    def own_ratios(self, ratios: list[Ratio], model: str) -> list[Ratio]:
        """`model`'s ratios among `ratios`, of one source: Lambda's tables where they hold the
        pair, else the version that measured the model on the most GPUs (ties by name). One
        harness's ratio, not a mean of several sources' set-ups."""
        own = [r for r in ratios if r.model == model]
        lambdas = [r for r in own if is_lambda(r.version)]
        if lambdas or not own:
            return lambdas

        def gpus(version: str) -> int:
            return sum(
                model in self.figures_of(v, p, g)
                for v in version_parts(version)
                for p in PRECISIONS
                for g in self.gpus
            )

        best = max({r.version for r in own}, key=lambda v: (gpus(v), v))
        return [r for r in own if r.version == best]

    def _bridged(self, source: str, target: str, precision: str, family: str | None) -> list[Ratio]:
        found = []
        for v_a in self.versions:
            for v_b in self.versions:
                if v_a == v_b:
                    continue
                a, b = (
                    self.figures_of(v_a, precision, source),
                    self.figures_of(v_b, precision, target),
                )
                if not a or not b:
                    continue
                for bridge in sorted(self.gpus - {source, target}):
                    ca = self.figures_of(v_a, precision, bridge)
                    cb = self.figures_of(v_b, precision, bridge)
                    for model in sorted(a.keys() & b.keys() & ca.keys() & cb.keys()):
                        if family is None or self.family_of(model) == family:
                            ratio = (ca[model] / a[model]) * (b[model] / cb[model])
                            found.append(Ratio(model, ratio, f"{v_a}+{v_b} via {bridge}"))
                    if found:
                        return found
        return found


def version_parts(version: str) -> list[str]:
    """The table versions a ratio's version names: ["v1", "v2"] for "v1+v2 via GPU"."""
    return version.split(" via ")[0].split("+")


def is_lambda(version: str) -> bool:
    """Whether a ratio's version is one of Lambda's PyTorch tables (or bridges two of them)."""
    return all(v in LAMBDA_VERSIONS for v in version_parts(version))


def versions_text(versions: Iterable[str]) -> str:
    """The sources of `versions`, for people: "Lambda PyTorch benchmark v1; u39kun pytorch
    0.3.0" (Lambda's tables are v1 and v2, bridged ones "v1+v2 via GPU")."""
    lambdas = sorted(v for v in versions if is_lambda(v))
    others = sorted(v for v in versions if not is_lambda(v))
    lambda_text = [f"Lambda PyTorch benchmark {', '.join(lambdas)}"] if lambdas else []
    return "; ".join(lambda_text + others)


def summary(ratios: list[Ratio]) -> tuple[float, float, float]:
    """(geometric mean, lowest, highest) of the ratios."""
    values = [r.ratio for r in ratios]
    return math.exp(statistics.fmean(math.log(v) for v in values)), min(values), max(values)


def read(path: Path) -> PublishedTable:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return PublishedTable(
        tuple(
            Figure(
                gpu=r["gpu"],
                model=r["model"],
                family=r["family"],
                precision=r["precision"],
                samples_per_s=float(r["samples_per_s"]),
                version=r["version"],
                source_row=r["source_row"],
                source=r["source"],
                commit=r["commit"],
                date=r["date"],
            )
            for r in rows
        )
    )


@cache
def shipped() -> PublishedTable:
    """The shipped table (an empty one when the file is missing: projections fall back to
    spec ratios and say so)."""
    path = paths.assets() / FILE
    return read(path) if path.is_file() else PublishedTable()
