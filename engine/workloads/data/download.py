"""Fetch the official CIFAR-10 binary archive into a folder the user chose. The only place
epochcost uses the network, and only when asked to."""

from __future__ import annotations

import hashlib
import tarfile
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from engine.core.errors import ConfigError
from engine.workloads.data import cifar10

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
MD5 = "c32a1d4ab5d03f1284b67883e8d87530"  # published beside the archive on the data set's page
ARCHIVE_BYTES = 170_052_171
CHUNK_BYTES = 1 << 20
TIMEOUT_S = 30.0
_MEMBERS = (*cifar10.TRAIN_FILES, cifar10.TEST_FILE, "batches.meta.txt")


def download_cifar10(
    folder: Path,
    url: str = URL,
    md5: str | None = MD5,
    progress: Callable[[int, int | None], None] | None = None,
) -> Path:
    """Download and unpack the binary CIFAR-10 into folder/cifar-10-batches-bin (nothing is
    fetched when the files are already there). Returns that folder. `progress(bytes_done,
    bytes_total)` is called as the archive arrives. ConfigError when offline or corrupt."""
    folder = Path(folder).expanduser()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError("to", f"cannot create {folder}: {exc.strerror}") from None
    target = folder / cifar10.SUBFOLDER
    try:
        return cifar10.find_files(target).folder
    except ConfigError:
        pass  # not there yet (or incomplete): fetch it
    archive = folder / "cifar-10-binary.tar.gz.part"
    try:
        digest = _fetch(url, archive, progress)
        if md5 is not None and digest != md5:
            raise ConfigError(
                "url", f"the file from {url} is corrupt (MD5 {digest}, expected {md5}); try again"
            )
        _unpack(archive, target)
    finally:
        archive.unlink(missing_ok=True)
    files = cifar10.find_files(target)
    for path in (*files.train, files.test):
        cifar10.record_count(path)  # a clear error for a short file, now rather than later
    return files.folder


def _fetch(url: str, out: Path, progress: Callable[[int, int | None], None] | None) -> str:
    """Stream `url` into `out`; the MD5 of what arrived."""
    md5 = hashlib.md5(usedforsecurity=False)
    done = 0
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, out.open("wb") as f:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            while chunk := response.read(CHUNK_BYTES):
                f.write(chunk)
                md5.update(chunk)
                done += len(chunk)
                if progress:
                    progress(done, total)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConfigError(
            "url",
            f"cannot download {url} ({reason}). This machine looks offline: fetch "
            "cifar-10-binary.tar.gz on another machine, unpack it, and give its folder as "
            "the data set (--dataset FOLDER); or use the built-in data set patterns10 "
            "(--dataset patterns10)",
        ) from None
    except OSError as exc:
        raise ConfigError("to", f"cannot write {out}: {exc.strerror}") from None
    return md5.hexdigest()


def _unpack(archive: Path, target: Path) -> None:
    """Copy the six batch files (and the class names) out of the archive by name. Paths in
    the archive are never used, so no member can land outside `target`."""
    target.mkdir(parents=True, exist_ok=True)
    found = set()
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:
                name = Path(member.name).name
                if name not in _MEMBERS or not member.isfile():
                    continue
                source = tar.extractfile(member)
                if source is None:
                    continue
                with source, (target / name).open("wb") as f:
                    while chunk := source.read(CHUNK_BYTES):
                        f.write(chunk)
                found.add(name)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ConfigError("url", f"the downloaded archive cannot be unpacked: {exc}") from None
    missing = [m for m in _MEMBERS[:-1] if m not in found]
    if missing:
        raise ConfigError("url", f"the archive lacks {', '.join(missing)}: not CIFAR-10 binary")
