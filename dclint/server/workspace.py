"""What the editor server knows, without the protocol: open buffers, which designs include a
fragment, and each design's findings grouped by the file they point at.

The protocol layer (dclint.server.lsp) turns these records into LSP messages; this module is
plain Python so that it is tested and reused without pygls. A check reads the editor's unsaved
text for the document and for every open fragment it includes, and the files on disk for the
rest, with the configuration `dclint check` would find for that file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dclint.errors import LOAD_ERROR_ID, ConfigError, LoadError, Problem

__all__ = ["Diagnostic", "Workspace"]

SUFFIXES = (".yaml", ".yml")
CONFIG_NAMES = {".dclint.yaml", ".dclint.yml", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml"}


@dataclass(frozen=True)
class Diagnostic:
    """One finding or load problem in one file, 1-based as dclint prints it."""

    file: str
    line: int
    column: int
    rule: str
    severity: str  # error | warning | info
    message: str
    design: str = ""  # the design file the check ran on (differs for a fragment)
    fix: str = ""
    finding: Any = field(default=None, compare=False)  # engine.findings.Finding: its fixes


@dataclass
class Workspace:
    """Open documents (absolute path -> text) and the last check of each design."""

    root: Path
    engine_args: dict[str, Any] = field(default_factory=dict)
    buffers: dict[Path, str] = field(default_factory=dict)
    # design file -> its diagnostics by the file they point at
    results: dict[Path, dict[Path, list[Diagnostic]]] = field(default_factory=dict)
    checked: dict[Path, Any] = field(default_factory=dict)  # design file -> DesignResult
    # a fragment open on its own (no design includes it yet): its own load and unit problems
    alone: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    _engine: Any = field(default=None, init=False, repr=False)
    _users: dict[Path, list[Path]] | None = field(default=None, init=False, repr=False)

    # --- buffers -----------------------------------------------------------------------
    def open(self, path: Path, text: str) -> None:
        path = path.resolve()
        before = self.buffers.get(path)
        self.buffers[path] = text
        if _refers(before) or _refers(text):
            self._users = None  # its includes may have changed

    def close(self, path: Path) -> None:
        self.buffers.pop(path.resolve(), None)

    def text(self, path: Path) -> str | None:
        """The editor's buffer, else the file as `check` reads it: a regular file within the
        design size limit (a FIFO, a device or a 50 MB file named *.yaml: None)."""
        from dclint.loader.readfile import FileRejected, read_regular
        from dclint.loader.yamlsafe import MAX_BYTES

        path = path.resolve()
        if path in self.buffers:
            return self.buffers[path]
        try:
            return read_regular(path, MAX_BYTES).decode("utf-8")
        except (FileRejected, UnicodeDecodeError):
            return None

    # --- the engine ----------------------------------------------------------------------
    @property
    def engine(self) -> Any:
        if self._engine is None:
            from dclint.engine.runner import Engine

            self._engine = Engine(**self.engine_args)
        return self._engine

    def reload_config(self) -> None:
        """A configuration file changed: rules and configs are read again on the next check."""
        self._engine = None

    def is_policy_file(self, path: Path) -> bool:
        """Whether `path` is a site policy file the checks so far have read (dclint.policy):
        its change reloads the configuration as a config file's does."""
        if self._engine is None:
            return False
        return os.path.realpath(path) in self._engine.policy_files()

    def _read_part(self, name: str) -> tuple[Any, Any]:
        """Read an included file, preferring the editor's unsaved buffer."""
        from dclint.loader.load import _read_part
        from dclint.loader.yamlsafe import YamlError, read_yaml

        buffer = self.buffers.get(Path(name).resolve())
        if buffer is None:
            return _read_part(name)
        try:
            return read_yaml(name, buffer)
        except YamlError as exc:
            raise LoadError(exc.problems) from None

    # --- which files are designs ---------------------------------------------------------
    def is_design(self, path: Path) -> bool:
        """A design has a top-level `name` (a fragment never does), as the hook decides."""
        data = self._data(path)
        return isinstance(data, dict) and "name" in data

    def _data(self, path: Path) -> Any:
        from dclint.loader.yamlsafe import read_yaml

        text = self.text(path)
        if text is None:
            return None
        try:
            data, _ = read_yaml(str(path), text)
        except Exception:  # not YAML yet (the user is typing): checked as a design, if named
            return None
        return data

    def references(self, path: Path) -> list[Path]:
        """The files `path` includes or extends (its open buffer first)."""
        text = self.text(path)
        if text is None or ("include" not in text and "extends" not in text):
            return []
        data = self._data(path)
        if not isinstance(data, dict):
            return []
        out = []
        for key in ("extends", "include"):
            refs = data.get(key)
            for ref in refs if isinstance(refs, list) else [refs]:
                if isinstance(ref, str) and ref.endswith(SUFFIXES):
                    out.append((path.parent / ref).resolve())
        return out

    def _candidates(self) -> Iterable[Path]:
        """Open buffers, then the workspace's YAML files: regular files only (a FIFO or a
        device named *.yaml is never opened), a symlink only to a file inside the workspace;
        directory symlinks are not followed."""
        seen: set[Path] = set()
        for path in self.buffers:
            seen.add(path)
            yield path
        root = self.root.resolve()
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "node_modules"]
            for name in filenames:
                if name.endswith(SUFFIXES) and name not in CONFIG_NAMES:
                    found = _regular_inside(Path(dirpath) / name, root)
                    if found is not None and found not in seen:
                        seen.add(found)
                        yield found

    def users(self) -> dict[Path, list[Path]]:
        """Who includes or extends each file (cached until a file's references change)."""
        if self._users is None:
            users: dict[Path, list[Path]] = {}
            for file in self._candidates():
                for ref in self.references(file):
                    users.setdefault(ref, []).append(file)
            self._users = users
        return self._users

    def forget_references(self) -> None:
        self._users = None

    def designs_for(self, path: Path) -> list[Path]:
        """The designs to check when `path` changes: itself if it is a design, and every
        design that includes or extends it, directly or through other fragments. Other YAML
        (a fragment nobody includes yet, a CI file) gets no diagnostics."""
        path = path.resolve()
        users = self.users()
        out: set[Path] = set()
        seen: set[Path] = set()
        stack = [path]
        while stack:
            here = stack.pop()
            if here in seen:
                continue
            seen.add(here)
            if self.is_design(here):
                out.add(here)
            stack.extend(users.get(here, []))
        if not out and path in self.results and self._data(path) is None:
            out.add(path)  # a design whose text does not parse as it is typed: say where
        return sorted(out)

    # --- checks --------------------------------------------------------------------------
    def check(self, design: Path) -> dict[Path, list[Diagnostic]]:
        """Check one design (its unsaved text if open): its diagnostics by file."""
        from dclint.loader.yamlsafe import MAX_BYTES

        design = design.resolve()
        shown = _shown(design)
        text = self.buffers.get(design)
        engine = self.engine
        try:
            if text is not None and len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
                raise LoadError(
                    [
                        Problem(
                            shown, 1, 1, f"file is over the {MAX_BYTES:,}-byte limit for a design"
                        )
                    ]
                )
            result = engine.check_text(shown, text, read_part=self._read_part)
            if result.design is not None:
                self._price(result)
        except ConfigError as exc:
            result = None
            problems = [Problem(shown, 1, 1, f"configuration: {exc}")]
        except RecursionError:
            result = None
            problems = [Problem(shown, 1, 1, "design too deeply nested to check")]
        except LoadError as exc:
            result = None
            problems = list(exc.problems)
        by_file: dict[Path, list[Diagnostic]] = {design: []}
        if result is not None:
            from dclint.engine.rollup import kinds, roll_up

            problems = list(result.errors)
            # one diagnostic a defect, as `check` prints one line: eight racks of a type over
            # the limit are one diagnostic naming them
            for group in roll_up(result.findings, kinds(result.design)):
                f = group.first
                target = _absolute(f.file)
                fix = f.fix
                if f.impact is not None:
                    fix = f"{fix} ({f.impact.text()})" if fix else f.impact.text()
                message = f.message + (f" [{group.scope()}]" if group.count > 1 else "")
                by_file.setdefault(target, []).append(
                    Diagnostic(
                        str(target), f.line, f.column, f.rule, f.severity, message, shown, fix, f
                    )
                )
            self.checked[design] = result
        for p in problems:
            target = _absolute(p.file)
            by_file.setdefault(target, []).append(
                Diagnostic(str(target), p.line, p.column, LOAD_ERROR_ID, "error", p.message, shown)
            )
        self.results[design] = by_file
        return by_file

    def _price(self, result: Any) -> None:
        """Findings whose fix changes the projection carry their days and money, as in check."""
        try:
            from dclint.analysis.assess.assessment import assess_design

            assess_design(result, self.engine)  # the assessment check and dclint.run() read
        except Exception:  # pricing is extra: a diagnostic without a price still helps
            return

    def changed(self, path: Path) -> dict[Path, list[Diagnostic]]:
        """Re-check what a change to `path` affects; diagnostics for every file they touch
        (an empty list clears a file's old diagnostics)."""
        path = path.resolve()
        touched: set[Path] = {path}
        designs = self.designs_for(path)
        self.alone.pop(path, None)
        if not designs and path in self.buffers and _fragment_text(self.buffers[path]):
            self.alone[path] = self.check_alone(path)
        for design in designs:
            before = set(self.results.get(design, {}))
            touched |= before
            touched |= set(self.check(design))
        return {file: self.diagnostics(file) for file in sorted(touched)}

    def check_alone(self, path: Path) -> list[Diagnostic]:
        """The problems a fragment no design includes has on its own: YAML syntax, values
        that do not read (units, numbers, a wrong kind of value). What an including design
        supplies (its `name`, a rack type defined elsewhere) is not asked of it."""
        from dclint.loader.load import load_text
        from dclint.loader.yamlsafe import MAX_BYTES

        text = self.buffers.get(path) or ""
        shown = _shown(path)
        lines = max(len(text.splitlines()), 1)
        if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            message = f"file is over the {MAX_BYTES:,}-byte limit for a design"
            return [Diagnostic(str(path), 1, 1, LOAD_ERROR_ID, "error", message, shown)]
        # a name appended after the text (its lines keep their numbers) makes it a design
        ending = "" if text.endswith("\n") or not text else "\n"
        try:
            load_text(text + ending + "name: fragment-alone\n", shown, read_part=self._read_part)
        except LoadError as exc:
            return [
                Diagnostic(
                    str(path),
                    min(p.line, lines),
                    p.column,
                    LOAD_ERROR_ID,
                    "error",
                    p.message,
                    shown,
                )
                for p in exc.problems
                if not _supplied_by_includer(p.message)
            ]
        except (ConfigError, RecursionError, ValueError):
            return []
        return []

    def diagnostics(self, file: Path) -> list[Diagnostic]:
        """Every design's diagnostics on `file`, one a defect: a fragment gathers its
        includers', and a defect several of them report is one diagnostic naming them
        (`[in 3 designs: hall-a, hall-b, hall-c]`), as `check` reports it."""
        from dataclasses import replace

        out: dict[tuple[Any, ...], list[Diagnostic]] = {}
        for d in self.alone.get(file, []):
            out.setdefault((d.line, d.column, d.rule), []).append(d)
        for by_file in self.results.values():
            for d in by_file.get(file, []):
                out.setdefault((d.line, d.column, d.rule), []).append(d)
        merged = []
        for same in out.values():
            first = same[0]
            names = sorted({Path(d.design).stem for d in same})
            if len(names) > 1:
                first = replace(
                    first, message=f"{first.message} [in {len(names)} designs: {', '.join(names)}]"
                )
            merged.append(first)
        return sorted(merged, key=lambda d: (d.line, d.column, d.rule))


def _regular_inside(path: Path, root: Path) -> Path | None:
    """`path` resolved, if it is a regular file (after symlinks) inside `root`; else None."""
    import stat

    try:
        resolved = path.resolve()
        if not resolved.is_relative_to(root):
            return None
        mode = os.stat(resolved).st_mode
    except (OSError, RuntimeError, ValueError):
        return None
    return resolved if stat.S_ISREG(mode) else None


def _fragment_text(text: str) -> bool:
    """Whether YAML text reads as a dclint fragment: a top-level design section (`racks`,
    `rack_types`, `site`, ...) and no `name` (a docker-compose file or a workflow is not)."""
    from dclint.engine.files import DESIGN_KEYS, _top_key

    keys = {m.group(2) for m in _top_key().finditer(text)}
    return "name" not in keys and not keys.isdisjoint(DESIGN_KEYS)


def _supplied_by_includer(message: str) -> bool:
    """A problem an including design would resolve: a missing key, a reference to what
    another file defines (`unknown rack type 'nvl72'`); never a unit or a value's form."""
    import re

    return "missing required" in message or re.search(r"\bunknown (?!unit)", message) is not None


def _refers(text: str | None) -> bool:
    return text is not None and ("include" in text or "extends" in text)


def _shown(path: Path) -> str:
    """The name a finding carries: relative to the working directory where it can be."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _absolute(name: str) -> Path:
    return Path(name).resolve()
