"""The engine's texts that ask for a value (engine/core/placeholders.py), in each form's own
words: no form rewrites the engine's text, each names the field from a mapping of its own."""

from __future__ import annotations

from engine.core.placeholders import ask
from gui.pages.plan.inputs import form_rows, form_words
from gui.pages.sweep.text import in_gui_words


def test_the_plan_form_names_what_the_planner_asks_for():
    assert form_words(f"owning not priced (give {ask('usd_per_kwh')})") == (
        "owning not priced (give an electricity tariff)"
    )
    assert form_words(f"(give {ask('purchase_usd')})") == "(give a purchase price)"
    assert form_words(f"no region given for CO2 (give {ask('grid_region')})").endswith(
        "(give a region)"
    )
    rows = form_rows([{"gpu": "T4", "grid": f"give {ask('grid_region')}", "notes": ["a"]}])
    assert rows == [{"gpu": "T4", "grid": "give a region", "notes": ["a"]}]


def test_the_sweep_tab_names_its_own_fields():
    assert in_gui_words(f"the maximum batch given ({ask('max_batch')})") == (
        "the maximum batch given (Max. batch)"
    )
    assert in_gui_words(f"({ask('memory_limit_bytes')} sets it)") == (
        "(the Memory limit field sets it)"
    )
    assert in_gui_words(f"({ask('usd_per_hour')} prices it)") == "(the price on the left prices it)"
