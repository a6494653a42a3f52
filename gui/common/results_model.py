"""The past-runs table: a FrameTableModel over the store's listing DataFrame."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from engine.core.interval import interval_text
from engine.core.precision import MARK
from engine.measure.busy import BUSY_CPU_FRACTION
from engine.measure.result import FAILED_STATUSES
from engine.results import report
from gui.common.frame_model import Column, FrameTableModel, missing

if TYPE_CHECKING:  # pandas loads with the store, after the window shows (lazy_store.py)
    import pandas as pd


def _date(value: Any) -> str:
    return str(value)[:16].replace("T", " ")


def _rate(value: Any) -> str:
    return f"{value:,.1f}"


def _fill(value: Any) -> str:
    return f"{value:.1%}"


def _plain(value: Any) -> str:
    return str(value)


# What a result's data kind (its `data` field's kind) is called on screen and in exports.
DATA_NAMES = {
    "synthetic": "synthetic",
    "imagefolder": "image folder",
    "cifar10": "CIFAR-10",
    "model-file": "model file's data set",
}


def data_text(kind: Any, source: Any = None) -> str:
    """Where a run's batches came from, as a person reads it ("image folder /data/set");
    a result stored before data sources (no kind) trained on synthetic batches."""
    if missing(kind):
        return "synthetic"
    name = DATA_NAMES.get(str(kind), str(kind))
    if missing(source) or kind == "synthetic":
        return name
    return name if str(kind) == "model-file" else f"{name} {source}"


def short_device(name: Any) -> str:
    """A device's name short enough for a label ("GTX 1080 Ti", "cpu")."""
    text = str(name or "?")
    for prefix in ("NVIDIA ", "GeForce ", "Tesla "):
        text = text.replace(prefix, "")
    return text.split(":")[0] if text.startswith("cpu") else text


def readable_label(model: Any, batch: Any, device: Any, created_at: Any) -> str:
    """A run as a person names it: model, batch, device and date (UTC)."""
    batch_text = "" if batch is None or batch != batch else f" b{int(batch)}"
    return f"{model}{batch_text} · {short_device(device)} · {_date(created_at)}"


def result_label(result: dict[str, Any]) -> str:
    """readable_label of a stored result (the plots' overlays name past runs so)."""
    config = result.get("config") or {}
    env = result.get("environment") or {}
    device = env.get("device_name") or env.get("device") or config.get("device")
    return readable_label(
        config.get("model"), config.get("batch_size"), device, result.get("created_at")
    )


def run_kind(status: Any, kind: Any, sweep_trial: Any) -> str:
    """run, sweep or accuracy for a measurement; its status (failed, cancelled, oom,
    preempted) for one without."""
    if status in FAILED_STATUSES:
        return str(status)
    if kind == "accuracy":
        return "accuracy"
    return "run" if sweep_trial is None or sweep_trial != sweep_trial else "sweep"


COLUMNS: tuple[Column, ...] = (
    Column("label", "Run", _plain),
    Column("run_kind", "Kind", _plain),
    Column("created_at", "Date (UTC)", _date),
    Column("model", "Model", _plain),
    Column("framework", "Framework", _plain),
    Column("device", "Device", _plain),
    Column("batch_size", "Batch", _plain, True),
    Column("precision", "Precision", _plain),
    Column("data", "Data", _plain),
    Column("throughput_samples_per_s", "Samples/s", _rate, True),
    Column("throughput_spread", "95% interval", _plain, True, display="throughput_interval"),
    Column("memory_fill", "Memory fill", _fill, True),
    Column("input_wait_fraction", "Input wait", _fill, True),
    Column("usd_per_epoch", "$ per epoch", report.money, True),
    Column("price_source", "Price source", _plain),
    Column("status", "Status", _plain, display="status_text"),
)

RUN_ID_ROLE = Qt.ItemDataRole.UserRole + 1


def with_shown_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Add the columns the table shows that the listing holds only in parts: a readable label
    (model, batch, device, date), the device with a cloud run's instance ("NVIDIA A10G on
    g5.xlarge"), the kind of run (run, sweep, accuracy, failed, cancelled, oom), where its
    batches came from (data), the throughput's 95% interval as interval_text writes it ("±2.1%",
    "-88% / +760%", "no interval" for results stored before intervals were recorded) and, to
    sort by, how far its farther end lies from the figure (relative), and the status with "busy"
    where other processes used much of the CPU while it was measured and "not precise enough to
    price" where the engine says so (engine/core/precision.py; the row's tooltip says why)."""
    import pandas as pd

    frame = frame.copy()
    center = pd.to_numeric(frame["throughput_samples_per_s"], errors="coerce")
    low = pd.to_numeric(frame["throughput_low"], errors="coerce")
    high = pd.to_numeric(frame["throughput_high"], errors="coerce")
    frame["throughput_spread"] = pd.concat([center - low, high - center], axis=1).max(axis=1)
    frame["throughput_spread"] /= center
    frame["throughput_interval"] = [
        interval_text(None if lo != lo else [lo, hi], c)
        for lo, hi, c in zip(low, high, center, strict=True)
    ]
    frame.loc[frame["status"] != "ok", "throughput_interval"] = ""
    other = pd.to_numeric(frame["other_cpu_fraction"], errors="coerce")
    busy = other > BUSY_CPU_FRACTION
    frame["status_text"] = frame["status"].where(~busy, frame["status"] + " (busy machine)")
    rough = frame["imprecise"].notna()
    frame["status_text"] = frame["status_text"].where(~rough, frame["status_text"] + f" · {MARK}")
    frame["device"] = [
        report.listed_device(device, instance)
        for device, instance in zip(frame["device"], frame["cloud_instance"], strict=True)
    ]
    frame["label"] = [
        readable_label(*row)
        for row in zip(
            frame["model"], frame["batch_size"], frame["device"], frame["created_at"], strict=True
        )
    ]
    frame["data"] = [
        data_text(kind, path)
        for kind, path in zip(frame["data_kind"], frame["data_path"], strict=True)
    ]
    frame["run_kind"] = [
        run_kind(*row)
        for row in zip(frame["status"], frame["kind"], frame["sweep_trial"], strict=True)
    ]
    return frame


class ResultsTableModel(FrameTableModel):
    def __init__(self) -> None:
        super().__init__(COLUMNS)

    def set_frame(self, frame: pd.DataFrame) -> None:
        """The store's listing, with the interval as it is ("-88% / +760%"), and a busy run and
        one not precise enough to price said in Status."""
        super().set_frame(with_shown_columns(frame))

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == RUN_ID_ROLE and index.isValid() and self.frame is not None:
            return self.cell(index.row(), "run_id")
        return super().data(index, role)

    def tooltip(self, row: int) -> str | None:
        """The run's id, and why it is not precise enough to price and what to do, if it is not."""
        why = self.cell(row, "imprecise")
        run = f"run {self.cell(row, 'run_id')}"
        return run if missing(why) else f"{run}\n{why}"

    def run_id(self, row: int) -> str:
        return str(self.cell(row, "run_id"))

    def row_of(self, run_id: str) -> int | None:
        if self.frame is None:
            return None
        rows = self.frame.index[self.frame["run_id"] == run_id]
        return int(rows[0]) if len(rows) else None
