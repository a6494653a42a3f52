"""epochcost sweep --loader-workers: each count a stored run at one batch, its throughput,
input wait and $/epoch, and the cheapest; a sweep with nothing to load is refused."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.results.store import Store
from tests.engine.data_helpers import image_folder
from tests.engine.helpers import TINY_ARGS

SHORT = [*TINY_ARGS, "--max-seconds", "1.5", "--repeats", "1", "--price-per-hour", "1"]


def _sweep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.cli", "sweep", *SHORT, *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_loader_workers_sweep_measures_each_count_and_names_the_cheapest(tmp_path):
    folder = image_folder(tmp_path / "set", images=32, classes=2)
    done = _sweep("--data", f"imagefolder:{folder}", "--loader-workers", "0,1", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [p["loader_workers"] for p in summary["points"]] == [0, 1]
    assert all(p["status"] == "ok" and p["usd_per_epoch"] for p in summary["points"])
    assert all(0 <= p["input_wait_fraction"] <= 1 for p in summary["points"])
    assert summary["cheapest_loader_workers"] in (0, 1)
    stored = [Store().get(p["run_id"]) for p in summary["points"]]
    assert [r["config"]["loader_workers"] for r in stored] == [0, 1]
    assert {r["sweep"]["group_id"] for r in stored} == {summary["group_id"]}


def test_a_loader_workers_sweep_without_data_to_load_is_refused():
    done = _sweep("--data", "synthetic", "--loader-workers", "0,2")
    assert done.returncode == 2
    assert done.stderr.startswith("epochcost: error: --loader-workers: ")
    assert "needs data to load" in done.stderr and "Traceback" not in done.stderr


def test_results_show_puts_a_loading_run_beside_its_synthetic_twin(tmp_path):
    folder = image_folder(tmp_path / "set", images=32, classes=2)
    args = [sys.executable, "-m", "engine.cli"]
    common = [*SHORT, "--loader-workers", "0", "--json"]
    runs = [
        json.loads(
            subprocess.run(
                [*args, "run", *common, *extra],
                capture_output=True,
                text=True,
                timeout=300,
                check=True,
            ).stdout
        )
        for extra in (["--data", "synthetic"], ["--data", f"imagefolder:{folder}"])
    ]
    shown = subprocess.run(
        [*args, "results", "show", runs[1]["run_id"], "--json"], capture_output=True, text=True
    )
    cost = json.loads(shown.stdout)["data_cost"]
    assert cost["synthetic_run_id"] == runs[0]["run_id"]
    assert cost["synthetic_samples_per_s"] == runs[0]["throughput_samples_per_s"]
    assert cost["data_usd_per_epoch"] is not None
    text = subprocess.run(
        [*args, "results", "show", runs[1]["run_id"]], capture_output=True, text=True
    ).stdout
    assert "data cost" in text and runs[0]["run_id"] in text
    synthetic = subprocess.run(
        [*args, "results", "show", runs[0]["run_id"], "--json"], capture_output=True, text=True
    ).stdout
    assert "data_cost" not in json.loads(synthetic)
