"""A cloud job's result, as the store keeps it: the measurement from the log, the instance's
price with its date, and the start-up.

The start-up is the time from the launch to the first measured step (provisioning, setup, the
framework's import, the build, warm-up) and what it costs at the cluster's $/h: billed, though
nothing is measured then. The log's clock lines time it (engine/cloud/commands.py); a log whose
launch time is not known (a task started by hand without EPOCHCOST_LAUNCHED_AT) is timed from
its setup, or its run, and says so.

The result keeps a `cloud` section: cloud, region, instance, spot, nodes, the cluster's name,
$/h with its source and date, the price's age note, and the start-up's minutes, cost and basis.

A log is checked as an import is before anything is kept (engine/cloud/checks.py): its run
ids, its device against the instance's, one run throughout, a rate its device can reach, a
date not ahead, its clock lines within its own span and a start-up no launch exceeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cloud import checks
from engine.cloud.log import JobLog
from engine.core.errors import ConfigError
from engine.core.events import Failed
from engine.core.ids import new_run_id
from engine.measure.config import RunConfig
from engine.measure.result import failed_result
from engine.pricing import catalog as catalog_module
from engine.pricing import cost
from engine.pricing.catalog import Catalog, price_note
from engine.pricing.cost import Price
from engine.pricing.rows import Instance
from engine.results.repricing import repriced

_FROM = (
    ("launched", "launch"),
    ("setup", "setup's start (provisioning is not in the log)"),
    ("run", "the run's start (provisioning and setup are not in the log)"),
)


@dataclass(frozen=True)
class StartUp:
    """Minutes from `basis` to the first measured step, and their cost (USD) at the $/h."""

    minutes: float | None
    usd: float | None
    basis: str


def startup(clocks: dict[str, float], usd_per_hour: float, until: float | None = None) -> StartUp:
    """The start-up of a job from its clock lines; `until` (seconds since the epoch) ends it
    instead of the first measured step (a job stopped before it measured)."""
    end = clocks.get("first-measured") if until is None else until
    for name, basis in _FROM:
        begin = clocks.get(name)
        if begin is not None and end is not None and end >= begin:
            minutes = (end - begin) / 60.0
            return StartUp(minutes, cost.usd_for_seconds(minutes * 60.0, usd_per_hour), basis)
    return StartUp(None, None, "not in the log (no clock lines)")


def cloud_section(
    instance: Instance,
    price: Price,
    spot: bool,
    nodes: int,
    start: StartUp,
    cluster: str | None = None,
) -> dict[str, Any]:
    """The `cloud` section a cloud result keeps."""
    return {
        "cloud": instance.cloud,
        "region": instance.region,
        "instance_type": instance.instance_type,
        "spot": spot,
        "nodes": nodes,
        "cluster": cluster,
        "price": price.to_dict(),  # as_of None: the catalog's price is undated
        "price_note": price_note(price.as_of or ""),
        "startup_minutes": start.minutes,
        "startup_usd": start.usd,
        "startup_basis": start.basis,
    }


def from_log(
    job: JobLog,
    instance: Instance,
    price: Price,
    spot: bool = False,
    nodes: int = 1,
    cluster: str | None = None,
    catalog: Catalog | None = None,
) -> dict[str, Any]:
    """The result a job log holds, priced at `price` (the cluster's $/h), with its start-up; a
    worker's failure is a failed result (an OOM is data); a log with neither is refused, and
    so is one that fails its checks (engine/cloud/checks.py; `catalog` is loaded when not
    given), each with a ConfigError naming what to fix."""
    checks.run_ids(job)
    result = job.result if job.result is not None else _failure(job)
    cat = catalog if catalog is not None else catalog_module.load()
    result = checks.measured_on(job, result, instance, nodes, cat)
    if result.get("price") != price.dated().to_dict():
        result = repriced(result, price)
    start = startup(job.clocks, price.usd_per_hour)
    checks.startup_within(start.minutes, start.basis, job.source)
    return {**result, "cloud": cloud_section(instance, price, spot, nodes, start, cluster)}


def _failure(job: JobLog) -> dict[str, Any]:
    """The failed result of a log whose worker failed: its `failed` event, with the config and
    environment of its `started` event."""
    failure, started = job.failure, job.started
    if failure is None or started is None:
        raise ConfigError(
            job.source,
            "holds no result of epochcost-worker (no `finished` or `failed` event): was "
            "the job stopped before it measured? `sky logs CLUSTER` shows its output",
        )
    try:
        config = RunConfig.from_dict(started.config, check_files=False)
        return failed_result(failure, config, dict(started.environment))
    except (TypeError, ValueError, AttributeError) as exc:  # a ConfigError is a ValueError
        raise ConfigError(
            job.source,
            f"its `started` and `failed` events are not epochcost-worker's ({exc}); collect "
            "the job's own log (sky logs CLUSTER)",
        ) from None


def failed_start(
    config: RunConfig,
    instance: Instance,
    price: Price,
    reason: str,
    billed: StartUp,
    spot: bool = False,
    nodes: int = 1,
    cluster: str | None = None,
    kind: str = "launch",
) -> dict[str, Any]:
    """A launch that failed or was stopped before a result, kept because it was billed:
    status failed (cancelled for a stop), the reason, and the start-up it cost."""
    event = Failed(run_id=new_run_id(), kind=kind, message=reason)
    result = failed_result(event, config.with_price(price), {})
    section = cloud_section(instance, price, spot, nodes, billed, cluster)
    return {**result, "cloud": section}


def describe(result: dict[str, Any]) -> str:
    """The cloud lines of a summary: the machine, its price and date, the start-up."""
    section = result.get("cloud") or {}
    price = section.get("price") or {}
    note = f"; {section['price_note']}" if section.get("price_note") else ""
    spot = " spot" if section.get("spot") else ""
    nodes = f" x{section.get('nodes')} nodes" if (section.get("nodes") or 1) > 1 else ""
    lines = [
        f"cloud: {section.get('cloud')} {section.get('instance_type')}{spot}{nodes} "
        f"({section.get('region') or 'region unknown'}) at ${price.get('usd_per_hour', 0):,.4g}/h "
        f"({price.get('source')}, {price.get('as_of') or 'undated'}{note})"
    ]
    minutes = section.get("startup_minutes")
    if minutes is None:
        lines.append(f"start-up: {section.get('startup_basis')}")
    else:
        lines.append(
            f"start-up: {minutes:.1f} min from {section.get('startup_basis')} to the first "
            f"measured step, ${section.get('startup_usd') or 0:.2f} billed before measuring"
        )
    return "\n".join(lines)
