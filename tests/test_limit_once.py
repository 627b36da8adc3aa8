"""A finding states its limit once: PWR001, PWR002, PWR003, PWR004, PWR008, STO001 and STO003
wrote their limit into the message and the printer added '(measured X, limit X)' after it ('...
exceeds the rack power limit 120 kW (measured 130 kW, limit 120 kW)'). As NET001 does, the
message now names the limit and the printed suffix gives its figure. test_no_rule_repeats_its_limit
holds every rule to it: no finding on a rule's bad examples writes its limit's printed figure in
its message, but for the findings KEEPS_LIMIT_FIGURE names, each with its reason."""

from __future__ import annotations

import re

import pytest

from conftest import EXAMPLES, TODAY, example_config
from dclint.engine.findings import value_text
from dclint.engine.registry import discover
from dclint.engine.rollup import measured_limit
from dclint.engine.runner import Engine, run

LINES = {
    "PWR001": (
        "bad.yaml",
        "rack r01 design IT load 120.001 kW exceeds the rack power limit"
        " (measured 120.001 kW, limit 120 kW)",
    ),
    "PWR002": (
        "bad.yaml",
        "power domain busway-a keeps 79.18 kW unallocated (1093 kW derated capacity, 1013 kW"
        " allocated), less headroom than it needs (measured 79.18 kW, limit 80 kW)",
    ),
    "PWR008": (
        "bad.yaml",
        "panel pdu-2 carries 20.01 kW of rack load (2 racks, active and planned, each once, at"
        " their design IT load: no catalog max_power known), above its derated capacity (200 V x"
        " 100 A single-phase at 100%: 20 kVA x PF 1) (measured 20.01 kW, limit 20 kW)",
    ),
    "PWR003": (
        "bad.yaml",
        "feed tap-a1 carries 132 kW on path A (rack r1 at its peak: catalog max_power of"
        " gb200-nvl72), above its derated capacity (415 V x 200 A three-phase at 80%: 115 kVA x"
        " PF 0.95) (measured 132 kW, limit 109.3 kW)",
    ),
    "PWR004": (
        "bad.yaml",
        "rack r1 loses its redundancy: with feed n1 lost, its feed n2 would carry 5.001 kW, above"
        " its derated capacity (rack load 10 kW, its design IT load: no catalog max_power known,"
        " on 3 feeds) (measured 5.001 kW, limit 5 kW)",
    ),
    "STO003": (
        "bad.yaml",
        "workload llama-70b spends 8.237% of each 1 min checkpoint interval saving: a 988.4 GB"
        " checkpoint takes 4.942 s at 200 GB/s to weka (measured 8.237%, limit 5%)",
    ),
    "STO001": (
        "bad.yaml",
        "training storage (weka) reads at 599.9 GB/s, below 3x the workloads' read demand of"
        " 200 GB/s; demand: vlm: declared data_read_rate 200 GB/s"
        " (measured 599.9 GB/s, limit 600 GB/s)",
    ),
}


@pytest.mark.parametrize("rule_id", sorted(LINES))
def test_limit_is_printed_once(rule_id: str) -> None:
    name, line = LINES[rule_id]
    folder = EXAMPLES / rule_id.lower()
    result = run([str(folder / name)], Engine(config=example_config(folder), today=TODAY))
    printed = [f.message + measured_limit(f) for f in result.findings if f.rule == rule_id]
    assert line in printed
    limit = line.rsplit("limit ", 1)[1].rstrip(")")
    assert line.count(limit) == 1


# Findings whose message keeps a figure equal to the printed limit, each for a reason the suffix
# cannot carry, found by rule and a fragment of the message around that figure. Every other
# finding of every rule on its bad examples leaves the limit's figure to the suffix.
KEEPS_LIMIT_FIGURE: dict[str, tuple[tuple[str, ...], str]] = {
    "NET003": (
        ("",),
        "its limit is the technology or speed of the other end, which the sentence names to say"
        " what does not link ('tier leaf runs InfiniBand but tier spine runs Ethernet')",
    ),
    "NET005": (
        ("(leaf 64 ports)",),
        "a Clos's size is derived from its tiers' ports: with one tier, its leaf's ports are the"
        " limit itself",
    ),
    "NET006": (
        ("(rail0: 4, rail1: 2 links)",),
        "how a rack's links spread over the rails is the finding; its busiest rail is the limit",
    ),
    "NET009": (
        ("512 endpoint ports have no leaf port", "512 GPUs x 1 NIC per GPU = 512 ports"),
        "the examples' counts derived from their GPUs (the 512 ports of 512 GPUs, the 1,024 -"
        " 512 left without a leaf port) happen to equal the leaf's 512 downlinks",
    ),
    "PAR002": (
        ("",),
        "the NVLink domain's size is in the platform's name ('HGX H100 8-GPU node', 'GB200"
        " NVL72') and in the arithmetic that shows it does not divide ('72 = 16 x 4 + 8')",
    ),
    "PAR003": (
        ("",),
        "the limits are the layer and stage counts of the split the message works out"
        " ('114 = 14 x 8 + 2'), which it cannot state without them",
    ),
    "PWR012": (
        ("sets at 1200 kW site rating",),
        "the firm output is derived as 'n of m sets at X site rating': with one working set, X"
        " is the limit itself",
    ),
    "STO001": (
        (" to provide, so 3x",),
        "a reference architecture's demand is derived from the bandwidth it publishes: that"
        " published figure is the limit's source",
    ),
    "CLG002": (
        ("CDU cdu-a (1000 L/min) out",),
        "the CDU taken out is named with its own rating, which in a pair of equal CDUs is what"
        " the other gives",
    ),
    "CLG004": (
        ("liquid supply up to 45 degC",),
        "the platform's limit is quoted from its source (the OCP GB200 rack specification)",
    ),
    "CLG010": (
        ("1 of 2 units, 1 spare, 100 kW each",),
        "the air handlers' capacity is derived as 'n of m units, X each': with one working unit,"
        " X is the limit itself",
    ),
    "CLG012": (
        ("each 300 kW: 600 kW rated at 35 degC",),
        "each unit's nameplate (600 kW at 35 degC, derated to 300 kW on the design day) is the"
        " derivation; two working units make the same figure",
    ),
}


def _figure(text: str) -> re.Pattern[str]:
    """`text` as a whole figure: '80 kW' is not found in '480 kW', nor '1' in 'N+1', '1.5' or
    '1,024'."""
    return re.compile(r"(?<![\w.,+])" + re.escape(text) + r"(?![\w+])(?![.,]\d)")


def _repeats(rule_id: str) -> list[str]:
    folder = EXAMPLES / rule_id.lower()
    files = sorted(folder.glob("bad*.yaml"))
    result = run([str(f) for f in files], Engine(config=example_config(folder), today=TODAY))
    out = []
    for f in result.findings:
        limit, measured = f.limit_text, f.measured_text
        if f.rule != rule_id or limit is None or limit in (measured, value_text(f.measured)):
            continue  # the measured figure printed as the limit is (120.001 kW as 120 kW)
        if _figure(limit).search(f.message):
            out.append(f.message + measured_limit(f))
    return out


@pytest.mark.parametrize("rule_id", sorted(discover()))
def test_no_rule_repeats_its_limit(rule_id: str) -> None:
    repeats = _repeats(rule_id)
    if rule_id in KEEPS_LIMIT_FIGURE:
        for fragment in KEEPS_LIMIT_FIGURE[rule_id][0]:
            kept = [m for m in repeats if fragment in m]
            assert kept, f"{rule_id} no longer repeats its limit in '{fragment}': drop it"
            repeats = [m for m in repeats if fragment not in m]
    assert repeats == []
