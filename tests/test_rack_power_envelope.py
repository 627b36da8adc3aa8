"""PWR001's limit is the facility's: the envelope a design declares for a row, hall or site,
else 120 kW for every platform; a rack above its platform's own rating is a data error."""

from __future__ import annotations

from pathlib import Path

from conftest import TODAY, finding_counts
from dclint.engine.runner import Engine, run

ENVELOPES = """
name: envelopes
site:
  rack_power_limit: 125 kW
  halls:
    h1: {rack_power_limit: 142 kW}
  rows:
    r-low: {hall: h1, rack_power_limit: 110 kW}
    r-plain: {hall: h1}
racks:
  - {id: s1, platform: gb200-nvl72, it_load: 124 kW}
  - {id: s2, platform: gb200-nvl72, it_load: 126 kW}
  - {id: h1a, platform: gb300-nvl72, hall: h1}
  - {id: w1, platform: gb200-nvl72, row: r-low, hall: h1, it_load: 111 kW}
  - {id: p1, platform: gb300-nvl72, row: r-plain}
  - {id: z1, platform: gb300-nvl72, row: undeclared-row}
"""


def test_row_then_hall_then_site(write) -> None:  # type: ignore[no-untyped-def]
    """s1 (124) passes the site's 125 kW, s2 (126) fails it; h1a (135) passes its hall's 142;
    w1 (111) fails its row's 110 though its hall allows 142; p1 (135) takes its row's hall;
    z1 (135) on a row the site does not list takes the site's 125 kW."""
    path = write(ENVELOPES)
    result = run([str(path)], Engine(today=TODAY))
    got = sorted(
        (f.line, f.measured.m_as("kW"), f.limit.m_as("kW"))
        for f in result.findings
        if f.rule == "PWR001"
    )
    assert got == [(12, 126, 125), (14, 111, 110), (16, 135, 125)]
    messages = {f.line: f.message for f in result.findings}
    assert "the row r-low's rack power envelope declared at" in messages[14]
    assert "declared at site.rows.r-low.rack_power_limit" in messages[14]
    assert "the site's rack power envelope declared at site.rack_power_limit" in messages[16]


def test_the_envelope_wins_over_the_config(write) -> None:  # type: ignore[no-untyped-def]
    """A config's limit applies only where the design declares no envelope."""
    from dclint.engine.config import Config

    path = write(ENVELOPES)
    config = Config(rule_settings={"PWR001": {"limit": "100 kW"}}, select=("PWR001",))
    assert finding_counts(path, config=config) == finding_counts(path)


def test_unknown_hall_is_a_load_error(write) -> None:  # type: ignore[no-untyped-def]
    path = write(
        "name: x\nsite:\n  halls: {hall-1: {rack_power_limit: 140 kW}}\n"
        "  rows: {r1: {hall: hall-2}}\n"
        "racks:\n  - {id: a, platform: gb200-nvl72, hall: hal-1}\n"
    )
    result = run([str(path)], Engine(today=TODAY))
    errors = sorted((e.line, e.message) for e in result.errors)
    assert [line for line, _ in errors] == [4, 6]
    assert "unknown hall 'hall-2'" in errors[0][1]
    assert "unknown hall 'hal-1'" in errors[1][1] and "hall-1" in errors[1][1]


def test_above_the_platform_rating_is_a_data_error(write) -> None:  # type: ignore[no-untyped-def]
    """A GB300 NVL72 declared at 150 kW is above its own 142 kW rating (NVIDIA GB300 NVL72
    enterprise RA) even in a hall built for 160 kW; 8 kW of other equipment in extra_load is
    not the platform's."""
    path: Path = write(
        "name: x\nsite: {rack_power_limit: 160 kW}\nracks:\n"
        "  - {id: a, platform: gb300-nvl72, it_load: 150 kW}\n"
        "  - {id: b, platform: gb300-nvl72, it_load: 142 kW, extra_load: 8 kW}\n"
    )
    result = run([str(path)], Engine(today=TODAY))
    found = [(f.rule, f.line, f.measured.m_as("kW"), f.limit.m_as("kW")) for f in result.findings]
    assert found == [("PWR001", 4, 150, 142)]
    assert "own rated maximum (catalog max_power)" in result.findings[0].message
    assert "142" not in result.findings[0].message
    assert "data error" in result.findings[0].message
