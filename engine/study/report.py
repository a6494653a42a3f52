"""A study as a table for the terminal: one row per value of its axis, the cheapest named."""

from __future__ import annotations

from engine.study.summary import StudySummary


def text(summary: StudySummary) -> str:
    lines = [
        f"{summary.model}: {summary.label} study | {summary.status} | group {summary.group_id}",
        f"{summary.label:>14s}  {'samples/s':>10s}  {'95% interval':>19s}  {'peak MiB':>9s}  "
        f"{'kWh/epoch':>10s}  {'$/epoch':>10s}  status",
    ]
    for p in summary.points:
        rate = p.figure("throughput_samples_per_s")
        low, high = p.interval("throughput_ci95")
        span = f"{low:,.1f} to {high:,.1f}" if low is not None and high is not None else "-"
        peak = p.figure("peak_memory_bytes")
        kwh = p.kwh_per_epoch
        usd = p.usd_per_epoch
        status = p.status if p.ok or p.status == "refused" else f"{p.status}: {p.message}"
        lines.append(
            f"{summary.show(p.value):>14s}  {f'{rate:,.1f}' if rate else '-':>10s}  {span:>19s}  "
            f"{f'{peak / 2**20:,.0f}' if peak else '-':>9s}  "
            f"{f'{kwh:.3g}' if kwh is not None else '-':>10s}  "
            f"{f'{usd:.4g}' if usd is not None else '-':>10s}  {status}"
        )
    if summary.cheapest_value is not None:
        basis = {
            "owned_usd_per_epoch": "$/epoch owned",
            "usd_per_epoch": "$/epoch",
            "epoch_seconds": "epoch time (no price given)",
        }[summary.cheapest_basis or "epoch_seconds"]
        lines.append(f"cheapest: {summary.show(summary.cheapest_value)} (by {basis})")
    if summary.error:
        lines.append(f"stopped: {summary.error['message']}")
    lines += [f"note: {n}" for n in summary.notes]
    return "\n".join(lines)
