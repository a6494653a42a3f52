"""Model FLOPs utilisation (MFU): the FLOP rate a run achieved over its device's dense peak.

MFU = achieved FLOP/s / peak FLOP/s, where achieved = counted FLOPs per sample x measured
samples/s, and the peak is the GPU maker's dense rate (no sparsity) for the arithmetic the run
used, from the catalog's GPU row (assets/gpus.csv, or the user's own row of that name):

- fp16 / bf16 (autocast, mixed precision): the dense tensor-core FP16/BF16 rate. A GPU without
  tensor cores, or without bf16 for a bf16 run, has no such peak.
- fp32: the dense TF32 tensor rate where the arithmetic that matters for the model's family ran
  as TF32 (engine/pricing/roofline.ran_tf32, the rule projection uses too): a convolutional
  model under PyTorch whose cuDNN allows TF32 (torch.backends.cudnn.allow_tf32, True by
  default), any model whose run records TF32 matmuls, and TensorFlow, which enables TF32 by
  default on Ampere and newer. Otherwise the plain FP32 rate (no tensor cores): PyTorch runs
  float32 matmuls in full FP32 unless told otherwise (torch.get_float32_matmul_precision() is
  "highest" by default since 1.12). Seen on an H200 (2026-11-26): resnet18-cifar in fp32 read
  102% of the FP32 peak, 68.2 TFLOP/s, its convolutions in TF32.

The catalog's FP16 rate of a GeForce card is its FP16-accumulate rate; the frameworks accumulate
in FP32, which those cards run at half that rate, so their fp16/bf16 MFU reads up to 2x low
(peak_source says so).

A CPU, Apple's MPS, a GPU missing from the catalog, or a blank rate: "peak unknown", no MFU,
never a guess (as nanochat's get_peak_flops does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.pricing.catalog import Catalog
from engine.pricing.roofline import peak_tflops, ran_tf32
from engine.pricing.rows import GpuSpec


@dataclass(frozen=True)
class Peak:
    """A device's dense peak for one precision (TFLOP/s), or None with why it is unknown."""

    tflops: float | None
    source: str  # what the figure is and where it comes from, or "peak unknown: why"
    gpu: GpuSpec | None = None

    @property
    def known(self) -> bool:
        return self.tflops is not None


def _unknown(why: str) -> Peak:
    return Peak(None, f"peak unknown: {why}")


def peak_for_spec(spec: GpuSpec, precision: str, tf32: bool = False) -> Peak:
    """The dense peak of `spec` for `precision` (fp32, tf32, fp16, bf16)."""
    if precision == "tf32" or (precision == "fp32" and tf32 and spec.tf32_tensor_tflops_dense):
        if spec.tf32_tensor_tflops_dense is None:
            return _unknown(f"the TF32 rate of {spec.name} is not in the catalog")
        rate, what = spec.tf32_tensor_tflops_dense, "tensor TF32 dense"
    else:
        found, what = peak_tflops(spec, precision)
        if found is None:
            return _unknown(what)
        rate = found
        what = "FP32 (no tensor cores)" if precision == "fp32" else f"{what} dense"
    source = f"{spec.name}: {what} {rate:g} TFLOP/s ({spec.origin} catalog)"
    if precision in ("fp16", "bf16") and "geforce" in spec.name.lower():
        source += "; GeForce: FP16-accumulate rate; FP32 accumulation runs at half, MFU reads low"
    return Peak(rate, source, spec)


def device_peak(
    environment: dict[str, Any], precision: str, catalog: Catalog, family: str = ""
) -> Peak:
    """The peak of the device a result ran on, found by its device name (CUDA's name, matched
    through the catalog's aliases), for a model of `family` ("" unknown)."""
    device = str(environment.get("device") or "")
    if not device.startswith("cuda"):
        what = environment.get("device_name") or environment.get("cpu") or device or "CPU"
        kind = "Apple's MPS device" if device == "mps" else "a CPU"
        return _unknown(f"{what} is {kind}; the catalog holds GPU peaks only")
    name = environment.get("device_name")
    spec = catalog.gpu_for_device(name)
    if spec is None:
        return _unknown(f"{name or 'the GPU'} is not in the GPU catalog (add a row to gpus.csv)")
    return peak_for_spec(spec, precision, ran_tf32(environment, family))


def run_peak(
    environment: dict[str, Any],
    precision: str,
    catalog: Catalog | None = None,
    family: str = "",
) -> Peak:
    """device_peak on the shipped and user catalog (loaded when not given); a catalog that
    cannot be read makes the peak unknown, never the run fail."""
    if catalog is None:
        from engine.pricing import catalog as catalog_module

        try:
            catalog = catalog_module.load()
        except OSError as exc:  # the data folder is unusable: keep the measurement regardless
            return _unknown(str(exc))
    return device_peak(environment, precision, catalog, family)


def with_mfu(
    flops: dict[str, Any] | None,
    environment: dict[str, Any],
    precision: str,
    catalog: Catalog | None = None,
    family: str = "",
) -> dict[str, Any] | None:
    """`flops` (a result's flops block) plus peak_tflops, mfu and peak_source; None stays None.
    `family`: the model's (convolutional, transformer, ...; "" unknown), for whether TF32 ran.

    MFU is a fraction (0.42 = 42% of peak); null when the peak is unknown.
    """
    if flops is None:
        return None
    peak = run_peak(environment, precision, catalog, family)
    achieved = flops.get("achieved_tflops")
    mfu = achieved / peak.tflops if peak.tflops and achieved is not None else None
    source = peak.source
    if mfu is not None and mfu > 1:
        source += "; MFU above 1 means more arithmetic ran than this peak allows: check the row"
    return {**flops, "peak_tflops": peak.tflops, "mfu": mfu, "peak_source": source}
