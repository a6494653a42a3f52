"""Time to a target accuracy with PyTorch and with TensorFlow: the same model, data, batch size,
optimizer and seeds, one worker process per run, the frameworks alternating run by run so that
a drift in the machine's load touches both alike.

Prints each run, then per framework the medians of: iterations to the target, training seconds
to it (the time to accuracy), steps per second while training, evaluation seconds, set-up
seconds (process start, framework import, data set, model; TensorFlow's graph trace is in it)
and the ratio of the medians. This process imports neither framework.

    PYTHONPATH=. .venv/bin/python benchmarks/accuracy_frameworks.py [--rounds 5] [--target 0.85]
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from engine.accuracy.study import StudyPlan, run_study
from engine.measure.accuracy_config import AccuracyConfig

FRAMEWORKS = ("torch", "tensorflow")
FIELDS = ("iterations", "seconds", "steps_per_s", "eval_seconds", "setup_seconds")


def _one(config: AccuracyConfig) -> dict[str, Any]:
    (result,) = run_study(StudyPlan(config, (config.batch_size,), repeats=1)).results
    acc = result["accuracy"]
    point = acc["point"]
    if point is None:
        raise SystemExit(f"{config.framework} did not reach the target: {acc['stop_reason']}")
    return {
        "framework": config.framework,
        "seed": config.seed,
        "iterations": point["iteration"],
        "seconds": point["seconds"],
        "steps_per_s": point["iteration"] / point["train_seconds"],
        "eval_seconds": point["eval_seconds"],
        "setup_seconds": acc["run"]["setup_seconds"],
        "trace_seconds": result["environment"].get("trace_seconds"),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="tiny-mlp")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--target", type=float, default=0.85)
    p.add_argument("--eval-every", type=int, default=25)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=5, help="runs per framework (seeds 0..N-1)")
    args = p.parse_args()
    base = AccuracyConfig(
        model=args.model,
        batch_size=args.batch_size,
        target_accuracy=args.target,
        eval_every=args.eval_every,
        threads=args.threads,
        device="cpu",
    )
    runs = []
    for seed in range(args.rounds):
        # Alternate which framework goes first, as well as the frameworks themselves.
        order = FRAMEWORKS if seed % 2 == 0 else FRAMEWORKS[::-1]
        for framework in order:
            run = _one(base.with_changes(framework=framework, seed=seed))
            print(json.dumps(run), flush=True)
            runs.append(run)
    medians = {
        fw: {k: statistics.median(r[k] for r in runs if r["framework"] == fw) for k in FIELDS}
        for fw in FRAMEWORKS
    }
    ratio = {k: medians["tensorflow"][k] / medians["torch"][k] for k in FIELDS}
    print(json.dumps({"median": medians, "tensorflow_over_torch": ratio}, indent=2))


if __name__ == "__main__":
    main()
