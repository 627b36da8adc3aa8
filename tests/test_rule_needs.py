"""A rule's `needs` are honest: a rule that says it cannot apply to a design finds nothing in
it, on every example, sample and reference design; and each need is missing somewhere, so the
skip path is walked."""

from __future__ import annotations

from collections import Counter

from conftest import EXAMPLES, ROOT, TODAY
from dclint.engine.applies import NEEDS
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

RULES = discover()
FILES = sorted(
    [
        *EXAMPLES.glob("*/*.yaml"),
        *(ROOT / "sample_designs").glob("*.yaml"),
        *(ROOT / "tests" / "reference_designs").glob("*.yaml"),
    ]
)


def test_inapplicable_rules_find_nothing() -> None:
    result = run([str(f) for f in FILES], Engine(today=TODAY))
    wrong, skipped = [], Counter[str]()
    for d in result.designs:
        if d.design is None:
            continue
        found = {f.rule for f in d.findings}
        for rid, cls in RULES.items():
            why = cls.inapplicable(d.design)
            if why:
                skipped[rid] += 1
                if rid in found:
                    wrong.append(f"{rid} says '{why}' but finds something in {d.file}")
    assert wrong == []
    assert len(skipped) >= 30  # most rules meet a design they do not apply to


def test_every_need_is_named_by_a_rule() -> None:
    named = {n for cls in RULES.values() for n in cls.needs}
    assert named == set(NEEDS)
