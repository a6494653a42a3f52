"""SkyPilot's side of a cloud run: `python -I main.py OPERATION` with one JSON request on stdin.

Run with the cloud environment's Python (SkyPilot installed there, nothing of epochcost: this
file imports only the standard library and `sky`). It answers on stdout in JSON lines, one
object a line, each with a "kind":

- "line": a line SkyPilot wrote (its own prints and logs go here, never raw to stdout);
- "request": the id of a request on SkyPilot's API server (a launch, for a cancel);
- "answer": the operation's answer (the last line);
- "error": the operation failed: "type" (SkyPilot's exception class), "message" (its first
  line), "provisioned" (false where SkyPilot refused before any instance could run).

Operations (the request's fields in brackets):
- version: SkyPilot's version and catalog schema.
- check [tasks, runtime_dir]: each task through SkyPilot's own YAML loader, Resources validation
  and optimizer against the catalog in runtime_dir (SkyPilot's layout, offline: no credentials,
  no network), as if the task's cloud were enabled; answers, per task, the YAML and the
  optimizer's choice with its $/h. A refusal is that task's answer, not an error.
- launch [task, cluster]: sky.launch (down after the job, autostop from the task's resources);
  answers the job id.
- exec [task, cluster]: sky.exec on a cluster that is up; answers the job id.
- follow [cluster, job_id]: the job's log, streamed as lines; answers its exit code.
- download [cluster, job_id]: the job's log downloaded; answers the local path of its run.log.
- cancel [request]: cancels a request on the API server.
- down [cluster]: tears the cluster down.
- status [cluster]: whether the cluster exists ("UP", "STOPPED", "INIT" or null).
- server [action: start|stop|info]: SkyPilot's local API server.
- catalog_url [cloud]: where SkyPilot's hosted catalog keeps that cloud's vms.csv.
- zip [folder]: the files SkyPilot's own zipper packs from an upload folder (with .skyignore).

`python -I main.py serve` is the check's warm program (engine/cloud/check_server.py): its first
line on stdin is [runtime_dir, idle_s]; it imports SkyPilot once and says "ready", then answers
each later line ("check"'s request, [tasks]: the first line's runtime_dir holds for all) as one
run of `check` would, until stdin ends or idle_s pass with no request. A failure of one request
is its "error" line, and the program serves on (its client ends it all the same).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import sys
import tempfile
import zipfile
from typing import Any

_OUT = sys.stdout  # the protocol's stream; SkyPilot's own prints go to stderr (below)
REFUSED_BEFORE_PROVISIONING = (
    "ResourcesUnavailableError",
    "NoCloudAccessError",
    "CloudUserIdentityError",
    "InvalidCloudCredentials",
    "InvalidCloudConfigs",
    "ApiServerConnectionError",
    "ApiServerAuthenticationError",
    "APIVersionMismatchError",
    "APINotSupportedError",
    "InvalidSkyPilotConfigError",
    "InvalidClusterNameError",
    "NotSupportedError",
    "ProvisionPrechecksError",
    "NoClusterLaunchedError",
    "PermissionDeniedError",
    "ValueError",
)


def send(kind: str, **fields: Any) -> None:
    _OUT.write(json.dumps({"kind": kind, **fields}) + "\n")
    _OUT.flush()


# SkyPilot's lines once it asks a cloud for an instance: before any of them, nothing can
# have been provisioned (a refusal, a network or catalog failure is not billed).
PROVISIONING_MARKS = ("Launching on", "Provisioning", "Launching a new cluster", "Launching")
_SEEN = {"provisioning": False}


class _Lines(io.TextIOBase):
    """A stream SkyPilot writes to, sent on as "line" messages."""

    def __init__(self) -> None:
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if any(mark in line for mark in PROVISIONING_MARKS):
                _SEEN["provisioning"] = True
            send("line", text=line.rstrip("\r"))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            send("line", text=self._pending)
            self._pending = ""


def _task(sky: Any, mapping: dict[str, Any]) -> Any:
    """The task through SkyPilot's own YAML loader (its schema and its checks)."""
    return sky.Task.from_yaml_config(mapping)


def _yaml(mapping: dict[str, Any]) -> str:
    from sky.utils import yaml_utils

    return str(yaml_utils.dump_yaml_str(mapping))


def _enable_only(clouds: list[Any]) -> None:
    """The dry run's one assumption: the task's cloud is enabled (no credentials here)."""
    from sky import check

    check.get_cached_enabled_clouds_or_refresh = lambda *a, **k: list(clouds)
    check.check_capability = lambda *a, **k: None


def check_one(sky: Any, mapping: dict[str, Any]) -> dict[str, Any]:
    """One task through SkyPilot's loader, Resources.validate() and optimizer."""
    from sky import optimizer
    from sky.utils import common as sky_common

    sent = _yaml(mapping)  # before SkyPilot's loader, which takes the mapping apart
    try:
        task = _task(sky, mapping)
        resources = list(task.resources)
        for r in resources:
            r.validate()
        _enable_only([r.cloud for r in resources if r.cloud is not None])
        dag = sky.Dag()
        dag.add(task)
        optimizer.Optimizer.optimize(dag, minimize=sky_common.OptimizeTarget.COST, quiet=True)
        best = task.best_resources
        if best is None:
            return {"ok": False, "error": "SkyPilot's optimizer found no resources"}
        return {
            "ok": True,
            "yaml": sent,  # what was sent, as SkyPilot's loader accepted it
            "chosen": str(best),
            "instance_type": best.instance_type,
            "region": best.region,
            "zone": best.zone,
            "accelerators": best.accelerators,
            "use_spot": best.use_spot,
            "usd_per_hour": best.get_cost(3600) * task.num_nodes,
        }
    except Exception as exc:  # noqa: BLE001 - SkyPilot's refusal, whatever its class, is the answer
        return {"ok": False, "type": type(exc).__name__, "error": _first_line(exc)}


def op_check(sky: Any, request: dict[str, Any]) -> Any:
    return [check_one(sky, mapping) for mapping in request["tasks"]]


def op_version(sky: Any, request: dict[str, Any]) -> Any:
    from sky.skylet import constants

    return {"skypilot": sky.__version__, "catalog_schema": constants.CATALOG_SCHEMA_VERSION}


def op_launch(sky: Any, request: dict[str, Any]) -> Any:
    task = _task(sky, request["task"])
    request_id = sky.launch(task, cluster_name=request["cluster"], down=True)
    send("request", id=str(request_id))
    job_id, _handle = sky.stream_and_get(request_id, output_stream=_Lines())
    return {"job_id": job_id}


def op_exec(sky: Any, request: dict[str, Any]) -> Any:
    task = _task(sky, request["task"])
    request_id = sky.exec(task, cluster_name=request["cluster"])
    send("request", id=str(request_id))
    job_id, _handle = sky.stream_and_get(request_id, output_stream=_Lines())
    return {"job_id": job_id}


def op_follow(sky: Any, request: dict[str, Any]) -> Any:
    lines = _Lines()
    code = sky.tail_logs(
        request["cluster"], int(request["job_id"]), follow=True, output_stream=lines
    )
    lines.flush()
    return {"exit_code": int(code)}


def op_download(sky: Any, request: dict[str, Any]) -> Any:
    paths = sky.download_logs(request["cluster"], [str(request["job_id"])])
    local = next(iter(paths.values()))
    found: list[str] = []
    if os.path.isdir(local):
        for root, _dirs, files in os.walk(local):
            found += [os.path.join(root, f) for f in files if f.endswith(".log")]
    else:
        found = [local]
    runs = sorted(p for p in found if os.path.basename(p) == "run.log") or sorted(found)
    return {"path": runs[0] if runs else None}


def op_cancel(sky: Any, request: dict[str, Any]) -> Any:
    return {"cancelled": sky.get(sky.api_cancel(request["request"], silent=True))}


def op_down(sky: Any, request: dict[str, Any]) -> Any:
    sky.stream_and_get(sky.down(request["cluster"]), output_stream=_Lines())
    return {"down": request["cluster"]}


def op_status(sky: Any, request: dict[str, Any]) -> Any:
    records = sky.get(sky.status([request["cluster"]]))
    for record in records:
        status = record["status"] if isinstance(record, dict) else getattr(record, "status", None)
        return {"status": getattr(status, "value", status)}
    return {"status": None}


def op_server(sky: Any, request: dict[str, Any]) -> Any:
    action = request.get("action", "info")
    if action == "start":
        sky.api_start()
    elif action == "stop":
        sky.api_stop()
        return {"stopped": True}
    info = sky.api_info()
    status = getattr(info, "status", None)
    return {
        "status": str(getattr(status, "value", status)),
        "version": getattr(info, "version", None),
        "api_version": getattr(info, "api_version", None),
    }


def op_catalog_url(sky: Any, request: dict[str, Any]) -> Any:
    from sky.skylet import constants

    version = constants.CATALOG_SCHEMA_VERSION
    cloud = str(request["cloud"]).lower()
    return {
        "url": f"{constants.HOSTED_CATALOG_DIR_URL}/{version}/{cloud}/vms.csv",
        "schema": version,
    }


def op_zip(sky: Any, request: dict[str, Any]) -> Any:
    from sky.data import storage_utils

    folder = request["folder"]
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "upload.zip")
        storage_utils.zip_files_and_folders([folder], target, relative_to_items=True)
        with zipfile.ZipFile(target) as packed:
            infos = [i for i in packed.infolist() if not i.is_dir()]
            names = sorted(i.filename for i in infos)
            size = sum(i.file_size for i in infos)
        return {"files": names, "bytes": size, "zip_bytes": os.path.getsize(target)}


OPERATIONS = {
    "version": op_version,
    "check": op_check,
    "launch": op_launch,
    "exec": op_exec,
    "follow": op_follow,
    "download": op_download,
    "cancel": op_cancel,
    "down": op_down,
    "status": op_status,
    "server": op_server,
    "catalog_url": op_catalog_url,
    "zip": op_zip,
}


def _first_line(exc: BaseException) -> str:
    import re

    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    return (text.splitlines() or [type(exc).__name__])[0]


def _environment(request: dict[str, Any]) -> None:
    catalog_dir = request.get("runtime_dir")
    if catalog_dir:  # the dry run's own SkyPilot home: its catalog snapshot, no user state
        os.environ["SKY_RUNTIME_DIR"] = catalog_dir
        os.environ["HOME"] = catalog_dir
    os.environ.setdefault("SKYPILOT_DISABLE_USAGE_COLLECTION", "1")


def _answer(operation: str, request: dict[str, Any]) -> int:
    """One operation, answered or failed in one message; the exit code it means."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            import sky

            answer = OPERATIONS[operation](sky, request)
    except KeyboardInterrupt:
        send("error", type="KeyboardInterrupt", message="stopped", provisioned=None)
        return 130
    except BaseException as exc:  # noqa: BLE001 - every failure is one message to the parent
        name = type(exc).__name__
        send("error", type=name, message=_first_line(exc), provisioned=_provisioned(exc))
        return 1
    send("answer", answer=answer)
    return 0


def _lines(fd: int, idle: dict[str, float]) -> Any:
    """stdin's lines as they come, until it ends or idle["s"] pass without one (read from the
    descriptor: a buffered stream would hide a line from select)."""
    pending = b""
    while True:
        while b"\n" not in pending:
            ready, _w, _x = select.select([fd], [], [], idle["s"])
            chunk = os.read(fd, 65536) if ready else b""
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        yield line.decode("utf-8")


def serve() -> int:
    """The check's warm program (the module's docstring)."""
    idle = {"s": 60.0}  # for the first line
    lines = _lines(sys.stdin.fileno(), idle)
    first = next(lines, None)
    if first is None:
        return 0
    setup = json.loads(first)
    idle["s"] = float(setup.get("idle_s", 600.0))
    _environment(setup)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            import sky  # noqa: F401 - the second the warm program saves each check
            from sky import optimizer  # noqa: F401
    except BaseException as exc:  # noqa: BLE001 - SkyPilot's import failed: one message
        send("error", type=type(exc).__name__, message=_first_line(exc), provisioned=False)
        return 1
    send("ready")
    for line in lines:
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            send("error", type="usage", message="a request is one JSON object a line")
            continue
        _answer("check", request)
    return 0


def main(argv: list[str]) -> int:
    if argv == ["serve"]:
        return serve()
    if len(argv) != 1 or argv[0] not in OPERATIONS:
        send("error", type="usage", message=f"give one of serve, {', '.join(OPERATIONS)}")
        return 2
    request = json.loads(sys.stdin.read() or "{}")
    _environment(request)
    return _answer(argv[0], request)


def _provisioned(exc: BaseException) -> bool:
    """Whether an instance may have run: false for SkyPilot's refusals before provisioning."""
    names = {c.__name__ for c in type(exc).__mro__}
    return _SEEN["provisioning"] and not names & set(REFUSED_BEFORE_PROVISIONING)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
