"""Issue 32: results are read strictly and once. A file with a value no measurement can produce
is refused on import naming the file and the field; a stored row with one (stored by an older
epochcost, or edited) is a damaged row that list names, and list, compare, project and report
go on with the rest. Messages name the thing that is wrong: the file, never an option."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main
from engine.pricing.compare_rows import measured_elsewhere
from engine.results.files import MAX_RESULT_BYTES
from engine.results.listing import DAMAGED
from engine.results.store import Store, _row
from tests.engine.test_store import _result

GOOD = "20261122T030000-00000001"


def _edited(path: str, value: Any, run_id: str = GOOD) -> dict[str, Any]:
    result = _result(run_id)
    *parents, last = path.split(".")
    node = result
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value
    return result


# (path, value, words in the refusal): each was accepted on import before, then shown as
# garbage ("$inf per epoch", "-5 B") or ended show, compare, project or report in an internal
# error (a lone surrogate cannot be printed).
BAD = [
    ("environment.cpu", "\ud800", "'environment.cpu' holds \\ud800"),
    ("environment.hostname", "x\udfffy", "'environment.hostname' holds \\udfff"),
    ("warnings", ["fine", "\ud800"], "'warnings[1]' holds \\ud800"),
    ("epoch_seconds", 1e308, "'epoch_seconds' must be at most 1e+19, not 1e+308"),
    ("epoch_seconds", -500.0, "'epoch_seconds' must be at least 0"),
    ("usd_per_epoch", 1e300, "'usd_per_epoch' must be at most"),
    ("compile_seconds", -1.0, "'compile_seconds' must be at least 0"),
    ("usd_per_epoch", -0.125, "'usd_per_epoch' must be at least 0"),
    ("peak_memory_bytes", -5, "'peak_memory_bytes' must be at least 0"),
    ("memory_total_bytes", 1e300, "'memory_total_bytes' must be at most"),
    ("energy.mean_power_w", -50.0, "'energy.mean_power_w' must be at least 0"),
    ("energy.mean_power_w", 1e9, "'energy.mean_power_w' must be at most"),
    ("energy.energy_j", -1.0, "'energy.energy_j' must be at least 0"),
    ("other_cpu_fraction", 1.5, "'other_cpu_fraction' must be at most 1"),
    ("throughput_samples_per_s", 1e300, "'throughput_samples_per_s' must be at most"),
    ("throughput_samples_per_s", 1e-300, "slower than any window can measure"),
    ("throughput_repeats", [100.0, -3.0], "'throughput_repeats[1]' must be more than 0"),
    ("step_time_s.p10", -0.1, "'step_time_s.p10' must be at least 0"),
    ("price.usd_per_hour", 1e300, "'price.usd_per_hour' must be at most"),
    ("epoch_samples", 10**30, "'epoch_samples' must be at most"),
    ("throughput_ci95", [120.0, 80.0], "'throughput_ci95'"),
]


@pytest.mark.parametrize(
    ("path", "value", "words"), BAD, ids=[f"{p}-{i}" for i, (p, *_) in enumerate(BAD)]
)
def test_an_imported_value_no_measurement_can_have_is_refused_naming_file_and_field(
    tmp_path, capsys, path, value, words
):
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(_edited(path, value)))  # ASCII: a surrogate as \ud800
    assert main(["results", "import", str(file)]) == 2
    err = capsys.readouterr().err
    assert str(file) in err and words in err, err
    assert "internal error" not in err and "error: --" not in err
    assert Store(readonly=True).list().empty


@pytest.mark.parametrize("command", [["compare"], ["project", "--gpu", "all"]])
def test_every_file_reader_refuses_it_the_same_way(tmp_path, capsys, command):
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(_edited("energy.mean_power_w", -50.0)))
    assert main([command[0], str(file), *command[1:]]) == 2
    err = capsys.readouterr().err
    assert f"{file}: field 'energy.mean_power_w' must be at least 0" in err
    assert "--power-w" not in err


def test_a_folder_named_like_an_option_is_named_as_a_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "imp").mkdir()
    for argv in (["results", "import", "imp"], ["compare", "imp"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "./imp: is a folder" in err and "--imp" not in err


def test_a_file_one_byte_over_the_limit_does_not_say_it_is_at_the_limit(tmp_path, capsys):
    file = tmp_path / "big.json"
    with file.open("wb") as f:
        f.truncate(MAX_RESULT_BYTES + 1)
    assert main(["results", "import", str(file)]) == 2
    err = capsys.readouterr().err
    assert f"is {MAX_RESULT_BYTES + 1:,} bytes" in err and f"{MAX_RESULT_BYTES:,} bytes" in err


# a damaged row in the store --------------------------------------------------------------------

DAMAGED_ROWS = {
    "20261122T030000-0000bad0": ("environment.hostname", "\ud800"),
    "20261122T030000-0000bad1": ("epoch_seconds", 1e308),
    "20261122T030000-0000bad2": ("energy.mean_power_w", -50.0),
}


def _store_with_damaged_rows() -> Store:
    """A good CPU result, and GPU results of the same model stored without the checks (as an
    older epochcost stored them): a compare of the good one would read them as measured
    elsewhere."""
    store = Store()
    store.add(_result(GOOD))
    for run_id, (path, value) in DAMAGED_ROWS.items():
        bad = _edited(path, value, run_id)
        bad["environment"].update(device="cuda", device_name="NVIDIA GeForce RTX 4090")
        bad["config"]["device"] = "cuda"
        with store._connect() as db:
            db.execute(f"INSERT INTO results VALUES ({','.join('?' * 14)})", _row(bad, None))
    return store


def test_the_listing_marks_damaged_rows_and_leaves_out_their_figures():
    store = _store_with_damaged_rows()
    listing = store.list()
    damaged = listing[listing.run_id.isin(DAMAGED_ROWS)]
    assert set(damaged.status) == {DAMAGED}
    assert damaged.throughput_samples_per_s.isna().all() and damaged.usd_per_epoch.isna().all()
    assert listing[listing.run_id == GOOD].status.tolist() == ["ok"]
    assert set(store.damaged()) == set(DAMAGED_ROWS)
    assert "'energy.mean_power_w'" in store.damaged()["20261122T030000-0000bad2"]
    assert measured_elsewhere(listing, store.get(GOOD)) == []


def test_a_damaged_row_does_not_break_list_compare_project_or_report(tmp_path, capsys):
    _store_with_damaged_rows()
    assert main(["results", "list"]) == 0
    out, err = capsys.readouterr()
    assert GOOD in out and all(run_id in err for run_id in DAMAGED_ROWS)
    assert "holds \\ud800" in err and "results delete" in err
    assert main(["results", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["run_id"]: r["status"] for r in rows}[GOOD] == "ok"
    assert main(["compare", GOOD]) == 0
    assert "RTX 4090" not in capsys.readouterr().out  # not read as measured there
    assert main(["project", GOOD, "--gpu", "all", "--json"]) == 0
    capsys.readouterr()
    assert main(["report", GOOD, "--out", str(tmp_path / "r.html")]) == 0
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("run_id", sorted(DAMAGED_ROWS))
def test_show_names_the_damaged_row_and_its_field(capsys, run_id):
    _store_with_damaged_rows()
    assert main(["results", "show", run_id]) == 2
    err = capsys.readouterr().err
    field = DAMAGED_ROWS[run_id][0]
    assert f"stored result {run_id} cannot be read" in err and f"'{field}'" in err
