"""The device box judges each NVIDIA GPU against the chosen framework's environment: this
machine's real builds, read in a child process, against GPUs as NVML would list them (no GPU
here: the listed devices are the boundary)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from engine.measure.devices import Device, list_devices
from engine.process.builds import read_build
from engine.process.launcher import WorkerSpec
from gui.panel.panel import ConfigPanel

GIB = 2**30
GTX_1080_TI = Device(
    "cuda:0",
    "cuda",
    "NVIDIA GeForce GTX 1080 Ti",
    11 * GIB,
    "sm_61, driver 550.54.14 (CUDA 12.4)",
    "6.1",
    "550.54.14",
    "12.4",
)
RTX_4090 = Device(
    "cuda:1",
    "cuda",
    "NVIDIA GeForce RTX 4090",
    24 * GIB,
    "sm_89, driver 580.65.06 (CUDA 13.0)",
    "8.9",
    "580.65.06",
    "13.0",
)


@pytest.fixture(scope="module")
def torch_build():
    build = read_build("torch", WorkerSpec())
    if not build.cuda:
        pytest.skip("this torch is a CPU-only build: every GPU is refused for that alone")
    return build


def test_a_gpu_the_environment_cannot_run_on_is_marked_and_blocks_run(qtbot, torch_build):
    panel = ConfigPanel([GTX_1080_TI, RTX_4090, *list_devices()])
    qtbot.addWidget(panel)
    panel.show()
    panel.framework.setCurrentText("torch")
    qtbot.waitUntil(lambda: panel.gpu_check.build is not None, timeout=60_000)
    assert panel.gpu_check.build == torch_build
    if torch_build.archs and "sm_61" not in " ".join(torch_build.archs):
        assert panel.device.itemText(0) == (f"{GTX_1080_TI.label} (cannot run {torch_build.label})")
        tip = panel.device.itemData(0, Qt.ItemDataRole.ToolTipRole)
        assert "NVIDIA GeForce GTX 1080 Ti is sm_61" in tip
        assert "epochcost env create --framework torch" in tip
        panel.device.setCurrentIndex(0)
        error = panel._error_labels["device"]
        assert error.isVisible() and "To fix: make an environment" in error.text()
        assert not panel.run_button.isEnabled()
    # The 4090 runs it; choosing it clears the error and Run is back.
    assert panel.device.itemText(1) == RTX_4090.label
    panel.device.setCurrentIndex(1)
    assert not panel._error_labels["device"].isVisible()
    assert panel.run_button.isEnabled()
    panel.shutdown()


def test_without_an_nvidia_gpu_nothing_is_read(qtbot, monkeypatch):
    started = []
    monkeypatch.setattr("gui.panel.gpu_check.read_build", lambda *a: started.append(a))
    cpu_only = [d for d in list_devices() if d.kind != "cuda"]
    panel = ConfigPanel(cpu_only)
    qtbot.addWidget(panel)
    panel.framework.setCurrentText("torch")
    assert started == [] and panel.gpu_check.build is None


def test_the_window_builds_with_gpus_listed_and_judges_them_once_shown(qtbot, torch_build):
    # The panel asks for the environment while the window is still being built.
    from gui.shell.main_window import MainWindow

    window = MainWindow(devices=[GTX_1080_TI, *list_devices()])
    qtbot.addWidget(window)
    window.show()
    window.panel.framework.setCurrentText("torch")
    qtbot.waitUntil(lambda: window.panel.gpu_check.build is not None, timeout=60_000)
    assert window.panel.gpu_check.build == torch_build
    window.close()
