"""A dry run SkyPilot itself accepts: the task through SkyPilot's own loader, Resources
validation and optimizer, against its catalog, offline (engine/cloud/sky_catalog.py), in the
cloud program; then the estimate: $/h with its source and date, start-up plus run minutes,
dollars.

The one assumption: SkyPilot's optimizer is told the task's cloud is enabled (there are no
credentials here). A row SkyPilot refuses is refused here with SkyPilot's own words; the $/h
SkyPilot's optimizer prices must agree with the catalog's (within a cent), else the dry run
says both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cloud import launch, skypilot
from engine.cloud.sky_catalog import runtime_dir
from engine.cloud.task import IDLE_MINUTES, CloudRun
from engine.core.errors import ConfigError
from engine.pricing.catalog import Catalog, price_note

CHECK_TIMEOUT_S = 300.0
PRICE_TOLERANCE_USD = 0.01


@dataclass(frozen=True)
class Verdict:
    """SkyPilot's answer for one task: accepted (with what its optimizer chose and its $/h),
    or refused with its reason."""

    ok: bool
    error: str = ""
    chosen: str = ""
    yaml: str = ""
    usd_per_hour: float | None = None


def check(cat: Catalog, mappings: list[dict[str, Any]]) -> list[Verdict]:
    """SkyPilot's verdict on each task (one run of the cloud program for all of them)."""
    answer = skypilot.call(
        "check",
        {"tasks": mappings, "runtime_dir": str(runtime_dir(cat))},
        timeout_s=CHECK_TIMEOUT_S,
    )
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
    (verdict,) = check(cat, [mapping])
    if not verdict.ok:
        raise ConfigError("instance", f"SkyPilot refuses {cloud.instance.label}: {verdict.error}")
    return verdict


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


def price_disagreement(plan_: dict[str, Any], share: float = 1.0) -> str:
    """A line when SkyPilot's optimizer prices the cluster otherwise than the catalog."""
    sky = plan_["skypilot"].get("usd_per_hour")
    if sky is None:
        return ""
    ours = plan_["usd_per_hour"] / share
    if abs(sky - ours) <= PRICE_TOLERANCE_USD:
        return ""
    return f"SkyPilot's optimizer prices it at ${sky:,.4g}/h, the catalog at ${ours:,.4g}/h"
