"""Machine profiles in the app (gui/panel/profile_box.py): chosen or saved in the panel, used by
every tab: the Run tab's finished run and the selected past runs re-price at once, Compare's
owned row and Plan's electricity come from the panel instead of being asked for again; File >
Export report writes the HTML report at the panel's price."""

from __future__ import annotations

import pytest

from engine.pricing import catalog, profile_store
from engine.pricing.cost import OwnedHardware
from engine.pricing.profiles import OWNED, Profile
from engine.results import report
from engine.results.store import Store
from gui.pages.plan.page import PlanPage
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import TINY_FORM, fill_form, run_to_end, show_tab

BOX = Profile(
    "box",
    OWNED,
    gpu="GeForce GTX 1080 Ti",
    purchase_usd=699.0,
    usd_per_kwh=0.30,
    grid_region="aws:us-east-1",
    as_of="2026-11-20",
)


def box_hourly() -> float:
    spec = catalog.load().gpu("GeForce GTX 1080 Ti")
    assert spec is not None
    return OwnedHardware(purchase_usd=699.0, usd_per_kwh=0.30, power_w=spec.tdp_w).usd_per_hour


def choose_profile(window, profile: Profile) -> None:
    profile_store.save(profile, replace=True)
    box = window.panel.profiles
    box.reload()
    assert box.choose(profile.name)
    assert box.chosen == profile.name


def test_a_finished_run_and_the_selected_past_runs_reprice_at_once(qtbot, window):
    fill_form(window.panel, **TINY_FORM, usd_per_hour="0.9")
    window.panel.device.setCurrentIndex(window.panel.device.findData("cpu"))
    run_to_end(qtbot, window)
    stored = Store().get(window.results.selected_run_ids()[0])
    series = window.plots.series
    before = series.proj_mid.values.copy()
    assert len(before) and series.usd_per_hour == 0.9

    window.panel.price.edit.setText("3.06")  # the price changes after the run

    expected = stored["epoch_seconds"] * 3.06 / 3600
    assert series.usd_per_hour == 3.06
    assert series.proj_mid.values == pytest.approx(before * 3.06 / 0.9)
    assert report.money(expected) in window.run_page.status.text.text()
    assert "$3.06/h (user" in window.plots.cost.caption.text
    assert window.plots.config.usd_per_hour == 3.06
    overlays = window.plots.overlays.results  # the selected past run (this one) is re-priced
    assert [r["usd_per_epoch"] for r in overlays] == [pytest.approx(expected)]
    assert Store().get(stored["run_id"])["usd_per_epoch"] == stored["usd_per_epoch"]

    # an owned profile chosen in the panel prices it the same way
    choose_profile(window, BOX)
    hourly = box_hourly()
    assert series.usd_per_hour == pytest.approx(hourly)
    assert report.money(stored["epoch_seconds"] * hourly / 3600) in (
        window.run_page.status.text.text()
    )


def test_profiles_save_and_choose_every_kind_and_an_edit_leaves_the_profile(window):
    panel, box = window.panel, window.panel.profiles
    price = panel.price
    # a typed price with its source and date
    profile_store.save(Profile("quote", usd_per_hour=2.5, source="quote X", as_of="2026-11-01"))
    box.reload()
    assert box.choose("quote") and panel.validate()
    # the profile's own price, named as the CLI's --profile names it
    assert panel.config.price.source == "profile quote: quote X"
    assert panel.config.price.as_of == "2026-11-01"
    price.edit.setText("2.6")  # typed over: the user's own figure, no longer the profile
    assert box.chosen is None and panel.validate()
    assert panel.config.price.source == "user"
    # a catalog machine, saved from the panel and chosen again
    cat = price.source.get()
    p3 = next(i for i in cat.instances if i.instance_type == "p3.2xlarge" and not i.historical)
    price.set_instance(p3, spot=False)
    saved = box.save_as("p3")
    assert saved is not None and saved.instance == "aws:p3.2xlarge"
    price.set_instance(None)
    assert box.choose("p3") and price.instance == p3
    assert panel.validate() and panel.config.usd_per_hour == p3.usd_per_hour
    assert panel.config.price.source.startswith("profile p3: aws p3.2xlarge on-demand")
    # owned hardware with a grid region
    choose_profile(window, BOX)
    assert price.mode == "owned" and panel.validate()
    assert panel.config.usd_per_hour == pytest.approx(box_hourly())
    assert panel.config.price == BOX.price(price.source.get())  # the CLI's, to the letter
    choice = price.owned_choice()
    assert choice is not None and choice.grid_region == "aws:us-east-1"
    again = box.save_as("box2")
    assert again is not None and again.usd_per_kwh == 0.3 and again.gpu == BOX.gpu
    assert sorted(profile_store.names()) == ["box", "box2", "p3", "quote"]
    # the choice is kept with the form
    assert panel.state()["price_profile"] == "box2"
    assert panel.validate() and panel.config.price.source.startswith("profile box2: owned")


def test_a_damaged_profiles_file_is_said_and_kept(qtbot, window, epochcost_home):
    file = profile_store.path()
    file.write_text("{broken", encoding="utf-8")
    with qtbot.waitSignal(window.panel.profiles.message) as said:
        window.panel.profiles.reload()
    assert "profiles.json: is not valid JSON" in said.args[0]
    assert window.panel.profiles.combo.count() == 1  # "(none)"
    assert window.panel.profiles.save_as("x") is None
    assert file.read_text(encoding="utf-8") == "{broken"


def test_compare_and_plan_take_the_panels_owned_price(window):
    choose_profile(window, BOX)
    result = gpu_result(usd_per_hour=0.25)
    Store().add(result)
    page = show_tab(window, "Compare")
    window.results.refresh(select=result["run_id"])
    tariff = page.inputs.owned["usd_per_kwh"]
    assert tariff.placeholderText() == "0.3" and not tariff.text()
    assert page.options.owned is not None and page.options.owned.usd_per_kwh == 0.3
    assert page.options.owned.purchase_usd == 699.0  # the result's GPU is the panel's
    assert page.options.local_grid_label.startswith("aws:us-east-1")
    local = next(r for r in page.comparison.rows if r.local)
    assert local.usd_per_hour == pytest.approx(page.options.owned.usd_per_hour)
    assert "give it" not in " ".join(e.placeholderText() for e in page.inputs.owned.values())

    plan = show_tab(window, "Plan")
    assert isinstance(plan, PlanPage)
    plan.form.hardware.button(2).setChecked(True)  # owned GPUs, no tariff typed in the tab
    for combo, data in ((plan.form.gpu, BOX.gpu), (plan.form.precision, "fp32")):
        combo.setCurrentIndex(combo.findData(data))
    assert plan.update_plan() is not None, plan.message_bar.text.text()
    assert "give your electricity tariff" not in plan.message_bar.text.text()
    assert plan.plan is not None and plan.plan.data["usd_owned"] > 0
    assert "$699" in plan.answer.text("owned", "basis")


def test_file_export_report_writes_the_selected_runs_at_the_panels_price(window, tmp_path):
    choose_profile(window, BOX)
    result = gpu_result(usd_per_hour=0.25)
    Store().add(result)
    window.results.refresh(select=result["run_id"])
    out = window.report.export(tmp_path / "report.html")
    assert out == tmp_path / "report.html"
    page = out.read_text(encoding="utf-8")
    assert result["run_id"] in page and "owned GeForce GTX 1080 Ti: $699" in page
    assert "<svg" in page and "Break-even" in page
    assert "Saved" in window.run_page.message_bar.text.text()
