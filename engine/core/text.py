"""Text from outside (an imported result, a model file's name, a catalog cell) made safe to
print: control characters (a terminal's escape sequences among them) shown as \\xNN escapes."""

from __future__ import annotations

_ESCAPES = {
    c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if c not in (0x09, 0x0A)
}


def printable(text: str) -> str:
    """`text` with every control character but tab and newline escaped."""
    return text.translate(_ESCAPES)
