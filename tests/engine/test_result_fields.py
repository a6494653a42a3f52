"""Every figure a result holds has a type and a bound no measurement passes, an integer of any
length included; the listing shows the validated body's figures, never a column edited beside
it; a row that cannot be read is listed as DAMAGED and the rest stay usable; an empty run id
names no result."""

from __future__ import annotations

import json
import sqlite3

import pytest

from engine.cli import main
from engine.core.errors import ConfigError
from engine.results.listing import DAMAGED
from engine.results.schema import validate
from engine.results.store import Store, _row
from tests.engine.test_result_reading import GOOD, _edited
from tests.engine.test_store import _result

OTHER = "20261122T030000-00000002"
BIG = "1" + "0" * 399  # a 400-digit integer: no float holds it


def _import(tmp_path, capsys, text: str) -> tuple[int, str]:
    file = tmp_path / "edited.json"
    file.write_text(text)
    rc = main(["results", "import", str(file)])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    return rc, err


# A: integers of any length ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("flops.per_step", "flops.per_step"),
        ("memory_fill", "memory_fill"),
        ("environment.ram_bytes", "environment.ram_bytes"),
        ("epoch_samples", "epoch_samples"),
        ("unread_extra", "unread_extra"),
    ],
)
def test_an_integer_no_float_holds_is_refused_on_import(tmp_path, capsys, path, words):
    result = _edited(path, "@big@") | {"flops": {"per_sample": 1.0, "achieved_tflops": 0.1}}
    if path.startswith("flops."):
        result["flops"]["per_step"] = "@big@"
    text = json.dumps(result).replace('"@big@"', BIG)
    rc, err = _import(tmp_path, capsys, text)
    assert rc == 2 and "edited.json" in err
    assert words in err or "larger than any" in err, err
    assert Store(readonly=True).list().empty


@pytest.mark.parametrize(
    ("path", "value", "words"),
    [
        ("environment.ram_bytes", 2**62 * 1.0 * 16, "'environment.ram_bytes' must be at most"),
        ("environment.ram_bytes", 10**19, "'environment.ram_bytes' is 100000000000"),
        ("unread_extra", 10**19, "'unread_extra' is 10000000000"),
        ("unread_extra", [1, -(10**19)], "'unread_extra[1]' is -1000000000"),
        ("flops", {"per_sample": 1e300, "achieved_tflops": 1.0}, "'flops.per_sample' must be"),
        ("flops", {"per_sample": 10**19, "achieved_tflops": 1.0}, "'flops.per_sample' is 1000"),
        ("energy.joules_per_sample", 1e300, "'energy.joules_per_sample' must be at most"),
        ("energy.mean_utilization_percent", 101.0, "'energy.mean_utilization_percent'"),
        ("throughput_repeats", [100.0, 1e300], "'throughput_repeats[1]' must be at most"),
        ("throughput_ci95", [90.0, 1e300], "'throughput_ci95[1]' must be at most"),
        ("usd_per_epoch_ci95", [0.0, 1e300], "'usd_per_epoch_ci95[1]' must be at most"),
        ("throughput_spread", 1e300, "'throughput_spread' must be at most"),
        ("input_wait_repeats", ["x"], "'input_wait_repeats[0]' must be a number"),
        ("cloud", {"startup_minutes": "ten"}, "'cloud.startup_minutes' must be a number"),
        ("environment.framework_import_seconds", 1e300, "'environment.framework_import"),
    ],
)
def test_every_figure_has_a_bound(tmp_path, capsys, path, value, words):
    rc, err = _import(tmp_path, capsys, json.dumps(_edited(path, value)))
    assert rc == 2 and words in err, err


def test_a_stored_row_holding_a_huge_integer_is_damaged_and_the_rest_usable(tmp_path, capsys):
    store = Store()
    store.add(_result(GOOD))
    bad = _result(OTHER)
    row = list(_row(bad, None))
    row[-1] = row[-1].replace('"steps_measured": 20', f'"steps_measured": {BIG}')
    assert BIG in row[-1]
    with store._connect() as db:
        db.execute(f"INSERT INTO results VALUES ({','.join('?' * 14)})", row)
    listing = store.list()
    assert dict(zip(listing.run_id, listing.status, strict=True)) == {GOOD: "ok", OTHER: DAMAGED}
    assert OTHER in store.damaged()
    assert main(["results", "list"]) == 0
    out, err = capsys.readouterr()
    assert GOOD in out and OTHER in out and f"stored result {OTHER} cannot be read" in err
    for argv in (
        ["compare", GOOD],
        ["project", GOOD, "--gpu", "all", "--json"],
        ["report", GOOD, "--out", str(tmp_path / "r.html")],
        ["results", "show", GOOD],
    ):
        assert main(argv) == 0, argv
        assert "internal error" not in capsys.readouterr().err
    assert main(["results", "show", OTHER]) == 2
    err = capsys.readouterr().err
    assert f"stored result {OTHER} cannot be read" in err and "internal error" not in err
    assert main(["results", "delete", OTHER]) == 0
    assert capsys.readouterr().out.strip() == f"deleted {OTHER}"


# B: fields with a type, a bound and a meaning ----------------------------------------------------

_FLOPS = {"per_sample": 1e9, "achieved_tflops": 2.0}

BAD = [
    ("data", [1], "'data' must be an object"),
    ("data", "x", "'data' must be an object"),
    ("data", {"kind": 5}, "'data.kind' must be text"),
    ("data", {"kind": "imagefolder", "samples": "many"}, "'data.samples' must be a whole"),
    ("flops", _FLOPS | {"mfu": 0.5, "peak_tflops": None}, "'flops.mfu' is given without"),
    ("flops", _FLOPS | {"mfu": 50.0, "peak_tflops": 10.0}, "'flops.mfu' must be at most"),
    ("flops", _FLOPS | {"peak_tflops": 0}, "'flops.peak_tflops' must be more than 0"),
    ("flops", {"per_sample": 1e9, "achieved_tflops": 1e308}, "'flops.achieved_tflops' must be"),
    ("memory_fill", 10, "'memory_fill' must be at most 1"),
    ("memory_fill", 1e308, "'memory_fill' must be at most 1"),
    ("memory_fill", 0.5, "'memory_fill' is 0.5, but peak_memory_bytes / memory_total_bytes"),
    ("memory_total_bytes", 0, "'memory_total_bytes' must be more than 0"),
    ("status", "failed", "'error' is missing: a result with status 'failed'"),
]


@pytest.mark.parametrize(
    ("path", "value", "words"), BAD, ids=[f"{p}-{i}" for i, (p, *_) in enumerate(BAD)]
)
def test_a_field_no_measurement_can_hold_is_refused_naming_it(tmp_path, capsys, path, value, words):
    rc, err = _import(tmp_path, capsys, json.dumps(_edited(path, value)))
    assert rc == 2 and "edited.json" in err and words in err, err


def test_a_failed_run_says_why():
    failed = _edited("status", "failed") | {"error": {"kind": "x", "message": "  "}}
    with pytest.raises(ConfigError, match="'error.message' is empty: say why the run ended"):
        validate(failed)
    failed["error"]["message"] = "RuntimeError: boom"
    assert validate(failed)["status"] == "failed"


def test_a_result_with_every_section_passes_and_shows(tmp_path, capsys):
    result = _result(GOOD) | {
        "flops": _FLOPS | {"per_step": 1.6e10, "mfu": 0.2, "peak_tflops": 10.0},
        "data": {
            "kind": "imagefolder",
            "source": "/d",
            "samples": 10,
            "loader_workers": "AUTOTUNE",
        },
        "cloud": {"cloud": "aws", "instance_type": "g5.xlarge", "nodes": 1, "startup_usd": 0.1},
        "input_wait_repeats": [0.1, None],
    }
    result["environment"] |= {"ram_bytes": 25276502016, "framework_import_seconds": 2.4}
    rc, err = _import(tmp_path, capsys, json.dumps(result))
    assert rc == 0, err
    assert main(["results", "show", GOOD]) == 0
    out = capsys.readouterr().out
    assert "MFU 20.0% of 10" in out and "(10.0%," in out


# C: the listing's figures are the body's ---------------------------------------------------------


def test_the_listing_shows_the_body_not_an_edited_column(capsys):
    store = Store()
    store.add(_result(GOOD))
    db = sqlite3.connect(store.path)
    db.execute(
        "UPDATE results SET throughput_samples_per_s=-5, memory_fill=1e308, usd_per_epoch=-1,"
        " batch_size=-7, model='evil', status='ok'"
    )
    db.commit()
    db.close()
    row = store.list().iloc[0]
    assert (row.throughput_samples_per_s, row.memory_fill, row.batch_size) == (100.0, 0.1, 16)
    assert row.model == "tiny-mlp" and row.usd_per_epoch > 0
    assert main(["results", "list"]) == 0
    out = capsys.readouterr().out
    assert "100.0" in out and "10%" in out and " 16 " in out
    assert "-5.0" not in out and "inf" not in out and "$-" not in out and "evil" not in out


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("UPDATE results SET batch_size=x'00ff', throughput_samples_per_s=x'01'", None),
        ("UPDATE results SET group_id=x'00ff'", "its group_id column holds"),
        (f"UPDATE results SET run_id='{OTHER}'", "holds run id"),
        ("UPDATE results SET body=x'00ff'", "its stored JSON"),
        ("UPDATE results SET body=5", "is not a JSON object"),
    ],
)
def test_a_column_that_disagrees_never_breaks_the_listing(capsys, sql, words):
    store = Store()
    store.add(_result(GOOD))
    db = sqlite3.connect(store.path)
    db.execute(sql)
    db.commit()
    db.close()
    assert main(["results", "list"]) == 0
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    assert main(["results", "list", "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    if words is None:
        assert listed["batch_size"] == 16 and listed["throughput_samples_per_s"] == 100.0
    else:
        assert listed["status"] == DAMAGED and listed["throughput_samples_per_s"] is None
        assert words in err and words in next(iter(store.damaged().values()))


# D: an empty id names no result ------------------------------------------------------------------


@pytest.mark.parametrize("action", ["delete", "show", "export"])
@pytest.mark.parametrize("run_id", ["", "  "])
def test_an_empty_id_is_refused(tmp_path, capsys, action, run_id):
    Store().add(_result(GOOD))
    extra = ["--out", str(tmp_path / "x.json")] if action == "export" else []
    assert main(["results", action, run_id, *extra]) == 2
    err = capsys.readouterr().err
    assert "give a run id or the start of one" in err and "results list" in err, err
    assert Store(readonly=True).list().run_id.tolist() == [GOOD]


def test_delete_by_prefix_says_the_full_id(capsys):
    Store().add(_result(GOOD))
    assert main(["results", "delete", "2026"]) == 0
    assert capsys.readouterr().out.strip() == f"deleted {GOOD}"
    assert Store(readonly=True).list().empty
