"""The `epochcost` command line. Each command lives in its own module engine/cli/cmd_*.py with
`register(subparsers)`; this module finds them, parses, and maps errors to exit codes:
0 ok, 2 bad usage or input, 3 the run failed."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from engine import __version__
from engine.cli.common import EXIT_USAGE, UsageError, option_name
from engine.core.errors import ConfigError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="epochcost",
        description="Measure what training a model costs on this machine, and elsewhere.",
    )
    parser.add_argument("--version", action="version", version=f"epochcost {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    package = importlib.import_module("engine.cli")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"engine.cli.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (ConfigError, UsageError) as exc:
        field = getattr(exc, "field", None)
        where = option_name(field) if field else ""
        message = getattr(exc, "message", str(exc))
        print(f"epochcost: error: {where + ': ' if where else ''}{message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("epochcost: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
