"""The Sweep tab's scaling view (issue 19): a stored scaling study as efficiency against
processes, its legend in the row under the plot, and a store with no study saying how to make
one."""

from __future__ import annotations

import math

from engine.results.scaling import SCALING_PREFIX
from engine.results.store import Store
from gui.common.theme import LIGHT_PLOTS
from gui.pages.sweep.scaling import NONE_YET, ScalingView
from tests.engine.price_results import result

GROUP = SCALING_PREFIX + "20260101T000000-study001"


def _stored_study(store: Store) -> None:
    for i, (nproc, rate) in enumerate(((1, 1000.0), (2, 1900.0), (4, 3400.0))):
        data = result(run_id=f"20260101T00000{i}-point00{i}", samples_per_s=rate)
        data["config"].update(nproc=nproc, device="cuda" if nproc > 1 else "cuda:0")
        data["scaling"] = {"group_id": GROUP, "nproc": nproc}
        store.add(data, group_id=GROUP)


def test_a_stored_study_is_drawn_as_efficiency_against_processes(qtbot):
    store = Store()
    _stored_study(store)
    view = ScalingView(lambda: store, LIGHT_PLOTS)
    qtbot.addWidget(view)
    view.refresh()
    assert view.studies.count() == 1 and view.studies.currentData() == GROUP
    x, y = view.chart.measured.getData()
    assert list(x) == [1.0, 2.0, 4.0]
    assert [round(v, 3) for v in y] == [1.0, 0.95, 0.85]
    assert list(view.chart.perfect.getData()[1]) == [1.0, 1.0]
    assert "4 processes reach 85% of perfect scaling" in view.status.text()
    assert "4: 3,400/s" in view.chart.caption.text
    # The legend is a row of the chart's layout under the plot, not an item over the data.
    names = [label.text for _, label in view.chart.legend.items]
    assert names == ["measured efficiency", "perfect scaling (1.0)"]
    assert view.chart.legend.parentItem() is not view.chart.plot.vb


def test_no_study_yet_says_how_to_run_one(qtbot):
    view = ScalingView(Store, LIGHT_PLOTS)
    qtbot.addWidget(view)
    view.refresh()
    assert view.studies.count() == 0
    assert view.status.text() == NONE_YET
    x, y = view.chart.measured.getData()
    assert x is None or len(x) == 0 or all(math.isnan(v) for v in y)
