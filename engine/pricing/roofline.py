"""Spec ratios between two GPUs: the peak arithmetic rate and the memory bandwidth.

A training step needs arithmetic (bound by the peak rate for its precision) and memory traffic
(bound by bandwidth). Under that roofline model the speed-up from GPU A to GPU B lies between
the two ratios peak_B / peak_A and bandwidth_B / bandwidth_A. Projection v1 showed that
interval with its geometric mean; checked against published measurements it held the measured
figure in about half the pairs (benchmarks/projection_accuracy.py). The calibrated form used
now weighs the two ratios as the published table says (`Calibration.alpha`, per precision and
model family) and takes its range from the table's own errors for that form.

The peak rate for fp32 is the FP32 rate, or the dense TF32 tensor rate where the run's
arithmetic ran as TF32 (`tf32`, or the run's precision "tf32": float32 tensors, TF32 matmuls
and convolutions): PyTorch runs cuDNN convolutions in TF32 by default on Ampere and newer,
matmuls only when asked; TensorFlow runs both in TF32 by default. A GPU without TF32 (before
Ampere) runs such a run's arithmetic in FP32. fp16 and bf16 (autocast) use the tensor
FP16/BF16 rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.pricing.rows import GpuSpec


def ran_tf32(
    environment: dict[str, Any],
    family: str,
    framework: str | None = None,
    precision: str | None = None,
) -> bool:
    """Whether a run's fp32 arithmetic that matters for its model `family` ran as TF32 (on a
    GPU that has it): always for the precision "tf32" (it asks for both), else as the run's
    environment records (tf32_conv, tf32_matmul), else the framework's default (PyTorch: cuDNN
    convolutions yes, matmuls no; TensorFlow: both). `framework`: where the environment does
    not say."""
    if precision == "tf32":
        return True
    framework = environment.get("framework") or framework
    if framework == "tensorflow":
        return bool(environment.get("tf32_matmul", True))
    if family == "convolutional":
        return bool(environment.get("tf32_conv", True))
    return bool(environment.get("tf32_matmul", False))


def has_tf32(spec: GpuSpec) -> bool:
    """Whether `spec` runs TF32 (compute capability 8.0 or newer: Ampere onwards); without it a
    run that allows TF32 runs FP32."""
    capability = spec.compute_capability_tuple
    return capability >= (8, 0) if capability else spec.supports_bf16


def peak_tflops(spec: GpuSpec, precision: str) -> tuple[float | None, str]:
    """The peak rate that bounds a run of `precision` on `spec`, or None and why it is unknown
    ("tf32": the TF32 rate where the catalog has one, else the FP32 rate)."""
    if precision == "tf32" and spec.tf32_tensor_tflops_dense:
        return spec.tf32_tensor_tflops_dense, "TF32 tensor"
    if precision in ("fp32", "tf32"):
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


def run_rate(spec: GpuSpec, precision: str, tf32: bool) -> tuple[float | None, str]:
    """The rate a run of `precision` gets on `spec`: TF32 where fp32 arithmetic runs as TF32
    (or the precision is "tf32") and the GPU has a TF32 rate in the catalog, else
    `peak_tflops`."""
    return peak_tflops(spec, "tf32" if precision == "fp32" and tf32 else precision)


@dataclass(frozen=True)
class SpecRatios:
    """Target over source: peak rate for the run's arithmetic, and memory bandwidth."""

    compute: float
    bandwidth: float
    what: str  # the rates compared, for people

    def weighted(self, alpha: float) -> float:
        """compute^alpha x bandwidth^(1-alpha): alpha 1 is compute-bound, 0 memory-bound."""
        return self.compute**alpha * self.bandwidth ** (1 - alpha)

    @property
    def midpoint(self) -> float:
        """Projection v1's single figure: the geometric mean of the two ratios."""
        return math.sqrt(self.compute * self.bandwidth)


def spec_ratios(
    source: GpuSpec, target: GpuSpec, precision: str, tf32: bool = False
) -> SpecRatios | str:
    """The two ratios from `source` to `target`, or why they cannot be formed."""
    rate_a, what_a = run_rate(source, precision, tf32)
    rate_b, what_b = run_rate(target, precision, tf32)
    if rate_a is None:
        return f"the measured GPU: {what_a}"
    if rate_b is None:
        return what_b
    bw_a, bw_b = source.memory_bandwidth_gbs, target.memory_bandwidth_gbs
    if bw_a is None or bw_b is None:
        missing = source.name if bw_a is None else target.name
        return f"memory bandwidth of {missing} is not in the catalog"
    what = what_a if what_a == what_b else f"{what_b} over {what_a}"
    return SpecRatios(rate_b / rate_a, bw_b / bw_a, what)


def chip_step(source: GpuSpec, target: GpuSpec) -> SpecRatios | str:
    """Spec ratios between two GPUs of one chip (one compute capability): plain FP32 rates,
    whatever the run's arithmetic. On one chip every rate (FP32, TF32, FP16 tensor) scales with
    its SMs and clocks alike, and the FP32 rate is the one the catalog has for every GPU: a
    TF32 rate known for one of them and not the other would otherwise make an 8x step."""
    return spec_ratios(source, target, "fp32")


def chip_distance(a: GpuSpec, b: GpuSpec) -> float:
    """How far apart two GPUs of one chip are: |log| of their FP32 rate and bandwidth ratios,
    plus twice that of their memory sizes. Memory counts most because published benchmarks
    size their batches to the card's memory (Lambda's do), so a stand-in of the same memory ran
    the batches the target would have: leaving one GPU out of the table, the projection misses
    by a median 8.8% this way and 13.9% on FP32 rate and bandwidth alone
    (benchmarks/projection_accuracy.py)."""
    ratios = chip_step(a, b)
    if isinstance(ratios, str):
        return math.inf
    distance = abs(math.log(ratios.compute)) + abs(math.log(ratios.bandwidth))
    if a.memory_gb and b.memory_gb:
        distance += MEMORY_WEIGHT * abs(math.log(b.memory_gb / a.memory_gb))
    return distance


MEMORY_WEIGHT = 2.0
