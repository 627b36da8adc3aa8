"""Every discovered rule, walked through its own good and bad example designs.

Examples live in rules/<family>/examples/<rule id, lower case>/: `good*.yaml` must give no
finding of that rule; `bad*.yaml` must give exactly the (rule, line) pairs its `# expect: ID`
comments mark, counted as a multiset (for every rule, so a bad example cannot trigger unrelated
rules by accident).
"""

from __future__ import annotations

import re

import pytest

from conftest import EXAMPLES, TODAY, example_config
from dclint.engine.registry import discover
from dclint.testing import DOC_SECTIONS, expected_findings, found_findings

RULES = discover()


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_rule_has_doc_sections(rule_id: str) -> None:
    doc = RULES[rule_id].doc()
    missing = [s for s in DOC_SECTIONS if s not in doc]
    assert not missing, f"{rule_id} doc lacks {missing}"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_rule_has_examples(rule_id: str) -> None:
    folder = EXAMPLES / rule_id.lower()
    assert sorted(folder.glob("good*.yaml")), f"{rule_id}: no good example in {folder}"
    assert sorted(folder.glob("bad*.yaml")), f"{rule_id}: no bad example in {folder}"


def _cases() -> list[tuple[str, str]]:
    return [
        (rid, p.name)
        for rid in sorted(RULES)
        for p in sorted((EXAMPLES / rid.lower()).glob("*.yaml"))
    ]


@pytest.mark.parametrize(("rule_id", "name"), _cases())
def test_example(rule_id: str, name: str) -> None:
    """The checker a plug-in's tests use (dclint.testing): load errors count as DCL000."""
    path = EXAMPLES / rule_id.lower() / name
    found = found_findings(path, today=TODAY, config=example_config(path.parent))
    if name.startswith("good"):
        assert {f for f in found if f[0] == rule_id} == set()
        assert found == expected_findings(path)
    else:
        expected = expected_findings(path)
        assert any(rule == rule_id for rule, _ in expected), f"{name} marks no {rule_id}"
        assert found == expected


def test_rule_ids_and_names_are_unique_and_well_formed() -> None:
    names = [cls.name for cls in RULES.values()]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[A-Z]{3}\d{3}", rid) for rid in RULES)  # built-in: 3 letters
