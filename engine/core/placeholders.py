"""Texts that ask for a value name it by its field, never by how one surface spells it.

The engine's notes and explanations ("owning not priced (give {usd_per_kwh})") hold a
placeholder, the field's name in braces, where the value to give goes. Each surface words them
with its own names: the command line with its option (engine/cli/common.option_name:
"--usd-per-kwh"), each form with its own label ("an electricity tariff"). No surface rewrites
another's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def ask(field: str) -> str:
    """The placeholder for `field` in a text: "{usd_per_kwh}"."""
    return "{" + field + "}"


def asked(text: str) -> tuple[str, ...]:
    """The fields `text` asks for, in order."""
    return tuple(PLACEHOLDER.findall(text))


def worded(text: str, name: Callable[[str], str | None]) -> str:
    """`text` with each placeholder replaced by name(field); where `name` knows no such field
    (None), its plain words ("usd per kwh")."""
    return PLACEHOLDER.sub(lambda m: name(m.group(1)) or m.group(1).replace("_", " "), text)


def worded_data(data: Any, name: Callable[[str], str | None]) -> Any:
    """`data` (JSON-like: dicts, lists, strings) with every string worded."""
    if isinstance(data, str):
        return worded(data, name)
    if isinstance(data, dict):
        return {key: worded_data(value, name) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [worded_data(value, name) for value in data]
    return data
