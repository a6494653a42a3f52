"""The window's tabs and their pages, each page built when its tab is first shown.

A page that is not on the first screen (Compare, Sweep, Accuracy) is made by a factory the
first time its tab becomes current, or the first time something asks for it by title; until
then its tab holds an empty scroll area, and neither its module nor its charts are loaded, so
the window shows sooner (benchmarks/gui_latency.py --startup-only). Every page sits in a
scroll area, so that no page's form sets the window's smallest size: a small screen scrolls
the page instead of pushing the window past the screen's edge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from PySide6.QtWidgets import QScrollArea, QTabWidget, QWidget

from gui.pages.base import Page


class PageTabs(Mapping[str, Page]):
    """Title -> page, in tab order; asking for a page by title builds it if need be."""

    def __init__(self, tabs: QTabWidget) -> None:
        self._tabs = tabs
        self._titles: list[str] = []
        self._built: dict[str, Page] = {}
        self._factories: dict[str, Callable[[], Page]] = {}
        self._areas: dict[str, QScrollArea] = {}
        tabs.currentChanged.connect(self._shown)

    def add(self, title: str, page: Page, scrolled: bool = True) -> None:
        """A page made now; `scrolled`: in a scroll area (the Run tab fills its own)."""
        self._titles.append(title)
        self._built[title] = page
        self._tabs.addTab(self._area(title, page) if scrolled else page, title)

    def add_lazy(self, title: str, factory: Callable[[], Page]) -> None:
        """A page made by `factory` when its tab is first shown or it is first asked for."""
        self._titles.append(title)
        self._factories[title] = factory
        self._tabs.addTab(self._area(title, None), title)

    def built(self) -> list[Page]:
        """The pages made so far, in tab order (a page never shown has nothing to stop)."""
        return [self._built[t] for t in self._titles if t in self._built]

    def index(self, title: str) -> int:
        return self._titles.index(title)

    def _area(self, title: str, page: QWidget | None) -> QScrollArea:
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        if page is not None:
            area.setWidget(page)
        self._areas[title] = area
        return area

    def _shown(self, index: int) -> None:
        if 0 <= index < len(self._titles):
            self[self._titles[index]]

    def __getitem__(self, title: str) -> Page:
        page = self._built.get(title)
        if page is None:
            page = self._factories[title]()  # KeyError for a title that is no tab's
            del self._factories[title]  # only once made: a page that failed is tried again
            self._built[title] = page
            self._areas[title].setWidget(page)
        return page

    def __iter__(self) -> Iterator[str]:
        return iter(self._titles)

    def __len__(self) -> int:
        return len(self._titles)
