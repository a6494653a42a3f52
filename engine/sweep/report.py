"""Human-readable text for a sweep: a line per trial as it ends, then a table and the verdicts."""

from __future__ import annotations

from engine.core.interval import interval_text
from engine.results.report import duration, money
from engine.sweep.events import Trial
from engine.sweep.summary import SweepSummary


def trial_line(trial: Trial) -> str:
    """One line when a trial ends: what ran, what came out, how long it took."""
    head = f"trial {trial.index:>2d}  batch {trial.batch_size:>7d}  {trial.role:7s}"
    if trial.status == "skipped":
        return f"{'':8s}  batch {trial.batch_size:>7d}  skipped ({trial.message})"
    if trial.fits:
        tput = trial.value("throughput_samples_per_s")
        spread = interval_text(trial.value("throughput_ci95"), tput)
        return f"{head}  fits     {tput:,.1f} samples/s {spread}  ({trial.seconds:.1f} s)"
    status = "DOES NOT FIT" if trial.status == "oom" else trial.status
    return f"{head}  {status}  ({trial.seconds:.1f} s)  {trial.message}"


def _cell(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def _spread(p: Trial) -> str:
    tput = p.value("throughput_samples_per_s")
    return interval_text(p.value("throughput_ci95"), tput) if tput else "-"


def table(summary: SweepSummary) -> list[str]:
    lines = [
        f"{'batch':>7s}  {'run':7s}  {'status':9s}  {'samples/s':>11s}  {'95% interval':>13s}  "
        f"{'memory':>7s}  "
        f"{'epoch':>12s}  {'$/epoch':>9s}"
    ]
    for p in summary.points:
        fill, epoch, usd = (
            p.value("memory_fill"),
            p.value("epoch_seconds"),
            p.value("usd_per_epoch"),
        )
        status = "no fit" if p.status == "oom" else p.status
        lines.append(
            f"{p.batch_size:>7d}  {p.role:7s}  {status:9s}  "
            f"{_cell(p.value('throughput_samples_per_s'), ',.1f'):>11s}  "
            f"{_spread(p):>13s}  "
            f"{'-' if fill is None else f'{fill:.1%}':>7s}  "
            f"{'-' if epoch is None else duration(epoch):>12s}  "
            f"{'-' if usd is None else money(usd):>9s}"
        )
    return lines


def verdicts(summary: SweepSummary) -> list[str]:
    margin, multiple = summary.plan.get("margin", 0.1), summary.plan.get("multiple", 8)
    lines: list[str] = []
    s = summary.search
    if s is not None:
        failed = (
            f"{s.first_failure_batch} did not fit"
            if s.first_failure_batch
            else "no failure below the limit"
        )
        if s.max_fit_batch:
            lines.append(
                f"{'max fit':12s} {s.max_fit_batch}  (largest batch that trained; {failed})"
            )
        else:
            lines.append(f"{'max fit':12s} none: no batch size trained")
        if s.recommended_batch:
            lines.append(
                f"{'recommended':12s} {s.recommended_batch}  ({margin:.0%} below, a multiple of "
                f"{multiple}; confirmed by a full run)"
            )
    why = cheapest_reason(summary)
    if why is not None:
        lines.append(f"{'cheapest':12s} {summary.cheapest_batch}  ({why})")
        # A tie ("no clear winner between ...") is the summary's first note, as in the app.
    if summary.knee_batch is not None:
        lines.append(
            f"{'knee':12s} {summary.knee_batch}  (smallest batch within "
            f"{summary.knee_tolerance:.0%} of the best throughput, "
            f"{summary.best_throughput_samples_per_s:,.1f} samples/s)"
        )
    notes = summary.to_dict()["notes"]
    lines += [f"{'note':12s} {note}" for note in notes]
    if summary.error:
        lines.append(f"{'error':12s} {summary.error['kind']}: {summary.error['message']}")
    return lines


def text(summary: SweepSummary) -> str:
    trials = summary.to_dict()["trials"]
    head = (
        f"{summary.model} | sweep ({summary.mode}) | {trials} trials in "
        f"{duration(summary.seconds)} | {summary.status} | group {summary.group_id}"
    )
    return "\n".join([head, *table(summary), *verdicts(summary)])


def cheapest_reason(summary: SweepSummary) -> str | None:
    """Why the cheapest batch is the cheapest: its $/epoch, or (no price) its epoch time."""
    if summary.cheapest_batch is None:
        return None
    p = next(p for p in summary.points if p.batch_size == summary.cheapest_batch)
    if summary.cheapest_basis == "usd_per_epoch":
        return f"{money(p.value('usd_per_epoch'))} per epoch"
    return f"fastest epoch, {duration(p.value('epoch_seconds'))}; no price given"
