"""epochcost devices: what a run can use here."""

from __future__ import annotations

import argparse

from engine.cli.common import print_json
from engine.measure.devices import list_devices


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("devices", help="list the devices a run can use")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    devices = list_devices()
    if args.json:
        print_json([d.to_dict() for d in devices])
        return 0
    for d in devices:
        print(f"{d.label}  ({d.detail})" if d.detail else d.label)
    return 0
