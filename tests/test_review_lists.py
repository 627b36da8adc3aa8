"""No list is clipped in the review's figures (issue #50 item 6): the issue's hall printed
"overloaded feeds A01-a, A02-a, A03-a, A04-a" and lost "and 4 more" at the box's edge. A box or
bar names its members over their limit only where the names fit whole, else counts them; the
table under the figures names every one (an HTML table, which continues across pages)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from integration.hall import GPU_RACKS, MAPPING, hall_dump

from dclint.cli import main

A_FEEDS = [f"{r}-a" for r in GPU_RACKS]  # A01-a ... B04-a: 8 names, no common numbered stem


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("lists")
    dump = hall_dump()
    for feed in dump["dcim/power-feeds"]:
        if feed["rack"] is not None and feed["rack"]["name"] != "N01":
            feed["amperage"] = 32  # 17.48 kW derated under each 40.8 kW GPU rack: all 16 over
    (folder / "dump.json").write_text(json.dumps(dump), encoding="utf-8")
    (folder / "map.yaml").write_text(MAPPING, encoding="utf-8")
    args = ["import", "netbox", "--from-file", str(folder / "dump.json")]
    assert main([*args, "--map", str(folder / "map.yaml"), "-o", str(folder / "h.yaml")]) == 0
    out = {}
    for suffix in ("html", "md"):
        target = folder / f"review.{suffix}"
        main(["review", str(folder / "h.yaml"), "-o", str(target), "--today", "2026-12-06"])
        out[suffix] = target.read_text(encoding="utf-8")
    return out


def test_no_box_or_bar_drops_names(review: dict[str, str]) -> None:
    html = review["html"]
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", html)
    assert texts
    assert [t for t in texts if " more" in t] == []
    # the two panels' feed groups alike, drawn as one box (8 of each 9 over, counted) and as
    # one bar of the load-against-capacity chart
    feeds = [t for t in texts if "feeds of rpp-a" in t]
    assert feeds == ["2 x 9 feeds of rpp-a, rpp-b \u2014 PWR003", "2 x 9 feeds of rpp-a, rpp-b"]
    assert "derated; over: 8, listed under the figures" in texts


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_the_table_under_the_figures_names_every_one(review: dict[str, str], fmt: str) -> None:
    text = review[fmt]
    every = ", ".join([*A_FEEDS, *(f[:-1] + "b" for f in A_FEEDS)])
    # the feeds, and the GPU racks PWR004 names (each loses its redundancy with a feed lost);
    # their 40.8 kW is within the racks' 120 kW, so the rack chart adds no row
    assert "Over their limit in the figures above (2):" in text
    racks = "2 x A[01-04], B[01-04] (dgx-h100-x4)"
    if fmt == "html":  # each id unbroken across lines
        ids = ", ".join(f'<span class="id">{i}</span>' for i in every.split(", "))
        assert f"<td>2 x 9 feeds of rpp-a, rpp-b</td><td>{ids}</td>" in text
        ids = '<span class="id">A[01-04]</span>, <span class="id">B[01-04]</span>'
        assert f"<td>{racks}</td><td>{ids}</td>" in text
    else:
        assert f"| Power one-line | 2 x 9 feeds of rpp-a, rpp-b | {every} |" in text
        md_racks = racks.replace("[", "\\[").replace("]", "\\]")
        assert f"| Power one-line | {md_racks} | A\\[01-04\\], B\\[01-04\\] |" in text


def test_a_long_id_in_the_table_may_break(tmp_path: Path) -> None:
    """An id of 40 characters or more (dclint.report.html.LONG) in the table under the figures
    may break anywhere (span.long), or the table would be wider than the page and Chromium
    would print every page smaller; the shorter ones stay unbroken (span.id)."""
    dump = hall_dump()
    long = "A01-a_" + "x" * 54
    for feed in dump["dcim/power-feeds"]:
        if feed["rack"] is not None and feed["rack"]["name"] != "N01":
            feed["amperage"] = 32  # as the fixture's: every GPU rack's feeds over
        if feed["name"] == "A01-a":
            feed["name"] = long
    (tmp_path / "dump.json").write_text(json.dumps(dump), encoding="utf-8")
    (tmp_path / "map.yaml").write_text(MAPPING, encoding="utf-8")
    args = ["import", "netbox", "--from-file", str(tmp_path / "dump.json")]
    assert main([*args, "--map", str(tmp_path / "map.yaml"), "-o", str(tmp_path / "h.yaml")]) == 0
    target = tmp_path / "review.html"
    main(["review", str(tmp_path / "h.yaml"), "-o", str(target), "--today", "2026-12-06"])
    every = [long, *A_FEEDS[1:], *(f[:-1] + "b" for f in A_FEEDS)]
    ids = ", ".join(f'<span class="{"long" if i == long else "id"}">{i}</span>' for i in every)
    assert f"<td>2 x 9 feeds of rpp-a, rpp-b</td><td>{ids}</td>" in target.read_text("utf-8")
