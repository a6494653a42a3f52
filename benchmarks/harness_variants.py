"""Where the harness's shortfall on tiny-mlp comes from: the worker with one part changed at a time.

Each variant is a copy of this tree's engine/ with one named change (VARIANTS: the text replaced
must be found, else the script stops), made in a temporary folder. A round launches the hand loop
(benchmarks/hand_loop_tiny.py) and each variant's worker once (`run_worker`, as
harness_overhead.py does), the order rotated every round and reversed in every other turn of
the rotation (each name in each place, both ways round); each
launch's throughput and page faults are printed, then each variant's median, its ratio to the
hand loop's median, the median of the rounds' own ratios, and how many launches churned their
heap (harness_overhead.churned). `in-worker` (PyTorch) also runs, in the worker before its
window, 1,000-step blocks of the hand loop's step on the session's own model and of the
harness's real window, in turn, and prints the ratio of their medians: the loop's own cost, with
the process and its memory the same (`in-worker-50ms`: with the step events every 50 ms, as
before; `in-worker-writer`: with each event's JSON and write on a thread of its own).
`hand-fixed` is the hand loop again, with glibc's thresholds set as the worker sets them
(engine/worker/measure/heap.py), from the environment variables docs/measuring.md gives a user's
own script. `--model resnet18-cifar` runs harness_overhead.py's resnet18-cifar case instead of
tiny-mlp (PyTorch; --steps 20 there).

    .venv/bin/python benchmarks/harness_variants.py [--rounds 12] [--steps 2000]
        [--variants base,no-flops,no-monitor,events-1s,events-50ms,glibc-defaults,hand-fixed,
         writer-thread,in-worker,in-worker-50ms,in-worker-writer]
        [--framework torch] [--model tiny-mlp|resnet18-cifar]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
IN_WORKER_BLOCKS = 24  # 6 of each kind
PLAIN_OUT = "EPOCHCOST_BENCH_PLAIN_OUT"

# variant: [(file under engine/, text, replacement)]
VARIANTS: dict[str, list[tuple[str, str, str]]] = {
    "base": [],
    "no-flops": [
        (
            "worker/measure/runner.py",
            "self.flops_per_step = handle.flops_per_step()",
            "self.flops_per_step = None",
        )
    ],
    "no-monitor": [  # the thread waits for its stop without reading anything
        (
            "worker/measure/monitor.py",
            "        while not self._stop.wait(self.interval_s):",
            "        self._stop.wait()\n        while not self._stop.wait(self.interval_s):",
        )
    ],
    "events-1s": [
        ("core/events.py", "STEP_EVENT_EVERY_S = 0.1", "STEP_EVENT_EVERY_S = 1.0"),
    ],
    "events-50ms": [  # as before issue 42's last change
        ("core/events.py", "STEP_EVENT_EVERY_S = 0.1", "STEP_EVENT_EVERY_S = 0.05"),
    ],
    "glibc-defaults": [  # the worker leaves glibc's thresholds as they come (before heap.steady)
        ("worker/measure/pipeline.py", "else heap.steady()", "else None"),
    ],
    # The hand loop (not a worker) with the same thresholds, from glibc's environment variables:
    # what a user's own script gains from them.
    "hand-fixed": [],
    # In one worker, before its window: 1,000-step blocks of the hand loop's step (on the
    # session's own model, optimizer and batch) and of the harness's real window (its events
    # sent as usual), in turn, IN_WORKER_BLOCKS in all; the rates go to PLAIN_OUT. The same
    # process and memory for both: what the loop costs a step, without the launches' spread.
    # In one worker, before its window: 1,000-step blocks of the hand loop's step (on the
    # session's own model, optimizer and batch), of the same step timed by the session's own
    # step timer (its stop() each step, its completed() every 100 steps, as the window's events
    # ask it), and of the harness's real window (its events sent as usual), in turn,
    # IN_WORKER_BLOCKS in all; the rates go to PLAIN_OUT. The same process and memory for all
    # three: what the timer and the loop cost a step, without the launches' spread.
    "in-worker": [
        (
            "worker/measure/loop.py",
            "    plan = _plan(session, config, monitor, group)\n",
            "    import dataclasses as _dc, json as _json, os as _os\n"
            "    import torch as _torch\n"
            "    _m, _o = session._model, session._optimizer\n"
            "    _x, _y = session._inputs, session._targets\n"
            "    _cfg = _dc.replace(\n"
            "        config, min_steps=1000, max_steps=1000, stability_threshold=0\n"
            "    )\n"
            "    _rates = {'hand': [], 'session': [], 'timed': [], 'window': []}\n"
            f"    for _b in range({IN_WORKER_BLOCKS}):\n"
            "        _kind = ('hand', 'session', 'timed', 'window')[_b % 4]\n"
            "        if _kind == 'window':\n"
            "            _w = yield from _window(\n"
            "                session, _cfg, run_id, cancel, monitor, 0, pending, group, every, ''\n"
            "            )\n"
            "            _rates['window'].append(_w.throughput_samples_per_s)\n"
            "            continue\n"
            "        _tm = session.timer if _kind == 'timed' else None\n"
            "        session.sync()\n"
            "        _t = time.perf_counter()\n"
            "        if _tm is not None:\n"
            "            _tm.start()\n"
            "        for _i in range(1000):\n"
            "            if _kind == 'session':\n"
            "                session.step()\n"
            "                continue\n"
            "            _o.zero_grad(set_to_none=True)\n"
            "            _torch.nn.functional.cross_entropy(_m(_x), _y).backward()\n"
            "            _o.step()\n"
            "            if _tm is not None:\n"
            "                _tm.stop()\n"
            "                if _i % 100 == 99:\n"
            "                    _tm.completed()\n"
            "        session.sync()\n"
            "        _rates[_kind].append(1000 * config.batch_size / (time.perf_counter() - _t))\n"
            "        if _tm is not None:\n"
            "            _tm.flush()\n"
            f"    with open(_os.environ['{PLAIN_OUT}'], 'w') as _f:\n"
            "        _f.write(_json.dumps(_rates))\n"
            "    plan = _plan(session, config, monitor, group)\n",
        )
    ],
    # Each event's JSON and its write on a thread of their own, not the measuring thread's
    # (the GIL is shared: the encoding waits for the step's Python, the write does not).
    "writer-thread": [
        (
            "worker/main.py",
            "    for event in run(config, cancel, run_id=run_id):\n"
            "        if reports:  # a node's first process reports the run\n"
            '            events.write(event.to_json() + "\\n")\n',
            "    import queue as _queue\n"
            "    _out: _queue.SimpleQueue = _queue.SimpleQueue()\n"
            "    def _write() -> None:\n"
            "        while (_e := _out.get()) is not None:\n"
            '            events.write(_e.to_json() + "\\n")\n'
            "    _writer = threading.Thread(target=_write, daemon=True)\n"
            "    _writer.start()\n"
            "    for event in run(config, cancel, run_id=run_id):\n"
            "        if reports:  # a node's first process reports the run\n"
            "            _out.put(event)\n",
        ),
        (
            "worker/main.py",
            '            sys.stderr.write(RANK_FAILED + json.dumps(failure) + "\\n")\n'
            "    return 0\n",
            '            sys.stderr.write(RANK_FAILED + json.dumps(failure) + "\\n")\n'
            "    _out.put(None)\n"
            "    _writer.join()\n"
            "    return 0\n",
        ),
    ],
    # On a GPU: the session times its steps on the host's clock (WallTimer, as on the CPU)
    # instead of by a CUDA event recorded after each step.
    "wall-timer": [
        ("worker/frameworks/torch/session.py", 'if device.type == "cuda":', "if False:"),
    ],
}
# The same, with the step events every 50 ms (as before issue 42's last change): the events'
# own cost, in one process.
VARIANTS["in-worker-50ms"] = VARIANTS["in-worker"] + VARIANTS["events-50ms"]
# In one process, with the events written by their own thread.
VARIANTS["in-worker-writer"] = VARIANTS["in-worker"] + VARIANTS["writer-thread"]


def make(variant: str, into: Path) -> Path:
    root = into / variant
    shutil.copytree(ROOT / "engine", root / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    for name, text, replacement in VARIANTS[variant]:
        path = root / "engine" / name
        source = path.read_text()
        if text not in source:
            raise SystemExit(f"{variant}: {name} no longer holds {text!r}: update VARIANTS")
        path.write_text(source.replace(text, replacement, 1))
    return root


def _path(root: Path) -> str:
    """PYTHONPATH with `root` first, then whatever this process was given (a machine whose
    Python lacks one of the engine's packages carries it there)."""
    return os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))


def launch(
    framework: str,
    model: str,
    steps: int,
    root: Path | None,
    plain_out: Path,
    fixed: bool,
    device: str = "cpu",
) -> tuple[float, int]:
    """One launch: (samples/s, page faults of its processes). `root` None: the hand loop (with
    glibc's thresholds fixed by its environment when `fixed`)."""
    sys.path.insert(0, str(HERE))
    from harness_overhead import CASES, GPU_CASES

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    if root is None:
        cases = CASES if device == "cpu" else GPU_CASES
        case = dataclasses.replace(cases[model], steps=steps)
        command = case.hand_loop(framework, device)
        env = {**os.environ, "PYTHONPATH": _path(ROOT)}
        if fixed:
            from engine.worker.measure.heap import STEADY_ENVIRONMENT

            env.update(STEADY_ENVIRONMENT)
        cwd = ROOT
    else:
        command = [__file__, "--launch", framework, "--model", model, "--steps", str(steps)]
        command += ["--device", device]
        env = {**os.environ, "PYTHONPATH": _path(root), PLAIN_OUT: str(plain_out)}
        cwd = root
    out = subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, check=True, env=env, cwd=cwd
    )
    rate = json.loads(out.stdout.splitlines()[-1])["throughput_samples_per_s"]
    return rate, resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before


def one_worker(framework: str, model: str, steps: int, device: str) -> None:
    """--launch: the worker of the engine on PYTHONPATH, one fixed window (a child process)."""
    sys.path.insert(0, str(HERE))
    from harness_overhead import CASES, GPU_CASES, fixed_window

    from engine.cli.common import run_worker

    case = (CASES if device == "cpu" else GPU_CASES)[model]
    config = fixed_window(
        model,
        case.batch,
        case.warmup,
        steps,
        framework=framework,
        device=device,
        threads=case.threads,
    )
    result, failure, _ = run_worker(config.validated())
    if result is None:
        raise SystemExit(f"epochcost run failed: {failure}")
    print(json.dumps({"throughput_samples_per_s": result["throughput_samples_per_s"]}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--framework", choices=("torch", "tensorflow"), default="torch")
    p.add_argument("--model", choices=("tiny-mlp", "resnet18-cifar"), default="tiny-mlp")
    p.add_argument(
        "--variants", default="base,no-flops,no-monitor,events-1s,glibc-defaults,in-worker"
    )
    p.add_argument("--device", default="cpu", help="cpu, or cuda:0 (PyTorch only)")
    p.add_argument("--launch", choices=("torch", "tensorflow"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.launch:
        one_worker(args.launch, args.model, args.steps, args.device)
        return
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variants {unknown}: choose from {', '.join(VARIANTS)}")
    if any(v.startswith("in-worker") for v in variants) and args.framework != "torch":
        p.error("in-worker's hand step is PyTorch's: leave it out with --framework tensorflow")
    sys.path.insert(0, str(HERE))
    from harness_overhead import churned

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory(prefix="epochcost-variants-") as tmp:
        roots: dict[str, Path | None] = {"hand loop": None}
        roots.update({v: None if v == "hand-fixed" else make(v, Path(tmp)) for v in variants})
        plain_out = Path(tmp) / "plain.txt"
        names = list(roots)
        rates: dict[str, list[float]] = {n: [] for n in names}
        faults: dict[str, list[int]] = {n: [] for n in names}
        in_worker: dict[str, list[float]] = {n: [] for n in names if n.startswith("in-worker")}
        part_ratios: dict[str, dict[str, list[float]]] = {n: {} for n in in_worker}
        for i in range(args.rounds):
            order = names[i % len(names) :] + names[: i % len(names)]
            for name in order[::-1] if (i // len(names)) % 2 else order:
                rate, count = launch(
                    args.framework,
                    args.model,
                    args.steps,
                    roots[name],
                    plain_out,
                    fixed=name == "hand-fixed",
                    device=args.device,
                )
                rates[name].append(rate)
                faults[name].append(count)
                line = f"round {i + 1} {name:11s} {rate:10.1f} samples/s ({count} page faults)"
                if name in in_worker:
                    blocks = json.loads(plain_out.read_text())
                    medians = {k: statistics.median(v) for k, v in blocks.items()}
                    hand_rate = medians.pop("hand")
                    parts = {k: v / hand_rate for k, v in medians.items()}
                    in_worker[name].append(parts["window"])
                    for k, v in parts.items():
                        part_ratios[name].setdefault(k, []).append(v)
                    line += (
                        f", its hand steps {hand_rate:.1f} samples/s; in the same worker "
                        "against them: " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items())
                    )
                print(line, flush=True)
    hand = statistics.median(rates["hand loop"])
    for name in names:
        paired = [a / b for a, b in zip(rates[name], rates["hand loop"], strict=True)]
        print(
            f"{name:11s} median {statistics.median(rates[name]):10.1f}, ratio "
            f"{statistics.median(rates[name]) / hand:.3f}, rounds' own ratios: median "
            f"{statistics.median(paired):.3f}",
            flush=True,
        )
    churned(faults, rates)
    for name, ratios in in_worker.items():
        print(
            f"{name}: the harness's 1,000-step windows against as many hand steps in turn, "
            f"{IN_WORKER_BLOCKS // 4} of each a worker, in the same worker: median "
            f"{statistics.median(ratios):.3f} ({min(ratios):.3f} to {max(ratios):.3f}); "
            "each part's median: "
            + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in part_ratios[name].items())
        )
    print(f"load average after {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
