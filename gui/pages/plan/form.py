"""The Plan tab's inputs: what is trained, on what, at which utilisation, where, how many runs.

The form only holds texts and choices (values() -> FormValues); gui/pages/plan/inputs.py turns them
into a plan and says what is wrong, and mark() frames the field it names. Numbers are typed in
NumberFields under inputs.py's rules (110e6, 110M and 110,000,000 all read) so a mistake gets a
sentence, not a spin box that refuses keys.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from engine.pricing.device import device_label
from gui.common.number_field import NumberField, mark_invalid
from gui.pages.plan.inputs import GIVEN_RUNS, NUMBERS, FormValues, Sources

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
OPTIMIZERS = {"adam": "Adam", "adamw": "AdamW", "sgd-momentum": "SGD with momentum", "sgd": "SGD"}
DEFAULT_GPU = "A100 SXM4 80GB"
DEFAULTS = {"preset": "bert-base", "count": "8", "mfu": "0.35", "epochs": "1"}
# Text fields: name -> (label, placeholder, tooltip)
EDITS = {
    "params": ("Parameters N", "110M or 110e6", "All parameters the 6N rule counts"),
    "tokens": ("Tokens D", "3.3B or 3.3e9", "Training tokens: sequences x length x steps"),
    "n_layers": ("Layers", "layers", "For the attention term (all three, or none)"),
    "seq_len": ("Sequence length", "context", "Context length, for the attention term"),
    "d_attn": ("Attention width", "width", "Heads x head size, for the attention term"),
    "flops_per_sample": ("FLOPs per sample", "from the selected result", "Forward + backward"),
    "samples": ("Samples per epoch", "from the selected result", ""),
    "epochs": ("Epochs", "1", ""),
    "count": ("GPUs", "1, or the instance's", "How many GPUs the run is spread over"),
    "batch_size": (
        "Batch per GPU",
        "activations not estimated",
        "Sequences per GPU per step: with layers, length and width, the memory check counts "
        "their activations",
    ),
    "mfu": ("", "0.35", "Model FLOPs utilisation: a fraction of the dense peak (0.35 = 35%)"),
    "pue": ("PUE", "the region's, else 1", "Data centre overhead on the energy"),
    "usd_per_kwh": ("Electricity $/kWh", "owning not priced", "Your tariff; prices owning"),
    "purchase_usd": ("Purchase $ per GPU", "launch price", "What one GPU costs to buy"),
    "lifetime_years": ("Lifetime (years)", "3", "Years the purchase is spread over"),
    "runs": ("Runs", "full-size runs", "Runs the size of this one, in all"),
}


# Tooltips of the choices (the number fields' are EDITS' third item).
TIPS = {
    "preset": "A published model: its parameters, tokens and shape, with their sources",
    "attention": "Causal (a decoder: GPT) or full (an encoder: BERT) attention, for its FLOPs",
    "gpu": "The GPU the run is planned on, priced on the cheapest instances that hold it",
    "instance": "A catalog instance: its GPUs and its price",
    "region": "The grid region whose carbon intensity prices the CO2",
    "runs_table": "How many runs a result takes: a published table, or a number of runs",
    "plan_transformer": "FLOPs = 6 x parameters x tokens, plus attention (Kaplan et al. 2020)",
    "plan_per_sample": "FLOPs = FLOPs per sample x samples x epochs (a counted model)",
    "plan_gpu": "A catalog GPU, priced on its cheapest instances",
    "plan_instance": "A catalog instance type and its price",
    "plan_stated": "An MFU you state (0.35 for 35%)",
    "plan_from_result": "The MFU the result selected in Past runs measured",
}


def short(value: float) -> str:
    """110M, 131.072B, 2T: a preset's figure as typed back into the form."""
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if value >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def _form(parent: QWidget | None = None) -> QFormLayout:
    layout = QFormLayout(parent)
    layout.setContentsMargins(0, 0, 0, 0)
    return layout


class PlanForm(QWidget):
    changed = Signal()

    def __init__(self, sources: Sources, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.sources = sources
        self.edits: dict[str, NumberField] = {}
        for name, (_, placeholder, tip) in EDITS.items():
            edit = NumberField(
                NUMBERS[name],
                text=DEFAULTS.get(name, ""),
                object_name=f"plan_{name}",
                placeholder=placeholder,
                tooltip=tip,
            )
            edit.textChanged.connect(self.changed)
            self.edits[name] = edit
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for group in (self._what(), self._hardware(), self._utilisation(), self._energy()):
            layout.addWidget(group)
        layout.addWidget(self._fully_loaded())
        layout.addStretch(1)
        self.combos = {
            "preset": self.preset,
            "attention": self.attention,
            "gpu": self.gpu,
            "instance": self.instance,
            "precision": self.precision,
            "optimizer": self.optimizer,
            "region": self.region,
            "runs_table": self.runs_table,
        }
        for combo in self.combos.values():
            # Long entries (instances, regions) must not widen the form: the popup shows them.
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(12)
            combo.currentIndexChanged.connect(self.changed)
        for radios in (self.mode, self.hardware, self.mfu_source):
            radios.idToggled.connect(self._radio_toggled)
            for button in radios.buttons():
                button.setToolTip(button.toolTip() or TIPS.get(button.objectName(), ""))
        for name, combo in self.combos.items():
            combo.setToolTip(combo.toolTip() or TIPS.get(name, ""))
        self.preset.currentIndexChanged.connect(self._fill_preset)
        self.changed.connect(self._show_choices)
        self._fill_preset()
        self._show_choices()

    # groups ---------------------------------------------------------------------------------

    def _radio_toggled(self, _id: int, on: bool) -> None:
        if on:  # one radio of a group turns on as another turns off: one change
            self.changed.emit()

    def _radios(self, names: tuple[str, ...], texts: tuple[str, ...]) -> QButtonGroup:
        group = QButtonGroup(self)
        for i, (name, text) in enumerate(zip(names, texts, strict=True)):
            button = QRadioButton(text, objectName=f"plan_{name}")
            group.addButton(button, i)
        group.buttons()[0].setChecked(True)
        return group

    def _rows(self, layout: QFormLayout, names: tuple[str, ...]) -> None:
        for name in names:
            layout.addRow(EDITS[name][0], self.edits[name])

    def _what(self) -> QGroupBox:
        box = QGroupBox("What is trained")
        self.mode = self._radios(
            ("transformer", "per_sample"), ("Transformer (6ND)", "FLOPs per sample")
        )
        self.preset = QComboBox(objectName="plan_preset")
        self.preset.addItem("none: type your own", "")
        for p in self.sources.presets.values():
            self.preset.addItem(p.name, p.name)
            self.preset.setItemData(
                self.preset.count() - 1, p.params_source, Qt.ItemDataRole.ToolTipRole
            )
        self.preset.setCurrentIndex(max(0, self.preset.findData(DEFAULTS["preset"])))
        self.attention = QComboBox(objectName="plan_attention")
        self.attention.addItem("causal (decoder)", "causal")
        self.attention.addItem("full (encoder, BERT)", "full")
        self.transformer_rows = QWidget()
        rows = _form(self.transformer_rows)
        rows.addRow("Preset", self.preset)
        self._rows(rows, ("params", "tokens", "n_layers", "seq_len", "d_attn"))
        rows.addRow("Attention", self.attention)
        self.per_sample_rows = QWidget()
        self._rows(_form(self.per_sample_rows), ("flops_per_sample", "samples", "epochs"))
        layout = QVBoxLayout(box)
        modes = QHBoxLayout()
        for button in self.mode.buttons():
            modes.addWidget(button)
        layout.addLayout(modes)
        layout.addWidget(self.transformer_rows)
        layout.addWidget(self.per_sample_rows)
        return box

    def _hardware(self) -> QGroupBox:
        box = QGroupBox("On what")
        self.hardware = self._radios(
            ("gpu", "instance", "owned"), ("Cloud GPU", "Instance", "Owned")
        )
        self.hardware.buttons()[0].setToolTip("A catalog GPU, priced on its cheapest instances")
        self.hardware.buttons()[2].setToolTip("GPUs you buy: purchase + electricity")
        self.gpu = QComboBox(objectName="plan_gpu")
        for spec in sorted(self.sources.catalog.gpus, key=lambda g: g.name.casefold()):
            self.gpu.addItem(spec.name, spec.name)
        self.gpu.setCurrentIndex(max(0, self.gpu.findData(DEFAULT_GPU)))
        self.instance = QComboBox(objectName="plan_instance")
        seen = set()
        for i in self.sources.catalog.select():
            key = f"{i.cloud}:{i.instance_type}"
            if i.gpu_count >= 1 and i.gpu_spec and key not in seen:
                seen.add(key)
                text = f"{i.cloud} {i.instance_type}: {i.gpu_count:g} x {i.gpu_spec}"
                self.instance.addItem(f"{text}, ${i.usd_per_hour:,.2f}/h", key)
        self.precision = QComboBox(objectName="plan_precision")
        self.precision.addItem("auto (the GPU's fastest)", "")
        for p in PRECISIONS:
            self.precision.addItem(p, p)
        self.precision.setToolTip(
            "The peak the plan uses; auto takes the FP16 tensor rate where the GPU has one, "
            "else its fastest (FP32 on a GPU without tensor cores)"
        )
        self.optimizer = QComboBox(objectName="plan_optimizer")
        for key, text in OPTIMIZERS.items():
            self.optimizer.addItem(text, key)
        self.optimizer.setToolTip(
            "For the memory check: Adam keeps 8 bytes of state a parameter, SGD with momentum 4"
        )
        layout = QFormLayout(box)
        buttons = QHBoxLayout()
        for button in self.hardware.buttons():
            buttons.addWidget(button)
        layout.addRow(buttons)
        layout.addRow("GPU", self.gpu)
        layout.addRow("Instance", self.instance)
        self._rows(layout, ("count",))
        layout.addRow("Precision", self.precision)
        layout.addRow("Optimizer", self.optimizer)
        self._rows(layout, ("batch_size",))
        self.hardware_rows = layout
        return box

    def _utilisation(self) -> QGroupBox:
        box = QGroupBox("Utilisation")
        self.mfu_source = self._radios(
            ("stated", "from_result"), ("Stated MFU", "Measured: the selected result")
        )
        self.result_label = QLabel(wordWrap=True, objectName="plan_result")
        layout = QVBoxLayout(box)
        stated = QHBoxLayout()
        stated.addWidget(self.mfu_source.buttons()[0])
        stated.addWidget(self.edits["mfu"], 1)
        layout.addLayout(stated)
        layout.addWidget(self.mfu_source.buttons()[1])
        layout.addWidget(self.result_label)
        self.set_result(None)
        return box

    def _energy(self) -> QGroupBox:
        box = QGroupBox("Energy, CO2 and owning")
        self.region = QComboBox(objectName="plan_region")
        self.region.addItem("none: the instance's region", "")
        for g in sorted(self.sources.catalog.grid, key=lambda g: (g.provider, g.region)):
            name = f" ({g.region_name})" if g.region_name else ""
            text = f"{g.provider}:{g.region}{name}, {g.ci_gco2e_per_kwh:g} g/kWh"
            self.region.addItem(text, f"{g.provider}:{g.region}")
        layout = QFormLayout(box)
        layout.addRow("Region", self.region)
        self._rows(layout, ("pue", "usd_per_kwh", "purchase_usd", "lifetime_years"))
        return box

    def _fully_loaded(self) -> QGroupBox:
        box = QGroupBox("Fully loaded")
        self.runs_table = QComboBox(objectName="plan_runs_table")
        for name, rows in self.sources.runs_tables.items():
            multiplier = sum(r.multiplier for r in rows)
            self.runs_table.addItem(f"{name} (x{multiplier:,.4g})", name)
            tip = "\n".join(r.source for r in rows if r.source)
            self.runs_table.setItemData(
                self.runs_table.count() - 1, tip, Qt.ItemDataRole.ToolTipRole
            )
        self.runs_table.addItem("my own number of full-size runs", GIVEN_RUNS)
        layout = QFormLayout(box)
        layout.addRow("Runs table", self.runs_table)
        self._rows(layout, ("runs",))
        return box

    # behaviour ------------------------------------------------------------------------------

    def _fill_preset(self) -> None:
        """Put the chosen preset's figures in the fields (they can then be changed)."""
        p = self.sources.presets.get(self.preset.currentData() or "")
        if p is None:
            return
        texts = {
            "params": short(p.params),
            "tokens": short(p.tokens) if p.tokens else "",
            "n_layers": f"{p.n_layers}" if p.n_layers else "",
            "seq_len": f"{p.seq_len}" if p.seq_len else "",
            "d_attn": f"{p.d_attn}" if p.d_attn else "",
        }
        for name, text in texts.items():
            self.edits[name].blockSignals(True)
            self.edits[name].setText(text)
            self.edits[name].blockSignals(False)
        self.attention.blockSignals(True)
        self.attention.setCurrentIndex(self.attention.findData("causal" if p.causal else "full"))
        self.attention.blockSignals(False)
        self.mode.button(0).setChecked(True)

    def _show_choices(self) -> None:
        per_sample = self.mode.checkedId() == 1
        self.transformer_rows.setVisible(not per_sample)
        self.per_sample_rows.setVisible(per_sample)
        instance = self.hardware.checkedId() == 1
        self.hardware_rows.setRowVisible(self.gpu, not instance)
        self.hardware_rows.setRowVisible(self.instance, instance)
        self.edits["mfu"].setEnabled(self.mfu_source.checkedId() == 0)
        self.edits["runs"].setEnabled(self.runs_table.currentData() == GIVEN_RUNS)

    def set_result(self, result: dict[str, Any] | None) -> None:
        """Say which result 'from the selected result' takes, and what it holds."""
        if result is None:
            self.result_label.setText("No result selected: select one in the table below.")
            for name in ("flops_per_sample", "samples"):
                self.edits[name].setPlaceholderText("select a result, or type it")
            return
        flops = result.get("flops") or {}
        config = result["config"]
        head = f"{result['run_id']}: {config['model']} on {device_label(result)}"
        if flops.get("mfu") is not None:
            what = f"MFU {flops['mfu']:.1%} at {config['precision']}"
        else:
            what = f"no MFU ({flops.get('peak_source') or 'no FLOP count stored'})"
        self.result_label.setText(f"{head}, {what}")
        per_sample = flops.get("per_sample")
        self.edits["flops_per_sample"].setPlaceholderText(
            f"{per_sample:.4g}, the result's" if per_sample else "the result has none: type it"
        )
        samples = result.get("epoch_samples")
        self.edits["samples"].setPlaceholderText(f"{samples:,}, the result's" if samples else "")

    def values(self) -> FormValues:
        texts = {name: edit.text() for name, edit in self.edits.items()}
        return FormValues(
            mode=("transformer", "per_sample")[self.mode.checkedId()],
            preset=self.preset.currentData() or "",
            attention=self.attention.currentData(),
            hardware=("gpu", "instance", "owned")[self.hardware.checkedId()],
            gpu=self.gpu.currentData() or "",
            instance=self.instance.currentData() or "",
            precision=self.precision.currentData() or "",
            optimizer=self.optimizer.currentData() or "adam",
            mfu_source=("stated", "result")[self.mfu_source.checkedId()],
            region=self.region.currentData() or "",
            runs_table=self.runs_table.currentData() or "",
            **texts,
        )

    def mark(self, field: str | None) -> None:
        """Frame the field a message is about (None: none); the page's message bar says why."""
        for name, edit in self.edits.items():
            edit.set_error("" if name == field else None)
        others: dict[str, QWidget] = {**self.combos, "from_result": self.result_label}
        for name, widget in others.items():
            mark_invalid(widget, name == field)
