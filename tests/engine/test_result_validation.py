"""Issue 17: an imported result is validated fully before it is stored. A result that passes
never breaks `results show` or compare; one that does not is a clear refusal (exit 2), never a
traceback, and never changes what is stored."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.core.errors import ConfigError
from engine.pricing import catalog
from engine.pricing.compare import compare
from engine.pricing.compare_rows import CompareOptions
from engine.results import report
from engine.results.schema import validate
from engine.results.store import Store
from tests.engine.test_store import _result

RUN_ID = "20261122T030000-aaaa0001"


def _failed() -> dict[str, Any]:
    r = _result("20261122T030000-ffff0001")
    r.update(status="oom", error={"kind": "oom", "message": "out of memory"})
    r.update(throughput_samples_per_s=None, epoch_seconds=None, usd_per_epoch=None)
    return r


def _gpu() -> dict[str, Any]:
    r = _result("20261122T030000-9999aaaa")
    r["environment"] = {"device": "cuda", "device_name": "NVIDIA GeForce GTX 1080 Ti"}
    r["config"]["device"] = "cuda"
    r["flops"] = {"per_sample": 1e9, "achieved_tflops": 2.0, "mfu": 0.2, "peak_tflops": 10.0}
    return r


def _accuracy() -> dict[str, Any]:
    r = _result("20261122T030000-acc00001")
    r["kind"] = "accuracy"
    r["accuracy"] = {
        "dataset": {"name": "synthetic"},
        "stop_reason": "target",
        "point": {"iteration": 10, "accuracy": 0.5, "seconds": 3.0, "usd": 0.01},
        "curve": [{"iteration": 10, "accuracy": 0.5}],
    }
    return r


_CATALOG = catalog.load()


def _set(result: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(result)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node.setdefault(key, {}) if isinstance(node.get(key), dict | None) else node[key]
    node[last] = value
    return out


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# (path, value, words in the refusal): each crashed `show` or `import`, or was stored unchecked.
BAD = [
    ("workload", "a string", "'workload' must be an object"),
    ("workload.model_file", "x.py", "'workload.model_file' must be an object"),
    ("warnings", "careful", "'warnings' must be a list"),
    ("warnings", [1, 2], "'warnings[0]' must be text"),
    ("step_time_s", {"median": "fast", "p10": 1, "p90": 1}, "'step_time_s.median'"),
    ("step_time_s", None, "'step_time_s' must be an object"),
    ("flops", {"per_sample": "many", "achieved_tflops": 1.0}, "'flops.per_sample'"),
    ("flops", {"mfu": 0.5}, "'flops.per_sample' is missing"),
    ("error", "boom", "'error' must be an object"),
    ("price", {"usd_per_hour": 0.9, "source": "user"}, "'price.as_of' is missing"),
    ("price.as_of", "yesterday", "'price.as_of' must be a date"),
    ("price.usd_per_hour", -1, "'price.usd_per_hour' must be at least 0"),
    ("created_at", 12345, "'created_at' must be text"),
    ("created_at", "soon", "'created_at' must be a date"),
    ("environment.device_name", 42, "'environment.device_name' must be text"),
    ("environment.threads", "two", "'environment.threads' must be a whole number"),
    ("throughput_samples_per_s", -5.0, "'throughput_samples_per_s' must be more than 0"),
    ("throughput_samples_per_s", 0, "'throughput_samples_per_s' must be more than 0"),
    ("epoch_samples", 0, "'epoch_samples' must be at least 1"),
    ("epoch_samples", 1.5, "'epoch_samples' must be a whole number"),
    ("epoch_seconds", True, "'epoch_seconds' must be a number"),
    ("run_id", "../../etc/passwd", "is not a run id"),
    ("run_id", "a b", "is not a run id"),
    ("run_id", "", "is not a run id"),
    ("run_id", "x" * 200, "is not a run id"),
    ("config.batch_size", "16", "'config.batch_size' must be a whole number"),
    ("config.device", None, "'config.device' must be text"),
    (
        "accuracy",
        {"point": 5, "dataset": {"name": "c"}, "stop_reason": "stable", "curve": []},
        "'accuracy.point' must be an object",
    ),
    ("sweep", {"group_id": 1, "role": "x", "trial": 1}, "'sweep.group_id' must be text"),
    ("extra", _nested(100), "nested more than"),
    ("extra", "x" * 1_000_001, "longer than"),
    ("status", "great", "'status' 'great' is not one of"),
]


@pytest.mark.parametrize(
    ("path", "value", "words"), BAD, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(BAD)]
)
def test_malformed_results_are_refused_naming_the_field(tmp_path, capsys, path, value, words):
    Store().add(_result(RUN_ID))
    before = Store().get(RUN_ID)
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(_set(_result(RUN_ID), path, value)))
    assert main(["results", "import", str(file)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and "internal error" not in err
    assert Store().get(RUN_ID) == before
    assert len(Store().list()) == 1


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_refused(tmp_path, capsys, text):
    body = json.dumps(_result(RUN_ID)).replace('"memory_fill": 0.1', f'"memory_fill": {text}')
    file = tmp_path / "nan.json"
    file.write_text(body)
    assert main(["results", "import", str(file)]) == 2
    err = capsys.readouterr().err
    assert "memory_fill" in err or text in err
    assert Store(readonly=True).list().empty


def test_good_results_pass_and_show(capsys, tmp_path):
    for result in (_result(RUN_ID), _failed()):
        file = tmp_path / "r.json"
        file.write_text(json.dumps(result))
        assert main(["results", "import", str(file)]) == 0
        assert main(["results", "show", result["run_id"]]) == 0
    assert "out of memory" in capsys.readouterr().out


def test_a_stored_result_that_no_longer_passes_is_a_refusal_on_show(capsys):
    """A result stored by an older epochcost (weaker checks) is said, not a traceback."""
    store = Store()
    store.add(_result(RUN_ID))
    with store._connect() as db:
        broken = _set(_result(RUN_ID), "step_time_s", "fast")
        db.execute("UPDATE results SET body = ? WHERE run_id = ?", (json.dumps(broken), RUN_ID))
    assert main(["results", "show", RUN_ID]) == 2
    err = capsys.readouterr().err
    assert "cannot be read" in err and "results delete" in err and "Traceback" not in err


# property: generated malformed results ---------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
PATHS = [
    "run_id", "status", "created_at", "error", "config", "config.model", "config.batch_size",
    "config.device", "config.precision", "config.framework", "environment", "environment.device",
    "environment.device_name", "environment.threads", "price", "price.usd_per_hour",
    "price.as_of", "price.source", "workload", "workload.epoch_unit", "workload.model_file",
    "warnings", "step_time_s", "step_time_s.median", "step_time_s.p10", "steps_measured",
    "stop_reason", "epoch_samples", "epoch_seconds", "throughput_samples_per_s",
    "peak_memory_bytes", "memory_total_bytes", "memory_fill", "usd_per_epoch", "flops",
    "flops.per_sample", "flops.mfu", "flops.peak_source", "accuracy", "compile_seconds",
    "energy", "sweep", "kind", "accuracy.point", "accuracy.curve", "accuracy.dataset",
    "accuracy.point.usd", "accuracy.point.iteration", "accuracy.stop_reason",
]  # fmt: skip


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    base=st.sampled_from([_result(RUN_ID), _failed(), _gpu(), _accuracy()]),
    edits=st.lists(st.tuples(st.sampled_from(PATHS), JSON), min_size=1, max_size=3),
)
def test_no_generated_result_breaks_import_or_show(base, edits):
    """Import of any mutation: a ConfigError or a stored result that `show` prints; the result
    already stored under the same id is never changed."""
    store = Store()
    stored = store.add(_result(RUN_ID, 123.0)).run_id if not store.list().size else RUN_ID
    before = store.get(stored)
    result = base
    for path, value in edits:
        try:
            result = _set(result, path, value)
        except (TypeError, AttributeError, KeyError):
            continue  # a parent that is not an object: nothing to set
    try:
        validated = validate(json.loads(json.dumps(result)))
    except ConfigError:
        validated = None
    except ValueError:
        return  # NaN or infinity: the JSON text cannot hold it (tested above)
    if validated is not None:  # never raises for a result that passes
        report.summary(validated)
        if validated["status"] == "ok":
            compare(validated, _CATALOG, CompareOptions(max_gpus=None), [])
    with contextlib.suppress(ConfigError):
        store.import_result(result)
    assert store.get(stored) == before
