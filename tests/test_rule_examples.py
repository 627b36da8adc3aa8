"""Every discovered rule, walked through its own good and bad example designs.

Examples live in rules/examples/<rule id, lower case>/: `good*.yaml` must give no finding of
that rule; `bad*.yaml` must give exactly the (rule, line) pairs its `# expect: ID` comments
mark, counted as a multiset (for every rule, so a bad example cannot trigger unrelated rules
by accident).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from conftest import EXAMPLES, TODAY, expected_counts, finding_counts
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

RULES = discover()
LOAD_ERROR = "DCL000"  # documented as a rule; reported by the loader
SECTIONS = ("## What it does", "## Why it matters", "## Example", "## Fix")


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_rule_has_doc_sections(rule_id: str) -> None:
    doc = RULES[rule_id].doc()
    missing = [s for s in SECTIONS if s not in doc]
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
    path = EXAMPLES / rule_id.lower() / name
    if rule_id == LOAD_ERROR and name.startswith("bad"):  # the loader's errors, not findings
        errors = run([str(path)], Engine(today=TODAY)).errors
        assert Counter((LOAD_ERROR, e.line) for e in errors) == expected_counts(path)
        return
    found = finding_counts(path)
    if name.startswith("good"):
        assert {f for f in found if f[0] == rule_id} == set()
        assert found == expected_counts(path)
    else:
        expected = expected_counts(path)
        assert any(rule == rule_id for rule, _ in expected), f"{name} marks no {rule_id}"
        assert found == expected


def test_rule_ids_and_names_are_unique_and_well_formed() -> None:
    names = [cls.name for cls in RULES.values()]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[A-Z]{3}\d{3}", rid) for rid in RULES)
