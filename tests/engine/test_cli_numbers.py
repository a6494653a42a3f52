"""Issue 17, "Nothing lost, no traceback": every number of cost, breakeven, plan, compare and
models is read within a named range (engine/cli/numbers.py), so a value that is not finite or
absurd is an input error naming the option (exit 2); names the catalog does not have are
refused; an engine error names an option the command has; no output holds NaN or infinity."""

from __future__ import annotations

import argparse
import ast
import json
import math
from pathlib import Path

import pytest

from engine.cli import build_parser, main, numbers
from engine.core.errors import ConfigError
from engine.plan import planner
from engine.plan import targets as plan_targets
from engine.plan.options import PlanOptions
from engine.pricing import catalog
from tests.engine.price_results import result

P = "plan --params 110e6 --tokens 3.3e9 --gpu V100"
B = "breakeven --purchase-usd 699 --cloud-usd-per-hour 3 --speedup 1"
# Enough for each command to parse, the option under test given after it.
BASE = {
    "cost": ["cost", "--epoch-seconds", "420", "--price-per-hour", "0.9"],
    "breakeven": B.split(),
    "plan": ["plan"],
    "compare": ["compare", "RESULT"],
    "models": ["models"],
}
# The commands of this part of the CLI (each subcommand parser checked for its numbers).
COMMANDS = ("cost", "breakeven", "plan", "compare", "models", "catalog", "data", "devices")
BAD = ("nan", "inf", "-inf", "1e308", "1e-300", "-5", "ten")
PLAN = ["plan", "--params", "110e6", "--tokens", "3.3e9", "--gpu", "Tesla V100 SXM2 16GB"]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _parsers(command: str) -> list[argparse.ArgumentParser]:
    """The command's parser and those of its subcommands (catalog instances, data check)."""
    top = _subparsers(build_parser())[command]
    return [top, *_subparsers(top).values()]


def _numeric_options() -> list[tuple[str, str]]:
    """The options the parsers read with a Range."""
    return [
        (command, action.option_strings[0])
        for command in BASE
        for action in _parsers(command)[0]._actions
        if isinstance(action.type, numbers.Range)
    ]


# Every numeric option of these commands (the audit: test_every_numeric_option_reads_a_range).
NUMERIC = {
    "cost": ["--epoch-seconds", "--price-per-hour", "--epochs"],
    "breakeven": ["--purchase-usd", "--cloud-usd-per-hour", "--speedup", "--power-w"],
    "plan": ["--params", "--tokens", "--layers", "--seq-len", "--d-attn", "--samples", "--epochs"],
    "compare": ["--interruption-overhead", "--startup-minutes", "--epochs", "--max-gpus"],
    "models": ["--timeout"],
}
NUMERIC["breakeven"] += ["--usd-per-kwh", "--psu-efficiency", "--hours-per-day"]
NUMERIC["breakeven"] += ["--rest-of-system-w"]  # the owned set-up as compare's (issue 38)
NUMERIC["plan"] += ["--flops-per-sample", "--count", "--mfu", "--power-fraction", "--runs"]
NUMERIC["plan"] += ["--grid-g-per-kwh", "--pue", "--usd-per-kwh", "--purchase-usd"]
NUMERIC["plan"] += ["--lifetime-years", "--hours-per-day", "--psu-efficiency", "--limit"]
NUMERIC["plan"] += ["--rest-of-system-w"]  # the owned machine's, as compare's (issue 38)
NUMERIC["plan"] += ["--batch-size"]  # the memory check's activations
NUMERIC["compare"] += ["--limit", "--purchase-usd", "--lifetime-years", "--hours-per-day"]
NUMERIC["compare"] += ["--power-w", "--rest-of-system-w", "--usd-per-kwh", "--psu-efficiency"]
NUMERIC["compare"] += ["--grid-g-per-kwh"]
TABLE = [(command, option) for command, options in NUMERIC.items() for option in options]
# Numeric options of subcommands: the command line before the option.
SUB_TABLE = [
    (["data", "make-imagefolder", "FOLDER"], option)
    for option in ("--images", "--size", "--classes", "--seed")
]


def refused(capsys, argv: list[str]) -> str:
    """Exit 2 from argparse; its stderr."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    return capsys.readouterr().err


def test_every_numeric_option_reads_a_range():
    """The audit: no option of these commands takes a bare float or int."""
    seen = 0
    for command in COMMANDS:
        for parser in _parsers(command):
            for action in parser._actions:
                if action.type is not None and action.type is not Path:  # a folder is no number
                    assert isinstance(action.type, numbers.Range), (command, action.dest)
                    seen += 1
    assert seen == len(TABLE) + len(SUB_TABLE) == 51
    assert sorted(_numeric_options()) == sorted(TABLE)


@pytest.mark.parametrize(("argv", "option"), SUB_TABLE)
@pytest.mark.parametrize("bad", BAD)
def test_a_subcommands_bad_number_exits_2_naming_the_option(capsys, tmp_path, argv, option, bad):
    err = refused(capsys, [*argv[:-1], str(tmp_path / "new"), f"{option}={bad}"])
    assert f"error: argument {option}: " in err and "Traceback" not in err
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize(("command", "option"), TABLE)
@pytest.mark.parametrize("bad", BAD)
def test_a_value_not_finite_or_absurd_exits_2_naming_the_option(capsys, command, option, bad):
    err = refused(capsys, [*BASE[command], f"{option}={bad}"])
    assert f"error: argument {option}: " in err
    assert "give " in err.splitlines()[-1]  # the allowed range
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "option", "words"),
    [  # the hostile sweep of issue 17, as reported
        ("cost --epoch-seconds 9 --price-per-hour 1 --epochs 1e308", "--epochs", "1e308 is "
         "out of range: give 0.001 to 1,000,000 epochs"),
        (f"{P} --mfu 0.3 --grid-g-per-kwh nan", "--grid-g-per-kwh", "nan is not a finite number"),
        (f"{P} --mfu 1e-300", "--mfu", "give a fraction from 0.001 to 1"),
        (f"{P} --mfu 35", "--mfu", "(0.35 for 35%)"),
        (f"{B} --cloud-usd-per-hour 1e-300", "--cloud-usd-per-hour", "give 0.001 to 100,000 USD"),
        (f"{B} --cloud-usd-per-hour 0", "--cloud-usd-per-hour", "0 is out of range"),
        (f"{P} --mfu .3 --params 1e300", "--params", "give 1 to 1e13 parameters"),
        (f"{P} --mfu .3 --usd-per-kwh .1 --count 8 --purchase-usd -5", "--purchase-usd",
         "-5 is out of range: give 0, or 1 to 1e9 USD"),
        (f"{P} --mfu .3 --count 0", "--count", "give a whole number from 1"),
        (f"{P} --mfu .3 --layers 2.5", "--layers", "2.5 is not a whole number"),
        (f"{B} --purchase-usd -5", "--purchase-usd", "-5 is out of range"),
        (f"{B} --psu-efficiency 90", "--psu-efficiency", "(0.9 for 90%)"),
        ("compare R --interruption-overhead -1", "--interruption-overhead", "give 0, or 0.001"),
        ("models --timeout 0", "--timeout", "give 1 to 86,400 seconds"),
    ],
)  # fmt: skip
def test_the_reported_values_are_refused_with_the_range(capsys, argv, option, words):
    err = refused(capsys, argv.split())
    assert f"argument {option}: " in err and words in err and "Traceback" not in err


def test_each_range_takes_its_bounds_and_its_default():
    for command in BASE:
        for action in _parsers(command)[0]._actions:
            r = action.type
            if not isinstance(r, numbers.Range):
                continue
            assert r(str(r.low)) == r.low and r(str(r.high)) == r.high
            if r.zero:
                assert r("0") == 0
            if action.default is not None:
                assert r(str(action.default)) == action.default, (command, action.dest)


def test_show_writes_bounds_as_people_do():
    shown = [numbers.show(x) for x in (0.001, 1, 86_400, 1e6, 1e9, 1e13, 1e-6, 1.5)]
    assert shown == ["0.001", "1", "86,400", "1,000,000", "1e9", "1e13", "1e-6", "1.5"]
    assert numbers.whole(1, 10)("1e1") == 10  # a whole number written as a float


# --- names the catalog does not have -----------------------------------------------------------


@pytest.fixture
def gpu_file(tmp_path) -> str:
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(result()))
    return str(path)


@pytest.mark.parametrize(
    ("extra", "option", "words"),
    [
        (["--cloud", "nosuch"], "--cloud", "no cloud 'nosuch' in the catalog; it has aws, azure"),
        (["--cloud", "aws,lamda"], "--cloud", "no cloud 'lamda' in the catalog (did you mean"),
        (["--cloud", ","], "--cloud", "give one or more of aws"),
        (["--gpu", "nosuch"], "--gpu", "no GPU matches 'nosuch'"),
        (["--gpu", "V1000"], "--gpu", "(did you mean V100"),
        (["--cloud", "lambda", "--gpu", "T4"], "--gpu", "no instance on lambda has a GPU"),
    ],
)
def test_compare_refuses_a_cloud_or_gpu_the_catalog_lacks(capsys, gpu_file, extra, option, words):
    assert main(["compare", gpu_file, *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"epochcost: error: {option}: ") and words in err, err


def test_compare_with_known_names_still_prices(capsys, gpu_file):
    assert main(["compare", gpu_file, "--cloud", "AWS, gcp", "--gpu", "v100", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["cloud"] for r in rows} == {"aws", "gcp", "local"}


@pytest.mark.parametrize(
    "argv",
    [
        [*PLAN, "--mfu", ".3", "--cloud", "nosuch"],
        ["plan", "--preset", "bert-base", "--compare", "--mfu", ".3", "--cloud", "awz"],
        ["catalog", "instances", "--cloud", "nosuch"],
    ],
)
def test_plan_and_catalog_refuse_an_unknown_cloud(capsys, argv):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("epochcost: error: --cloud: no cloud ")


def test_plan_suggests_a_gpu_name(capsys):
    assert main(["plan", "--preset", "bert-base", "--gpu", "A1000", "--mfu", ".3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("epochcost: error: --gpu: no GPU matches 'A1000' (did you mean ")


# --- breakeven: what it says ---------------------------------------------------------------------

OWN = ["breakeven", "--cloud-usd-per-hour", "0.1", "--speedup", "1"]


def test_breakeven_never_pays_names_the_electricity_it_was_given(capsys):
    assert main([*OWN, "--purchase-usd", "1000", "--power-w", "3000", "--usd-per-kwh", ".3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == (
        "owning never pays for itself: its electricity ($21.60/day) costs as much as renting "
        "the same work ($2.40/day) or more"
    )


def test_a_free_machine_whose_electricity_costs_more_never_pays(capsys):
    argv = [*OWN, "--purchase-usd", "0", "--power-w", "3000", "--usd-per-kwh", ".3", "--json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["days"] is None  # was 0.0: "pays at once"


def test_breakeven_past_a_century_says_so(capsys):
    argv = ["breakeven", "--purchase-usd", "1e9", "--cloud-usd-per-hour", "0.001"]
    assert main([*argv, "--speedup", "0.001", "--hours-per-day", "0.1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("owning does not pay for itself within a century of use")
    assert "$1e-07/day" in out  # not $0.00


# --- engine errors name options the command has ------------------------------------------------

ENGINE = Path(__file__).parents[2] / "engine"
SCANNED = ["plan/planner.py", "plan/presets.py", "plan/targets.py", "plan/options.py"]
SCANNED += ["pricing/cost.py", "pricing/owning.py", "pricing/compare.py"]
CHECKS = {"ConfigError", "_check", "_positive", "_fraction", "number_range", "int_range"}
OWNED = {"purchase_usd", "usd_per_kwh", "power_w", "rest_of_system_w", "lifetime_years"}
OWNED |= {"hours_per_day", "psu_efficiency"}
# The engine fields each command's errors can carry: what the engine code it calls checks.
REACHES = {
    "breakeven": {"cloud_usd_per_hour", "speedup", *OWNED} - {"lifetime_years"},
    "compare": {"rerun_fraction", "epochs", "startup_minutes", "g_co2e_per_kwh", *OWNED},
    "plan": {
        *("params", "tokens", "n_layers", "seq_len", "d_attn", "flops_per_sample", "samples"),
        *("epochs", "mfu", "count", "runs", "relative_size", "preset", "runs_table", "gpu"),
        *("instance", "precision", "pue", "region", "from_result", "g_co2e_per_kwh"),
        "batch_size",
        *(OWNED - {"rest_of_system_w"}),
    },
}
# Figures epochcost works out itself, from checked options or the catalog, never typed: the
# message cannot name an option and need not (a catalog row is checked as it loads).
INTERNAL = {
    "plan": {"rest_of_system_w", "peak_tflops", "gpu_hours"},
    "compare": {"seconds", "kwh", "cloud_usd_per_hour", "speedup"},
}
RUN_ONLY = {"usd_per_hour", "price_source", "price_as_of"}  # Price: `run` (engine/cli/common.py)


def _fields_raised(path: Path) -> set[str]:
    """Field names the module's checks raise: a literal first argument, or the names of a
    `for name, value in (("n_layers", n_layers), ...)` loop."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            first = node.args[0]
            if name in CHECKS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple):
            for item in node.iter.elts:
                if isinstance(item, ast.Tuple) and isinstance(item.elts[0], ast.Constant):
                    found.add(item.elts[0].value)
    return found


def test_every_field_the_engine_raises_is_accounted_for():
    raised = set().union(*(_fields_raised(ENGINE / p) for p in SCANNED))
    assert "n_layers" in raised and "g_co2e_per_kwh" in raised
    known = set().union(*REACHES.values(), *INTERNAL.values(), RUN_ONLY)
    assert raised <= known, f"classify in REACHES or INTERNAL: {sorted(raised - known)}"


@pytest.mark.parametrize("command", sorted(REACHES))
def test_each_engine_field_names_an_option_of_the_command(command):
    parser = _parsers(command)[0]
    dests = {a.dest for a in parser._actions}
    handler = parser.get_default("handler")
    mapping = handler.fields if isinstance(handler, numbers.Named) else {}
    for field in REACHES[command]:
        assert mapping.get(field, field) in dests, (command, field)
    assert set(mapping.values()) <= dests


def test_named_passes_an_engine_field_as_the_option(capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise ConfigError("n_layers", "-3 must be more than 0")

    monkeypatch.setattr(planner, "transformer", refuse)
    assert main([*PLAN, "--mfu", ".3"]) == 2
    assert capsys.readouterr().err == "epochcost: error: --layers: -3 must be more than 0\n"


def test_plan_checks_a_purchase_per_gpu_as_given():
    """-5 a GPU is told as -5, not as the -40 of eight; eight GPUs of $200M are fine."""
    with pytest.raises(ConfigError) as info:
        PlanOptions(count=8, purchase_usd=-5.0).validated()
    assert (info.value.field, info.value.message) == (
        "purchase_usd",
        "-5 is out of range (allowed 0 to 1e+09)",
    )
    spec = catalog.load().gpu("Tesla V100 SXM2 16GB")
    assert spec is not None
    options = PlanOptions(count=8, usd_per_kwh=0.1, purchase_usd=2e8).validated()
    hardware, _ = plan_targets.owned(spec, 8, planner.TDP, options)
    assert hardware is not None and hardware.purchase_usd == 1.6e9
    assert hardware.power_w == 8 * 300


# --- nothing NaN or infinite in JSON, at the ends of every range -------------------------------


def _finite_json(capsys, argv: list[str]) -> object:
    assert main([*argv, "--json"]) == 0
    text = capsys.readouterr().out

    def refuse(word: str) -> None:
        raise AssertionError(f"{word} in {argv}")

    return json.loads(text, parse_constant=refuse)


def _numbers_in(data: object) -> list[float]:
    if isinstance(data, dict):
        return [x for v in data.values() for x in _numbers_in(v)]
    if isinstance(data, list):
        return [x for v in data for x in _numbers_in(v)]
    return [data] if isinstance(data, float) else []


COMPARE_ENDS = (
    "--epochs 1e6 --startup-minutes 10080 --interruption-overhead 10 --owned --usd-per-kwh 10 "
    "--purchase-usd 1e9 --power-w 1e6 --rest-of-system-w 1e6 --psu-efficiency 0.5 "
    "--lifetime-years 0.1 --hours-per-day 0.1 --grid-g-per-kwh 3000"
)


def test_the_ends_of_the_ranges_give_finite_figures(capsys, gpu_file):
    big = ["--layers", "10000", "--seq-len", "1e8", "--d-attn", "1e6", "--count", "1000000"]
    cases = [
        ["cost", "--epoch-seconds", "1e9", "--price-per-hour", "1e5", "--epochs", "1e6"],
        ["cost", "--epoch-seconds", "0.001", "--price-per-hour", "0.001", "--epochs", "0.001"],
        ["plan", "--params", "1e13", "--tokens", "1e15", *big, "--gpu", "T4", "--mfu", "0.001"],
        ["plan", "--params", "1", "--tokens", "1", "--gpu", "T4", "--mfu", "1", "--runs", "1e6"],
        [*PLAN, "--mfu", "1", "--usd-per-kwh", "10", "--purchase-usd", "1e9", "--count", "1e6"],
        [*PLAN[:5], "--compare", "--mfu", ".001", "--grid-g-per-kwh", "3000", "--pue", "5"],
        f"{B} --purchase-usd 1e9 --cloud-usd-per-hour 0.001 --speedup 0.001 --hours-per-day 0.1 "
        "--power-w 1 --usd-per-kwh 0.001".split(),
        ["compare", gpu_file, *COMPARE_ENDS.split()],
    ]  # fmt: skip
    for argv in cases:
        figures = _numbers_in(_finite_json(capsys, argv))
        assert figures and all(math.isfinite(x) for x in figures), argv


def test_a_huge_whole_number_is_told_short():
    """A whole number typed as 1e99 reaches a range check as an int of a hundred digits: the
    message says 1e+99 (the app's panel showed the digits, one word wider than the panel)."""
    from engine.core.checks import int_range

    with pytest.raises(ConfigError) as info:
        int_range("warmup_steps", 10**99, 0, 100_000)
    assert info.value.message == "1e+99 is out of range (allowed 0 to 100000)"
    with pytest.raises(ConfigError) as info:
        int_range("warmup_steps", 100_001, 0, 100_000)
    assert info.value.message == "100001 is out of range (allowed 0 to 100000)"
