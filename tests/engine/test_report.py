"""epochcost report: one self-contained HTML file (engine/results/html_report.py). The structure
is checked always; the rendering in headless Chromium when a Chromium is installed
(`apt-get install chromium`: Debian's package), else that test is skipped."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from engine.cli import main
from engine.pricing import catalog
from engine.results.store import Store
from tests.engine.price_results import result
from tests.engine.test_cli_profiles import BOX

CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
    None,
)


class Parsed(HTMLParser):
    """Tags, attributes and text of a page; raises on nothing, so the checks below do."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def stored_results(home: Path) -> list[str]:
    gpu = result(usd_per_hour=0.9, run_id="20250101T000000-gpu00001")
    gpu["throughput_repeats"] = [990.0, 1000.0, 1012.0]
    gpu["throughput_ci95"] = [980.0, 1020.0]
    other = result(
        usd_per_hour=3.06, run_id="20250102T000000-gpu00002", device_name="Tesla V100-SXM2-16GB"
    )
    home.mkdir(parents=True, exist_ok=True)
    ids = []
    for n, r in enumerate((gpu, other)):
        path = home / f"r{n}.json"
        path.write_text(json.dumps(r))
        ids.append(Store().import_file(path).run_id)
    return ids


def write_report(home: Path, capsys, *extra: str) -> Path:
    ids = stored_results(home)
    out = home / "report.html"
    assert main(BOX) == 0
    assert main(["report", *ids, "--out", str(out), *extra]) == 0, capsys.readouterr().err
    return out


def test_the_report_is_one_self_contained_file_with_charts_prices_and_environment(
    epochcost_home, capsys
):
    out = write_report(epochcost_home, capsys, "--profile", "box")
    page = out.read_text(encoding="utf-8")
    parsed = Parsed()
    parsed.feed(page)
    parsed.close()
    tags = [t for t, _ in parsed.tags]
    text = " ".join(parsed.text)
    assert tags[0] == "html" and "body" in tags and "style" in tags
    assert tags.count("svg") >= 5  # two overview charts, per run: windows and cost compare
    assert "path" in tags and "rect" in tags
    # nothing fetched: no script, no linked stylesheet, image or font; no URL in an attribute
    assert not {"script", "link", "img", "iframe", "object"} & set(tags)
    for _, attrs in parsed.tags:
        for name, value in attrs.items():
            if name != "xmlns":
                assert "://" not in (value or ""), (name, value)
    assert "url(" not in page and "@import" not in page
    # the runs, their price with source and date, the compare table, the break-even
    assert "20250101T000000-gpu00001" in text and "20250102T000000-gpu00002" in text
    assert "owned GeForce GTX 1080 Ti: $699" in text and "2026-11-20" in text
    assert "What an epoch costs elsewhere" in text and "Break-even" in text
    assert "owning pays after" in text
    cat = catalog.load()
    instance_dates = {i.price_date for i in cat.instances if i.price_date}
    assert any(d in text for d in instance_dates)  # the catalog's rows bring their dates
    assert "Prices: source and date" in text and "Environment" in text and "homebox" in text
    assert "@media print" in page and "@page" in page


def test_a_report_needs_an_html_name_and_known_results(epochcost_home, capsys):
    stored_results(epochcost_home)
    assert main(["report", "20250101T000000-gpu00001", "--out", str(epochcost_home / "r.pdf")]) == 2
    assert ".html" in capsys.readouterr().err
    missing = ["report", "nope", "--out", str(epochcost_home / "r.html")]
    assert main(missing) in (2, 3)
    assert not (epochcost_home / "r.html").exists()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_report_renders_and_prints_in_headless_chromium(epochcost_home, capsys, tmp_path):
    from PIL import Image

    out = write_report(epochcost_home, capsys, "--profile", "box")
    shot, pdf = tmp_path / "report.png", tmp_path / "report.pdf"
    base = [str(CHROMIUM), "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    url = out.resolve().as_uri()
    for args in (
        ["--window-size=1100,1600", f"--screenshot={shot}", url],
        ["--no-pdf-header-footer", f"--print-to-pdf={pdf}", url],
    ):
        subprocess.run([*base, *args], capture_output=True, timeout=120, check=True)
    image = Image.open(shot).convert("RGB")
    assert image.size == (1100, 1600)
    colours = image.getcolors(maxcolors=1 << 20) or []
    blue = sum(n for n, (r, g, b) in colours if b > 150 and r < 80)  # the bars drawn
    dark = sum(n for n, (r, g, b) in colours if r + g + b < 150)  # the text
    assert blue > 2_000 and dark > 5_000
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000


def test_the_environment_reads_in_units_and_a_cpu_at_a_gpus_price_says_so(epochcost_home):
    from engine.pricing.compare_rows import CompareOptions
    from engine.pricing.profiles import OWNED, Profile
    from engine.results import html_report
    from engine.results.repricing import repriced

    cpu = result(run_id="20250103T000000-cpu00001", device="cpu", device_name=None)
    cpu["environment"].update(
        ram_bytes=25276514304, framework_import_seconds=2.16604641899994, cuda="13.0", cudnn=91300
    )
    cat = catalog.load()
    box = Profile("home1080", OWNED, gpu="GTX 1080 Ti", purchase_usd=699.0, usd_per_kwh=0.3)
    priced = repriced(cpu, box.price(cat))
    runs = html_report.comparisons([priced, result()], cat, CompareOptions())
    parsed = Parsed()
    parsed.feed(html_report.render(runs, CompareOptions()))
    text = " ".join(parsed.text)
    assert "RAM 23.54 GiB" in text and "25276514304" not in text
    assert "framework import 2.17 s" in text and "2.166" not in text
    # a CPU run records the framework's build versions: the table says that is what they are
    assert "CUDA (framework's build) 13.0" in text and "cuDNN (framework's build) 91300" in text
    said = "the CPU's speed at the GeForce GTX 1080 Ti's price, not the GeForce GTX 1080 Ti's speed"
    assert text.count(said) == 2  # beside its price and beside its comparison
    assert runs[1].caveat is None  # a GPU result at its own price: nothing to say


def test_why_a_window_ended_is_said_in_words_with_the_limits_name():
    """The worker's stop reasons (stable, max_steps, max_seconds) are never shown as they are
    stored: the CLI names the option, the app the form's field (the Run tab's progress bar)."""
    from engine.results.report import stop_text

    assert stop_text("max_seconds") == "at the time limit (--max-seconds)"
    assert stop_text("max_steps", in_app=True) == "at its step limit (Max. measured steps)"
    assert stop_text("stable") == "once its steps were steady"
    assert stop_text(None) == "not recorded"
