"""Policies as rules: each compiled policy becomes a Rule class, so its findings are located,
suppressed, baselined, waived and printed exactly as a built-in rule's are, and `dclint rules`
and `dclint explain` list it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from dclint.engine.rule import Context, Rule, Violation
from dclint.policy.format import Policy

__all__ = ["PolicyRule", "rule_of"]


class PolicyRule(Rule):
    """A rule judged by a declarative policy (dclint.policy)."""

    policy: ClassVar[Policy]

    def check(self, design: Any, ctx: Context) -> Iterator[Violation]:
        from dclint.policy.elements import context_for
        from dclint.policy.evaluate import judge

        yield from judge(self.policy, context_for(design))

    @classmethod
    def doc(cls) -> str:
        return policy_doc(cls.policy)

    @classmethod
    def summary(cls) -> str:
        p = cls.policy
        first = p.doc.strip().splitlines()[0] if p.doc.strip() else ""
        return first or f"site policy on {p.kind} ({p.file})"


def rule_of(policy: Policy) -> type[PolicyRule]:
    """A Rule class judging `policy`."""
    cls = type(
        f"Policy{policy.id}",
        (PolicyRule,),
        {
            "id": policy.id,
            "name": policy.name,
            "severity": policy.severity,
            "tags": policy.tags,
            "options": {},
            "policy": policy,
            "origin": f"policy {policy.where_text}",
            "covers": ("client.standard",),  # the review's coverage map: the client's standard
            "__module__": __name__,
        },
    )
    return cls


def policy_doc(p: Policy) -> str:
    """The doc `dclint explain` prints for a policy: its words, where it is written, and what
    it judges."""
    from dclint.policy.elements import KINDS

    doc = p.doc.strip() or f"A site policy on {p.kind}."
    lines = [
        doc,
        "",
        "## Where it is written",
        f"{p.where_text} (a site policy, the client's standard: not one of dclint's rules)",
        "",
        "## What it judges",
        f"Every element of `{p.kind}` ({KINDS[p.kind].doc.lower()})"
        + (" that its `where` selects" if p.where is not None else "")
        + ".",
    ]
    if p.fix.strip():
        lines += ["", "## Fix", p.fix.strip()]
    if p.examples:
        passing = sum(e.outcome == "pass" for e in p.examples)
        lines += [
            "",
            "## Examples",
            f"{passing} passing and {len(p.examples) - passing} failing "
            "example(s): run `dclint policies test` to check them.",
        ]
    return "\n".join(lines)
