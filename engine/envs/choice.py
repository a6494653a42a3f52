"""Which framework build a machine needs: from its GPU (compute capability) and NVIDIA driver
to the packages to install, where from, and why, in words. No network, no framework: a pure
function of what engine/envs/machine.py read, so recorded machines test it.

The rules (engine/measure/compatibility.py has the facts they rest on):
- PyTorch for Pascal and Volta (sm_60, sm_70: GTX 10xx, P100, V100) and Maxwell: torch 2.7.1
  with CUDA 12.6 (sm_50 to sm_90), the newest build that still carries them; on a driver too old
  for CUDA 12 (under 525.60.13) its CUDA 11.8 build, from PyTorch's own index only.
- PyTorch for Turing and later (sm_75 and newer): the newest build the app pins (torch 2.14.1,
  CUDA 13.0) where the driver runs CUDA 13 (580.65.06 or newer), else torch 2.7.1 with CUDA 12.6
  (which runs up to sm_90), or its CUDA 12.8 build for Blackwell (sm_100, sm_120).
- TensorFlow 2.21 with CUDA (`tensorflow[and-cuda]`, CUDA 12 from PyPI's NVIDIA packages) where
  the driver runs CUDA 12 and TensorFlow's pip builds carry the GPU (sm_60 and newer);
  tensorflow-cpu otherwise.
- No NVIDIA driver, a GPU no build runs on, or `--device cpu`: a CPU build.

PyTorch's own index (download.pytorch.org) serves each CUDA variant; PyPI serves one per
release (2.7.1: CUDA 12.6; 2.14.1: CUDA 13.0) and no CPU-only build for Linux x86_64. Where
PyTorch's index cannot be reached, `fallback` is the nearest PyPI build that fits, or a CPU
build with the reason; the creator says which it took.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.measure.compatibility import GPU_ENV, MIN_DRIVER, driver_cuda, runs_on, sm

TORCH_INDEX = "https://download.pytorch.org/whl/"
NEWEST_TORCH = ("2.14.1", "0.29.1", "13.0")  # torch, torchvision, CUDA: PyPI's build
PASCAL_TORCH = (GPU_ENV.torch, "0.22.1", GPU_ENV.cuda)  # the last release with sm_50..sm_70
TENSORFLOW = "2.21.*"
# TensorFlow's pip builds (its .bazelrc, TF_CUDA_COMPUTE_CAPABILITIES, since 2.15).
TENSORFLOW_ARCHS = ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90")
# Machine code the PyTorch builds carry (torch._C._cuda_getArchFlags() of each).
TORCH_ARCHS = {
    "12.6": GPU_ENV.archs,
    "11.8": ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
    "12.8": ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"),
    "13.0": ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_110", "sm_120", "compute_120"),
}


@dataclass(frozen=True)
class Gpu:
    """One NVIDIA GPU as the machine reports it."""

    name: str
    compute_capability: tuple[int, int] | None  # (6, 1); None where nothing says


@dataclass(frozen=True)
class Machine:
    """What decides the build: the GPUs, the driver's version ("" without a driver) and where
    these were read (NVML, nvidia-smi, /proc/driver/nvidia/version)."""

    gpus: tuple[Gpu, ...] = ()
    driver: str = ""
    source: str = "none"


@dataclass(frozen=True)
class Choice:
    """A framework build to install: `packages` from `index_url` (None: the package index's
    own, PyPI), what it runs on and why it was chosen; `fallback` where `index_url` cannot be
    reached."""

    framework: str  # torch | tensorflow
    label: str  # "PyTorch 2.7.1 with CUDA 12.6"
    device: str  # cuda | cpu
    packages: tuple[str, ...]
    reason: str
    index_url: str | None = None
    fallback: Choice | None = None
    notes: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        where = f" from {self.index_url}" if self.index_url else " from the package index"
        return f"{self.label}{where}: {self.reason}"


def choose(framework: str, machine: Machine, device: str = "auto") -> Choice:
    """The build of `framework` for `machine`; `device` "cpu" asks for a CPU build."""
    if framework not in ("torch", "tensorflow"):
        raise ValueError(f"framework must be torch or tensorflow, not {framework!r}")
    gpu = machine.gpus[0] if machine.gpus else None
    if device == "cpu" or gpu is None or not machine.driver:
        why = (
            "asked for the CPU"
            if device == "cpu"
            else "no NVIDIA GPU with a driver here" + (f" ({machine.source})" if gpu else "")
        )
        return _cpu(framework, why)
    if gpu.compute_capability is None:
        return _cpu(framework, f"the compute capability of {gpu.name} is not known")
    if framework == "torch":
        return _torch(gpu, gpu.compute_capability, machine.driver)
    return _tensorflow(gpu, gpu.compute_capability, machine.driver)


def _cuda_major(driver: str) -> int:
    runs = driver_cuda(driver)
    return runs[0] if runs else 0


def _torch(gpu: Gpu, cc: tuple[int, int], driver: str) -> Choice:
    major = _cuda_major(driver)
    on = f"{gpu.name} ({sm(cc)}), driver {driver}"
    if cc < (5, 0):
        return _cpu("torch", f"{on}: no PyTorch build runs on {sm(cc)} any more")
    if major >= 13 and runs_on(TORCH_ARCHS["13.0"], cc):
        build = _torch_build(NEWEST_TORCH, on, "the newest build; the driver runs CUDA 13")
        return replace(build, fallback=replace(build, index_url=None))
    if major >= 12 and runs_on(TORCH_ARCHS["12.6"], cc):
        why = "the newest build with kernels for it" if cc < (7, 5) else "the driver runs CUDA 12"
        build = _torch_build(PASCAL_TORCH, on, why)
        # PyPI's torch 2.7.1 is this very build (CUDA 12.6).
        return replace(build, fallback=replace(build, index_url=None))
    if major >= 12 and runs_on(TORCH_ARCHS["12.8"], cc):
        build = _torch_build((*PASCAL_TORCH[:2], "12.8"), on, "CUDA 12.8 carries Blackwell")
        return replace(build, fallback=_cpu("torch", _update(on, 13, "PyPI's CUDA 13 build")))
    if major >= 11 and runs_on(TORCH_ARCHS["11.8"], cc):
        build = _torch_build((*PASCAL_TORCH[:2], "11.8"), on, "the driver runs CUDA 11 only")
        return replace(build, fallback=_cpu("torch", _update(on, 12, "PyPI's CUDA 12.6 build")))
    return _cpu("torch", _update(on, 12 if cc < (7, 5) else 13, "a CUDA build"))


def _torch_build(versions: tuple[str, str, str], on: str, why: str) -> Choice:
    torch, vision, cuda = versions
    return Choice(
        framework="torch",
        label=f"PyTorch {torch} with CUDA {cuda}",
        device="cuda",
        packages=(f"torch=={torch}", f"torchvision=={vision}"),
        reason=f"{on}: {why}",
        index_url=TORCH_INDEX + "cu" + cuda.replace(".", ""),
    )


def _tensorflow(gpu: Gpu, cc: tuple[int, int], driver: str) -> Choice:
    on = f"{gpu.name} ({sm(cc)}), driver {driver}"
    if not runs_on(TENSORFLOW_ARCHS, cc):
        return _cpu("tensorflow", f"{on}: TensorFlow's builds run on sm_60 and newer")
    if _cuda_major(driver) < 12:
        return _cpu("tensorflow", _update(on, 12, "TensorFlow's CUDA 12 build"))
    return Choice(
        framework="tensorflow",
        label="TensorFlow 2.21 with CUDA 12",
        device="cuda",
        packages=(f"tensorflow[and-cuda]=={TENSORFLOW}",),
        reason=f"{on}: the driver runs CUDA 12",
    )


def _update(on: str, major: int, what: str) -> str:
    return f"{on}: update the driver to {MIN_DRIVER[major]} or newer for {what}"


def _cpu(framework: str, why: str) -> Choice:
    if framework == "tensorflow":
        return Choice(
            "tensorflow",
            "TensorFlow 2.21 (CPU)",
            "cpu",
            (f"tensorflow-cpu=={TENSORFLOW}",),
            f"{why}: the CPU build",
        )
    torch, vision, _ = NEWEST_TORCH
    packages = (f"torch=={torch}", f"torchvision=={vision}")
    return Choice(
        "torch",
        f"PyTorch {torch} (CPU)",
        "cpu",
        packages,
        f"{why}: the CPU build",
        index_url=TORCH_INDEX + "cpu",
        fallback=Choice(
            "torch",
            f"PyTorch {torch} (PyPI's build, with CUDA {NEWEST_TORCH[2]})",
            "cpu",
            packages,
            f"{why}: PyPI has no CPU-only PyTorch for Linux; its CUDA build runs on the CPU "
            "too, a larger download",
        ),
    )
