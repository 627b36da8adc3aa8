"""The built-in catalog: every figure has a public source, exact figures, design overrides."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

import dclint
from dclint.model.builtin_catalog import Catalog, builtin, builtin_raw
from dclint.model.catalog import Entry
from dclint.model.resolve import topology_of
from dclint.units import Q_, Quantity

# Words that point at documents users do not have (dclint's own notes, not public sources).
PRIVATE_SOURCES = re.compile(r"domain\.md|\bmemo\b|\barticles?\b|\bthe brief\b", re.IGNORECASE)


def _sections(cat: Catalog) -> dict[str, Mapping[str, Entry]]:
    return {
        "gpus": cat.gpus,
        "platforms": cat.platforms,
        "switches": cat.switches,
        "nics": cat.nics,
    }


def _close(q: Quantity | None, value: float, unit: str) -> bool:
    return q is not None and q.m_as(unit) == pytest.approx(value, rel=1e-9)


def test_every_entry_names_a_source_for_fields_it_writes() -> None:
    raw = builtin_raw()
    for section, entries in _sections(builtin()).items():
        for key, entry in entries.items():
            sources = entry.sources
            assert sources, f"{section}.{key} has no sources"
            fields = set(type(entry).model_fields) | {"all"}
            assert set(sources) <= fields, f"{section}.{key} sources name unknown fields"
            written = set(raw[section][key]) - {"name", "sources"}
            uncovered = written - set(sources)
            assert "all" in sources or not uncovered, f"{section}.{key}: {sorted(uncovered)}"


def test_no_source_or_comment_cites_a_private_document() -> None:
    from importlib import resources

    text = (resources.files("dclint") / "data" / "catalog.yaml").read_text(encoding="utf-8")
    assert PRIVATE_SOURCES.findall(text) == []
    assert PRIVATE_SOURCES.findall("see the memo, DOMAIN.md and the article") == [
        "memo",
        "DOMAIN.md",
        "article",
    ]


def test_a100_entries() -> None:
    gpus = builtin().gpus
    for key in ("a100-sxm", "a100-sxm-80gb"):  # a100-sxm stays the 80 GB part
        g = gpus[key]
        assert _close(g.hbm, 80, "GB") and _close(g.hbm_device, 81920, "MiB")
        assert _close(g.hbm_bandwidth, 2.039, "TB/s") and _close(g.tdp, 400, "W")
        assert _close(g.dense_flops["bf16"], 312, "TFLOPS")
        assert _close(g.nvlink_bandwidth, 600, "GB/s")
    g40 = gpus["a100-sxm-40gb"]
    assert _close(g40.hbm, 40, "GB") and _close(g40.hbm_device, 40960, "MiB")
    assert _close(g40.hbm_bandwidth, 1.555, "TB/s") and _close(g40.tdp, 400, "W")


def test_h800_is_an_h100_with_400_gbps_nvlink() -> None:
    gpus = builtin().gpus
    h800, h100 = gpus["h800-sxm"], gpus["h100-sxm"]
    assert _close(h800.nvlink_bandwidth, 400, "GB/s")
    assert _close(h100.nvlink_bandwidth, 900, "GB/s")
    assert h800.dense_flops == h100.dense_flops
    assert (h800.tdp, h800.hbm, h800.hbm_device) == (h100.tdp, h100.hbm, h100.hbm_device)


@pytest.mark.parametrize(
    ("gpu", "mib", "gib"),
    [
        ("h100-sxm", 81559, 79.647),  # the 79.6 GiB an H100 80GB shows, not 74.5 GiB
        ("a100-sxm-80gb", 81920, 80.0),
        ("a100-sxm-40gb", 40960, 40.0),
        ("h200-sxm", 143771, 140.401),
        ("b200", 183359, 179.062),
        ("gb200", 189471, 185.030),
        ("gb300", 284208, 277.547),
    ],
)
def test_device_memory_is_what_nvidia_smi_reports(gpu: str, mib: int, gib: float) -> None:
    g = builtin().gpus[gpu]
    assert g.hbm_device is not None and g.hbm_device.m_as("MiB") == mib
    assert g.hbm_capacity.m_as("GiB") == pytest.approx(gib, abs=1e-3)
    assert "nvidia-smi" in g.sources["hbm_device"]


def test_device_memory_falls_back_to_the_datasheet() -> None:
    b300 = builtin().gpus["b300"]  # no public nvidia-smi figure verified
    assert b300.hbm_device is None
    assert b300.hbm_capacity == Q_(270, "GB")


def test_dgx_a100_and_dgx_b300() -> None:
    platforms = builtin().platforms
    a100 = platforms["dgx-a100"]
    assert (a100.kind, a100.gpu, a100.gpus, a100.nvlink_domain) == ("node", "a100-sxm-80gb", 8, 8)
    assert _close(a100.max_power, 6.5, "kW") and _close(a100.power, 6.5, "kW")
    assert (a100.compute_nic, a100.compute_nics) == ("connectx-6", 8)
    assert _close(builtin().nics["connectx-6"].speed, 200, "Gb/s")
    b300 = platforms["dgx-b300"]
    assert (b300.kind, b300.gpu, b300.gpus, b300.nvlink_domain) == ("node", "b300", 8, 8)
    assert _close(b300.power, 14, "kW") and _close(b300.max_power, 14, "kW")
    assert (b300.compute_nic, b300.compute_nics) == ("connectx-8", 8)


@pytest.mark.parametrize(
    ("key", "ports", "gbps", "splits", "tbps"),
    [
        ("arista-7816r3", 576, 400, (200, 100), 230.4),
        ("minipack3", 64, 800, (400, 200), 51.2),
        ("sn5600", 64, 800, (400, 200), 51.2),
    ],
)
def test_switches_beyond_nvidia(
    key: str, ports: int, gbps: float, splits: tuple[float, ...], tbps: float
) -> None:
    sw = builtin().switches[key]
    assert sw.ports == ports
    assert sw.speeds_gbps == (gbps, splits)
    assert (sw.port_speed * sw.ports).m_as("Tb/s") == pytest.approx(tbps)


@pytest.mark.parametrize(
    ("key", "kw"),
    [
        ("hgx-h100", 10.2),
        ("dgx-h100", 10.2),
        ("dgx-h200", 10.2),
        ("dgx-a100", 6.5),
        ("dgx-b200", 14.3),
        ("dgx-b300", 14.0),
        ("gb200-nvl72", 132.0),  # 8 power shelves x 6 x 5.5 kW, N+N: 132 kW usable
        ("gb300-nvl72", 142.0),
    ],
)
def test_max_power_where_a_public_figure_exists(key: str, kw: float) -> None:
    p = builtin().platforms[key]
    assert _close(p.max_power, kw, "kW")
    assert p.max_power is not None and p.max_power >= p.power
    assert "max_power" in p.sources


def test_gb200_max_power_is_its_power_shelves_in_n_plus_n() -> None:
    shelves, psus, psu_kw = 8, 6, 5.5
    assert _close(builtin().platforms["gb200-nvl72"].max_power, shelves * psus * psu_kw / 2, "kW")


def test_platforms_without_a_public_max_power() -> None:
    assert sorted(k for k, p in builtin().platforms.items() if p.max_power is None) == ["hgx-b300"]


def test_liquid_inlet_limit_only_where_sourced() -> None:
    platforms = builtin().platforms
    limits = {k: p.liquid_inlet_max for k, p in platforms.items() if p.liquid_inlet_max is not None}
    assert sorted(limits) == ["gb200-nvl72", "gb300-nvl72"]
    for key, limit in limits.items():
        assert _close(limit, 45, "degC")
        assert "liquid_inlet_max" in platforms[key].sources
    # air-cooled nodes carry no liquid limit
    assert all(p.liquid_inlet_max is None for p in platforms.values() if p.liquid_fraction == 0)


DESIGN = """name: t
racks:
  - {id: r1, platform: dgx-a100, nodes: 4}
catalog:
  gpus:
    h100-sxm: {hbm_device: 80 GiB}
  platforms:
    dgx-a100: {power: 5.2 kW}
  switches:
    minipack3: {ports: 128, port_speed: 400 Gb/s, split_speeds: [200 Gb/s]}
"""


def test_a_design_overrides_fields_and_keeps_the_rest() -> None:
    design = dclint.load_text(DESIGN, "d.yaml")
    cat = topology_of(design).catalog
    assert cat.gpus["h100-sxm"].hbm_capacity == Q_(80, "GiB")
    assert cat.gpus["h100-sxm"].hbm == Q_(80, "GB")  # untouched fields keep the built-in figure
    assert topology_of(design).racks[0].it_load.m_as("kW") == pytest.approx(4 * 5.2)
    assert cat.platforms["dgx-a100"].max_power == Q_(6.5, "kW")
    assert cat.switches["minipack3"].speeds_gbps == (400.0, (200.0,))
    assert cat.switches["minipack3"].ports == 128
    # the built-in catalog itself is unchanged
    assert builtin().gpus["h100-sxm"].hbm_device == Q_(81559, "MiB")


def test_an_overridden_figure_cites_the_design_not_the_built_in_source() -> None:
    text = (
        "name: t\ncatalog:\n  platforms:\n    gb200-nvl72:\n      liquid_inlet_max: 40 degC\n"
        "      max_power: 140 kW\n      sources: {max_power: vendor quote 2026-11}\n"
    )
    p = topology_of(dclint.load_text(text, "d.yaml")).catalog.platforms["gb200-nvl72"]
    assert p.liquid_inlet_max == Q_(40, "degC")
    assert p.sources["liquid_inlet_max"] == "the design's catalog section"
    assert p.sources["max_power"] == "vendor quote 2026-11"
    assert p.sources["power"] == builtin().platforms["gb200-nvl72"].sources["power"]


def test_a_design_hbm_alone_is_not_shadowed_by_the_built_in_device_figure() -> None:
    text = "name: t\ncatalog:\n  gpus:\n    h100-sxm: {hbm: 94 GB}\n"
    g = topology_of(dclint.load_text(text, "d.yaml")).catalog.gpus["h100-sxm"]
    assert g.hbm_device is None and "hbm_device" not in g.sources
    assert g.hbm_capacity == Q_(94, "GB")
    both = "name: t\ncatalog:\n  gpus:\n    h100-sxm: {hbm: 94 GB, hbm_device: 95830 MiB}\n"
    g = topology_of(dclint.load_text(both, "d.yaml")).catalog.gpus["h100-sxm"]
    assert g.hbm_capacity == Q_(95830, "MiB")
