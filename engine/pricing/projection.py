"""Throughput on a GPU that is not here, estimated from a run measured on another GPU.

Why a range: a training step needs some arithmetic (bound by the peak rate for its precision)
and some memory traffic (bound by memory bandwidth). Under that roofline model, if step time is
max(work / peak, bytes / bandwidth) on both GPUs, the speed-up from GPU A to GPU B lies between
the smaller and the larger of the two ratios peak_B / peak_A and bandwidth_B / bandwidth_A,
whichever of the two bounded the run on A. So the estimate is that interval, and its midpoint
(geometric mean of the two ratios) is the single number shown. It assumes the GPU is what limits
the run: a run held back by data loading, the host CPU or launch overhead gains less.

The peak rate is FP32 for an fp32 run and the tensor FP16/BF16 rate for an fp16/bf16 run (autocast
on tensor cores). A GPU whose rate for that precision is not in the catalog gets no estimate,
never a guess. A batch whose measured peak memory exceeds the target's memory does not fit. A
result measured on the target itself always replaces an estimate.

A CPU run is not projected: cores, vector units and caches do not scale by a quoted spec ratio,
and a CPU's speed says nothing of a GPU's. Measure there and import the result.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

from engine.pricing.rows import GpuSpec, Instance

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
    memory_needed_bytes: int | None = None
    memory_available_bytes: int | None = None

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
        return {**asdict(self), "estimated": self.estimated, "fits": self.fits}


def peak_tflops(spec: GpuSpec, precision: str) -> tuple[float | None, str]:
    """The peak rate that bounds a run of `precision` on `spec`, or None and why it is unknown."""
    if precision == "fp32":
        if spec.fp32_tflops is None:
            return None, f"FP32 rate of {spec.name} is not in the catalog"
        return spec.fp32_tflops, "FP32"
    if precision == "bf16" and not spec.supports_bf16:
        return None, f"{spec.name} has no bf16 (Ampere or newer needed)"
    if not spec.has_tensor_cores:
        return None, f"{spec.name} has no tensor cores and its FP16 rate is not in the catalog"
    if spec.fp16_bf16_tensor_tflops_dense is None:
        return None, f"tensor FP16/BF16 rate of {spec.name} is not in the catalog"
    return spec.fp16_bf16_tensor_tflops_dense, "tensor FP16/BF16"


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
        memory_needed_bytes=memory_needed,
    )


def project(
    samples_per_s: float,
    source: GpuSpec,
    target: GpuSpec,
    precision: str,
    memory_needed_bytes: int | None = None,
    memory_available_bytes: int | None = None,
) -> Projection:
    """Estimate throughput on `target` from `samples_per_s` measured on `source` (one GPU each)."""
    memory = (memory_needed_bytes, memory_available_bytes)
    if (
        memory_needed_bytes
        and memory_available_bytes
        and memory_needed_bytes > memory_available_bytes
    ):
        needed, there = memory_needed_bytes / 2**30, memory_available_bytes / 2**30
        why = f"batch needs {needed:.1f} GiB, {target.name} has {there:.1f} GiB"
        return _without("does_not_fit", why, memory)
    rate_a, why_a = peak_tflops(source, precision)
    rate_b, why_b = peak_tflops(target, precision)
    if rate_a is None:
        return _without("no_estimate", f"the measured GPU: {why_a}", memory)
    if rate_b is None:
        return _without("no_estimate", why_b, memory)
    bw_a, bw_b = source.memory_bandwidth_gbs, target.memory_bandwidth_gbs
    if bw_a is None or bw_b is None:
        missing = source.name if bw_a is None else target.name
        return _without(
            "no_estimate", f"memory bandwidth of {missing} is not in the catalog", memory
        )
    compute, bandwidth = rate_b / rate_a, bw_b / bw_a
    low, high = sorted((compute, bandwidth))
    basis = (
        f"estimated from {source.name}: {why_a} peak x{compute:.2f}, "
        f"memory bandwidth x{bandwidth:.2f}"
    )
    return Projection(
        "estimated",
        samples_per_s * math.sqrt(compute * bandwidth),
        samples_per_s * low,
        samples_per_s * high,
        compute_ratio=compute,
        bandwidth_ratio=bandwidth,
        basis=basis,
        memory_needed_bytes=memory_needed_bytes,
        memory_available_bytes=memory_available_bytes,
    )


def _without(status: str, why: str, memory: tuple[int | None, int | None]) -> Projection:
    return Projection(
        status, basis=why, memory_needed_bytes=memory[0], memory_available_bytes=memory[1]
    )


def measured_spread(result: dict[str, Any]) -> tuple[float, float]:
    """(low, high) of the result's 95% throughput interval as factors of its figure; (1, 1)
    for a result stored without one."""
    ci, center = result.get("throughput_ci95"), result.get("throughput_samples_per_s")
    if not ci or not center or ci[0] is None or ci[1] is None:
        return 1.0, 1.0
    return ci[0] / center, ci[1] / center


def with_measured_spread(proj: Projection, result: dict[str, Any]) -> Projection:
    """A projection's range widened by the measurement's own 95% interval: the estimate
    scales a figure that is itself only known to within it."""
    low_f, high_f = measured_spread(result)
    if proj.low is None or proj.high is None or (low_f, high_f) == (1.0, 1.0):
        return proj
    return replace(
        proj,
        low=proj.low * low_f,
        high=proj.high * high_f,
        basis=f"{proj.basis}; with the measurement's own 95% interval",
    )
