"""A rule's `needs` are honest: a rule that says it cannot apply to a design finds nothing in
it, on every example, sample and reference design; and each need is missing somewhere, so the
skip path is walked."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import EXAMPLES, ROOT, TODAY
from dclint.engine.applies import NEEDS
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

RULES = discover()
# the samples and reference designs in the default tier (30 designs, 56 rules skipped on some);
# the 218 rule examples, the same walk over small designs, in the integration tier
CORPORA = {
    "designs": sorted(
        [
            *(ROOT / "sample_designs").glob("*.yaml"),
            *(ROOT / "tests" / "reference_designs").glob("*.yaml"),
        ]
    ),
    "examples": EXAMPLES.glob("*/*.yaml"),
}


@pytest.mark.parametrize(
    "corpus", ["designs", pytest.param("examples", marks=pytest.mark.integration)]
)
def test_inapplicable_rules_find_nothing(corpus: str) -> None:
    result = run([str(f) for f in CORPORA[corpus]], Engine(today=TODAY))
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
