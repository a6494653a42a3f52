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
(hosts, commits, cards) count as their median. The precision is the table's: fp32 as the framework
ran it (TF32 on Ampere and newer in every source's containers) and fp16 for autocast (AMP) fp16 or
bf16; a model cast whole to half precision is not in the table (assets/derive_published.py).
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
# The table's precision for a run's: autocast fp16 and bf16 both run on the tensor cores.
TABLE_PRECISION = {"fp32": "fp32", "fp16": "fp16", "bf16": "fp16"}


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

    def __post_init__(self) -> None:
        groups: dict[tuple[str, str, str, str], list[float]] = defaultdict(list)
        for f in self.figures:
            groups[(f.version, f.precision, f.gpu, f.model)].append(f.samples_per_s)
            self._families.setdefault(f.model, f.family)
        for (version, precision, gpu, model), values in groups.items():
            self._medians.setdefault((version, precision, gpu), {})[model] = statistics.median(
                values
            )

    @property
    def gpus(self) -> frozenset[str]:
        return frozenset(f.gpu for f in self.figures)

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(sorted({f.version for f in self.figures}))

    def family_of(self, model: str) -> str | None:
        return self._families.get(model)

    def pairs(
        self, ordered: bool = False
    ) -> Iterator[tuple[str, str, str, str, dict[str, float], dict[str, float]]]:
        """(version, precision, GPU a, GPU b, a's figures, b's figures) for every two GPUs
        measured in one version and precision: each pair once, or both ways if `ordered`."""
        for version in self.versions:
            for precision in sorted({f.precision for f in self.figures}):
                gpus = sorted(g for g in self.gpus if self.figures_of(version, precision, g))
                for a, b in (permutations if ordered else combinations)(gpus, 2):
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
        """{model: median samples/s} of one GPU in one version and precision."""
        return self._medians.get((version, precision, gpu), {})

    def ratios(
        self, source: str, target: str, precision: str, family: str | None, bridge: bool = True
    ) -> list[Ratio]:
        """target/source throughput ratios on the published models of `family` (None: every
        family) at the table precision for `precision`: Lambda's where its tables measured
        both GPUs, else every other source's; bridged across versions when no version
        measured both GPUs (and `bridge`). Empty when the table cannot say."""
        table_precision = TABLE_PRECISION.get(precision)
        if table_precision is None:
            return []
        found = []
        for version in self.versions:
            a = self.figures_of(version, table_precision, source)
            b = self.figures_of(version, table_precision, target)
            for model in sorted(a.keys() & b.keys()):
                if family is None or self.family_of(model) == family:
                    found.append(Ratio(model, b[model] / a[model], version))
        if any(is_lambda(r.version) for r in found):  # the others only where Lambda lacks it
            found = [r for r in found if is_lambda(r.version)]
        if found or not bridge:
            return found
        return self._bridged(source, target, table_precision, family)

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
                for p in ("fp32", "fp16")
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
