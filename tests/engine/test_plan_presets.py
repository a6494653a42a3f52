"""Published models and run-count tables: they load, carry their sources, and plan."""

from __future__ import annotations

import pytest

from engine.core.errors import ConfigError
from engine.plan import planner
from engine.plan import presets as plan_presets
from engine.pricing import catalog


def test_presets_load_with_their_sources():
    presets = plan_presets.load_presets()
    assert set(presets) >= {
        "bert-base",
        "bert-large",
        "gpt2-1.5b",
        "t5-11b",
        "llama2-7b",
        "llama2-70b",
    }
    for p in presets.values():
        assert p.params > 0 and p.params_source, p.name
        assert p.tokens is None or p.tokens_source, p.name
    # BERT: 256 sequences x 512 tokens x 1e6 steps (Devlin et al. 2019, A.2)
    assert presets["bert-base"].tokens == 256 * 512 * 1_000_000
    assert presets["bert-base"].causal is False
    # T5-11B: 1e6 steps x 2^11 sequences x 512 tokens (Raffel et al. 2020, 3.7)
    assert presets["t5-11b"].tokens == 1_000_000 * 2**11 * 512
    assert presets["llama2-70b"].tokens == 2e12
    assert presets["gpt2-1.5b"].tokens is None  # not published: the user gives it


def test_a_preset_plans_as_its_formula():
    bert = plan_presets.preset("bert-large")
    expected = planner.transformer(340e6, 1.31072e11, 24, 512, 1024, causal=False)
    assert bert.compute().flops == expected.flops
    gpt2 = plan_presets.preset("gpt2-1.5b")
    with pytest.raises(ConfigError) as info:
        gpt2.compute()
    assert info.value.field == "tokens"
    assert gpt2.compute(tokens=1e10).flops == pytest.approx(
        (6 * 1.542e9 + 6 * 48 * 1024 * 1600) * 1e10
    )


def test_published_gpus_are_in_the_catalog():
    shipped = catalog.load()
    for p in plan_presets.load_presets().values():
        if p.published_gpu:
            assert shipped.gpu(p.published_gpu) is not None, p.name


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(ConfigError) as info:
        plan_presets.preset("gpt-5")
    assert info.value.field == "preset" and "bert-base" in info.value.message


def test_runs_tables_and_a_users_file(tmp_path):
    assert planner.runs_multiplier(plan_presets.runs_table()) == 20
    # Strubell et al. 2019, table 4: 239,942 GPU-hours over 120 for one model = 1999.5
    project = plan_presets.runs_table("strubell-2019-project")
    assert planner.runs_multiplier(project) == pytest.approx(239_942 / 120, rel=1e-4)
    mine = tmp_path / "runs.csv"
    mine.write_text("label,runs,relative_size\nsearch,16,0.1\nfinal,1,\n", encoding="utf-8")
    assert planner.runs_multiplier(plan_presets.runs_table(str(mine))) == pytest.approx(2.6)
    bad = tmp_path / "bad.csv"
    bad.write_text("label,runs\nsearch,many\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        plan_presets.runs_table(str(bad))
    assert "line 2" in info.value.field and "runs 'many'" in info.value.message
    with pytest.raises(ConfigError) as info:
        plan_presets.runs_table("no-such-table")
    assert info.value.field == "runs_table"


def test_a_bad_presets_file_says_where(tmp_path):
    path = tmp_path / "presets.csv"
    path.write_text("name,params,tokens,attention\nx,1e9,2e10,sideways\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        plan_presets.load_presets(path)
    assert info.value.field == "presets.csv, line 2"


def test_a_bad_number_in_a_presets_cell_names_the_line_and_the_column():
    """A published table's cells are read as the catalog's are (engine/core/checks.cell_number)."""
    where = "models.csv, line 4"
    assert plan_presets._number(where, "params", "  ") is None
    assert plan_presets._number(where, "params", " 340e6 ") == 340e6
    for text, says in (
        ("lots", "params 'lots' is not a number"),
        ("nan", "params nan must be more than 0"),
        ("-1", "params -1 must be more than 0"),
    ):
        with pytest.raises(ConfigError) as info:
            plan_presets._number(where, "params", text)
        assert (info.value.field, info.value.message) == (where, says)
    with pytest.raises(ConfigError, match="layers 2.5 must be a whole number"):
        plan_presets._number(where, "layers", "2.5", integer=True)
