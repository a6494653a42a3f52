"""epochcost devices: what a run can use here, and for each NVIDIA GPU whether the framework
environments runs use can train on it (engine/measure/compatibility.py; `epochcost doctor`
says more)."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.output import print_json
from engine.measure.compatibility import LABELS
from engine.measure.devices import Device, list_devices
from engine.process import doctor


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list the devices a run can use")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    devices = list_devices()
    verdicts = _verdicts(devices)
    if args.json:
        print_json([{**d.to_dict(), **verdicts.get(d.id, {})} for d in devices])
        return 0
    for d in devices:
        print(f"{d.label}  ({d.detail})" if d.detail else d.label)
        for row in verdicts.get(d.id, {}).get("frameworks", []):
            name = f"{LABELS.get(row['framework'], row['framework'])} {row['version']}"
            if row["ok"]:
                print(f"  {name}: runs here")
            else:
                print(f"  {name}: cannot run here: {row['reason']}")
                print(f"    to fix: {row['remedy']}")
    return 0


def _verdicts(devices: list[Device]) -> dict[str, dict[str, Any]]:
    """For each NVIDIA GPU, the environments runs use, with their verdicts (builds are read in
    child processes, so only when there is a GPU to judge)."""
    gpus = [d for d in devices if d.kind == "cuda"]
    if not gpus:
        return {}
    used = [e for e in doctor.read_environments() if e.used]
    return {d.id: {"frameworks": doctor.assess(doctor.gpu_of(d), used)["frameworks"]} for d in gpus}
