"""No text a user sees cites a document the user does not have ("the article", "the memo",
the project's working notes): rule docs, rule listings, catalog sources, `init` output, cost
assumptions and the review reports of every sample."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from conftest import SAMPLES
from dclint.cli import main
from dclint.engine.registry import discover

PRIVATE = re.compile(r"founding|\bmemo\b|memo's|DOMAIN\.md|\bthe article\b|article's", re.I)


def _private(text: str) -> list[str]:
    return sorted({line.strip() for line in text.splitlines() if PRIVATE.search(line)})


@pytest.mark.parametrize("rule_id", sorted(discover()))
def test_rule_docs(rule_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", rule_id]) == 0
    assert _private(capsys.readouterr().out) == []


def test_rule_list_and_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    catalog = (resources.files("dclint") / "data" / "catalog.yaml").read_text(encoding="utf-8")
    assert _private(capsys.readouterr().out + catalog) == []


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html", "sarif"])
def test_reports_of_the_samples(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(SAMPLES), "--format", fmt])
    assert _private(capsys.readouterr().out) == []


def test_cost_assumptions(capsys: pytest.CaptureFixture[str]) -> None:
    designs = sorted(str(p) for p in SAMPLES.glob("*.yaml") if "broken" not in p.name)
    assert main(["cost", *designs]) == 0
    assert _private(capsys.readouterr().out) == []


@pytest.mark.parametrize(
    ("platform", "racks"), [("gb200-nvl72", 8), ("dgx-h100", 4), ("dgx-b200", 4)]
)
def test_init_comments(platform: str, racks: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--platform", platform, "--racks", str(racks)]) == 0
    assert _private(capsys.readouterr().out) == []
