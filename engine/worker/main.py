"""The worker process: `python -m engine.worker run|accuracy --config-json JSON`, or
`python -m engine.worker check-model --model-file PATH [--framework F]` (see
engine/worker/workloads/model_file_check.py). In the desktop bundle, which has no `python -m`, the
app's executable runs this main when its first argument is engine.process.launcher.WORKER_FLAG
(`epochcost-gui --epochcost-worker run ...`, gui/app.py).

`run` is one timed run (RunConfig); `accuracy` one training-to-accuracy run (AccuracyConfig).
`run --data-parallel`: one process of a data-parallel run, started by torch.distributed.run
(engine/process/distributed.py); only each node's first process writes events.

Writes one JSON event per line on its stdout and nothing else there: whatever a framework prints
goes to stderr. With --control-stdin it reads commands from stdin ("cancel"), and treats the
end of stdin as its parent's death: it cancels the run and exits by itself, so no orphan keeps
a GPU busy.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, NoReturn, TextIO

from engine.worker import quiet, tempdir

if TYPE_CHECKING:
    from engine.core.errors import RunFailed

quiet.before_import()  # before any framework can be imported

PARENT_GONE_GRACE_S = 3.0
PARENT_POLL_S = 0.5
EXIT_PARENT_GONE = 4
_PARENT_GONE = threading.Event()  # stdin has closed


def _event_stream() -> TextIO:
    """Keep the real stdout for events; point fd 1 (and sys.stdout) at stderr. The events' fd
    is not inherited by a program the worker starts (os.dup makes it so), nor held by a process
    it forks (a model file's multiprocessing, os.fork): its parent reads events until the pipe's
    end, and a child's copy would keep the pipe open."""
    fd = os.dup(1)
    events = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: _let_go(fd))
    return events


def _let_go(fd: int) -> None:
    """In a forked child: point the events' fd at the null device. The fd stays valid for the
    file object that holds it, and what the child writes there goes nowhere."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd, inheritable=False)
        os.close(null)
    except OSError:
        pass


def _default_signals() -> None:
    """In a forked child: SIGTERM and SIGINT as Python's defaults, not the worker's cancel, so
    that the launcher's SIGTERM to the worker's process group ends the child."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
    except (ValueError, OSError):  # not this interpreter's main thread
        pass


def _watch_control(cancel: threading.Event, control: TextIO) -> None:
    for line in control:
        if line.strip() == "cancel":
            cancel.set()
    # stdin closed: the parent is gone (or closed it on purpose). Stop, then make sure we end.
    _PARENT_GONE.set()
    cancel.set()
    timer = threading.Timer(PARENT_GONE_GRACE_S, _exit, args=(EXIT_PARENT_GONE,))
    timer.daemon = True
    timer.start()


def _watch_parent(cancel: threading.Event) -> None:
    """A process other than a node's first of a data-parallel run (which leaves stdin to that
    one): torchrun is
    its parent; when that goes, it cancels and ends, as a worker whose stdin closed."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    _PARENT_GONE.set()
    cancel.set()
    timer = threading.Timer(PARENT_GONE_GRACE_S, _exit, args=(EXIT_PARENT_GONE,))
    timer.daemon = True
    timer.start()


def _rank() -> int:
    """This process's rank in a data-parallel run (torch.distributed.run sets RANK); 0 alone."""
    return _int_env("RANK", 0)


def _reports() -> bool:
    """Whether this process writes the events: alone, or the first of its node (LOCAL_RANK 0:
    global rank 0 on node 0, and on every other node the one its launcher hears from; every
    rank holds the run's figures, gathered at each window's end)."""
    return _int_env("LOCAL_RANK", 0) == 0


def _int_env(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def _run(args: argparse.Namespace, events: TextIO) -> int:
    from engine.core.errors import ConfigError
    from engine.core.events import RANK_FAILED, Failed
    from engine.core.ids import new_run_id

    if args.command == "accuracy":
        from engine.measure.accuracy_config import AccuracyConfig as Config
        from engine.worker.accuracy.runner import run
    else:
        from engine.measure.config import RunConfig as Config  # type: ignore[assignment]
        from engine.worker.measure.runner import run  # type: ignore[assignment]

    # One process of a data-parallel run (the launcher says so: a RANK inherited from a job
    # epochcost itself runs in means nothing to a plain run).
    parallel = args.command == "run" and args.data_parallel
    rank, reports = (_rank(), _reports()) if parallel else (0, True)
    cancel = threading.Event()
    if parallel:
        # torchrun's SIGTERM tears a data-parallel run down (another rank failed, or torchrun
        # was stopped): the process ends, and the launcher names the rank that failed first
        # (a user's cancel reaches a node's first process on stdin, the others by agreement).
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    else:
        signal.signal(signal.SIGTERM, lambda *_: cancel.set())
    # SIGINT (Ctrl-C, where the worker shares a terminal's process group) likewise: it stops
    # between steps and reports "cancelled", rather than dying with a traceback. The launcher
    # starts it in a session of its own; there the CLI takes Ctrl-C and cancels it by stdin.
    signal.signal(signal.SIGINT, lambda *_: cancel.set())
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_default_signals)
    if args.control_stdin:
        # A node's first process alone reads the parent's commands; a cancel reaches the
        # others through the run's own agreement between steps (engine/worker/measure/loop.py).
        if reports:
            # The watcher keeps the real stdin to itself; sys.stdin becomes empty. A child
            # forked by multiprocessing (a DataLoader's workers) closes sys.stdin first thing,
            # and would wait forever on the lock this thread's read holds at the fork.
            control, sys.stdin = sys.stdin, io.StringIO("")
            threading.Thread(target=_watch_control, args=(cancel, control), daemon=True).start()
        else:
            threading.Thread(target=_watch_parent, args=(cancel,), daemon=True).start()
    run_id = args.run_id or new_run_id()
    try:
        config = Config.from_dict(json.loads(args.config_json))
    except (ConfigError, json.JSONDecodeError, TypeError) as exc:
        if reports:  # every rank reads the same config
            events.write(Failed(run_id=run_id, kind="config", message=str(exc)).to_json() + "\n")
        return 0
    os.environ.update(config.import_environment())  # before the framework's import
    _end_when_stuck(events, run_id, reports, rank)
    for event in run(config, cancel, run_id=run_id):
        if reports:  # a node's first process reports the run
            events.write(event.to_json() + "\n")
        elif isinstance(event, Failed):  # the others only their failure, for the launcher
            failure = {"rank": rank, "kind": event.kind, "message": event.message}
            sys.stderr.write(RANK_FAILED + json.dumps(failure) + "\n")
    return 0


def _end_when_stuck(events: TextIO, run_id: str, reports: bool, rank: int) -> None:
    """A wait for data that outlived the run's limit where no signal reaches it (tf.data's
    C++ iterator: engine/worker/measure/input_wait.py): the failure is reported as the run's
    end, as if it had been raised, and the process ends."""
    from engine.core.events import RANK_FAILED, Failed
    from engine.worker.measure import input_wait

    def stuck(failure: RunFailed) -> None:
        if reports:
            end = Failed(run_id=run_id, kind=failure.kind, message=failure.message)
            events.write(end.to_json() + "\n")
            events.flush()
        else:
            failed = {"rank": rank, "kind": failure.kind, "message": failure.message}
            sys.stderr.write(RANK_FAILED + json.dumps(failed) + "\n")
        _exit(0)

    input_wait.when_stuck(stuck)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.worker")
    sub = parser.add_subparsers(dest="command", required=True)
    for command, what in (
        ("run", "one timed training run"),
        ("accuracy", "one training-to-accuracy run"),
    ):
        run_p = sub.add_parser(command, help=what)
        run_p.add_argument("--config-json", required=True)
        run_p.add_argument("--run-id")
        run_p.add_argument("--control-stdin", action="store_true")
        if command == "run":  # started by torch.distributed.run (engine/process/distributed.py)
            run_p.add_argument("--data-parallel", action="store_true")
    check_p = sub.add_parser("check-model", help="load a model file and say what it holds")
    check_p.add_argument("--model-file", required=True)
    check_p.add_argument("--framework", choices=("torch", "tensorflow"))
    check_p.add_argument("--batch-size", type=int, default=2)
    build_p = sub.add_parser("describe-build", help="what a framework was built for, as JSON")
    build_p.add_argument("--framework", choices=("torch", "tensorflow"), required=True)
    args = parser.parse_args(argv)
    events = _event_stream()
    try:
        if args.command == "describe-build":
            # Loaded by name, as engine/worker/measure/session.py loads a framework: only this
            # command of the worker imports one for it.
            describe = importlib.import_module("engine.worker.frameworks.describe")
            _emit(events, json.dumps(describe.describe_build(args.framework)))
            code = 0
        elif args.command == "check-model":
            from engine.worker.workloads.model_file_check import check

            check(
                args.model_file, args.framework, args.batch_size, lambda line: _emit(events, line)
            )
            code = 0
        else:
            code = _run(args, events)
    finally:
        events.flush()
    if args.command == "check-model" or _ran_user_code(args):
        # The user's file may have started threads that would keep this process alive: end
        # now that every event is out.
        _exit(code)
    return code


def _emit(events: TextIO, line: str) -> None:
    events.write(line + "\n")


def _ran_user_code(args: argparse.Namespace) -> bool:
    try:
        return bool(json.loads(args.config_json).get("model_file"))
    except (ValueError, AttributeError):
        return False


def entry(argv: list[str] | None = None) -> NoReturn:
    """The worker process's whole life: main(), then exit at once. Every event is out by then;
    tearing the framework down (seconds for torch) would only delay the next trial. Its
    temporary files go into a folder of its own, which _exit removes (engine/worker/
    tempdir.py)."""
    tempdir.own()
    _exit(main(argv))


def _exit(code: int) -> NoReturn:
    """Exit now. With the parent gone, nobody ends the processes the run started (the
    launcher's end_group): the worker ends its own process group, itself included, as it goes."""
    sys.stdout.flush()
    sys.stderr.flush()
    tempdir.remove()
    if _PARENT_GONE.is_set() and hasattr(os, "killpg") and os.getpgrp() == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    os._exit(code)
