"""Device probes: the one interface to what a device reports (memory, utilisation, power, energy).

NVIDIA GPUs are read through NVML (nvidia-ml-py, module pynvml); the CPU through psutil and,
where readable, RAPL. Everything GPU-vendor specific in the engine outside the framework
backends lives here. Units: bytes, percent, watts, joules.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import psutil


@dataclass(frozen=True)
class Reading:
    memory_used_bytes: int | None
    memory_total_bytes: int | None
    process_memory_bytes: int | None
    utilization_percent: float | None
    power_w: float | None


class Probe(Protocol):
    name: str

    def read(self) -> Reading: ...

    def energy_j(self) -> float | None:
        """A cumulative energy counter in joules, or None when the device has none."""
        ...

    def state(self) -> dict[str, Any]:
        """Clocks, temperature, throttle reasons: recorded at a run's start and end."""
        ...

    def close(self) -> None: ...


class CpuProbe:
    """Host memory (process RSS against RAM), CPU utilisation, RAPL energy where readable."""

    name = "cpu"
    _RAPL = Path("/sys/class/powercap/intel-rapl:0/energy_uj")

    def __init__(self, pid: int | None = None) -> None:
        self._process = psutil.Process(pid or os.getpid())
        self._process.cpu_percent(None)  # first call primes the counter
        self._rapl_ok = self._RAPL.exists() and os.access(self._RAPL, os.R_OK)

    def read(self) -> Reading:
        vm = psutil.virtual_memory()
        return Reading(
            memory_used_bytes=int(vm.total - vm.available),
            memory_total_bytes=int(vm.total),
            process_memory_bytes=int(self._process.memory_info().rss),
            utilization_percent=psutil.cpu_percent(None),
            power_w=None,
        )

    def energy_j(self) -> float | None:
        if not self._rapl_ok:
            return None
        try:
            return int(self._RAPL.read_text()) / 1e6
        except (OSError, ValueError):
            return None

    def state(self) -> dict[str, Any]:
        freq = psutil.cpu_freq()
        return {"cpu_freq_mhz": freq.current if freq else None}

    def close(self) -> None:
        pass


class NvmlProbe:
    """One NVIDIA GPU through NVML. `index` is the NVML index (CUDA_VISIBLE_DEVICES aside)."""

    def __init__(self, index: int, pid: int | None = None) -> None:
        import pynvml

        self._nvml = pynvml
        pynvml.nvmlInit()
        self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        self._pid = pid or os.getpid()
        self.name = _text(pynvml.nvmlDeviceGetName(self._handle))
        # Volta and newer keep an energy counter; Pascal (GTX 1080 Ti) does not.
        self._has_energy = self._try("nvmlDeviceGetTotalEnergyConsumption") is not None

    def _try(self, function: str, *constants: str) -> Any:
        """Call pynvml's `function` on this GPU with the named constants; None when the driver
        says the query is not supported, or when this pynvml is too old to have the function or
        a constant (nvmlDeviceGetViolationStatus, the clocks-event reasons are recent)."""
        nv = self._nvml
        fn = getattr(nv, function, None)
        args = [getattr(nv, name, None) for name in constants]
        if fn is None or any(arg is None for arg in args):
            return None
        try:
            return fn(self._handle, *args)
        except nv.NVMLError:
            return None

    def read(self) -> Reading:
        memory = self._try("nvmlDeviceGetMemoryInfo")
        util = self._try("nvmlDeviceGetUtilizationRates")
        power_mw = self._try("nvmlDeviceGetPowerUsage")
        return Reading(
            memory_used_bytes=int(memory.used) if memory else None,
            memory_total_bytes=int(memory.total) if memory else None,
            process_memory_bytes=self._process_memory(),
            utilization_percent=float(util.gpu) if util else None,
            power_w=power_mw / 1000.0 if power_mw is not None else None,
        )

    def _process_memory(self) -> int | None:
        processes = self._try("nvmlDeviceGetComputeRunningProcesses")
        if processes is None:
            return None  # not available (e.g. Windows WDDM)
        for proc in processes:
            if proc.pid == self._pid and proc.usedGpuMemory is not None:
                return int(proc.usedGpuMemory)
        return 0

    def energy_j(self) -> float | None:
        if not self._has_energy:
            return None
        millijoules = self._try("nvmlDeviceGetTotalEnergyConsumption")
        return millijoules / 1000.0 if millijoules is not None else None

    def state(self) -> dict[str, Any]:
        return {
            "sm_clock_mhz": self._try("nvmlDeviceGetClockInfo", "NVML_CLOCK_SM"),
            "memory_clock_mhz": self._try("nvmlDeviceGetClockInfo", "NVML_CLOCK_MEM"),
            "temperature_c": self._try("nvmlDeviceGetTemperature", "NVML_TEMPERATURE_GPU"),
            "throttle_reasons": self._clock_event_reasons(),
            "power_limit_w": _div(self._try("nvmlDeviceGetEnforcedPowerLimit"), 1000.0),
            **self._violations(),
            "other_processes": self._other_processes(),
        }

    def _clock_event_reasons(self) -> int | None:
        """Why the clocks are held down now (a bit mask); pynvml before 12.535 names the same
        query "throttle reasons"."""
        reasons = self._try("nvmlDeviceGetCurrentClocksEventReasons")
        if reasons is None:
            reasons = self._try("nvmlDeviceGetCurrentClocksThrottleReasons")
        return reasons

    def _violations(self) -> dict[str, Any]:
        """How long (ns, cumulative) the card was held below its clocks by heat or power, and
        the counters' reference time (us); engine/measure/busy.py turns deltas into warnings."""
        thermal = self._try("nvmlDeviceGetViolationStatus", "NVML_PERF_POLICY_THERMAL")
        power = self._try("nvmlDeviceGetViolationStatus", "NVML_PERF_POLICY_POWER")
        return {
            "reference_time_us": getattr(thermal or power, "referenceTime", None),
            "thermal_violation_ns": getattr(thermal, "violationTime", None),
            "power_violation_ns": getattr(power, "violationTime", None),
        }

    def _other_processes(self) -> int | None:
        """Processes other than this one with work on the GPU (compute or graphics)."""
        pids: set[int] = set()
        seen = False
        for function in (
            "nvmlDeviceGetComputeRunningProcesses",
            "nvmlDeviceGetGraphicsRunningProcesses",
        ):
            processes = self._try(function)
            if processes is not None:
                seen = True
                pids |= {p.pid for p in processes if p.pid != self._pid}
        return len(pids) if seen else None

    def close(self) -> None:
        with contextlib.suppress(self._nvml.NVMLError):
            self._nvml.nvmlShutdown()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _div(value: float | None, by: float) -> float | None:
    return None if value is None else value / by


def nvml_devices() -> list[dict[str, Any]]:
    """NVIDIA GPUs NVML sees: index, name, memory, driver, the highest CUDA version the driver
    runs ("12.4") and each GPU's compute capability ("6.1"); either of the last two is "" where
    this pynvml or driver cannot say. Empty when there is no driver."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # NVMLError_LibraryNotFound without a driver; ImportError without the package
        return []
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        driver_cuda = _nvml_call(pynvml, "nvmlSystemGetCudaDriverVersion")
        found = []
        for i in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(i)
            capability = _nvml_call(pynvml, "nvmlDeviceGetCudaComputeCapability", handle)
            found.append(
                {
                    "index": i,
                    "name": _text(pynvml.nvmlDeviceGetName(handle)),
                    "memory_total_bytes": int(pynvml.nvmlDeviceGetMemoryInfo(handle).total),
                    "driver": driver,
                    # 12040 -> "12.4" (NVML's CUDA_VERSION encoding: 1000 x major + 10 x minor)
                    "driver_cuda": (
                        f"{driver_cuda // 1000}.{driver_cuda % 1000 // 10}" if driver_cuda else ""
                    ),
                    "compute_capability": "{}.{}".format(*capability) if capability else "",
                }
            )
        return found
    finally:
        pynvml.nvmlShutdown()


def _nvml_call(pynvml: Any, function: str, *args: Any) -> Any:
    """pynvml's `function`, or None where this pynvml lacks it or the driver does not support
    it."""
    fn = getattr(pynvml, function, None)
    if fn is None:
        return None
    try:
        return fn(*args)
    except pynvml.NVMLError:
        return None


def open_probe(device: str, cuda_index: int | None = None) -> Probe:
    """The probe for a resolved device string ('cpu', 'cuda:N', 'mps')."""
    if device.startswith("cuda"):
        try:
            return NvmlProbe(cuda_index if cuda_index is not None else _cuda_index(device))
        except Exception:
            return CpuProbe()  # no NVML: host readings only; GPU memory comes from the framework
    return CpuProbe()


def nvml_index(device: str) -> int:
    """NVML's index of the GPU `device` (cuda:N) names, through CUDA_VISIBLE_DEVICES."""
    return _cuda_index(device)


def _cuda_index(device: str) -> int:
    index = int(device.split(":")[1]) if ":" in device else 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        ids = [v.strip() for v in visible.split(",") if v.strip()]
        if index < len(ids) and ids[index].isdigit():
            return int(ids[index])
    return index
