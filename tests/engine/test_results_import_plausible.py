"""Issue 39, "trusted forgeries": a result from elsewhere is refused on import when no
measurement could have made it: dated in the future (9999-12-31 would head `results list` for
good), or faster than its device can compute (a CPU result scaled 10^7 times, a T4 past its
peak). What a real run reads stays importable: a clock a few hours ahead, an fp32 run above its
FP32 peak through TF32, a GPU the catalog lacks. And a result the store cannot take is never
written outside recovered/ through its run id."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from typing import Any

import pytest

from engine.cli import main
from engine.core.errors import ConfigError, StoreError
from engine.results import plausible, saving
from engine.results.store import Store, _row
from tests.engine.test_result_reading import GOOD, _edited
from tests.engine.test_store import _result

# tiny-mlp's FLOPs per sample, as the worker counts them (forward + backward).
PER_SAMPLE = 1_580_544.0


def _import(tmp_path, capsys, result: dict[str, Any]) -> tuple[int, str]:
    file = tmp_path / "forged.json"
    file.write_text(json.dumps(result))
    rc = main(["results", "import", str(file)])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    return rc, err


def _refused(tmp_path, capsys, result: dict[str, Any], *words: str) -> str:
    rc, err = _import(tmp_path, capsys, result)
    assert rc == 2, err
    assert len(err.strip().splitlines()) == 1 and "forged.json" in err, err
    for word in words:
        assert word in err, err
    assert Store(readonly=True).list().empty
    return err


def _with_rate(throughput: float, env: dict[str, Any], config: dict[str, Any] | None = None):
    """A result of `throughput` samples/s on `env`, its FLOPs tiny-mlp's."""
    result = _result(GOOD, throughput)
    result["environment"] = env
    result["config"].update(config or {})
    result["flops"] = {"per_sample": PER_SAMPLE, "achieved_tflops": PER_SAMPLE * throughput / 1e12}
    return result


# Dated now or before ---------------------------------------------------------------------------


@pytest.mark.parametrize("created_at", ["9999-12-31T00:00:00+00:00", "9999-12-31"])
def test_a_result_dated_9999_is_refused(tmp_path, capsys, created_at):
    _refused(tmp_path, capsys, _edited("created_at", created_at), "created_at 9999-12-31", "future")


def test_a_clock_a_few_hours_ahead_is_allowed(tmp_path, capsys):
    ahead = dt.datetime.now(dt.UTC) + dt.timedelta(hours=5)
    rc, err = _import(tmp_path, capsys, _edited("created_at", ahead.isoformat(timespec="seconds")))
    assert rc == 0, err


def test_two_days_ahead_is_refused(tmp_path, capsys):
    ahead = dt.datetime.now(dt.UTC) + dt.timedelta(days=2)
    _refused(tmp_path, capsys, _edited("created_at", ahead.isoformat()), "in the future")


# No faster than the device --------------------------------------------------------------------


def test_a_cpu_result_scaled_ten_million_times_is_refused(tmp_path, capsys):
    cpu = {"device": "cpu", "cpu": "AMD EPYC", "cpu_count_logical": 2}
    assert _import(tmp_path, capsys, _with_rate(7426.0, cpu))[0] == 0  # as measured: 0.0117
    Store().delete(GOOD)
    forged = _with_rate(7426.0 * 1e7, cpu)  # 1.17e5 TFLOP/s
    _refused(
        tmp_path,
        capsys,
        forged,
        "1.174e+05 TFLOP/s per device on AMD EPYC",
        "physical peak of 8 TFLOP/s",
        "2 logical cores",
    )


def test_a_stated_rate_past_the_peak_is_refused_even_when_the_throughput_is_not(tmp_path, capsys):
    forged = _with_rate(7426.0, {"device": "cpu"})
    forged["flops"]["achieved_tflops"] = 3.25e5
    _refused(tmp_path, capsys, forged, "3.25e+05 TFLOP/s", "physical peak of 100 TFLOP/s")


def _gpu(name: str) -> dict[str, Any]:
    return {"device": "cuda", "device_name": name, "gpu_count": 1}


def test_a_t4_result_past_its_tensor_peak_is_refused(tmp_path, capsys):
    # 8e7 samples/s x 1.58 MFLOP = 126 TFLOP/s; the T4's fastest dense rate is 65.13
    forged = _with_rate(8e7, _gpu("Tesla T4"), {"device": "cuda", "precision": "fp16"})
    _refused(tmp_path, capsys, forged, "on Tesla T4", "physical peak of 65.13 TFLOP/s")


def test_an_fp32_run_above_its_fp32_peak_through_tf32_is_imported(tmp_path, capsys):
    # 70 TFLOP/s on an H100: above its FP32 66.91 (its convolutions ran as TF32), below 989.4
    real = _with_rate(70e12 / PER_SAMPLE, _gpu("NVIDIA H100 80GB HBM3"), {"device": "cuda"})
    rc, err = _import(tmp_path, capsys, real)
    assert rc == 0, err


def test_a_gpu_the_catalog_lacks_is_imported_marked_unchecked(tmp_path, capsys):
    unknown = _with_rate(8e7, _gpu("Imaginary GPU 9000"), {"device": "cuda"})
    file = tmp_path / "unknown.json"
    file.write_text(json.dumps(unknown))
    assert main(["results", "import", str(file)]) == 0
    said = capsys.readouterr().out
    assert f"imported {GOOD}; its FLOP rate is unchecked: " in said
    assert "no peak bounds Imaginary GPU 9000: not in the GPU catalog" in said
    peak, why = plausible.physical_peak(unknown)
    assert peak is None and "not in the GPU catalog" in why
    assert Store().list().status.tolist() == ["ok"]  # read back as it is: unchecked, kept


def test_a_checked_import_says_nothing_of_it(tmp_path, capsys):
    cpu = {"device": "cpu", "cpu": "AMD EPYC", "cpu_count_logical": 2}
    file = tmp_path / "cpu.json"
    file.write_text(json.dumps(_with_rate(7426.0, cpu)))
    assert main(["results", "import", str(file)]) == 0
    assert capsys.readouterr().out.strip() == f"imported {GOOD}"


# The store holds every row it adds and reads to the date rule --------------------------------


def _stored_before_the_rule(store: Store, result: dict[str, Any]) -> None:
    """A row written as an older epochcost wrote it, before the store held it to the rule."""
    with sqlite3.connect(store.path) as db:
        db.execute(f"INSERT INTO results VALUES ({','.join('?' * 14)})", _row(result, None))


def test_a_row_dated_in_the_future_is_listed_damaged_and_last(capsys):
    store = Store()
    store.add(_result("fine-run"))
    forged = _edited("created_at", "9999-12-31T00:00:00+00:00", "forged-date")
    with pytest.raises(ConfigError, match="created_at 9999-12-31T00:00:00.00:00 is in the future"):
        store.add(forged)  # never stored, then found damaged
    _stored_before_the_rule(store, forged)
    frame = store.list()
    assert frame.run_id.tolist() == ["fine-run", "forged-date"]  # no longer heads the list
    assert frame.status.tolist() == ["ok", "damaged"]
    assert "is in the future" in store.damaged()["forged-date"]
    assert main(["results", "show", "forged-date"]) == 2
    err = capsys.readouterr().err
    assert "is in the future" in err and "results delete forged-date" in err, err
    assert main(["results", "list"]) == 0
    assert "stored result forged-date cannot be read" in capsys.readouterr().err


def test_a_data_parallel_rate_is_per_gpu(tmp_path, capsys):
    # 8 T4s at 50 TFLOP/s each: 400 in all, each under the T4's 65.13
    result = _with_rate(8 * 50e12 / PER_SAMPLE, _gpu("Tesla T4"), {"device": "cuda"})
    result["distributed"] = {
        "world_size": 8,
        "nnodes": 1,
        "nproc_per_node": 8,
        "backend": "nccl",
        "per_process_batch": 16,
        "global_batch": 128,
        "per_rank": [],
    }
    assert plausible.claimed_tflops_per_device(result) == pytest.approx(50.0)
    rc, err = _import(tmp_path, capsys, result)
    assert rc == 0, err


# The store's recovery file is named by a run id, never a path -----------------------------------


class Refusing:
    def add(self, result, group_id=None):
        raise StoreError("results.db", "is damaged")


@pytest.mark.parametrize("run_id", ["../profiles", "/abs/elsewhere", ".."])
def test_a_result_whose_run_id_is_a_path_gets_no_recovery_file(epochcost_home, run_id):
    epochcost_home.mkdir(parents=True, exist_ok=True)
    profiles = epochcost_home / "profiles.json"
    profiles.write_text("{}\n")
    kept = saving.keep({**_result(GOOD), "run_id": run_id}, Refusing())
    assert kept.lost and kept.file is None
    assert "no recovery file either" in kept.message() and "is not a run id" in kept.message()
    assert profiles.read_text() == "{}\n"
    assert not (epochcost_home / "recovered").exists()


def test_a_run_id_still_gets_its_recovery_file(epochcost_home):
    kept = saving.keep(_result(GOOD), Refusing())
    assert kept.file == epochcost_home / "recovered" / f"{GOOD}.json"
