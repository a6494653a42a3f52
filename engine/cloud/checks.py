"""A job log checked as an import is: what `cloud collect` (and `cloud run`, bringing its
result home) reads from a log before anything is kept.

A log is text anyone can edit, so its result is checked like a result file
(engine/results/schema.py) and by the rules every result from elsewhere meets
(engine/results/plausible.py), and by what only a log can be held to:

- **Run ids** match the run-id pattern (engine/core/ids.py) before anything is written
  anywhere: a run id names the recovery file, and `../profiles` named the user's profiles.
- **The instance's device:** a result on a GPU ran on the instance's GPU (its device name
  against the catalog's row of the instance's GPU), on no more GPUs than the instance has; a
  CPU result ran on the instance's CPU, which the catalog does not name.
- **One run:** the `started` event's config is the result's, the workload the config's model,
  the epoch the config's (its --epoch-samples, the data it read, or the workload's data set),
  and the epoch's seconds its samples over the throughput.
- **Clock lines** lie in the log's own span: none after the result was written, each after the
  one before it (launch, setup, run, first measured step), and a start-up no longer than
  MAX_STARTUP_MINUTES.

Each refusal is one ConfigError naming the log (its file) and what to fix.
"""

from __future__ import annotations

import datetime as _dt
import math
from itertools import pairwise
from typing import Any, NoReturn

from engine.cloud.log import JobLog
from engine.core.errors import ConfigError
from engine.core.ids import RUN_ID_RULE, is_run_id
from engine.pricing.catalog import Catalog, normalise
from engine.pricing.rows import Instance
from engine.results import plausible
from engine.results.result_fields import CLOCK_SKEW_S
from engine.results.schema import validate
from engine.workloads import registry

# The longest start-up a log may time (launch to the first measured step): what `cloud run
# --startup-minutes` accepts. A day of provisioning and setup is no launch's.
MAX_STARTUP_MINUTES = 24 * 60
# The clock lines in the order a job writes them (engine/cloud/commands.py). `launched` is the
# laptop's clock, the others the instance's: only between those two may the clocks disagree.
ORDER = ("launched", "setup", "setup-done", "run", "first-measured")
_SAME_CLOCK_SLACK_S = 1.0


def run_ids(job: JobLog) -> None:
    """Every event's run id a run id: checked before anything is built or written."""
    for event in job.events:
        if not is_run_id(event.run_id):
            raise ConfigError(
                job.source,
                f"holds a `{event.type}` event with run id {_short(event.run_id)}, which is no "
                f"run id ({RUN_ID_RULE}): the log was edited or is not epochcost-worker's; "
                "collect the job's own log (sky logs CLUSTER)",
            )


def measured_on(
    job: JobLog,
    result: dict[str, Any],
    instance: Instance,
    nodes: int,
    catalog: Catalog,
    now: _dt.datetime | None = None,
) -> dict[str, Any]:
    """The log's result (a finished run's, or the failure built from its events), checked:
    a valid result, one run, on `instance`, plausible, within its clock lines."""
    where = job.source
    result = validate(result, where)
    if job.result is not None:
        one_run(job, result)
    on_instance(result, instance, nodes, catalog, where)
    plausible.check(result, where, catalog, now)
    at = plausible.created(result)
    end = at.timestamp() if at is not None else (now or _dt.datetime.now(_dt.UTC)).timestamp()
    clocks_within(job.clocks, end, where)
    return result


def one_run(job: JobLog, result: dict[str, Any]) -> None:
    """The `started` event, the config, the workload and the epoch describe the same run."""
    started, where = job.started, job.source
    if started is not None:
        _same_start(started.run_id, started.config, result, where)
    config, workload = result["config"], result.get("workload") or {}
    named = workload.get("name")
    if config.get("model_file") is None and named is not None and named != config["model"]:
        _refuse(
            where,
            f"its result's workload is {named!r}, but its config's model is {config['model']!r}",
        )
    _epoch(result, where)


def _same_start(run_id: str, config: Any, result: dict[str, Any], where: str) -> None:
    if run_id != result["run_id"]:
        _refuse(
            where, f"its result's run id {result['run_id']} is not the started run's ({run_id})"
        )
    if config != result["config"]:
        keys = {*config, *result["config"]} if isinstance(config, dict) else set()
        differ = sorted(k for k in keys if config.get(k) != result["config"].get(k))
        _refuse(
            where, f"its result's config is not the started run's ({', '.join(differ) or 'config'})"
        )


def _epoch(result: dict[str, Any], where: str) -> None:
    """The epoch's samples the config's, its seconds the samples over the throughput."""
    samples, expected = result["epoch_samples"], _epoch_samples(result)
    if expected is not None and samples != expected:
        _refuse(
            where,
            f"its result's epoch is {samples} samples, but {result['config']['model']}'s is "
            f"{expected} (its config, data and workload say so)",
        )
    seconds, throughput = result.get("epoch_seconds"), result.get("throughput_samples_per_s")
    if seconds and throughput and not math.isclose(seconds, samples / throughput, rel_tol=1e-6):
        _refuse(
            where,
            f"its result's epoch_seconds {seconds:.6g} is not its epoch_samples over its "
            f"throughput ({samples / throughput:.6g})",
        )


def _epoch_samples(result: dict[str, Any]) -> int | None:
    """An epoch's samples as the worker takes them: --epoch-samples, else the data read, else
    a built-in workload's data set (None: a model file's own, not known here)."""
    config = result["config"]
    if config.get("epoch_samples"):
        return int(config["epoch_samples"])
    read = (result.get("data") or {}).get("samples")
    if read:
        return int(read)
    if config.get("model_file") is None and registry.exists(config["model"]):
        return registry.get(config["model"]).epoch_samples
    return None


def on_instance(
    result: dict[str, Any], instance: Instance, nodes: int, catalog: Catalog, where: str
) -> None:
    """A GPU result ran on `instance`'s GPU, on no more of them than `nodes` of it have."""
    env = result.get("environment") or {}
    device = str(env.get("device") or result["config"]["device"])
    if device == "cpu":
        return  # the instance's own CPU: the catalog names no CPU to compare it with
    name = env.get("device_name") or device
    has = f"{instance.label} has {instance.gpu_count:g}x {instance.gpu_model}"
    if instance.gpu_count <= 0 or not instance.gpu_model:
        _refuse(where, f"its result ran on {name}, but {instance.label} has no GPU", instance)
    if not same_gpu(env.get("device_name"), instance, catalog):
        _refuse(where, f"its result ran on {name}, but {has}", instance)
    world = (result.get("distributed") or {}).get("world_size") or 1
    if world > instance.gpu_count * nodes:
        _refuse(where, f"its result ran on {world} GPUs, but {has} (x{nodes} nodes)", instance)


def same_gpu(device_name: str | None, instance: Instance, catalog: Catalog) -> bool:
    """Whether CUDA's `device_name` is `instance`'s GPU: the same catalog row, or a row the
    clouds call by the instance's GPU name; without both rows, the name within CUDA's."""
    if not device_name:
        return False
    theirs, ours = catalog.gpu_for_device(device_name), catalog.gpu_of(instance)
    if theirs is not None and ours is not None:
        cloud_name = normalise(theirs.cloud_catalog_gpu_name)
        return theirs.name == ours.name or cloud_name == normalise(instance.gpu_model)
    return normalise(instance.gpu_model) in normalise(device_name)


def clocks_within(clocks: dict[str, float], end_s: float, where: str) -> None:
    """Every clock line at or before the log's end (its result's `created_at`, seconds since
    the epoch), and each in ORDER at or after the one before it."""
    for name, at in clocks.items():
        if at > end_s + CLOCK_SKEW_S:
            _refuse(
                where,
                f"its clock line `{name}` says {_when(at)}, after its result was written "
                f"({_when(end_s)}): every clock line lies within the log's own run",
            )
    present = [(name, clocks[name]) for name in ORDER if name in clocks]
    for (before, t0), (after, t1) in pairwise(present):
        slack = CLOCK_SKEW_S if before == "launched" else _SAME_CLOCK_SLACK_S
        if t1 < t0 - slack:
            _refuse(
                where,
                f"its clock line `{after}` ({_when(t1)}) comes before `{before}` ({_when(t0)}): "
                "a job writes them in order",
            )


def startup_within(minutes: float | None, basis: str, where: str) -> None:
    """A start-up no longer than MAX_STARTUP_MINUTES (collect.startup's minutes and basis)."""
    if minutes is not None and minutes > MAX_STARTUP_MINUTES:
        _refuse(
            where,
            f"its clock lines time a start-up of {minutes:,.0f} minutes from "
            f"{basis}, longer than any launch ({MAX_STARTUP_MINUTES:,} minutes at most)",
        )


def _refuse(where: str, what: str, instance: Instance | None = None) -> NoReturn:
    fix = (
        f"collect it with the instance it ran on (--instance), not {instance.cloud}:"
        f"{instance.instance_type}"
        if instance is not None
        else "the log was edited or mixes several jobs; collect the job's own log (sky logs "
        "CLUSTER)"
    )
    raise ConfigError(where, f"{what}; {fix}")


def _when(seconds: float) -> str:
    try:
        return f"{_dt.datetime.fromtimestamp(seconds, _dt.UTC):%Y-%m-%d %H:%M:%S} UTC"
    except (OverflowError, OSError, ValueError):
        return f"{seconds:.6g} s since 1970"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
