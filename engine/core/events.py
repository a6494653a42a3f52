"""Events: the only thing that crosses the worker's process boundary (docs/architecture.md,
"Events").

Each event is a frozen dataclass with a `type` tag and the `run_id`, serialised as one JSON
object per line. Floats that are not finite become null (JSON has no NaN or Infinity).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar

PHASES = ("importing", "building", "compiling", "warmup", "measuring", "evaluating", "finishing")


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"
    run_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **asdict(self)}

    def to_json(self) -> str:
        return json.dumps(json_safe(self.to_dict()), allow_nan=False, separators=(",", ":"))


@dataclass(frozen=True)
class Started(Event):
    type: ClassVar[str] = "started"
    config: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Phase(Event):
    type: ClassVar[str] = "phase"
    phase: str = "importing"
    detail: str = ""
    # The measurement window's length in steps where known, for progress bars.
    expected_steps: int | None = None


# The worker sends the steps of a window (or of warm-up) at least this often, and at its end.
# Each event costs the measuring thread about 350 us of a tiny-mlp run, with what it leaves for
# the steps after it (benchmarks/event_cost.py, RESULTS.md, issue 42): every 100 ms that is
# about 0.35% of the run, half what every 50 ms cost, and the live charts, each redrawn about
# 6 times a second, still get new steps at each redraw.
STEP_EVENT_EVERY_S = 0.1
# In a data-parallel run, a process other than a node's first writes its `failed` event on
# stderr after this prefix (engine/worker/main.py); the launcher reads it there
# (engine/process/distributed.py) to name the rank that failed.
RANK_FAILED = "epochcost-rank-failed "


@dataclass(frozen=True)
class Step(Event):
    """The training steps since the previous `step` event: the worker coalesces them, one event
    at least every STEP_EVENT_EVERY_S and one at the end of warm-up and of every window, so that a
    tiny model's thousands of steps a second cost a few events. `measured` is False in warm-up.

    `index` is the first step's index in its warm-up or window, `step_times_s` each step's time
    (the session's timer), `samples` the samples of one step (the batch), `elapsed_s` the
    worker's clock when the event was made (seconds since warm-up began). A measured event also
    carries its window so far: `window_samples` over `window_seconds` (wall time since the
    window's starting sync) is the window's throughput, the statistic the result stores (its
    headline figure is the median of the windows'). The window's last event has `window_done`
    and the window's own figures, read after its ending sync.
    """

    type: ClassVar[str] = "step"
    index: int = 0
    step_times_s: list[float] = field(default_factory=list)
    samples: int = 0
    measured: bool = True
    repeat: int = 0
    loss: float | None = None
    elapsed_s: float = 0.0
    window_samples: int = 0
    window_seconds: float = 0.0
    window_done: bool = False
    # With an input pipeline (--data): the host seconds each step since the last event waited
    # for its batch and the copy to the device, in the order the steps were issued; None with
    # synthetic batches.
    input_wait_s: list[float] | None = None

    @property
    def steps(self) -> int:
        return len(self.step_times_s)

    def to_json(self) -> str:
        """Cheap for hundreds of step times (written on the measuring thread, inside the
        window): no deep copy, one pass to check they are finite, and the times written with
        17 significant digits, which read back as the same floats, faster than json.dumps's
        shortest form (a tiny-mlp event of 33 steps: 26 -> 20 us, the best of 30 tries)."""
        data = {"type": self.type, **{name: getattr(self, name) for name in _STEP_FIELDS}}
        times = data.pop("step_times_s")
        head = json.dumps(json_safe(data), allow_nan=False, separators=(",", ":"))
        if not all(map(math.isfinite, times)):
            body = json.dumps(json_safe(times), separators=(",", ":"))
        elif times and all(type(t) is float for t in times):
            body = "[" + ("%.17g," * len(times) % tuple(times))[:-1] + "]"
        else:
            body = json.dumps(times, separators=(",", ":"))
        return f'{head[:-1]},"step_times_s":{body}}}'

    @property
    def window_throughput(self) -> float | None:
        """Samples / wall seconds of this event's window so far (None: warm-up, no time yet)."""
        if not self.measured or not self.window_seconds or self.window_seconds <= 0:
            return None
        return self.window_samples / self.window_seconds


@dataclass(frozen=True)
class Sample(Event):
    """Monitor readings. Memory in bytes, utilisation in percent, power in watts."""

    type: ClassVar[str] = "sample"
    elapsed_s: float = 0.0
    memory_used_bytes: int | None = None
    memory_total_bytes: int | None = None
    process_memory_bytes: int | None = None
    utilization_percent: float | None = None
    power_w: float | None = None


@dataclass(frozen=True)
class Eval(Event):
    type: ClassVar[str] = "eval"
    iteration: int = 0
    accuracy: float = 0.0
    elapsed_s: float = 0.0
    train_seconds: float = 0.0
    loss: float | None = None
    repeat: int = 0
    batch_size: int | None = None


@dataclass(frozen=True)
class Flops(Event):
    """The FLOPs of one training step, counted once before warm-up, and the device's dense peak
    for the run's precision (engine/measure/utilisation.py; None with `peak_source` saying why), so
    a live view can show the achieved FLOP rate and MFU step by step."""

    type: ClassVar[str] = "flops"
    per_step: float | None = None
    method: str | None = None
    peak_tflops: float | None = None
    peak_source: str = ""


@dataclass(frozen=True)
class Precision(Event):
    """After each measured window of a run with a target precision (RunConfig
    .target_precision_pct): the run's 95% interval so far, [low, high] around `figure` (the
    median of its windows), as the result would store it; `achieved` and `target` relative (its
    farthest end from the figure; 0.03 for ±3%), `reached` by the rule of
    engine/core/precision_target.py; `seconds` of the `budget_s` spent measuring."""

    type: ClassVar[str] = "precision"
    elapsed_s: float = 0.0
    windows: int = 0
    figure: float = 0.0
    low: float = 0.0
    high: float = 0.0
    achieved: float | None = None
    target: float = 0.0
    reached: bool = False
    seconds: float = 0.0
    budget_s: float = 0.0


@dataclass(frozen=True)
class Finished(Event):
    type: ClassVar[str] = "finished"
    result: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Failed(Event):
    type: ClassVar[str] = "failed"
    kind: str = "crashed"
    message: str = ""
    traceback: str = ""
    batch_size: int | None = None


_STEP_FIELDS = tuple(f.name for f in fields(Step))

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (Started, Phase, Step, Sample, Eval, Flops, Precision, Finished, Failed)
}


def json_safe(value: Any) -> Any:
    """Replace non-finite floats by None, recursively, so json.dumps(allow_nan=False) works."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def from_json(line: str) -> Event:
    """Parse one JSON line into its event class. Raises ValueError for anything else."""
    data = json.loads(line)
    if not isinstance(data, dict) or data.get("type") not in EVENT_TYPES:
        raise ValueError(f"not an epochcost event: {line[:200]!r}")
    cls = EVENT_TYPES[data.pop("type")]
    known = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in known})
