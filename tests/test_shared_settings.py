"""Rules own the settings that code outside the rules reads (#26 item 4).

A rack's power limit, a feed's headroom, a tier's accepted oversubscription, the storage read
demand and the GPU memory reserve are options of the rules that check them; the summary,
`capacity`, `init`, `plan`, the review and the editor's hover read them by concept through
`dclint.engine.shared`, never by rule id and never as a restated default.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, SAMPLES
from dclint.cli import main
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Rule
from dclint.engine.shared import shared_settings
from dclint.errors import ConfigError

SU = str(SAMPLES / "gb200-superpod-su.yaml")
# a built-in rule id written as a string literal ("PWR001"); DCL ids are the engine's own
_RULE_ID = re.compile(r"[\"'](?:PWR|NET|CLG|STO|PAR|CST|STR)\d{3}[\"']")


def test_no_rule_id_is_looked_up_outside_the_rule_pack() -> None:
    found = []
    for path in sorted((ROOT / "dclint").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if _RULE_ID.search(code):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_defaults_come_from_the_owning_rules_options() -> None:
    shared = shared_settings(default_options())
    assert shared.rack_power_limit.m_as("kW") == 120.0
    assert shared.rack_limit("gb200-nvl72").m_as("kW") == 120.0
    assert shared.feed_headroom.m_as("kW") == 80.0
    assert shared.feeds_carry_design_load is False
    assert shared.oversubscription_limit == 1.0
    assert shared.storage_read_factor == 3.0
    assert shared.memory_reserve.m_as("") == pytest.approx(0.10)
    assert set(shared.storage_demand) == set(discover(())["STO001"].options)


def test_a_configured_option_reaches_the_shared_setting() -> None:
    options = default_options()
    options["PWR001"] = {
        **options["PWR001"],
        "platform_limits": {"dgx-h100": options["PWR001"]["limit"] / 3},
    }
    options["NET001"] = {**options["NET001"], "tier_limits": {"compute.spine": 2.0}}
    shared = shared_settings(options)
    assert shared.rack_limit("dgx-h100").m_as("kW") == pytest.approx(40.0)
    assert shared.rack_limit("gb200-nvl72").m_as("kW") == 120.0
    assert shared.tier_limit("compute", "spine") == 2.0
    assert shared.tier_limit("compute", "leaf") == 1.0


def test_a_concept_two_rules_declare_is_a_config_error() -> None:
    rules = dict(discover(()))

    class Twin(Rule):
        id = "X900"
        name = "twin"
        shares = {"feed_headroom": "headroom"}

    rules["X900"] = Twin
    with pytest.raises(
        ConfigError, match="PWR002 and X900 both declare the shared setting feed_headroom"
    ):
        shared_settings(default_options(), rules)


def test_a_concept_no_rule_declares_is_a_config_error() -> None:
    rules = {rid: cls for rid, cls in discover(()).items() if rid != "PAR005"}
    with pytest.raises(ConfigError, match="no rule declares the shared setting memory_reserve"):
        shared_settings(default_options(), rules)


def test_capacity_states_the_configured_storage_factor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / ".dclint.yaml"
    config.write_text("STO001: {factor: 4}\n", encoding="utf-8")
    assert (
        main(["capacity", SU, "--add", "gb200-nvl72", "--config", str(config), "--format", "json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    storage = [lim for lim in data["limits"] if lim["subject"] == "workloads"]
    # it said "3x" whatever the config said
    assert [lim["detail"] for lim in storage] == [
        "4x the workloads' read demand; more racks add no demand"
    ]
