"""One study over any axis (issue 41): real workers on the CPU for the precision and power-limit
axes (the power limit through a stand-in NVML that records every set, since no GPU is here),
the limit restored after a point that measured, failed or was cancelled, and each point stored
with its study tag."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from engine.core.errors import ConfigError
from engine.core.events import Step
from engine.measure import devices
from engine.measure.power_limit import Limits, PowerLimitError
from engine.results.store import Store
from engine.study.axes import AXES, PowerLimitAxis, PrecisionAxis, precision_refusal
from engine.study.events import PointProgress, PointStarted
from engine.study.study import Study, run_study
from tests.engine.helpers import TINY, TINY_ARGS

pytestmark = pytest.mark.worker

SHORT = TINY.with_changes(max_seconds=1.0, repeats=1, usd_per_hour=1.0)
GPU = devices.Device("cuda:0", "cuda", "NVIDIA GeForce GTX 1080 Ti", 11 << 30, "", "6.1")
A100 = devices.Device("cuda:0", "cuda", "NVIDIA A100-SXM4-40GB", 40 << 30, "", "8.0")
CPU = devices.Device("cpu", "cpu", "a CPU", 8 << 30)


class StandInNvml:
    """NVML for one GPU: a 125-300 W range, limit 250 W; records each set."""

    def __init__(self, index: int, refuse: set[float] | None = None) -> None:
        self.index = index
        self.current = 250.0
        self.sets: list[float] = []
        self.refuse = refuse or set()

    def limits(self) -> Limits:
        return Limits(self.index, 125.0, 300.0, 250.0, self.current)

    def set_limit(self, watts: float) -> None:
        if watts in self.refuse:
            raise PowerLimitError(f"refused {watts:g} W")
        self.sets.append(watts)
        self.current = watts


class CpuPowerAxis(PowerLimitAxis):
    """The power-limit axis with the stand-in NVML; its points run on this CPU (the GPU it
    checks against is a stand-in too)."""

    def __init__(self, nvml: StandInNvml) -> None:
        super().__init__(control=lambda index: nvml)

    def prepare(self, config, values):
        checked = super().prepare(config, values)
        assert checked.device == "cuda:0"
        return config


@pytest.fixture
def a_gpu(monkeypatch):
    monkeypatch.setattr(devices, "device_named", lambda requested: GPU)


def test_each_power_limit_is_set_for_its_point_and_restored_after_it(a_gpu):
    nvml = StandInNvml(0)
    store = Store()
    summary = run_study(SHORT, CpuPowerAxis(nvml), (150.0, 200.0), store=store)
    # The permission check sets the limit it found; then each point: set, restore.
    assert nvml.sets == [250.0, 150.0, 250.0, 200.0, 250.0]
    assert [p.status for p in summary.points] == ["ok", "ok"]
    assert summary.cheapest_value in (150.0, 200.0) and summary.unit == "W"
    stored = store.get(summary.points[0].run_id)
    assert stored["study"] == {
        "group_id": summary.group_id,
        "axis": "power-limit",
        "value": 150.0,
        "point": 1,
    }
    assert stored["sweep"]["role"] == "power-limit"


def test_the_limit_is_restored_after_a_failed_point(a_gpu):
    nvml = StandInNvml(0)
    failing = SHORT.with_changes(memory_limit_bytes=1 << 20)  # no model trains in 1 MiB
    summary = run_study(failing, CpuPowerAxis(nvml), (150.0,))
    assert summary.points[0].status in ("oom", "crashed", "failed")
    assert nvml.sets[-2:] == [150.0, 250.0] and nvml.current == 250.0


def test_the_limit_is_restored_after_a_cancelled_point(a_gpu):
    nvml = StandInNvml(0)
    long = SHORT.with_changes(max_seconds=30.0, min_steps=1_000_000, max_steps=1_000_000)
    study = Study(long, CpuPowerAxis(nvml), (150.0, 200.0))
    cancelled = False
    for event in study.events():
        # Mid-point: the first point's worker measuring.
        measuring = isinstance(event, PointProgress) and isinstance(event.event, Step)
        if measuring and event.event.measured and not cancelled:
            cancelled = True
            threading.Thread(target=study.cancel).start()  # as the app does, from its thread
    assert nvml.sets == [250.0, 150.0, 250.0] and nvml.current == 250.0
    assert study.summary().status == "cancelled"


def test_closing_the_events_mid_point_restores_the_limit(a_gpu):
    nvml = StandInNvml(0)
    study = Study(SHORT.with_changes(max_seconds=30.0), CpuPowerAxis(nvml), (150.0,))
    events = study.events()
    for event in events:
        if isinstance(event, PointStarted):
            study.cancel()
            events.close()  # what Ctrl-C on the command line does
            break
    assert nvml.current == 250.0


def test_a_limit_the_gpu_refuses_ends_the_study_saying_so(a_gpu):
    nvml = StandInNvml(0, refuse={200.0})
    summary = run_study(SHORT, CpuPowerAxis(nvml), (200.0, 150.0))
    assert [p.status for p in summary.points] == ["failed"]
    assert summary.error["kind"] == "machine" and "refused 200 W" in summary.error["message"]
    assert nvml.current == 250.0


def test_power_limits_outside_the_gpus_range_or_without_permission_are_refused(a_gpu):
    with pytest.raises(ConfigError, match="outside GPU 0's range") as value:
        Study(SHORT, CpuPowerAxis(StandInNvml(0)), (100.0,))
    assert value.value.field == "power_limit"  # the values' field: --values on the command line
    with pytest.raises(ConfigError, match="needs root") as machine:
        Study(SHORT, PowerLimitAxis(control=_no_permission), (150.0,))
    assert machine.value.field == "axis"  # the machine, not a value


def _no_permission(index: int) -> StandInNvml:
    from engine.measure.power_limit import NEEDS

    nvml = StandInNvml(index)
    nvml.set_limit = lambda watts: (_ for _ in ()).throw(PowerLimitError(NEEDS.format(index=0)))
    return nvml


def test_a_power_limit_study_on_the_cpu_is_refused():
    with pytest.raises(ConfigError) as info:
        Study(SHORT, PowerLimitAxis(), (150.0,))
    assert info.value.field == "device" and "needs an NVIDIA GPU" in info.value.message


@pytest.mark.parametrize(
    ("device", "refused"),
    [(CPU, {"fp16", "tf32"}), (GPU, {"tf32", "bf16"}), (A100, set())],
)
def test_each_device_refuses_the_precisions_it_cannot_run(device, refused):
    said = {p for p in PrecisionAxis.values.choices if precision_refusal(device, p)}
    assert said == refused


def test_a_precision_study_on_the_cpu_measures_fp32_and_bf16_and_says_why_not_tf32():
    store = Store()
    summary = run_study(SHORT, AXES["precision"](), ("fp32", "tf32", "bf16"), store=store)
    assert [(p.value, p.status) for p in summary.points] == [
        ("fp32", "ok"),
        ("tf32", "refused"),
        ("bf16", "ok"),
    ]
    assert "compute capability 8.0" in summary.points[1].message
    assert [store.get(p.run_id)["config"]["precision"] for p in summary.measured] == [
        "fp32",
        "bf16",
    ]
    assert summary.cheapest_value in ("fp32", "bf16")
    assert any(note.startswith("tf32 not run:") for note in summary.notes)


def test_sweep_axis_precision_on_the_command_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "sweep",
            *TINY_ARGS,
            "--max-seconds",
            "1",
            "--repeats",
            "1",
            "--axis",
            "precision",
            "--values",
            "fp32,bf16",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["schema"] == "epochcost.study/1" and summary["axis"] == "precision"
    assert [(p["value"], p["status"]) for p in summary["points"]] == [
        ("fp32", "ok"),
        ("bf16", "ok"),
    ]


@pytest.mark.parametrize(
    "framework", ["torch", pytest.param("tensorflow", marks=pytest.mark.tensorflow)]
)
def test_tf32_on_the_cpu_is_refused_by_the_worker_itself(framework):
    """The precision axis says why before a run; a run asked for tf32 on the CPU says it too,
    in each framework (the worker's own rule), and stores nothing."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            *TINY_ARGS,
            "--framework",
            framework,
            "--precision",
            "tf32",
            "--max-seconds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "tf32 needs an NVIDIA GPU of compute capability 8.0" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_limit_not_restored_after_a_point_keeps_its_measurement_and_ends_the_study(a_gpu):
    nvml = StandInNvml(0)
    study = Study(SHORT, CpuPowerAxis(nvml), (150.0, 200.0), store=Store())
    nvml.refuse = {250.0}  # from now on: the restore to 250 W after the first point fails
    summary = run_summary(study)
    assert [p.status for p in summary.points] == ["ok"]
    assert summary.error["kind"] == "machine"
    assert "nvidia-smi -i 0 -pl 250" in summary.error["message"]
    assert Store().get(summary.points[0].run_id)["status"] == "ok"


def run_summary(study: Study):
    for _ in study.events():
        pass
    return study.summary()


def test_sigterm_ends_a_study_on_the_command_line_as_ctrl_c_does():
    """A `kill` mid-point: the running worker stops, the finished points are kept and said,
    no traceback (the same path restores a power limit)."""
    import signal
    import time

    import psutil

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "sweep",
            *TINY_ARGS,
            "--max-seconds",
            "60",
            "--target-precision",
            "off",
            "--repeats",
            "1",
            "--min-steps",
            "1000000",
            "--max-steps",
            "1000000",
            "--axis",
            "precision",
            "--values",
            "fp32,bf16",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    workers: list[psutil.Process] = []
    while not workers and time.monotonic() < deadline:  # the first point's worker is up
        workers = psutil.Process(proc.pid).children(recursive=True)
        time.sleep(0.2)
    time.sleep(3)  # and measuring (its window lasts up to 60 s)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted (SIGTERM); keeping the finished points" in err
    assert "Traceback" not in err and "cancelled" in out
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--purchase-usd", "699"], "--usd-per-kwh: give your electricity tariff"),
        (["--batch-sizes", "abc"], "--batch-sizes: "),
        (["--batch-sizes", "16,32"], "--batch-sizes: one batch size when the axis is precision"),
        (["--loader-workers", "0:4:0"], "the step must be above 0"),
    ],
)
def test_an_axis_study_with_bad_options_says_which_before_any_point_runs(extra, words):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "sweep",
            *TINY_ARGS,
            "--axis",
            "precision",
            "--values",
            "fp32",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr
    assert "samples/s" not in done.stderr  # no point ran


def test_a_value_the_worker_itself_refuses_is_refused_and_the_study_goes_on(monkeypatch):
    """The device check before a point can miss (a GPU whose capability NVML does not say):
    the worker's own refusal of the axis's value refuses that value only."""
    from engine.study import axes

    monkeypatch.setattr(axes, "precision_refusal", lambda device, precision: None)
    summary = run_study(SHORT, AXES["precision"](), ("fp16", "fp32"))
    assert [(p.value, p.status) for p in summary.points] == [("fp16", "refused"), ("fp32", "ok")]
    assert summary.points[0].message.startswith("precision: fp16 needs a GPU")
    assert summary.error is None and summary.cheapest_value == "fp32"
