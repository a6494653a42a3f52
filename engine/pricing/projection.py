"""Throughput on a GPU that is not here, estimated from a run measured on another GPU.

In order, an estimate rests on:

1. **Published measurements** (engine/pricing/published.py): where the table holds both GPUs
   for models of the measured model's family (convolutional, transformer, recurrent; every
   family for a model of none; engine/workloads/family.py: a model file's FAMILY, else what
   the model is made of, else the built-in's own, and the estimate says which), the
   throughput is scaled by the mean of those models' measured log ratios, each weighed by
   how closely it has followed the rest of its family (engine/pricing/family_mean.py; the
   model's own ratio when it is a published one); the range is the 80% range of such
   estimates' checked errors (engine/pricing/projection_errors.py).
2. **A stand-in of the same chip**: a GPU not in the table is stood in for by the table's GPU
   of the same compute capability (the same chip class: a GA102 for a GA102, a GV100 for a
   GV100) nearest in spec (one measured in the same benchmark version as the other GPU
   first), and the step between the two is the spec ratio (below).
3. **Spec ratios** (engine/pricing/roofline.py): the peak rate for the run's arithmetic (TF32
   where it ran as TF32) and memory bandwidth, weighed as the table says they weigh, with the
   80% range of such estimates' checked errors.

The run's precision picks the published figures and the errors: fp16 and bf16 (autocast) the
table's AMP figures; tf32, or fp32 whose environment says TF32 ran (roofline.ran_tf32), its
TF32 figures, or its FP32 figures between two GPUs without TF32 (there TF32 is FP32); fp32 with
TF32 off its FP32 figures only (published tables hold none of an Ampere or newer GPU: such an
estimate rests on spec ratios with the FP32 rate).

Every estimate says which it rests on (`basis`, `method`). It assumes the GPU is what limits
the run: a run held back by data loading, the host CPU or launch overhead gains less. A GPU
whose rate for the precision is not in the catalog, and no published pair, gets no estimate,
never a guess. A batch whose measured peak memory exceeds the target's memory does not fit. A
result measured on the target itself always replaces an estimate.

A CPU run is not projected: cores, vector units and caches do not scale by a quoted spec ratio,
and a CPU's speed says nothing of a GPU's. Measure there and import the result.

A stored result is projected through engine/pricing/result_projection.py, which reads these
inputs from it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.pricing import calibration, projection_errors, published
from engine.pricing.calibration import Calibration
from engine.pricing.family_mean import family_ratio
from engine.pricing.published import PublishedTable, Ratio
from engine.pricing.roofline import chip_distance, chip_step, has_tf32, spec_ratios
from engine.pricing.rows import GpuSpec, Instance

if TYPE_CHECKING:
    from engine.pricing.catalog import Catalog

STATUSES = ("measured", "estimated", "does_not_fit", "no_estimate")


@dataclass(frozen=True)
class Projection:
    """Throughput on one target (samples/s), how it was obtained, and whether the batch fits."""

    status: str  # one of STATUSES
    samples_per_s: float | None = None
    low: float | None = None
    high: float | None = None
    compute_ratio: float | None = None  # peak rate target / source for the precision
    bandwidth_ratio: float | None = None  # memory bandwidth target / source
    basis: str = ""  # what the number rests on, for people
    method: str = ""  # published | stand-in | spec (estimates); measured; "" otherwise
    memory_needed_bytes: int | None = None
    memory_available_bytes: int | None = None
    # The share of such figures the range holds: 0.8 for an estimate (from the projection's
    # checked errors), 0.95 for a measurement (its interval); None: no range.
    range_level: float | None = None

    @property
    def range_label(self) -> str:
        """'80% range', '95% interval' or ''."""
        if self.range_level is None:
            return ""
        what = "interval" if self.method in ("measured", "same GPU") else "range"
        return f"{self.range_level:.0%} {what}"

    @property
    def estimated(self) -> bool:
        return self.status == "estimated"

    @property
    def fits(self) -> bool | None:
        """False: the batch does not fit; True: it ran there or fits; None: not known."""
        if self.status in ("does_not_fit", "measured"):
            return self.status == "measured"
        if self.memory_needed_bytes is None or self.memory_available_bytes is None:
            return None
        return self.memory_needed_bytes <= self.memory_available_bytes

    def scaled(self, factor: float, why: str) -> Projection:
        """The same projection for `factor` GPUs (0.25: a partition, 8: eight of them)."""
        if self.samples_per_s is None or factor == 1:
            return self
        low, high = self.low, self.high
        return replace(
            self,
            samples_per_s=self.samples_per_s * factor,
            low=None if low is None else low * factor,
            high=None if high is None else high * factor,
            basis=f"{self.basis}; {why}",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "estimated": self.estimated,
            "fits": self.fits,
            "range_label": self.range_label,
        }


def memory_bytes(spec: GpuSpec | None, instance: Instance | None = None) -> int | None:
    """Memory of one GPU in bytes: the cloud's own figure (GiB) when the instance has one, else
    the spec's marketed GB read as 10^9 bytes (the smaller reading, so a fit is not overstated)."""
    if instance is not None and instance.gpu_memory_gib_per_gpu:
        return int(instance.gpu_memory_gib_per_gpu * 2**30)
    if spec is not None and spec.memory_gb:
        return int(spec.memory_gb * 1e9)
    return None


def measured(
    samples_per_s: float,
    basis: str,
    interval: tuple[float | None, float | None] = (None, None),
    memory_needed: int | None = None,
) -> Projection:
    """A throughput measured on the target itself (always fits: it ran); its range is that
    measurement's own 95% interval, or the figure alone for a result stored without one."""
    low, high = interval
    return Projection(
        "measured",
        samples_per_s,
        samples_per_s if low is None else low,
        samples_per_s if high is None else high,
        basis=basis,
        method="measured",
        memory_needed_bytes=memory_needed,
        range_level=0.95,
    )


@dataclass(frozen=True)
class Basis:
    """What estimates rest on: the published table, its calibration and the catalog's GPUs."""

    table: PublishedTable
    calibration: Calibration
    gpus: tuple[GpuSpec, ...]

    @classmethod
    def of(cls, catalog: Catalog, table: PublishedTable | None = None) -> Basis:
        table = published.shipped() if table is None else table
        return cls(table, calibration.cached(table, catalog.gpus), catalog.gpus)

    @property
    def lambda_checked(self) -> bool:
        """Whether the table holds Lambda's PyTorch tables, whose ranges' checks (33 GPUs) hold
        another harness's figures as they are (its TensorFlow tables, benchmarks/RESULTS.md)."""
        return any(published.is_lambda(v) for v in self.table.versions)

    def stand_ins(self, gpu: GpuSpec) -> list[GpuSpec]:
        """The table's GPUs of `gpu`'s compute capability, nearest in spec first; [gpu] itself
        when the table holds it."""
        if gpu.name in self.table.gpus:
            return [gpu]
        if not gpu.compute_capability:
            return []
        same = [
            g
            for g in self.gpus
            if g.compute_capability == gpu.compute_capability and g.name in self.table.gpus
        ]
        return sorted(same, key=lambda g: (chip_distance(gpu, g), g.name))


def project(
    samples_per_s: float,
    source: GpuSpec,
    target: GpuSpec,
    precision: str,
    memory_needed_bytes: int | None = None,
    memory_available_bytes: int | None = None,
    *,
    basis: Basis,
    family: str = "",
    tf32: bool = False,
    published_model: str = "",
) -> Projection:
    """Estimate throughput on `target` from `samples_per_s` measured on `source` (one GPU
    each) in `precision` (fp32, tf32, fp16, bf16) for a model of `family` ("" unknown) whose
    fp32 arithmetic ran as TF32 if `tf32`; `published_model`: the table's name of the same
    model, when it is a published one. The range holds 80% of such estimates checked against
    published figures."""
    memory = (memory_needed_bytes, memory_available_bytes)
    if (
        memory_needed_bytes
        and memory_available_bytes
        and memory_needed_bytes > memory_available_bytes
    ):
        needed, there = memory_needed_bytes / 2**30, memory_available_bytes / 2**30
        why = f"batch needs {needed:.1f} GiB, {target.name} has {there:.1f} GiB"
        return _without("does_not_fit", why, memory)
    if precision == "bf16" and not target.supports_bf16:
        return _without("no_estimate", f"{target.name} has no bf16 (Ampere or newer)", memory)
    table_precision = published.run_precision(precision, tf32, has_tf32(source) or has_tf32(target))
    if table_precision is None:
        return _without("no_estimate", f"precision {precision!r} is not projected", memory)
    if source.name == target.name:
        return replace(
            measured(samples_per_s, f"the measured GPU itself ({source.name})"),
            status="estimated",
            method="same GPU",
            memory_needed_bytes=memory_needed_bytes,
            memory_available_bytes=memory_available_bytes,
        )
    spec = spec_ratios(source, target, precision, tf32)
    found = _from_table(source, target, table_precision, (family, published_model), basis)
    if found is not None:
        factor, kind, text, versions = found
        method = "stand-in" if kind.startswith("stand-in") else "published"
    elif isinstance(spec, str):
        return _without("no_estimate", spec, memory)
    else:
        alpha = basis.calibration.alpha_for(table_precision, family)
        factor, kind, method = spec.weighted(alpha), "spec", "spec"
        versions = () if basis.lambda_checked else ("",)
        text = (
            f"spec ratios: {spec.what} peak x{spec.compute:.2f}, memory bandwidth "
            f"x{spec.bandwidth:.2f}, weighed as published measurements say"
        )
    kind = projection_errors.stand_in_kind(kind, source, target)
    own = published_model if kind.startswith(("same model", "stand-in, same model")) else ""
    error = basis.calibration.range_for(kind, family, own, table_precision)
    if not all(published.is_lambda(v) for v in versions):
        error = error.widened(basis.calibration.between)
    return Projection(
        "estimated",
        samples_per_s * factor,
        samples_per_s * factor * error.low,
        samples_per_s * factor * error.high,
        compute_ratio=None if isinstance(spec, str) else spec.compute,
        bandwidth_ratio=None if isinstance(spec, str) else spec.bandwidth,
        basis=f"estimated from {source.name}: {text}; {published.WORDS[table_precision]}; "
        f"{error.text()}",
        method=method,
        memory_needed_bytes=memory_needed_bytes,
        memory_available_bytes=memory_available_bytes,
        range_level=projection_errors.LEVEL,
    )


def _from_table(
    source: GpuSpec,
    target: GpuSpec,
    precision: str,
    model: tuple[str, str],
    basis: Basis,
) -> tuple[float, str, str, tuple[str, ...]] | None:
    """(factor, kind of estimate (projection_errors.KINDS), text, the versions of the ratios
    it rests on) from published ratios, through same-chip stand-ins where the table lacks a
    GPU; None when the table cannot say. `model`: (family, the published name of the model
    itself or "")."""
    family, same_model = model
    # Stand-ins measured in one benchmark version first (their ratio is one set-up's, as the
    # stand-in checks are: projection_errors.gpu_out), then any, bridged across versions.
    candidates = [(a, b) for a in basis.stand_ins(source) for b in basis.stand_ins(target)]
    for bridge, (a, b) in itertools.product((False, True), candidates):
        if a.name == b.name and a.name != source.name:
            continue
        ratios = basis.table.ratios(a.name, b.name, precision, family or None, bridge)
        if not ratios and family:
            ratios = basis.table.ratios(a.name, b.name, precision, None, bridge)
        steps = [_step(source, a, precision, family, basis)]
        steps.append(_step(b, target, precision, family, basis))
        if not ratios or None in steps:
            continue
        scale = math.prod(s for s in steps if s is not None)
        own = basis.table.own_ratios(ratios, same_model) if same_model else []
        weights = basis.calibration.family_weights
        mean = published.summary(own)[0] if own else family_ratio(ratios, weights)
        text = _table_text(ratios, family, weights)
        if own:
            text = f"measured ratio of the same published model ({same_model})"
        stood = [f"{g.name} for {s.name}" for s, g in ((source, a), (target, b)) if s != g]
        if stood:
            text += f"; same chip: {', '.join(stood)} (spec ratio)"
        kind = "same model" if own else "family"
        versions = tuple(sorted({r.version for r in own or ratios}))
        return mean * scale, f"stand-in, {kind}" if stood else kind, text, versions
    return None


def _step(frm: GpuSpec, to: GpuSpec, precision: str, family: str, basis: Basis) -> float | None:
    """The spec ratio from `frm` to its same-chip stand-in `to` (1 when they are one GPU)."""
    if frm.name == to.name:
        return 1.0
    ratios = chip_step(frm, to)
    if isinstance(ratios, str):
        return None
    return ratios.weighted(basis.calibration.alpha_for(precision, family))


def _table_text(ratios: list[Ratio], family: str, weights: dict[str, float]) -> str:
    models = sorted({r.model for r in ratios})
    what = f"{family} " if family else ""
    versions = sorted({r.version for r in ratios})
    text = (
        f"measured ratio of {len(models)} published {what}model{'s' * (len(models) > 1)} "
        f"({', '.join(models)}; {published.versions_text(versions)})"
    )
    if len(models) > 1 and all(m in weights for m in models):
        count = {m: sum(r.model == m for r in ratios) for m in models}
        total = sum(weights[m] * count[m] for m in models)
        shares = "/".join(f"{weights[m] * count[m] / total:.0%}" for m in models)
        text += f", weighed {shares} by how closely each has followed its family"
    return text


def _without(status: str, why: str, memory: tuple[int | None, int | None]) -> Projection:
    return Projection(
        status, basis=why, memory_needed_bytes=memory[0], memory_available_bytes=memory[1]
    )
