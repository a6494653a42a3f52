"""Texts that ask for a value name its field, and the command line words it with its option
(the forms' words: tests/gui/test_asked_words.py). No option name is written in the engine's
plan and sweep texts."""

from __future__ import annotations

import re
from pathlib import Path

from engine.cli.common import option_name
from engine.core.placeholders import ask, asked, worded, worded_data
from engine.plan import targets
from engine.plan.options import PlanOptions
from engine.pricing import catalog

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_a_text_is_worded_by_each_surface():
    text = f"owning not priced (give {ask('usd_per_kwh')})"
    assert asked(text) == ("usd_per_kwh",)
    assert worded(text, option_name) == "owning not priced (give --usd-per-kwh)"
    assert worded(text, lambda _: None) == "owning not priced (give usd per kwh)"
    data = {"notes": [text], "n": 1, "rows": [{"why": text}]}
    assert worded_data(data, option_name)["rows"][0]["why"].endswith("--usd-per-kwh)")


def test_sweep_notes_name_the_clis_options():
    note = f"the maximum batch given ({ask('max_batch')})"
    assert worded(note, option_name) == "the maximum batch given (--max-batch)"
    limit = f"limit ({ask('memory_limit_bytes')} sets it)"
    assert worded(limit, option_name) == "limit (--memory-limit-mb sets it)"
    price = f"({ask('usd_per_hour')} prices it)"
    assert worded(price, option_name) == "(--price-per-hour prices it)"


def test_the_planners_explanations_ask_by_field():
    cat = catalog.load()
    options = PlanOptions(count=1).validated()
    target = targets.target_for_gpu(cat, cat.gpu("Tesla V100 SXM2 16GB"), options)
    assert asked(target.owned_basis) == ("usd_per_kwh",)
    _, grid_basis, _ = targets.grid(cat, options, None)
    assert asked(grid_basis) == ("grid_region",)


def test_no_option_name_is_written_in_the_planners_or_the_sweeps_notes():
    # An option asked for in a text ("give --mfu", "(--max-batch)", "--memory-limit-mb sets
    # it"); docstrings naming a command (`plan --json`) are not texts shown to a user.
    option = re.compile(r"give --|\(--|--[a-z-]+ (?:sets|prices) it")
    for name in (
        "plan/targets.py",
        "plan/options.py",
        "sweep/runner.py",
        "sweep/summary.py",
        "sweep/report.py",
    ):
        lines = (ENGINE / name).read_text().splitlines()
        found = option.findall("\n".join(line for line in lines if '"""' not in line))
        assert not found, f"{name}: {found}"
