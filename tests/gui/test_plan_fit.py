"""The Plan tab on a GTX 1080 Ti: precision auto is FP32 (the card has no tensor cores), and a
1.5B-parameter model with Adam is said not to fit, in the figures and in the headline."""

from __future__ import annotations

from tests.gui.test_plan_page import choose, fill, plan_page


def test_a_1080_ti_plans_at_fp32_and_says_the_model_does_not_fit(window):
    page = plan_page(window)
    choose(page.form.gpu, "GeForce GTX 1080 Ti")
    fill(page, params="1.5B", tokens="30B", n_layers="", seq_len="", d_attn="", count="1")
    plan = page.update_plan()
    assert plan is not None  # the default precision no longer fails on it
    assert plan.inputs.options.precision == "fp32"
    assert page.answer.text("memory") == "24 GB, does not fit"
    assert page.answer.text("memory", "basis").startswith(
        "does not fit in 11 GB: needs about 24 GB; use 3 GPUs with sharding"
    )
    assert "Memory</b>: does not fit in 11 GB" in page.headline.text()
    assert "no cloud sells it" in page.headline.text()  # not "- on-demand"
    choose(page.form.optimizer, "sgd")  # 8 bytes a parameter: 12 GB, still too much
    plan = page.update_plan()
    assert plan is not None and plan.data["memory"]["need_gb"] == 12.0
