"""One measurement on a rented instance, from launch to teardown, and what it was billed.

Steps: SkyPilot provisions the cluster and runs setup (installing the worker side), then the
job runs the measurement; its log streams here (progress), is downloaded when the job ends and
read into the result (engine/cloud/collect.py). The cluster is launched with down=True and an
idle autostop, so it terminates itself when the job ends; it is also torn down here whatever
happens (a failed setup leaves SkyPilot's cluster up "for debugging", Ctrl-C leaves it
running), and the message says what was billed: the minutes since the launch at the cluster's
$/h (an upper bound: billing starts when the instance does).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cloud import collect, log
from engine.cloud.skypilot import SkyPilot, launch_failure
from engine.cloud.task import CloudRun
from engine.core.events import Event, from_json
from engine.core.ids import new_run_id

IDLE_MINUTES = 5  # autostop (down) after this long idle, should the job's own end be missed
MIN_STARTUP_MINUTES = 10.0  # dry-run estimate: provisioning 2-5 min, setup 3-6 min (pip, torch)
RUN_ALLOWANCE_S = 120.0  # dry-run estimate: the framework's import, the build and warm-up


@dataclass(frozen=True)
class Outcome:
    """How a cloud run ended: the result to keep (None: nothing was billed, nothing to keep)
    and one line for the user when it did not measure."""

    result: dict[str, Any] | None
    message: str = ""


def estimate_minutes(run: CloudRun, startup_minutes: float = MIN_STARTUP_MINUTES) -> float:
    """Minutes a launch is expected to be billed: start-up plus the measuring windows (each
    capped by max_seconds) and the import, build and warm-up."""
    measuring_s = run.config.repeats * run.config.max_seconds + RUN_ALLOWANCE_S
    return startup_minutes + measuring_s / 60.0


def cluster_name(run_id: str | None = None) -> str:
    """A cluster name SkyPilot takes (lower case, digits, dashes; short)."""
    return f"epochcost-{(run_id or new_run_id()).lower().replace('_', '-')[-12:].strip('-')}"


class Stopped(Exception):
    """The user's cancel, met between SkyPilot's calls or at a line it writes: handled as
    Ctrl-C is (the cluster torn down, what was billed said)."""


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Stopped


class _Lines(io.TextIOBase):
    """A stream SkyPilot writes to, handed on line by line; a cancel stops the call that
    writes (SkyPilot's stream and log tail) at its next line."""

    def __init__(
        self, on_line: Callable[[str], None], cancel: threading.Event | None = None
    ) -> None:
        self._on_line = on_line
        self._cancel = cancel
        self._pending = ""

    def write(self, text: str) -> int:
        _check(self._cancel)
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._on_line(line)
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._on_line(self._pending)
            self._pending = ""


def _events_to(on_event: Callable[[Event], None]) -> Callable[[str], None]:
    def on_line(raw: str) -> None:
        rank, line = log.line_of(raw)
        if rank not in (None, 0) or not line.lstrip().startswith("{"):
            return
        try:
            event = from_json(line.strip())
        except ValueError:
            return  # not an event: a framework's JSON, a line cut short
        on_event(event)

    return on_line


def run(
    cloud: CloudRun,
    task: Any,
    sky: SkyPilot,
    logs: Path,
    say: Callable[[str], None],
    on_event: Callable[[Event], None],
    cluster: str | None = None,
    cancel: threading.Event | None = None,
) -> Outcome:
    """Launch `task`, follow it, bring its result home, tear the cluster down. `logs` is where
    the job's log is kept; `say` gets SkyPilot's lines and ours. `cancel` (the app's Cancel)
    stops it between SkyPilot's calls or at the next line one writes, as Ctrl-C does here;
    `sky.cancel_launch()` from another thread ends a launch that writes nothing for a while."""
    cluster = cluster or cluster_name()
    stage = "provisioning and setup"
    try:
        _check(cancel)
        say(f"launching {cluster} ({cloud.instance.label}; SkyPilot provisions it, then setup)")
        job_id = sky.launch(task, cluster, IDLE_MINUTES, _Lines(say, cancel))
        stage = "the measurement"
        _check(cancel)
        say(f"job {job_id} runs on {cluster}: the worker's progress follows")
        sky.follow(cluster, job_id, _Lines(_events_to(on_event), cancel))
        stage = "the log's download"
        _check(cancel)
        path = sky.download_log(cluster, job_id, logs)
        say(f"job log kept in {path}")
        result = collect.from_log(
            log.read(path),
            cloud.instance,
            cloud.price,
            cloud.spot,
            cloud.nodes,
            cluster,
        )
        return Outcome(result)
    except (KeyboardInterrupt, Stopped):
        billed = _billed(cloud)
        reason = f"stopped during {stage}; the cluster is torn down"
        return Outcome(
            _failed(cloud, reason, billed, cluster, "cancelled"), _say_billed(reason, billed)
        )
    except Exception as exc:  # noqa: BLE001 - SkyPilot's errors are many: one line each
        if cancel is not None and cancel.is_set():  # a launch cancelled on SkyPilot's server
            billed = _billed(cloud)
            reason = f"stopped during {stage}; the cluster is torn down"
            return Outcome(
                _failed(cloud, reason, billed, cluster, "cancelled"), _say_billed(reason, billed)
            )
        reason, may_bill = launch_failure(exc)
        billed = _billed(cloud)
        if not may_bill:
            return Outcome(None, reason)
        return Outcome(
            _failed(cloud, reason, billed, cluster, "launch"), _say_billed(reason, billed)
        )
    finally:
        _teardown(sky, cluster, say)


def _billed(cloud: CloudRun) -> collect.StartUp:
    clocks = {"launched": cloud.launched_at}
    return collect.startup(clocks, cloud.usd_per_hour, until=time.time())


def _say_billed(reason: str, billed: collect.StartUp) -> str:
    return (
        f"{reason}; billed at most {billed.minutes or 0:.1f} min since the launch, "
        f"${billed.usd or 0:.2f} at the cluster's $/h"
    )


def _failed(
    cloud: CloudRun, reason: str, billed: collect.StartUp, cluster: str, kind: str
) -> dict[str, Any]:
    return collect.failed_start(
        cloud.config,
        cloud.instance,
        cloud.price,
        reason,
        billed,
        cloud.spot,
        cloud.nodes,
        cluster,
        kind,
    )


def _teardown(sky: SkyPilot, cluster: str, say: Callable[[str], None]) -> None:
    """Down, whatever state the cluster is in (gone already: nothing to do)."""
    try:
        sky.down(cluster)
        say(f"{cluster} is torn down")
    except KeyboardInterrupt:
        say(f"teardown interrupted: run `sky down {cluster}` now, or it keeps billing")
    except Exception as exc:  # noqa: BLE001 - "does not exist" is the usual answer: down already
        if "does not exist" not in str(exc) and "not found" not in str(exc).lower():
            say(f"teardown of {cluster} failed ({exc}): run `sky down {cluster}`")
