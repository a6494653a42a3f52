"""Which of the selected results the Compare tab prices: the first that finished with a
throughput. A failed, cancelled or out-of-memory run is never the one priced: when the selection
holds only such runs (a cloud launch that failed lands in Past runs selected), the result priced
before stays, and a sentence says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def priceable(result: dict[str, Any] | None) -> bool:
    """A finished run with a throughput: something to price."""
    return (
        result is not None
        and result.get("status") == "ok"
        and bool(result.get("throughput_samples_per_s"))
    )


@dataclass(frozen=True)
class Choice:
    """The result to compare (None: nothing to compare) and a sentence for the message bar
    (empty: nothing to say)."""

    result: dict[str, Any] | None
    message: str = ""


def choose(selected: list[dict[str, Any]], current: dict[str, Any] | None) -> Choice:
    """The result Compare prices for a selection (in table order), given the one it prices now."""
    if not selected:
        return Choice(None)
    ok = [r for r in selected if priceable(r)]
    if ok:
        left = len(selected) - 1
        more = f"{len(selected)} results selected: comparing {ok[0]['run_id']}." if left else ""
        return Choice(ok[0], more)
    ended = _ended(selected)
    if priceable(current) and current is not None:
        return Choice(
            current,
            f"{ended}: it has no throughput to price, so Compare still prices "
            f"{current['run_id']}. Select a run that finished to compare another.",
        )
    return Choice(selected[0])  # the page says the run has nothing to price


def _ended(selected: list[dict[str, Any]]) -> str:
    first = selected[0]
    more = f" (and {len(selected) - 1} more that did not finish)" if len(selected) > 1 else ""
    return f"Run {first.get('run_id')} ended {first.get('status')}{more}"
