"""The Compare tab's cloud measurement: a chosen catalog instance measures the selected run's
settings through SkyPilot (engine/cloud/launch.py) on a background job.

`plan` builds what would be launched and its dry-run estimate (`epochcost cloud run --dryrun`'s:
$/h with source and date, start-up plus run minutes, dollars). `CloudJob` launches it on a
BackgroundJob, turns SkyPilot's lines and the worker's events into stages (provisioning, setup,
starting, warm-up, measuring, bringing home), keeps the result like a local run
(engine/results/saving.py) and ends with one sentence. Its cancel is a flag launch.run checks
between SkyPilot's calls and at each line SkyPilot writes, and SkyPilot's own cancel of a
launch still under way (which ends a launch that writes nothing for a while); never during
teardown: the cluster is torn down and what was billed is said.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from engine.core.errors import ConfigError
from engine.core.events import Event, Failed, Finished, Phase, Started
from engine.measure.config import RunConfig
from engine.pricing.catalog import Catalog
from engine.pricing.compare_rows import CompareRow
from engine.pricing.rows import Instance
from gui.common.background import BackgroundJob, JobError, dispose

if TYPE_CHECKING:
    from engine.cloud.skypilot import SkyPilot
    from engine.cloud.task import CloudRun
    from engine.results.store import Store

# The stages the dialog and the Run tab show, in order.
STAGES = ("provisioning", "setup", "starting", "warm-up", "measuring", "bringing home")
_PHASE_STAGES = {"importing": "starting", "building": "starting", "warmup": "warm-up"}


@dataclass(frozen=True)
class Plan:
    """What a launch would send and what it would cost: the run on the instance and the dry
    run's figures (engine/cli/cmd_cloud.py `dryrun`: usd_per_hour, price, price_note,
    startup_minutes, estimated_minutes, estimated_usd)."""

    cloud: CloudRun
    estimate: dict[str, Any]

    @property
    def label(self) -> str:
        spot = " spot" if self.cloud.spot else ""
        return f"{self.cloud.instance.cloud} {self.cloud.instance.instance_type}{spot}"


@dataclass(frozen=True)
class Ended:
    """How a cloud measurement ended: the stored result (None: nothing kept) and one sentence."""

    result: dict[str, Any] | None
    text: str
    level: str  # info | warning | error


def instance_of(cat: Catalog, row: CompareRow) -> Instance:
    """The catalog instance a Compare row prices (ConfigError: not one to rent today)."""
    for i in cat.instances:
        same = (i.cloud, i.instance_type, i.region) == (row.cloud, row.instance_type, row.region)
        if same and not i.historical:
            return i
    raise ConfigError("instance", f"{row.cloud} {row.instance_type} is not a machine to rent today")


def cloud_config(result: dict[str, Any]) -> RunConfig:
    """The selected run's settings as the instance measures them: its model, framework, batch,
    precision and windows, on the instance's GPU (the price is the instance's)."""
    config = RunConfig.from_dict(result["config"], check_files=False)
    if config.model_file is not None:
        raise ConfigError(
            "model", "a model file is not uploaded to the instance: measure a built-in model"
        )
    if config.data.startswith("imagefolder:"):
        raise ConfigError(
            "data", "an image folder on this machine is not on the instance: use synthetic data"
        )
    return config.with_changes(
        device="cuda", nproc=1, nnodes=1, rdzv_endpoint=None, memory_limit_bytes=None
    )


def prepare(
    cat: Catalog, row: CompareRow, result: dict[str, Any], spot: bool
) -> tuple[CloudRun, dict[str, Any]]:
    """The run of `result`'s settings on `row`'s instance and its task, at once (no SkyPilot
    yet). ConfigError: no cloud environment (how to make it), or a choice the worker cannot
    run."""
    from engine.cloud import task
    from engine.cloud.skypilot import cloud_python

    cloud_python()
    instance = instance_of(cat, row)
    spot = spot and instance.usd_per_hour_spot is not None
    cloud = task.prepare(cat, instance, cloud_config(result), spot, 1, time.time())
    return cloud, task.task_mapping(cloud)


def checked(
    cat: Catalog,
    runs: list[tuple[CloudRun, dict[str, Any]]],
    cancel: threading.Event | None = None,
) -> list[Plan]:
    """The launches, accepted by SkyPilot's own validation and optimizer (one request to the
    warm cloud program for all: seconds the first time, so off the GUI thread), each with its
    estimate. ConfigError: SkyPilot refuses one (named)."""
    from engine.cloud import dryrun, launch

    verdicts = dryrun.all_accepted(cat, runs, cancel)
    return [
        Plan(cloud, dryrun.plan(cloud, mapping, verdict, launch.MIN_STARTUP_MINUTES))
        for (cloud, mapping), verdict in zip(runs, verdicts, strict=True)
    ]


def stage_of_line(line: str) -> str | None:
    """The stage a line of SkyPilot's launch output starts (setup's first clock line)."""
    from engine.cloud import commands, log

    text = log.line_of(line)[1].strip()
    if text.startswith(f"{commands.CLOCK} setup "):
        return "setup"
    if text.startswith("job ") and " runs on " in text:  # launch.run's line once submitted
        return "starting"
    return None


def stage_of_event(event: Event) -> str | None:
    if isinstance(event, Started):
        return "starting"
    if isinstance(event, Phase):
        return _PHASE_STAGES.get(event.phase, event.phase if event.phase in STAGES else None)
    if isinstance(event, Finished | Failed):
        return "bringing home"
    return None


class CloudJob(QObject):
    """One cloud measurement at a time: `stage` (one of STAGES), `line` (SkyPilot's and the
    launch's words), `engine_event` (the worker's events on the instance, for the Run tab's plots),
    `ended` (an Ended, once)."""

    stage = Signal(str)
    line = Signal(str)
    engine_event = Signal(object)  # engine.core.events.Event (not `event`: QObject.event())
    ended = Signal(object)

    def __init__(self, store: Callable[[], Store], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._job: BackgroundJob | None = None
        self._sky: SkyPilot | None = None
        self._cancel = threading.Event()
        self.plan: Plan | None = None
        self.current = ""
        self.launched_at = 0.0  # seconds since the epoch
        self.cancel_asked = False
        self._outcome: Any = None  # what the job's work returned (read after it ended)

    @property
    def running(self) -> bool:
        return self._job is not None

    def start(self, plan: Plan) -> None:
        """Launch `plan` (a fresh launch time: billing is counted from it)."""
        from engine.cloud import skypilot

        assert self._job is None
        self.plan, self.cancel_asked = plan, False
        self.current = ""  # a new launch's stages start again from provisioning
        self.launched_at = time.time()
        cloud = dataclasses.replace(plan.cloud, launched_at=self.launched_at)
        self._sky, self._cancel = skypilot.SkyPilot(), threading.Event()
        job = BackgroundJob(lambda emit: self._work(cloud, emit), cancel=self._stop)
        job.item.connect(self._on_item)
        job.done.connect(self._on_done)
        self._job = job
        self._set_stage("provisioning")
        job.start()

    def _work(self, cloud: CloudRun, emit: Callable[[Any], None]) -> Any:
        """On the job's thread: the task, then launch to teardown (engine/cloud/launch.py)."""
        from engine.cloud import launch, task
        from engine.core import paths

        assert self._sky is not None
        folder = paths.home() / "cloud-logs"
        folder.mkdir(parents=True, exist_ok=True)
        if self._cancel.is_set():  # a cancel before the launch began: nothing ran
            self._outcome = None
            return None
        self._outcome = launch.run(
            cloud, task.task_mapping(cloud), self._sky, folder, emit, emit, cancel=self._cancel
        )
        return self._outcome

    def _stop(self) -> None:
        """The job's cancel (any thread): the flag launch.run checks, and SkyPilot's cancel of
        a launch still under way on its server."""
        self._cancel.set()
        if self._sky is not None:
            with contextlib.suppress(Exception):  # no launch pending, or the server is gone
                self._sky.cancel_launch()

    def billed_so_far(self) -> tuple[float, float]:
        """Minutes since the launch and their dollars at the cluster's $/h (an upper bound:
        billing starts when the instance does)."""
        minutes = max(0.0, time.time() - self.launched_at) / 60.0
        usd = self.plan.cloud.usd_per_hour * minutes / 60.0 if self.plan else 0.0
        return minutes, usd

    def cancel(self) -> None:
        """Stop the launch wherever it is; the cluster is torn down (ended says what was billed)."""
        if self._job is not None and not self.cancel_asked:
            self.cancel_asked = True
            self.line.emit("cancelling: the cluster is torn down")
            self._job.cancel()

    def shutdown(self) -> None:
        """The window closes: cancel and wait for the teardown (SkyPilot's down takes a while)."""
        job = self._job
        if job is not None:
            self.cancel()
            job.wait()
            self._on_done(self._outcome)  # its queued `done` finds the job gone

    def _set_stage(self, stage: str) -> None:
        if stage != self.current and (
            not self.current or STAGES.index(stage) > STAGES.index(self.current)
        ):
            self.current = stage
            self.stage.emit(stage)

    def _on_item(self, item: Any) -> None:
        if isinstance(item, str):
            self.line.emit(item)
            stage = stage_of_line(item)
        else:
            self.engine_event.emit(item)
            stage = stage_of_event(item)
        if stage is not None:
            self._set_stage(stage)

    def _on_done(self, outcome: Any) -> None:
        job, self._job = self._job, None
        if job is None:
            return
        dispose(job)
        ended = self._ended(outcome)
        # "bringing home" comes with the worker's Finished or Failed (stage_of_event): without
        # it the worker never ran or never ended, and the Run tab's run ends here.
        if self.current != "bringing home":
            kind = "cancelled" if self.cancel_asked else "failed"
            self.engine_event.emit(Failed(run_id="", kind=kind, message=ended.text))
        self.ended.emit(ended)

    def _ended(self, outcome: Any) -> Ended:
        from engine.results import saving

        assert self.plan is not None
        where = self.plan.label
        if isinstance(outcome, JobError):
            return Ended(
                None, f"The cloud measurement on {where} failed: {outcome.message}", "error"
            )
        if outcome is None:
            return Ended(None, f"The cloud measurement on {where} was stopped.", "warning")
        result = outcome.result
        if result is None:  # refused before any instance ran: nothing billed, nothing kept
            return Ended(None, _sentence(outcome.message), "error")
        kept = saving.keep(result, self._store)
        lost = "" if kept.stored else f" It was not stored: {kept.message()}."
        if outcome.message:
            level = "info" if result.get("status") == "cancelled" else "error"
            return Ended(result if kept.stored else None, _sentence(outcome.message) + lost, level)
        if result.get("status") != "ok":
            error = (result.get("error") or {}).get("message", "")
            return Ended(result, f"The run on {where} ended {result['status']}: {error}.", "error")
        text = measured_text(where, result) + (lost or " Stored in Past runs.")
        return Ended(result if kept.stored else None, text, "info")


def measured_text(where: str, result: dict[str, Any]) -> str:
    """A measured cloud result in two sentences: throughput and $/epoch at the instance's
    price with its source and date, then the start-up it was billed for."""
    from engine.pricing.cost import Price
    from engine.results import report

    section = result.get("cloud") or {}
    p = section.get("price") or {}
    at = ""
    if p.get("usd_per_hour") is not None:
        at = " at " + Price(p["usd_per_hour"], p.get("source") or "", p.get("as_of")).describe()
    age = section.get("price_note") or ""
    note = f" [{age}]" if age and age != "undated" else ""  # an undated source says so
    epoch = result.get("usd_per_epoch")
    per_epoch = f", {report.money(epoch)} per epoch" if epoch is not None else ""
    minutes, usd = section.get("startup_minutes"), section.get("startup_usd")
    startup = (
        f"start-up {minutes:.1f} min (${usd or 0:.2f}) from {section.get('startup_basis')} to "
        "the first measured step"
        if minutes is not None
        else f"start-up {section.get('startup_basis')}"
    )
    return (
        f"Measured on {where}: {result['throughput_samples_per_s']:,.1f} samples/s{per_epoch}"
        f"{at}{note}; {startup}. The cluster is torn down."
    )


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return (text[:1].upper() + text[1:] + ".") if text else ""
