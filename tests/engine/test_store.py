import json
import sqlite3

import pytest

from engine.core.errors import ConfigError, StoreError
from engine.measure.result import SCHEMA
from engine.results.files import write_json
from engine.results.store import SCHEMA_VERSION, Store


def _result(run_id: str, tput: float = 100.0) -> dict:
    """A result as the worker writes one: its epoch time and cost follow from `tput`."""
    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "created_at": "2026-11-22T03:00:00+00:00",
        "status": "ok",
        "error": None,
        "config": {
            "model": "tiny-mlp",
            "framework": "torch",
            "batch_size": 16,
            "device": "cpu",
            "precision": "fp32",
        },
        "environment": {"device": "cpu"},
        "throughput_samples_per_s": tput,
        "epoch_samples": 50_000,
        "step_time_s": {"median": 0.1, "p10": 0.09, "p90": 0.11},
        "steps_measured": 20,
        "stop_reason": "stable",
        "epoch_seconds": 50_000 / tput,
        "peak_memory_bytes": 10,
        "memory_total_bytes": 100,
        "memory_fill": 0.1,
        "price": {"usd_per_hour": 0.9, "source": "user", "as_of": "2026-11-22"},
        "usd_per_epoch": 50_000 / tput * 0.9 / 3600,
    }


def test_store_is_wal_and_versioned(epochcost_home):
    store = Store()
    store.add(_result("20261122T030000-aaaa0001"))
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert store.path.parent == epochcost_home


def test_lookup_by_prefix_and_ambiguity():
    store = Store()
    store.add(_result("20261122T030000-aaaa0001"))
    store.add(_result("20261122T030000-aaaa0002", 200.0))
    assert store.get("20261122T030000-aaaa0002")["throughput_samples_per_s"] == 200.0
    with pytest.raises(ConfigError, match="several"):
        store.get("20261122T030000-aaaa")
    with pytest.raises(ConfigError, match="no result"):
        store.get("2027")
    # LIKE wildcards in an id are literal, not patterns
    with pytest.raises(ConfigError, match="no result"):
        store.get("%")


def test_a_newer_schema_is_refused_without_touching_it(tmp_path):
    path = tmp_path / "r.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer epochcost"):
        Store(path)
    with pytest.raises(StoreError, match="newer epochcost"):
        Store(path, readonly=True)


def test_invalid_results_are_not_stored():
    store = Store()
    bad = _result("x")
    bad["throughput_samples_per_s"] = "fast"
    with pytest.raises(ConfigError, match="throughput_samples_per_s"):
        store.add(bad)
    assert store.list().empty


def test_list_is_newest_first_with_listing_columns(tmp_path):
    store = Store()
    old, new = _result("20261121T000000-a"), _result("20261122T000000-b")
    new["created_at"] = "2026-11-23T00:00:00+00:00"
    store.add(old)
    store.add(new)
    frame = store.list()
    assert list(frame["run_id"]) == ["20261122T000000-b", "20261121T000000-a"]
    assert frame.loc[0, "usd_per_epoch"] == 0.125
    out = write_json(tmp_path / "a.json", store.get("20261121T000000-a"))
    assert json.loads(out.read_text())["run_id"] == "20261121T000000-a"
