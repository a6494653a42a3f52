"""Today's instance prices from SkyPilot's catalog: `epochcost catalog update [--from DIR]`.

SkyPilot keeps one CSV per cloud, `<cloud>/vms.csv` (columns InstanceType, AcceleratorName,
AcceleratorCount, Price, SpotPrice, Region, AvailabilityZone, ...): a row per instance type and
zone, and on GCP a row per attachable accelerator (no InstanceType). Online, the files come from
the catalog SkyPilot itself downloads (its hosted catalog, the URL its service_catalog uses);
offline, DIR holds them in the same layout.

Online, the address and schema are those of the cloud environment's SkyPilot (update_online).

Each catalog instance of those clouds gets the price of its region (the cheapest zone, as the
shipped snapshot took it); GCP's VM+GPU rows add the VM's and the accelerator's. The new rows,
dated the day the files were fetched (today online, the file's modification date for DIR), go to
the fetched file (engine/pricing/catalog.fetched_file), which the catalog reads over the shipped
snapshot. Prices in USD per hour.

Nothing is written that the catalog would skip: each price cell is held to the catalog's rule for a
price (engine/pricing/schema.py), and each row to be written is checked as the catalog reads it (a
spot price above the on-demand one included). A file with one bad row is refused whole, naming the
row and the field, and the fetched file keeps the prices it had.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from engine.core import reading
from engine.core.errors import ConfigError
from engine.pricing import catalog as catalog_module
from engine.pricing.rows import Instance
from engine.pricing.schema import SCHEMAS, checked_cells

Prices = dict[tuple[str, str], tuple[float, float | None]]  # (name, region) -> ($/h, spot)


@dataclass(frozen=True)
class CloudUpdate:
    """What one cloud's file did: prices found, changed, and the date they carry."""

    cloud: str
    path: str
    as_of: str
    updated: int = 0
    changed: int = 0
    missing: int = 0  # catalog instances the file does not price (kept as they were)


def read_vms(path: Path) -> tuple[Prices, Prices]:
    """One `vms.csv`: (instance type, region) and ("NAMExCOUNT", region) -> the cheapest zone's
    on-demand and spot $/h. A row without a price is left out; a file without the columns is
    refused in one line."""
    try:
        text = reading.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError("from", f"{path}: cannot be read ({why})") from None
    try:
        return _read_vms(path, csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        raise ConfigError("from", f"{path}: cannot be read as CSV ({exc})") from None


def _read_vms(path: Path, reader: csv.DictReader) -> tuple[Prices, Prices]:
    needed = {"InstanceType", "Price", "Region"}
    if not needed <= set(reader.fieldnames or ()):
        raise ConfigError("from", f"{path}: not a SkyPilot vms.csv (needs {', '.join(needed)})")
    vms: Prices = {}
    accelerators: Prices = {}
    for row in reader:
        price = _price(path, reader.line_num, "Price", row.get("Price"))
        spot = _price(path, reader.line_num, "SpotPrice", row.get("SpotPrice"))
        if price is None:
            continue
        region = (row.get("Region") or "").strip()
        name = (row.get("InstanceType") or "").strip()
        if name:
            _keep_cheapest(vms, (name, region), price, spot)
        elif row.get("AcceleratorName"):
            count = _money(row.get("AcceleratorCount")) or 1.0
            label = f"{row['AcceleratorName'].strip()}x{count:g}"
            _keep_cheapest(accelerators, (label, region), price, spot)
    return vms, accelerators


def _price(path: Path, line: int, column: str, text: str | None) -> float | None:
    """A price cell by the catalog's rule for a price (blank: none); a bad one refuses the file,
    naming its line and column."""
    try:
        return _PRICE(column, text or "")
    except ConfigError as exc:
        raise ConfigError(
            "from", f"{path}, line {line}: {column}: {exc.message}; {_REFUSED}"
        ) from None


_PRICE = SCHEMAS["instances"].parsers["usd_per_hour"]
_REFUSED = "the file is refused, nothing written (the fetched prices are kept)"


def _money(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if value >= 0 and value == value else None  # NaN is no count


def _keep_cheapest(table: Prices, key: tuple[str, str], price: float, spot: float | None) -> None:
    old = table.get(key)
    if old is None:
        table[key] = (price, spot)
        return
    spots = [s for s in (old[1], spot) if s is not None]
    table[key] = (min(old[0], price), min(spots) if spots else None)


def priced(instance: Instance, vms: Prices, accelerators: Prices) -> tuple[float, float | None]:
    """The file's on-demand and spot $/h for one catalog instance, by what its price covers;
    KeyError when the file has none for its type and region."""
    region = instance.region
    accelerator = (f"{instance.gpu_model}x{instance.gpu_count:g}", region)
    if instance.price_component == "gpu_only":
        return accelerators[accelerator]
    vm = vms[(instance.instance_type, region)]
    if instance.price_component != "vm+gpu_sum":
        return vm
    gpu = accelerators[accelerator]
    spot = None if vm[1] is None or gpu[1] is None else round(vm[1] + gpu[1], 6)
    return round(vm[0] + gpu[0], 6), spot


def update_from(folder: Path, where: str = "") -> list[CloudUpdate]:
    """Reprice the catalog's instances from `folder`/<cloud>/vms.csv and write the fetched
    file. Each cloud's prices are dated by its file's modification date (when that copy was
    fetched); `where` names the files' origin in each row's source (default: the folder)."""
    if not folder.is_dir():
        raise ConfigError("from", f"{folder}: no such folder (give one holding <cloud>/vms.csv)")
    cat = catalog_module.load()
    current = [i for i in cat.instances if not i.historical and i.origin != "user"]
    clouds = sorted({i.cloud for i in current if (folder / i.cloud / "vms.csv").is_file()})
    if not clouds:
        known = ", ".join(sorted({i.cloud for i in current}))
        raise ConfigError("from", f"{folder}: no <cloud>/vms.csv for any of {known}")
    fetched = {i.key: i for i in _read_fetched()}
    reports = []
    for cloud in clouds:
        path = folder / cloud / "vms.csv"
        as_of = _dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
        vms, accelerators = read_vms(path)
        report = CloudUpdate(cloud, str(path), as_of)
        for instance in (i for i in current if i.cloud == cloud):
            try:
                usd, spot = priced(instance, vms, accelerators)
            except KeyError:
                report = replace(report, missing=report.missing + 1)
                continue
            changed = (usd, spot) != (instance.usd_per_hour, instance.usd_per_hour_spot)
            row = _dated(instance, usd, spot, as_of, where or str(folder))
            _check(path, row)
            fetched[instance.key] = row
            report = replace(
                report, updated=report.updated + 1, changed=report.changed + int(changed)
            )
        reports.append(report)
    _write_fetched(list(fetched.values()))
    return reports


def _check(path: Path, row: Instance) -> None:
    """The row as the catalog will read it; a row it would skip refuses the file."""
    try:
        checked_cells("instances", row)
    except ConfigError as exc:
        what = f"{row.instance_type} in {row.region or 'its region'}"
        raise ConfigError(
            "from", f"{path}: {what}: {exc.field}: {exc.message}; {_REFUSED}"
        ) from None


@dataclass(frozen=True)
class Fetched:
    """What the online update did: each cloud's report, and the clouds that failed (why)."""

    reports: list[CloudUpdate]
    failed: dict[str, str]


def update_online(clouds: list[str], fetch: Callable[[str], str] | None = None) -> Fetched:
    """Download each cloud's vms.csv from SkyPilot's hosted catalog, at the address and schema
    the cloud environment's SkyPilot reads (its own constants, asked through the cloud
    program), each cloud on its own: one that fails is named and keeps its prices, the others
    are updated. The files are kept in SkyPilot's layout (engine/cloud/sky_catalog.py), where
    the dry run's SkyPilot reads them too. `fetch` (URL -> text) stands in for the network in
    tests."""
    from engine.cloud import sky_catalog, skypilot

    get = fetch or _download
    reports: list[CloudUpdate] = []
    failed: dict[str, str] = {}
    for cloud in clouds:
        try:
            where = skypilot.call("catalog_url", {"cloud": cloud}, timeout_s=120)
            url = str(where["url"])
            text = get(url)  # its columns are checked by update_from (read_vms), below
        except ConfigError as exc:
            failed[cloud] = exc.message
            continue
        except (OSError, ValueError, KeyError, TypeError, skypilot.SkyError) as exc:
            failed[cloud] = f"could not be fetched ({exc})"
            continue
        with tempfile.TemporaryDirectory(prefix="epochcost-prices-") as tmp:
            target = Path(tmp) / cloud / "vms.csv"
            target.parent.mkdir(parents=True)
            target.write_text(text, encoding="utf-8")
            try:
                reports += update_from(Path(tmp), where=url.rsplit("/", 2)[0])
            except ConfigError as exc:
                failed[cloud] = exc.message
                continue
        kept = sky_catalog.fetched_folder() / cloud / "vms.csv"
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(text, encoding="utf-8")
    return Fetched(reports, failed)


def _download(url: str) -> str:
    """The file's text (the system's certificates: Python's ssl default)."""
    import urllib.request  # here: the app imports this module, and urllib costs 20 ms

    with urllib.request.urlopen(url, timeout=60) as reply:
        return reply.read().decode("utf-8")


def _dated(instance: Instance, usd: float, spot: float | None, as_of: str, where: str) -> Instance:
    was = f"was ${instance.usd_per_hour:g}/h ({instance.price_date or 'undated'})"
    return replace(
        instance,
        usd_per_hour=usd,
        usd_per_hour_spot=spot,
        price_date=as_of,
        source=f"SkyPilot catalog {where}/{instance.cloud}/vms.csv",
        source_commit="",
        notes=f"fetched {as_of}; {was}",
        origin="fetched",
    )


def _read_fetched() -> list[Instance]:
    rows, _ = catalog_module.read_rows(catalog_module.fetched_file(), "instances", "fetched")
    return rows


def _write_fetched(rows: list[Instance]) -> None:
    """The fetched file, whole or not at all (a temporary file, then a rename); each row checked
    as the catalog reads it (update_from has checked the new ones, naming their file)."""
    path = catalog_module.fetched_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = SCHEMAS["instances"].columns
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns)
    writer.writeheader()
    for row in sorted(rows, key=lambda r: r.key):
        writer.writerow(checked_cells("instances", row))
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".instances-", suffix=".csv")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(out.getvalue())
    os.replace(tmp, path)
