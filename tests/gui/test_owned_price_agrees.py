"""One owned price everywhere (issue 38): random owned set-ups typed into the panel's Owned form
give the same $/h, $/epoch and break-even days in the panel, Compare's "this machine" row, the
report (File > Export report) and `epochcost compare --owned ...`, and a profile saved from the
panel gives them again to `compare --profile` and `report --profile`.

A seeded random draw (the first set-up is the issue's GTX 1080 Ti: $699, 250 W, 100 W rest of
system, $0.30/kWh), so a failure names a set-up that can be run again.
"""

from __future__ import annotations

import html
import json
import random
import re

import pytest

from engine.cli import main
from engine.results import report
from engine.results.store import Store
from gui.pages.compare.model import COLUMNS
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import show_tab

GPU = "GeForce GTX 1080 Ti"
CASES = 20
ISSUE_SETUP = {
    "purchase_usd": 699.0,
    "lifetime_years": 3.0,
    "hours_per_day": 24.0,
    "usd_per_kwh": 0.3,
    "power_w": 250.0,
    "rest_of_system_w": 100.0,
    "psu_efficiency": 0.9,
}
OPTION = {name: "--" + name.replace("_", "-") for name in ISSUE_SETUP}


def setups(n: int, seed: int = 38) -> list[dict[str, float]]:
    """The issue's set-up, then n - 1 drawn over every figure's plausible range."""
    rng = random.Random(seed)
    drawn = [
        {
            "purchase_usd": round(rng.uniform(50, 6000), 2),
            "lifetime_years": round(rng.uniform(0.5, 8), 2),
            "hours_per_day": round(rng.uniform(0.5, 24), 1),
            "usd_per_kwh": round(rng.uniform(0.01, 0.8), 3),
            "power_w": float(rng.randint(30, 600)),
            "rest_of_system_w": float(rng.choice([0, rng.randint(1, 400)])),
            "psu_efficiency": round(rng.uniform(0.5, 1.0), 3),
        }
        for _ in range(n - 1)
    ]
    return [ISSUE_SETUP, *drawn]


def type_into_panel(window, setup: dict[str, float]) -> None:
    price = window.panel.price
    price.owned_button.setChecked(True)
    price.owned.hardware.setCurrentIndex(price.owned.hardware.findData(f"gpu:{GPU}"))
    for name, value in setup.items():
        price.owned.edits[name].setText(f"{value:g}")
    assert window.panel.validate(), window.panel.errors


def cli_rows(capsys, run_id: str, *options: str) -> list[dict]:
    capsys.readouterr()
    assert main(["compare", run_id, "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def owned_options(setup: dict[str, float]) -> list[str]:
    return ["--owned", *(x for n, v in setup.items() for x in (OPTION[n], f"{v:g}"))]


def key(row) -> tuple[str, str, str]:
    get = row.get if isinstance(row, dict) else lambda name: getattr(row, name)
    return (get("cloud"), get("instance_type"), get("region"))


def report_cells(page: str) -> dict[str, list[str]]:
    """The report's compare table: the machine's name -> its cells (names once only)."""
    cells: dict[str, list[str]] = {}
    seen: set[str] = set()
    for row in re.findall(r"<tr(?: class=\"local\")?><td.*?</tr>", page):
        values = [html.unescape(v) for v in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        name = values[1]
        if name in seen:
            cells.pop(name, None)
        else:
            cells[name] = values
        seen.add(name)
    return cells


def first_number(text: str) -> float | None:
    """The figure a cell begins with ('250 (180–340)': 250; 'never (...)': None)."""
    found = re.match(r"[\d,]+(?:\.\d+)?", text)
    return None if found is None else float(found.group().replace(",", ""))


def same(a: float | None, b: float | None, rel: float = 1e-9) -> bool:
    """Two figures equal to `rel`, or both None (no break-even: owning never pays)."""
    return a is None and b is None or (a is not None and b == pytest.approx(a, rel=rel))


def days_agree(shown: float | None, expected: float | None) -> bool:
    """A break-even day count as a table rounds it (1 decimal below 10 days, else whole)."""
    if expected is None:
        return shown is None
    return shown is not None and abs(shown - expected) <= 0.5 + 1e-9 * expected


def check_compare_page(page, cli: list[dict]) -> None:
    """Compare's rows (the figures its table and charts show) are the CLI's."""
    mine = {key(r): r for r in page.comparison.rows}
    local = next(r for r in page.comparison.rows if r.local)
    theirs = next(r for r in cli if r["local"])
    assert local.usd_per_hour == pytest.approx(theirs["usd_per_hour"], rel=1e-12)
    assert local.usd_per_epoch == pytest.approx(theirs["usd_per_epoch"], rel=1e-12)
    headers = [c.header for c in COLUMNS]
    shown = [
        page.model.index(r, headers.index("$/h")).data()
        for r in range(page.model.rowCount())
        if page.model.record(r)["local"]
    ]
    assert shown == [f"{theirs['usd_per_hour']:,.4g}"]
    for row in cli:
        if row["local"]:
            continue
        there = mine[key(row)]
        for field in ("break_even_days", "break_even_days_low", "break_even_days_high"):
            assert same(getattr(there, field), row[field]), (key(row), field)
        assert there.break_even_text == row["break_even_text"]


def check_report(page: str, cli: list[dict]) -> None:
    """The report's table says the CLI's figures, as it rounds them."""
    cells = report_cells(page)
    theirs = next(r for r in cli if r["local"])
    local = cells["this machine"]
    assert local[5] == f"{theirs['usd_per_hour']:,.4g}"
    assert local[6] == report.money(theirs["usd_per_epoch"])
    checked = 0
    for row in cli:
        name = f"{row['cloud']} {row['instance_type']}"
        if row["local"] or name not in cells:
            continue
        shown = cells[name][7]
        assert days_agree(first_number(shown), row["break_even_days"]), (name, shown, row)
        assert row["break_even_text"] in shown
        checked += 1
    assert checked >= 5
    assert "owning pays after" in page or "owning never pays" in page


def test_every_surface_prices_an_owned_setup_the_same(window, capsys, tmp_path):
    result = gpu_result(run_id="20260101T000000-owned038", device_name=f"NVIDIA {GPU}")
    Store().add(result)
    page = show_tab(window, "Compare")
    window.results.refresh(select=result["run_id"])
    for n, setup in enumerate(setups(CASES)):
        type_into_panel(window, setup)
        panel_usd = window.panel.accepted_price.usd_per_hour
        cli = cli_rows(capsys, result["run_id"], *owned_options(setup))
        theirs = next(r for r in cli if r["local"])
        assert panel_usd == pytest.approx(theirs["usd_per_hour"], rel=1e-12), (n, setup)
        assert f"${panel_usd:.4f}/h" in window.panel.price.owned.summary.text()
        check_compare_page(page, cli)
        check_report(window.report.html([result]), cli)
        # the panel saved as a profile prices the same in the commands that take one
        assert window.panel.profiles.save_as(f"case{n}", replace_existing=True) is not None
        profiled = cli_rows(capsys, result["run_id"], "--profile", f"case{n}")
        for mine, row in zip(profiled, cli, strict=True):
            assert mine["usd_per_hour"] == pytest.approx(row["usd_per_hour"], rel=1e-12)
            assert same(mine["break_even_days"], row["break_even_days"]), (n, key(row))
            assert mine["break_even_text"] == row["break_even_text"]
        out = tmp_path / f"case{n}.html"
        assert main(["report", result["run_id"], "--profile", f"case{n}", "--out", str(out)]) == 0
        check_report(out.read_text(encoding="utf-8"), cli)
