"""Which files a `dclint check PATH ...` looks at.

A file given by name is always checked. A directory is searched recursively for `*.yaml` and
`*.yml` files, skipping hidden directories and files (`.github/`, `.dclint.yaml`), virtual
environments, `node_modules`, and anything matching the config's `exclude` globs. Directory
symlinks are not followed, so symlink loops cannot trap the search. A directory in the tree that
cannot be listed is an error, not a silent gap in the search.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

from dclint.errors import Problem

__all__ = ["collect"]

_SKIP_DIRS = {"node_modules", "venv", ".venv", "__pycache__", "build", "dist", "site-packages"}
_SUFFIXES = (".yaml", ".yml")


def collect(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[str], list[Problem]]:
    """Design files under `paths` in a stable order, and problems for paths that do not exist."""
    files: list[str] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = _walk(path, exclude, problems)
        elif path.exists() or path.is_symlink():
            try:
                path.resolve(strict=path.exists())
            except (OSError, RuntimeError):  # a symlink loop: config lookup could not resolve it
                problems.append(Problem(raw, 1, 1, "cannot read file: symbolic link loop"))
                continue
            found = [raw]
        else:
            problems.append(Problem(raw, 1, 1, "no such file or directory"))
            continue
        for file in found:
            key = os.path.normpath(file)
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files, problems


def _walk(root: Path, exclude: tuple[str, ...], problems: list[Problem]) -> list[str]:
    out = []

    def unreadable(exc: OSError) -> None:  # a directory that cannot be listed is not skipped
        where = exc.filename if exc.filename is not None else str(root)
        reason = exc.strerror or str(exc)
        problems.append(Problem(os.fspath(where), 1, 1, f"cannot read directory: {reason}"))

    for directory, dirs, names in os.walk(root, followlinks=False, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(names):
            if name.startswith(".") or not name.endswith(_SUFFIXES):
                continue
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in exclude):
                continue
            out.append(full)
    return out
