"""Text from outside (an imported result, a model file's name, a catalog cell) made safe to
print: control characters (a terminal's escape sequences among them) shown as \\xNN escapes;
and a duration in words, as every view says one."""

from __future__ import annotations

_ESCAPES = {
    c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if c not in (0x09, 0x0A)
}


def printable(text: str) -> str:
    """`text` with every control character but tab and newline escaped."""
    return text.translate(_ESCAPES)


def duration(seconds: float | None) -> str:
    """3 h 02 min, 11 min 42 s, 8.4 s, 2.5 days ("n/a" for None)."""
    if seconds is None:
        return "n/a"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, s = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {s:02d} s"
    hours, m = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {m:02d} min"
    return f"{hours / 24:.1f} days"
