"""`make gpu-env`'s steps, with pip and the interpreter check stood in for (the real build is
tests/engine/test_gpu_env.py, once it exists): it keeps an environment that passes, keeps the
other frameworks' choices, and says a failure in a few lines without a traceback."""

from __future__ import annotations

import pytest

from engine.process import environments, gpu_env
from engine.process.interpreter import InterpreterCheck

PASSES = InterpreterCheck("python", "torch", versions={"torch": "2.7.1+cu126"})


@pytest.fixture
def steps(monkeypatch):
    ran: list[list[str]] = []
    monkeypatch.setattr(gpu_env, "_run", lambda command: ran.append(command))
    monkeypatch.setattr(gpu_env, "check_interpreter", lambda python, framework: PASSES)
    return ran


def test_it_installs_checks_and_chooses_keeping_the_other_choices(tmp_path, steps, capsys):
    environments.save({"tensorflow": "/tf/bin/python"})
    assert gpu_env.make(tmp_path / "env") == 0
    python = str(tmp_path / "env" / "bin" / "python")
    assert steps[0][1:] == ["-m", "venv", str(tmp_path / "env")]
    assert steps[-1][:4] == [python, "-m", "pip", "install"]
    assert {"torch==2.7.1", "torchvision==0.22.1", "numpy", "nvidia-ml-py"} <= set(steps[-1])
    assert environments.load() == {"tensorflow": "/tf/bin/python", "torch": python}
    out = capsys.readouterr().out
    assert "GTX 10xx, P100, V100 and TITAN V" in out and "525.60.13" in out
    assert "to go back to the app's own PyTorch" in out


def test_an_environment_that_passes_is_kept_without_installing(tmp_path, steps, capsys):
    python = tmp_path / "env" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.touch()
    assert gpu_env.make(tmp_path / "env") == 0
    assert steps == []
    out = capsys.readouterr().out
    assert "is there and passes" in out and ": kept" in out
    assert environments.load() == {"torch": str(python)}


def test_a_pip_failure_is_its_last_lines_and_chooses_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(
        gpu_env, "_run", lambda c: "ERROR: No matching distribution" if "pip" in c else None
    )
    assert gpu_env.make(tmp_path / "env") == 1
    err = capsys.readouterr().err
    assert "failed:\nERROR: No matching distribution" in err and "Traceback" not in err
    assert environments.load() == {}
