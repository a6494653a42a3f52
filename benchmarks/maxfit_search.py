"""Max-fit search: doubling then bisection (epochcost) against a plain doubling search.

Both searches run on the same model, under the same worker-enforced memory cap, from the same
start and to the same resolution (a multiple of --multiple), each trial a fresh worker running
the same short probe (engine.sweep.runner.probe_config). The plain doubling search doubles until the
first failure, then, from the last batch that fit, adds 1, 2, 4, ... multiples until one fails
and starts the additions again from the last fit, until one multiple more does not fit. The
rounds alternate the two searches so machine load falls on both alike. Prints per search its
trials, total wall time and answer, then the medians and the ratios.

    .venv/bin/python benchmarks/maxfit_search.py [--model tiny-mlp] [--cap-mb 48] [--rounds 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.events import Failed, Finished
from engine.measure.config import RunConfig
from engine.process.launcher import WorkerProcess
from engine.sweep.batch_sizes import MaxFitSearch
from engine.sweep.runner import probe_config


@dataclass
class DoublingSearch:
    """Doubling only: x2 to the first failure, then doubling steps from the last fit."""

    start: int
    multiple: int
    tried: dict[int, bool] = field(default_factory=dict)
    _step: int = 0

    def record(self, size: int, fits: bool) -> None:
        in_refinement = any(not ok for b, ok in self.tried.items())
        self.tried[size] = fits
        if in_refinement:
            self._step = self._step * 2 if fits else self.multiple
        elif not fits:
            self._step = self.multiple  # the first failure: refine from the last fit

    def next_size(self) -> int | None:
        fits = [b for b, ok in self.tried.items() if ok]
        failures = [b for b, ok in self.tried.items() if not ok]
        if not self.tried:
            return self.start
        if not fits:
            return min(failures) // 2 if min(failures) > 1 else None
        lo = max(fits)
        if not failures:
            return lo * 2
        hi = min(failures)
        if lo + self._step >= hi:
            if self._step == self.multiple:
                return None
            self._step = self.multiple  # overshot a known failure: start the additions again
        return lo + self._step if lo + self._step < hi else None

    @property
    def largest_fit(self) -> int | None:
        fits = [b for b, ok in self.tried.items() if ok]
        return max(fits) if fits else None


def fits(config: RunConfig, batch: int) -> bool:
    """One trial in a fresh worker: True if the batch trained, False if it did not fit."""
    worker = WorkerProcess(config.with_changes(batch_size=batch)).start()
    end = None
    try:
        for event in worker.events():
            if isinstance(event, Finished | Failed):
                end = event
    finally:
        worker.close()
    if isinstance(end, Failed) and end.kind not in ("oom", "crashed"):
        raise SystemExit(f"batch {batch}: {end.kind}: {end.message}")
    return isinstance(end, Finished)


def run_search(search: MaxFitSearch | DoublingSearch, trial: Callable[[int], bool]) -> dict:
    t0 = time.perf_counter()
    sizes = []
    while (size := search.next_size()) is not None:
        sizes.append(size)
        search.record(size, trial(size))
    return {
        "trials": len(sizes),
        "seconds": time.perf_counter() - t0,
        "max_fit": search.largest_fit,
        "sizes": sizes,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny-mlp")
    p.add_argument("--cap-mb", type=int, default=48, help="worker-enforced memory cap (MiB)")
    p.add_argument("--start", type=int, default=16)
    p.add_argument("--multiple", type=int, default=8)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args()
    base = RunConfig(
        model=args.model,
        device="cpu",
        threads=args.threads,
        max_seconds=5.0,
        memory_limit_bytes=args.cap_mb * 2**20,
    ).validated()
    config = probe_config(base)
    figures: dict[str, list[dict]] = {"bisection": [], "doubling": []}
    for i in range(args.rounds):
        for name in ("bisection", "doubling") if i % 2 == 0 else ("doubling", "bisection"):
            search = (
                MaxFitSearch(args.start, args.multiple)
                if name == "bisection"
                else DoublingSearch(args.start, args.multiple)
            )
            out = run_search(search, lambda b: fits(config, b))
            figures[name].append(out)
            print(
                f"round {i + 1} {name:9s}: {out['trials']:2d} trials, {out['seconds']:6.1f} s, "
                f"max fit {out['max_fit']}  ({' '.join(map(str, out['sizes']))})",
                flush=True,
            )
    med = {
        name: (
            statistics.median(r["trials"] for r in runs),
            statistics.median(r["seconds"] for r in runs),
        )
        for name, runs in figures.items()
    }
    (bt, bs), (dt, ds) = med["bisection"], med["doubling"]
    print(
        f"{args.model}, cap {args.cap_mb} MiB, start {args.start}, resolution {args.multiple}, "
        f"{args.threads} thread(s), CPU, {args.rounds} round(s):\n"
        f"  doubling + bisection: {bt:g} trials, {bs:.1f} s\n"
        f"  plain doubling:       {dt:g} trials, {ds:.1f} s\n"
        f"  ratio (bisection / doubling): trials {bt / dt:.2f}, time {bs / ds:.2f}"
    )


if __name__ == "__main__":
    main()
