"""What a report says about a run's data: where its batches came from, how much of its time
went to waiting for them, and what loading them cost beside a synthetic run of the same
model (engine/results/data_cost.py). Plain text pairs; the HTML report
(engine/results/html_report.py) lays them out.
"""

from __future__ import annotations

from typing import Any

from engine.results import data_cost

NAMES = {"imagefolder": "image folder", "cifar10": "CIFAR-10", "model-file": "model file's data"}


def source(data: dict[str, Any] | None) -> str:
    """The result's `data` as a sentence: what was read, how many, and how it was loaded."""
    data = data or {}
    kind = data.get("kind") or "synthetic"
    if kind == "synthetic":
        return "synthetic: one batch made once on the device (the model alone, no loading)"
    name = NAMES.get(kind, kind)
    where = data.get("source")
    head = f"{name} {where}" if where and kind != "model-file" else str(where or name)
    counts = [
        f"{data[key]:,} {what}"
        for key, what in (("samples", "images"), ("classes", "classes"))
        if isinstance(data.get(key), int)
    ]
    loading = []
    workers = data.get("loader_workers")
    if isinstance(workers, int):
        loading.append(f"{workers} loader worker{'' if workers == 1 else 's'}")
    elif workers is not None:  # TensorFlow's AUTOTUNE
        loading.append(f"loader workers {workers}")
    if data.get("pin_memory"):
        loading.append("pinned memory")
    parts = [", ".join(counts), data.get("augmentation") or "", ", ".join(loading)]
    detail = "; ".join(p for p in parts if p)
    return f"{head} ({detail})" if detail else head


def input_wait(result: dict[str, Any]) -> str | None:
    """The share of the measured time spent waiting for data, with each window's (None for
    synthetic batches: nothing was waited for)."""
    fraction = result.get("input_wait_fraction")
    if fraction is None:
        return None
    windows = [f"{w:.1%}" for w in result.get("input_wait_repeats") or () if w is not None]
    each = f" (windows: {', '.join(windows)})" if len(windows) > 1 else ""
    return f"{fraction:.1%} of the measured time waiting for data{each}"


def cost(costs: dict[str, Any] | None) -> str | None:
    """data_cost.comparison() in the words of `results show`, on one line."""
    if costs is None:
        return None
    lines = [line.strip() for line in data_cost.text(costs).splitlines()]
    return "; ".join(lines).removeprefix("data cost").strip()


def facts(result: dict[str, Any], costs: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The report's data lines for a run that ended ok: (what, text) pairs."""
    out = [("data", source(result.get("data")))]
    waited, paid = input_wait(result), cost(costs)
    if waited:
        out.append(("input wait", waited))
    if paid:
        out.append(("data cost", paid))
    return out
