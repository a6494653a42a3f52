"""The catalog as the commands that price read it: loaded with each skipped row said on stderr,
and --cloud and --gpu checked against it, with the names close to a mistyped one."""

from __future__ import annotations

import difflib
import sys

from engine.cli.common import UsageError
from engine.pricing import catalog as catalog_module
from engine.pricing.catalog import Catalog
from engine.pricing.rows import GpuSpec


def check_clouds(cat: Catalog, text: str | None) -> tuple[str, ...] | None:
    """--cloud as names the catalog sells under (None: every cloud); an unknown one is refused,
    with the names close to it."""
    if text is None:
        return None
    names = tuple(name.strip().lower() for name in text.split(",") if name.strip())
    known = sorted({i.cloud.lower() for i in cat.instances})
    if not names:
        raise UsageError("cloud", f"give one or more of {', '.join(known)}, comma-separated")
    for name in names:
        if name not in known:
            raise UsageError(
                "cloud",
                f"no cloud {name!r} in the catalog{did_you_mean(name, known)}; "
                f"it has {', '.join(known)}",
            )
    return names


def check_gpu(cat: Catalog, text: str | None) -> None:
    """Refuses --gpu when no catalog GPU or instance matches it, with the names close to it."""
    if text is None:
        return
    wanted = catalog_module.normalise(text)
    if not wanted:
        raise UsageError("gpu", f"{text!r}: give a GPU name (epochcost catalog gpus lists them)")
    if cat.find_gpus(text) or any(
        wanted in catalog_module.normalise(i.gpu_model) for i in cat.instances
    ):
        return
    names = {g.name for g in cat.gpus} | {i.gpu_model for i in cat.instances if i.gpu_model}
    raise UsageError(
        "gpu",
        f"no GPU matches {text!r}{did_you_mean(text, sorted(names))}; "
        "epochcost catalog gpus lists them",
    )


def did_you_mean(text: str, names: list[str]) -> str:
    """' (did you mean a, b or c?)' for the names like `text`, else nothing."""
    by_key = {name.lower(): name for name in names}
    close = [by_key[c] for c in difflib.get_close_matches(text.strip().lower(), list(by_key))]
    if not close:
        return ""
    listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
    return f" (did you mean {listed}?)"


def resolve_gpu(cat: Catalog, text: str, option: str = "gpu") -> GpuSpec:
    """The catalog GPU `text` names: its catalog or device name, else the one GPU whose names
    contain it; a clear refusal naming the candidates otherwise."""
    found = cat.gpu(text) or cat.gpu_for_device(text)
    if found is not None:
        return found
    matches = cat.find_gpus(text) if catalog_module.normalise(text) else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        some = ", ".join(g.name for g in matches[:8])
        raise UsageError(option, f"{text!r} matches {len(matches)} GPUs ({some}): name one")
    names = sorted(g.name for g in cat.gpus)
    raise UsageError(
        option,
        f"no catalog GPU matches {text!r}{did_you_mean(text, names)}; "
        "epochcost catalog gpus lists them",
    )


def load_reporting() -> Catalog:
    """The catalog; each bad row is reported on stderr (it is skipped, the rest loads)."""
    cat = catalog_module.load()
    for problem in cat.problems:
        print(f"epochcost: catalog: {problem}", file=sys.stderr)
    return cat
