"""Endpoint nodes (storage, management, gateways) named by explicit links: refs, the graph,
and their ports in NET001, NET002 and NET004."""

from __future__ import annotations

import pytest

import dclint
from conftest import EXAMPLES, TODAY
from dclint.calc.fabric_graph import fabric_graph
from dclint.calc.fabric_tiers import tier_bandwidths
from dclint.engine.runner import Engine, run
from dclint.errors import LoadError


def _design(endpoints: str, links: str) -> str:
    return f"""name: t
racks:
  - {{id: 'r[1-2]', platform: hgx-h100, nodes: 1}}
fabrics:
  - id: f
    kind: compute
    switches:
      - {{id: 'leaf[1-2]', model: qm9700, tier: leaf}}
      - {{id: spine1, model: qm9700, tier: spine}}
    endpoints:
{endpoints}    links:
      - {{a: r1, b: leaf1, count: 8, speed: 400 Gb/s}}
      - {{a: r2, b: leaf2, count: 8, speed: 400 Gb/s}}
{links}"""


WEKA = "      - {name: weka, id: 'weka-[01-08]', role: storage, count: 8, ports: 2}\n"


def _problems(text: str) -> list[tuple[int, str]]:
    with pytest.raises(LoadError) as exc:
        dclint.load_text(text)
    return [(p.line, p.message) for p in exc.value.problems]


def test_endpoint_ids_are_graph_nodes_with_their_links() -> None:
    design = dclint.load_text(
        _design(
            WEKA + "      - {name: ufm, id: ufm-01, role: management, count: 1}\n",
            "      - {a: 'weka-[01-08]', b: leaf1, count: 2, speed: 400 Gb/s}\n"
            "      - {a: ufm-01, b: leaf2, speed: 400 Gb/s}\n"
            "      - {a: 'leaf[1-2]', b: spine1, count: 8, speed: 400 Gb/s}\n",
        )
    )
    fg = fabric_graph(design, 0)
    assert fg.endpoints == {f"weka-{i:02d}": 0 for i in range(1, 9)} | {"ufm-01": 1}
    assert fg.edge_count == 2 + 8 + 1 + 2
    assert sum(e.count for e in fg.incident("leaf1")) == 8 + 16 + 8
    assert [(e.other, e.count) for e in fg.incident("weka-05")] == [("leaf1", 2)]
    assert len(fg.components()) == 1


def test_endpoint_links_are_leaf_downlinks_in_net001() -> None:
    """leaf1: 8 GPU + 16 storage links down, leaf2: 8 GPU + 1 UFM; 16 up: 33:16 = 2.06:1."""
    design = dclint.load_text(
        _design(
            WEKA + "      - {name: ufm, id: ufm-01, role: management, count: 1}\n",
            "      - {a: 'weka-[01-08]', b: leaf1, count: 2, speed: 400 Gb/s}\n"
            "      - {a: ufm-01, b: leaf2, speed: 400 Gb/s}\n"
            "      - {a: 'leaf[1-2]', b: spine1, count: 8, speed: 400 Gb/s}\n",
        )
    )
    leaf, spine = tier_bandwidths(design, 0)
    assert (leaf.name, leaf.level, spine.level) == ("leaf", 1, 2)
    assert leaf.down.m_as("Gb/s") == pytest.approx(33 * 400)
    assert leaf.up is not None and leaf.up.m_as("Gb/s") == pytest.approx(16 * 400)
    assert leaf.ratio == pytest.approx(33 / 16)
    assert spine.down.m_as("Gb/s") == pytest.approx(16 * 400) and spine.up is None


def test_a_leaf_of_storage_only_is_still_a_leaf() -> None:
    """A leaf that holds only endpoint nodes sits one hop above them, not above the spine."""
    design = dclint.load_text(
        _design(
            WEKA,
            "      - {a: 'weka-[01-08]', b: leaf2, count: 2, speed: 400 Gb/s}\n"
            "      - {a: leaf1, b: spine1, count: 8, speed: 400 Gb/s}\n"
            "      - {a: leaf2, b: spine1, count: 24, speed: 400 Gb/s}\n",
        )
    )
    leaf, _ = tier_bandwidths(design, 0)
    assert leaf.down.m_as("Gb/s") == pytest.approx((16 + 16) * 400)
    assert leaf.up is not None and leaf.up.m_as("Gb/s") == pytest.approx(32 * 400)


def test_examples_give_exact_figures() -> None:
    found = run(
        [
            str(EXAMPLES / "net001" / "bad-explicit-endpoints.yaml"),
            str(EXAMPLES / "net002" / "bad-endpoints.yaml"),
            str(EXAMPLES / "net004" / "bad-endpoints.yaml"),
        ],
        Engine(today=TODAY),
    )
    assert not found.errors
    got = sorted((f.rule, f.line, f.measured_text, f.limit_text, f.message) for f in found.findings)
    assert [(r, line, m, lim) for r, line, m, lim, _ in got] == [
        ("NET001", 12, "1.25:1", "1:1"),  # 20 x 400 Gb/s down (16 GPU + 4 storage), 16 up
        ("NET002", 12, "72", "64"),  # 56 GPU links + 8 storage nodes x 2 on 64 ports
        ("NET004", 16, "1", "0"),  # ufm-01 has no link
        ("NET004", 19, "2", "0"),  # weka-01, weka-02 on a leaf with no spine link
        ("NET005", 11, "72", "64"),
    ]
    messages = [m for *_, m in got]
    assert "8 Tb/s down vs 6.4 Tb/s up" in messages[0]
    assert "uses 72 links at 400 Gb/s, more than its ports" in messages[1]
    assert messages[2] == "fabric compute is partitioned: endpoint node ufm-01 has no link"
    assert messages[3] == (
        "fabric compute is partitioned: endpoint nodes weka-01, weka-02 cannot reach the "
        "2 racks (16 GPUs) of its largest part"
    )


def test_unknown_endpoint_reference_is_a_load_error_with_a_hint() -> None:
    problems = _problems(_design(WEKA, "      - {a: weka-09, b: leaf1, speed: 400 Gb/s}\n"))
    assert problems == [
        (15, "unknown switch, rack or endpoint 'weka-09'; did you mean 'weka-08'?"),
    ]


def test_without_endpoint_ids_the_message_is_unchanged() -> None:
    text = _design(
        "      - {name: weka, role: storage, count: 8}\n",
        "      - {a: weka-01, b: leaf1, speed: 400 Gb/s}\n",
    )
    assert _problems(text) == [(15, "unknown switch or rack 'weka-01'")]


def test_endpoint_ids_must_match_count_and_be_unique() -> None:
    text = _design(
        "      - {name: weka, id: 'weka-[01-03]', role: storage, count: 2}\n"
        "      - {name: ufm, id: leaf1, role: management, count: 1}\n"
        "      - {name: gw, id: 'weka-03', role: gateway, count: 1}\n",
        "",
    )
    assert _problems(text) == [
        (11, "endpoint 'weka' has 3 ids in 'weka-[01-03]' but count 2; give one id per node"),
        (12, "endpoint id 'leaf1' is already the id of a switch or rack"),
        (13, "endpoint id 'weka-03' is already the id of another endpoint"),
    ]
