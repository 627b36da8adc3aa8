"""HTML review: self-contained, rendered in real headless Chromium, charts not blank."""

from __future__ import annotations

import json
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
BAR, OVER = (0x2B, 0x6C, 0xB0), (0xC5, 0x30, 0x30)  # dclint.report.charts colours
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


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.svgs = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.svgs += tag == "svg"

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not installed (apt-get install -y chromium)")
    return found


def _page(tmp_path: Path) -> Path:
    pytest.importorskip("matplotlib")
    text = (SAMPLES / "broken-rack-130kw.yaml").read_text(encoding="utf-8")
    odd = tmp_path / "odd.yaml"
    odd.write_text(
        text.replace("name: broken-rack-130kw", f"name: {json.dumps(NAME)}", 1), encoding="utf-8"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nsite: {pue: lots}\n", encoding="utf-8")
    out = tmp_path / "review.html"
    code = main(
        [
            "check",
            str(odd),
            str(SAMPLES / "broken-fabric-2to1.yaml"),
            str(bad),
            "--format",
            "html",
            "-o",
            str(out),
            "--select",
            "PWR001,NET001",
        ]
    )
    assert code == 2  # the load error
    return out


def test_self_contained(tmp_path: Path) -> None:
    page = _page(tmp_path).read_text(encoding="utf-8")
    assert "<script" not in page
    assert "http://" not in page.replace("http://www.w3.org/", "")  # SVG namespaces only
    assert "https://" not in page and "@font-face" not in page and "<link" not in page
    assert "Content-Security-Policy" in page


def test_rendered_in_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    page = _page(tmp_path)
    profile = tmp_path / "profile"
    common = [browser, *FLAGS, f"--user-data-dir={profile}"]
    dom = subprocess.run(
        [*common, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout
    parser = _Text()
    parser.feed(dom)
    text = " ".join(" ".join(parser.parts).split())
    assert NAME in text
    assert "PWR001 rack-power-over-limit: rack su1-r8 design IT load 130 kW exceeds" in text
    assert "NET001 fabric-oversubscribed: fabric compute tier leaf is oversubscribed 2.00:1" in text
    assert "Load errors (1)" in text and "lots" in text
    # racks, utilisation and fabric for each loaded design, plus their cost breakdowns
    assert parser.svgs == 8

    shot = tmp_path / "shot.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1200,2000", page.as_uri()],
        capture_output=True,
        timeout=180,
        check=True,
    )
    from matplotlib.image import imread

    pixels = (imread(str(shot))[:, :, :3] * 255).round().astype(int)
    assert pixels.shape[:2] == (2000, 1200)

    def count(colour: tuple[int, int, int]) -> int:
        return int((abs(pixels - colour).max(axis=2) <= 8).sum())

    assert count(BAR) > 20000  # the seven racks at 120 kW and the feed bars
    assert count(OVER) > 2000  # the 130 kW rack's bar


def test_missing_matplotlib_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now raises ImportError
    code = main(["check", str(SAMPLES / "gb200-superpod-su.yaml"), "--format", "html"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err == (
        "dclint: error: the html format needs matplotlib: pip install 'dclint[html]'\n"
    )
