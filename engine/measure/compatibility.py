"""Can this framework build run on that NVIDIA GPU with that driver? One answer, in words, with
the remedy, used by `epochcost devices` and `doctor`, the app's device box and the worker
before it builds a model.

A build carries machine code (SASS) for some GPU architectures ("sm_75") and maybe PTX
("compute_90"), which the driver compiles for newer GPUs. SASS for sm_XY runs on a GPU of
compute capability X.Z with Z >= Y (same major: sm_60 runs on a GTX 1080 Ti, 6.1); PTX for
compute_XY runs on any capability >= X.Y; an "a" variant (sm_90a) runs on X.Y only. (CUDA C
Programming Guide, "Binary Compatibility" and "PTX Compatibility".)

A build also needs a driver that runs its CUDA major version: CUDA 12.x builds run on any 12.x
driver (>= 525.60.13) through minor-version compatibility, CUDA 13.x needs 580.65.06 or newer
(CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions", Linux).

No framework is imported here: what a build carries is read where the framework lives
(engine/worker/frameworks/*/build.py, in the worker or a child process: engine/process/builds.py).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

LABELS = {"torch": "PyTorch", "tensorflow": "TensorFlow"}


@dataclass(frozen=True)
class GpuEnv:
    """The environment `epochcost env create --framework torch` makes for GPUs the app's own
    PyTorch has no kernels for (engine/envs/choice.py): torch 2.7.1, its CUDA 12.6 build
    (torch._C._cuda_getArchFlags())."""

    command: str = "epochcost env create --framework torch"
    torch: str = "2.7.1"
    cuda: str = "12.6"
    archs: tuple[str, ...] = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")


GPU_ENV = GpuEnv()

# (lowest Linux driver, the CUDA version it runs), newest first: the toolkit release notes'
# table. Each CUDA 12.x build runs on a 12.0 driver (minor-version compatibility), so only the
# major version decides whether a build can start.
DRIVER_CUDA = (
    ((580, 65, 6), (13, 0)),
    ((575, 51, 3), (12, 9)),
    ((570, 26, 0), (12, 8)),
    ((560, 28, 3), (12, 6)),
    ((555, 42, 2), (12, 5)),
    ((550, 54, 14), (12, 4)),
    ((545, 23, 6), (12, 3)),
    ((535, 54, 3), (12, 2)),
    ((530, 30, 2), (12, 1)),
    ((525, 60, 13), (12, 0)),
    ((520, 61, 5), (11, 8)),
    ((515, 43, 4), (11, 7)),
    ((510, 39, 1), (11, 6)),
    ((495, 29, 5), (11, 5)),
    ((470, 42, 1), (11, 4)),
    ((465, 19, 1), (11, 3)),
    ((460, 27, 3), (11, 2)),
    ((455, 23, 0), (11, 1)),
    ((450, 36, 6), (11, 0)),
)
# The lowest driver for each CUDA major version (what a build of that major needs).
MIN_DRIVER = {13: "580.65.06", 12: "525.60.13", 11: "450.80.02"}

_ARCH = re.compile(r"^(sm|compute)_(\d+)([a-z]?)$")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


@dataclass(frozen=True)
class Build:
    """What one framework environment was built for."""

    framework: str  # torch | tensorflow
    version: str = ""
    python: str = ""  # the interpreter it lives in
    cuda: str = ""  # the CUDA it was built with ("13.0"); "" for a CPU-only build
    archs: tuple[str, ...] = ()  # "sm_75", "compute_90"
    error: str = ""  # why it could not be read ("" when read)

    @property
    def label(self) -> str:
        name = f"{LABELS.get(self.framework, self.framework)} {self.version}".strip()
        return f"{name} (CUDA {self.cuda})" if self.cuda else name

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Build:
        return cls(
            framework=str(data.get("framework", "")),
            version=str(data.get("version", "")),
            python=str(data.get("python", "")),
            cuda=str(data.get("cuda") or ""),
            archs=tuple(str(a) for a in data.get("archs") or ()),
            error=str(data.get("error", "")),
        )


@dataclass(frozen=True)
class Verdict:
    """Whether `build` runs on the GPU, why (in words), and what to do where it does not."""

    ok: bool
    reason: str
    remedy: str = ""
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def capability(text: str | None) -> tuple[int, int] | None:
    """'6.1' -> (6, 1); None for blank or malformed text."""
    match = re.fullmatch(r"(\d+)\.(\d+)", (text or "").strip())
    return (int(match[1]), int(match[2])) if match else None


def sm(cc: tuple[int, int]) -> str:
    return f"sm_{cc[0]}{cc[1]}"


def _arch(arch: str) -> tuple[str, tuple[int, int], str] | None:
    """'sm_61' -> ('sm', (6, 1), ''); 'sm_120' -> ('sm', (12, 0), ''); 'sm_90a' -> (..., 'a')."""
    match = _ARCH.match(arch.strip())
    if not match or len(match[2]) < 2:
        return None
    digits = match[2]
    return match[1], (int(digits[:-1]), int(digits[-1])), match[3]


def runs_on(archs: tuple[str, ...] | list[str], cc: tuple[int, int]) -> bool:
    """True if one of the build's architectures runs on a GPU of compute capability `cc`."""
    for arch in archs:
        parsed = _arch(arch)
        if parsed is None:
            continue
        kind, (major, minor), variant = parsed
        if variant:
            runs = (major, minor) == cc  # arch-specific features: that GPU only
        elif kind == "sm":
            runs = major == cc[0] and minor <= cc[1]  # machine code: same major, newer minor
        else:
            runs = (major, minor) <= cc  # PTX: compiled by the driver for newer GPUs
        if runs:
            return True
    return False


def span(archs: tuple[str, ...] | list[str]) -> str:
    """'sm_75 and newer' (with PTX for the newest), or 'sm_50 to sm_90'."""
    parsed = [p for p in (_arch(a) for a in archs) if p is not None]
    if not parsed:
        return "no GPU architecture"
    ccs = sorted(cc for _, cc, _ in parsed)
    lowest, highest = sm(ccs[0]), sm(ccs[-1])
    if any(kind == "compute" and cc == ccs[-1] for kind, cc, _ in parsed):
        return f"{lowest} and newer"
    return f"{lowest} to {highest}" if lowest != highest else f"{lowest} only"


def driver_cuda(driver: str | None) -> tuple[int, int] | None:
    """The highest CUDA version a Linux driver runs: '535.104.05' -> (12, 2); None when the
    text is not a driver version or older than any in the table."""
    match = _VERSION.match((driver or "").strip())
    if not match:
        return None
    version = (int(match[1]), int(match[2]), int(match[3] or 0))
    for lowest, cuda in DRIVER_CUDA:
        if version >= lowest:
            return cuda
    return None


def verdict(
    build: Build,
    gpu: str,
    cc: tuple[int, int] | None,
    driver: str = "",
    driver_runs: tuple[int, int] | None = None,
) -> Verdict:
    """Can `build` train on the GPU named `gpu` of capability `cc`, under `driver` (which runs
    CUDA up to `driver_runs`; read from the driver's version when not given)?"""
    label = build.label
    if build.error:
        return Verdict(
            False,
            f"{LABELS.get(build.framework, build.framework)} could not be read in "
            f"{build.python or 'this environment'}: {build.error}",
            "check that environment (File > Settings, or `epochcost doctor`)",
        )
    if not build.cuda:
        return Verdict(False, f"this {label} is a CPU-only build", _cpu_build_remedy(build))
    if cc is None:
        return Verdict(
            False,
            f"the compute capability of {gpu} is not known (not reported, not in the catalog)",
            "add it to your GPU catalog (epochcost catalog files), or run and see",
        )
    if not runs_on(build.archs, cc):
        return Verdict(
            False,
            f"{gpu} is {sm(cc)}; this {label} runs on {span(build.archs)}",
            _arch_remedy(build, cc),
        )
    needs = _version(build.cuda)
    runs = driver_runs or driver_cuda(driver)
    shown = f"driver {driver}" if driver else "the driver"
    if needs is not None and runs is not None:
        if runs[0] < needs[0]:
            return Verdict(
                False,
                f"{shown} runs CUDA up to {runs[0]}.{runs[1]}; this {label} needs CUDA "
                f"{needs[0]}, driver {MIN_DRIVER.get(needs[0], 'newer')} or newer",
                _driver_remedy(build, cc, runs),
            )
        if runs < needs:
            return Verdict(
                True,
                f"{gpu} is {sm(cc)}; this {label} runs on {span(build.archs)}; {shown} runs "
                f"CUDA {runs[0]}.{runs[1]}, enough through CUDA's minor-version compatibility",
            )
    return Verdict(True, f"{gpu} is {sm(cc)}; this {label} runs on {span(build.archs)}")


def _version(text: str) -> tuple[int, int] | None:
    match = _VERSION.match(text.strip())
    return (int(match[1]), int(match[2])) if match else None


def _gpu_env_text() -> str:
    return (
        f"`{GPU_ENV.command}` (in the app: File > Settings; PyTorch {GPU_ENV.torch} with CUDA "
        f"{GPU_ENV.cuda}, for {span(GPU_ENV.archs)}; it becomes the environment of PyTorch "
        "runs, in the app and the CLI)"
    )


def _arch_remedy(build: Build, cc: tuple[int, int]) -> str:
    if build.framework == "torch":
        if runs_on(GPU_ENV.archs, cc) and not build.version.startswith(GPU_ENV.torch):
            return "make an environment that runs on it: " + _gpu_env_text()
        if cc < (5, 0):
            return (
                f"no PyTorch from PyPI runs on {sm(cc)} any more (Kepler support ended with "
                "CUDA 12): measure on the CPU (--device cpu) or on a newer GPU"
            )
        return (
            "use a PyTorch built for it: leave the PyTorch environment empty in File > "
            "Settings (the app's own PyTorch), or install a newer torch there"
        )
    return (
        f"install a TensorFlow built for {sm(cc)} in an environment of its own and choose it "
        "in File > Settings, or measure with PyTorch"
    )


def _driver_remedy(build: Build, cc: tuple[int, int], runs: tuple[int, int]) -> str:
    needs = _version(build.cuda) or (0, 0)
    update = f"update the NVIDIA driver to {MIN_DRIVER.get(needs[0], 'a newer one')} or newer"
    env_cuda = _version(GPU_ENV.cuda) or (0, 0)
    if build.framework == "torch" and runs[0] >= env_cuda[0] and runs_on(GPU_ENV.archs, cc):
        return f"{update}, or " + _gpu_env_text()
    return update


def _cpu_build_remedy(build: Build) -> str:
    if build.framework == "tensorflow":
        return (
            "install `tensorflow[and-cuda]` (not tensorflow-cpu) in an environment of its own "
            "and choose it in File > Settings"
        )
    return "install a CUDA build of PyTorch (PyPI's torch), or " + _gpu_env_text()
