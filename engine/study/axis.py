"""What a study varies: an axis names the setting, reads its values, says which values this
device cannot run (and why), makes each point's config, and wraps a point in whatever the
setting needs around the worker (a GPU power limit set and restored). engine/study/study.py runs
any axis the same way; engine/study/axes.py holds the axes epochcost has.

Adding an axis is one subclass in axes.py and its name in AXES: the runner, the events, the
summary, the CLI's `sweep --axis` and the app's Sweep tab take it from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.core.value_lists import ListSpec, parse_values
from engine.measure.config import RunConfig


class Axis:
    """A setting a study varies. Subclasses set the class attributes and override what differs."""

    name: str = ""  # what `sweep --axis` takes: "loader-workers"
    field: str = ""  # the RunConfig field it sets ("" when it is not one: the power limit)
    label: str = ""  # the chart's x axis and the table's header: "loader workers"
    unit: str = ""  # "W"
    role: str = ""  # the stored results' sweep role (engine/results/schema.py's "sweep" tag)
    values: ListSpec
    group_prefix: str = "sweep"  # the study's group id starts so

    def parse(self, text: str | None) -> tuple[Any, ...]:
        """The values a user typed (one reader for every list: engine/core/value_lists.py)."""
        return parse_values(text, self.values)

    def prepare(self, config: RunConfig, values: tuple[Any, ...]) -> RunConfig:
        """The config every point starts from, after checking the study as a whole can run;
        ConfigError naming the field otherwise."""
        return config

    def unavailable(self, device_kind: str) -> str | None:
        """Why no study on this axis can run on a device of this kind (cpu, cuda, mps), said
        before any value is read; None: it can."""
        return None

    def refusal(self, config: RunConfig, value: Any) -> str | None:
        """Why this device cannot run `value` (the point is not run, and says so); None: it can."""
        return None

    def configure(self, config: RunConfig, value: Any) -> RunConfig:
        return config.with_changes(**{self.field: value})

    @contextmanager
    def around(self, value: Any) -> Iterator[None]:
        """What holds while a point runs (nothing, unless the axis changes the machine)."""
        yield

    def tags(self, group_id: str, value: Any, index: int) -> dict[str, Any]:
        """What a stored result of this point carries besides the study tag."""
        return {"sweep": {"group_id": group_id, "role": self.role, "trial": index}}

    def show(self, value: Any) -> str:
        """A value as the table and the chart write it: '180 W', 'bf16', '4'."""
        text = f"{value:g}" if isinstance(value, float) else str(value)
        return f"{text} {self.unit}" if self.unit else text

    def position(self, value: Any, index: int) -> float:
        """Where a value sits on the chart's x axis: itself for numbers, its place for names."""
        return float(value) if isinstance(value, int | float) else float(index)
