"""SkyPilot's dry-run check: a one-off run of the cloud program against the warm program
(engine/cloud/check_server.py).

Alternates, each round in swapped order: one `check` run afresh (`skypilot.call`, SkyPilot
imported each time) and one from the warm program, both of the same tasks (an AWS, a GCP and
an Azure instance of the catalog, and one SkyPilot refuses) against the same catalog snapshot.
The warm program's first check (its start) is timed apart. Prints each round's seconds, the
medians and their ratio, and checks that both answers are the same. Run it on a quiet machine,
with the cloud environment made (`make test` makes it; tests/engine/cloud_helpers.py finds it).

    .venv/bin/python benchmarks/cloud_check.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["EPOCHCOST_HOME"] = tempfile.mkdtemp(prefix="epochcost-bench-")

from engine.cloud import check_server, skypilot  # noqa: E402
from engine.cloud.sky_catalog import runtime_dir  # noqa: E402
from engine.pricing import catalog  # noqa: E402
from tests.engine import cloud_helpers  # noqa: E402,F401  (make test's cloud environment)

TASKS = [
    {"resources": {"cloud": "aws", "instance_type": "g5.xlarge"}, "run": "echo"},
    {"resources": {"cloud": "gcp", "instance_type": "g2-standard-4"}, "run": "echo"},
    {"resources": {"cloud": "azure", "instance_type": "Standard_NC4as_T4_v3"}, "run": "echo"},
    {"resources": {"cloud": "aws", "instance_type": "nope.xlarge"}, "run": "echo"},
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    python = skypilot.cloud_python()
    root = runtime_dir(catalog.load())
    t0 = time.perf_counter()
    warm_answer = check_server.check(python, root, TASKS, 300)
    print(f"the warm program's first check (its start): {time.perf_counter() - t0:.3f} s")
    print("verdicts:", [a["ok"] for a in warm_answer])
    times: dict[str, list[float]] = {"one-off": [], "warm": []}
    for r in range(args.rounds):
        order = ["one-off", "warm"] if r % 2 == 0 else ["warm", "one-off"]
        for kind in order:
            t = time.perf_counter()
            if kind == "warm":
                answer = check_server.check(python, root, TASKS, 300)
            else:
                answer = skypilot.call("check", {"tasks": TASKS, "runtime_dir": str(root)})
            times[kind].append(time.perf_counter() - t)
            if answer != warm_answer:
                raise SystemExit(f"round {r + 1}: the {kind} answer differs")
        print(f"round {r + 1}: " + ", ".join(f"{k} {times[k][-1]:.3f} s" for k in order))
    one_off, warm = (statistics.median(times[k]) for k in ("one-off", "warm"))
    print(
        f"median over {args.rounds} rounds: one-off {one_off:.3f} s "
        f"({min(times['one-off']):.3f}-{max(times['one-off']):.3f}), "
        f"warm {warm:.4f} s ({min(times['warm']):.4f}-{max(times['warm']):.4f}); "
        f"one-off / warm {one_off / warm:.0f}x; the same answers in every round"
    )
    check_server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
