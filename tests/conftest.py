"""Shared test helpers: run the engine on a file or text and get (rule, line) pairs."""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from dclint.engine.runner import Engine, run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "rules" / "examples"
SAMPLES = ROOT / "sample_designs"
EXPECT_RE = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")
EXPECT_AT_RE = re.compile(r"#\s*expect-at:\s*(\d+)\s+([A-Z0-9, ]+)")
TODAY = date(2026, 12, 2)


def expected_marks(path: Path) -> set[tuple[str, int]]:
    """(rule, line) for every `# expect: ID[, ID]` comment in a file."""
    return set(expected_counts(path))


def expected_counts(path: Path) -> Counter[tuple[str, int]]:
    """Like expected_marks, but a multiset: `# expect: PWR001, PWR001` expects two findings."""
    out: Counter[tuple[str, int]] = Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT_RE.search(line)
        if match:
            out.update((rid.strip(), number) for rid in match.group(1).split(",") if rid.strip())
        at = EXPECT_AT_RE.search(line)
        if at:
            ids = at.group(2).split(",")
            out.update((rid.strip(), int(at.group(1))) for rid in ids if rid.strip())
    return out


def finding_counts(path: Path | str, **engine_kwargs: object) -> Counter[tuple[str, int]]:
    """(rule, line) of every finding, as a multiset: two findings on one line count twice."""
    engine = Engine(today=TODAY, **engine_kwargs)  # type: ignore[arg-type]
    result = run([str(path)], engine)
    assert not result.errors, [str(e) for e in result.errors]
    return Counter((f.rule, f.line) for f in result.findings)


def findings_of(path: Path | str, **engine_kwargs: object) -> set[tuple[str, int]]:
    """(rule, line) of every finding, as a set."""
    return set(finding_counts(path, **engine_kwargs))


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    def _write(text: str, name: str = "design.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write
