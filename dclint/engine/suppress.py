"""Inline suppressions: `# dclint: ignore[NET001] reason` on or just above the offending line.

A reason is required. `until=YYYY-MM-DD` after the ids makes the suppression lapse after that
date. Suppressions that suppress nothing, lack a reason, name an unknown rule or have lapsed are
reported (DCL001-DCL004), so stale ones do not pile up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from typing import NamedTuple

from dclint.engine.config import Config, selected
from dclint.engine.findings import Finding, Waiver
from dclint.engine.rule import Change, Rule
from dclint.model.source import Source

__all__ = [
    "EXPIRED",
    "NO_REASON",
    "SUPPRESSION_IDS",
    "UNKNOWN",
    "UNUSED",
    "Suppression",
    "SuppressionIds",
    "apply_suppressions",
    "scan",
]


@cache
def _comment() -> re.Pattern[str]:
    """A suppression comment (compiled on first use: most designs have none)."""
    return re.compile(
        r"#\s*dclint:\s*ignore\[(?P<ids>[^\]]*)\](?:\s+until=(?P<until>\S+))?(?P<reason>.*)$"
    )


@dataclass
class Suppression:
    """A `# dclint: ignore[...]` comment: where it is, the lines and rule ids it covers, why,
    until when, and the rule ids it was used for."""

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
        match = _comment().search(line)
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


class SuppressionIds(NamedTuple):
    """The ids of the findings the engine itself reports on suppression comments, spelled here
    once: the rules that document them (rules/meta/) take their ids from here through
    dclint.api, as DesignLoadError takes LOAD_ERROR_ID."""

    unused: str
    no_reason: str
    unknown: str
    expired: str


SUPPRESSION_IDS = SuppressionIds("DCL001", "DCL002", "DCL003", "DCL004")
UNUSED, NO_REASON, UNKNOWN, EXPIRED = SUPPRESSION_IDS


def apply_suppressions(
    raw: list[Finding],
    source: Source,
    config: Config,
    file: str,
    rules: dict[str, type[Rule]],
    today: date,
) -> tuple[list[Finding], list[Waiver]]:
    """The findings no suppression comment covers, sorted, plus the DCL001-DCL004 findings
    about the comments themselves; and the suppressed findings, each with its comment."""
    # suppression comments of the design and of every file it includes, by (file, line)
    texts = {source.file: source.text, **source.texts}
    comments = {name: found for name, text in texts.items() if (found := scan(text))}
    if not comments:
        return sorted(raw), []
    kept: list[Finding] = []
    waived: list[Waiver] = []
    by_line: dict[tuple[str, int], list[Suppression]] = {}
    for name, found in comments.items():
        for s in found:
            for line in s.applies_to:
                by_line.setdefault((name, line), []).append(s)
    for finding in raw:
        hit = next(
            (
                s
                for s in by_line.get((finding.file, finding.line), ())
                if s.reason and s.bad_until is None and s.covers(finding.rule, finding.line, today)
            ),
            None,
        )
        if hit is None:
            kept.append(finding)
        else:
            hit.used.add(finding.rule)
            where = f"{finding.file}:{hit.line}"
            waived.append(Waiver(finding, "inline", hit.reason, where, hit.until))
    for name, found in comments.items():
        kept.extend(_meta(found, name, config, file, rules, today, texts[name]))
    return sorted(kept), sorted(waived, key=lambda w: w.finding)


def _meta(
    comments: list[Suppression],
    where: str,
    config: Config,
    file: str,
    rules: dict[str, type[Rule]],
    today: date,
    text: str = "",
) -> list[Finding]:
    """DCL001-DCL004 findings for the suppression comments of one file: one for a comment's
    defect, or one per id of it that suppresses nothing (as ruff's RUF100 names each code)."""
    findings = []
    lines = text.splitlines()
    for s in comments:
        verdicts = _verdicts(s, rules, today)
        for rid, message, whole in verdicts:
            # a stale comment is removed whole, an idle id of a used list from the list (safe)
            if whole:
                fix = _removal(s, lines, rid) if rid in (UNUSED, EXPIRED) else ()
            else:
                fix = _drop_ids(s, lines)
            finding = _meta_finding(s, rid, message, where, config, file, rules, fix)
            if finding is not None:
                findings.append(finding)
    return findings


def _meta_finding(
    s: Suppression,
    rid: str,
    message: str,
    where: str,
    config: Config,
    file: str,
    rules: dict[str, type[Rule]],
    changes: tuple[Change, ...] = (),
) -> Finding | None:
    cls = rules.get(rid)
    if cls is None or not selected(rid, config, file):
        return None
    severity = config.rule_settings.get(rid, {}).get("severity", cls.severity)
    return Finding(
        where,
        s.line,
        s.column,
        rid,
        cls.name,
        severity,
        message,
        "",
        f"line {s.line}",
        fix="remove or correct the suppression comment",
        changes=changes,
    )


def _removal(s: Suppression, lines: list[str], rid: str) -> tuple[Change, ...]:
    """A safe fix for a stale comment (expired, or suppressing nothing): remove it; a comment
    alone on its line takes the line with it (column 0 means the whole line)."""
    if s.line > len(lines):
        return ()
    line = lines[s.line - 1]
    head = line[: s.column - 1].rstrip()
    kind = "expired" if rid == EXPIRED else "unused"
    summary = f"removed the {kind} suppression of {', '.join(s.ids)}"
    if not head:
        return (Change("", summary, line=s.line, column=0, end=0, safe=True),)
    return (Change("", summary, line=s.line, column=len(head) + 1, end=len(line) + 1, safe=True),)


def _drop_ids(s: Suppression, lines: list[str]) -> tuple[Change, ...]:
    """A safe fix for the ids of a used comment that suppress nothing: the list written again
    without them, in its own separator style (each idle id's finding offers the same edit,
    which is made once)."""
    if s.line > len(lines):
        return ()
    line = lines[s.line - 1]
    found = re.compile(r"ignore\[([^\]]*)\]").search(line, s.column - 1)  # re's cache: rare
    if found is None:
        return ()
    idle = _idle(s)
    kept = [i for i in s.ids if i not in idle]
    sep = ", " if re.search(r",\s", found.group(1)) else ","
    start, end = found.span(1)
    plural = "s" if len(idle) > 1 else ""
    summary = f"removed the unused id{plural} {', '.join(idle)} from ignore[{', '.join(s.ids)}]"
    return (Change(sep.join(kept), summary, line=s.line, column=start + 1, end=end + 1, safe=True),)


def _idle(s: Suppression) -> list[str]:
    """The ids of a used comment that suppressed nothing."""
    return [i for i in s.ids if not any(r == i or r.startswith(i) for r in s.used)]


def _verdicts(
    s: Suppression, rules: dict[str, type[Rule]], today: date
) -> list[tuple[str, str, bool]]:
    """(rule, message, whether it is about the whole comment) of each defect of a comment."""
    ids = ", ".join(s.ids)
    unknown = [i for i in s.ids if not any(r.startswith(i) for r in rules)]
    if unknown or not s.ids:
        return [
            (UNKNOWN, f"suppression names unknown rule id {', '.join(unknown) or '(none)'}", True)
        ]
    if s.bad_until is not None:
        return [
            (
                UNKNOWN,
                f"suppression has an invalid date until={s.bad_until} (write until=YYYY-MM-DD)",
                True,
            )
        ]
    if not s.reason:
        return [(NO_REASON, f"suppression of {ids} gives no reason", True)]
    if s.expired(today):
        return [
            (EXPIRED, f"suppression of {ids} expired on {s.until}; its findings are back", True)
        ]
    if not s.used:
        return [(UNUSED, f"suppression of {ids} suppresses nothing", True)]
    return [
        (UNUSED, f"suppression id {i} in ignore[{ids}] suppresses nothing; remove it", False)
        for i in _idle(s)
    ]
