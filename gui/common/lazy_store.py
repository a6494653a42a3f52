"""The results store, opened on first use.

engine.results.store imports pandas (half a second or more on a laptop), which the window does not
need before it is on screen; the results table loads right after the window shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.results.store import Store


def open_store() -> Store:
    """The same store as the CLI's (EPOCHCOST_HOME honoured)."""
    from engine.results.store import Store

    return Store()
