"""File names a command writes to (--out), read as the user typed them.

argparse's `type=Path` drops a trailing separator, so `--out r.json/` (a folder the user meant,
or a slip) would write, and replace, the file r.json. Every --out option is declared with
`type=out_file` instead: a name that ends in a separator, or an empty one, is refused while
the arguments are read (argparse exits 2, nothing is written):

    argument --out: out/ ends in '/', which names a folder: give a file name, e.g. out/result.json

What the name then points at (a folder, the results store, a missing folder) is checked by
engine.results.files.check_out_path, which every such command calls before it runs.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

_SEPARATORS = tuple({os.sep, os.altsep or os.sep})


def out_file(text: str) -> Path:
    """The file `text` names; ArgumentTypeError for an empty name or one that ends in a
    separator (or in /. or /..), which names a folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a file name, e.g. result.json")
    last = text.rstrip("".join(_SEPARATORS))
    base = os.path.basename(last)
    if last != text or base in (".", ".."):
        tail = text[len(last) :] if last != text else text[len(os.path.dirname(text)) :]
        example = os.path.join(os.path.normpath(text), "result.json")
        raise argparse.ArgumentTypeError(
            f"{text} ends in {tail!r}, which names a folder: give a file name, e.g. {example}"
        )
    return Path(text)
