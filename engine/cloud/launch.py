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

from engine.cloud import billing, collect, log, signals
from engine.cloud.skypilot import SkyPilot, launch_failure
from engine.cloud.task import CloudRun
from engine.core.events import Event, from_json
from engine.core.ids import new_run_id

DOWN_RETRY_PAUSES_S = (5.0, 20.0)  # a failed teardown is tried three times in all
MIN_STARTUP_MINUTES = 10.0  # dry-run estimate: provisioning 2-5 min, setup 3-6 min (pip, torch)
RUN_ALLOWANCE_S = 120.0  # dry-run estimate: the framework's import, the build and warm-up


@dataclass(frozen=True)
class Outcome:
    """How a cloud run ended: the result to keep (None: nothing was billed, nothing to keep)
    and one line for the user when it did not measure."""

    result: dict[str, Any] | None
    message: str = ""
    billed: bool = True  # False: SkyPilot refused before any instance could run


def estimate_minutes(run: CloudRun, startup_minutes: float = MIN_STARTUP_MINUTES) -> float:
    """Minutes a launch is expected to be billed: start-up plus the measuring windows (their
    time limit: RunConfig.measuring_seconds) and the import, build and warm-up."""
    measuring_s = run.config.measuring_seconds + RUN_ALLOWANCE_S
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
    task: dict[str, Any],
    sky: SkyPilot,
    logs: Path,
    say: Callable[[str], None],
    on_event: Callable[[Event], None],
    cluster: str | None = None,
    cancel: threading.Event | None = None,
    existing: bool = False,
) -> Outcome:
    """Launch `task` (or, `existing`, submit it to that cluster, which is up: sky exec), follow
    it, bring its result home, tear the cluster down (never one that was up before). `logs` is
    where the job's log is kept; `say` gets SkyPilot's lines and ours. `cancel` (the app's
    Cancel) stops it between SkyPilot's calls or at the next line one writes, as Ctrl-C,
    SIGTERM and SIGHUP do (engine/cloud/signals.py); `sky.cancel_launch()` from another thread
    ends a launch that writes nothing for a while."""
    cluster = cluster or cluster_name()
    stage = "provisioning and setup"
    outcome: Outcome | None = None
    try:
        _check(cancel)
        if existing:
            say(f"submitting to {cluster}, which is up ({cloud.instance.label})")
            job_id = sky.exec(task, cluster, _Lines(say, cancel))
        else:
            say(f"launching {cluster} ({cloud.instance.label}; SkyPilot provisions it, then setup)")
            job_id = sky.launch(task, cluster, _Lines(say, cancel))
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
        outcome = Outcome(result)
    except (KeyboardInterrupt, Stopped):
        outcome = _stopped(cloud, stage, cluster)
    except Exception as exc:  # noqa: BLE001 - SkyPilot's errors are many: one line each
        if cancel is not None and cancel.is_set():  # a launch cancelled on SkyPilot's server
            outcome = _stopped(cloud, stage, cluster)
        else:
            reason, may_bill = launch_failure(exc)
            if may_bill and _preempted(sky, cloud, cluster):
                reason = f"the spot instance was taken back (preempted) during {stage}"
                outcome = Outcome(_failed(cloud, reason, cluster, "preempted"), "", True)
            else:
                outcome = Outcome(
                    _failed(cloud, reason, cluster, "launch") if may_bill else None,
                    reason if not may_bill else "",
                    may_bill,
                )
    finally:
        left = "" if existing else _teardown(sky, cluster, say)
        if outcome is not None:
            outcome = _billed(cloud, outcome, left, cluster)
    return outcome


def _preempted(sky: SkyPilot, cloud: CloudRun, cluster: str) -> bool:
    """Whether a spot cluster that failed after it came up was taken back: SkyPilot no longer
    has it UP. Unknown (SkyPilot cannot say) is not preemption."""
    if not cloud.spot:
        return False
    try:
        return sky.status(cluster) != "UP"
    except Exception:  # noqa: BLE001 - no answer: the failure stays what it was
        return False


def _stopped(cloud: CloudRun, stage: str, cluster: str) -> Outcome:
    reason = f"stopped during {stage}"
    return Outcome(_failed(cloud, reason, cluster, "cancelled"), "", True)


def _billed(cloud: CloudRun, outcome: Outcome, left: str, cluster: str) -> Outcome:
    """The outcome with what the rental was billed, counted after the teardown: the result
    keeps the rental's total (launch to teardown, at the cloud's billing granularity) and a
    stop or failure says it in its line; `left` says a cluster that may still run."""
    if not outcome.billed:
        return Outcome(None, "; ".join(m for m in (outcome.message, left) if m), False)
    rental = billing.rental(
        cloud.instance.cloud, cloud.launched_at, time.time(), cloud.usd_per_hour
    )
    result = outcome.result
    if result is not None:
        section = dict(result.get("cloud") or {})
        section.update(rental_minutes=rental.minutes, rental_usd=rental.usd)
        result = {**result, "cloud": section}
    message = outcome.message
    if result is not None and result.get("status") != "ok":
        torn = left or "the cluster is torn down"
        message = (
            f"{result['error']['message']}; {torn}; billed at most {rental.minutes:.1f} min "
            f"since the launch, ${rental.usd:.2f} at the cluster's $/h"
        )
    elif left:
        message = "; ".join(m for m in (message, left) if m)
    return Outcome(result, message, True)


def _failed(cloud: CloudRun, reason: str, cluster: str, kind: str) -> dict[str, Any]:
    started = collect.startup(
        {"launched": cloud.launched_at}, cloud.usd_per_hour, until=time.time()
    )
    return collect.failed_start(
        cloud.config,
        cloud.instance,
        cloud.price,
        reason,
        started,
        cloud.spot,
        cloud.nodes,
        cluster,
        kind,
    )


def _teardown(sky: SkyPilot, cluster: str, say: Callable[[str], None]) -> str:
    """Down, whatever state the cluster is in, with retries; "" when it is down (or never
    was), else the line that says it may still run and how to end it. Signals are held off
    meanwhile (engine/cloud/signals.py): a second Ctrl-C does not stop a teardown."""
    for attempt, pause_s in enumerate((*DOWN_RETRY_PAUSES_S, None), start=1):
        try:
            with signals.held():
                sky.down(cluster)
            say(f"{cluster} is torn down")
            return ""
        except Exception as exc:  # noqa: BLE001 - "does not exist" is the usual answer: down
            text = str(exc)
            if "does not exist" in text or "not found" in text.lower():
                return ""
            say(f"teardown of {cluster} failed (try {attempt}): {text}")
        if pause_s is not None:
            time.sleep(pause_s)
    return f"{cluster} may still run and bill: end it with `{sky.down_command(cluster)}`"
