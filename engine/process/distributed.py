"""A data-parallel run's processes, from the parent's side (docs/scaling.md).

The worker is started through PyTorch's own elastic launcher, `python -m torch.distributed.run`
(what the `torchrun` script runs), which starts one worker per process of this node: each
joins the process group from the environment torchrun gives it (RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR/PORT). The first process of each node (rank 0 on node 0) writes the events; every
other writes only its failure, as one marked line on stderr (RANK_FAILED), so that a run that
dies can say which process failed and why.

torchrun runs in a scratch folder of the run's own (engine/process/scratch.py: TMPDIR for it and
its ranks), removed when the run ends, so that no `torchelastic_*` folder is left behind.

torchrun starts each worker in a session of its own, out of reach of the process group the
launcher ends: `end_tree` ends every descendant of torchrun, found before torchrun itself goes
(afterwards they would belong to nobody).
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
from collections.abc import Iterable

import psutil

from engine.core.errors import ConfigError
from engine.core.events import RANK_FAILED
from engine.measure.config import RunConfig
from engine.process import scratch

# Seconds torchrun checks its workers' health (its default is 0.1 in recent releases, 5 in old).
MONITOR_INTERVAL_S = 0.1


def torchrun_command(python: str, config: RunConfig) -> list[str]:
    """`python -m torch.distributed.run ... -m engine.worker` in a new scratch folder
    (`python -m engine.process.scratch FOLDER ...`): the worker's arguments follow."""
    cmd = [python, "-m", "engine.process.scratch", str(scratch.make())]
    cmd += ["--nproc_per_node", str(config.nproc)]
    if config.nnodes == 1:
        cmd.append("--standalone")  # a rendezvous on this machine, on a free port
    else:
        assert config.rdzv_endpoint  # RunConfig.validated() says so
        cmd += [
            "--nnodes",
            str(config.nnodes),
            "--node_rank",
            str(config.node_rank),
            "--rdzv_backend",
            "c10d",
            "--rdzv_endpoint",
            config.rdzv_endpoint,
            "--rdzv_conf",
            f"join_timeout={int(config.rdzv_timeout_s)}",
        ]
    cmd += [
        "--max_restarts",
        "0",  # a measurement is not restarted: a failure is the result
        "--monitor_interval",
        str(MONITOR_INTERVAL_S),
        "-m",
        "engine.worker",
    ]
    return cmd


def check_launchable(runs_self: bool) -> None:
    """The desktop bundle's own executable is no Python: it cannot run torch.distributed.run."""
    if runs_self:
        raise ConfigError(
            "nproc",
            "a data-parallel run needs a Python environment with PyTorch; choose one for "
            "PyTorch in File > Settings (the bundle's own worker runs one process)",
        )


def descendants(pid: int) -> list[psutil.Process]:
    """Every process under `pid` (torchrun's workers and what they started)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def end_tree(processes: Iterable[psutil.Process], sig: int = signal.SIGKILL) -> None:
    """Signal each process (psutil checks that a pid was not reused since it was found)."""
    for proc in processes:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


def death_message(code: int, phase: str, stderr_lines: list[str], config: RunConfig) -> str:
    """What ended a data-parallel run that left no result: a rank's own failure, a rank that
    died (torchrun's summary), a rendezvous that timed out, or torchrun's exit."""
    text = "\n".join(stderr_lines)
    during = f", during {phase}" if phase else ""
    if "RendezvousTimeoutError" in text or "RendezvousTimeout" in text:
        return (
            f"the processes did not meet within {config.rdzv_timeout_s:g} s (rendezvous at "
            f"{config.rdzv_endpoint or 'this machine'}): start every node with the same "
            "--nnodes and --rdzv-endpoint, or raise --rdzv-timeout"
        )
    own = _rank_failures(stderr_lines)
    if own:
        return f"a process of the {config.world_size}-process run failed{during}: {own[0]}"
    died = _root_cause(stderr_lines)
    if died:
        return f"a process of the {config.world_size}-process run ended{during}: {died}"
    return (
        f"the data-parallel run ended without a result (torchrun exit code {code}{during}); "
        "--verbose shows its log"
    )


def _rank_failures(lines: list[str]) -> list[str]:
    """The failures other ranks wrote (RANK_FAILED lines), as 'rank N: message'."""
    found = []
    for line in lines:
        _, marker, rest = line.partition(RANK_FAILED)
        if not marker:
            continue
        try:
            event = json.loads(rest)
            found.append(f"rank {event.get('rank', '?')}: {event['message']}")
        except (ValueError, KeyError, TypeError):
            continue
    return found


_FIELD = re.compile(r"^\s*(rank|exitcode|traceback)\s*:\s*(.*)$")


def _root_cause(lines: list[str]) -> str:
    """torchrun's 'Root Cause (first observed failure)' as 'rank N ended with signal X'."""
    try:
        start = next(i for i, line in enumerate(lines) if "Root Cause" in line)
    except StopIteration:
        return ""
    fields: dict[str, str] = {}
    for line in lines[start : start + 12]:
        match = _FIELD.match(line)
        if match and match.group(1) not in fields:
            fields[match.group(1)] = match.group(2).strip()
    if "rank" not in fields:
        return ""
    rank = fields["rank"].split(" ")[0]
    code = fields.get("exitcode", "?").split(" ")[0]
    try:
        number = int(code)
        how = f"signal {signal.Signals(-number).name}" if number < 0 else f"exit code {number}"
    except ValueError:
        how = f"exit code {code}"
    return f"rank {rank} ended with {how}"
