"""A dry run SkyPilot itself accepts: the task through SkyPilot's own loader, Resources
validation and optimizer, against its catalog, offline (engine/cloud/sky_catalog.py), in the
cloud program; then the estimate: $/h with its source and date, start-up plus run minutes,
dollars.

The one assumption: SkyPilot's optimizer is told the task's cloud is enabled (there are no
credentials here). A row SkyPilot refuses is refused here with SkyPilot's own words; the plan
carries the $/h SkyPilot's optimizer prices beside the catalog's, and the dry run prints both.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from engine.cloud import check_server, launch, skypilot
from engine.cloud.sky_catalog import runtime_dir
from engine.cloud.task import IDLE_MINUTES, CloudRun
from engine.core.errors import ConfigError
from engine.pricing.catalog import Catalog, price_note

CHECK_TIMEOUT_S = 300.0


@dataclass(frozen=True)
class Verdict:
    """SkyPilot's answer for one task: accepted (with what its optimizer chose and its $/h),
    or refused with its reason."""

    ok: bool
    error: str = ""
    chosen: str = ""
    yaml: str = ""
    usd_per_hour: float | None = None


def check(
    cat: Catalog, mappings: list[dict[str, Any]], cancel: threading.Event | None = None
) -> list[Verdict]:
    """SkyPilot's verdict on each task (one request to the warm cloud program for all of
    them: engine/cloud/check_server.py); `cancel`, set from another thread, stops it
    (SkyError)."""
    python = skypilot.cloud_python()
    answer = check_server.check(python, runtime_dir(cat), mappings, CHECK_TIMEOUT_S, cancel)
    if not isinstance(answer, list) or len(answer) != len(mappings):
        raise ConfigError("cloud", "the cloud program gave no verdict for every task")
    return [
        Verdict(
            ok=bool(a.get("ok")),
            error=str(a.get("error") or ""),
            chosen=str(a.get("chosen") or ""),
            yaml=str(a.get("yaml") or ""),
            usd_per_hour=a.get("usd_per_hour"),
        )
        for a in answer
    ]


def accepted(cat: Catalog, cloud: CloudRun, mapping: dict[str, Any]) -> Verdict:
    """SkyPilot's acceptance of one task, or ConfigError with SkyPilot's reason."""
    (verdict,) = all_accepted(cat, [(cloud, mapping)])
    return verdict


def all_accepted(
    cat: Catalog,
    runs: list[tuple[CloudRun, dict[str, Any]]],
    cancel: threading.Event | None = None,
) -> list[Verdict]:
    """SkyPilot's acceptance of each task (one request to the warm cloud program for all), or
    ConfigError with SkyPilot's reason for the first it refuses."""
    verdicts = check(cat, [mapping for _cloud, mapping in runs], cancel)
    for (cloud, _mapping), verdict in zip(runs, verdicts, strict=True):
        if not verdict.ok:
            raise ConfigError(
                "instance", f"SkyPilot refuses {cloud.instance.label}: {verdict.error}"
            )
    return verdicts


def plan(
    cloud: CloudRun, mapping: dict[str, Any], verdict: Verdict, startup_minutes: float
) -> dict[str, Any]:
    """What --dryrun --json prints: the task, SkyPilot's verdict, $/h with source and date,
    the estimate."""
    minutes = launch.estimate_minutes(cloud, startup_minutes)
    price = cloud.price
    return {
        "task": mapping,
        "yaml": verdict.yaml,
        "skypilot": {
            "accepted": verdict.ok,
            "chosen": verdict.chosen,
            "usd_per_hour": verdict.usd_per_hour,
        },
        "launch": {"down": True, "idle_minutes_to_autostop": IDLE_MINUTES},
        "usd_per_hour": cloud.usd_per_hour,
        "price": price.to_dict(),
        "price_note": price_note(cloud.price.as_of or ""),
        "estimated_minutes": round(minutes, 2),
        "startup_minutes": startup_minutes,
        "estimated_usd": round(cloud.usd_per_hour * minutes / 60.0, 4),
    }
