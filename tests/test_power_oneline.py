"""Issue 32's last paragraph, the review's power one-line: transformers, UPS systems,
switchboards and generator sets drawn as boxes with the load their rules check against their
capacity (spare modules and sets out), and the consequence of each single loss that leaves racks
with no supply, in the diagram's data, its SVG and its Mermaid."""

from __future__ import annotations

from pathlib import Path

import pytest

import dclint
from conftest import EXAMPLES
from dclint.analysis.diagrams import Graph, power_basis, power_graph
from dclint.analysis.summary import summarise
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.report.drawing import mermaid, svg

# Two transformers, each feeding a modular UPS in N+1 (6 x 250 kVA: 5 carry 1,187.5 kW at PF
# 0.95), a switchboard and a busway per path; eight NVL72 racks (132 kW peak) on A and B. Four
# more racks hang with both paths from one small UPS, ups-c, under tx-a: its loss, or tx-a's,
# takes them. Three 2,000 kVA generators in N+1 back up the site.
CHAIN = """\
name: chain
site: {pue: 1.2, uptime_tier: III}
power:
  transformers:
    - {id: tx-a, rating: 2500 kVA}
    - {id: tx-b, rating: 2500 kVA}
  ups:
    - {id: ups-a, fed_by: tx-a, rating: 1250 kVA, module_rating: 250 kVA, modules: 6,
       redundant_modules: 1}
    - {id: ups-b, fed_by: tx-b, rating: 1250 kVA, module_rating: 250 kVA, modules: 6,
       redundant_modules: 1}
    - {id: ups-c, fed_by: tx-a, rating: 625 kVA}
  generators:
    - {id: gen, site_rating: 2000 kVA, count: 3, redundant: 1}
  panels:
    - {id: swb-a, kind: switchboard, fed_by: ups-a, voltage: 415 V, current_rating: 2500 A, path: A}
    - {id: swb-b, kind: switchboard, fed_by: ups-b, voltage: 415 V, current_rating: 2500 A, path: B}
    - {id: bus-a, kind: busway, fed_by: swb-a, voltage: 415 V, current_rating: 2000 A, path: A}
    - {id: bus-b, kind: busway, fed_by: swb-b, voltage: 415 V, current_rating: 2000 A, path: B}
    - {id: bus-c1, kind: busway, fed_by: ups-c, voltage: 415 V, current_rating: 1000 A, path: A}
    - {id: bus-c2, kind: busway, fed_by: ups-c, voltage: 415 V, current_rating: 1000 A, path: B}
  feeds:
    - {id: 'a[1-8]', panel: bus-a, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: 'b[1-8]', panel: bus-b, voltage: 415 V, current_rating: 250 A, path: B}
    - {id: 'c[1-4]', panel: bus-c1, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: 'd[1-4]', panel: bus-c2, voltage: 415 V, current_rating: 250 A, path: B}
racks:
  - {id: 'r[1-8]', platform: gb200-nvl72, feeds: [a$n, b$n]}
  - {id: 's[1-4]', platform: gb200-nvl72, feeds: [c$n, d$n]}
"""

RULES = discover()


def _graph(path: Path | str, **design_load: bool) -> Graph:
    design = dclint.load(str(path))
    options = default_options()
    for rid, on in design_load.items():
        options[rid] = {**options[rid], "design_load": on}
    graph = power_graph(design, summarise(design, options), {}, power_basis(RULES, options))
    assert graph is not None
    return graph


@pytest.fixture
def chain(tmp_path: Path) -> Path:
    path = tmp_path / "chain.yaml"
    path.write_text(CHAIN, encoding="utf-8")
    return path


def test_every_element_of_the_chain_is_a_box_with_its_load_against_capacity(chain: Path) -> None:
    nodes = {n.key: n for n in _graph(chain).nodes}
    # ups-a's 1,056 kW / 0.96 + ups-c's 528 kW / 0.96, at the nameplate x PF 0.95 (PWR011)
    assert nodes["chain:tx-a"].detail == (
        "1650 kW at peak / 2375 kW (nameplate 2500 kVA x PF 0.95; 725 kW free)"
    )
    assert nodes["chain:tx-a"].title == "tx-a (transformer)"
    # eight 132 kW racks, each once, on 5 of 6 modules (PWR009)
    assert nodes["chain:ups-a"].detail == (
        "1056 kW at peak / 1188 kW (frame 1250 kVA x PF 0.95; 6 modules of 250 kVA in N+1: 5 "
        "carry the load; 131.5 kW free)"
    )
    assert nodes["chain:ups-a"].share == pytest.approx(1056 / 1187.5)
    assert nodes["panel:swb-a"].title == "swb-a (switchboard)"
    assert nodes["panel:swb-a"].detail == "1056 kW at peak / 1366 kW derated (309.7 kW free)"
    # 1,584 kW of racks x PUE 1.2 on 2 of 3 x 2,000 kVA x PF 0.8 (PWR012)
    assert nodes["gen:gen"].title == "gen (3 generators, N+1)"
    assert nodes["gen:gen"].detail == (
        "1901 kW facility (at peak x PUE 1.2) / 3200 kW firm (2 of 3 at 2000 kVA prime; "
        "serves the site)"
    )
    assert nodes["gen:gen"].share == pytest.approx(1900.8 / 3200)
    layers = {k: n.layer for k, n in nodes.items() if k.startswith(("chain:", "panel:", "gen:"))}
    assert layers == {
        "gen:gen": 0,
        "chain:tx-a": 1,
        "chain:tx-b": 1,
        "chain:ups-a": 2,
        "chain:ups-b": 2,
        "chain:ups-c": 2,
        "panel:swb-a": 3,
        "panel:swb-b": 3,
        "panel:bus-c1": 3,
        "panel:bus-c2": 3,
        "panel:bus-a": 4,
        "panel:bus-b": 4,
    }
    assert nodes["feeds:bus-a"].layer == 5 and nodes["racks:gb200-nvl72 @ r[1-8]"].layer == 6


def test_the_chain_is_linked_as_fed_by_says(chain: Path) -> None:
    edges = set(_graph(chain).edges)
    assert {
        ("utility", "chain:tx-a", ""),
        ("chain:tx-a", "chain:ups-a", ""),
        ("chain:tx-a", "chain:ups-c", ""),
        ("chain:ups-a", "panel:swb-a", ""),
        ("panel:swb-a", "panel:bus-a", ""),
        ("chain:ups-c", "panel:bus-c1", ""),
        ("gen:gen", "chain:tx-a", "backs up"),
        ("gen:gen", "chain:tx-b", "backs up"),
    } <= edges
    # a panel fed by a UPS hangs from the UPS, not from the utility (as it was drawn before)
    assert ("utility", "panel:swb-a", "") not in edges


def test_a_single_loss_that_takes_racks_is_marked_on_its_element(chain: Path) -> None:
    lost = {n.key: n.consequence for n in _graph(chain).nodes if n.consequence}
    assert lost == {
        "chain:tx-a": "loss of transformer tx-a: 4 racks (s[1-4], 528 kW) lose all supply",
        "chain:ups-c": "loss of UPS ups-c: 4 racks (s[1-4], 528 kW) lose all supply",
    }


def test_single_fed_racks_and_shared_panels_are_marked() -> None:
    lost = {n.key: n.consequence for n in _graph(EXAMPLES / "pwr013" / "bad.yaml").nodes}
    assert lost["chain:ups-1"] == "loss of UPS ups-1: 2 racks (r[2-3], 200 kW) lose all supply"
    assert lost["panel:pdu-1"] == "loss of panel pdu-1: 1 rack (r1, 100 kW) loses all supply"
    assert lost["panel:bus-a"] == ""  # r2 and r3 keep bus-b
    assert lost["feeds:"] == "loss of f4: 1 rack loses all supply"
    assert lost["feeds:bus-a"] == ""


def test_a_ups_a_catcher_backs_up_is_not_marked() -> None:
    nodes = {n.key: n for n in _graph(EXAMPLES / "pwr013" / "good.yaml").nodes}
    assert nodes["chain:ups-1"].consequence == ""
    assert nodes["chain:ups-c"].detail == (
        "100 kW at peak taking over ups-1 (catcher for ups-1) / 1188 kW (frame 1250 kVA x PF "
        "0.95; 1088 kW free)"
    )
    assert ("chain:ups-c", "panel:bus-c", "catches ups-1") in _graph(
        EXAMPLES / "pwr013" / "good.yaml"
    ).edges


def test_upstream_boxes_follow_the_upstream_rules_design_load(chain: Path) -> None:
    nodes = {n.key: n.detail for n in _graph(chain, PWR009=True, PWR011=True, PWR012=True).nodes}
    assert nodes["chain:ups-a"].startswith("960 kW at design load / 1188 kW")
    assert nodes["chain:tx-a"].startswith("1500 kW at design load / 2375 kW")  # 1,440 / 0.96
    assert nodes["gen:gen"].startswith("1728 kW facility (at design load x PUE 1.2)")
    assert nodes["panel:swb-a"].startswith("1056 kW at peak")  # PWR008 still at peak


def test_the_svg_and_mermaid_draw_the_boxes_and_the_consequence(chain: Path) -> None:
    graph = _graph(chain)
    drawn = svg(graph, "Power one-line", "p1")
    lines = [
        part.split(">", 1)[1].split("<", 1)[0]
        for part in drawn.split('<text class="consequence"')[1:]
    ]
    assert lines == [
        "loss of transformer tx-a: 4 racks (s[1-4],",
        "528 kW) lose all supply",
        "loss of UPS ups-c: 4 racks (s[1-4], 528 kW)",
        "lose all supply",
    ]
    assert (
        "<title>ups-c (UPS): 528 kW at peak / 593.8 kW (frame 625 kVA x PF 0.95; 65.75 kW "
        "free); loss of UPS ups-c: 4 racks (s[1-4], 528 kW) lose all supply</title>" in drawn
    )
    assert 'height="90"' in drawn  # 62 + two 14-unit lines of consequence
    text = mermaid(graph)
    assert (
        '["ups-c (UPS)<br/>528 kW at peak / 593.8 kW (frame 625 kVA x PF 0.95; 65.75 kW free)'
        '<br/>loss of UPS ups-c#58; 4 racks (s#91;1-4#93;, 528 kW) lose all supply"]'  # : as #58;
    ) in text
    assert '["gen (3 generators, N+1)<br/>1901 kW facility' in text
    assert "-->|backs up|" in text


def test_a_chain_without_consequence_keeps_the_box_height() -> None:
    drawn = svg(_graph(EXAMPLES / "pwr012" / "good.yaml"), "Power", "p1")
    assert 'class="consequence"' not in drawn
    assert 'height="62"' in drawn and 'height="76"' not in drawn and 'height="90"' not in drawn
