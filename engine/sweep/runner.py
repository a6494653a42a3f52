"""Batch-size sweeps and the max-fit search, each trial in a fresh worker process.

    sweep = Sweep(config, SweepPlan(max_fit=True), store=Store())
    for event in sweep.events():   # a CLI loop, or a GUI's engine thread
        ...                        # sweep.cancel() from any thread stops it between trials
                                   # (and the running trial's worker), keeping finished points

"Fits" means "trains": every trial runs full optimizer steps (a failed allocation can leave a
process unusable, so no trial reuses one). Each trial ends by a study point's rule
(engine/study/point.py); the other axes run on engine/study/study.py. Results are stored as they
finish, grouped by the sweep's group_id; a batch that did not fit is stored as status "oom".
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import psutil

from engine.core.events import Failed, Finished
from engine.core.ids import new_group_id
from engine.core.placeholders import ask
from engine.measure import devices
from engine.measure.config import RunConfig
from engine.measure.result import failed_result
from engine.process.launcher import WorkerSpec
from engine.process.worker_turns import WorkerTurns
from engine.results import saving
from engine.results.store import Store
from engine.study.point import ending, run_point
from engine.sweep.batch_sizes import MaxFitSearch, powers_of_two, recommended_size
from engine.sweep.events import (
    SearchFinished,
    SweepEvent,
    SweepFinished,
    SweepStarted,
    Trial,
    TrialFinished,
    TrialProgress,
    TrialStarted,
)
from engine.sweep.plan import PROBE_STEPS, PROBE_WARMUP_STEPS, SweepPlan
from engine.sweep.summary import SearchOutcome, SweepSummary, summarize
from engine.workloads import registry

# On a CPU without a memory limit, the search runs under one of this share of the memory
# available at its start, so "does not fit" is an out-of-memory, not the kernel killing a process.
CPU_AUTO_LIMIT_SHARE = 0.8
MAX_CONFIRM_TRIES = 3

TrialGen = Generator[SweepEvent, None, Trial]


def probe_config(config: RunConfig) -> RunConfig:
    """The short run that decides whether a batch fits: a few full optimizer steps."""
    return config.with_changes(
        warmup_steps=min(config.warmup_steps, PROBE_WARMUP_STEPS),
        min_steps=PROBE_STEPS,
        max_steps=PROBE_STEPS,
        repeats=1,
        target_precision_pct=None,  # whether it fits, not how fast: one window
    )


def input_bytes_per_sample(config: RunConfig) -> int | None:
    """A floor on one sample's input in memory (4 bytes per element); None for a model file,
    whose input is known only once it is built in a worker."""
    if config.model_file is not None or not registry.exists(config.model):
        return None
    return 4 * math.prod(registry.get(config.model).input_shape)


def resolve_device(config: RunConfig) -> devices.Device | None:
    """The device a config will run on, found without a framework (None: not here)."""
    return devices.device_named(config.device)


def device_memory_bytes(config: RunConfig) -> tuple[int | None, str]:
    """(bytes, what they are): the memory limit, else the memory of the config's device."""
    if config.memory_limit_bytes:
        return config.memory_limit_bytes, "the memory limit"
    device = resolve_device(config)
    if device is None or not device.memory_total_bytes:
        return None, ""
    return device.memory_total_bytes, f"{device.id}'s memory"


class Sweep:
    """One sweep or max-fit search. Iterate `events()` once; `cancel()` is thread-safe."""

    def __init__(
        self,
        config: RunConfig,
        plan: SweepPlan,
        *,
        store: Store | None = None,
        spec: WorkerSpec | None = None,
        group_id: str | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config.validated()
        self.plan = plan.validated()
        self.store = store
        self.spec = spec or WorkerSpec()
        self.group_id = group_id or new_group_id("sweep")
        self._turns = WorkerTurns(self.spec, on_stderr)
        self.trials: list[Trial] = []
        self._error: dict[str, Any] | None = None
        self._notes: list[str] = []
        # Trials the store could not take, each saying where the result is kept instead.
        self.unstored: list[str] = []
        self._outcome: SearchOutcome | None = None
        self._t0 = time.monotonic()

    # ---- control -----------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop after (or during) the running trial; finished trials stay measured and stored."""
        self._turns.cancel()

    @property
    def cancelled(self) -> bool:
        return self._turns.cancelled

    def _stopped(self) -> bool:
        return self.cancelled or self._error is not None

    # ---- the sweep ---------------------------------------------------------------------------

    def events(self) -> Iterator[SweepEvent]:
        self._t0 = time.monotonic()
        config = self._search_config()
        yield SweepStarted(self.group_id, plan=self.plan.to_dict(), config=config.to_dict())
        if self.plan.mode in ("max-fit", "full"):
            self._outcome = yield from self._max_fit(config)
            yield SearchFinished(
                self.group_id,
                max_fit_batch=self._outcome.max_fit_batch,
                recommended_batch=self._outcome.recommended_batch,
                trials=len(self.trials),
            )
        max_fit = self._outcome.max_fit_batch if self._outcome else None
        if self.plan.mode == "sizes":
            yield from self._points(config, list(self.plan.batch_sizes))
        elif self.plan.mode == "full" and max_fit:
            done = {t.batch_size for t in self.trials if t.role == "confirm" and t.fits}
            sizes = powers_of_two(self.plan.start, max_fit)
            yield from self._points(config, [b for b in sizes if b not in done])
        yield SweepFinished(self.group_id, summary=self.summary())

    def summary(self) -> SweepSummary:
        """The verdicts over the trials so far (also mid-sweep, e.g. after an interrupt)."""
        status = "cancelled" if self.cancelled else ("failed" if self._error else "completed")
        return summarize(
            group_id=self.group_id,
            model=self.config.model,
            mode=self.plan.mode,
            status=status,
            trials=self.trials,
            search=self._outcome,
            knee_tolerance=self.plan.knee_tolerance,
            seconds=time.monotonic() - self._t0,
            error=self._error,
            notes=self._notes,
            plan=self.plan.to_dict(),
        )

    def _search_config(self) -> RunConfig:
        """The config every trial starts from; on a CPU a search gets a memory limit."""
        if self.plan.mode == "sizes" or self.config.memory_limit_bytes:
            return self.config
        device = resolve_device(self.config)
        if device is None or device.kind != "cpu":
            return self.config
        limit = int(psutil.virtual_memory().available * CPU_AUTO_LIMIT_SHARE)
        self._notes.append(
            f"on the CPU every trial ran under a memory limit of {limit / 2**30:.1f} GiB "
            f"({CPU_AUTO_LIMIT_SHARE:.0%} of the memory available; "
            f"{ask('memory_limit_bytes')} sets it)"
        )
        return self.config.with_changes(memory_limit_bytes=max(limit, 1 << 20))

    def _points(self, config: RunConfig, sizes: list[int]) -> Generator[SweepEvent, None, None]:
        for size in sizes:
            if self._stopped():
                return
            too_big = [t.batch_size for t in self.trials if t.counts_as_not_fitting]
            if self.plan.skip_after_oom and too_big and size > min(too_big):
                skipped = Trial(
                    0,
                    size,
                    "point",
                    "skipped",
                    message=f"not run: batch {min(too_big)} did not fit",
                )
                self.trials.append(skipped)
                yield TrialFinished(self.group_id, trial=skipped)
                continue
            yield from self._trial(size, "point", config)

    # ---- the max-fit search ------------------------------------------------------------------

    def _search_limit(self, config: RunConfig) -> tuple[int | None, str | None]:
        memory, what = device_memory_bytes(config)
        limits: list[tuple[int, str]] = []
        if self.plan.max_batch:
            limits.append((self.plan.max_batch, f"the maximum batch given ({ask('max_batch')})"))
        per_sample = input_bytes_per_sample(config)
        if memory and per_sample:
            by_memory = max(1, memory // per_sample)
            limits.append((by_memory, f"a batch whose inputs alone fill {what}"))
        return min(limits) if limits else (None, None)

    def _max_fit(self, config: RunConfig) -> Generator[SweepEvent, None, SearchOutcome]:
        limit, reason = self._search_limit(config)
        search = MaxFitSearch(self.plan.start, self.plan.multiple, limit)
        probe = probe_config(config)
        notes: list[str] = []
        while not self._stopped() and (size := search.next_size()) is not None:
            trial = yield from self._trial(size, "probe", probe)
            if trial.fits or trial.counts_as_not_fitting:
                search.record(size, trial.fits)
            if trial.status == "crashed":
                notes.append(
                    f"batch {size} crashed the worker ({trial.message}); counted as not fitting"
                )
        max_fit = search.largest_fit if not self._stopped() else None
        recommended = None
        if max_fit is not None:
            recommended = yield from self._confirm(config, max_fit, notes)
        if search.reached_limit:
            notes.append(f"stopped at {limit}, {reason}: the largest batch that fits may be larger")
        return SearchOutcome(
            max_fit_batch=max_fit,
            first_failure_batch=search.smallest_failure,
            recommended_batch=recommended,
            limit=limit,
            limit_reason=reason,
            reached_limit=search.reached_limit,
            notes=tuple(notes),
        )

    def _confirm(
        self, config: RunConfig, max_fit: int, notes: list[str]
    ) -> Generator[SweepEvent, None, int | None]:
        """Run the recommended batch as a full run; step down if even that does not fit."""
        size: int | None = recommended_size(max_fit, self.plan.margin, self.plan.multiple)
        for _ in range(MAX_CONFIRM_TRIES):
            if size is None or self._stopped():
                return None
            trial = yield from self._trial(size, "confirm", config)
            if trial.fits:
                return size
            if not trial.counts_as_not_fitting:
                return None
            notes.append(f"the recommended batch {size} did not fit in a full run ({trial.status})")
            lower = recommended_size(size, self.plan.margin, self.plan.multiple)
            size = lower if lower < size else (size - 1 or None)
        return None

    # ---- one trial ---------------------------------------------------------------------------

    def _trial(self, size: int, role: str, config: RunConfig) -> TrialGen:
        """Run one batch size in a fresh worker; store its result; yield its events."""
        run_config = config.with_changes(batch_size=size)
        index = len([t for t in self.trials if t.status != "skipped"]) + 1
        t0 = time.monotonic()
        ended = yield from run_point(
            self._turns,
            run_config,
            lambda run_id: TrialStarted(
                self.group_id, index=index, batch_size=size, role=role, run_id=run_id
            ),
            lambda event: TrialProgress(self.group_id, index=index, batch_size=size, event=event),
        )
        if ended is None:
            return self._record(Trial(index, size, role, "cancelled", message="cancelled"))
        end, env = ended
        trial = self._verdict(index, size, role, run_config, end, env, time.monotonic() - t0)
        yield TrialFinished(self.group_id, trial=trial)
        return trial

    def _verdict(
        self,
        index: int,
        size: int,
        role: str,
        config: RunConfig,
        end: Finished | Failed | None,
        env: dict[str, Any],
        seconds: float,
    ) -> Trial:
        if isinstance(end, Finished):
            stored = self._store(end.result, role, index)
            return self._record(Trial(index, size, role, "ok", end.run_id, seconds, "", stored))
        assert isinstance(end, Failed)  # WorkerProcess.events() always ends with one or other
        status, _ = ending(end)  # a study point's rule (engine/study/point.py)
        if status == "config":
            self._error = {"kind": "config", "message": end.message}
            status = "failed"  # a trial's status; the summary's error says it was the config
        if status == "failed" and role == "probe":
            # Not an out-of-memory: the search cannot tell where the boundary is.
            self._error = self._error or {"kind": end.kind, "message": end.message}
        result: dict[str, Any] | None = None
        if status != "cancelled" and end.kind != "config":
            result = self._store(failed_result(end, config, env), role, index)
        trial = Trial(index, size, role, status, end.run_id, seconds, end.message, result)
        return self._record(trial)

    def _store(self, result: dict[str, Any], role: str, index: int) -> dict[str, Any]:
        result = {**result, "sweep": {"group_id": self.group_id, "role": role, "trial": index}}
        if self.store is not None:
            kept = saving.keep(result, self.store, group_id=self.group_id)
            if not kept.stored:
                self.unstored.append(kept.message())
                self._notes.append(f"trial {index}: {kept.message()}")
        return result

    def _record(self, trial: Trial) -> Trial:
        self.trials.append(trial)
        return trial


def run_sweep(
    config: RunConfig, plan: SweepPlan, store: Store | None = None, **kwargs: Any
) -> SweepSummary:
    """Run a sweep to its end and return its summary (tests, scripts, the benchmark)."""
    summary = None
    for event in Sweep(config, plan, store=store, **kwargs).events():
        if isinstance(event, SweepFinished):
            summary = event.summary
    assert summary is not None  # events() always ends with sweep_finished
    return summary
