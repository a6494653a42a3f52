"""The `epochcost` command line. Each command lives in its own module engine/cli/cmd_*.py with
`register(subparsers)`; this module finds them, parses, and maps errors to exit codes:
0 ok, 2 bad usage or input, 3 the run failed or the store (a file) cannot be used, 1 a fault of
epochcost's own (one line; EPOCHCOST_TRACEBACK=1 shows the traceback). Standard output passes
through engine.core.text.printable: no control character from a stored or imported text reaches
the terminal raw. A standard stream that is closed (`>&-`, `2>&-`) is the null device: what
cannot be printed is dropped, and a run still completes and is stored. Ctrl-C at any moment,
the imports at start-up included, is one line and exit 130. Each command first removes the
half-made environments an epochcost killed while installing left (engine/envs/leftovers.py),
saying so on stderr."""

from __future__ import annotations

import sys

try:  # Ctrl-C while the command starts (its imports take most of a second): one line, no traceback
    import argparse
    import contextlib
    import importlib
    import io
    import os
    import pkgutil
    import traceback
    from typing import Any

    from engine import __version__
    from engine.cli import streams  # first of the CLI's modules: defaults bound to sys.stderr
    from engine.cli.common import (
        EXIT_INTERRUPTED,
        EXIT_RUN_FAILED,
        EXIT_USAGE,
        UsageError,
        option_name,
    )
    from engine.core.errors import ConfigError, StoreError
    from engine.core.placeholders import worded
    from engine.core.text import printable
    from engine.envs import leftovers
except KeyboardInterrupt:
    sys.stderr.write("epochcost: interrupted\n")
    raise SystemExit(130) from None

EXIT_INTERNAL = 1
EXIT_BROKEN_PIPE = 141  # as a command killed by SIGPIPE (128 + 13)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that help that cannot be written is not ignored (argparse
    swallows the OSError: `epochcost --help > /dev/full` exited 0, the help lost): it is
    raised, and main() says so in one line."""

    def _print_message(self, message: str, file: Any = None) -> None:
        if not message:
            return
        file = file or sys.stderr
        if file is sys.stderr:  # a usage error: its exit code (2) says so where stderr is full
            with contextlib.suppress(OSError):
                file.write(message)
            return
        file.write(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    try:
        streams.open_closed()
        parser = build_parser()  # imports every command's module: most of a second
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("epochcost: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # --help, --version or a usage error: argparse printed and exits
        _flush_or_fail(exc)
        raise
    except OSError as exc:  # the help or the usage could not be written (_Parser)
        return _unwritten(exc)
    stdout = sys.stdout
    sys.stdout = _Printable(stdout)
    try:
        for line in leftovers.clear():  # what an epochcost killed while it installed left
            print(f"epochcost: {printable(line)}", file=sys.stderr)
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is met inside the handlers below
        return code
    except (ConfigError, UsageError) as exc:
        field = getattr(exc, "field", None)
        where = option_name(field) if field else ""
        _error(f"{where + ': ' if where else ''}{worded(exc.message, option_name)}")
        return EXIT_USAGE
    except StoreError as exc:
        _error(str(exc))
        return EXIT_RUN_FAILED
    except KeyboardInterrupt:
        print("epochcost: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`epochcost results list | head -1`): nothing more to say, and
        # nothing to flush at exit into a closed pipe.
        _silence(stdout)
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _error(f"{where}{exc.strerror or exc}")
        return EXIT_RUN_FAILED
    except Exception as exc:  # noqa: BLE001 - a fault of ours: one line, not a traceback
        if os.environ.get("EPOCHCOST_TRACEBACK"):
            traceback.print_exc()
        _error(
            f"internal error ({type(exc).__name__}: {exc}); please report it with the command "
            "(EPOCHCOST_TRACEBACK=1 shows where)"
        )
        return EXIT_INTERNAL
    finally:
        sys.stdout = stdout


def _flush_or_fail(exc: SystemExit) -> None:
    """What argparse printed, flushed now, so that a failure is met here and not at exit."""
    try:
        sys.stdout.flush()
    except OSError as err:
        code = _unwritten(err)
        if exc.code in (0, None):
            exc.code = code


def _unwritten(exc: OSError) -> int:
    """The exit code, and one line, for help or usage that could not be written: a closed pipe
    stays quiet (`epochcost --help | head -1`); a full disk is not a success (exit 3, not exit
    0 with the help lost)."""
    _silence(sys.stdout)  # so that the flush at exit finds nothing left to fail on
    if isinstance(exc, BrokenPipeError):
        return EXIT_BROKEN_PIPE
    with contextlib.suppress(OSError):  # stderr may be the full one
        _error(f"the output cannot be written ({exc.strerror or exc})")
    return EXIT_RUN_FAILED


def _error(message: str) -> None:
    print(f"epochcost: error: {printable(message)}", file=sys.stderr)


def _silence(stream: Any) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


class _Printable(io.TextIOBase):
    """Standard output with control characters escaped (tab and newline kept)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(self._stream.isatty())

    def fileno(self) -> int:
        return int(self._stream.fileno())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self._stream, "encoding", "utf-8"))


if __name__ == "__main__":
    sys.exit(main())
