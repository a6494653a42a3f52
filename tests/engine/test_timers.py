"""The step timers: the device-event timer's chain of one event a step, with events reused, and
the wall timer's chain of one clock read a step.

CUDA events cannot be had on a machine with no GPU: a fake event with a settable device clock
stands in for them (record, query, synchronize, elapsed_time in milliseconds, as torch's)."""

from __future__ import annotations

import pytest

from engine.worker.frameworks.timers import DeviceEventTimer, WallTimer


class Device:
    """The device's clock (seconds) and how far it has got through the queue."""

    def __init__(self) -> None:
        self.now = 0.0
        self.made = 0
        self.recorded = 0  # events recorded so far
        self.passed = 0  # of those, how many the device has reached

    def event(self) -> FakeEvent:
        self.made += 1
        return FakeEvent(self)


class FakeEvent:
    def __init__(self, device: Device) -> None:
        self.device = device
        self.at: float | None = None
        self.seq = -1

    def record(self, stream: object = None) -> None:
        self.stream = stream
        self.at = self.device.now
        self.seq = self.device.recorded
        self.device.recorded += 1

    def query(self) -> bool:
        return self.seq < self.device.passed

    def synchronize(self) -> None:
        self.device.passed = max(self.device.passed, self.seq + 1)

    def elapsed_time(self, end: FakeEvent) -> float:
        assert self.query() and end.query(), "torch raises when an event is not done"
        return (end.at - self.at) * 1000.0


def step(timer: DeviceEventTimer, device: Device, seconds: float) -> None:
    timer.start()
    device.now += seconds
    timer.stop()


def test_each_step_is_the_time_between_its_event_and_the_one_before():
    device = Device()
    timer = DeviceEventTimer(device.event)
    for seconds in (0.010, 0.020, 0.030):
        step(timer, device, seconds)
    assert timer.completed() == []  # the device has passed nothing yet: no step waits
    device.passed = 2  # the start event and the first step's
    assert timer.completed() == pytest.approx([0.010])
    assert timer.flush() == pytest.approx([0.020, 0.030])


def test_events_are_reused_and_a_flush_starts_a_new_chain():
    device = Device()
    timer = DeviceEventTimer(device.event)
    for _ in range(100):
        step(timer, device, 0.001)
        device.passed = device.recorded  # the device keeps up
        timer.completed()
    assert device.made <= 3  # not two new events a step
    timer.flush()
    device.now += 5.0  # host time between windows (a sync, the next window's phase)
    step(timer, device, 0.002)
    assert timer.flush() == pytest.approx([0.002])  # the gap is in no step


def test_events_are_recorded_on_the_stream_given():
    device = Device()
    made: list[FakeEvent] = []

    def factory() -> FakeEvent:
        made.append(device.event())
        return made[-1]

    timer = DeviceEventTimer(factory, stream="the run's stream")
    step(timer, device, 0.001)
    assert [e.stream for e in made] == ["the run's stream"] * 2


def test_the_wall_timer_chains_steps_end_to_end_as_the_device_timer_does(monkeypatch):
    from types import SimpleNamespace

    from engine.worker.frameworks import timers

    clock = [100.0]
    monkeypatch.setattr(timers, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    timer = WallTimer()
    timer.start()
    for step_s, gap_s in ((0.010, 0.001), (0.020, 0.002), (0.030, 0.0)):
        clock[0] += step_s
        timer.stop()
        clock[0] += gap_s  # the loop's own time before the next step: in the next step's time
        timer.start()  # within a chain: nothing
    assert timer.completed() == pytest.approx([0.010, 0.021, 0.032])
    assert timer.completed() == []  # each time returned once
    clock[0] += 0.004
    timer.stop()
    assert timer.flush() == pytest.approx([0.004])
    clock[0] += 5.0  # host time between windows (a sync, the next window's phase)
    timer.start()
    clock[0] += 0.002
    timer.stop()
    assert timer.flush() == pytest.approx([0.002])  # the gap is in no step
