"""The report's environment table: each key the result's environment records, named as a
reader names it, its value in readable units (engine/results/html_report.py draws the rest)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from engine.results import report as text


def environment_table(env: dict[str, Any]) -> str:
    """An HTML table of `env`, its keys sorted."""
    rows = "".join(
        f"<tr><th>{escape(_env_name(k))}</th><td>{escape(_env_value(k, v))}</td></tr>"
        for k, v in sorted(env.items())
    )
    return f"<h3>Environment</h3><table><tbody>{rows}</tbody></table>"


# The environment's keys as a reader names them; the rest lose their unit suffix and "_".
ENV_NAMES = {
    "os": "OS",
    "cpu": "CPU",
    "cpu_count_logical": "CPU threads",
    "cpu_count_physical": "CPU cores",
    "ram_bytes": "RAM",
    # The versions the framework was built with: a CPU run records them too, so say so.
    "cuda": "CUDA (framework's build)",
    "cudnn": "cuDNN (framework's build)",
}
_UNITS = ("_bytes", "_seconds", "_s")


def _env_name(key: str) -> str:
    if key in ENV_NAMES:
        return ENV_NAMES[key]
    for suffix in _UNITS:
        key = key.removesuffix(suffix)
    return key.replace("_", " ")


def _env_value(key: str, v: Any) -> str:
    """Bytes in KiB/MiB/GiB, seconds to two decimals, text as it is."""
    if isinstance(v, int | float) and not isinstance(v, bool):
        if key.endswith("_bytes"):
            return text.size(v)
        if key.endswith(("_seconds", "_s")):
            return f"{v:.2f} s"
    return v if isinstance(v, str) else json.dumps(v, sort_keys=True)
