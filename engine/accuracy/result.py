"""The result of one training-to-accuracy run: an epochcost.result/1 with kind "accuracy".
The worker builds a measured one (engine/worker/accuracy/result.py); here, what the parent
needs: the result of a run that failed before it measured, and telling the kind apart.

It is a timed-run result too (throughput on the real data set, pipeline included, memory,
price), so `results list/show/export/import` and the comparison treat it like any other; the
`accuracy` section holds what is particular to it:

    accuracy.dataset   {name, source, train_samples, test_samples, eval_samples,
                        input_shape, classes}
    accuracy.rule      {mode: "target"|"stable", target_accuracy, band, patience,
                        eval_every, include_eval_time, max_iterations, max_seconds}
    accuracy.reached   true when the target was met or accuracy settled
    accuracy.stop_reason  target | stable | max_iterations | max_seconds
    accuracy.point     null when not reached, else {iteration, accuracy, epochs,
                        train_seconds, eval_seconds, seconds, usd}: seconds is training time
                        to the point (plus evaluation time when include_eval_time); usd is
                        seconds at the run's price (null without a price)
    accuracy.run       the whole run, confirmation included: {iterations, epochs,
                        train_seconds, eval_seconds, setup_seconds, seconds, usd}; seconds =
                        setup + training + evaluation, what the machine was busy for
    accuracy.curve     [{iteration, accuracy, loss, train_loss, train_seconds, eval_seconds,
                        elapsed_s}], loss the held-out mean cross-entropy
"""

from __future__ import annotations

from typing import Any

from engine.core.errors import ConfigError
from engine.core.events import Failed, json_safe
from engine.measure.accuracy_config import AccuracyConfig
from engine.measure.result import ACCURACY_KIND, failure_header
from engine.workloads.data import describe


def failed_result(
    event: Failed, config: AccuracyConfig, environment: dict[str, Any]
) -> dict[str, Any]:
    """A stored result for a run that ended without a curve (an OOM point is data)."""
    try:
        train_samples = describe(config.dataset).train_samples
    except ConfigError:
        train_samples = 0
    return json_safe(
        {
            **failure_header(event, config, environment),
            "kind": ACCURACY_KIND,
            "epoch_samples": train_samples,
            "accuracy": None,
        }
    )


def is_accuracy_result(result: dict[str, Any]) -> bool:
    return result.get("kind") == ACCURACY_KIND
