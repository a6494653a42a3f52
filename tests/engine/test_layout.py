"""The house rules a newcomer relies on (docs/architecture.md): at most 12 top-level modules in
engine/ and in gui/, no module over 400 lines, no pointer to a file outside the project, and an
architecture page that names every module (and none that is gone)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_TOP_LEVEL = 12
MAX_LINES = 400


def test_few_top_level_modules_and_none_too_long():
    for package in ("engine", "gui"):
        top = [p for p in (ROOT / package).iterdir() if p.suffix == ".py"]
        assert len(top) <= MAX_TOP_LEVEL, (package, sorted(p.name for p in top))
    long = {
        str(p.relative_to(ROOT)): n
        for package in ("engine", "gui")
        for p in (ROOT / package).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these modules (over {MAX_LINES} lines): {long}"


def test_nothing_points_outside_the_project():
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    texts += [*(ROOT / "engine").rglob("*.py"), *(ROOT / "gui").rglob("*.py")]
    outside = [str(p.relative_to(ROOT)) for p in texts if "../shared" in p.read_text("utf-8")]
    assert outside == []


def test_the_architecture_page_names_every_module_and_no_other():
    modules = {
        str(p.relative_to(ROOT))
        for package in ("engine", "gui")
        for p in (ROOT / package).rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    }
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `((?:engine|gui)/[\w/]+\.py)` \|", page, re.MULTILINE))
    assert sorted(modules - named) == [], "add these to docs/architecture.md's module tables"
    assert sorted(named - modules) == [], "these are gone: take them out of the page"
