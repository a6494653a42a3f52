"""A stored result projected onto another GPU: its model's family, one device's share of a
data-parallel run, whether its fp32 ran as TF32, and the measurement's own 95% interval.

`project_result` reads these from a result (engine/results/schema.py) and hands them to
engine/pricing/projection.py's `project`; the estimate's range is then widened by the measured
figure's own interval (engine/pricing/spread.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.pricing import projection_errors
from engine.pricing.projection import Basis, Projection, project
from engine.pricing.roofline import ran_tf32
from engine.pricing.rows import GpuSpec
from engine.pricing.spread import measured_spread, widened
from engine.workloads import family as model_family
from engine.workloads.family import Family


def with_measured_spread(proj: Projection, result: dict[str, Any]) -> Projection:
    """A projection's range combined with the measurement's own 95% interval
    (engine/pricing/spread.py): the estimate scales a figure that is itself only known to
    within it."""
    spread = measured_spread(result)
    if proj.low is None or proj.high is None or proj.samples_per_s is None:
        return proj
    if spread == (1.0, 1.0):
        return proj
    low, high = widened(
        proj.samples_per_s, proj.low, proj.high, proj.range_level or projection_errors.LEVEL, spread
    )
    return replace(
        proj, low=low, high=high, basis=f"{proj.basis}; with the measurement's own 95% interval"
    )


def family_of(result: dict[str, Any]) -> tuple[Family, str]:
    """The family of a result's model, with why (engine/workloads/family.py: a model file's
    FAMILY, else what the model is made of, else the built-in's own), and the published table's
    name of the same model ("" for a model file, an unknown model or one not published)."""
    builtin = model_family.builtin_of(result)
    return model_family.of_result(result), builtin.published_as if builtin else ""


def project_result(
    result: dict[str, Any],
    source: GpuSpec,
    target: GpuSpec,
    basis: Basis,
    memory_available_bytes: int | None = None,
) -> Projection:
    """`project` for a stored result, its range widened by the measurement's own interval."""
    family, published_as = family_of(result)
    # A data-parallel run's figure is all its devices': one device's share (its scaling losses
    # included, so the estimate errs low) is what another GPU is projected from.
    world = int((result.get("distributed") or {}).get("world_size") or 1)
    proj = project(
        result["throughput_samples_per_s"] / world,
        source,
        target,
        result["config"]["precision"],
        result.get("peak_memory_bytes"),
        memory_available_bytes,
        basis=basis,
        family=family.name,
        tf32=ran_tf32(
            result.get("environment") or {},
            family.name,
            result["config"].get("framework"),
            result["config"]["precision"],
        ),
        published_model=published_as,
    )
    if proj.status != "estimated":
        return proj
    if proj.method != "same GPU":  # which published models it was compared with, and why
        proj = replace(proj, basis=f"{proj.basis}; {family.text()}")
    if world > 1:
        proj = replace(proj, basis=f"{proj.basis}; from one device's share of {world} processes")
    return with_measured_spread(proj, result)
