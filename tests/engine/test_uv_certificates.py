"""uv trusts the system's certificates, as pip does (issue 39): behind a TLS-inspecting proxy,
whose CA the system trusts and uv's own bundle does not, `env create` failed with "invalid peer
certificate: UnknownIssuer". This machine reaches PyPI through such a proxy, so the real uv, run
the way every installer step is (engine/envs/installer.run_step), resolves a package from the
real index; the same command without UV_NATIVE_TLS shows what a user met before, where the
network inspects TLS (elsewhere that half is skipped, saying why)."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from engine.envs import installer

pytestmark = pytest.mark.worker

# A small, pure-Python package whose metadata any PyPI mirror serves.
PACKAGE = "six==1.16.0"


def _command(uv: str, venv) -> list[str]:
    # --no-cache: the index is asked, not a cache a previous test filled.
    return [uv, "pip", "install", "--dry-run", "--no-cache", "--python", str(venv), PACKAGE]


@pytest.fixture
def uv_and_venv(tmp_path):
    uv = installer.find_uv()
    if uv is None:
        pytest.skip("no uv here (make venv installs it)")
    venv = tmp_path / "venv"
    made = subprocess.run([uv, "venv", "-q", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"uv could not make a venv here: {made.stderr.strip()[-200:]}")
    return uv, venv / "bin" / "python"


def test_an_installer_step_reaches_the_index_with_the_systems_certificates(uv_and_venv):
    uv, venv = uv_and_venv
    lines: list[str] = []
    try:
        installer.run_step(
            _command(uv, venv),
            installer.Progress(),
            lambda done: lines.append(done.line),
            threading.Event(),
        )
    except installer.InstallFailed as exc:
        if "certificate" in str(exc).lower():
            raise AssertionError(f"uv refused the system's certificates: {exc}") from None
        pytest.skip(f"the package index cannot be reached from here: {str(exc)[-200:]}")
    assert any("six" in line for line in lines), lines


def test_without_the_systems_certificates_uv_fails_behind_this_proxy(uv_and_venv):
    """The control: what `env create` met before (skipped where TLS is not inspected)."""
    uv, venv = uv_and_venv
    env = {k: v for k, v in os.environ.items() if k != "UV_NATIVE_TLS"}
    env.pop("SSL_CERT_FILE", None)  # uv's own bundle only, as a user's uv has
    done = subprocess.run(_command(uv, venv), capture_output=True, text=True, env=env, timeout=120)
    if done.returncode == 0:
        pytest.skip("this network does not inspect TLS: uv's own bundle reaches the index")
    if "certificate" not in done.stderr.lower():
        pytest.skip(f"the index cannot be reached from here: {done.stderr.strip()[-200:]}")
    # What a user met: the proxy's certificate, unknown to uv's own bundle.
    assert "UnknownIssuer" in done.stderr or "invalid peer certificate" in done.stderr
