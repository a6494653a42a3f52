"""Several cloud measurements in one go (`epochcost cloud sweep`): one model on several instance
types, each launched, measured and torn down as one cloud run is (engine/cloud/launch.py),
one after another or up to `parallel` clusters at a time.

A stop (Ctrl-C, SIGTERM, SIGHUP, the app's Cancel) ends every cluster under way, each torn
down, and launches no more; what was billed is in each outcome. One after another, a run that
was stopped ends the sweep too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from engine.cloud import launch, signals, task
from engine.cloud.skypilot import SkyPilot
from engine.cloud.task import CloudRun
from engine.core.events import Event

MAX_PARALLEL = 8  # clusters at a time: a cloud's quota is the usual limit before this one


def stopped(outcome: launch.Outcome) -> bool:
    """Whether the run was stopped (and so the sweep too)."""
    return outcome.result is not None and outcome.result.get("status") == "cancelled"


def run_all(
    runs: list[tuple[CloudRun, dict[str, Any]]],
    connect: Callable[[], SkyPilot],
    logs: Path,
    say: Callable[[str], None],
    on_event: Callable[[Event], None],
    parallel: int = 1,
) -> list[launch.Outcome]:
    """Each run launched to teardown (launched_at: when it is launched); the outcomes of those
    that were launched, in the runs' order."""
    if parallel <= 1:
        outcomes = []
        for cloud, mapping in runs:
            with signals.stopping():
                outcome = _one(cloud, mapping, connect(), logs, say, on_event)
            outcomes.append(outcome)
            if stopped(outcome):
                break
        return outcomes
    return _parallel(runs, connect, logs, say, min(parallel, MAX_PARALLEL))


def _one(
    cloud: CloudRun,
    mapping: dict[str, Any],
    sky: SkyPilot,
    logs: Path,
    say: Callable[[str], None],
    on_event: Callable[[Event], None],
    cancel: threading.Event | None = None,
) -> launch.Outcome:
    cloud = dataclasses.replace(cloud, launched_at=time.time())
    mapping = {**mapping, "envs": task.envs(cloud)}  # its launch time, for the start-up
    return launch.run(cloud, mapping, sky, logs, say, on_event, cancel=cancel)


def _parallel(
    runs: list[tuple[CloudRun, dict[str, Any]]],
    connect: Callable[[], SkyPilot],
    logs: Path,
    say: Callable[[str], None],
    parallel: int,
) -> list[launch.Outcome]:
    """Up to `parallel` clusters at a time, each on a thread of its own; SkyPilot's lines are
    said with the instance's name before them (the worker's progress is not drawn)."""
    cancel = threading.Event()
    skies: list[SkyPilot] = []

    def one(cloud: CloudRun, mapping: dict[str, Any]) -> launch.Outcome | None:
        if cancel.is_set():  # stopped before its turn: never launched
            return None
        sky = connect()
        skies.append(sky)
        label = cloud.instance.label
        return _one(
            cloud, mapping, sky, logs, lambda line: say(f"[{label}] {line}"), _quiet, cancel
        )

    with ThreadPoolExecutor(parallel, thread_name_prefix="epochcost-cloud") as pool:
        futures = [pool.submit(one, cloud, mapping) for cloud, mapping in runs]
        try:
            with signals.stopping():
                _wait_all(futures)
        except KeyboardInterrupt:
            say("stopping: every cluster under way is torn down, no other is launched")
            cancel.set()
            for sky in list(skies):  # a launch that writes nothing for a while ends too
                with contextlib.suppress(Exception):  # none pending, or the server is gone
                    sky.cancel_launch()
            with signals.held():
                wait(futures)
    return [o for o in (f.result() for f in futures) if o is not None]


def _wait_all(futures: list[Future[launch.Outcome | None]]) -> None:
    """Wait in short steps, so that a signal reaches the main thread while clusters run."""
    pending = set(futures)
    while pending:
        _done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)


def _quiet(_event: Event) -> None:
    """Several workers' progress at once would be noise: their results say what they did."""
