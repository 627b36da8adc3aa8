"""A 1,000-rack hall: rack groups and distributions, not 1,000 bars; one defect on 100 racks of a
type is one entry with the count and the ids."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_report_html import _parse

from dclint.cli import main
from dclint.cli.check import GITHUB_COMMENT_LIMIT

ROWS = 10


def _hall(tmp_path: Path) -> Path:
    """Ten rows of 100 racks at 30 kW on 2N 63 A feeds; row 7's racks draw 40 kW."""
    lines = ["name: hall-1000", "site:", "  utility_capacity: 40 MW", "  pue: 1.3", "power:"]
    lines.append("  panels:")
    for r in range(1, ROWS + 1):
        for p in "ab":
            lines += [f"    - {{id: bus-{p}{r}, kind: busway, voltage: 415 V,"]
            lines += [f"       current_rating: 6300 A, path: {p.upper()}}}"]
    lines.append("  feeds:")
    for r in range(1, ROWS + 1):
        for p in "ab":
            lines += [f"    - {{id: 'f{r}{p}[001-100]', panel: bus-{p}{r}, voltage: 415 V,"]
            lines += [f"       current_rating: 63 A, path: {p.upper()}}}"]
    lines += ["rack_types:", "  hgx: {platform: dgx-h100, nodes: 3, it_load: 30 kW}", "racks:"]
    for r in range(1, ROWS + 1):
        lines += [f"  - id: r{r}-[001-100]", "    type: hgx", f"    row: row-{r}"]
        lines.append(f"    feeds: [f{r}a$n, f{r}b$n]")
        if r == 7:  # 10 kW of other equipment: the 3 DGX H100 stay within their 30.6 kW
            lines.append("    extra_load: 10 kW")
    path = tmp_path / "hall.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_one_defect_on_many_racks_is_one_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hall = _hall(tmp_path)
    assert main(["check", str(hall), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    entries = re.findall(r"^- \S+ (?:and \d+ more places )?\*\*(\w+)\*\* [\w-]+: (.*)$", out, re.M)
    expected = [
        (
            "PWR006",
            r"site IT load 31,540 kW (racks at their peak: catalog max\_power of dgx-h100) "
            "x PUE 1.3 = 41,002 kW exceeds",
        ),
        ("PWR008", "busway bus-a7 carries 4000 kW"),
        ("PWR008", "busway bus-b7 carries 4000 kW"),
        ("PWR003", r"**100 subjects: f7a\[001-100\]**, e.g.: feed f7a001 carries 40 kW"),
        ("PWR003", r"**100 subjects: f7b\[001-100\]**, e.g.: feed f7b001 carries 40 kW"),
        ("PWR004", r"**100 racks of type hgx: r7-\[001-100\]**, e.g.: rack r7-001 loses"),
    ]
    assert [rule for rule, _ in entries] == [rule for rule, _ in expected]
    for (_, text), (rule, start) in zip(entries, expected, strict=True):
        assert text.startswith(start), (rule, text)
    assert "#### Errors (303)" in out
    assert out.count("<details><summary>All 100 subjects</summary>") == 3
    # within a GitHub comment (check.py's GITHUB_COMMENT_LIMIT), with room for a header: the
    # figures' table of elements over their limit now names them all (60,371 characters)
    assert len(out) < GITHUB_COMMENT_LIMIT - 4_096
    # JSON keeps every finding: the roll-up is the review's, not the data's
    main(["check", str(hall), "--format", "json"])
    design = json.loads(capsys.readouterr().out)["designs"][0]
    assert len(design["findings"]) == 303
    rolled = [(r["rule"], r["count"], r["ids"], r["kind"]) for r in design["rollups"]]
    assert rolled == [
        ("PWR003", 100, "f7a[001-100]", ""),
        ("PWR003", 100, "f7b[001-100]", ""),
        ("PWR004", 100, "r7-[001-100]", "racks of type hgx"),
    ]
    pwr004 = design["rollups"][2]
    assert pwr004["subjects"] == [f"r7-{n:03d}" for n in range(1, 101)]
    assert [design["findings"][i]["subject"] for i in pwr004["findings"]] == pwr004["subjects"]


def test_charts_stay_readable_at_1000_racks(tmp_path: Path) -> None:
    out = tmp_path / "hall.html"
    main(["check", str(_hall(tmp_path)), "--format", "html", "-o", str(out)])
    html = out.read_text(encoding="utf-8")
    page = _parse(html)
    power = html[html.index('class="diagram power"') : html.index("</svg>", html.index("power"))]
    # identical elements are one box (issue 29 item 5): the 18 busways of the nine 30 kW rows,
    # their feeds and racks; row 7's two overloaded busways; its feeds and racks
    ids = re.findall(r'<g class="node[^"]*" data-id="([^"]*)"', power)
    assert ids == [
        "utility",
        "panel:bus-a1+17",
        "panel:bus-a7+1",
        "feeds:bus-a1+17",
        "feeds:bus-a7",
        "feeds:bus-b7",
        "racks:hgx @ row-1+8",
        "racks:hgx @ row-7",
    ]
    assert "18 x bus-a[1-6,8-10], bus-b[1-6,8-10]" in power
    assert "2 x bus-a7, bus-b7 (busway) \u2014 PWR008" in power
    racks = html[html.index('id="d0-racks-t"') :]
    racks = racks[: racks.index("</svg>")]
    assert racks.count('class="bar') == ROWS  # a bar a row of 100 racks, not 1,000
    ticks = re.findall(r'fill="#4a5568">([^<]*)</text>', racks)
    assert ticks == ["0 W", "25 kW", "50 kW", "75 kW", "100 kW", "125 kW"]
    assert "e+" not in " ".join(re.findall(r">([^<]*)</text>", html))  # no 1e+05 anywhere
    assert {"panel:bus-a7+1", "feeds:bus-a7", "feeds:bus-b7"} <= set(page.over)
    assert "racks:hgx @ row-7" in page.over
    assert "racks:hgx @ row-1+8" not in page.over
    assert len(html) < 400_000
