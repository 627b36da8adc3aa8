"""The editor server's workspace, in process: unsaved buffers, includers of a fragment, hover
figures, and the text edits the fixes make (comments and ranges kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.fix.text import Edit, apply, node_at, suppression_edit
from dclint.server.hover import hover_text, path_at
from dclint.server.workspace import Workspace

DESIGN = """\
name: ws-demo
include: [lib/racks.yaml]
site: {utility_capacity: 2 MW}
power:
  feeds:
    - {id: fa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: fb, voltage: 415 V, current_rating: 250 A, path: B}
"""
FRAGMENT = """\
racks:
  - id: r1
    it_load: {load}
    feeds: [fa, fb]
"""


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Workspace, Path, Path]:
    (tmp_path / "lib").mkdir()
    design, fragment = tmp_path / "hall.yaml", tmp_path / "lib" / "racks.yaml"
    design.write_text(DESIGN)
    fragment.write_text(FRAGMENT.format(load="100 kW"))
    (tmp_path / "docker-compose.yaml").write_text("services: {web: {image: nginx}}\n")
    return Workspace(tmp_path), design.resolve(), fragment.resolve()


def _rules(diags: dict[Path, list]) -> dict[str, list[tuple[str, int]]]:
    return {p.name: [(d.rule, d.line) for d in ds] for p, ds in diags.items()}


def test_fragment_buffer_rechecks_the_design_that_includes_it(tree) -> None:
    ws, design, fragment = tree
    assert ws.designs_for(fragment) == [design]
    ws.open(fragment, FRAGMENT.format(load="130 kW"))  # unsaved: the disk still says 100 kW
    assert _rules(ws.changed(fragment)) == {"hall.yaml": [], "racks.yaml": [("PWR001", 3)]}
    ws.open(fragment, FRAGMENT.format(load="110 kW"))
    assert _rules(ws.changed(fragment)) == {"hall.yaml": [], "racks.yaml": []}


def test_other_yaml_gets_no_diagnostics(tree) -> None:
    ws, _, _ = tree
    other = (ws.root / "docker-compose.yaml").resolve()
    assert ws.designs_for(other) == []
    assert _rules(ws.changed(other)) == {"docker-compose.yaml": []}


def test_hover_on_a_rack_value_and_a_finding(tree) -> None:
    ws, design, fragment = tree
    ws.open(fragment, FRAGMENT.format(load="130 kW"))
    ws.changed(fragment)
    loaded = ws.checked[design].design
    where = path_at(loaded.source, str(fragment), 3, 14)
    assert where == ("racks", 0, "it_load")
    text = hover_text(loaded, where, ws.diagnostics(fragment), ws.engine.rules)
    assert text is not None
    assert text.splitlines()[:3] == [
        "**rack r1**: no platform, 0 GPUs a rack",
        "- design IT load 130 kW, peak 130 kW against the rack limit 120 kW",
        "- heat to liquid 0 kW, to air 130 kW",
    ]
    assert "**PWR001** Rack design IT load above the rack power limit." in text


def test_hover_on_a_feed_gives_its_derated_capacity(tree) -> None:
    ws, design, _ = tree
    ws.changed(design)
    loaded = ws.checked[design].design
    where = path_at(loaded.source, str(design), 6, 12)
    assert where is not None and where[:3] == ("power", "feeds", 0)
    text = hover_text(loaded, where, [], ws.engine.rules)
    # sqrt(3) x 415 V x 250 A x 0.8 (continuous-load utilisation) x 0.95 (power factor)
    assert round(3**0.5 * 415 * 250 * 0.8 * 0.95 / 1000, 1) == 136.6
    assert text == (
        "- **feed fa**: derated capacity 136.6 kW at 415.0 V; allocated 100 kW (design), "
        "100 kW (peak); feeds r1"
    )


def test_suppression_edit_appends_a_reasoned_comment_or_extends_one() -> None:
    text = "racks:\n  - id: r1\n    it_load: 130 kW\n    feeds: [a]  # dclint: ignore[PWR003] ok\n"
    first = suppression_edit(text, 2, "PWR001", "accepted in  design review")
    assert apply(text, [first]).splitlines()[2] == (
        "    it_load: 130 kW  # dclint: ignore[PWR001] accepted in design review"
    )
    joined = suppression_edit(text, 3, "PWR004", "unused")
    assert apply(text, [joined]).splitlines()[3] == (
        "    feeds: [a]  # dclint: ignore[PWR003, PWR004] ok"
    )
    dated = suppression_edit(text, 2, "PWR001", "temporary", until="2027-03-03")
    assert (
        apply(text, [dated])
        .splitlines()[2]
        .endswith("# dclint: ignore[PWR001] until=2027-03-03 temporary")
    )


def test_edits_apply_last_first_and_node_at_finds_flow_values() -> None:
    text = "a: {tp: 8, pp: 1}  # keep\nb: [1, 2]\n"
    found = node_at(text, ("a",))
    assert found is not None
    node = found[1]
    assert (node.start_mark.line, node.start_mark.column, node.end_mark.column) == (0, 3, 17)
    edits = [Edit(0, 3, 0, 17, "{tp: 4}"), Edit(1, 3, 1, 9, "[3]")]
    assert apply(text, edits) == "a: {tp: 4}  # keep\nb: [3]\n"
    assert node_at(text, ("c",)) is None
    assert node_at("a: [\n", ("a",)) is None


def test_hover_on_an_unpriced_workload_gives_no_cost_not_zero() -> None:
    """BLOOM as run declares no price: the hover said 'cost 0 USD'; `dclint cost` prints '-'."""
    from test_published_gpu_hours import BLOOM_RUN

    from dclint.loader import load_text
    from dclint.server.hover import _workload

    (text,) = _workload(load_text(BLOOM_RUN), 0)
    assert text.splitlines()[-1] == "- training time 109.4 d, cost - (nothing priced)"
    priced = load_text(
        (Path(__file__).parent.parent / "sample_designs/h100-40node.yaml").read_text()
    )
    (text,) = _workload(priced, 0)
    assert text.splitlines()[-1].endswith(", cost 120,974 CNY")
