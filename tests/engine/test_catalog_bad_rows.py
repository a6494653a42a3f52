"""Rows the csv module cannot read (a cell over its field limit, a NUL byte, a quote never
closed) are bad rows like any other: reported with their file and line, skipped, the rest of the
file loaded, in the shipped catalogs, the user's own files and the plan presets; no command fails
on one."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from engine.cli import main
from engine.core import paths
from engine.core.errors import ConfigError
from engine.plan import presets as plan_presets
from engine.pricing import catalog
from engine.pricing import user_rows as catalog_user
from engine.pricing.csv_records import records
from tests.engine.helpers import TINY_ARGS, cli

# The shipped GPU catalog's rows (assets/gpus.csv), however many the data holds.
SHIPPED_GPUS = len(catalog.load().gpus)

HUGE = "x" * (csv.field_size_limit() + 10)
SKIPPED = "row skipped"


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of assets/ the app reads as its shipped data (EPOCHCOST_ASSETS)."""
    folder = tmp_path / "assets"
    shutil.copytree(paths.assets(), folder)
    monkeypatch.setenv(paths.ASSETS_ENV, str(folder))
    return folder


def _append(path: Path, *rows: str) -> int:
    """Append rows to a CSV file; the line number of the first one."""
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + "".join(rows), encoding="utf-8")
    return text.count("\n") + 1


def _spoil_shipped(folder: Path) -> dict[str, int]:
    """An oversized cell in gpus.csv, a NUL byte in grid.csv and runs.csv; where they are."""
    return {
        "gpus.csv": _append(folder / "gpus.csv", f"Huge GPU,,NVIDIA,,,,,,,,,,,,,,,{HUGE}\n"),
        "grid.csv": _append(folder / "grid.csv", "aws,nul-1,N\0L,,,,,100,,,,,,,,,\n"),
        "runs.csv": _append(folder / "plan" / "runs.csv", "sharir-2020,nul,1\0,1.0,x\n"),
    }


TRICKY = [
    'a,"b""c",d\n',  # a doubled quote
    '"x"y,z\n',  # text after a quoted part
    '"two\nlines",q\n"three\n\nlines"\n',  # quoted cells over lines, one with a blank line
    'a,b"c,"d\n\n",e\n',  # a quote inside an unquoted cell is text
    '""\n\n,\n',  # an empty quoted cell, a blank line, two empty cells
    "no,newline,at,the,end",
]


@pytest.mark.parametrize(
    "text",
    [*TRICKY, *(p.read_text(encoding="utf-8-sig") for p in sorted(paths.assets().rglob("*.csv")))],
)
def test_rows_are_split_as_the_csv_module_reads_them(text):
    expected = []
    reader = csv.reader(io.StringIO(text))
    line = 1
    for cells in reader:
        expected.append((line, cells))
        line = reader.line_num + 1
    found = records(text)
    assert [(r.line, r.cells) for r in found] == expected
    assert "".join(r.text for r in found) == text  # nothing left out


def test_user_rows_csv_cannot_read_are_reported_and_the_rest_loads():
    path = catalog.user_dir() / "instances.csv"
    path.write_text(
        "cloud,instance_type,gpu_model,gpu_spec,usd_per_hour,notes\n"  # 1
        "home,first,T4,Tesla T4,0.40,\n"  # 2 ok
        f"home,huge,T4,Tesla T4,0.40,{HUGE}\n"  # 3 a cell over the limit
        "home,nul,T4,Tesla T4,0.4\0,\n"  # 4 a NUL byte
        'home,two-lines,T4,Tesla T4,0.40,"a note\nover two lines"\n'  # 5-6 ok
        f'home,huge-quoted,T4,Tesla T4,0.40,"{HUGE}\nand more"\n'  # 7-8 over the limit
        'home,floppy,T4,Tesla T4,0.40,say 5" floppy\n'  # 9 ok (a quote inside a cell)
        'home,open-quote,T4,Tesla T4,0.40,"never closed\n'  # 10 a quote never closed
        "home,last,T4,Tesla T4,0.40,\n",  # 11 ok
        encoding="utf-8",
    )
    cat = catalog.load()
    problems = {p.line: p.message for p in cat.problems}
    assert set(problems) == {3, 4, 7, 10}
    assert all(p.path == str(path) for p in cat.problems)
    assert all(m.endswith(SKIPPED) for m in problems.values())
    assert str(csv.field_size_limit()) in problems[3] and str(csv.field_size_limit()) in problems[7]
    assert "NUL" in problems[4] and "quote" in problems[10]
    mine = {i.instance_type: i for i in cat.instances if i.origin == "user"}
    assert set(mine) == {"first", "two-lines", "floppy", "last"}
    assert mine["two-lines"].notes == "a note\nover two lines"
    assert mine["floppy"].notes == 'say 5" floppy'
    assert len(cat.instances) == 158 + 4


def test_a_header_csv_cannot_read_skips_the_file_with_one_problem():
    (catalog.user_dir() / "gpus.csv").write_text(f"name,notes{HUGE}\nmine,\n", encoding="utf-8")
    (catalog.user_dir() / "grid.csv").write_text("provider,\0\nhome,x\n", encoding="utf-8")
    cat = catalog.load()
    assert [(Path(p.path).name, p.line) for p in cat.problems] == [("gpus.csv", 1), ("grid.csv", 1)]
    assert all(p.message.endswith("file skipped") for p in cat.problems)
    assert len(cat.gpus) == SHIPPED_GPUS and len(cat.grid) == 101


def test_a_shipped_file_with_rows_csv_cannot_read_loads_the_rest(shipped_copy):
    lines = _spoil_shipped(shipped_copy)
    cat = catalog.load()
    assert [(Path(p.path).name, p.line) for p in cat.problems] == [
        ("gpus.csv", lines["gpus.csv"]),
        ("grid.csv", lines["grid.csv"]),
    ]
    assert all(p.message.endswith(SKIPPED) for p in cat.problems)
    assert len(cat.instances) == 158 and len(cat.gpus) == SHIPPED_GPUS and len(cat.grid) == 101


def test_editing_a_user_file_keeps_the_rows_csv_cannot_read_as_they_were():
    path = catalog.user_dir() / "machines.csv"
    huge_row = f'big,1,"{HUGE}\nsecond line"\n'
    nul_row = "nul,2\0,\n"
    path.write_text(f"name,purchase_usd,notes\n{huge_row}{nul_row}old,3,\n", encoding="utf-8")
    assert [(r["name"], r["_line"]) for r in catalog_user.user_rows("machines")] == [("old", "5")]
    catalog_user.add_row("machines", {"name": "new", "purchase_usd": 4})
    catalog_user.update_row("machines", ("old",), {"name": "old", "purchase_usd": 5})
    catalog_user.remove_row("machines", ("new",))
    text = path.read_text(encoding="utf-8")
    assert huge_row in text and nul_row in text  # nothing the user typed is lost
    cat = catalog.load()
    assert [(m.name, m.purchase_usd) for m in cat.machines] == [("old", 5.0)]
    assert [p.line for p in cat.problems] == [2, 4]
    # a quote never closed: a row written after it could close it and join the rows between
    path.write_text(f'{text}open,6,"never closed\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        catalog_user.add_row("machines", {"name": "x", "purchase_usd": 1, "notes": 'a "b"'})
    assert "line 6: a quote opened on this line is never closed" in info.value.message
    assert path.read_text(encoding="utf-8") == f'{text}open,6,"never closed\n'


def test_presets_and_runs_tables_skip_rows_csv_cannot_read(tmp_path):
    path = tmp_path / "presets.csv"
    path.write_text(
        f"name,params,tokens,notes\nhuge,1e9,2e10,{HUGE}\nnul,1e9,2e10,\0\nsmall,1e9,2e10,fine\n",
        encoding="utf-8",
    )
    problems: list[catalog.Problem] = []
    assert list(plan_presets.load_presets(path, problems)) == ["small"]
    assert [(p.path, p.line) for p in problems] == [(str(path), 2), (str(path), 3)]
    runs = tmp_path / "runs.csv"
    runs.write_text(f"label,runs\nsearch,16\nhuge,{HUGE}\nfinal,1\n", encoding="utf-8")
    assert [r.label for r in plan_presets.runs_table(str(runs))] == ["search", "final"]


def test_the_commands_report_rows_csv_cannot_read_and_go_on(shipped_copy, capsys):
    lines = _spoil_shipped(shipped_copy)
    user = catalog.user_dir() / "instances.csv"
    user.write_text(
        f"cloud,instance_type,usd_per_hour,notes\nhome,huge,1.0,{HUGE}\nhome,box,1.0,\n",
        encoding="utf-8",
    )
    commands = [
        ["catalog", "instances"],
        ["catalog", "gpus"],
        ["plan", "--params", "110e6", "--tokens", "3.3e9", "--gpu", "Tesla T4", "--mfu", "0.3"],
        ["plan", "--preset", "bert-base", "--compare", "--mfu", "0.3"],
    ]
    for argv in commands:
        assert main(argv) == 0, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert f"{user}, line 2:" in err, argv
        assert f"gpus.csv, line {lines['gpus.csv']}:" in err, argv
        assert f"grid.csv, line {lines['grid.csv']}:" in err, argv
        if argv[0] == "plan":
            assert f"runs.csv, line {lines['runs.csv']}:" in err, argv


def test_run_and_compare_go_on_when_catalog_rows_cannot_be_read(shipped_copy, capsys):
    lines = _spoil_shipped(shipped_copy)
    user = catalog.user_dir() / "gpus.csv"
    user.write_text(f"name,notes\nmine,{HUGE}\n", encoding="utf-8")
    proc = cli("run", *TINY_ARGS, "--price-per-hour", "0.05", "--json")  # the worker loads it too
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    assert run["status"] == "ok"
    assert main(["compare", run["run_id"]]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{user}, line 2:" in err
    assert f"gpus.csv, line {lines['gpus.csv']}:" in err
