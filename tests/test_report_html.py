"""HTML review: self-contained, an overview first, diagrams as SVG with the element at fault
marked; parsed in Python, and rendered and printed to PDF in real headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_designs"
NAME = 'Hall "B": 数据中心 <i>'
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _Page(HTMLParser):
    """Text, headings, SVG roots and the marked (class "over") SVG elements of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.svgs: list[str] = []  # class of each <svg>
        self.over: list[str] = []  # data-id of each element marked over its limit
        self.binding: list[str] = []
        self.headings: list[str] = []
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "svg":
            self.svgs.append(a.get("class") or "")
        if "over" in classes:
            self.over.append(a.get("data-id") or "")
        if "binding" in classes:
            self.binding.append(a.get("data-id") or "")
        if tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        if self._heading is not None:
            self._heading.append(data)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    return found


def _page(tmp_path: Path) -> Path:
    text = (SAMPLES / "broken-rack-130kw.yaml").read_text(encoding="utf-8")
    odd = tmp_path / "odd.yaml"
    odd.write_text(
        text.replace("name: broken-rack-130kw", f"name: {json.dumps(NAME)}", 1), encoding="utf-8"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nsite: {pue: lots}\n", encoding="utf-8")
    out = tmp_path / "review.html"
    designs = [SAMPLES / "gb200-superpod-su.yaml", odd, SAMPLES / "broken-feed-headroom.yaml"]
    designs += [SAMPLES / "broken-fabric-2to1.yaml", bad]
    code = main(["check", *map(str, designs), "--format", "html", "-o", str(out)])
    assert code == 2  # the load error
    return out


def _no_external_urls(html: str) -> None:
    assert "<script" not in html and "<link" not in html and "@font-face" not in html
    urls = re.findall(r"(?:https?|ftp)://[^\s\"'<>)]*", html)
    assert set(urls) <= {"http://www.w3.org/2000/svg"}  # the SVG namespace names, not fetches
    assert re.findall(r'(?:href|src)="([^"#][^"]*)"', html) == []  # in-page anchors only
    assert "Content-Security-Policy" in html


def _check_review(page: _Page) -> None:
    text = page.text
    # the overview comes first, a row a design, each with its verdict and counts
    assert page.headings[:2] == ["dclint design review", "Overview"]
    assert "Design Verdict Errors Warnings Infos GPUs IT load" in text
    assert "gb200-superpod-su passes 0 0 0 576 960 kW" in text
    assert f"{NAME} fails 1 0 0 576 970 kW" in text
    assert "bad.yaml does not load (1 load error) 0 0 0 - - - -" in text
    # provenance, a table of contents; the assumptions once, after every design
    assert "dclint version 0.1.0" in text and "Command line dclint check " in text
    assert page.headings.count("Assumptions and limits") == 1
    assert page.headings[-1] == "Assumptions and limits"
    assert "Contents" in page.headings
    # findings ahead of the summary: a clean design does not push them down
    assert text.index("PWR001 rack-power-over-limit: rack su1-r8 design IT load 130 kW") < (
        text.index("Summary Figure Value GPUs 576 Racks 8 IT load 970 kW")
    )
    assert "Load errors (1)" in text and "lots" in text
    # designs with something to act on first, the clean one last, each kind in the order given
    start = page.headings.index("Contents") + 1
    sections = [h for h in page.headings[start:] if h != "Summary" and not h.startswith("Find")]
    sections = [h for h in sections if not h.startswith(("Diagrams", "Projected"))]
    assert sections[0].endswith("bad.yaml")
    assert sections[1:] == [
        NAME,
        "broken-feed-headroom",
        "broken-fabric-2to1",
        "gb200-superpod-su",
        "Assumptions and limits",
    ]
    # diagrams for each loaded design: power, cooling, fabric
    assert page.svgs.count("diagram power") == 4
    assert page.svgs.count("diagram cooling") == 4
    assert page.svgs.count("diagram fabric") == 4
    # the element each finding is about is marked: the PWR002 busway, the PWR001 rack (in
    # the one-line, the cooling loops and the rack chart), the NET001 leaf tier
    assert "panel:busway-a" in page.over
    assert "su1-r8" in page.over
    assert page.over.count("racks:nvl72 @ su1-r8") == 2
    assert "tier:compute.leaf" in page.over
    assert "tier:compute.leaf" in page.binding  # also where the clean fabric binds
    assert "busway-b" not in " ".join(page.over)
    assert re.findall(r"(?i)\b(?:founding|memo|DOMAIN\.md|the article|the brief)\b", text) == []


def test_review_parsed_in_python(tmp_path: Path) -> None:
    html = _page(tmp_path).read_text(encoding="utf-8")
    _no_external_urls(html)
    _check_review(_parse(html))


@pytest.mark.integration  # real headless Chromium
def test_rendered_and_printed_in_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    page = _page(tmp_path)
    common = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout
    _check_review(_parse(dom))  # what the browser built, not only what we wrote
    pdf = tmp_path / "review.pdf"
    subprocess.run(
        [*common, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()],
        capture_output=True,
        timeout=180,
        check=True,
    )
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page\b", data))
    assert 5 <= pages <= 40  # a page break before each design; no runaway layout
    assert b"/URI" not in data  # no link leaves the document (its contents links are internal)
    assert b"file://" not in data  # nor the header/footer with the page's own address


@pytest.mark.integration  # wall-clock bound, own process
def test_eight_samples_fast_and_without_matplotlib(tmp_path: Path) -> None:
    out = tmp_path / "all.html"
    samples = sorted(str(p) for p in SAMPLES.glob("*.yaml"))
    code = (
        "import sys, time; from dclint.cli import main; t = time.perf_counter(); "
        f"main(['check', *{samples!r}, '--format', 'html', '-o', {str(out)!r}]); "
        "print(time.perf_counter() - t, 'matplotlib' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    elapsed, plotted = done.stdout.split()
    assert plotted == "False"  # the charts are hand-written SVG
    # 1.2-1.8 s measured for the eight samples (9 s with matplotlib); slack for a busy machine
    assert float(elapsed) < 4.0, elapsed
    assert out.read_text(encoding="utf-8").count("<svg") >= 8 * 3


def test_html_needs_no_numpy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The diagrams are laid out two boxes a row by dclint itself, not by networkx's layouts,
    so `--format html` works where numpy is not installed (it exited 2 asking for it)."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # import now raises ImportError
    code = main(["check", str(SAMPLES / "gb200-superpod-su.yaml"), "--format", "html"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err == ""
    assert captured.out.count('class="diagram ') == 3  # power, cooling, fabric


def test_a_long_token_may_break_in_its_table_cell(tmp_path: Path) -> None:
    """A token of 40 characters or more (dclint.report.html.LONG: a path, an id) is written in a
    table cell as a span that may break anywhere, a shorter one as it was; the printed check is
    tests/test_review_pdf.py's test_check_html_report_prints_at_size_with_long_names."""
    from dclint.report.html import LONG, STYLE, cell

    assert LONG == 40
    assert cell("at " + "a_b/" * 10 + " x") == f'at <span class="long">{"a_b/" * 10}</span> x'
    assert cell("x" * 39 + " <" + "y" * 38) == "x" * 39 + " &lt;" + "y" * 38  # none is 40 long
    assert "span.long{overflow-wrap:anywhere}" in STYLE
    assert "grid-template-columns:max-content minmax(0,1fr)" in STYLE  # dl.meta's values
    workload = "w" * 60
    text = (SAMPLES / "h100-40node.yaml").read_text(encoding="utf-8")
    design = tmp_path / "long.yaml"
    design.write_text(text.replace("id: llm-13b\n", f"id: {workload}\n", 1), encoding="utf-8")
    out = tmp_path / "check.html"
    assert main(["check", str(design), "--format", "html", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert f'<tr><td><span class="long">{workload}</span></td><td>320</td>' in html
    assert f"<td>{workload}</td>" not in html
