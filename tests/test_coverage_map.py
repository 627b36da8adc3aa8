"""Each built-in rule declares what its findings risk (the review's ranking) and the review
topics it checks (the coverage map): the map is built from those declarations alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dclint.cli import main
from dclint.engine.coverage import CONSEQUENCES, TOPICS, consequence_of, coverage
from dclint.engine.registry import discover


def test_every_builtin_rule_declares_its_consequence_and_topics() -> None:
    rules = discover(())
    keys = {c.key for c in CONSEQUENCES}
    topics = {t.key for t in TOPICS}
    for rule_id, cls in rules.items():
        assert cls.consequence in keys, rule_id
        assert set(cls.covers) <= topics, rule_id
        assert cls.covers or cls.id.startswith("DCL"), rule_id  # meta rules check no topic


def test_a_plugin_rule_without_a_declaration_ranks_with_capacity() -> None:
    class Plain:
        consequence = ""

    assert consequence_of(Plain) == (3, "not declared by the rule")
    assert consequence_of(None) == (3, "not declared by the rule")


def test_the_map_names_what_is_not_checked(capsys: pytest.CaptureFixture[str]) -> None:
    rows = coverage(discover(()))
    status = {r.topic.key: r.status for r in rows}
    assert [k for k, v in status.items() if v == "not checked"] == [
        "uptime.fuel",
        "tia942.pathways",
        "tia942.fire",
        "tia942.security",
        "phase.pdu",
    ]
    assert main(["rules", "--coverage", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    panel = next(x for x in listed if x["topic"] == "nec.continuous")
    assert panel["rules"] == [
        {"id": "PWR003", "name": "feed-overloaded"},
        {"id": "PWR008", "name": "panel-overloaded"},
    ]
    assert panel["status"] == "checked"


def test_site_policies_are_the_clients_standard_in_the_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = Path(__file__).resolve().parent.parent / "docs" / "policy-packs" / "dgx-superpod.yaml"
    config = tmp_path / "c.yaml"
    config.write_text(f'policies: ["{pack}"]\n', encoding="utf-8")
    assert main(["rules", "--coverage", "--format", "json", "--config", str(config)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[-1]["standard"] == "the client's standard"
    assert [r["id"] for r in listed[-1]["rules"]] == ["SPOD001", "SPOD002", "SPOD003", "SPOD004"]
    assert main(["rules", "--coverage", "--format", "json"]) == 0  # no policies: no such row
    assert all(x["topic"] != "client.standard" for x in json.loads(capsys.readouterr().out))
