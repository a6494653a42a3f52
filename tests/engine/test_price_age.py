"""A price older than 30 days says so wherever it is shown (issue 27): the catalog's note, the
date as tables and the report print it, and a comparison row of a stale instance."""

from __future__ import annotations

import dataclasses
import datetime as dt

from engine.pricing import catalog
from engine.pricing.catalog import dated, stale_note

TODAY = dt.date(2026, 11, 26)


def _instance(price_date: str, historical: bool = False):
    row = next(i for i in catalog.load().instances if not i.historical)
    return dataclasses.replace(row, price_date=price_date, historical=historical)


def test_a_price_older_than_30_days_says_its_age():
    assert stale_note(_instance("2026-10-01"), TODAY) == "56 days old"
    assert dated("2026-10-01", TODAY) == "2026-10-01, 56 days old"


def test_a_fresh_undated_or_historical_price_says_nothing_more():
    assert stale_note(_instance("2026-11-01"), TODAY) == ""
    assert dated("2026-11-01", TODAY) == "2026-11-01"
    # An undated price's own text says so ("undated; inferred >=2025-06").
    assert stale_note(_instance("undated; inferred >=2025-06"), TODAY) == ""
    assert dated("undated; inferred >=2025-06", TODAY) == "undated; inferred >=2025-06"
    # A historical row is history, not a price of today.
    assert stale_note(_instance("2019-01-01", historical=True), TODAY) == ""
