"""epochcost breakeven, compare and catalog: output, JSON, exit codes and messages."""

from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.pricing import breakeven, catalog, owning
from tests.engine.helpers import COMPARE_JSON_KEYS, TINY_ARGS, cli_here
from tests.engine.price_results import result

TINY_RUN = ["run", *TINY_ARGS, "--price-per-hour", "0.05", "--json"]


def run_json(capsys, *args: str) -> object:
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_breakeven_json_gives_days(capsys):
    # 699 / (24 x 2/3 x 3.06 - 24 x 0.35 x 0.15) = 699 / (48.96 - 1.26) = 14.6541 days
    data = run_json(
        capsys,
        "breakeven",
        "--purchase-usd",
        "699",
        "--cloud-usd-per-hour",
        "3.06",
        "--speedup",
        str(2 / 3),
        "--power-w",
        "350",
        "--usd-per-kwh",
        "0.15",
        "--json",
    )
    assert data["days"] == pytest.approx(14.6541, rel=1e-5)
    # 8 h a day and no electricity: 699 / (8 x 2/3 x 3.06) = 42.8309 days
    data = run_json(
        capsys,
        "breakeven",
        "--purchase-usd",
        "699",
        "--cloud-usd-per-hour",
        "3.06",
        "--speedup",
        str(2 / 3),
        "--hours-per-day",
        "8",
        "--json",
    )
    assert data["days"] == pytest.approx(42.8309, rel=1e-5)


def test_breakeven_prices_the_owned_set_up_as_compare_does(capsys):
    """The GPU's watts, the rest of the system and the power supply: the command's days are
    the engine's one owned set-up against renting (owning.owned_setup, breakeven.against), as
    compare's and the app's break-even are (issue 38)."""
    figures = {"purchase_usd": 699.0, "usd_per_kwh": 0.30, "power_w": 250.0}
    figures |= {"rest_of_system_w": 100.0, "psu_efficiency": 0.9, "hours_per_day": 10.0}
    owned = owning.owned_setup(**figures)
    expected = breakeven.against(owned, 1.20, 0.5)
    argv = ["breakeven", "--cloud-usd-per-hour", "1.20", "--speedup", "0.5", "--json"]
    for name, value in figures.items():
        argv += [f"--{name.replace('_', '-')}", f"{value:g}"]
    data = run_json(capsys, *argv)
    assert data["days"] == pytest.approx(expected.days, rel=1e-12)
    assert data["rest_of_system_w"] == 100.0
    # (250 + 100) W / 0.9 x $0.30/kWh x 10 h = $1.1667 a day; renting $6.00: 699 / 4.8333
    assert data["days"] == pytest.approx(699 / (6.0 - 3.5 / 0.9 * 0.30), rel=1e-9)
    assert main([a for a in argv if a != "--json"]) == 0
    assert "+ 100 W rest of system / 0.9 PSU" in capsys.readouterr().out
    # Its power supply left out: 0.9 with --rest-of-system-w (the GPU's DC draw), as compare's
    left_out = [a for a in argv if a not in ("--psu-efficiency", "0.9")]
    assert run_json(capsys, *left_out)["days"] == pytest.approx(expected.days, rel=1e-12)


def test_breakeven_refuses_rest_of_system_without_the_gpus_watts(capsys):
    argv = ["breakeven", "--purchase-usd", "699", "--cloud-usd-per-hour", "1", "--speedup", "1"]
    assert main([*argv, "--rest-of-system-w", "100"]) == 2
    err = capsys.readouterr().err
    assert "rest-of-system-w" in err and "--power-w" in err and "Traceback" not in err, err


def test_breakeven_text_says_when_owning_never_pays(capsys):
    args = ["--purchase-usd", "1000", "--cloud-usd-per-hour", "0.1", "--speedup", "1"]
    assert main(["breakeven", *args, "--power-w", "3000", "--usd-per-kwh", "0.3"]) == 0
    assert "owning never pays for itself" in capsys.readouterr().out
    assert main(["breakeven", *args, "--json", "--power-w", "3000", "--usd-per-kwh", "0.3"]) == 0
    assert json.loads(capsys.readouterr().out)["days"] is None


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--purchase-usd", "-5"], "--purchase-usd: -5 is out of range: give 0, or 1 to 1e9"),
        (["--speedup", "0"], "--speedup: 0 is out of range: give 0.001 to 1,000"),
        (["--hours-per-day", "30"], "--hours-per-day: 30 is out of range: give 0.1 to 24"),
        (["--power-w", "300"], "--usd-per-kwh: give it with --power-w (or neither)"),
        (["--psu-efficiency", "1.2"], "--psu-efficiency: 1.2 is out of range: give a fraction"),
    ],
)
def test_breakeven_bad_input_exits_2_naming_the_option(capsys, extra, words):
    base = {"--purchase-usd": "699", "--cloud-usd-per-hour": "3.06", "--speedup": "1"}
    for key, value in zip(extra[::2], extra[1::2], strict=True):
        base[key] = value
    argv = ["breakeven", *[x for kv in base.items() for x in kv]]
    try:
        code = main(argv)
    except SystemExit as exc:  # a number out of its range: refused as it is read
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_compare_a_real_cpu_run_with_the_cloud(tmp_path, capsys):
    proc = cli_here(*TINY_RUN)
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    # text: the local machine alone, and why no GPU rows
    assert main(["compare", run["run_id"][:17]]) == 0
    out = capsys.readouterr().out
    assert "measured: tiny-mlp | torch |" in out and "local" in out
    assert "A CPU's speed cannot be scaled to a GPU" in out
    assert "a CPU result cannot be scaled to a GPU by spec ratios" in out
    # a result of the same workload measured on a T4 elsewhere, imported: measured T4 rows
    t4 = result(
        run_id="20250101T000000-t4import",
        device_name="Tesla T4",
        samples_per_s=9000.0,
        model="tiny-mlp",
        batch_size=16,
        hostname="cloudbox",
    )
    path = tmp_path / "t4.json"
    path.write_text(json.dumps(t4))
    assert main(["results", "import", str(path)]) == 0
    capsys.readouterr()
    rows = run_json(capsys, "compare", run["run_id"], "--json")
    assert all(set(r) >= COMPARE_JSON_KEYS for r in rows)
    usd = [r["usd_per_epoch"] for r in rows]
    assert usd == sorted(usd)
    t4_rows = {r["instance_type"] for r in rows if r["gpu_model"] in ("T4", "T4g")}
    assert {"g4dn.xlarge", "n1-standard-8 + 1xT4", "Standard_NC4as_T4_v3"} <= t4_rows
    assert all(not r["estimated"] for r in rows)
    assert [r["cloud"] for r in rows if r["local"]] == ["local"]
    # the same from the exported file, one cloud only
    exported = tmp_path / "cpu.json"
    assert main(["results", "export", run["run_id"], "--out", str(exported)]) == 0
    capsys.readouterr()
    rows = run_json(capsys, "compare", str(exported), "--cloud", "aws", "--json")
    assert {r["cloud"] for r in rows} == {"aws", "local"}


def test_compare_a_gpu_result_file_owned_with_break_even(tmp_path, capsys):
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(result()))
    argv = ["compare", str(path), "--owned", "--usd-per-kwh", "0.15", "--gpu", "v100"]
    assert main([*argv, "--grid-region", "aws:us-east-1"]) == 0
    out = capsys.readouterr().out
    assert "owned: $699 over 3 years at 24 h/day" in out  # the catalog's launch price
    assert "220 W measured + 0 W rest" in out
    assert "break-even d" in out and "p3.2xlarge" in out
    rows = run_json(capsys, *argv, "--json")
    assert {r["gpu_model"] for r in rows if not r["local"]} == {"V100", "V100-32GB"}
    assert all(r["break_even_days"] for r in rows if not r["local"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["compare", "nothing-like-this"], "no result 'nothing-like-this'"),
        (["compare", "missing/file.json"], "missing/file.json: no such file"),
        (["compare", "GPU", "--owned"], "--usd-per-kwh: give your electricity tariff"),
        (["compare", "CPU", "--owned", "--usd-per-kwh", "0.2"], "no launch price for Some CPU"),
        (["compare", "GPU", "--grid-region", "mars:1"], "--grid-region: 'mars:1' is not in"),
        (["compare", "GPU", "--machine", "nobox"], "--machine: no machine 'nobox'"),
        (["compare", "OOM"], "ended oom: nothing to price"),
        (["compare", ""], "'' is blank: give a run id (or its start) or a result JSON file"),
        (["project", " ", "--gpu", "all"], "' ' is blank: give a run id"),
    ],
)
def test_compare_bad_input_exits_2(tmp_path, capsys, argv, words):
    files = {
        "GPU": result(),
        "CPU": result(device="cpu", device_name=None),
        "OOM": {
            **result(),
            "status": "oom",
            "error": {"kind": "oom", "message": "out of memory at batch size 64"},
            "throughput_samples_per_s": None,
        },
    }
    for name, data in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    argv = [str(tmp_path / f"{a}.json") if a in files else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_catalog_lists_prices_with_source_and_date(capsys):
    rows = run_json(capsys, "catalog", "instances", "--gpu", "k80", "--json")
    assert {(r["cloud"], r["instance_type"]) for r in rows} >= {
        ("azure", "Standard_NC6"),
        ("aws", "p2.xlarge"),
    }
    assert all(r["source"] and r["price_date"] for r in rows)
    assert main(["catalog", "instances", "--historical", "yes"]) == 0
    out = capsys.readouterr().out
    assert "c4.8xlarge" in out and "2016-11 [1]" in out and "Kroutikov" in out
    assert main(["catalog", "gpus", "--search", "volta"]) == 0
    assert "Tesla V100 SXM2 16GB" in capsys.readouterr().out


def test_catalog_reports_a_bad_user_row_and_lists_the_rest(capsys):
    (catalog.user_dir() / "instances.csv").write_text(
        "cloud,instance_type,usd_per_hour\nhome,box,0.3\nhome,broken,cheap\n"
    )
    assert main(["catalog", "instances", "--search", "home", "--json"]) == 0
    captured = capsys.readouterr()
    assert [r["instance_type"] for r in json.loads(captured.out)] == ["box"]
    assert "instances.csv, line 3: usd_per_hour: 'cheap' is not a number; row skipped" in (
        captured.err
    )


def test_compare_prices_the_measured_machine_from_your_catalog(tmp_path, capsys):
    from engine.pricing import user_rows as catalog_user

    catalog_user.add_row(
        "machines",
        {
            "name": "homebox",
            "purchase_usd": 1500,
            "lifetime_years": 4,
            "hours_per_day": 8,
            "rest_of_system_w": 80,
            "usd_per_kwh": 0.30,
            "grid": "azure:westus2",
        },
    )
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(result()))
    rows = run_json(capsys, "compare", str(path), "--machine", "homebox", "--json")
    local = next(r for r in rows if r["local"])
    # $1500 / (4 x 365 x 8 = 11,680 h) = $0.128425/h; (220 + 80) W / 0.9 = 333.33 W x $0.30/kWh
    # = $0.1/h; $0.228425/h for a 50 s epoch = $0.00317257; 333.33 W x 50 s = 0.00462963 kWh x
    # 297.6 g/kWh (westus2) = 0.00137778 kg
    assert local["usd_per_hour"] == pytest.approx(0.228425, rel=1e-5)
    assert local["usd_per_epoch"] == pytest.approx(0.00317257, rel=1e-5)
    assert local["co2_kg_per_epoch"] == pytest.approx(0.00137778, rel=1e-5)
