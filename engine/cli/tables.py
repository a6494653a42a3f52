"""Plain-text tables and numbered source notes for the catalog and compare commands."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int] = ()
) -> str:
    """Columns padded to their widest cell; the columns whose index is in `right` align right."""
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), *(line(r) for r in rows)])


class Footnotes:
    """Numbers each distinct source text once: [1], [2], ... and lists them at the end."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}

    def mark(self, text: str) -> str:
        if not text:
            return ""
        if text not in self._index:
            self._index[text] = len(self._index) + 1
        return f"[{self._index[text]}]"

    def lines(self) -> list[str]:
        return [f"[{n}] {text}" for text, n in self._index.items()]


def number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def usd(value: float | None) -> str:
    """Dollars with enough digits to tell cheap epochs apart."""
    if value is None:
        return "-"
    if value < 0.01:
        return f"{value:.5f}"
    if value < 100:
        return f"{value:.4f}"
    return f"{value:,.2f}"
