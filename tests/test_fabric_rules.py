"""Fabric rules' figures (NET001, NET005, NET007-NET009) with exact numbers, every option of
every NET rule changing a verdict, and per-tier limit keys checked against the design."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, TODAY
from dclint.cli import main
from dclint.engine.config import Config
from dclint.engine.findings import Finding
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run
from dclint.errors import ConfigError


def _findings(path: Path, rule: str, **settings: Any) -> list[Finding]:
    config = Config(rule_settings={rule: settings}) if settings else None
    result = run([str(path)], Engine(config=config, today=TODAY))
    assert not result.errors
    return [f for f in result.findings if f.rule == rule]


def _figures(path: Path, rule: str, **settings: Any) -> list[tuple[int, str | None, str | None]]:
    return [(f.line, f.measured_text, f.limit_text) for f in _findings(path, rule, **settings)]


def test_net001_measures_the_capacity_that_binds() -> None:
    """16 x 32 leaf uplinks under 4 x 32 spine downlinks: 4.00:1, 204.8 Tb/s vs 51.2 Tb/s."""
    (finding,) = _findings(EXAMPLES / "net001" / "bad-unreconciled.yaml", "NET001")
    assert (finding.line, finding.measured_text, finding.limit_text) == (16, "4.00:1", "1:1")
    assert "204.8 Tb/s down vs 51.2 Tb/s up" in finding.message


def test_net001_counts_storage_endpoints() -> None:
    """240 GPU NICs + 32 storage ports on 8 x 30 uplinks: 272:240 = 1.13:1; without the
    storage nodes the same tiers pass (good-spare-ports.yaml)."""
    assert _figures(EXAMPLES / "net001" / "bad-endpoints.yaml", "NET001") == [(19, "1.13:1", "1:1")]
    assert _figures(EXAMPLES / "net001" / "good-spare-ports.yaml", "NET001") == []


def test_net001_measures_the_fullest_leaf() -> None:
    """241 endpoint ports on 8 leaves put ceil(241 / 8) = 31 on one, against its 30 uplinks:
    31:30 = 1.03:1, though the tier averages 241:240."""
    (finding,) = _findings(EXAMPLES / "net001" / "bad-fullest-leaf.yaml", "NET001")
    assert (finding.line, finding.measured_text, finding.limit_text) == (20, "1.03:1", "1:1")
    assert "fullest switch, 12.4 Tb/s down vs 12 Tb/s up; the tier averages 1.00:1, 96.4 Tb/s" in (
        finding.message
    )


def test_net008_figures() -> None:
    assert _figures(EXAMPLES / "net008" / "bad.yaml", "NET008") == [
        (12, "512", "128"),
        (17, "512", "576"),
    ]
    assert _figures(EXAMPLES / "net008" / "bad-three-tier.yaml", "NET008") == [(12, "512", "448")]


def test_net009_figures() -> None:
    """1,024 GPUs on 512 leaf downlinks; 512 GPUs + 8 x 2 storage + 2 UFM = 530 on 512."""
    assert _figures(EXAMPLES / "net009" / "bad.yaml", "NET009") == [
        (12, "1,024", "512"),
        (21, "530", "512"),
    ]


def test_net005_counts_non_gpu_endpoints() -> None:
    """2,040 GPUs + 16 storage ports = 2,056 > 64^2/2 = 2,048."""
    assert _figures(EXAMPLES / "net005" / "bad-endpoints.yaml", "NET005") == [
        (16, "2,056", "2,048")
    ]


ACCEPTED_3_TO_1 = """
name: leaf-3to1
racks:
  - id: r[001-096]
    platform: hgx-h100
    nodes: 4
fabrics:
  - id: compute
    kind: compute
    tiers:
      - {name: leaf, switch: qm9700, count: 64, downlinks: 48, uplinks: 16}
      - {name: spine, switch: qm9700, count: 16, downlinks: 64}
"""


def test_net005_takes_the_ratio_net001_accepts(write) -> None:  # type: ignore[no-untyped-def]
    """3,072 GPUs on 64 leaves of 48 down / 16 up under 16 radix-64 spines (64 x 16 = 16 x 64
    links): at NET001's 1:1 the leaf is 3.00:1 and two radix-64 tiers hold 64 x 32 = 2,048;
    with the leaf accepted at 3:1 a leaf gives 48 of its 64 ports down, 64 x 48 = 3,072 hold,
    and both rules pass."""
    path = write(ACCEPTED_3_TO_1)
    assert _figures(path, "NET005") == [(10, "3,072", "2,048")]
    assert _figures(path, "NET001") == [(11, "3.00:1", "1:1")]
    config = Config(rule_settings={"NET001": {"tier_limits": {"compute.leaf": 3.0}}})
    found = run([str(path)], Engine(config=config, today=TODAY)).findings
    assert [f.rule for f in found if f.rule.startswith("NET")] == []


def test_net005_bound_from_each_tiers_radix() -> None:
    """Radix-64 leaves under 576-port chassis spines: 576 x 32 = 18,432 endpoints, exactly
    the example's; one endpoint more is over it."""
    from dclint.calc.fabric_graph import clos_endpoints

    assert clos_endpoints([64, 576], [1.0]) == 18432
    assert clos_endpoints([64, 64], [1.0]) == 2048
    assert clos_endpoints([64, 64, 64], [1.0, 1.0]) == 65536
    assert clos_endpoints([64, 64], [3.0]) == 3072
    assert clos_endpoints([144, 144], [1.0]) == 10368
    assert _figures(EXAMPLES / "net005" / "good-chassis-spine.yaml", "NET005") == []


def test_net007_applies_to_transceivers() -> None:
    found = _findings(EXAMPLES / "net007" / "bad.yaml", "NET007")
    transceiver = [(f.line, f.limit_text) for f in found if "(transceiver)" in f.message]
    assert transceiver == [(38, "48 h"), (38, "1e-06"), (46, "48 h")]


# Issue 21: each option of each NET rule changes a verdict when set, so ignoring it fails.


def test_every_net_option_is_covered_here() -> None:
    options = {
        f"{rid}.{name}"
        for rid, cls in discover().items()
        if rid.startswith("NET")
        for name in cls.options
    }
    assert options == {
        "NET001.limit",
        "NET001.tier_limits",
        "NET007.min_burn_in",
        "NET007.max_symbol_error_alert",
        "NET011.max_lids",
        "NET012.dac_reach_400g",
        "NET012.dac_reach_800g",
        "NET012.optics_reach",
    }


def test_net012_reach_options() -> None:
    """The good example runs every medium at its reach; a shorter reach fails that tier."""
    good = EXAMPLES / "net012" / "good.yaml"
    assert _findings(good, "NET012") == []
    found = _findings(good, "NET012", dac_reach_400g="2.9 m")
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [(14, "3 m", "2.9 m")]
    found = _findings(good, "NET012", dac_reach_800g="1.9 m")
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [(26, "2 m", "1.9 m")]
    found = _findings(good, "NET012", optics_reach={"sr": "40 m", "dr": "500 m", "fr": "1 km"})
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [
        (16, "50 m", "40 m"),
        (35, "2000 m", "1000 m"),
    ]


def test_net011_max_lids() -> None:
    """The 65,536-GPU fabric split in 2 needs 35,328 LIDs a subnet: within 49,151, not 35,000."""
    good = EXAMPLES / "net011" / "good.yaml"
    assert _findings(good, "NET011") == []
    found = _findings(good, "NET011", max_lids=35_000)
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [(11, "35,328", "35,000")]


def test_net001_limit() -> None:
    bad = EXAMPLES / "net001" / "bad.yaml"  # 2.00:1 at line 16, 1.03:1 at line 28
    assert [f.line for f in _findings(bad, "NET001")] == [16, 28]
    assert [f.line for f in _findings(bad, "NET001", limit=1.05)] == [16]
    assert _findings(bad, "NET001", limit=2.0) == []


def test_net001_tier_limits() -> None:
    bad = EXAMPLES / "net001" / "bad.yaml"
    found = _findings(bad, "NET001", tier_limits={"compute-b.leaf": 1.05})
    assert [(f.line, f.limit_text) for f in found] == [(16, "1:1")]
    found = _findings(bad, "NET001", limit=1.05, tier_limits={"compute-b.leaf": 1.0})
    assert [(f.line, f.limit_text) for f in found] == [(16, "1.05:1"), (28, "1:1")]


def test_net007_min_burn_in() -> None:
    good = EXAMPLES / "net007" / "good.yaml"  # 48 h on compute and compute-tiered, 3 days
    assert _findings(good, "NET007") == []
    found = _findings(good, "NET007", min_burn_in="49 h")
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [
        (16, "48 h", "49 h"),
        (33, "48 h", "49 h"),
    ]


def test_net007_max_symbol_error_alert() -> None:
    good = EXAMPLES / "net007" / "good.yaml"  # 1e-6 on compute and compute-tiered, 1e-7
    found = _findings(good, "NET007", max_symbol_error_alert=1e-7)
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [
        (17, "1e-06", "1e-07"),
        (34, "1e-06", "1e-07"),
    ]


# Per-tier limit keys must name a checked tier.

THREE_TIER = EXAMPLES / "net008" / "good.yaml"  # compute: leaf, spine; compute-3: + core


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("compute-3.core", "'compute-3.core' names a top tier (no uplinks, never checked)"),
        ("compute.spine", "'compute.spine' names a top tier (no uplinks, never checked)"),
        ("compute.lef", "'compute.lef' names no tier of a compute fabric"),
        ("frontend.leaf", "'frontend.leaf' names no tier of a compute fabric"),
    ],
)
def test_tier_limits_key_must_name_a_checked_tier(key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        _findings(THREE_TIER, "NET001", tier_limits={key: 7.0})
    assert str(info.value) == (
        f"command line: option NET001.tier_limits: {problem}; valid keys: compute.leaf, "
        f"compute-3.leaf, compute-3.spine (in {THREE_TIER})"
    )


def test_tier_limits_valid_key_is_accepted() -> None:
    assert _findings(THREE_TIER, "NET001", tier_limits={"compute-3.spine": 7.0}) == []


def test_tier_limits_error_exits_2_naming_the_config_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(THREE_TIER.read_text(encoding="utf-8"), encoding="utf-8")
    config = tmp_path / ".dclint.yaml"
    config.write_text('NET001:\n  tier_limits:\n    "compute-3.core": 7.0\n', encoding="utf-8")
    assert main(["check", str(design)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{config}:2:3: option NET001.tier_limits: 'compute-3.core' names a top tier" in err
