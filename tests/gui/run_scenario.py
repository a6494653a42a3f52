"""A scripted run that fills every Run-tab chart the way the hard cases do (the engine is not
the subject): an image-folder run (input wait on the throughput chart's right axis) of three
windows, the second much slower (a busy machine: its cost runs far above the others'), a few
per-step rates far above the window's line and a few steps that waited almost all their time,
a small peak on a large device with other processes' memory just above it, and a past run
overlaid whose levels sit at the run's own. Shared by the charts' range and label tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.core.events import Flops, Phase, Sample, Started, Step
from engine.workloads.data import random_folder
from gui.common.theme import LIGHT_PLOTS
from gui.pages.run.plots import GIB, LivePlots
from tests.gui.helpers import tiny_config

RUN = "20260101T000000-abcdef12"
ON_SCREEN = (925, 575)  # the Run tab's plots in a 1280x860 window


def shown_plots(qtbot) -> LivePlots:
    """The Run tab's plots, shown at their size in a 1280x860 window."""
    p = LivePlots(LIGHT_PLOTS)
    qtbot.addWidget(p)
    p.resize(*ON_SCREEN)
    p.show()
    qtbot.waitExposed(p)
    return p


TOTAL = 24 * 2**30  # the device's memory (24 GiB): the run's peak is under 4% of it
BATCH = 64
EPOCH = 50_000
WINDOWS = ((0.002, 120), (0.008, 60), (0.0021, 120))  # (mean step time s, steps) per window
PER_EVENT = 10  # steps in one Step event


def folder(tmp_path) -> str:
    """A small image folder (tiny-mlp takes 32x32x3)."""
    return str(random_folder.make(tmp_path / "set", images=40, size=32, classes=2))


def config(tmp_path, usd_per_hour: float | None):
    return tiny_config(
        usd_per_hour=usd_per_hour,
        batch_size=BATCH,
        epoch_samples=EPOCH,
        data=f"imagefolder:{folder(tmp_path)}",
    )


def _steps(plots: LivePlots, rng: np.random.Generator, mean: float, n: int, r: int, t: float):
    start = t
    times = np.clip(mean * (1 + 0.1 * rng.standard_normal(n)), mean / 3, None)
    times[n // 3] = mean / 3  # a step three times the typical rate
    for first in range(0, n, PER_EVENT):
        chunk = [float(x) for x in times[first : first + PER_EVENT]]
        t += sum(chunk) + 0.0003 * len(chunk)
        waits = [c * 0.05 * rng.random() for c in chunk]
        if first == PER_EVENT * 2:
            waits[0] = chunk[0] * 0.97  # a step that waited for its batch almost all along
        plots.on_event(
            Step(
                run_id=RUN,
                index=first,
                step_times_s=chunk,
                samples=BATCH,
                repeat=r,
                elapsed_s=t,
                window_samples=(first + len(chunk)) * BATCH,
                window_seconds=t - start,
                window_done=first + len(chunk) == n,
                input_wait_s=waits,
            )
        )
        own = (0.75 + 0.1 * rng.random()) * GIB
        plots.on_event(
            Sample(
                run_id=RUN,
                elapsed_s=t,
                memory_used_bytes=own + 0.6 * GIB,  # other processes' just above the run's
                memory_total_bytes=TOTAL,
                process_memory_bytes=own,
            )
        )
    return t


def feed(plots: LivePlots, seed: int = 1) -> float:
    """Warm-up and the three windows, as the worker sends them. Returns the clock."""
    rng = np.random.default_rng(seed)
    plots.on_event(Started(run_id=RUN))
    plots.on_event(Flops(run_id=RUN, per_step=2e9, peak_source="peak unknown: a CPU"))
    plots.on_event(Phase(run_id=RUN, phase="warmup", expected_steps=10))
    warm = [0.05] + [0.002] * 9
    plots.on_event(
        Step(
            run_id=RUN,
            step_times_s=warm,
            samples=BATCH,
            measured=False,
            elapsed_s=sum(warm),
            input_wait_s=[0.0001] * 10,
        )
    )
    t = sum(warm)
    for r, (mean, n) in enumerate(WINDOWS):
        detail = f"repeat {r + 1} of {len(WINDOWS)}"
        plots.on_event(Phase(run_id=RUN, phase="measuring", detail=detail))
        t = _steps(plots, rng, mean, n, r, t)
    plots.on_event(Phase(run_id=RUN, phase="finishing"))
    plots.refresh()
    return t


def result(plots: LivePlots, usd_per_hour: float | None) -> dict[str, Any]:
    """The run's stored result: the median window, the worker's own peak."""
    series = plots.series
    assert series is not None
    rate = float(np.median(series.ends_rate.values))
    seconds = EPOCH / rate
    return {
        "status": "ok",
        "run_id": RUN,
        "throughput_samples_per_s": rate,
        "repeats": len(WINDOWS),
        "usd_per_epoch": seconds / 3600 * usd_per_hour if usd_per_hour else None,
        "epoch_seconds": seconds,
        "peak_memory_bytes": 913.62 * 2**20,
        "memory_total_bytes": TOTAL,
        "input_wait_fraction": 0.042,
        "flops": {"achieved_tflops": rate * 2e9 / BATCH / 1e12, "mfu": None},
    }


def past_run(own: dict[str, Any], scale: float = 1.01) -> dict[str, Any]:
    """A stored run whose levels sit `scale` times the run's own (1.01: labels collide)."""
    usd = own["usd_per_epoch"]
    return {
        "run_id": "20251201T000000-00000000",
        "created_at": "2025-12-01T00:00:00Z",
        "config": {"model": "tiny-mlp", "batch_size": BATCH},
        "environment": {"device": "cpu"},
        "throughput_samples_per_s": own["throughput_samples_per_s"] * scale,
        "usd_per_epoch": None if usd is None else usd * scale,
        "epoch_seconds": own["epoch_seconds"] * scale,
        "peak_memory_bytes": own["peak_memory_bytes"] * scale,
        "flops": {"achieved_tflops": own["flops"]["achieved_tflops"] * scale},
    }


def finished(plots: LivePlots, tmp_path, usd_per_hour: float | None, scale: float = 1.01):
    """The whole run drawn, ended, a past run overlaid. Returns the result."""
    plots.begin_run(config(tmp_path, usd_per_hour), "tiny-mlp · cpu")
    feed(plots)
    own = result(plots, usd_per_hour)
    plots.end_run(own)
    plots.refresh()  # the end's turns drawn now
    plots.set_overlays([past_run(own, scale)])
    return own
