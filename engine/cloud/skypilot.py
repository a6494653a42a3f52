"""SkyPilot, the optional install (`pip install 'epochcost[cloud]'`), and the one seam through
which epochcost reaches a cloud: `SkyPilot` launches a task, streams and downloads its job's
log, and tears the cluster down. Tests replace that object alone; everything else (the task,
its schema check, the log's import) runs as it would for a real launch.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from engine.core.errors import ConfigError

INSTALL_HINT = "SkyPilot is not installed: pip install 'epochcost[cloud]' (or `make run`)"
CHECK_HINT = "run `sky check` to see which clouds your credentials reach"


def require_sky() -> Any:
    """The `sky` package, or a ConfigError saying how to install it."""
    try:
        import sky
    except ImportError:
        raise ConfigError("cloud", INSTALL_HINT) from None
    return sky


class SkyPilot:
    """Launch, logs and teardown through SkyPilot's SDK (a client of its API server, which it
    starts locally when none runs). Each method blocks until SkyPilot answers."""

    def __init__(self) -> None:
        self._launch_request: str | None = None

    def launch(self, task: Any, cluster: str, idle_minutes: int, output: io.TextIOBase) -> int:
        """Provision `cluster`, run setup, submit the task's job; returns the job id. The
        cluster goes down when the job ends (down=True) and after `idle_minutes` idle."""
        sky = require_sky()
        request = sky.launch(
            task, cluster_name=cluster, idle_minutes_to_autostop=idle_minutes, down=True
        )
        self._launch_request = request
        job_id, _handle = sky.stream_and_get(request, output_stream=output)
        self._launch_request = None
        if job_id is None:
            raise ConfigError("cloud", f"SkyPilot launched {cluster} but submitted no job")
        return int(job_id)

    def follow(self, cluster: str, job_id: int, output: io.TextIOBase) -> int:
        """Stream the job's log to `output` until it ends; its exit code (0: succeeded)."""
        sky = require_sky()
        return int(sky.tail_logs(cluster, job_id, follow=True, output_stream=output))

    def download_log(self, cluster: str, job_id: int, folder: Path) -> Path:
        """The job's log on this machine (SkyPilot's log download): its run.log."""
        sky = require_sky()
        paths = sky.download_logs(cluster, [str(job_id)])
        local = Path(next(iter(paths.values())))
        logs = sorted(local.rglob("*.log")) if local.is_dir() else [local]
        run_logs = [p for p in logs if p.name == "run.log"] or logs
        if not run_logs:
            raise ConfigError("cloud", f"SkyPilot's log download of {cluster} holds no log")
        target = folder / f"{cluster}-job{job_id}.log"
        target.write_bytes(run_logs[0].read_bytes())
        return target

    def cancel_launch(self) -> None:
        """From another thread: cancel a launch still under way on SkyPilot's API server, so
        that the launch call returns even while SkyPilot writes nothing (provisioning)."""
        request = self._launch_request
        if request is not None:
            sky = require_sky()
            sky.get(sky.api_cancel(request, silent=True))

    def down(self, cluster: str) -> None:
        """Tear the cluster down (terminate: nothing keeps billing). A launch still under way
        on SkyPilot's API server (Ctrl-C stops only this client) is cancelled first."""
        sky = require_sky()
        if self._launch_request is not None:
            sky.get(sky.api_cancel(self._launch_request, silent=True))
            self._launch_request = None
        sky.stream_and_get(sky.down(cluster))


def launch_failure(exc: BaseException) -> tuple[str, bool]:
    """A failed launch in one line, pointing to `sky check`, and whether an instance may have
    come up (a failure in setup or on the node is billed; capacity, quota and credentials
    refused before any instance ran)."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    sky = require_sky()
    errors = sky.exceptions
    refused = (
        errors.ResourcesUnavailableError,
        errors.NoCloudAccessError,
        errors.CloudUserIdentityError,
        errors.InvalidCloudCredentials,
        errors.InvalidCloudConfigs,
        errors.ApiServerConnectionError,
    )
    billed = not isinstance(exc, refused)
    why = "no instance came up" if not billed else "an instance may have run"
    return f"the launch failed ({type(exc).__name__}: {first}; {why}); {CHECK_HINT}", billed
