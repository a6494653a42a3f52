"""Is the machine busy? What other processes used of the CPU while the windows ran, and, on an
NVIDIA GPU, whether it throttled (thermal or power) or shared its work with other processes.

A home card that throttles runs slower than its spec, and a machine shared with a compile job
measures low: either is said as a warning with the result (docs/measuring.md).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from typing import Any

import psutil

# Above this share of the whole machine's CPU used by other processes, a result is "busy".
BUSY_CPU_FRACTION = 0.25
# Above this share of the window spent throttled, a GPU result says so.
THROTTLED_FRACTION = 0.05
# NVML clocks-event reasons (nvml.h): the ones that mean the card slowed itself down.
_THERMAL = {0x20: "software thermal slowdown", 0x40: "hardware thermal slowdown"}
_POWER = {0x4: "software power cap", 0x80: "hardware power brake"}
_HW_SLOWDOWN = 0x8


def _busy_seconds(t: Any) -> float:
    """CPU seconds spent on anything but idling, over all cores (guest time is inside user)."""
    return float(
        t.user
        + getattr(t, "nice", 0.0)
        + t.system
        + getattr(t, "irq", 0.0)
        + getattr(t, "softirq", 0.0)
        + getattr(t, "steal", 0.0)
    )


# The process that reads a run's events (the app or the command line), set by the launcher in
# every worker's environment (engine/process/spawn.py): its CPU is the run's own (the app draws
# the run as it goes), though it is not the worker's parent where a fork server or torchrun is.
READER_ENV = "EPOCHCOST_READER_PID"
# The fork server a worker was forked from (engine/process/forked.py): it stands between the
# worker and its reader, and its other workers are not this run's.
SERVER_ENV = "EPOCHCOST_FORK_SERVER_PID"
_MAX_DEPTH = 8  # a worker's ancestors up to its reader: a fork server, torchrun, its launcher


def _ancestors(pid: int) -> list[int]:
    """`pid`'s parent, its parent's, ... (a few; none past init)."""
    chain: list[int] = []
    for _ in range(_MAX_DEPTH):
        try:
            pid = psutil.Process(pid).ppid()
        except psutil.Error:
            break
        if pid <= 1:
            break
        chain.append(pid)
    return chain


def run_processes(me: int) -> tuple[int, int]:
    """(the top of this run's own processes, the process that reads its events).

    With a reader named (READER_ENV) among this process's ancestors: the reader's child this
    process descends from (the worker itself; for a data-parallel rank, the launcher that
    started torchrun, so that the other ranks count as the run's), but below a fork server
    (SERVER_ENV) its child, the forked worker (the server's other workers are other
    processes); and the reader. Else (a worker started by hand, or on another machine than its
    reader): this process and its parent, as before."""
    chain = _ancestors(me)
    reader = os.environ.get(READER_ENV, "")
    if not (reader.isdigit() and int(reader) in chain):
        return me, chain[0] if chain else os.getppid()
    line = [me, *chain]  # this process, its parent, ...
    top = chain.index(int(reader))  # line[top]: the reader's child
    server = os.environ.get(SERVER_ENV, "")
    if server.isdigit() and int(server) in chain[:top]:
        top = chain.index(int(server))  # line[top]: the server's child
    return line[top], int(reader)


def _own_seconds(root: int, reader: int) -> float:
    """CPU seconds of the run's own processes (`root` and every process under it) and of its
    reader alone (not the reader's other children: another worker is another process)."""
    total = 0.0
    try:
        top = psutil.Process(root)
        family = [top, *top.children(recursive=True)]
    except psutil.Error:
        return total
    with contextlib.suppress(psutil.Error):
        family.append(psutil.Process(reader))
    for proc in family:
        try:
            t = proc.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


@dataclass
class CpuShare:
    """From `begin()` to `fraction()`: the share of the machine's CPU that processes other than
    the run's own (run_processes: the worker with what it started, a data-parallel run's other
    ranks and their launcher) and its reader (the app or CLI that reads the events) used."""

    t0: float
    busy0: float
    own0: float
    root: int
    reader: int

    @classmethod
    def begin(cls) -> CpuShare:
        root, reader = run_processes(os.getpid())
        own = _own_seconds(root, reader)
        return cls(time.monotonic(), _busy_seconds(psutil.cpu_times()), own, root, reader)

    def fraction(self) -> float | None:
        wall = time.monotonic() - self.t0
        cores = psutil.cpu_count() or 1
        if wall < 0.05:
            return None  # too short to tell
        busy = _busy_seconds(psutil.cpu_times()) - self.busy0
        own = _own_seconds(self.root, self.reader) - self.own0
        return min(max((busy - own) / (wall * cores), 0.0), 1.0)


def warnings(other_cpu_fraction: float | None, device_state: dict[str, Any]) -> list[str]:
    """The busy and throttling warnings for a result, from what the monitor saw."""
    out: list[str] = []
    if other_cpu_fraction is not None and other_cpu_fraction > BUSY_CPU_FRACTION:
        out.append(
            f"machine busy: other processes used {other_cpu_fraction:.0%} of the CPU during the "
            "measured windows; the figure may be low and its interval wide: measure again on a "
            "quiet machine"
        )
    start, end = device_state.get("start") or {}, device_state.get("end") or {}
    others = end.get("other_processes") or start.get("other_processes")
    if others:
        out.append(
            f"GPU busy: {others} other process{'es' if others > 1 else ''} ran on the GPU during "
            "the run; the figure may be low"
        )
    out += _throttle_warnings(start, end)
    return out


def _throttle_warnings(start: dict[str, Any], end: dict[str, Any]) -> list[str]:
    """Thermal or power throttling: from NVML's violation counters over the run (how long the
    card was held back), else from the clocks-event reasons at its end."""
    out = []
    window_ns = _delta(start, end, "reference_time_us")
    for kind, key in (("thermal", "thermal_violation_ns"), ("power", "power_violation_ns")):
        held = _delta(start, end, key)
        if held and window_ns:
            share = held / (window_ns * 1000)
            if share > THROTTLED_FRACTION:
                out.append(
                    f"GPU throttled ({kind}): held below its clocks for {share:.0%} of the run; "
                    "the figure is lower than the card's spec"
                    + (" (check cooling and airflow)" if kind == "thermal" else "")
                )
    if out:
        return out
    reasons = end.get("throttle_reasons")
    if isinstance(reasons, int):
        named = [text for bit, text in {**_THERMAL, **_POWER}.items() if reasons & bit]
        if reasons & _HW_SLOWDOWN:
            named.append("hardware slowdown")
        if named:
            out.append(
                f"GPU throttled at the end of the run ({', '.join(named)}); the figure may be "
                "lower than the card's spec"
            )
    return out


def _delta(start: dict[str, Any], end: dict[str, Any], key: str) -> float | None:
    a, b = start.get(key), end.get(key)
    if isinstance(a, int | float) and isinstance(b, int | float) and b >= a:
        return float(b - a)
    return None
