"""The real SkyPilot, in the real cloud environment, with no credentials: its own zipper packs
the staged upload (never the checkout's .env or id_rsa), its API server starts and stops, and a
launch without credentials ends within a minute saying so, with nothing stored as billed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.cli import main
from engine.cloud import skypilot, upload
from tests.engine.cloud_helpers import need_cloud_env, sky_home  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.worker


def test_skypilots_zipper_packs_the_engine_alone():
    need_cloud_env()
    planted = [ROOT / ".env", ROOT / "id_rsa"]
    for path in planted:
        path.write_text("secret\n", encoding="utf-8")
    try:
        folder = upload.stage()
        packed = skypilot.call("zip", {"folder": str(folder)}, timeout_s=120)
    finally:
        for path in planted:
            path.unlink()
    names = [n.split("/", 1)[1] for n in packed["files"]]  # inside the staged folder
    assert "pyproject.toml" in names and "engine/worker/main.py" in names
    assert "assets/gpus.csv" in names
    assert all(
        n.startswith(("engine/", "assets/")) or n in ("pyproject.toml", ".skyignore") for n in names
    ), names
    for left_out in (".env", "id_rsa", ".git/", "tests/", "gui/", "engine/cloud_program/"):
        assert not any(n.startswith(left_out) for n in names), left_out
    assert not any("__pycache__" in n for n in names)
    assert packed["bytes"] < 5_000_000  # the engine's source and the catalogs, not a checkout


def test_a_launch_without_credentials_ends_without_hanging_and_stores_nothing(
    capsys,
    sky_home,  # noqa: F811
):
    import shutil

    from engine.cloud import sky_catalog
    from engine.pricing import catalog

    need_cloud_env()
    # SkyPilot's catalog where a user's SkyPilot keeps it (it would download it; offline here)
    catalogs = sky_catalog.runtime_dir(catalog.load()) / ".sky" / "catalogs"
    shutil.copytree(catalogs, sky_home / ".sky" / "catalogs", dirs_exist_ok=True)
    try:
        started = time.monotonic()
        args = ["cloud", "run", "--instance", "aws:g5.xlarge", "--model", "tiny-mlp", "--yes"]
        code = main([*args, "--json"])
        took_s = time.monotonic() - started
        out, err = capsys.readouterr()
        assert code == 3, err
        assert out == ""  # --json: stdout holds JSON only, and there is no result
        assert "no instance came up" in err and "sky check" in err, err
        # Against a launch that hangs or retries for minutes, not a speed target: about 17 s on a
        # quiet machine, 108 s measured with the whole suite and two benchmarks on 2 cores.
        assert took_s < 180, took_s
        info = skypilot.call("server", {"action": "info"}, timeout_s=120)
        assert "healthy" in info["status"].lower(), info
        assert main(["results", "list", "--json"]) == 0
        assert json.loads(capsys.readouterr().out) == []
    finally:
        skypilot.call("server", {"action": "stop"}, timeout_s=120)
