"""A mistake in the user's model file as an error that names the file and the line.

Every failure of the file (a syntax error, an exception from build_model or make_batch, an exit)
becomes a ModelFileError: a `config` failure whose message names the file and its deepest line
in the traceback, and whose traceback holds only the frames from the user's file onward.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from engine.core import paths
from engine.core.errors import RunFailed


class ModelFileError(RunFailed):
    """A mistake in the user's model file: a `config` failure naming the file and the line.

    `detail` is the message without the field prefix; `line` is 1-based or None; `code` is
    that line's text; `traceback` holds only the frames from the user's file onward."""

    def __init__(
        self, path: str, detail: str, line: int | None = None, code: str = "", tb: str = ""
    ) -> None:
        where = f"{Path(path).name}, line {line}" if line else Path(path).name
        super().__init__("config", f"model_file: {where}: {detail}")
        self.path = path
        self.detail = f"{where}: {detail}"
        self.line = line
        self.code = code
        self.traceback = tb


def from_exception(path: str, what: str, exc: BaseException) -> ModelFileError:
    """A ModelFileError for an exception raised by (or through) the user's file."""
    if isinstance(exc, SyntaxError) and exc.filename == path:
        code = (exc.text or "").strip()
        return ModelFileError(path, f"{what}: {exc.msg}", exc.lineno, code)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    line = frames[-1].lineno if frames else None
    code = (frames[-1].line or "").strip() if frames else ""
    return ModelFileError(path, f"{what}: {_describe(exc)}", line, code, _user_traceback(exc, path))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return (
            f"the file called sys.exit({exc.code!r}); a model file must not exit the "
            "interpreter (guard script code with `if __name__ == '__main__':`)"
        )
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, ModuleNotFoundError):
        text += f" ({where_to_install()})"
    return text


def where_to_install() -> str:
    """Where a missing package goes: this interpreter, or (the desktop bundle) another one."""
    if paths.frozen():  # the desktop bundle: its Python cannot take packages
        return (
            "not in the app's bundled Python; in File > Settings, run this framework's "
            "workers under a Python that has it"
        )
    return f"not installed for {sys.executable}; install it there"


def _user_traceback(exc: BaseException, path: str) -> str:
    """The traceback from the first frame in the user's file onward (engine frames cut)."""
    te = traceback.TracebackException.from_exception(exc)
    frames = list(te.stack)
    first = next((i for i, f in enumerate(frames) if f.filename == path), 0)
    stack = traceback.StackSummary.from_list(frames[first:])
    return "Traceback (most recent call last):\n" + "".join(
        [*stack.format(), *te.format_exception_only()]
    )
