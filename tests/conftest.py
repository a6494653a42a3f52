"""Fixtures for every test: a private data folder, and no worker process left behind; and
the tiers each test belongs to (pyproject's markers): `-m "not slow"` (`make test-fast`) leaves
out the tests listed in tests/slow_tests.txt, `-m "not worker and not tensorflow"` is the
quickest tier, `-m gui` the desktop app's."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from engine.cloud import check_server
from engine.core import compile_cache
from engine.process import forked
from tests.engine.helpers import kept_processes, servers_set_aside

# Test modules that start a worker (or another Python process: the CLI, an interpreter check).
PROCESS_MODULES = {
    "test_cli_faults",
    "test_busy",
    "test_store_faults",
    "test_accuracy_run",
    "test_catalog",
    "test_cli",
    "test_cli_accuracy",
    "test_cli_plan",
    "test_cli_prices",
    "test_cli_profiles",
    "test_interpreter",
    "test_keras_flops",
    "test_keras_models",
    "test_model_file",
    "test_model_file_cli",
    "test_model_file_family",
    "test_paths",
    "test_sweep",
    "test_tf_accuracy",
    "test_tf_backend",
    "test_worker",
    "test_worker_children",
    "test_worker_tempdir",
    "test_distributed",
    "test_gpu_check_script",
    "test_run_status",
    "test_gpu_check",
    "test_device_box",
    "test_doctor",
    "test_environments",
    "test_accuracy_page",
    "test_app_entry",
    "test_app_process",
    "test_config_panel",
    "test_profiles_gui",
    "test_error_path",
    "test_model_files",
    "test_prices_run",
    "test_prices_widget",
    "test_results",
    "test_run_flow",
    "test_settings_dialog",
    "test_sweep_page",
    "test_bundle_smoke",
    "test_slim_bundle",
    "test_two_programs",
    "test_envs",
    "test_write_path",
    "test_closed_streams",
    "test_cloud_collect",
    "test_cloud_collect_checks",
    "test_cloud_measure",
    "test_cloud_env",
    "test_check_server",
    "test_data_pipeline",
    "test_data_tensorflow",
    "test_data_sweep",
    "test_precision_run",
    "test_run_precision",
}


SLOW_LIST = Path(__file__).with_name("slow_tests.txt")
UNLISTED_SLOW_S = 10.0  # a test this long that is not in SLOW_LIST is named at the end
_unlisted_slow: list[tuple[float, str]] = []


def slow_tests() -> dict[str, float]:
    """SLOW_LIST's tests: node id -> the seconds it took when it was listed."""
    seconds = {}
    for line in SLOW_LIST.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            took, nodeid = line.split(maxsplit=1)
            seconds[nodeid] = float(took)
    return seconds


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow = slow_tests()
    for item in items:
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
        path = Path(str(item.path))
        if path.stem in PROCESS_MODULES:
            item.add_marker(pytest.mark.worker)
        if {"gui", "bundle"} & set(path.parts):
            item.add_marker(pytest.mark.gui)
        tf_module = path.stem.startswith(("test_tf_", "test_keras_"))
        if tf_module or "tensorflow" in item.nodeid or "keras" in item.nodeid:
            item.add_marker(pytest.mark.tensorflow)
    # The collected order is kept: the files with slow tests moved first, heaviest first,
    # made `make test` slower (1,846 s against 1,440 s simulated from the same durations):
    # pytest-xdist's `load` hands out a quarter of the tests at the start, one process got
    # most of the heavy ones and the other waited (benchmarks/RESULTS.md, issue 42).


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    long = report.when == "call" and report.duration >= UNLISTED_SLOW_S
    if long and "slow" not in report.keywords:
        _unlisted_slow.append((report.duration, report.nodeid))


def pytest_terminal_summary(terminalreporter) -> None:
    if _unlisted_slow:
        terminalreporter.section(f"over {UNLISTED_SLOW_S:g} s and not in {SLOW_LIST.name}")
        for took, nodeid in sorted(_unlisted_slow, reverse=True):
            terminalreporter.write_line(f"{took:6.1f} s  {nodeid}")


def _prewarm() -> None:
    for framework in forked.FRAMEWORKS:
        forked.prewarm(framework=framework)


# Where PyTorch keeps its compile cache, set in this process before the servers start: a test
# that uses torch in this process sets it itself at its first look (torch's cache_dir()), and
# a server started without it no longer matched the process's import environment: both were
# started again, twice a run, about 7 s of CPU each time (engine/process/forked.py).
os.environ.setdefault(compile_cache.ENV, compile_cache.default_dir())


@pytest.fixture(autouse=True, scope="session")
def warm_workers():
    """The tests' PyTorch and TensorFlow workers forked from one warm process of each
    framework per test process, as a study's and the app's are (engine/process/forked.py); the
    command line's runs start fresh, and tests/engine/test_forked.py compares the two."""
    _prewarm()
    yield
    forked.shutdown()
    check_server.shutdown()


@pytest.fixture(autouse=True)
def warm_server_back():
    """The servers started again where a test stopped them or left one of another environment
    (tests/engine/test_forked.py): at once when those of this environment run. A test that
    starts with none (fresh_server) sets them aside after this."""
    _prewarm()


@pytest.fixture
def fresh_server():
    """No server at the start, none of the test's left after; the test process's own are set
    aside meanwhile and serve the next tests (tests/engine/helpers.servers_set_aside)."""
    with servers_set_aside():
        yield


@pytest.fixture(autouse=True)
def epochcost_home(tmp_path, monkeypatch):
    """Each test gets its own store and settings folder (EPOCHCOST_HOME)."""
    home = tmp_path / "epochcost-home"
    monkeypatch.setenv("EPOCHCOST_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """Fail a test that leaves a child process (a worker) running, but those kept by design
    (tests/engine/helpers.kept_processes)."""
    yield
    me = psutil.Process(os.getpid())
    servers = kept_processes()
    alive = [
        p
        for p in me.children(recursive=True)
        if p.pid not in servers and p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]
    if alive:
        _, still = psutil.wait_procs(alive, timeout=5)
        for p in still:
            p.kill()
        if still:
            pytest.fail(f"test left processes running: {[p.cmdline()[:4] for p in still]}")
