"""Baselines: fingerprints of accepted findings, to report only new ones (pure: no printing).

An entry records the finding's measured value and limit, who recorded it and when; a `reason`
and an `until` date (YYYY-MM-DD) may be added by hand. A finding the baseline accepts is a
waiver of the run (kept for the waiver register), unless its entry has lapsed or its measured
value moved past the recorded one, away from the limit (a 130 kW rack baselined that is now
140 kW): then it is reported again, saying what was recorded."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from dclint.engine.findings import Finding, RunResult, Waiver
from dclint.errors import ConfigError, printable

__all__ = [
    "Entry",
    "apply",
    "dumps",
    "entries",
    "fingerprint",
    "load_file",
    "loads",
    "relative_file",
]

VERSION = 1
MAX_BYTES = 64 * 1024 * 1024  # some 200,000 entries


def relative_file(file: str, root: str | None = None) -> str:
    """`file` relative to `root` (default: the working directory), with forward slashes."""
    base = os.path.abspath(root or os.getcwd())
    target = os.path.abspath(file)
    try:
        rel = os.path.relpath(target, base)
    except ValueError:  # another drive on Windows
        rel = target
    return Path(rel).as_posix()


def fingerprint(finding: Finding, root: str | None = None) -> str:
    """Stable id of a finding: its rule, file, design path and subject, never its line, so a
    block moved within the file keeps its fingerprint."""
    key = "\x1f".join(
        (finding.rule, relative_file(finding.file, root), finding.path, finding.subject)
    )
    # surrogatepass: a file name that is not UTF-8 (surrogate escapes) hashes too
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class Entry:
    """One accepted finding as stored in a baseline file."""

    fingerprint: str
    rule: str
    file: str
    path: str
    subject: str
    message: str = ""
    measured: str | None = None
    limit: str | None = None
    reason: str = ""
    until: date | None = None
    by: str = ""
    on: date | None = None

    def describe(self) -> str:
        where = self.subject or self.path or "design"
        return printable(f"{self.file}: {self.rule} {where}")  # a baseline is input too


def entries(
    result: RunResult, root: str | None = None, by: str = "", on: date | None = None
) -> list[Entry]:
    """Every finding of a run as a baseline entry (duplicates kept: they are counted),
    recorded by `by` on `on`."""
    out = [
        Entry(
            fingerprint(f, root),
            f.rule,
            relative_file(f.file, root),
            f.path,
            f.subject,
            f.message,
            f.measured_text,
            f.limit_text,
            by=by,
            on=on,
        )
        for f in result.findings
    ]
    return sorted(out, key=lambda e: (e.file, e.rule, e.path, e.subject, e.fingerprint))


_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(items: list[Entry]) -> str:
    data = {
        "tool": "dclint",
        "version": VERSION,
        "findings": [
            {
                "fingerprint": e.fingerprint,
                "rule": e.rule,
                "file": e.file,
                "path": e.path,
                "subject": e.subject,
                "message": e.message,
                **_optional(e),
            }
            for e in items
        ],
    }
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    # a file name that is not UTF-8 holds lone surrogates, which no UTF-8 file can: written as
    # JSON escapes, they read back as the same name
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _optional(e: Entry) -> dict[str, str]:
    pairs = (
        ("measured", e.measured),
        ("limit", e.limit),
        ("reason", e.reason),
        ("until", e.until.isoformat() if e.until else None),
        ("recorded_by", e.by),
        ("recorded_on", e.on.isoformat() if e.on else None),
    )
    return {k: v for k, v in pairs if v}


def _date(item: dict[str, Any], key: str, where: str, i: int) -> date | None:
    value = item.get(key)
    if value is None:
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise ConfigError(f"{where}: findings[{i}].{key}: expected a date YYYY-MM-DD") from None


def _text(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    return printable(str(value))[:500] if value is not None else None


def load_file(path: str) -> list[Entry]:
    """Entries of the baseline file at `path`: a regular file within MAX_BYTES, UTF-8 JSON."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_BYTES, "baseline")
    except FileRejected as exc:
        message = str(exc).removeprefix("cannot read file: ")  # the OS's reason alone
        raise ConfigError(f"--baseline {path}: {message}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--baseline {path}: not valid UTF-8 (byte {exc.start})") from None
    return loads(text, path)


def loads(text: str, where: str = "baseline") -> list[Entry]:
    """Entries of a baseline file; ConfigError if it is not one."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where}: not a dclint baseline (invalid JSON: {exc.msg} at line {exc.lineno})"
        ) from None
    except RecursionError:
        raise ConfigError(f"{where}: not a dclint baseline (JSON nested too deeply)") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ConfigError(f"{where}: not a dclint baseline ({str(exc)[:80]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("findings"), list):
        raise ConfigError(f"{where}: not a dclint baseline (no 'findings' list)")
    if data.get("version") != VERSION:
        raise ConfigError(
            f"{where}: baseline version {data.get('version')!r} is not "
            f"supported (expected {VERSION})"
        )
    out = []
    for i, item in enumerate(data["findings"]):
        fields = ("fingerprint", "rule", "file", "path", "subject")
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in fields):
            raise ConfigError(f"{where}: findings[{i}] needs string fields {', '.join(fields)}")
        fp, rule, file, path, subject = (item[k] for k in fields)
        out.append(
            Entry(
                fp,
                rule,
                file,
                path,
                subject,
                str(item.get("message", "")),
                _text(item, "measured"),
                _text(item, "limit"),
                _text(item, "reason") or "",
                _date(item, "until", where, i),
                _text(item, "recorded_by") or "",
                _date(item, "recorded_on", where, i),
            )
        )
    return out


def _magnitudes(now: str, was: str, limit: str | None) -> tuple[float, float, float | None]:
    from dclint.units import parse_quantity

    q_now, q_was = parse_quantity(now), parse_quantity(was)
    unit = q_was.units
    bound = None
    if limit:
        try:
            q_limit = parse_quantity(limit)
            bound = float(q_limit.m_as(unit))
        except Exception:  # a limit in another dimension or not a quantity: no direction
            bound = None
    return float(q_now.m_as(unit)), float(q_was.m_as(unit)), bound


def worse(now: str | None, was: str | None, limit: str | None) -> bool:
    """Whether a measured value moved past the recorded one, away from the limit (above it
    for a value over its limit, below for one under); False when either cannot be compared."""
    if not now or not was or now == was:
        return False
    try:
        a, b, bound = _magnitudes(now, was, limit)
    except Exception:  # "2:1", text, or units of another dimension: not comparable
        return False
    up = bound is None or b >= bound  # which way is away from the limit
    step = a - b if up else b - a
    return step > 1e-9 * max(abs(a), abs(b), 1e-300)


def apply(
    result: RunResult,
    baseline: list[Entry],
    root: str | None = None,
    today: date | None = None,
    where: str = "baseline",
) -> tuple[RunResult, list[Entry]]:
    """The run without the findings the baseline accepts (each kept as a waiver of its
    design), and the entries no longer found.

    Fingerprints are counted: a baseline with one finding of a kind accepts one, and a second
    identical one is new. An entry past its `until` (after `today`) accepts nothing; a finding
    whose measured value got worse than its entry's is reported, naming the recorded value.
    """
    budget = Counter(e.fingerprint for e in baseline)
    by_fp: dict[str, list[Entry]] = {}
    for e in baseline:
        by_fp.setdefault(e.fingerprint, []).append(e)
    designs = []
    for design in result.designs:
        kept = []
        waived = list(design.waivers)
        for f in design.findings:
            fp = fingerprint(f, root)
            if budget[fp] <= 0:
                kept.append(f)
                continue
            budget[fp] -= 1
            entry = by_fp[fp][budget[fp] % len(by_fp[fp])]
            if today is not None and entry.until is not None and today > entry.until:
                kept.append(_again(f, f"baseline entry lapsed on {entry.until}"))
            elif worse(f.measured_text, entry.measured, f.limit_text):
                kept.append(_again(f, f"worse than the baselined {entry.measured}"))
            else:
                reason = entry.reason or "accepted in the baseline"
                waived.append(Waiver(f, "baseline", reason, where, entry.until, entry.by, entry.on))
        designs.append(replace(design, findings=kept, waivers=waived))
    fixed: list[Entry] = []
    for e in baseline:
        if budget[e.fingerprint] > 0:
            budget[e.fingerprint] -= 1
            fixed.append(e)
    return RunResult(designs, result.rule_failures), fixed


def _again(f: Finding, why: str) -> Finding:
    """A baselined finding reported again, saying why."""
    return replace(f, message=f"{f.message} ({why})")
