"""The review as a print-grade PDF: real headless Chromium prints it, poppler-utils reads it back
(pdfinfo for pages and paper, pdftoppm rasterises each page, pdftotext -bbox gives each word's
box). Held: the paper size, the page count, no figure crossing a page break (a figure's ground
colour never runs into a page's bottom margin), and no text outside a figure under 9 pt.

The figure check is shown to catch a crossing: the same detector, on a page whose figure may
break, finds it."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from dclint.cli import main
from dclint.report.document import FIGURE_GROUND, PRINT_CSS

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(str(p) for p in (ROOT / "sample_designs").glob("*.yaml"))
TOOLS = ("chromium", "pdftoppm", "pdftotext", "pdfinfo")
PAPER = {"A4": (595.0, 842.0), "Letter": (612.0, 792.0)}  # points
MARGIN_PT = 18 / 25.4 * 72  # the @page's top and bottom margins (18 mm)
DPI = 50
# DejaVu Sans, the font Chromium falls back to here: a word box is ascent + descent = 1.164 em
EM_PER_BOX = 1.164


def _need_tools() -> None:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (.ci/run installs chromium and poppler-utils)")


def _ground() -> tuple[int, int, int]:
    h = FIGURE_GROUND.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def pages(pdf: Path, work: Path) -> list[list[tuple[int, int]]]:
    """Per page, the row spans (in points from the top) where a figure's ground shows."""
    from PIL import Image

    subprocess.run(["pdftoppm", "-r", str(DPI), "-png", str(pdf), str(work / "p")], check=True)
    ground = _ground()
    out = []
    for png in sorted(work.glob("p-*.png")):
        image = Image.open(png).convert("RGB")
        w, h = image.size
        data = image.load()
        assert data is not None
        rows = [y for y in range(h) if sum(data[x, y] == ground for x in range(0, w, 2)) >= 10]
        spans: list[tuple[int, int]] = []
        for y in rows:
            if spans and y - spans[-1][1] <= 2:
                spans[-1] = (spans[-1][0], y)
            else:
                spans.append((y, y))
        out.append([(round(a * 72 / DPI), round(b * 72 / DPI)) for a, b in spans])
    return out


def crossing(spans: list[list[tuple[int, int]]], page_h: float) -> list[int]:
    """Pages on which a figure runs into the bottom margin: it goes on over the page break."""
    bottom = page_h - MARGIN_PT
    return [n for n, page in enumerate(spans, 1) if any(b >= bottom - 4 for _, b in page)]


def words(pdf: Path, work: Path) -> list[tuple[int, float, float, str]]:
    """(page, top, height, text) of every word, in points."""
    out = work / "words.html"
    subprocess.run(["pdftotext", "-bbox", str(pdf), str(out)], check=True)
    found = []
    for n, page in enumerate(out.read_text(encoding="utf-8").split("<page ")[1:], start=1):
        for m in re.finditer(
            r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>',
            page,
        ):
            top, bottom = float(m.group(1)), float(m.group(2))
            found.append((n, top, bottom - top, m.group(3)))
    return found


def info(pdf: Path) -> dict[str, str]:
    text = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return {k.strip(): v.strip() for k, _, v in (x.partition(":") for x in text.splitlines())}


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_review_pdf_is_print_grade(tmp_path: Path, paper: str) -> None:
    _need_tools()
    pdf = tmp_path / "review.pdf"
    start = time.monotonic()
    code = main(
        ["review", *SAMPLES, "-o", str(pdf), "--paper", paper, "--today", "2026-12-02",
         "--client", "ACME", "--revision", "C"]
    )  # fmt: skip
    seconds = time.monotonic() - start
    assert code == 0
    assert seconds < 60  # the bound is 20 s on an idle two-core machine
    meta = info(pdf)
    width, height = (float(x) for x in meta["Page size"].split()[0:3:2])
    assert (round(width), round(height)) == tuple(round(x) for x in PAPER[paper])
    count = int(meta["Pages"])
    assert 10 <= count <= 60
    spans = pages(pdf, tmp_path)
    assert len(spans) == count  # one raster a page
    assert sum(len(p) for p in spans) >= 8  # the diagrams and charts were found
    assert crossing(spans, height) == []
    text = words(pdf, tmp_path)
    assert {"Page", "1", "of", str(count)} <= {w for n, _, _, w in text if n == 1}
    assert any(w == "revision" for n, _, _, w in text if n == count)  # the running header

    def in_figure(n: int, top: float, h: float) -> bool:
        return any(a - 2 <= top and top + h <= b + 2 for a, b in spans[n - 1])

    small = [
        (n, w, round(h / EM_PER_BOX, 1))
        for n, top, h, w in text
        if not in_figure(n, top, h) and h < 9 * EM_PER_BOX - 0.15
    ]
    assert small == []


def test_the_crossing_check_catches_a_split_figure(tmp_path: Path) -> None:
    _need_tools()
    from dclint.report.pdf import html_to_pdf

    css = PRINT_CSS % {"paper": "A4", "header": "x", "ground": FIGURE_GROUND}
    lines = "".join(f"<div>line {i}</div>" for i in range(80))  # a figure that may break
    html = (
        f"<html><head><style>{css}</style></head><body><p style='height:500px'>text</p>"
        f"<figure style='break-inside:auto'>{lines}</figure></body></html>"
    )
    pdf = tmp_path / "split.pdf"
    html_to_pdf(html, str(pdf))
    height = float(info(pdf)["Page size"].split()[2])
    assert crossing(pages(pdf, tmp_path), height) == [1]
