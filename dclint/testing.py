"""The example checker the built-in rules use, for a plug-in author's tests.

A rule's examples live in a folder of YAML designs: each `good*.yaml` must give no finding of
the rule, each `bad*.yaml` exactly the findings its `# expect: ID` comments mark (on the
finding's line; `# expect: ID, ID` for two on one line; `# expect-at: LINE ID` for a finding
on another line). Findings of every rule count, as a multiset, so an example cannot trigger
another rule by accident. In a plug-in's tests::

    from dclint.testing import check_examples
    from dclint_myrules.xpw001_rack_too_heavy import RackTooHeavy

    def test_examples() -> None:
        check_examples(RackTooHeavy, Path(__file__).parent.parent / "examples" / "xpw001")

`check_examples` raises AssertionError naming each example that differs; `example_problems`
returns those differences for a test that words its own failure.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

from dclint.engine.config import Config
from dclint.engine.rule import Rule
from dclint.engine.runner import Engine, run
from dclint.errors import LOAD_ERROR_ID

__all__ = [
    "DOC_SECTIONS",
    "check_doc",
    "check_examples",
    "example_problems",
    "expected_findings",
    "found_findings",
]

DOC_SECTIONS = ("## What it does", "## Why it matters", "## Example", "## Fix")
_EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")
_EXPECT_AT = re.compile(r"#\s*expect-at:\s*(\d+)\s+([A-Z0-9, ]+)")
LOAD_ERROR = LOAD_ERROR_ID  # the loader's errors, documented as a rule


def expected_findings(path: Path | str) -> Counter[tuple[str, int]]:
    """(rule, line) of every finding an example's comments mark, as a multiset."""
    out: Counter[tuple[str, int]] = Counter()
    text = Path(path).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            out.update((rid.strip(), number) for rid in match.group(1).split(",") if rid.strip())
        at = _EXPECT_AT.search(line)
        if at:
            ids = at.group(2).split(",")
            out.update((rid.strip(), int(at.group(1))) for rid in ids if rid.strip())
    return out


def _engine(rule: type[Rule] | None, today: date | None, config: Config | None) -> Engine:
    engine = Engine(config=config, today=today or date.today())
    if rule is not None and rule.id not in engine.rules:  # a rule not installed (yet)
        engine.rules[rule.id] = rule
    return engine


def found_findings(
    path: Path | str,
    rule: type[Rule] | None = None,
    *,
    today: date | None = None,
    config: Config | None = None,
) -> Counter[tuple[str, int]]:
    """(rule, line) of every finding of every rule on one design, as a multiset; load errors
    count as DCL000 at their line. `rule` is added to the installed rules if it is not one."""
    result = run([str(path)], _engine(rule, today, config))
    found = Counter((f.rule, f.line) for f in result.findings)
    found.update((LOAD_ERROR, e.line) for e in result.errors)
    return found


def example_problems(
    rule: type[Rule],
    folder: Path | str,
    *,
    today: date | None = None,
    config: Config | None = None,
) -> list[str]:
    """What differs between `rule`'s examples in `folder` and their marks, one line each;
    [] when every example holds (and there is at least one good and one bad example)."""
    folder = Path(folder)
    problems = []
    examples = sorted(folder.glob("*.yaml"))
    for kind in ("good", "bad"):
        if not any(p.name.startswith(kind) for p in examples):
            problems.append(f"{rule.id}: no {kind}*.yaml example in {folder}")
    for path in examples:
        found = found_findings(path, rule, today=today, config=config)
        expected = expected_findings(path)
        if path.name.startswith("bad") and not any(r == rule.id for r, _ in expected):
            problems.append(f"{path.name}: marks no {rule.id} finding")
        if found != expected:
            missing = sorted((expected - found).elements())
            extra = sorted((found - expected).elements())
            problems.append(f"{path.name}: missing {missing}, unexpected {extra}")
    return problems


def check_examples(
    rule: type[Rule],
    folder: Path | str,
    *,
    today: date | None = None,
    config: Config | None = None,
) -> None:
    """Assert that `rule`'s examples in `folder` give exactly the findings they mark."""
    problems = example_problems(rule, folder, today=today, config=config)
    assert not problems, "\n".join(problems)


def check_doc(rule: type[Rule]) -> None:
    """Assert that the rule's doc has every section `dclint explain` prints."""
    missing = [s for s in DOC_SECTIONS if s not in rule.doc()]
    assert not missing, f"{rule.id} doc lacks {missing}"
