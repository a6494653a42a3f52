"""The Plan tab: the figures of `epochcost plan` from the form, a measured MFU from the selected
result (refused where there is none), a message for each bad input, and the exports."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from PySide6.QtGui import QImage

from engine.cli import main
from engine.cli.common import option_name
from engine.core.placeholders import worded_data
from engine.measure import utilisation
from engine.plan import planner
from engine.plan import presets as plan_presets
from engine.plan import targets as plan_targets
from engine.plan.options import PlanOptions
from engine.plan.report import dollars
from engine.pricing import catalog
from engine.results.store import Store
from gui.common import export, theme
from gui.pages.plan.page import PlanPage
from tests.engine.price_results import result as priced_result
from tests.gui.helpers import show_tab

V100 = "Tesla V100 SXM2 16GB"
SVG = "{http://www.w3.org/2000/svg}"


def plan_page(window) -> PlanPage:
    """The Plan tab, shown (it builds itself then)."""
    page = show_tab(window, "Plan")
    assert isinstance(page, PlanPage)
    assert page.sources is not None
    return page


def choose(combo, data: str) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def fill(page: PlanPage, **texts: str) -> None:
    for name, text in texts.items():
        page.form.edits[name].setText(text)


def cli_json(capsys, *args: str) -> dict:
    assert main(["plan", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def page(window) -> PlanPage:
    page = plan_page(window)
    choose(page.form.gpu, V100)
    fill(page, count="8", mfu="0.35")
    return page


def test_bert_base_preset_on_8_v100_gives_the_cli_and_engine_figures(page, capsys):
    choose(page.form.preset, "bert-base")
    plan = page.update_plan()
    assert plan is not None
    cli = cli_json(capsys, "--preset", "bert-base", "--gpu", V100, "--count", "8", "--mfu", "0.35")
    # Every figure and every assumption; the values its texts ask for named as options.
    assert json.loads(json.dumps(worded_data(plan.data, option_name))) == cli

    # The engine called directly, as a script would.
    cat = catalog.load()
    options = PlanOptions(count=8).validated()
    target = plan_targets.target_for_gpu(cat, cat.gpu(V100), options)
    compute = plan_presets.preset("bert-base").compute()
    row = planner.plan(compute, target, planner.assumed(0.35), runs=plan_presets.runs_table())
    assert plan.row == row
    # By hand: 1.31072e11 tokens x (6 x 110e6 + 12 x 12 layers x 512 x 768 full attention)
    # = 1.31072e11 x 7.16623e8 = 9.3929e19 FLOPs; on 8 x 125 TFLOP/s at 35% (3.5e14 FLOP/s):
    # 268,369 s = 74.5 h, 596 GPU-hours.
    assert row.flops == pytest.approx(9.3929e19, rel=1e-4)
    assert row.wall_hours == pytest.approx(74.547, rel=1e-4)
    assert row.gpu_hours == pytest.approx(596.4, rel=1e-3)

    # What the page shows: the same figures, the assumption named, the price with its source.
    answer = page.answer
    assert answer.text("wall") == "3.1 days"
    assert answer.text("ondemand") == dollars(cli["usd_ondemand"])
    assert answer.text("ondemand", "all") == dollars(cli["usd_fully_loaded"])
    assert answer.text("mfu", "basis").startswith("assumed: MFU 35% (stated, not measured)")
    assert cli["assumptions"]["price"] in answer.text("ondemand", "basis")
    assert "Devlin et al. 2019" in answer.text("source", "basis")
    assert "(assumed)" in page.headline.text()
    shown = [cells[3].text() for cells in answer.cells.values()]
    assert not any("--" in text for text in shown)  # the form's words, not the CLI's options
    # The chart and table compare every GPU with a peak, the chosen one marked.
    assert len(page.chart.rows) == len(plan.comparison) == page.table_model.rowCount() > 10
    assert any(label.startswith("▶ ") and V100 in label for _, label in _ticks(page))


def _ticks(page):
    return page.chart.plot.getAxis("left")._tickLevels[0]


def test_typed_params_and_tokens_give_the_issue_example(page, capsys):
    choose(page.form.preset, "")
    fill(page, params="110e6", tokens="3.3e9", n_layers="", seq_len="", d_attn="")
    plan = page.update_plan()
    assert plan is not None
    # The issue's example, word for word ("V100" matches three rows; the CLI takes the SXM2
    # 16GB, the one the form names).
    example = "--params 110e6 --tokens 3.3e9 --gpu V100 --count 8 --mfu 0.35"
    cli = cli_json(capsys, *example.split())
    for key, value in cli.items():
        if isinstance(value, float):
            assert plan.data[key] == pytest.approx(value), key
    # By hand: 6 x 110e6 x 3.3e9 = 2.178e18 FLOPs; / (8 x 125e12 x 0.35) = 6,222.857 s.
    assert plan.data["flops"] == pytest.approx(2.178e18)
    assert plan.data["wall_hours"] * 3600 == pytest.approx(6222.857, rel=1e-6)
    assert plan.data["usd_ondemand"] == pytest.approx(6222.857 / 3600 * cli["usd_per_hour"])
    assert page.answer.text("wall") == "1 h 43 min"  # 103.7 min
    assert "no attention term" in page.answer.text("flops", "basis")


def _store(result: dict) -> str:
    return Store().add(result).run_id


def _with_flops(result: dict, per_sample: float, tflops: float, precision: str) -> dict:
    flops = {"per_step": per_sample * 64, "per_sample": per_sample, "achieved_tflops": tflops}
    result["flops"] = utilisation.with_mfu(
        {**flops, "method": "test"}, result["environment"], precision, catalog.load()
    )
    return result


def _select(window, run_id: str) -> None:
    window.results.refresh(select=run_id)
    assert window.results.selected_run_ids() == [run_id]


def test_measured_mfu_from_the_selected_result_is_refused_for_a_cpu_run(window, page):
    cpu = priced_result(device="cpu", device_name=None, run_id="20250101T000000-cpu00001")
    run_id = _store(_with_flops(cpu, 1e7, 0.01, "fp32"))
    _select(window, run_id)
    page.form.mfu_source.button(1).setChecked(True)
    assert page.update_plan() is None
    text = page.message_bar.text.text()
    assert page.message_bar.isVisible() and page.message_bar.level == "error"
    assert text.startswith(f"Measured MFU: {run_id} has no measured MFU (peak unknown: ")
    assert text.endswith("give a stated MFU instead") and "--" not in text
    assert "no MFU" in page.form.result_label.text()
    assert not page.export_chart_button.isEnabled() and page.plan is None
    assert "No plan" in page.headline.text()
    # A stated MFU plans again, with the same result still selected.
    page.form.mfu_source.button(0).setChecked(True)
    assert page.update_plan() is not None and not page.message_bar.isVisible()


def test_a_gpu_result_gives_its_measured_mfu_and_flops_per_sample(window, page):
    # A V100 fp16 run: 1e10 FLOPs per sample at 4,375 samples/s = 43.75 TFLOP/s = 35% of 125.
    gpu = priced_result(device_name="Tesla V100-SXM2-16GB", precision="fp16", samples_per_s=4375.0)
    gpu["environment"]["framework"] = "torch"
    run_id = _store(_with_flops(gpu, 1e10, 43.75, "fp16"))
    _select(window, run_id)
    page.form.mode.button(1).setChecked(True)
    page.form.mfu_source.button(1).setChecked(True)
    fill(page, count="1", flops_per_sample="", samples="1e6", epochs="90")
    plan = page.update_plan()
    assert plan is not None and plan.result_id == run_id
    assert plan.data["flops"] == pytest.approx(1e10 * 1e6 * 90)
    assert plan.data["mfu"] == pytest.approx(0.35)
    assert plan.data["assumptions"]["mfu"].startswith("measured: MFU 35.0%")
    assert "(measured)" in page.headline.text()
    assert "MFU 35.0% at fp16" in page.form.result_label.text()
    assert plan.inputs.preset is None  # the preset still chosen belongs to the other mode
    assert not page.answer.cells["source"][3].isVisible()


@pytest.mark.parametrize(
    ("texts", "field", "message"),
    [
        ({"params": "lots"}, "params", "Parameters N: 'lots' is not a number"),
        ({"tokens": ""}, "tokens", "Tokens D: give the training tokens D"),
        ({"count": "0"}, "count", "GPUs: 0 must be a whole number of GPUs, 1 or more"),
        ({"count": "two"}, "count", "GPUs: 'two' is not a whole number; give one such as 8"),
        ({"count": "2.5"}, "count", "GPUs: 2.5 is not a whole number; give one such as 8"),
        ({"mfu": "1.5"}, "mfu", "Stated MFU: 1.5 is a fraction of the peak: give 0.35 for 35%"),
        ({"mfu": "35"}, "mfu", "give 0.35 for 35%"),
        ({"pue": "0.5"}, "pue", "PUE: 0.5 must be between 1 and 5"),
    ],
)
def test_a_bad_input_gets_a_message_and_a_marked_field(qtbot, page, texts, field, message):
    assert page.update_plan() is not None
    fill(page, **texts)  # as typed: the plan follows a moment later
    qtbot.waitUntil(lambda: page.plan is None)
    assert page.message_bar.isVisible() and page.message_bar.level == "error"
    assert message in page.message_bar.text.text()
    assert page.form.edits[field].styleSheet()  # framed
    assert not page.answer.cells["flops"][1].isVisible()
    assert page.table_model.rowCount() == 0 and page.chart.rows == []
    fill(page, params="110M", tokens="3.3B", count="8", mfu="35%", pue="")
    qtbot.waitUntil(lambda: page.plan is not None)
    assert not page.message_bar.isVisible() and not page.form.edits[field].styleSheet()
    assert page.plan.data["mfu"] == pytest.approx(0.35)


def test_owned_gpus_need_a_tariff_then_are_priced(page):
    page.form.hardware.button(2).setChecked(True)
    assert page.update_plan() is None
    assert page.message_bar.text.text().startswith("Electricity: give your electricity tariff")
    fill(page, usd_per_kwh="0.30", purchase_usd="9000")
    plan = page.update_plan()
    assert plan is not None and plan.data["usd_owned"] > 0
    assert "owned: 8 x $9,000 (given)" in page.answer.text("owned", "basis")


def test_region_gives_co2(page):
    choose(page.form.region, "aws:us-east-1")
    plan = page.update_plan()
    assert plan is not None
    assert plan.data["kg_co2"] == pytest.approx(plan.data["kwh"] * 367.8 / 1000, rel=1e-3)
    assert page.answer.text("co2", "basis").startswith("aws:us-east-1 367.8 g/kWh")


def test_exports_write_png_svg_and_csv(page, tmp_path):
    plan = page.update_plan()
    assert plan is not None
    png = page.export_chart("plan", tmp_path / "plan.png")
    image = QImage(str(png))
    assert not image.isNull() and image.width() == export.PNG_WIDTH_PX
    assert page.message_bar.text.text() == f"Saved {png}"

    svg = page.export_chart("plan", tmp_path / "plan.svg")
    texts = " ".join("".join(t.itertext()) for t in ET.parse(svg).getroot().iter(f"{SVG}text"))
    for words in (
        "Cost of one run on 8 GPUs each",
        "Wall time",
        "USD",
        "MFU 35% assumed",
        "prices:",
    ):
        assert words in texts, words

    frame = pd.read_csv(page.export_csv(tmp_path / "plan.csv"))
    assert len(frame) == len(plan.comparison)
    first, _ = plan.comparison[0]
    assert frame.loc[0, "gpu"] == first.gpu
    assert frame.loc[0, "usd_ondemand"] == pytest.approx(first.usd_ondemand)
    assert frame["assumed_mfu"].str.startswith("assumed: MFU 35%").all()
    assert frame.loc[0, "price"].startswith("on-demand: ")

    assert page.export_chart("plan", tmp_path / "plan.gif") is None
    assert "save charts as .png or .svg" in page.message_bar.text.text()
    fill(page, mfu="x")
    page.update_plan()
    assert page.export_csv(tmp_path / "none.csv") is None
    assert not (tmp_path / "none.csv").exists()


def test_the_chart_follows_the_theme(qtbot, window, page):
    window.set_theme("dark")
    qtbot.waitUntil(lambda: page.chart.colors == theme.DARK_PLOTS)
    window.set_theme("light")
    qtbot.waitUntil(lambda: page.chart.colors == theme.LIGHT_PLOTS)
