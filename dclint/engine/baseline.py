"""Baselines: fingerprints of accepted findings, to report only new ones (pure: no printing)."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dclint.engine.findings import Finding, RunResult
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
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True)
class Entry:
    """One accepted finding as stored in a baseline file."""

    fingerprint: str
    rule: str
    file: str
    path: str
    subject: str
    message: str = ""

    def describe(self) -> str:
        where = self.subject or self.path or "design"
        return printable(f"{self.file}: {self.rule} {where}")  # a baseline is input too


def entries(result: RunResult, root: str | None = None) -> list[Entry]:
    """Every finding of a run as a baseline entry (duplicates kept: they are counted)."""
    out = [
        Entry(
            fingerprint(f, root), f.rule, relative_file(f.file, root), f.path, f.subject, f.message
        )
        for f in result.findings
    ]
    return sorted(out, key=lambda e: (e.file, e.rule, e.path, e.subject, e.fingerprint))


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
            }
            for e in items
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


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
        out.append(Entry(fp, rule, file, path, subject, str(item.get("message", ""))))
    return out


def apply(
    result: RunResult, baseline: list[Entry], root: str | None = None
) -> tuple[RunResult, list[Entry]]:
    """The run without the findings the baseline accepts, and the entries no longer found.

    Fingerprints are counted: a baseline with one finding of a kind accepts one, and a second
    identical one is new.
    """
    budget = Counter(e.fingerprint for e in baseline)
    designs = []
    for design in result.designs:
        kept = []
        for f in design.findings:
            fp = fingerprint(f, root)
            if budget[fp] > 0:
                budget[fp] -= 1
            else:
                kept.append(f)
        designs.append(replace(design, findings=kept))
    fixed: list[Entry] = []
    for e in baseline:
        if budget[e.fingerprint] > 0:
            budget[e.fingerprint] -= 1
            fixed.append(e)
    return RunResult(designs, result.rule_failures), fixed
