"""Standard streams for a command started with one closed (`>&-`, `2>&-`, `<&-`).

Such a stream becomes the null device, done when the CLI is first imported (before any module
binds sys.stderr as a default, as the progress display does) and again by main(): what cannot
be printed is dropped, a run still completes and is stored, and no file the command opens (a
result, the store) takes descriptor 0, 1 or 2 to receive what is printed.
"""

from __future__ import annotations

import os
import sys

_STREAMS = ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w"))


def open_closed() -> None:
    """Descriptors 0-2 that are closed become the null device, with sys streams on them."""
    for fd, name, mode in _STREAMS:
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        if getattr(sys, name) is None:
            # Kept open for the life of the process, as the interpreter's own streams are.
            setattr(sys, name, open(fd, mode, encoding="utf-8", closefd=False))  # noqa: SIM115


open_closed()
