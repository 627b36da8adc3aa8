"""Each design file's git commit, as a review and the Markdown and HTML reports print it (and a
run record of one compares it again: dclint.cli._runs). Imports subprocess only."""

from __future__ import annotations

import os
import subprocess

__all__ = ["commits"]


def commits(files: list[str]) -> dict[str, str]:
    """Each design file's commit ('<sha>', with ' (file modified since)' when the file differs
    from it); '' when it is not in a git work tree or git is not installed. Two git calls a
    folder of designs."""
    folders: dict[str, list[str]] = {}
    for file in files:
        folders.setdefault(os.path.dirname(os.path.realpath(file)), []).append(file)
    out = dict.fromkeys(files, "")
    for folder, inside in folders.items():
        paths = [os.path.realpath(f) for f in inside]
        try:
            top, commit = _git(folder, "rev-parse", "--show-toplevel", "HEAD").split()
            status = _git(folder, "status", "--porcelain", "-z", "--", *paths)
        except (OSError, subprocess.SubprocessError, ValueError):
            continue  # not a repository (or no commit yet): say nothing
        changed = {
            os.path.realpath(os.path.join(top, entry[3:]))
            for entry in status.split("\0")
            if entry[3:]
        }
        for file, path in zip(inside, paths, strict=True):
            out[file] = commit[:12] + (" (file modified since)" if path in changed else "")
    return out


def _git(folder: str, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", folder, *args], capture_output=True, text=True, timeout=10, check=True
    )
    return done.stdout
