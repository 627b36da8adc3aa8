"""Findings that are one defect on many objects of one kind, rolled up into one entry."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dclint.engine.findings import Finding
from dclint.model.ranges import compact

__all__ = ["Rollup", "as_data", "impact_sentence", "kinds", "measured_limit", "roll_up"]


@dataclass(frozen=True)
class Rollup:
    """One defect: the first finding speaks for all; `findings` keeps every subject and place."""

    findings: tuple[Finding, ...]
    kind: str  # "racks of type nvl72", or "" for subjects that are not racks

    @property
    def first(self) -> Finding:
        return self.findings[0]

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def subjects(self) -> list[str]:
        return [f.subject for f in self.findings]

    @property
    def ids(self) -> str:
        return compact(self.subjects, most=6)

    @property
    def places(self) -> list[str]:
        """Distinct file:line:col, in order (a range entry puts many racks on one line)."""
        return list(dict.fromkeys(f"{f.file}:{f.line}:{f.column}" for f in self.findings))

    @property
    def where(self) -> str:
        """The first place, and how many more: 'd.yaml:4:5 and 7 more places'."""
        more = len(self.places) - 1
        return self.places[0] + (f" and {more} more places" if more else "")

    def scope(self) -> str:
        """'' for one finding; else how many of what, and which: '8 racks of type nvl72: r[1-8]'."""
        if self.count == 1:
            return ""
        return f"{self.count} {self.kind or 'subjects'}: {self.ids}"


def measured_limit(f: Finding) -> str:
    """' (measured 132 kW, limit 120 kW)', a '-' for either missing; '' when both are."""
    measured, limit = f.measured_text, f.limit_text
    if measured is None and limit is None:
        return ""
    return f" (measured {measured or '-'}, limit {limit or '-'})"


def impact_sentence(f: Finding) -> str:
    """What the finding costs the projected run, as a sentence ('' when it is not priced)."""
    if f.impact is None:
        return ""
    text = f.impact.text()
    return text[:1].upper() + text[1:]


_NUMBERED = re.compile(r"(?<![\w.])([\w.-]*[A-Za-z_][\w.-]*)")
_DIGITS = re.compile(r"\d+")


def _skeleton(text: str | None) -> str:
    """Text with the numbers inside ids made '#': rack r7-098's 'feed f7a098' and rack
    r3-001's 'feed f3a001' read alike; plain numbers ('40 kW') stay."""
    if not text:
        return ""
    return _NUMBERED.sub(lambda m: _DIGITS.sub("#", m.group(1)), text)


def _shape(f: Finding) -> tuple[str, ...]:
    """What must match for two findings to be one defect: rule, severity, the message and fix
    with ids' numbers taken out (they differ from rack to rack while the defect does not), the
    measured value and the limit."""
    return (
        f.rule,
        f.severity,
        _skeleton(f.message),
        f.measured_text or "",
        f.limit_text or "",
        _skeleton(f.fix),
    )


def roll_up(findings: Sequence[Finding], kind_of: Callable[[str], str]) -> list[Rollup]:
    """Group findings by shape and by the kind (rack type) of their subject, in order of first
    appearance. `kind_of` names a subject's kind ("" when it has none)."""
    groups: dict[tuple[str, ...], list[Finding]] = {}
    for f in findings:
        groups.setdefault((*_shape(f), kind_of(f.subject)), []).append(f)
    return [Rollup(tuple(fs), key[-1]) for key, fs in groups.items()]


def kinds(result: Any) -> Callable[[str], str]:
    """A subject's kind for rolling up: 'racks of type nvl72' for a rack, '' otherwise.
    `result` is a design's result (dclint.engine.findings.DesignResult): its `rack_kinds`, set
    by the assessment; a design replayed from the results cache offers its stored
    `rack_by_id` itself."""
    named: dict[str, str] = dict(getattr(result, "rack_kinds", None) or {})
    stored = getattr(getattr(result, "design", None), "rack_by_id", None) or {}
    for key, rack in stored.items():
        named.setdefault(key, rack.type_key or rack.platform_key or "-")

    def kind(subject: str) -> str:
        found = named.get(subject)
        return "" if found is None else f"racks of type {found}"

    return kind


def as_data(findings: Sequence[Finding], result: Any) -> list[dict[str, Any]]:
    """The roll-ups of more than one finding, for JSON: each keeps every subject and the
    index of each of its findings in the design's `findings` list."""
    index = {id(f): i for i, f in enumerate(findings)}
    return [
        {
            "rule": r.first.rule,
            "severity": r.first.severity,
            "count": r.count,
            "kind": r.kind,
            "ids": r.ids,
            "subjects": r.subjects,
            "findings": [index[id(f)] for f in r.findings],
        }
        for r in roll_up(findings, kinds(result))
        if r.count > 1
    ]
