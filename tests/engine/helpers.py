"""Shared helpers for engine tests."""

from __future__ import annotations

from engine.config import RunConfig
from engine.events import Event
from engine.launcher import WorkerProcess

# A run short enough for tests: the tiny model, few steps.
TINY = RunConfig(
    model="tiny-mlp",
    batch_size=16,
    warmup_steps=2,
    min_steps=5,
    max_steps=20,
    max_seconds=5.0,
    usd_per_hour=1.0,
    threads=1,
)


def run_events(config: RunConfig) -> list[Event]:
    worker = WorkerProcess(config.validated()).start()
    try:
        return list(worker.events())
    finally:
        worker.close()
