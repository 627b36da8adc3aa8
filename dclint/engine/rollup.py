"""Findings that are one defect on many objects of one kind, rolled up into one entry; and one
defect in a file many designs read (a rack-type library, a site profile, a base design),
reported once at its place with the designs it affects (`defects`)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from dclint.engine.findings import Finding
from dclint.model.ranges import compact

__all__ = [
    "Defect",
    "Rollup",
    "as_data",
    "defect_counts",
    "defects",
    "defects_data",
    "impact_sentence",
    "kinds",
    "measured_limit",
    "roll_up",
]


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


def impact_note_sentence(f: Finding) -> str:
    """Why a priced rule's finding costs the run nothing, as a sentence ('' when it says not)."""
    return f.impact_note[:1].upper() + f.impact_note[1:]


@cache
def _numbered() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An id with a number in it, and a run of digits (compiled on first use: a clean check
    rolls up no finding)."""
    return re.compile(r"(?<![\w.])([\w.-]*[A-Za-z_][\w.-]*)"), re.compile(r"\d+")


def _skeleton(text: str | None) -> str:
    """Text with the numbers inside ids made '#': rack r7-098's 'feed f7a098' and rack
    r3-001's 'feed f3a001' read alike; plain numbers ('40 kW') stay."""
    if not text:
        return ""
    numbered, digits = _numbered()
    return numbered.sub(lambda m: digits.sub("#", m.group(1)), text)


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


def kinds(design: Any) -> Callable[[str], str]:
    """A subject's kind for rolling up: 'racks of type nvl72' for a rack, '' otherwise.
    `design` is a design, or a design's result (dclint.engine.findings.DesignResult) whose
    `rack_kinds` the assessment set; a design replayed from the results cache offers its
    stored `rack_by_id` itself."""
    named: dict[str, str] = dict(getattr(design, "rack_kinds", None) or {})
    if hasattr(design, "rack_kinds"):  # a result: its design, if any
        design = getattr(design, "design", None)
    stored = getattr(design, "rack_by_id", None)
    try:
        if named:
            racks: dict[str, Any] = {}
        elif stored is not None:
            racks = stored
        elif design is None:
            racks = {}
        else:
            from dclint.model.resolve import topology_of  # not on the cached path

            racks = topology_of(design).rack_by_id
    except Exception:  # a design whose topology cannot be resolved: no kinds
        racks = {}
    for key, rack in racks.items():
        named.setdefault(key, rack.type_key or rack.platform_key or "-")

    def kind(subject: str) -> str:
        found = named.get(subject)
        return "" if found is None else f"racks of type {found}"

    return kind


def as_data(findings: Sequence[Finding], design: Any) -> list[dict[str, Any]]:
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
        for r in roll_up(findings, kinds(design))
        if r.count > 1
    ]


@dataclass(frozen=True)
class Defect:
    """One defect of a run: a roll-up (`group`, as the first design reporting it found it) and
    every design that reports it at the same place. A finding in a fragment that three halls
    include is one Defect in three designs, not three entries."""

    group: Rollup
    design: int  # the index (in the run's designs) of the first design reporting it
    designs: tuple[str, ...]  # the names of the designs reporting it, in run order
    members: tuple[tuple[int, Rollup], ...]  # (design index, its roll-up) for each of them
    includers: tuple[str, ...]  # the designs in the run built on the file it lives in
    own: bool  # it lives in the first reporting design's own file

    @property
    def first(self) -> Finding:
        return self.group.first

    @property
    def count(self) -> int:
        """Findings it stands for, counted once however many designs report it."""
        return max(g.count for _, g in self.members)

    @property
    def shared(self) -> bool:
        """Whether it is worth naming the designs: it lives outside the design's own file or
        more than one design reads its file."""
        return not self.own or len(self.includers) > 1 or len(self.designs) > 1

    def across(self) -> str:
        """'' for a design's own finding; else which designs it affects: 'in 3 designs:
        hall-a, hall-b, hall-c', or where the verdict differs by includer, the designs where it
        fails: 'in 2 of 3 designs that read it: hall-a, hall-b'."""
        if not self.shared:
            return ""
        names = _names(self.designs)
        n, m = len(self.designs), len(self.includers)
        if n < m:
            return f"in {n} of {m} designs that read it: {names}"
        return f"in {n} design{'s' if n != 1 else ''}: {names}"


def _names(names: Sequence[str], most: int = 8) -> str:
    shown = ", ".join(names[:most])
    more = len(names) - most
    return shown + (f" and {more} more" if more > 0 else "")


def _design_name(d: Any) -> str:
    return str(d.name or os.path.splitext(os.path.basename(d.file))[0])


def defects(result: Any) -> list[Defect]:
    """The run's defects in order of first appearance: each design's roll-ups (roll_up), those
    at one place (file, line, column, rule, severity, message shape) in several designs merged
    into one. A design reporting two entries at one place keeps both."""
    real: dict[str, str] = {}

    def resolved(file: str) -> str:
        if file not in real:
            try:
                real[file] = os.path.realpath(file)
            except (OSError, ValueError):
                real[file] = file
        return real[file]

    readers: dict[str, list[str]] = {}
    for d in result.designs:
        name = _design_name(d)
        for file in dict.fromkeys((d.file, *d.includes)):
            readers.setdefault(resolved(file), []).append(name)
    merged: dict[tuple[Any, ...], list[Any]] = {}
    for i, d in enumerate(result.designs):
        name = _design_name(d)
        seen: Counter[tuple[Any, ...]] = Counter()
        for group in roll_up(d.findings, kinds(d.design)):
            f = group.first
            place = (f.rule, f.severity, resolved(f.file), f.line, f.column, _skeleton(f.message))
            key = (*place, seen[place])
            seen[place] += 1
            entry = merged.get(key)
            if entry is None:
                own = resolved(f.file) == resolved(d.file)
                merged[key] = [group, i, [name], [(i, group)], own]
            else:
                entry[2].append(name)
                entry[3].append((i, group))
    out = []
    for key, (group, i, names, members, own) in merged.items():
        includers = tuple(readers.get(key[2], ())) or tuple(names)
        out.append(Defect(group, i, tuple(names), tuple(members), includers, own))
    return out


def defect_counts(result: Any) -> Counter[str]:
    """Findings by severity, a defect many designs report counted once (the summary's)."""
    counts: Counter[str] = Counter()
    for d in defects(result):
        counts[d.first.severity] += d.count
    return counts


def defects_data(result: Any) -> list[dict[str, Any]]:
    """The defects for JSON: one entry each, with where it lives, the designs it affects and
    the findings it stands for as [design index, finding index] pairs."""
    index = {id(f): (i, j) for i, d in enumerate(result.designs) for j, f in enumerate(d.findings)}
    out = []
    for x in defects(result):
        f = x.first
        out.append(
            {
                "rule": f.rule,
                "severity": f.severity,
                "file": f.file,
                "line": f.line,
                "column": f.column,
                "message": f.message,
                "count": x.count,
                "designs": list(x.designs),
                "includers": list(x.includers),
                "findings": [list(index[id(g)]) for _, r in x.members for g in r.findings],
            }
        )
    return out
