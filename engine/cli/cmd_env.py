"""epochcost env create|list|remove: the framework environments the worker runs in, made for
this machine's GPU and driver (engine/envs/: which build, from where, and why).

    epochcost env create --framework torch [--device auto|cpu] [--name N] [--python PY]
    epochcost env create --cloud [--python PY] [--installer uv|pip]
    epochcost env list [--json]
    epochcost env remove NAME
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict

from engine.cli import interrupts
from engine.cli.common import EXIT_INTERRUPTED, EXIT_RUN_FAILED, UsageError
from engine.cli.output import print_json
from engine.envs import cloud_env, installed
from engine.envs.choice import choose
from engine.envs.create import check_name, create, own_envs_home
from engine.envs.installer import Cancelled, InstallFailed, Progress
from engine.envs.machine import read_machine

PROGRESS_EVERY_S = 2.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("env", help="framework environments for the worker, made for this GPU")
    ps = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = ps.add_parser(
        "create",
        help="make an environment with the framework build this machine's GPU needs",
        description="Reads the GPU and driver (NVML, nvidia-smi, /proc), picks the build, makes "
        "a virtual environment under the data folder with uv or pip, installs the worker side "
        "and registers it for that framework's runs.",
    )
    what = make.add_mutually_exclusive_group(required=True)
    what.add_argument("--framework", choices=("torch", "tensorflow"))
    what.add_argument(
        "--cloud",
        action="store_true",
        help=f"the cloud environment: {cloud_env.SKYPILOT} in its own environment (cloud runs)",
    )
    make.add_argument("--device", choices=("auto", "cpu"), default="auto", help="cpu: CPU build")
    make.add_argument("--name", default=None, help="default: torch-cu126, torch-cpu, ...")
    make.add_argument("--python", default=None, help="the Python to base it on")
    make.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    make.add_argument("--dry-run", action="store_true", help="say what it would install")
    make.add_argument("--json", action="store_true", help="machine-readable output")
    make.set_defaults(handler=_create)
    ls = ps.add_parser("list", help="the environments made, and which runs use them")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)
    rm = ps.add_parser("remove", help="remove an environment (its runs go back to the app's own)")
    rm.add_argument("name")
    rm.set_defaults(handler=_remove)


def _create(args: argparse.Namespace) -> int:
    if args.cloud:
        return _create_cloud(args)
    machine = read_machine()
    choice = choose(args.framework, machine, args.device)
    name = check_name(args.name, choice)  # the same check as the install's, dry run or not
    if args.dry_run:
        folder = own_envs_home() / name
        if args.json:
            print_json(
                {
                    "machine": machine.source,
                    "driver": machine.driver,
                    "choice": asdict(choice),
                    "name": name,
                    "folder": str(folder),
                }
            )
        else:
            print(f"would install {choice.describe()} into {folder}")
            if choice.fallback is not None and choice.index_url:
                print(f"  where that index cannot be reached: {choice.fallback.describe()}")
        return 0
    print(f"installing {choice.describe()}", file=sys.stderr)
    cancel = threading.Event()
    progress = _progress_printer()

    def say(text: str) -> None:
        print(f"  {text}", file=sys.stderr)

    try:
        with interrupts.as_interrupt():
            made = create(
                choice,
                name,
                python=args.python,
                installer=args.installer,
                progress=progress,
                say=say,
                cancel=cancel,
            )
    except (KeyboardInterrupt, Cancelled) as exc:
        cancel.set()
        return _cancelled(exc)
    except InstallFailed as exc:
        print(
            f"epochcost: error: env create failed; nothing was left behind: {exc}", file=sys.stderr
        )
        return EXIT_RUN_FAILED
    if args.json:
        print_json(
            {
                "name": made.name,
                "python": str(made.python),
                "choice": asdict(made.choice),
                "installer": made.installer,
                "check": made.message,
                "kept": made.kept,
            }
        )
    else:
        verb = "kept" if made.kept else f"made with {made.installer}"
        print(f"{made.name}: {made.choice.label}, {verb} ({made.message})")
        print(f"{made.choice.framework} runs now use {made.python}")
    return 0


def _cancelled(exc: BaseException) -> int:
    """The line and exit code of a create stopped by Ctrl-C, a cancel or a signal."""
    if isinstance(exc, interrupts.Stopped) and exc.signum != signal.SIGINT:
        print(
            f"epochcost: env create stopped by {exc.name}; nothing was left behind", file=sys.stderr
        )
        return interrupts.exit_code(exc)
    print("epochcost: env create cancelled; nothing was left behind", file=sys.stderr)
    return EXIT_INTERRUPTED


def _progress_printer() -> Callable[[Progress], None]:
    """What an installer has done, on stderr, at most every PROGRESS_EVERY_S."""
    shown = [0.0]

    def progress(done: Progress) -> None:
        now = time.monotonic()
        if now - shown[0] >= PROGRESS_EVERY_S:
            shown[0] = now
            mb = done.downloaded_bytes / 1e6
            print(f"  {done.packages} packages, {mb:,.0f} MB downloaded", file=sys.stderr)

    return progress


def _create_cloud(args: argparse.Namespace) -> int:
    """SkyPilot in the cloud environment (engine/envs/cloud_env.py)."""
    if args.name is not None or args.device != "auto":
        raise UsageError("cloud", "--cloud takes no --name or --device (it is one environment)")
    wanted = cloud_env.requirement()
    if args.dry_run:
        if args.json:
            print_json({"requirement": wanted, "folder": str(cloud_env.target())})
        else:
            print(f"would install {wanted} into {cloud_env.target()}")
        return 0
    print(f"installing {wanted} into {cloud_env.target()}", file=sys.stderr)
    progress = _progress_printer()

    cancel = threading.Event()
    try:
        with interrupts.as_interrupt():
            python, line, kept = cloud_env.create(
                python=args.python, installer=args.installer, progress=progress, cancel=cancel
            )
    except (KeyboardInterrupt, Cancelled) as exc:
        cancel.set()
        return _cancelled(exc)
    except InstallFailed as exc:
        print(
            f"epochcost: error: env create failed; nothing was left behind: {exc}", file=sys.stderr
        )
        return EXIT_RUN_FAILED
    if args.json:
        print_json({"python": str(python), "check": line, "kept": kept})
    else:
        print(f"cloud: {line}, {'kept' if kept else 'made'} ({python})")
    return 0


def _list(args: argparse.Namespace) -> int:
    envs = installed.installed()
    if args.json:
        print_json([e.to_dict() for e in envs])
        return 0
    if not envs:
        print("no environments made (epochcost env create --framework torch)")
    for env in envs:
        if not env.ours:
            print(f"{env.name}: not made by epochcost env create (left as it is)")
            continue
        state = "in use" if env.used else ("half-made" if not env.whole else "not in use")
        print(f"{env.name}: {env.label} ({state}; made {env.created_at or 'at an unknown time'})")
        print(f"  {env.python}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    env = installed.remove(args.name)
    print(f"removed {env.name} ({env.label}); {env.path} is gone")
    return 0
