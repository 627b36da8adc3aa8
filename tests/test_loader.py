"""Loading designs: exact error positions, references, ranges, catalog lookups and overrides."""

from __future__ import annotations

import pytest

import dclint
from dclint.errors import LoadError
from dclint.model.resolve import topology_of
from dclint.units import Q_

BASE = "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl72\n"


def problems(text: str) -> list[str]:
    with pytest.raises(LoadError) as info:
        dclint.load_text(text, "d.yaml")
    return [str(p) for p in info.value.problems]


def test_sample_loads_with_expanded_racks_and_derated_feeds(tmp_path: object) -> None:
    design = dclint.load("sample_designs/gb200-superpod-su.yaml")
    topo = topology_of(design)
    assert [r.id for r in topo.racks] == [f"su1-r{i}" for i in range(1, 9)]
    assert topo.gpus == 576
    assert topo.rack_by_id["su1-r3"].feed_ids == ["tap-a3", "tap-b3"]
    # sqrt(3) x 415 V x 250 A x 0.95 x 80%
    assert topo.feeds["tap-a1"].capacity.m_as("kW") == pytest.approx(136.572, abs=1e-3)
    assert topo.it_load.m_as("kW") == pytest.approx(960.0)


def test_bare_number_where_a_unit_is_needed() -> None:
    assert problems(BASE + "    it_load: 120\n") == [
        "d.yaml:5:14: racks[0].it_load: power needs a unit: write '120 kW' or similar "
        "(e.g. '120 kW')"
    ]


def test_wrong_dimension_names_field_and_expected_dimension() -> None:
    assert problems(BASE + "    it_load: 120 kg\n") == [
        "d.yaml:5:14: racks[0].it_load: expected power, e.g. '120 kW', got a value in 'kg'"
    ]


def test_unknown_key_with_did_you_mean_at_the_key() -> None:
    assert problems(BASE + "    it_lod: 120 kW\n") == [
        "d.yaml:5:5: unknown key 'it_lod' in racks[0]; did you mean 'it_load'?"
    ]


def test_several_problems_are_collected() -> None:
    text = BASE + "    it_load: 120\n  - id: r02\n    nodes: -1\n"
    assert [p.split(": ")[0] for p in problems(text)] == ["d.yaml:5:14", "d.yaml:7:12"]


def test_duplicate_keys_are_errors() -> None:
    assert problems("name: a\nname: b\n") == ["d.yaml:2:1: duplicate key 'name'"]


def test_a_collection_key_is_an_error_and_the_keys_after_it_stay_keys() -> None:
    # the value after `? [a, b]` is that key's value: `name` below is a key, and a duplicate
    text = "name: x\n? [a, {b: c}]\n: 1\nname: y\n"
    assert problems(text) == [
        "d.yaml:2:3: mapping keys must be plain strings",
        "d.yaml:4:1: duplicate key 'name'",
    ]


def test_yaml11_boolean_is_not_read_as_false() -> None:
    text = "name: t\nfabrics:\n  - id: f\n    kind: compute\n    rail_optimised: no\n"
    assert problems(text) == [
        "d.yaml:5:21: fabrics[0].rail_optimised: expected true or false, got 'no' "
        "(YAML 1.1 booleans are not read as such)"
    ]


def test_octal_looking_and_sexagesimal_values_stay_strings() -> None:
    design = dclint.load_text("name: '010'\nracks:\n  - id: 010\n    it_load: 1 kW\n")
    assert design.name == "010"
    assert topology_of(design).racks[0].id == "010"
    assert problems("name: t\nsite:\n  pue: 1:30\n") == [
        "d.yaml:3:8: site.pue: expected a number, got '1:30'"
    ]


def test_unknown_feed_reference_at_the_referencing_line() -> None:
    text = BASE + "    feeds: [nope]\n"
    assert problems(text) == ["d.yaml:5:13: rack 'r01' names unknown feed 'nope'"]


def test_unknown_platform_with_hint() -> None:
    text = "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl27\n"
    assert problems(text) == [
        "d.yaml:4:15: unknown platform 'gb200-nvl27'; did you mean 'gb200-nvl72'?"
    ]


def test_panel_feeding_itself_directly() -> None:
    text = (
        "name: t\npower:\n  panels:\n"
        "    - {id: p1, voltage: 415 V, current_rating: 9 A, fed_by: p1}\n"
    )
    assert problems(text) == ["d.yaml:4:61: reference cycle: panel p1 -> p1 feeds itself"]


def test_panel_cycle_is_reported() -> None:
    text = (
        "name: t\npower:\n  panels:\n"
        "    - {id: p1, voltage: 415 V, current_rating: 100 A, fed_by: p2}\n"
        "    - {id: p2, voltage: 415 V, current_rating: 100 A, fed_by: p1}\n"
    )
    assert problems(text) == [
        "d.yaml:4:63: reference cycle: panel p1 -> p2 -> p1 feeds itself",
        "d.yaml:5:63: reference cycle: panel p2 -> p1 -> p2 feeds itself",
    ]


def test_range_expansion_count_and_padding() -> None:
    design = dclint.load_text(
        "name: t\nracks:\n  - {id: 'r[008-011]', it_load: 10 kW}\n"
        "  - {id: su-r, count: 12, it_load: 10 kW}\n"
    )
    ids = [r.id for r in topology_of(design).racks]
    assert ids[:4] == ["r008", "r009", "r010", "r011"]
    assert ids[4] == "su-r01" and ids[-1] == "su-r12" and len(ids) == 16


def test_backwards_range_is_an_error() -> None:
    assert problems("name: t\nracks:\n  - {id: 'r[10-01]', it_load: 1 kW}\n") == [
        "d.yaml:3:10: range [10-01] in 'r[10-01]' runs backwards"
    ]


def test_catalog_lookup_and_override() -> None:
    design = dclint.load_text(
        BASE + "catalog:\n  platforms:\n    gb200-nvl72:\n      power: 132 kW\n"
    )
    rack = topology_of(design).racks[0]
    assert rack.it_load == Q_(132, "kW")
    assert rack.gpus == 72
    assert topology_of(design).catalog.gpus["h100-sxm"].tdp == Q_(700, "W")


def test_node_platform_load_is_power_times_nodes() -> None:
    design = dclint.load_text("name: t\nracks:\n  - {id: r1, platform: hgx-h100, nodes: 4}\n")
    assert topology_of(design).racks[0].it_load.m_as("kW") == pytest.approx(34.0)
    assert topology_of(design).gpus == 32


def test_every_catalog_entry_names_sources() -> None:
    from dclint.model.builtin_catalog import builtin

    cat = builtin()
    for section in (cat.gpus, cat.platforms, cat.switches, cat.nics):
        for key, entry in section.items():
            assert entry.sources, key


def test_not_a_mapping() -> None:
    assert problems("- a\n- b\n") == [
        "d.yaml:1:1: a design must be a YAML mapping of sections (name, site, power, racks, ...)"
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("3.0", "expected 1 or 3, got 3.0"),
        ('"3"', "expected 1 or 3, got '3'"),
        ("true", "expected 1 or 3, got true"),
        ("2", "expected 1 or 3, got 2"),
    ],
)
def test_phases_is_exactly_1_or_3(value: str, message: str) -> None:
    head = "name: x\npower:\n  panels:\n    - {id: p1, voltage: 415 V, current_rating: 400 A, "
    assert problems(f"{head}phases: {value}}}\n") == [
        f"d.yaml:4:63: power.panels[0].phases: {message}"
    ]
    assert dclint.load_text(f"{head}phases: 3}}\n").power.panels[0].phases == 3
