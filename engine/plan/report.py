"""A plan as data: the inputs it rests on, and its figures with what each one rests on.

`epochcost plan --json` prints these dicts and the GUI's Plan tab shows them, so the two say the
same thing in the same words. Units as engine/plan/planner.py: FLOPs, hours, USD, kWh, kg CO2e.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.measure.utilisation import peak_for_spec
from engine.plan import memory, planner
from engine.plan.options import PlanOptions
from engine.plan.planner import Compute, PlanRow, Power, RunsRow, Target, Utilisation
from engine.plan.presets import Preset
from engine.pricing.catalog import Catalog
from engine.pricing.rows import GpuSpec


@dataclass(frozen=True)
class Inputs:
    """Everything a plan rests on, resolved from the options (CLI) or the form (GUI)."""

    compute: Compute
    preset: Preset | None
    utilisation: Utilisation
    power: Power
    runs: tuple[RunsRow, ...]
    runs_name: str
    options: PlanOptions


def dollars(value: float | None) -> str:
    """$1,234 from $100 up, $12.34 below; "-" for no figure."""
    return "-" if value is None else f"${value:,.0f}" if value >= 100 else f"${value:,.2f}"


def published(inputs: Inputs, cat: Catalog) -> dict[str, Any] | None:
    """A preset's published GPU-hours read as the MFU that this FLOP count implies."""
    p = inputs.preset
    same = inputs.compute.tokens == p.tokens and inputs.compute.params == p.params if p else False
    if p is None or p.published_gpu_hours is None or not same:
        return None
    spec: GpuSpec | None = cat.gpu(p.published_gpu)
    peak = None if spec is None else peak_for_spec(spec, inputs.options.precision)
    implied = None
    if peak is not None and peak.tflops:
        implied = planner.implied_mfu(inputs.compute.flops, p.published_gpu_hours, peak.tflops)
    return {"gpu_hours": p.published_gpu_hours, "gpu": p.published_gpu, "implied_mfu": implied}


def assumptions(inputs: Inputs) -> dict[str, Any]:
    """What every target's figures rest on: compute, precision, MFU, power, run table."""
    return {
        "compute": inputs.compute.basis,
        "precision": inputs.options.precision,
        "mfu": inputs.utilisation.basis,
        "mfu_measured": inputs.utilisation.measured,
        "power": inputs.power.basis,
        "runs_table": inputs.runs_name,
        "runs": [
            {"label": r.label, "runs": r.runs, "relative_size": r.relative_size, "source": r.source}
            for r in inputs.runs
        ],
        "scaling": "perfect scaling over the GPUs assumed (the time is a lower bound)",
    }


def memory_check(target: Target, inputs: Inputs, cat: Catalog) -> memory.MemoryCheck | None:
    """Whether the run fits on the target's GPUs; None when the parameters are not known (a
    plan from FLOPs per sample)."""
    c = inputs.compute
    if c.params is None:
        return None
    spec = cat.gpu(target.gpu)
    shape = memory.Shape(c.layers, c.seq_len, c.d_attn, inputs.options.batch_size)
    device_gb = spec.memory_gb if spec is not None else None
    o = inputs.options
    return memory.check(c.params, o.precision, o.optimizer, shape, device_gb, target.count)


def single(row: PlanRow, target: Target, inputs: Inputs, cat: Catalog) -> dict[str, Any]:
    """One plan: PlanRow.to_row(), its assumptions with the target's peak, prices and grid,
    the preset's sources and its published run (`epochcost plan --json`)."""
    data = row.to_row()
    data["assumptions"] = {
        **assumptions(inputs),
        "peak": target.peak_basis,
        "price": target.price_basis,
        "spot": target.spot_basis,
        "owned": target.owned_basis,
        "grid": target.grid_basis,
        "pue": target.pue,
    }
    if inputs.preset is not None:
        p = inputs.preset
        data["preset"] = {
            "name": p.name,
            "params_source": p.params_source,
            "tokens_source": p.tokens_source,
            "notes": p.notes,
        }
    data["published"] = published(inputs, cat)
    fit = memory_check(target, inputs, cat)
    data["memory"] = None if fit is None else fit.to_dict()
    return data


def comparison_rows(rows: list[tuple[PlanRow, Target]]) -> list[dict[str, Any]]:
    """The comparison across hardware, one flat dict per target with its price sources (the
    rows of `plan --compare --json` and of the GUI's CSV)."""
    return [
        {**r.to_row(), "price": t.price_basis, "spot": t.spot_basis, "grid": t.grid_basis}
        for r, t in rows
    ]
