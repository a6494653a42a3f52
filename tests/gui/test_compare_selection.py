"""The Compare tab after a failed or cancelled cloud launch, and at 1280x860 (issue 38): a run
that did not finish is never the one priced, the message bar keeps its height, and a new
selection shows the table from its left edge."""

from __future__ import annotations

import pytest

from engine.results.store import Store
from gui.pages.compare.selection import choose
from tests.engine.price_results import result as gpu_result
from tests.gui.helpers import show_tab

HOME = "20250101T000000-gpu00001"


@pytest.fixture
def compare(qtbot, window):
    """The Compare tab at 1280x860, pricing a stored GTX 1080 Ti result (the home run)."""
    window.resize(1280, 860)
    Store().add(gpu_result(run_id=HOME, usd_per_hour=0.25))
    page = show_tab(window, "Compare")
    window.results.refresh(select=HOME)
    qtbot.waitUntil(lambda: page.body is not None and page.body.isVisible())
    return page


def not_finished(status: str, run_id: str) -> dict:
    """A cloud measurement that ended without a throughput, as the cloud job stores it."""
    r = gpu_result(run_id=run_id, hostname="cloud")
    r.update(
        status=status,
        throughput_samples_per_s=None,
        error={"kind": status, "message": "the launch " + "went wrong " * 200},
    )
    return r


@pytest.mark.parametrize("status", ["failed", "cancelled"])
def test_a_failed_cloud_launch_leaves_the_home_comparison(qtbot, window, compare, status):
    run_id = f"20250102T000000-{status[:4]}0001"
    Store().add(not_finished(status, run_id))
    window.results.refresh(select=run_id)  # as the cloud action does when the launch ends
    assert window.results.selected_run_ids() == [run_id]
    assert compare.result["run_id"] == HOME  # still priced: the table and charts stay
    assert compare.body.isVisible() and compare.model.rowCount() > 1
    said = compare.message_bar.text.text()
    assert said.startswith(f"Run {run_id} ended {status}: it has no throughput to price")
    assert f"still prices {HOME}" in said
    # with the home run selected as well, the home run is priced, whichever comes first
    window.results.view.selectAll()
    assert compare.result["run_id"] == HOME
    assert compare.message_bar.text.text() == f"2 results selected: comparing {HOME}."


def test_a_run_that_did_not_finish_is_never_the_one_priced():
    home, failed = gpu_result(run_id=HOME), not_finished("failed", "20250102T000000-fail0001")
    assert choose([failed, home], None).result is home
    assert choose([failed], home).result is home
    # nothing priced before: the page says the failed run has nothing to price
    assert choose([failed], None).result is failed and choose([], home).result is None


def test_the_message_bar_keeps_its_height_when_the_page_has_room(qtbot, window, compare):
    compare.message_bar.show_message("a long message " * 300, "error")
    compare.set_result(not_finished("failed", "20250102T000000-fail0002"))  # nothing priced
    qtbot.waitUntil(lambda: not compare.body.isVisible())
    compare.layout().activate()  # the page laid out now, its room given out
    bar = compare.message_bar
    assert bar.isVisible()
    assert bar.height() <= bar.text_area.maximumHeight() + 12  # its lines, then it scrolls
    assert bar.text_area.verticalScrollBar().maximum() > 0
    assert compare.heading.height() < 3 * compare.heading.fontMetrics().lineSpacing()


def test_a_new_selection_shows_the_table_from_its_left_edge(qtbot, window, compare):
    bar = compare.view.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # the columns are wider than the page
    bar.setValue(bar.maximum())  # scrolled right, the Machine column out of sight
    other = "20250103T000000-gpu00002"
    Store().add(gpu_result(run_id=other, model="resnet18-cifar"))
    window.results.refresh(select=other)
    assert compare.result["run_id"] == other
    assert bar.value() == 0


def test_a_price_typed_on_another_tab_is_priced_here_when_the_tab_is_shown(window, compare):
    """Each keystroke in the panel's price repriced the Compare tab, shown or not (its rows and
    charts: 35-50 ms of the GUI thread a keystroke, issue 42). Hidden, it waits to be shown."""
    local_price = lambda: next(r for r in compare.comparison.rows if r.local).usd_per_hour  # noqa: E731
    before = local_price()
    show_tab(window, "Run")
    calls = []
    original = compare.update_comparison
    compare.update_comparison = lambda: (calls.append(1), original())[1]
    window.panel.price.rented_button.setChecked(True)
    window.panel.price.edit.setText("3.5")
    assert window.panel.accepted_price.usd_per_hour == 3.5
    assert calls == [] and local_price() == before  # nothing priced on the Run tab
    show_tab(window, "Compare")
    assert calls == [1] and local_price() == pytest.approx(3.5)
