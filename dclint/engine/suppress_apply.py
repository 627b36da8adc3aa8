"""Apply suppression comments to a design's findings and judge the comments (DCL001-DCL004)."""

from __future__ import annotations

from datetime import date

from dclint.engine.config import Config, selected
from dclint.engine.findings import Finding
from dclint.engine.rule import Change, Rule
from dclint.engine.suppress import Suppression, scan
from dclint.model.source import Source

__all__ = ["EXPIRED", "NO_REASON", "UNKNOWN", "UNUSED", "apply_suppressions"]

UNUSED, NO_REASON, UNKNOWN, EXPIRED = "DCL001", "DCL002", "DCL003", "DCL004"


def apply_suppressions(
    raw: list[Finding],
    source: Source,
    config: Config,
    file: str,
    rules: dict[str, type[Rule]],
    today: date,
) -> tuple[list[Finding], int]:
    """The findings no suppression comment covers, sorted, plus the DCL001-DCL004 findings
    about the comments themselves; and how many findings were suppressed."""
    # suppression comments of the design and of every file it includes, by (file, line)
    texts = {source.file: source.text, **source.texts}
    comments = {name: found for name, text in texts.items() if (found := scan(text))}
    if not comments:
        return sorted(raw), 0
    kept: list[Finding] = []
    suppressed = 0
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
            suppressed += 1
    for name, found in comments.items():
        kept.extend(_meta(found, name, config, file, rules, today, texts[name]))
    return sorted(kept), suppressed


def _meta(
    comments: list[Suppression],
    where: str,
    config: Config,
    file: str,
    rules: dict[str, type[Rule]],
    today: date,
    text: str = "",
) -> list[Finding]:
    """DCL001-DCL004 findings for the suppression comments of one file."""
    findings = []
    lines = text.splitlines()
    for s in comments:
        verdict = _verdict(s, rules, today)
        if verdict is None:
            continue
        rid, message = verdict
        cls = rules.get(rid)
        if cls is None or not selected(rid, config, file):
            continue
        severity = config.rule_settings.get(rid, {}).get("severity", cls.severity)
        findings.append(
            Finding(
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
                changes=_removal(s, lines, rid) if rid in (UNUSED, EXPIRED) else (),
            )
        )
    return findings


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


def _verdict(s: Suppression, rules: dict[str, type[Rule]], today: date) -> tuple[str, str] | None:
    ids = ", ".join(s.ids)
    unknown = [i for i in s.ids if not any(r.startswith(i) for r in rules)]
    if unknown or not s.ids:
        return UNKNOWN, f"suppression names unknown rule id {', '.join(unknown) or '(none)'}"
    if s.bad_until is not None:
        return (
            UNKNOWN,
            f"suppression has an invalid date until={s.bad_until} (write until=YYYY-MM-DD)",
        )
    if not s.reason:
        return NO_REASON, f"suppression of {ids} gives no reason"
    if s.expired(today):
        return EXPIRED, f"suppression of {ids} expired on {s.until}; its findings are back"
    if not s.used:
        return UNUSED, f"suppression of {ids} suppresses nothing"
    return None
