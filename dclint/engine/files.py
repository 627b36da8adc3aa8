"""Which files a `dclint check PATH ...` looks at, and which of them are designs.

A file given by name is always checked. A directory is searched recursively for `*.yaml` and
`*.yml` files, skipping hidden directories and files (`.github/`, `.dclint.yaml`), virtual
environments, `node_modules`, and anything matching the config's `exclude` globs. Directory
symlinks are not followed, so symlink loops cannot trap the search. A directory in the tree that
cannot be listed is an error, not a silent gap in the search.

A file found in a directory is checked only if it says it is a design (`says_design`): a line
`# dclint: design`, or a top-level `name` beside at least one top-level key only designs have
(`site`, `power`, `racks`, `extends`, ... : DESIGN_KEYS). A fragment (a rack-type library or
site profile, which has no `name`) is checked as part of the designs that include it; any other
YAML (a docker-compose file, a workflow) is skipped and counted. `# dclint: fragment` keeps a
file with a `name` out of the search. A file that cannot be read is treated as a design, so its
error is reported rather than hidden.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dclint.errors import Problem

__all__ = [
    "DESIGN_KEYS",
    "SKIP_DIRS",
    "SUFFIXES",
    "Found",
    "collect",
    "find_designs",
    "included_by",
    "includers",
    "is_design",
    "references",
    "says_design",
]

SKIP_DIRS = {"node_modules", "venv", ".venv", "__pycache__", "build", "dist", "site-packages"}
SUFFIXES = (".yaml", ".yml")
# the top-level keys of dclint.model.design.Design besides name and description, which other
# YAML has too (a test keeps this in step with the model: importing it here would cost pydantic)
DESIGN_KEYS = frozenset(
    {"extends", "include", "site", "power", "rack_types", "racks", "cooling", "fabrics"}
    | {"storage", "workloads", "cost", "catalog", "origins"}
)


@cache
def _top_key() -> re.Pattern[str]:
    """A top-level key (compiled on first use: a check of named files sniffs none)."""
    return re.compile(r"""^(["']?)([A-Za-z_][A-Za-z0-9_-]*)\1[ \t]*:(?:[ \t]|$)""", re.M)


@cache
def _marker() -> re.Pattern[str]:
    """A `# dclint: design` or `# dclint: fragment` line."""
    return re.compile(r"^[ \t]*#[ \t]*dclint:[ \t]*(design|fragment)[ \t]*$", re.M)


_MAX_SNIFF = 10 * 1024 * 1024  # a larger file is left to the loader, which refuses it


@dataclass
class Found:
    """What a search found: the files to check, the YAML skipped as not designs, the YAML a
    config's `exclude` left out, and problems for paths that do not exist or directories that
    cannot be listed."""

    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


def says_design(text: str) -> bool:
    """Whether YAML text declares itself a design (see the module docstring for the rule)."""
    marker = _marker().search(text)
    if marker is not None:
        return marker.group(1) == "design"
    keys = {m.group(2) for m in _top_key().finditer(text)}
    return "name" in keys and not keys.isdisjoint(DESIGN_KEYS)


def is_design(path: str | os.PathLike[str]) -> bool:
    """Whether the file at `path` is a design; one that cannot be read counts as one (the
    loader then reports why), and so does anything that is not a regular file."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, _MAX_SNIFF)
    except FileRejected:
        return True
    return says_design(raw.decode("utf-8", errors="replace"))


def references(path: Path) -> list[Path]:
    """The files a YAML file includes or extends, resolved against its own directory (as the
    loader resolves them); [] for a file that cannot be read or has neither key."""
    from dclint.loader.readfile import FileRejected, read_regular
    from dclint.loader.yamlsafe import read_yaml

    try:
        text = read_regular(path, _MAX_SNIFF).decode("utf-8", errors="replace")
        if "include" not in text and "extends" not in text:
            return []
        data, _ = read_yaml(str(path), text)
    except (FileRejected, Exception):  # not YAML: the check reports it if it is a design
        return []
    if not isinstance(data, dict):
        return []
    out = []
    for key in ("extends", "include"):
        refs = data.get(key)
        for ref in refs if isinstance(refs, list) else [refs]:
            if isinstance(ref, str) and ref.endswith(SUFFIXES):
                try:
                    out.append((path.parent / ref).resolve())
                except (OSError, RuntimeError, ValueError):  # a loop, a NUL, a name too long:
                    continue  # the check reports it at the include's line
    return out


def included_by(designs: list[str]) -> dict[Path, str]:
    """Each file the `designs` include or extend, directly or through other fragments (by its
    resolved path), and the first design that reaches it."""
    out: dict[Path, str] = {}
    for design in designs:
        stack = references(Path(design))
        while stack:
            path = stack.pop()
            if path not in out:
                out[path] = design
                stack.extend(references(path))
    return out


def includers(designs: list[str]) -> dict[Path, list[str]]:
    """Each file the `designs` include or extend, directly or through other fragments (by its
    resolved path), and every design that reaches it, in the order given."""
    out: dict[Path, list[str]] = {}
    refs: dict[Path, list[Path]] = {}

    def cached(path: Path) -> list[Path]:
        if path not in refs:
            refs[path] = references(path)
        return refs[path]

    for design in designs:
        seen: set[Path] = set()
        stack = list(cached(Path(design)))
        while stack:
            path = stack.pop()
            if path in seen:
                continue
            seen.add(path)
            out.setdefault(path, []).append(design)
            stack.extend(cached(path))
    return out


def find_designs(paths: list[str], exclude: tuple[str, ...] = ()) -> Found:
    """The files to check under `paths`: every file named, and the designs among the YAML
    files found in directories; the others found there are `skipped`."""
    excluded: list[str] = []
    files, problems = collect(paths, exclude, excluded)
    named = {os.path.normpath(p) for p in paths}
    found = Found(problems=problems, excluded=excluded)
    for file in files:
        if os.path.normpath(file) in named or is_design(file):
            found.files.append(file)
        else:
            found.skipped.append(file)
    return found


def collect(
    paths: list[str], exclude: tuple[str, ...] = (), excluded: list[str] | None = None
) -> tuple[list[str], list[Problem]]:
    """Design files under `paths` in a stable order, and problems for paths that do not exist;
    the YAML files `exclude` leaves out of a directory's search are added to `excluded`."""
    files: list[str] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for raw in paths:
        kind = _kind_of(raw)
        if kind == "directory":
            found = _walk(Path(raw), exclude, problems, excluded)
        elif kind == "file":
            found = [raw]
        else:
            problems.append(Problem(raw, 1, 1, kind))
            continue
        for file in found:
            key = os.path.normpath(file)
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files, problems


def _kind_of(raw: str) -> str:
    """'directory', 'file' (a dangling symlink too: the loader says why it cannot be read), or
    why the path cannot be checked: missing, a symlink loop, a name too long, a parent
    directory that cannot be searched."""
    import errno
    import stat

    try:
        info = os.stat(raw)
    except FileNotFoundError:
        return "file" if os.path.islink(raw) else "no such file or directory"
    except ValueError:
        return "cannot read file: the path holds a NUL byte"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "cannot read file: symbolic link loop"
        return f"cannot read file: {exc.strerror or exc}"
    return "directory" if stat.S_ISDIR(info.st_mode) else "file"


def _walk(
    root: Path,
    exclude: tuple[str, ...],
    problems: list[Problem],
    excluded: list[str] | None = None,
) -> list[str]:
    out = []

    def unreadable(exc: OSError) -> None:  # a directory that cannot be listed is not skipped
        where = exc.filename if exc.filename is not None else str(root)
        reason = exc.strerror or str(exc)
        problems.append(Problem(os.fspath(where), 1, 1, f"cannot read directory: {reason}"))

    for directory, dirs, names in os.walk(root, followlinks=False, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(names):
            if name.startswith(".") or not name.endswith(SUFFIXES):
                continue
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in exclude):
                if excluded is not None:
                    excluded.append(full)
                continue
            out.append(full)
    return out
