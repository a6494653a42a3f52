"""What each step event costs the measuring thread, read from the events' own step times.

The worker's step timer runs in a chain (engine/worker/frameworks/timers.py, WallTimer): a step's
time runs from the end of the step before it, so the first step after a step event also holds
the time the event took on the measuring thread (collecting the times, the event's JSON, its
write to the pipe, the monitor's samples, the generators it passes through), and the steps
after it hold whatever the event left behind (caches to fill again). Each step's position after
the last event, against the steps further on, says what an event costs a run, in one launch,
whatever the machine's speed does between launches (benchmarks/RESULTS.md, issue 42).

Three kinds of launch in turn, tiny-mlp (batch 16, one thread, a fixed 10,000-step
window; a sitecustomize in a temporary folder reads the events as the worker yields them):
`normal` (the events written, as in every run), `json` (each step event made into JSON but not
written), `drop` (not even that: the step events taken and dropped).

    .venv/bin/python benchmarks/event_cost.py [--rounds 4] [--steps 10000]
        [--framework torch|tensorflow]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from harness_overhead import fixed_window

from engine.cli.common import run_worker
from engine.process.launcher import WorkerSpec

AFTER = 30  # positions after an event looked at one by one; the rest are the baseline
MODES = ("normal", "json", "drop")
PATCH = """
import json, os
from engine.core.events import Failed, Finished, Step
from engine.worker.measure import runner

_run, _mode = runner.run, os.environ["EVENT_COST_MODE"]


def run(config, cancel, run_id=None):
    kept = []
    for event in _run(config, cancel, run_id):
        if isinstance(event, Step) and event.measured:
            kept.append(event.step_times_s)
            if _mode == "json":
                event.to_json()
            if _mode != "normal":
                continue
        if isinstance(event, (Finished, Failed)):
            with open(os.environ["EVENT_COST_OUT"], "w") as out:
                json.dump(kept, out)
        yield event


runner.run = run
"""


def launch(folder: Path, mode: str, steps: int, framework: str) -> tuple[float, list[list[float]]]:
    config = fixed_window("tiny-mlp", 16, 50, steps, framework=framework, device="cpu", threads=1)
    out = folder / "steps.json"
    env = {"PYTHONPATH": str(folder), "EVENT_COST_MODE": mode, "EVENT_COST_OUT": str(out)}
    result, failure, _ = run_worker(config.validated(), spec=WorkerSpec(env=env))
    if result is None:
        raise SystemExit(f"the worker failed: {failure}")
    return float(result["throughput_samples_per_s"]), json.loads(out.read_text())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--steps", type=int, default=10_000)
    p.add_argument("--framework", choices=("torch", "tensorflow"), default="torch")
    args = p.parse_args()
    if args.rounds < 1 or args.steps < 1:
        p.error("--rounds and --steps: at least 1")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    seen = {
        m: {"at": [[] for _ in range(AFTER)], "rest": [], "rates": [], "lengths": []} for m in MODES
    }
    events = dict.fromkeys(MODES, 0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "sitecustomize.py").write_text(PATCH)
        for i in range(args.rounds):
            for mode in MODES if i % 2 == 0 else MODES[::-1]:
                rate, kept = launch(folder, mode, args.steps, args.framework)
                into = seen[mode]
                into["rates"].append(rate)
                for times in kept[1:-1]:  # whole stretches between two events
                    if len(times) < AFTER + 20:
                        continue
                    events[mode] += 1
                    into["lengths"].append(len(times))
                    for k in range(AFTER):
                        into["at"][k].append(times[k])
                    into["rest"].extend(times[AFTER:])
                print(f"round {i + 1} {mode:6s} {rate:10.1f} samples/s", flush=True)
    report = {}
    for mode in MODES:
        at, rest = seen[mode]["at"], seen[mode]["rest"]
        if not rest:
            raise SystemExit(
                f"{mode}: no stretch of {AFTER + 20} steps or more between two step events "
                "(one every 100 ms): give more --steps, or a model with shorter steps"
            )
        # Medians, position by position: a mean is moved by the machine's own rare long steps
        # by more than the event's effect (±200 us over 29 positions).
        base = statistics.median(rest)
        first = statistics.median(at[0]) - base
        after = sum(statistics.median(at[k]) - base for k in range(1, AFTER))
        per_event = first + after
        # An event's share of the run: its cost over the time between two events.
        share = per_event / (statistics.fmean(seen[mode]["lengths"]) * base)
        report[mode] = {
            "events": events[mode],
            "step_us": round(1e6 * base, 1),
            "first_step_extra_us": round(1e6 * first, 1),
            "next_steps_extra_us": round(1e6 * after, 1),
            "event_us": round(1e6 * per_event, 1),
            "share_of_run": round(share, 5),
            "median_rate": round(statistics.median(seen[mode]["rates"]), 1),
        }
        print(
            f"{mode:6s} {events[mode]} events: a step {1e6 * base:.1f} us; the first after an "
            f"event +{1e6 * first:.1f} us, the next {AFTER - 1} together {1e6 * after:+.1f} us "
            f"(medians by position); an event {1e6 * per_event:.0f} us in all, "
            f"{share:.2%} of the run",
            flush=True,
        )
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
