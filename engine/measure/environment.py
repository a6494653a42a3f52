"""The environment fingerprint every result records (framework parts come from the backend)."""

from __future__ import annotations

import os
import platform
import socket
import sys
from typing import Any

import psutil

import engine


def cpu_name() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), else platform's guess."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def base() -> dict[str, Any]:
    """What is known without a framework: host, CPU, memory, OS, Python, epochcost."""
    return {
        "hostname": socket.gethostname(),
        "os": f"{platform.system()} {platform.release()}",
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_name(),
        "cpu_count_logical": os.cpu_count(),
        "cpu_count_physical": psutil.cpu_count(logical=False),
        "ram_bytes": psutil.virtual_memory().total,
        "python": sys.version.split()[0],
        "epochcost": engine.__version__,
    }
