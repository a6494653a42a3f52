"""Device probes. The CPU path is real; NVML is replaced by a fake module only because no
machine here has an NVIDIA driver (the true boundary), to check our use of its API."""

from __future__ import annotations

import sys
import time
import types

import pytest

from engine.measure.probes import CpuProbe, NvmlProbe, nvml_devices
from engine.worker.measure.monitor import Monitor


def test_cpu_probe_reads_this_process_and_the_machine():
    reading = CpuProbe().read()
    assert 0 < reading.process_memory_bytes < reading.memory_total_bytes
    assert 0 < reading.memory_used_bytes <= reading.memory_total_bytes


def test_monitor_keeps_the_peak_and_queues_samples():
    monitor = Monitor(CpuProbe(), "r", interval_s=0.05).start()
    ballast = bytearray(64 * 2**20)  # 64 MiB more resident memory
    ballast[::4096] = b"x" * len(ballast[::4096])
    time.sleep(0.3)
    summary = monitor.summary()
    monitor.stop()
    samples = monitor.drain()
    assert len(samples) >= 3 and all(s.run_id == "r" for s in samples)
    assert summary.peak_process_memory_bytes >= 64 * 2**20
    del ballast


class FakeNvml(types.ModuleType):
    """The parts of pynvml the probe calls, with a Pascal card (no energy counter) or Volta."""

    class NVMLError(Exception):
        pass

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

    def __init__(self, energy: bool) -> None:
        super().__init__("pynvml")
        self.energy = energy
        self.power_mw = 250_000

    def nvmlInit(self):
        pass

    def nvmlShutdown(self):
        pass

    def nvmlSystemGetDriverVersion(self):
        return b"550.54"

    def nvmlDeviceGetCount(self):
        return 1

    def nvmlDeviceGetHandleByIndex(self, i):
        return f"h{i}"

    def nvmlDeviceGetName(self, h):
        return "NVIDIA GeForce GTX 1080 Ti"

    def nvmlDeviceGetMemoryInfo(self, h):
        return types.SimpleNamespace(used=3 * 2**30, total=11 * 2**30)

    def nvmlDeviceGetUtilizationRates(self, h):
        return types.SimpleNamespace(gpu=97)

    def nvmlDeviceGetPowerUsage(self, h):
        return self.power_mw

    def nvmlDeviceGetTotalEnergyConsumption(self, h):
        if not self.energy:
            raise self.NVMLError("Not Supported")
        return 1_000_000  # mJ

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        import os

        return [
            types.SimpleNamespace(pid=1, usedGpuMemory=2**30),
            types.SimpleNamespace(pid=os.getpid(), usedGpuMemory=2 * 2**30),
        ]

    def nvmlDeviceGetClockInfo(self, h, kind):
        return 1500

    def nvmlDeviceGetTemperature(self, h, kind):
        return 70

    def nvmlDeviceGetCurrentClocksEventReasons(self, h):
        return 0

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return 250_000


@pytest.fixture
def fake_nvml(monkeypatch):
    def install(energy: bool) -> FakeNvml:
        module = FakeNvml(energy)
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    return install


def test_nvml_probe_reads_this_process_memory_and_power(fake_nvml):
    fake_nvml(energy=False)
    probe = NvmlProbe(0)
    reading = probe.read()
    assert reading.process_memory_bytes == 2 * 2**30  # our pid, not the other process
    assert reading.memory_total_bytes == 11 * 2**30
    assert reading.power_w == 250.0 and reading.utilization_percent == 97.0
    assert probe.energy_j() is None  # Pascal: no counter
    assert probe.state()["power_limit_w"] == 250.0


def test_an_older_pynvml_without_violation_counters_reads_them_as_unknown(fake_nvml):
    fake_nvml(energy=False)  # this fake has no nvmlDeviceGetViolationStatus, as pynvml < 11
    state = NvmlProbe(0).state()
    assert state["thermal_violation_ns"] is None and state["power_violation_ns"] is None
    assert state["reference_time_us"] is None
    assert state["throttle_reasons"] == 0 and state["other_processes"] == 1


def test_violation_counters_and_the_old_throttle_name_are_read(fake_nvml, monkeypatch):
    module = fake_nvml(energy=True)
    module.NVML_PERF_POLICY_POWER, module.NVML_PERF_POLICY_THERMAL = 0, 1
    counters = {0: 3_000_000, 1: 5_000_000}
    module.nvmlDeviceGetViolationStatus = lambda h, policy: types.SimpleNamespace(
        referenceTime=1_000_000, violationTime=counters[policy]
    )
    monkeypatch.delattr(FakeNvml, "nvmlDeviceGetCurrentClocksEventReasons")  # pynvml < 12.535
    module.nvmlDeviceGetCurrentClocksThrottleReasons = lambda h: 0x20
    state = NvmlProbe(0).state()
    assert state["reference_time_us"] == 1_000_000
    assert state["power_violation_ns"] == 3_000_000
    assert state["thermal_violation_ns"] == 5_000_000
    assert state["throttle_reasons"] == 0x20


def test_without_an_energy_counter_power_is_integrated(fake_nvml):
    fake_nvml(energy=False)
    monitor = Monitor(NvmlProbe(0), "r", interval_s=0.05).start()
    time.sleep(0.5)
    summary = monitor.summary()
    monitor.stop()
    assert summary.energy_method == "power-integral"
    # 250 W constant: energy = 250 W x the time between first and last reading
    assert 0.25 * 250 < summary.energy_j <= summary.seconds * 250 + 1e-6
    assert summary.mean_power_w == 250.0


def test_with_an_energy_counter_the_counter_is_used(fake_nvml):
    fake_nvml(energy=True)
    monitor = Monitor(NvmlProbe(0), "r", interval_s=0.05).start()
    summary = monitor.summary()
    monitor.stop()
    assert summary.energy_method == "counter" and summary.energy_j == 0.0


def test_a_window_shorter_than_the_sampling_interval_still_has_power(fake_nvml):
    # Seen on an H200 (2026-11-26): a fast GPU's 0.15 s windows fell between two readings of
    # the 0.5 s sampler, and the run recorded no mean power. Without a counter (Pascal), one
    # reading is taken at the window's end and held over it.
    fake_nvml(energy=False)
    monitor = Monitor(NvmlProbe(0), "r", interval_s=60.0).start()
    monitor.begin_window()
    summary = monitor.summary()
    monitor.stop()
    assert summary.mean_power_w == 250.0
    assert summary.energy_method == "power-reading"
    assert summary.energy_j == pytest.approx(250.0 * summary.seconds)


def test_with_an_energy_counter_mean_power_is_the_counter_over_the_window(fake_nvml, monkeypatch):
    module = fake_nvml(energy=True)
    clock = iter(range(0, 10_000_000, 30_000))  # mJ: 30 J more at every reading
    monkeypatch.setattr(module, "nvmlDeviceGetTotalEnergyConsumption", lambda h: next(clock))
    monitor = Monitor(NvmlProbe(0), "r", interval_s=60.0).start()
    monitor.begin_window()
    time.sleep(0.1)
    summary = monitor.summary()
    monitor.stop()
    assert summary.energy_method == "counter" and summary.energy_j == pytest.approx(30.0)
    assert summary.mean_power_w == pytest.approx(30.0 / summary.seconds)


def test_no_driver_means_no_gpus(monkeypatch):
    class Missing(types.ModuleType):
        class NVMLError(Exception):
            pass

        def nvmlInit(self):
            raise self.NVMLError("NVML Shared Library Not Found")

    monkeypatch.setitem(sys.modules, "pynvml", Missing("pynvml"))
    assert nvml_devices() == []


def test_gpus_are_listed_with_name_and_memory(fake_nvml):
    fake_nvml(energy=False)
    (gpu,) = nvml_devices()
    assert gpu["name"] == "NVIDIA GeForce GTX 1080 Ti"
    assert gpu["memory_total_bytes"] == 11 * 2**30
