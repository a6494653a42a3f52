"""`make gpu-env`: a PyTorch environment for the GPUs the app's own PyTorch has no kernels for
(Pascal and Volta: GTX 10xx, P100, V100, TITAN V). It makes `.venv-gpu-cu126` beside the
project with PyPI's torch 2.7.1 (its CUDA 12.6 build, sm_50 to sm_90) and the engine's own small
dependencies, checks it as File > Settings checks an interpreter, and chooses it for PyTorch runs
(environments.json). Run again, it keeps an environment that passes.

    .venv/bin/python -m engine.process.gpu_env [--dir PATH]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from engine.measure.compatibility import GPU_ENV, span
from engine.process import environments
from engine.process.interpreter import ENGINE_NEEDS, check_interpreter

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR = ROOT / ".venv-gpu-cu126"
PACKAGES = (f"torch=={GPU_ENV.torch}", "torchvision==0.22.1", *ENGINE_NEEDS, "nvidia-ml-py")
COVERS = (
    f"PyTorch {GPU_ENV.torch} with CUDA {GPU_ENV.cuda}: GPUs {span(GPU_ENV.archs)} (Maxwell to "
    "Hopper, GTX 10xx, P100, V100 and TITAN V among them), NVIDIA driver 525.60.13 or newer"
)


def python_in(env: Path) -> Path:
    return env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def _run(command: list[str]) -> str | None:
    """None when it worked, else the last lines of its output."""
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return None
    return "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])


def make(env: Path) -> int:
    python = python_in(env)
    check = check_interpreter(str(python), "torch") if python.exists() else None
    if check is not None and check.ok and check.versions.get("torch", "").startswith(GPU_ENV.torch):
        print(f"{env} is there and passes ({check.message}): kept")
    else:
        print(f"making {env} (PyTorch {GPU_ENV.torch}, about 2.5 GB from PyPI; a few minutes)")
        for command in (
            [sys.executable, "-m", "venv", str(env)],
            [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
            [str(python), "-m", "pip", "install", "--quiet", *PACKAGES],
        ):
            failed = _run(command)
            if failed is not None:
                print(
                    f"epochcost: gpu-env: {' '.join(command[:4])} failed:\n{failed}",
                    file=sys.stderr,
                )
                return 1
        check = check_interpreter(str(python), "torch")
        if not check.ok:
            print(f"epochcost: gpu-env: {python} does not pass: {check.message}", file=sys.stderr)
            return 1
        print(f"checked: {check.message}")
    chosen = environments.load()
    chosen["torch"] = str(python)
    where = environments.save(chosen)
    print(f"PyTorch runs now use {python} (kept in {where})")
    print(f"it covers {COVERS}")
    print(
        "to go back to the app's own PyTorch: clear the PyTorch field in the app's File > "
        f"Settings, or remove the torch line from {where}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make gpu-env", description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where to make it")
    return make(parser.parse_args(argv).dir.resolve())


if __name__ == "__main__":
    sys.exit(main())
