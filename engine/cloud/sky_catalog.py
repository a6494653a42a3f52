"""The catalog SkyPilot's own dry run reads, in SkyPilot's layout, offline.

SkyPilot checks resources against its catalog, `<runtime>/.sky/catalogs/<schema>/<cloud>/
vms.csv` (columns InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price,
SpotPrice, Region, AvailabilityZone), and downloads a missing file from its hosted catalog. The
dry run gives it a runtime folder of its own (never the user's ~/.sky) holding, per cloud:

- the file `catalog update` fetched from SkyPilot's hosted catalog, where there is one
  (fetched_folder(): SkyPilot's own rows, as SkyPilot wrote them);
- else the snapshot written here from epochcost's catalog (assets/instances.csv, itself read
  from SkyPilot's catalog files, whose source lines and commits it keeps): one row per instance
  type; GCP as SkyPilot keeps it, a VM row and an accelerator row apart (a catalog row "sum of
  VM row (a/b) + accelerator row A100x1 (c/d)" gives both).

Files without SkyPilot's .meta md5 are "modified by the user" to SkyPilot, which then never
replaces them from the network.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from engine.cloud.resources import sky_resources
from engine.core import paths
from engine.core.errors import ConfigError
from engine.pricing.catalog import Catalog
from engine.pricing.rows import Instance

SCHEMA = "v8"  # SkyPilot 0.14's catalog schema (sky.skylet.constants.CATALOG_SCHEMA_VERSION)
COLUMNS = (
    "InstanceType",
    "AcceleratorName",
    "AcceleratorCount",
    "vCPUs",
    "MemoryGiB",
    "GpuInfo",
    "Price",
    "SpotPrice",
    "Region",
    "AvailabilityZone",
)
SKY_CLOUD_NAMES = {
    "aws": "AWS",
    "gcp": "GCP",
    "azure": "Azure",
    "lambda": "Lambda",
    "runpod": "RunPod",
    "paperspace": "Paperspace",
}
_SUM = re.compile(
    r"sum of VM row \((?P<vm>[\d.]+)/(?P<vm_spot>[\d.]*)\) \+ accelerator row "
    r"(?P<gpu>\S+)x(?P<count>\d+) \((?P<gpu_price>[\d.]+)/(?P<gpu_spot>[\d.]*)\)"
)


def fetched_folder() -> Path:
    """Where `catalog update` keeps SkyPilot's own files, in its layout (<schema>/<cloud>/)."""
    return paths.home(create=False) / "catalog" / "skypilot" / SCHEMA


def runtime_dir(cat: Catalog) -> Path:
    """A SkyPilot runtime folder holding the catalog files for every cloud of `cat` (made once
    per content: its name is the content's hash)."""
    files = {cloud: _file_of(cat, cloud) for cloud in sorted({i.cloud for i in cat.instances})}
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    root = paths.home() / "cloud" / "dryrun" / digest
    catalogs = root / ".sky" / "catalogs" / SCHEMA
    if not (root / ".complete").is_file():
        shutil.rmtree(root, ignore_errors=True)
        for cloud, text in files.items():
            (catalogs / cloud).mkdir(parents=True, exist_ok=True)
            (catalogs / cloud / "vms.csv").write_text(text, encoding="utf-8")
        (catalogs / "common").mkdir(parents=True, exist_ok=True)
        for name, text in common_files(files, cat).items():
            (catalogs / "common" / name).write_text(text, encoding="utf-8")
        (root / ".complete").write_text("", encoding="utf-8")
    return root


def common_files(files: dict[str, str], cat: Catalog) -> dict[str, str]:
    """SkyPilot's common/accelerators.csv (which clouds sell each accelerator: its name
    check) and common/metadata.csv (memory per GPU), from the clouds' files."""
    clouds: dict[str, set[str]] = {}
    for cloud, text in files.items():
        for row in csv.DictReader(io.StringIO(text)):
            name = (row.get("AcceleratorName") or "").strip()
            if name:
                clouds.setdefault(name, set()).add(SKY_CLOUD_NAMES.get(cloud, cloud))
    memory = {
        i.gpu_model: i.gpu_memory_gib_per_gpu for i in cat.instances if i.gpu_memory_gib_per_gpu
    }
    accelerators = io.StringIO()
    writer = csv.writer(accelerators)
    writer.writerow(["AcceleratorName", "Clouds"])
    for name in sorted(clouds):
        writer.writerow([name, str(sorted(clouds[name]))])
    metadata = io.StringIO()
    writer = csv.writer(metadata)
    writer.writerow(["GPU", "MemoryGB", "Manufacturer"])
    for name in sorted(clouds):
        if memory.get(name):
            writer.writerow([name, memory[name], "NVIDIA"])
    return {"accelerators.csv": accelerators.getvalue(), "metadata.csv": metadata.getvalue()}


def _file_of(cat: Catalog, cloud: str) -> str:
    fetched = fetched_folder() / cloud / "vms.csv"
    if fetched.is_file():
        return fetched.read_text(encoding="utf-8")
    return snapshot(cat.instances, cloud)


def snapshot(instances: Sequence[Instance], cloud: str) -> str:
    """`cloud`'s vms.csv in SkyPilot's layout, from the catalog's current rows of that cloud."""
    rows: dict[tuple[str, ...], dict[str, object]] = {}
    for instance in instances:
        if instance.cloud != cloud or instance.historical:
            continue
        for row in _rows(instance):
            columns = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Region")
            key = tuple(str(row.get(c, "")) for c in columns)
            rows.setdefault(key, row)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS)
    writer.writeheader()
    for key in sorted(rows):
        writer.writerow({c: rows[key].get(c, "") for c in COLUMNS})
    return out.getvalue()


def _rows(instance: Instance) -> list[dict[str, object]]:
    base = {"vCPUs": instance.vcpus or "", "MemoryGiB": instance.ram_gib or ""}
    spot = "" if instance.usd_per_hour_spot is None else instance.usd_per_hour_spot
    if instance.price_component == "vm_only":
        return [_vm(instance.instance_type, instance.region, instance.usd_per_hour, spot, base)]
    if instance.price_component == "gpu_only":
        return [_accelerator(instance.gpu_model, instance.gpu_count, instance.region, instance)]
    if instance.price_component == "vm+gpu_sum":
        parts = _SUM.search(instance.notes)
        if parts is None:  # a combination of a VM row and an accelerator row, written apart
            return []
        gpu = {"gpu_price": parts["gpu_price"], "gpu_spot": parts["gpu_spot"]}
        return [
            _vm(instance.instance_type, instance.region, parts["vm"], parts["vm_spot"], base),
            _accelerator(parts["gpu"], float(parts["count"]), instance.region, None, gpu),
        ]
    try:
        sky = sky_resources(instance)
    except ConfigError:  # TPU, Gaudi, ...: SkyPilot keeps them elsewhere; never offered
        return []
    return [
        {
            **base,
            "InstanceType": sky.instance_type,
            "AcceleratorName": instance.gpu_model,
            "AcceleratorCount": _count(instance.gpu_count),
            "Price": instance.usd_per_hour,
            "SpotPrice": spot,
            "Region": sky.region or "",
            "AvailabilityZone": sky.zone or f"{sky.region}a",
        }
    ]


def _vm(name: str, region: str, price: object, spot: object, base: dict) -> dict[str, object]:
    return {
        **base,
        "InstanceType": name,
        "Price": price,
        "SpotPrice": spot,
        "Region": region,
        "AvailabilityZone": f"{region}-a",
    }


def _accelerator(
    name: str, count: float, region: str, row: Instance | None, parts: dict | None = None
) -> dict[str, object]:
    price = row.usd_per_hour if row else (parts or {}).get("gpu_price", "")
    spot = (row.usd_per_hour_spot if row else (parts or {}).get("gpu_spot")) or ""
    return {
        "AcceleratorName": name,
        "AcceleratorCount": _count(count),
        "Price": price,
        "SpotPrice": spot,
        "Region": region,
        "AvailabilityZone": f"{region}-a",
    }


def _count(count: float) -> object:
    return int(count) if count == int(count) else count
