"""The results cache of `dclint check`, as ruff's: a repeat check of unchanged designs prints
the findings it stored, through the same presenter, without importing pint or pydantic.

Where: `.dclint_cache/` beside the config that governs a design (its directory), or at the
repository root (the nearest directory holding `.git`) when none does; a design with neither is
not cached. The directory holds a `.gitignore` of `*` and a CACHEDIR.TAG, and one JSON file a
*run key*: a hash of the cache format, dclint's version and every file of its package and of
the built-in rules (size and modification time), the installed distributions (the names and
versions of every `*.dist-info` on `sys.path`: a rule pack installed, upgraded or removed, or a
new pint, makes a new key), the files of each `--rules-dir`, the Python, the working directory,
the date (suppressions expire), and every `check` option except those that only shape the
report (format, output, colour, source lines, statistics, waivers shown, quiet, exit-zero): an
option added later is part of the key until it is listed here. Within the file, each design
(by its path as given) keeps the hash of the resolved configuration that governs it (the Config
record, CLI values in, every field; the text of each site policy file it names), the SHA-256
of its text and of every file it includes or extends, and its findings, waivers and the rack
types the report rolls findings up by.

In every format (`FORMATS`) a run replays the designs the cache holds unchanged, byte for byte,
and checks only the others (`split`: one edited design of many costs about one design's check,
and a changed fragment re-checks only the designs that include it), then stores what it found.
Text, GitHub annotations, GitLab code quality and SARIF print findings and nothing a design
computes beyond them (SARIF a description of each rule, read from the rule pack); what the
other formats print of a design beyond its findings is stored by a run in that format, beside
them (`_extra`): JSON each design's projections (the report's own dict), JUnit why each rule
that found nothing does not apply, a review (Markdown, its summary, HTML) the figures read from
the design and, for Markdown and HTML, the design's section as printed (HTML's with its anchors
left open: its place on the page is the run's). A stored design without what the run's format
prints is checked again. A run's report, in every format, is also replayed whole by its run
record while nothing changed (dclint.cli._runs). Designs that did not load, or on which a rule
failed, are never stored. Never used
with `--no-cache` or DCLINT_NO_CACHE set, `--fix`/`--diff`/`--add-suppressions`, `--watch`,
`--sweep`, `--show-files`, `--set`, `--baseline` or `--write-baseline`.

A cache file is untrusted input: read only from a folder of the user's own that is no
symlink and not tracked by git, opened without following a symlink, a regular file of the
user's of at most MAX_CACHE_BYTES, sealed with the user's secret (dclint.cli._seal: an HMAC of
the run key and the text, so an edited, planted or committed file is a miss, never a verdict),
parsed as JSON (never pickle), every record's shape and types checked; one that is unreadable,
corrupt, unsealed, of another format or key, or of the wrong shape is ignored (and rewritten).
Files are written through a temporary file and a rename; a cache that cannot be written is
skipped silently.

A run that replayed or stored every design it checked also leaves a record of its command line
and report (dclint.cli._runs), which the console script replays before importing anything else.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

from dclint._version import __version__
from dclint.cli._runs import DIRECTORY, ENV, disabled, tree_stats, write
from dclint.cli._runs import code as _code
from dclint.cli._runs import digest as _digest
from dclint.cli._runs import distributions as _distributions
from dclint.cli._runs import text_digest as _text_digest
from dclint.engine.findings import DesignResult, Finding, RunResult, Waiver
from dclint.engine.rule import SEVERITIES

__all__ = ["DIRECTORY", "ENV", "FORMATS", "Cache", "usable"]

SCHEMA = 1  # the layout of a cache file; another number is ignored
# reproduced byte for byte from what is stored: every report `check` prints
FORMATS: tuple[str, ...] = ("text", "github", "json", "gitlab", "sarif", "junit", "markdown")
FORMATS += ("markdown-summary", "html")
# the formats a run record (dclint.cli._runs) replays: every report `check` prints; those that
# print each design's git commit keep it in the record
RECORDED: tuple[str, ...] = ("text", "json", "sarif", "junit", "github", "gitlab", "markdown")
RECORDED += ("markdown-summary", "html")
_COMMITS = ("markdown", "html")
# JSON prints each design's projections too: kept (the report's own dict) by a JSON run, and a
# design stored without them is checked again by one
_PROJECTION = "json"
# what else a format prints of a design, kept by a run in that format and, where a stored
# design lacks it, checked again by one: JUnit why each rule that found nothing does not apply
# (dclint.report.junit.reasons); a review (Markdown, its summary, HTML) the figures read from
# the design (dclint.report.review.Shown), with its section in the format printed
_JUNIT = "junit"
_REVIEW = "review"
_SECTIONS = ("markdown", "html")  # the review formats whose sections are kept as printed
MAX_CACHE_BYTES = 64 * 1024 * 1024
MAX_DESIGNS = 20_000  # entries a cache file keeps; past it only the latest run's
# options that only shape the report: the same findings, shown otherwise
_DISPLAY = {"format", "output", "color", "show_source", "quiet", "statistics", "show_waivers"}
_DISPLAY |= {"exit_zero", "argv", "paths", "no_cache", "command"}
# options under which the cache is neither read nor written
_BYPASS: tuple[str, ...] = (
    "sweep",
    "watch",
    "show_files",
    "show_settings",
    "fix",
    "diff",
    "add_suppressions",
    "set",
)
_BYPASS += ("baseline", "write_baseline")


def usable(args: argparse.Namespace) -> bool:
    """Whether this `check` may read and write the cache (see the module doc)."""
    if getattr(args, "no_cache", False) or disabled():
        return False
    return not any(getattr(args, flag, None) for flag in _BYPASS)


class _Bad(Exception):
    """A cache record of the wrong shape: the whole file is ignored."""


class _Missing(Exception):
    """A stored design without what this run's format prints of it: checked again."""


def _plain(value: Any) -> Any:
    """A JSON-ready form of a configuration value (dataclasses by field, sets sorted)."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return [[_plain(k), _plain(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def _key(value: Any) -> str:
    return _digest(json.dumps(_plain(value), sort_keys=True, default=repr).encode())


@dataclass
class _Rack:
    """What a report's roll-up reads of a rack (dclint.engine.rollup.kinds)."""

    type_key: str | None
    platform_key: str | None


@dataclass
class _Design:
    """A stored design as the text and GitHub reports read it: its racks' types
    (`dclint.engine.rollup.kinds` reads `rack_by_id` where a design offers it)."""

    rack_by_id: dict[str, _Rack]


@dataclass(frozen=True)
class _Impact:
    """A stored finding's impact: its sentence and its JSON, as computed."""

    shown: str
    data: dict[str, Any]

    def text(self) -> str:
        return self.shown

    def as_dict(self) -> dict[str, Any]:
        return dict(self.data)


@dataclass(frozen=True, order=True)
class _Stored(Finding):
    """A finding read back from the cache: its measured value and limit as the report printed
    them (the quantities themselves are not kept)."""

    shown: tuple[str | None, str | None] = field(default=(None, None), compare=False)
    data: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def measured_text(self) -> str | None:
        return self.shown[0]

    @property
    def limit_text(self) -> str | None:
        return self.shown[1]

    def numbers(self, name: str) -> tuple[float | None, str | None]:
        """As the finding printed them (their types checked when read: `_finding`)."""
        number = self.data.get(f"{name}_value")
        return (None if number is None else float(number)), self.data.get(f"{name}_unit")

    def as_dict(self) -> dict[str, Any]:
        return dict(self.data)


@dataclass
class Split:
    """A run's designs (`files`, in the order the run finds them) as the cache holds them:
    `stored` unchanged (read back), `missing` to check."""

    files: list[str]
    skipped: list[str]
    stored: dict[str, DesignResult] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    # what the run's format prints of each stored design beyond its findings (_extra)
    assessed: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _AsDict:
    """A stored projection or TCO: the dict the JSON report printed of it."""

    data: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return self.data


@dataclass(frozen=True)
class _Projected:
    """What the JSON report reads of a design's projection
    (dclint.analysis.assess.assessment.Projected), from the dict it printed."""

    data: dict[str, Any]

    @property
    def error(self) -> str:
        return str(self.data.get("projection_error") or "")

    @property
    def projections(self) -> list[_AsDict]:
        return [_AsDict(_dict(x)) for x in _list(self.data.get("projections"))]

    @property
    def unprojected(self) -> list[tuple[str, str]]:
        pairs = [_dict(u) for u in _list(self.data.get("unprojected", []))]
        return [(_str(u, "workload"), _str(u, "reason")) for u in pairs]

    @property
    def tco(self) -> _AsDict | None:
        tco = self.data.get("tco")
        return None if tco is None else _AsDict(_dict(tco))


@dataclass(eq=False)
class _Assessed:
    """A stored design as a presenter reads an assessment: its result, and what the run's
    format printed of the design beyond its findings (JSON: its `projected` workloads; JUnit:
    why each rule that found nothing does not apply, `reasons`; a review: `shown`)."""

    result: DesignResult
    engine: Any = field(repr=False)
    projected: _Projected | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    shown: Any = None  # dclint.report.review.Shown

    @property
    def file(self) -> str:
        return self.result.file

    @property
    def name(self) -> str:
        return self.result.name or self.result.file

    @property
    def design(self) -> Any:
        return self.result.design

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings

    @property
    def errors(self) -> list[Any]:
        return self.result.errors

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.engine.rules)

    def selected(self, rule_id: str) -> bool:
        from dclint.engine.config import selected

        return selected(rule_id, self.engine.config_for(self.file), self.file)

    def inapplicable(self, rule_id: str) -> str:
        return self.reasons.get(rule_id, "")


@dataclass(eq=False)
class Replayed:
    """A run read back from the cache, as a presenter reads a run's assessment (`result`, and
    for JSON `designs`: the stored designs' projections, the checked ones' assessments)."""

    report_as: ClassVar[str] = "dclint.analysis.assess.assessment.RunAssessment"  # report.registry
    result: RunResult
    fail_on: str
    designs: list[Any] = field(default_factory=list)
    engine: Any = field(default=None, repr=False)

    @property
    def rules(self) -> dict[str, Any]:
        """The run's rules (SARIF describes each): the rule pack imported, nothing checked."""
        return dict(self.engine.rules)

    def exit_code(self) -> int:
        return self.result.exit_code(self.fail_on)  # type: ignore[arg-type]


# --- reading: every value checked -------------------------------------------------------------


def _str(d: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Bad(key)
    return value


def _int(d: dict[str, Any], key: str) -> int:
    value = d.get(key)
    if type(value) is not int or not 0 <= value < 2**63:
        raise _Bad(key)
    return value


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad("strings")
    return tuple(value)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Bad("list")
    return value


def _dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Bad("mapping")
    return value


def _date(value: Any) -> date | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _Bad("date")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise _Bad("date") from None


def _finding(d: Any) -> _Stored:
    d = _dict(d)
    severity = _str(d, "severity")
    if severity not in SEVERITIES:
        raise _Bad("severity")
    impact = None
    if "impact" in d:
        impact = _Impact(_str(d, "impact_text"), _dict(d["impact"]))
    # a saving under the pricing floor: its figures as JSON gave them (its words are the note)
    under = _Impact("", _dict(d["impact_under_floor"])) if "impact_under_floor" in d else None
    data = {k: v for k, v in d.items() if k not in ("tags", "refs", "impact_text")}
    for name in ("measured", "limit"):  # what Finding.numbers gives: read by SARIF
        number, unit = data.get(f"{name}_value"), data.get(f"{name}_unit")
        if number is not None and type(number) not in (int, float):
            raise _Bad("number")
        if unit is not None and not isinstance(unit, str):
            raise _Bad("unit")
    return _Stored(
        file=_str(d, "file"),
        line=_int(d, "line"),
        column=_int(d, "column"),
        rule=_str(d, "rule"),
        name=_str(d, "name"),
        severity=severity,
        message=_str(d, "message"),
        path=_str(d, "path"),
        subject=_str(d, "subject"),
        fix=_str(d, "fix"),
        tags=_strings(d.get("tags")),
        refs=_strings(d.get("refs")),
        impact=impact,  # type: ignore[arg-type]  # what a report reads of an Impact
        impact_note=_str(d, "impact_note", optional=True) or "",
        impact_under_floor=under,  # type: ignore[arg-type]  # what a report reads of an Impact
        origin=_str(d, "origin", optional=True),
        shown=(_str(d, "measured", optional=True), _str(d, "limit", optional=True)),
        data=data,
    )


def _waiver(d: Any) -> Waiver:
    d = _dict(d)
    kind = _str(d, "kind")
    if kind not in ("inline", "baseline"):
        raise _Bad("kind")
    return Waiver(
        finding=_finding(d.get("finding")),
        kind=kind,
        reason=_str(d, "reason"),
        where=_str(d, "where"),
        until=_date(d.get("until")),
        by=_str(d, "by", optional=True) or "",
        on=_date(d.get("on")),
    )


def _design_result(file: str, d: dict[str, Any]) -> DesignResult:
    racks = {}
    for subject, keys in _dict(d.get("racks")).items():
        if not isinstance(keys, list) or len(keys) != 2:
            raise _Bad("racks")
        if not all(k is None or isinstance(k, str) for k in keys):
            raise _Bad("racks")
        racks[subject] = _Rack(keys[0], keys[1])
    findings = d.get("findings")
    waivers = d.get("waivers")
    if not isinstance(findings, list) or not isinstance(waivers, list):
        raise _Bad("findings")
    return DesignResult(
        file=file,
        name=_str(d, "name", optional=True),
        findings=[_finding(f) for f in findings],
        design=_Design(racks),
        suppressed=_int(d, "suppressed"),
        waivers=[_waiver(w) for w in waivers],
        includes=tuple(name for name, _ in _inputs(d)[1:]),
    )


def _reasons(value: Any) -> dict[str, str]:
    reasons = _dict(value)
    if not all(isinstance(v, str) for v in reasons.values()):
        raise _Bad("reasons")
    return reasons


def _shown(value: Any, fmt: str) -> Any:
    """A stored review's `Shown`, with the section of `fmt` where it prints one."""
    from dclint.report.assumptions import Assumption
    from dclint.report.review import Shown

    d = _dict(value)
    sections = _dict(d.get("sections"))
    if fmt in _SECTIONS and fmt not in sections:
        raise _Missing(fmt)
    rows = [_strings(a) for a in _list(d.get("assumptions"))]
    provenance = _strings(d.get("provenance"))
    if any(len(a) != 4 for a in rows) or len(provenance) != 2:
        raise _Bad("review")
    return Shown(
        row=_strings(d.get("row")),
        assumptions=tuple(Assumption(*a) for a in rows),
        provenance=(provenance[0], provenance[1]),
        sections={k: _strings(v) for k, v in sections.items()},
    )


def _show(a: Any, fmt: str) -> Any:
    """What a review in `fmt` shows of assessment `a` that is read from the design: its
    `Shown`, with the design's section in `fmt` as printed (Markdown, HTML)."""
    from dclint.report.review import Shown, design_review

    review = design_review(a)
    sections: dict[str, tuple[str, ...]] = {}
    if fmt == "markdown":
        from dclint.report.markdown import section as markdown_section

        sections[fmt] = tuple(markdown_section(review))
    elif fmt == "html":
        from dclint.report.html import section as html_section

        parts = html_section(review)
        if parts is not None:  # else not kept: the design is checked again
            sections[fmt] = tuple(parts)
    return Shown(tuple(review.overview()), tuple(review.assumptions), review.provenance, sections)


def _shown_data(shown: Any) -> dict[str, Any]:
    return {
        "row": list(shown.row),
        "assumptions": [[a.item, a.value, a.default, a.source] for a in shown.assumptions],
        "provenance": list(shown.provenance),
        "sections": {k: list(v) for k, v in shown.sections.items()},
    }


def _inputs(d: dict[str, Any]) -> list[tuple[str, str]]:
    """(file, SHA-256) of the design and of each file it includes."""
    value = d.get("inputs")
    if not isinstance(value, list) or not value:
        raise _Bad("inputs")
    out = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("inputs")
        if not all(isinstance(x, str) for x in pair):
            raise _Bad("inputs")
        out.append((pair[0], pair[1]))
    return out


# --- writing ----------------------------------------------------------------------------------


def _finding_data(f: Finding) -> dict[str, Any]:
    data = f.as_dict()
    data["tags"], data["refs"] = list(f.tags), list(f.refs)
    if f.impact is not None:
        data["impact_text"] = f.impact.text()
    return data


def _entry(d: DesignResult, config_key: str) -> dict[str, Any] | None:
    """A checked design as stored, or None when it is not to be stored (it did not load, a
    rule failed on it, or a file it read is not as the check read it)."""
    design = d.design
    source = getattr(design, "source", None)
    if d.errors or source is None or any("rule-failure" in f.tags for f in d.findings):
        return None
    texts = {d.file: source.text, **source.texts}
    inputs = []
    for name, text in texts.items():
        digest = _digest(text.encode("utf-8"))
        if _text_digest(name) != digest:  # changed since the check read it: not stored
            return None
        inputs.append([name, digest])
    findings = [*d.findings, *(w.finding for w in d.waivers)]
    try:
        from dclint.model.resolve import topology_of

        by_id = topology_of(design).rack_by_id
    except Exception:  # as dclint.engine.rollup.kinds: no kinds
        by_id = {}
    racks = {}
    for f in findings:
        rack = by_id.get(f.subject)
        if rack is not None:
            racks[f.subject] = [rack.type_key, rack.platform_key]
    return {
        "config": config_key,
        "inputs": inputs,
        "name": d.name,
        "findings": [_finding_data(f) for f in d.findings],
        "waivers": [{**w.as_dict(), "finding": _finding_data(w.finding)} for w in d.waivers],
        "suppressed": d.suppressed,
        "racks": racks,
    }


def _extra(fmt: str) -> str | None:
    """The key of what `fmt` prints of a design beyond its findings in a stored design (None
    where it prints nothing more: text, GitHub, GitLab, SARIF)."""
    if fmt == "json":
        return _PROJECTION
    if fmt == "junit":
        return _JUNIT
    if fmt in ("markdown", "markdown-summary", "html"):
        return _REVIEW
    return None


# --- the cache of one run ---------------------------------------------------------------------


class Cache:
    """The cache as one `check` run sees it: `replay()` before checking, `store()` after."""

    def __init__(
        self, args: argparse.Namespace, engine: Any, snapshot: Any = None, stderr: Any = None
    ) -> None:
        self.args = args
        self.engine = engine
        self.snapshot = snapshot  # dclint.cli._runs.Snapshot: for the run's record
        self.stderr = stderr  # standard error, watched: a run that warned is not recorded
        # each design of the run: the (file, SHA-256) pairs it was checked (or replayed) from;
        # None once a design was not stored
        self.inputs: dict[str, list[tuple[str, str]]] | None = {}
        self._run_key: str | None = None
        self._roots: dict[Path, Path | None] = {}
        self._files: dict[Path, dict[str, Any]] = {}  # cache folder -> its designs, as read
        # per config object (Engine.config_for gives one object for every file it governs;
        # kept alive here, so an id is not reused): its key and, with a file, its folder
        self._configs: dict[int, tuple[Any, str]] = {}
        self._config_folders: dict[str, Path] = {}
        # what a review shows of each design this run assessed, as kept (file -> Shown): the
        # report reads it as a replayed run's (laid out once: `presented`)
        self._kept: dict[str, Any] = {}

    @property
    def run_key(self) -> str:
        if self._run_key is None:
            engine = self.engine
            dirs = tuple(engine.rules_dirs) + (engine.config.rules_dirs if engine.config else ())
            options = {k: v for k, v in vars(self.args).items() if k not in _DISPLAY}
            self._run_key = _key(
                {
                    "schema": SCHEMA,
                    "version": __version__,
                    "python": sys.version,
                    "prefix": sys.prefix,
                    "code": _code(),
                    "distributions": _distributions(),
                    "rules_dirs": [[d, tree_stats(d, (".py",))] for d in dirs],
                    "cwd": os.getcwd(),
                    "today": engine.today.isoformat(),
                    "options": options,
                    "cli": engine.cli,
                }
            )
        return self._run_key

    def _config_key(self, config: Any) -> str:
        """The hash of a resolved configuration (every field, and the text of its calibration
        profile), once per config object."""
        entry = self._configs.get(id(config))
        if entry is None or entry[0] is not config:
            # a calibration profile is read by the check: its text is part of the key
            profile = _text_digest(config.calibration) if config.calibration else None
            entry = (config, _key([config, profile]) if profile else _key(config))
            if config.policies:  # the site policies it names are read by the check too
                from dclint.policy import policy_files

                files = policy_files(config, self.engine.config is None)
                entry = (config, _key([entry[1], [[f, _text_digest(f)] for f in files]]))
            self._configs[id(config)] = entry
        return entry[1]

    def _folder(self, file: str, config: Any) -> Path | None:
        """The cache folder of a design: beside its config, else at its repository root."""
        if config.file is not None:
            folder = self._config_folders.get(config.file)
            if folder is None:
                folder = Path(config.file).resolve().parent / DIRECTORY
                self._config_folders[config.file] = folder
            return folder
        start = Path(file).resolve().parent
        if start not in self._roots:
            self._roots[start] = next(
                (d / DIRECTORY for d in (start, *start.parents) if os.path.lexists(d / ".git")),
                None,
            )
        return self._roots[start]

    def _designs(self, folder: Path) -> dict[str, Any]:
        """The designs stored in `folder` under this run's key ({} if none, or unusable)."""
        if folder not in self._files:
            self._files[folder] = self._read(folder / f"{self.run_key[:32]}.json")
        return self._files[folder]

    def _read(self, path: Path) -> dict[str, Any]:
        from dclint.cli._seal import open_sealed, trusted_folder

        if not trusted_folder(str(path.parent)):
            return {}
        text = open_sealed(str(path), MAX_CACHE_BYTES, self.run_key)
        if text is None:
            return {}
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return {}
        if data.get("version") != __version__ or data.get("key") != self.run_key:
            return {}
        designs = data.get("designs")
        return designs if isinstance(designs, dict) else {}

    def replay(self) -> Replayed | None:
        """The run as stored, when every design it would check is stored unchanged; None
        (check them) otherwise."""
        split = self.split()
        if split is None or split.missing:
            return None
        return self.replayed(split, [])

    def split(self) -> Split | None:
        """The designs this run checks: those stored unchanged (read back) and those to check
        (changed, new, or not stored); None when the run cannot use the cache at all (a path
        that names no design, a design with no cache folder)."""
        from dclint.engine.runner import find_files

        engine = self.engine
        found = find_files(self.args.paths, engine)
        if found.problems or not found.files:
            return None
        split = Split(found.files, found.skipped)
        for file in found.files:
            config = engine.config_for(file)
            folder = self._folder(file, config)
            if folder is None:
                return None
            entry = self._designs(folder).get(file)
            if not isinstance(entry, dict) or entry.get("config") != self._config_key(config):
                split.missing.append(file)
                continue
            extra = _extra(self.args.format)
            if extra is not None and extra not in entry:
                split.missing.append(file)  # stored by a run that printed less of it
                continue
            try:
                inputs = _inputs(entry)
                if inputs[0][0] != file or any(
                    _text_digest(name) != digest for name, digest in inputs
                ):
                    split.missing.append(file)
                    continue
                result = _design_result(file, entry)
                if extra is not None:
                    split.assessed[file] = self._assessed(result, entry[extra])
                split.stored[file] = result
                if self.inputs is not None:
                    self.inputs[file] = inputs
            except _Missing:
                split.missing.append(file)
            except _Bad:
                self._files[folder] = {}  # a record of the wrong shape: the file is rewritten
                split.missing.append(file)
        return split

    def _assessed(self, result: DesignResult, value: Any) -> _Assessed:
        """A stored design as this run's format reads an assessment (its record's shape
        checked: _Bad)."""
        fmt = self.args.format
        out = _Assessed(result, self.engine)
        if fmt == "json":
            out.projected = _Projected(_dict(value))
            out.projected.projections  # noqa: B018 - its shape checked
            out.projected.unprojected  # noqa: B018
            out.projected.tco  # noqa: B018
        elif fmt == "junit":
            out.reasons = _reasons(value)
        else:
            out.shown = _shown(value, fmt)
        return out

    def replayed(
        self, split: Split, checked: list[DesignResult], assessed: list[Any] | None = None
    ) -> Replayed:
        """The run: the stored designs and those just `checked` (with their `assessed`
        assessments, for JSON), in the order it finds them."""
        from dclint.engine.runner import not_included

        by_file = {**split.stored, **{d.file: d for d in checked}}
        designs = [by_file[file] for file in split.files]
        for file in split.files:  # the site policies of each design's config join the run's
            config = self.engine.config_for(file)  # rules, as a check's do (SARIF and JUnit
            if config.policies:  # name each rule); none named: the rule pack is not imported
                self.engine.rules_for(config)
        result = RunResult(designs=designs, skipped=not_included(split.skipped, designs))
        result.rule_failures = sum("rule-failure" in f.tags for d in checked for f in d.findings)
        fail_on = self.engine.config_for(designs[0].file).fail_on
        if _extra(self.args.format) is None:
            return Replayed(result, fail_on, engine=self.engine)
        fresh = {a.result.file: a for a in self.presented(assessed or [])}
        designs = [fresh.get(f) or split.assessed[f] for f in split.files]
        return Replayed(result, fail_on, designs, self.engine)

    def store(self, result: RunResult, assessed: Any = None) -> None:
        """Keep what the run found for each design that loaded (quietly, if it cannot); with
        the run's `assessed` designs, what its format prints of each beyond its findings too
        (JSON: the projection; JUnit: why rules do not apply; a review: `Shown`)."""
        by_folder: dict[Path, dict[str, Any]] = {}
        extras = self._extras(assessed or [])
        for d in result.designs:
            config = self.engine.config_for(d.file)
            folder = self._folder(d.file, config)
            entry = None if folder is None else _entry(d, self._config_key(config))
            if entry is None or folder is None:
                self.inputs = None  # not stored: the run is not recorded either
                continue
            extra = _extra(self.args.format)
            if extra is not None and d.file in extras:
                entry[extra] = json.loads(json.dumps(extras[d.file]))
            by_folder.setdefault(folder, {})[d.file] = entry
            if self.inputs is not None:
                self.inputs[d.file] = [(name, digest) for name, digest in entry["inputs"]]
        for folder, new in by_folder.items():
            designs = {k: v for k, v in self._designs(folder).items() if k not in new}
            if len(designs) + len(new) > MAX_DESIGNS:
                designs = {}
            designs.update(new)
            data = {"schema": SCHEMA, "version": __version__, "key": self.run_key}
            text = json.dumps({**data, "designs": designs}, separators=(",", ":"))
            if len(text) > MAX_CACHE_BYTES:
                continue
            with contextlib.suppress(OSError):
                write(folder, f"{self.run_key[:32]}.json", text, self.run_key)

    def prints_designs(self) -> bool:
        """Whether this run's format prints more of a design than its findings (a run that
        checks some designs assesses them for it)."""
        return _extra(self.args.format) is not None

    def _extras(self, assessed: list[Any]) -> dict[str, Any]:
        """What this run's format prints of each assessed design beyond its findings, by
        file, as stored (see _extra)."""
        fmt = self.args.format
        loaded = [a for a in assessed if a.design is not None]
        if fmt == "json":
            from dclint.report.json_format import _projection

            return {a.result.file: _projection(a) for a in loaded}
        if fmt == "junit":
            from dclint.report.junit import reasons

            return {a.result.file: reasons(a) for a in loaded}
        if _extra(fmt) == _REVIEW:
            self._kept.update({a.result.file: _show(a, fmt) for a in loaded})
            return {a.result.file: _shown_data(self._kept[a.result.file]) for a in loaded}
        return {}

    def presented(self, assessed: list[Any]) -> list[Any]:
        """The run's assessed designs as its report reads them: in a review, each design
        whose review `store` kept reads it from there, as a replayed design does (so each is
        laid out once, and a first run prints what its replay will)."""
        if not self._kept:
            return assessed
        return [
            _Assessed(a.result, self.engine, shown=self._kept[a.result.file])
            if a.result.file in self._kept
            else a
            for a in assessed
        ]

    def record(self, out: str, code: int) -> None:
        """The run's record (dclint.cli._runs), for a report printed on standard output,
        nothing on standard error, no rules directory, site policies or calibration profile in
        effect."""
        snapshot, inputs, engine = self.snapshot, self.inputs, self.engine
        if snapshot is None or not inputs or self.args.format not in RECORDED:
            return
        if getattr(self.args, "output", None) or (self.stderr and self.stderr.written):
            return
        if engine.rules_dirs or (engine.config is not None and engine.config.rules_dirs):
            return
        configs = {}
        for file in inputs:
            config = engine.config_for(file)
            if config.calibration or config.rules_dirs or config.policies:
                return
            configs[file] = config.file
        argv = getattr(self.args, "argv", None)
        if argv is not None:
            commits = self.args.format in _COMMITS
            snapshot.record(list(argv), inputs, configs, out, code, commits)
