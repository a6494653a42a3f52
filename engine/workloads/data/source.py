"""Where a timed run's batches come from, named apart from the model (RunConfig.data).

    auto              synthetic, or your model file's make_dataset when it defines one
    synthetic         one batch made once on the device: the compute-only upper bound
    imagefolder:PATH  class folders of JPEG/PNG/BMP images, decoded and augmented every step
    cifar10[:PATH]    the CIFAR-10 binary files (default folder: the data folder's cifar10)

Framework-free: the parent checks a spec here before a worker starts; the worker builds the
pipeline (engine/worker/frameworks/<name>/data.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.core import reading
from engine.core.errors import ConfigError
from engine.workloads.data import cifar10, imagefolder

KINDS = ("auto", "synthetic", "imagefolder", "cifar10")
FIELD = "data"
_USAGE = "use synthetic, imagefolder:PATH or cifar10[:PATH]"


@dataclass(frozen=True)
class DataSpec:
    kind: str  # one of KINDS
    path: str | None = None  # imagefolder's folder, or cifar10's (None: the default folder)

    @property
    def reads_files(self) -> bool:
        return self.kind in ("imagefolder", "cifar10")


def default_cifar10_folder() -> Path:
    """Where `cifar10` without a path looks: <data folder>/cifar10."""
    from engine.core import paths

    return paths.home(create=False) / "cifar10"


def parse(spec: object) -> DataSpec:
    """The spec's kind and path; ConfigError(data, ...) for one that is none of KINDS."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(FIELD, f"{spec!r}: {_USAGE}")
    kind, sep, path = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in KINDS:
        raise ConfigError(FIELD, f"{spec!r} is not a data source; {_USAGE}")
    if kind in ("auto", "synthetic") and sep:
        raise ConfigError(FIELD, f"{spec!r}: {kind} takes no path; {_USAGE}")
    if kind == "imagefolder" and not path.strip():
        raise ConfigError(FIELD, "imagefolder needs its folder: imagefolder:PATH")
    return DataSpec(kind, path.strip() or None)


def normalized(spec: str) -> str:
    """The spec with its folder made absolute (a worker may start elsewhere), e.g.
    imagefolder:~/data -> imagefolder:/home/me/data; a spec that does not parse is kept as
    given, for the config's check to explain."""
    try:
        data = parse(spec)
    except ConfigError:
        return spec
    if data.path is None:
        return f"{data.kind}"
    folder = Path(data.path).expanduser()
    try:
        return f"{data.kind}:{folder.resolve()}"
    except (RuntimeError, OSError):  # a loop of links (Python 3.11 raises RuntimeError)
        return f"{data.kind}:{folder.absolute()}"  # check() says what it is


def check(spec: object, files: bool = True) -> DataSpec:
    """parse(), and with `files` a cheap look at the folder (it exists and is a folder); the
    full check of an image folder is samples() / imagefolder.scan()."""
    data = parse(spec)
    if not files or not data.reads_files:
        return data
    folder = folder_of(data)
    if not folder.is_dir():
        what = reading.why_absent(folder)
        hint = (
            f"; download it: `epochcost data download cifar10 --to {folder.parent}`"
            if data.kind == "cifar10" and what == "does not exist"
            else ""
        )
        raise ConfigError(FIELD, f"{folder} {what}{hint}")
    return data


def folder_of(data: DataSpec) -> Path:
    if data.path is not None:
        return Path(data.path).expanduser()
    return default_cifar10_folder()


def samples(data: DataSpec) -> int | None:
    """Samples in one epoch of the source (a full check of its files), None when the source
    has no files (synthetic, auto: the workload decides)."""
    if data.kind == "imagefolder":
        return imagefolder.scan(folder_of(data)).images
    if data.kind == "cifar10":
        try:
            files = cifar10.find_files(folder_of(data))
            return sum(cifar10.record_count(f) for f in files.train)
        except ConfigError as exc:  # the reader names its own field (accuracy's --dataset)
            raise ConfigError(FIELD, exc.message) from None
    return None
