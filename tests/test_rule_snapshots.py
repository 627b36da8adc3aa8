"""The text of every rule's findings on its bad examples, held against a reviewed file per rule
(tests/snapshots/<ID>.txt), as ruff snapshots its diagnostics: a message change is a visible diff.

After an intended change, regenerate and review the diff:
    DCLINT_UPDATE_SNAPSHOTS=1 pytest tests/test_rule_snapshots.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, TODAY, example_config
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

RULES = discover()
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("DCLINT_UPDATE_SNAPSHOTS") == "1"


def render(rule_id: str) -> str:
    """Every finding of `rule_id` on its bad examples, one line each, paths from the repo root."""
    folder = EXAMPLES / rule_id.lower()
    files = sorted(folder.glob("bad*.yaml"))
    result = run([str(f) for f in files], Engine(config=example_config(folder), today=TODAY))
    lines = []
    for e in result.errors if rule_id == "DCL000" else ():  # load errors: DCL000's findings
        where = Path(e.file).resolve().relative_to(ROOT).as_posix()
        lines.append(f"{where}:{e.line}:{e.column}: DCL000 [error] {e.message}")
    for f in result.findings:
        if f.rule != rule_id:
            continue
        where = Path(f.file).resolve().relative_to(ROOT).as_posix()
        lines.append(f"{where}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}")
        lines.append(f"    path: {f.path}; measured: {f.measured_text}; limit: {f.limit_text}")
        lines.append(f"    fix: {f.fix}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_findings_match_snapshot(rule_id: str) -> None:
    text = render(rule_id)
    snapshot = SNAPSHOTS / f"{rule_id}.txt"
    if UPDATE:
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot for {rule_id}: run with DCLINT_UPDATE_SNAPSHOTS=1"
    assert text == snapshot.read_text(encoding="utf-8")
