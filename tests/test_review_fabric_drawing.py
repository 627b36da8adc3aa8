"""The review's fabric drawing of an imported leaf/spine fabric (issue #50 item 6): drawn from
the tiers the fabric rules compute (dclint.calc.fabric_tiers), leaf under spine with each
tier's down and up bandwidth; an import that brought the leaf-spine links and no endpoint
links (a fabric NET004 finds partitioned) still draws leaf under spine, with no "top tier,
0 Tb/s down" box."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from integration.cluster import cluster, netbox_dump

from dclint.calc.fabric_tiers import tier_bandwidths
from dclint.cli import main
from dclint.loader import load
from dclint.units import fmt

NETBOX_MAP = Path(__file__).resolve().parent / "integration" / "netbox-import.yaml"


def _import(folder: Path, leaf_spine_only: bool) -> Path:
    c = cluster()
    if leaf_spine_only:  # the node-to-leaf cables not in the source
        c.cables = [x for x in c.cables if x[0].startswith("leaf")]
    (folder / "dump.json").write_text(json.dumps(netbox_dump(c)), encoding="utf-8")
    out = folder / "site.yaml"
    args = ["import", "netbox", "--from-file", str(folder / "dump.json")]
    assert main([*args, "--map", str(NETBOX_MAP), "--site", "dc1", "-o", str(out)]) == 0
    return out


def _fabric_chart(markdown: str) -> list[str]:
    """The fabric drawing's Mermaid lines (the chart with the endpoints box)."""
    charts = re.findall(r"```mermaid\n(.*?)```", markdown, re.S)
    found = [c for c in charts if "endpoints" in c]
    assert len(found) == 1
    return found[0].splitlines()


def _tiers(design: Path) -> dict[str, tuple[int, str, str | None]]:
    d = load(str(design))
    return {
        t.name: (t.level, fmt(t.down.to("Tb/s")), None if t.up is None else fmt(t.up.to("Tb/s")))
        for t in tier_bandwidths(d, 0)
    }


@pytest.mark.parametrize("leaf_spine_only", [False, True], ids=["whole", "leaf-spine-only"])
def test_leaf_under_spine_with_the_rules_bandwidth(tmp_path: Path, leaf_spine_only: bool) -> None:
    design = _import(tmp_path, leaf_spine_only)
    tiers = _tiers(design)
    # 8 leaves of 32 x 400 Gb/s down (to the 256 GPU NICs) and 32 up, 4 spines of 64 down
    assert tiers == {
        "leaf": (1, "0 Tb/s" if leaf_spine_only else "102.4 Tb/s", "102.4 Tb/s"),
        "spine": (2, "102.4 Tb/s", None),
    }
    out = tmp_path / "review.md"
    main(["review", str(design), "-o", str(out), "--today", "2026-12-06"])
    text = out.read_text(encoding="utf-8")
    lines = _fabric_chart(text)
    boxes = {m[1]: m[2] for m in re.finditer(r'^  (n\d+)\["(.*)"\]$', "\n".join(lines), re.M)}
    ids = {label.split("#58;")[0]: n for n, label in boxes.items()}
    leaf, spine = boxes[ids["leaf"]], boxes[ids["spine"]]
    ends = ids["fabric compute (compute)<br/>endpoints"]
    assert spine == f"spine#58; 4 switches<br/>{tiers['spine'][1]} down, top tier"
    if leaf_spine_only:
        assert leaf == f"leaf#58; 8 switches<br/>no endpoint links / {tiers['leaf'][2]} up"
        assert "NET004" in text
    else:
        assert leaf == (
            f"leaf#58; 8 switches binding<br/>{tiers['leaf'][1]} down / {tiers['leaf'][2]} up "
            "= 1.00#58;1 (limit 1#58;1)"
        )
    # spine over leaf over the endpoints, and no box says a tier has nothing below it
    assert f"  {ids['spine']} --> {ids['leaf']}" in lines
    assert f"  {ids['leaf']} --> {ends}" in lines
    assert "0 Tb/s down" not in "\n".join(lines)
