"""The Run tab: one timed run of the panel's settings, its live plots and its status line; a
run measured elsewhere (Compare's cloud run) is drawn the same way.

RunPage owns the RunController (the worker of the run in progress); the window puts the
status line in its status bar and routes the panel's Run button here. The plots (pyqtgraph) are
built once the page has painted their frames (gui/common/plot_frames.py), or when first asked
for.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QVBoxLayout

from engine.core.events import Event, Failed, Finished
from engine.core.precision import MARK, imprecise
from engine.measure.config import RunConfig
from engine.process import forked
from gui.common import activity, export, settings
from gui.common.log import logger
from gui.common.plot_frames import PlotFrames, import_pyqtgraph
from gui.common.results_model import data_text
from gui.common.theme import PlotColors
from gui.pages.base import Page, PageContext
from gui.pages.run.controller import RunController
from gui.pages.run.status import RunStatus, finished_text

if TYPE_CHECKING:
    from engine.process.launcher import WorkerSpec
    from gui.common.chart import Chart
    from gui.pages.run.plots import LivePlots

# The four plots' titles, as gui/pages/run/plots.py gives them: their frames show them first.
TITLES = ["Throughput", "Memory fill", "Projected cost per epoch", "Achieved FLOP rate"]


class RunPage(Page):
    details_title = "Run details"
    export_size = (900, 560)  # a chart's size in an exported file, whatever its size here
    plots_built = Signal()

    def __init__(self, ctx: PageContext, spec: WorkerSpec | None = None) -> None:
        super().__init__(ctx, "run_page")
        self.controller = RunController(ctx.store, spec, self)
        self.controller.interpreters = self.prefs.interpreters()
        self._plots: LivePlots | None = None
        self.frames = PlotFrames("run-plots", TITLES, ctx.colors)
        self.frames.painted.connect(lambda: self.plots)  # built once their frames are seen
        # The framework on the form gets its warm worker process once the frames are painted
        # (nothing heavy before the first paint), and again when the form turns to another.
        self.frames.painted.connect(self._prewarm_form)
        self.status = RunStatus()
        self._result: dict[str, Any] | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.frames, 1)
        self.message_bar.float_over(self)  # a run's warning resizes no chart (message_bar.py)
        self.controller.running_changed.connect(
            lambda running: ctx.activity.set(activity.RUN, running)
        )
        self.controller.engine_event.connect(self._on_event)
        self.controller.result_stored.connect(
            lambda result: ctx.results.refresh(select=result["run_id"])
        )
        self.controller.run_failed.connect(self._on_run_failed)
        self._overlays: list[dict[str, Any]] = []
        self._device_label = ""  # the device the run on screen ran on, for its caption
        # The run on screen was measured elsewhere (a cloud run): priced at its instance's $/h,
        # so the panel's price does not reprice it.
        self._elsewhere = False
        ctx.panel.price_changed.connect(self.reprice)  # a price that passed, never a mistake

    def prewarm(self, framework: str) -> None:
        """Start the warm process this framework's workers are forked from, if none runs: the
        first run's worker forked too (engine/process/forked.py)."""
        forked.prewarm(self.controller.spec_for(framework), framework)

    def _prewarm_form(self) -> None:
        """Once painted (PlotFrames.painted comes once): the form's framework warm now, and
        each framework the form turns to later (chosen, or the only one a model offers)."""
        panel = self.ctx.panel
        self.prewarm(panel.framework.currentText())
        panel.framework_changed.connect(self.prewarm)

    @property
    def plots(self) -> LivePlots:
        """The live plots, built in place of their frames when first asked for."""
        if self._plots is None:
            import_pyqtgraph()
            from gui.pages.run.plots import LivePlots

            self.setUpdatesEnabled(False)  # the frames go and the plots come in one paint
            self._plots = LivePlots(self.ctx.colors)
            self._plots.updated.connect(self.status.show_figures)
            self._layout.replaceWidget(self.frames, self._plots)
            self.frames.hide()
            self.frames.deleteLater()
            self.message_bar.raise_()  # a message said before the plots came stays over them
            self.setUpdatesEnabled(True)
            self.plots_built.emit()
        return self._plots

    @property
    def plots_ready(self) -> bool:
        """Whether the live plots are built (after the first paint, or when first asked for)."""
        return self._plots is not None

    @property
    def charts(self) -> dict[str, Chart]:
        return self.plots.charts

    @charts.setter
    def charts(self, _: dict[str, Chart]) -> None:
        """Page's empty dict at construction: the Run tab's charts are its plots'."""

    def start_run(self, config: RunConfig) -> bool:
        """Measure `config`; False while anything else has the machine."""
        reason = self.ctx.activity.reason()
        if reason:
            self.message_bar.show_message(f"{reason}; start the run once it has ended.", "info")
            return False
        self.message_bar.dismiss()
        self._show_new(config, self.ctx.panel.device.currentText(), elsewhere=False)
        self.prefs.set(settings.FORM, self.ctx.panel.state())
        return self.controller.start(config)

    def follow(self, config: RunConfig, where: str) -> None:
        """Draw a run measured elsewhere (`where`: "A10G on aws g5.xlarge"), whose
        events come through show_event; the Activity keeps a local run from starting meanwhile."""
        self._show_new(config, where, elsewhere=True)

    def show_event(self, event: Event) -> None:
        """An event of the run followed (follow): drawn as a local run's are."""
        if self._elsewhere:
            self._on_event(event)

    def _show_new(self, config: RunConfig, where: str, elsewhere: bool) -> None:
        self._result = None
        self._elsewhere = elsewhere
        self._device_label = where
        self.plots.begin_run(config, caption(config, where))
        self.status.begin(self.plots.series)

    def _on_event(self, event: Event) -> None:
        self.plots.on_event(event)
        self.status.on_event(event)
        if isinstance(event, Finished):
            self._result = event.result
            self._show_warnings(event.result)
        if isinstance(event, Finished | Failed):
            self.plots.end_run(self._result)
            self.status.end(event, self._result)

    def _show_warnings(self, result: dict[str, Any]) -> None:
        """What may have bent the figure (a busy machine, a throttled card, a window cut short)
        stands above the plots, beside the figure it concerns, and so does a result not precise
        enough to price, with its cause and what to do; the result is kept either way."""
        warnings = result.get("warnings") or []
        verdict = imprecise(result)  # engine/core/precision.py: why, and what to do
        said = (
            [f"{MARK.capitalize()}: {verdict.why}. To price it, {verdict.todo}."] if verdict else []
        )
        if warnings:
            said.append(
                "Measured, with a caution: " + " ".join(w.rstrip(".") + "." for w in warnings)
            )
        if said:
            self.message_bar.show_message(" ".join(said), "warning")

    def _on_run_failed(self, failure: Failed, text: str) -> None:
        logger().warning(
            "run %s failed (%s): %s\n%s",
            failure.run_id,
            failure.kind,
            failure.message,
            failure.traceback,
        )
        self.message_bar.show_message(
            text, "info" if failure.kind == "cancelled" else "error", failure.traceback
        )

    # the panel's price on what is shown -------------------------------------------------

    @property
    def finished_result(self) -> dict[str, Any] | None:
        """The result of the run on screen (None: none finished yet)."""
        return self._result

    def show_overlays(self, results: list[dict[str, Any]]) -> None:
        """Selected past runs as reference lines, at the panel's price."""
        self._overlays = list(results)
        self.plots.set_overlays([self.ctx.panel.priced(r) for r in self._overlays])

    def reprice(self) -> None:
        """A new price in the panel: the finished run's cost plot, its result line and caption,
        the status line and the selected past runs follow it at once (not during a run).
        No price (an emptied field): the cost plot shows the projected epoch time again. A run
        measured elsewhere (follow) keeps its instance's price; the past runs still follow."""
        if self._plots is None:  # nothing drawn yet (the form restored at the start)
            return
        price = self.ctx.panel.accepted_price
        config, result = self.plots.config, self._result
        if self.controller.running:
            return
        if self._elsewhere or config is None or result is None or result.get("status") != "ok":
            if self._overlays:
                self.show_overlays(self._overlays)
            return
        priced = self.ctx.panel.priced(result)
        none = {"usd_per_hour": None, "price_source": "user", "price_as_of": None}
        self.plots.config = dataclasses.replace(config, **(price.fields() if price else none))
        if self.plots.series is not None:
            self.plots.series.reprice(None if price is None else price.usd_per_hour)
        usd = self.plots.cost_in_usd
        self.plots.cost.plot.setTitle(
            "Projected cost per epoch" if usd else "Projected epoch time (no price given)"
        )
        self.plots.cost.plot.setLabel("left", "USD per epoch" if usd else "seconds per epoch")
        if self._overlays:  # after the config: their lines are drawn in the cost plot's unit
            self.show_overlays(self._overlays)
        text = caption(self.plots.config, self._device_label)
        for chart in self.plots.charts.values():
            chart.set_caption(text)
        self.plots.caption = text
        self.plots.end_run(priced)  # redraws the curves and the result's level
        self.status.text.setText(finished_text(priced))

    def copy_chart(self, name: str) -> None:
        export.copy_chart(self.charts[name].export_item)

    def set_colors(self, colors: PlotColors) -> None:
        if self._plots is not None:  # else they are built in the window's colours now
            self._plots.set_colors(colors)

    def shutdown(self) -> None:
        self.controller.shutdown()  # stops and reaps the worker before the window goes
        if self._plots is not None:
            self._plots.timer.stop()


def caption(config: RunConfig, device_label: str) -> str:
    """The line under every chart: what ran where, on which data, at which price, when."""
    price = config.price.describe() if config.price else "no price"
    spec = config.data_spec
    data = "" if spec.kind in ("synthetic", "auto") else f"{data_text(spec.kind, spec.path)} · "
    return (
        f"{config.model} · {config.framework} · batch {config.batch_size} · {config.precision} · "
        f"{device_label} · {data}{price} · {_dt.date.today().isoformat()} · epochcost"
    )
