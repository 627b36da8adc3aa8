"""Inline suppressions: `# dclint: ignore[NET001] reason` on or just above the offending line.

A reason is required. `until=YYYY-MM-DD` after the ids makes the suppression lapse after that
date. Suppressions that suppress nothing, lack a reason, name an unknown rule or have lapsed are
reported (DCL001-DCL004), so stale ones do not pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

__all__ = ["Suppression", "scan"]

_RE = re.compile(
    r"#\s*dclint:\s*ignore\[(?P<ids>[^\]]*)\](?:\s+until=(?P<until>\S+))?(?P<reason>.*)$"
)


@dataclass
class Suppression:
    line: int  # the line of the comment
    column: int
    applies_to: tuple[int, ...]  # lines whose findings it suppresses
    ids: tuple[str, ...]
    reason: str
    until: date | None
    bad_until: str | None = None
    used: set[str] = field(default_factory=set)

    def covers(self, rule_id: str, line: int, today: date) -> bool:
        if line not in self.applies_to or self.expired(today):
            return False
        return any(rule_id == i or (i and rule_id.startswith(i)) for i in self.ids)

    def expired(self, today: date) -> bool:
        return self.until is not None and today > self.until


def scan(text: str) -> list[Suppression]:
    """Every suppression comment in a design's text (cheap when there are none)."""
    if "dclint:" not in text:
        return []
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "dclint:" not in line:
            continue
        match = _RE.search(line)
        if match is None or _inside_quotes(line, match.start()):
            continue
        ids = tuple(i.strip() for i in match.group("ids").split(",") if i.strip())
        until_text = match.group("until")
        until, bad = None, None
        if until_text is not None:
            try:
                until = date.fromisoformat(until_text)
            except ValueError:
                bad = until_text
        own_line = line[: match.start()].strip() == ""
        applies = (number, number + 1) if own_line else (number,)
        reason = match.group("reason").strip()
        out.append(Suppression(number, match.start() + 1, applies, ids, reason, until, bad))
    return out


def _inside_quotes(line: str, index: int) -> bool:
    head = line[:index]
    return head.count('"') % 2 == 1 or head.count("'") % 2 == 1
