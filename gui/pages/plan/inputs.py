"""The Plan tab's form as values, and the plan they give (no widgets: tested without a window).

The page reads its widgets into a FormValues and calls make_plan(), which resolves them with the
engine's own functions, as `epochcost plan` resolves its options (engine/cli/cmd_plan.py), so
the tab and the command give the same figures. Every mistake comes back as a ConfigError whose
field is a form field (FIELD_LABELS) and whose message a person can act on.

engine.plan.targets imports pandas (through engine.pricing.compare); it is imported on the first
plan,
not with the window.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.core.errors import ConfigError
from engine.core.placeholders import worded, worded_data
from engine.plan import planner
from engine.plan import presets as plan_presets
from engine.plan.planner import Compute, Power, RunsRow, Utilisation
from engine.plan.presets import Preset
from engine.pricing.catalog import Catalog
from gui.common.number_field import NumberSpec

if TYPE_CHECKING:
    from engine.plan.options import PlanOptions
    from engine.plan.planner import PlanRow, Target
    from engine.plan.report import Inputs

# Form field -> the label the form shows; the engine's ConfigError fields are these names.
FIELD_LABELS = {
    "preset": "Preset",
    "params": "Parameters N",
    "tokens": "Tokens D",
    "n_layers": "Layers",
    "seq_len": "Sequence length",
    "d_attn": "Attention width",
    "flops_per_sample": "FLOPs per sample",
    "samples": "Samples",
    "epochs": "Epochs",
    "gpu": "GPU",
    "instance": "Instance",
    "count": "GPUs",
    "precision": "Precision",
    "optimizer": "Optimizer",
    "batch_size": "Batch per GPU",
    "mfu": "Stated MFU",
    "from_result": "Measured MFU",
    "region": "Region",
    "pue": "PUE",
    "usd_per_kwh": "Electricity",
    "purchase_usd": "Purchase price",
    "lifetime_years": "Lifetime",
    "hours_per_day": "Use (hours/day)",
    "psu_efficiency": "PSU efficiency",
    "rest_of_system_w": "Rest of system",
    "runs_table": "Fully loaded",
    "runs": "Runs",
}

GIVEN_RUNS = "given"  # runs_table value: `runs` full-size runs
# The values the engine's texts ask for (engine/core/placeholders.py: "give {usd_per_kwh}"), as this
# form names them.
ASKED = {
    "grid_region": "a region",
    "usd_per_kwh": "an electricity tariff",
    "purchase_usd": "a purchase price",
    "mfu": "a stated MFU",
}


def form_words(text: str) -> str:
    """An engine text with the values it asks for named as the form names them."""
    return worded(text, ASKED.get)


def form_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """engine.plan.report.comparison_rows() with their texts in the form's words."""
    return [worded_data(row, ASKED.get) for row in rows]


def _spec(name: str, **rules: Any) -> NumberSpec:
    return NumberSpec(FIELD_LABELS[name], name=name, **rules)


# The number fields' rules (gui/common/number_field.py reads them: 1,000 and 110e6 and 7B all
# read, 35% is 0.35). Their ranges are the engine's, checked as it plans.
NUMBERS = {
    "params": _spec("params", example="110M", missing="give the parameter count N (110e6 or 110M)"),
    "tokens": _spec("tokens", example="3.3B", missing="give the training tokens D (3.3e9 or 3.3B)"),
    "n_layers": _spec("n_layers", integer=True, optional=True, example="12"),
    "seq_len": _spec("seq_len", integer=True, optional=True, example="512"),
    "d_attn": _spec("d_attn", integer=True, optional=True, example="768"),
    "flops_per_sample": _spec("flops_per_sample", optional=True, example="1.2e9"),
    "samples": _spec("samples", optional=True, example="50,000"),
    "epochs": _spec("epochs", example="1"),
    "count": _spec("count", integer=True, optional=True, example="8"),
    "batch_size": _spec("batch_size", integer=True, optional=True, example="32"),
    "mfu": _spec("mfu", example="0.35", missing="give an MFU (0.35 for 35%)"),
    "pue": _spec("pue", optional=True, example="1.2"),
    "usd_per_kwh": _spec("usd_per_kwh", optional=True, unit="$", example="0.15"),
    "purchase_usd": _spec("purchase_usd", optional=True, unit="$", example="30,000"),
    "lifetime_years": _spec("lifetime_years", optional=True, example="3"),
    "hours_per_day": _spec("hours_per_day", optional=True, example="24"),
    "psu_efficiency": _spec("psu_efficiency", optional=True, example="0.9"),
    "rest_of_system_w": _spec("rest_of_system_w", optional=True, unit="W", example="100"),
    "runs": _spec("runs", example="10", missing="give the number of full-size runs"),
}


@dataclass(frozen=True)
class FormValues:
    """What the form holds: texts as typed, choices by key. Empty text: not given."""

    mode: str = "transformer"  # "transformer" | "per_sample"
    preset: str = ""
    params: str = ""
    tokens: str = ""
    n_layers: str = ""
    seq_len: str = ""
    d_attn: str = ""
    attention: str = "causal"  # "causal" | "full"
    flops_per_sample: str = ""  # empty: the selected result's
    samples: str = ""  # empty: the selected result's samples per epoch
    epochs: str = "1"
    hardware: str = "gpu"  # "gpu" | "instance" | "owned"
    gpu: str = ""  # catalog GPU name
    instance: str = ""  # "cloud:instance_type"
    count: str = ""  # empty: 1, or the instance's GPUs
    precision: str = ""  # empty: the result's when its MFU is used, else the GPU's fastest
    optimizer: str = "adam"  # for the memory check
    batch_size: str = ""  # sequences per GPU per step, for the activations
    mfu_source: str = "stated"  # "stated" | "result"
    mfu: str = "0.35"
    region: str = ""  # "provider:region"; empty: the instance's region
    pue: str = ""
    usd_per_kwh: str = ""
    purchase_usd: str = ""
    lifetime_years: str = ""
    # Not on the form: the panel's owned set-up gives them (page.with_panel_owned).
    hours_per_day: str = ""
    psu_efficiency: str = ""
    rest_of_system_w: str = ""
    runs_table: str = plan_presets.DEFAULT_RUNS_TABLE  # a shipped table, or GIVEN_RUNS
    runs: str = ""


@dataclass(frozen=True)
class Sources:
    """The data a plan is drawn from, read once by the page."""

    catalog: Catalog
    presets: dict[str, Preset]
    runs_tables: dict[str, tuple[RunsRow, ...]]


@dataclass(frozen=True)
class Plan:
    """One plan and the comparison across hardware, with the result it used (if any)."""

    inputs: Inputs
    row: PlanRow
    target: Target
    data: dict[str, Any]  # engine.plan.report.single(): figures and assumptions
    comparison: list[tuple[PlanRow, Target]]
    left_out: list[tuple[str, str]]
    result_id: str | None


def number(field: str, text: str) -> float | None:
    """The number typed in `field` under its rules (NUMBERS); None when an optional field is
    empty. InputError (a ConfigError naming the field) says what to fix."""
    return NUMBERS[field].parse(text)


def required(field: str, text: str) -> float:
    """The number of a field that must be given (its spec says what an empty one lacks)."""
    value = number(field, text)
    if value is None:  # only an optional spec gives None
        raise NUMBERS[field].error(NUMBERS[field].missing or "give a number")
    return value


def whole(field: str, text: str) -> int | None:
    value = number(field, text)
    return None if value is None else int(value)


def uses_result(form: FormValues) -> bool:
    """Whether the plan takes something from the selected result (its MFU or FLOPs)."""
    per_sample_from_result = form.mode == "per_sample" and not form.flops_per_sample.strip()
    return form.mfu_source == "result" or per_sample_from_result


def compute(form: FormValues, preset: Preset | None, result: dict[str, Any] | None) -> Compute:
    """Training FLOPs: 6ND + attention, or FLOPs per sample x samples x epochs."""
    if form.mode == "per_sample":
        return _per_sample(form, result)
    if preset is not None and preset.tokens is None and not form.tokens.strip():
        raise ConfigError("tokens", f"{preset.name} has no published token count: give it")
    return planner.transformer(
        required("params", form.params),
        required("tokens", form.tokens),
        whole("n_layers", form.n_layers),
        whole("seq_len", form.seq_len),
        whole("d_attn", form.d_attn),
        form.attention != "full",
    )


def _per_sample(form: FormValues, result: dict[str, Any] | None) -> Compute:
    per_sample = number("flops_per_sample", form.flops_per_sample)
    samples = number("samples", form.samples)
    if result is not None and per_sample is None:
        per_sample = (result.get("flops") or {}).get("per_sample")
        if per_sample is None:
            raise ConfigError(
                "flops_per_sample", f"{result['run_id']} has no FLOP count stored: give it"
            )
    if result is not None and samples is None:
        samples = result.get("epoch_samples")
    if per_sample is None:
        raise ConfigError(
            "flops_per_sample", "give it, or select a result in the table to take its count"
        )
    if samples is None:
        raise ConfigError("samples", "give the samples per epoch")
    return planner.per_sample(per_sample, samples, required("epochs", form.epochs))


def utilisation(
    form: FormValues, cat: Catalog, result: dict[str, Any] | None
) -> tuple[Utilisation, Power]:
    """The MFU (stated, or measured by the result) and the power drawn (the result's, else
    TDP), as `epochcost plan --mfu / --from-result` take them."""
    from engine.plan import targets as plan_targets

    power = (plan_targets.power_from_result(result, cat) if result else None) or planner.TDP
    if form.mfu_source != "result":
        return planner.assumed(required("mfu", form.mfu)), power  # 35% reads as 0.35
    if result is None:
        raise ConfigError("from_result", "select a result in the table below to use its MFU")
    return plan_targets.utilisation_from_result(result, cat), power


def auto_precision(form: FormValues, cat: Catalog) -> str:
    """fp16 (the tensor rate), unless the GPU chosen has none: then its fastest (fp32 on a
    GTX 1080 Ti), as `epochcost plan` chooses."""
    from engine.plan import targets as plan_targets

    spec = cat.gpu(form.gpu) if form.hardware != "instance" else None
    if form.hardware == "instance":
        cloud, _, kind = form.instance.partition(":")
        found = [i for i in cat.select((cloud,)) if i.instance_type == kind]
        spec = cat.gpu_of(found[0]) if found else None
    return plan_targets.default_precision(spec) if spec is not None else "fp16"


def options(form: FormValues, u: Utilisation, cat: Catalog) -> PlanOptions:
    from engine.plan.options import PlanOptions

    count = whole("count", form.count)
    measured = u.precision if u.measured and u.precision else None
    return PlanOptions(
        count=count,
        precision=form.precision or measured or auto_precision(form, cat),
        optimizer=form.optimizer,
        batch_size=whole("batch_size", form.batch_size),
        region=form.region or None,
        pue=number("pue", form.pue),
        owned=form.hardware == "owned",
        usd_per_kwh=number("usd_per_kwh", form.usd_per_kwh),
        purchase_usd=number("purchase_usd", form.purchase_usd),
        lifetime_years=number("lifetime_years", form.lifetime_years),
        hours_per_day=number("hours_per_day", form.hours_per_day),
        psu_efficiency=number("psu_efficiency", form.psu_efficiency),
        rest_of_system_w=number("rest_of_system_w", form.rest_of_system_w),
    ).validated()


def runs(form: FormValues, tables: dict[str, tuple[RunsRow, ...]]) -> tuple[RunsRow, ...]:
    if form.runs_table == GIVEN_RUNS:
        given = required("runs", form.runs)
        rows = plan_presets.full_size_runs(given)
    elif form.runs_table in tables:
        rows = tables[form.runs_table]
    else:
        raise ConfigError("runs_table", f"{form.runs_table!r} is not a run-count table")
    planner.runs_multiplier(rows)  # validates
    return rows


def target(form: FormValues, cat: Catalog, opts: PlanOptions, power: Power) -> Target:
    from engine.plan import targets as plan_targets

    if form.hardware == "instance":
        cloud, _, kind = form.instance.partition(":")
        if not kind:
            raise ConfigError("instance", "choose an instance")
        instance = plan_targets.find_instance(cat, kind, (cloud,))
        return plan_targets.target_for_instance(cat, instance, opts, power)
    spec = cat.gpu(form.gpu)
    if spec is None:
        raise ConfigError(
            "gpu", f"{form.gpu!r} is not in the GPU catalog" if form.gpu else "choose a GPU"
        )
    return plan_targets.target_for_gpu(cat, spec, opts, power)


def make_plan(form: FormValues, sources: Sources, selected: dict[str, Any] | None) -> Plan:
    """The plan of `form` on its hardware, and on every catalog GPU at the same count.
    `selected` is the result selected in the results table (None: none)."""
    from engine.plan import report as plan_report
    from engine.plan import targets as plan_targets

    result = selected if uses_result(form) else None
    transformer = form.mode == "transformer"
    preset = sources.presets.get(form.preset) if form.preset and transformer else None
    cat = sources.catalog
    work = compute(form, preset, result)
    u, power = utilisation(form, cat, result)
    opts = options(form, u, cat)
    rows = runs(form, sources.runs_tables)
    runs_name = f"{form.runs} full-size runs" if form.runs_table == GIVEN_RUNS else form.runs_table
    inputs = plan_report.Inputs(work, preset, u, power, rows, runs_name, opts)
    chosen = target(form, cat, opts, power)
    row, chosen = plan_targets.plan_on(chosen, work, u, opts.precision, power, rows)
    # Every GPU at the chosen count; owning priced where a tariff is given, at launch prices
    # (a purchase price typed for the chosen GPU says nothing of the others).
    across = replace(opts, count=chosen.count, owned=False, purchase_usd=None)
    comparison, left_out = plan_targets.compare(cat, work, u, across, power, rows)
    data = plan_report.single(row, chosen, inputs, cat)
    run_id = result.get("run_id") if result else None
    return Plan(inputs, row, chosen, data, comparison, left_out, run_id)
