"""A GPU's power limit (NVML's power-management limit), read, set and restored: the one place
epochcost changes a setting of the machine, for the power-limit axis of a study
(engine/study/axes.py). Setting it needs root (or an administrator's `nvidia-smi -pl`); reading
it does not.

    control = nvml_control(0)          # GPU 0; a stand-in in tests (anything with these methods)
    with applied(control, 180.0):      # set for one point, restored after it, however it ends
        ...

`applied` restores the limit found before it, also when the point fails, is cancelled or the
generator around it is closed; a restore that fails raises PowerLimitError saying the command
that puts it back, so the user is never left with a lowered card unknowingly.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

NEEDS = (
    "setting a GPU's power limit needs root: run epochcost as root (sudo), or have an "
    "administrator set it with `nvidia-smi -i {index} -pl WATTS` before each run"
)


class PowerLimitError(RuntimeError):
    """The limit cannot be read, set or restored; the message says what to do."""


class OutOfRange(PowerLimitError):
    """A limit asked for is outside what the GPU allows (the value is wrong, not the machine)."""


@dataclass(frozen=True)
class Limits:
    """What the GPU allows, in watts: the settable range, its default and the limit now."""

    index: int
    minimum_w: float
    maximum_w: float
    default_w: float
    current_w: float


class PowerControl(Protocol):
    """Reads and sets one GPU's power limit (NVML, or a stand-in in tests)."""

    index: int

    def limits(self) -> Limits: ...

    def set_limit(self, watts: float) -> None: ...


class NvmlControl:
    """One NVIDIA GPU's power limit through pynvml (milliwatts on the wire)."""

    def __init__(self, index: int) -> None:
        self.index = index
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception as error:  # no driver, no pynvml
            raise PowerLimitError(f"NVML is not available here ({error})") from None
        self._nvml: Any = pynvml
        try:
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        except Exception as error:
            raise PowerLimitError(f"no NVIDIA GPU {index} ({error})") from None

    def limits(self) -> Limits:
        nvml, handle = self._nvml, self._handle
        try:
            low, high = nvml.nvmlDeviceGetPowerManagementLimitConstraints(handle)
            default = nvml.nvmlDeviceGetPowerManagementDefaultLimit(handle)
            current = nvml.nvmlDeviceGetPowerManagementLimit(handle)
        except Exception as error:
            raise PowerLimitError(
                f"GPU {self.index} does not report its power limits ({error})"
            ) from None
        return Limits(self.index, low / 1000, high / 1000, default / 1000, current / 1000)

    def set_limit(self, watts: float) -> None:
        nvml = self._nvml
        try:
            nvml.nvmlDeviceSetPowerManagementLimit(self._handle, int(round(watts * 1000)))
        except nvml.NVMLError_NoPermission:
            raise PowerLimitError(NEEDS.format(index=self.index)) from None
        except Exception as error:
            raise PowerLimitError(
                f"GPU {self.index} refused a power limit of {watts:g} W ({error})"
            ) from None


def nvml_control(index: int) -> PowerControl:
    return NvmlControl(index)


def check_settable(control: PowerControl, values: tuple[float, ...]) -> Limits:
    """The GPU's limits, after checking every value is in its range and that this process may
    set a limit (by setting the current one again); PowerLimitError saying what is needed."""
    limits = control.limits()
    for watts in values:
        if not limits.minimum_w <= watts <= limits.maximum_w:
            raise OutOfRange(
                f"{watts:g} W is outside GPU {limits.index}'s range "
                f"({limits.minimum_w:g} to {limits.maximum_w:g} W)"
            )
    control.set_limit(limits.current_w)  # a no-op that fails without the permission
    return limits


@contextmanager
def applied(control: PowerControl, watts: float) -> Iterator[Limits]:
    """The limit set to `watts` inside the block, the one before it restored after it."""
    before = control.limits()
    control.set_limit(watts)
    try:
        yield before
    finally:
        try:
            control.set_limit(before.current_w)
        except PowerLimitError as error:
            raise PowerLimitError(
                f"could not restore GPU {control.index}'s power limit to {before.current_w:g} W "
                f"({error}); restore it with `nvidia-smi -i {control.index} -pl "
                f"{before.current_w:g}`"
            ) from None
