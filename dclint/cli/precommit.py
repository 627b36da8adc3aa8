"""The pre-commit hook (the `dclint-pre-commit [OPTIONS] FILES` console script): check the designs
among the changed files, and for a changed fragment (a file other designs `include:` or
`extends:`, such as a rack-type library or a site profile) the designs built on it instead.

The published hook passes every YAML file (`types: [yaml]`, wherever it lives) and dclint
decides: a file that is not a design by dclint.engine.files' rule (a top-level `name` beside
design sections, or a `# dclint: design` line) is a fragment, never checked on its own; a base
design is checked itself, and so are the designs extending it; a file that is neither a design
nor reached by one (a docker-compose file, a CI workflow) is skipped silently. Designs are found
among the repository's YAML files (`git ls-files`, or the files under the working directory),
reading only those that mention `include` or `extends`.

The config's `exclude` holds for the files the hook passes (`--force-exclude`, as ruff's hook
does): `pre-commit run --all-files` does not check an excluded, archived design.
`--no-force-exclude` in the hook's `args` turns that off.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from dclint.engine.files import is_design, references

__all__ = ["affected", "main", "references", "run"]

SUFFIXES = (".yaml", ".yml")
CONFIG_NAMES = {".dclint.yaml", ".dclint.yml", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml"}
# check's options that take a value: the word after them is not a file
_VALUED = {"--config", "--select", "--ignore", "--extend-select", "--format", "-o", "--output"}
_VALUED |= {"--fail-on", "--rules-dir", "--set", "--baseline", "--write-baseline", "--today"}


def _repository_yaml(root: Path) -> list[Path]:
    try:
        listed = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
                "*.yaml",
                "*.yml",
            ],
            capture_output=True,
            check=True,
            timeout=30,
        ).stdout.decode("utf-8", "replace")
        files = [root / p for p in listed.split("\0") if p]
    except (OSError, subprocess.SubprocessError):
        files = [p for s in SUFFIXES for p in root.rglob(f"*{s}") if ".git" not in p.parts]
    return [p for p in files if p.name not in CONFIG_NAMES and p.is_file()]


def affected(changed: Iterable[Path], candidates: Iterable[Path]) -> list[Path]:
    """The designs to check for `changed` files: each changed design, and every design that
    includes or extends a changed file, directly or through other fragments. A file that is not
    a design (dclint.engine.files.is_design) is a fragment: never checked on its own."""
    users: dict[Path, list[Path]] = {}
    for file in candidates:
        for ref in references(file):
            users.setdefault(ref, []).append(_resolved(file))
    out: dict[Path, None] = {}
    seen: set[Path] = set()
    stack = [_resolved(p) for p in changed]
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        if is_design(path):
            out[path] = None
        stack.extend(users.get(path, []))
    return sorted(out)


def _resolved(path: Path) -> Path:
    """`path` resolved; as given (made absolute) when it cannot be (a symlink loop, a name too
    long): the check then says why at its line."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return path.absolute()


def main(argv: list[str] | None = None) -> int:
    from dclint.cli import main as dclint

    args = list(sys.argv[1:] if argv is None else argv)
    options: list[str] = []
    files: list[Path] = []
    for i, arg in enumerate(args):
        valued = i > 0 and args[i - 1] in _VALUED
        if not valued and not arg.startswith("-") and arg.endswith(SUFFIXES):
            files.append(Path(arg))
        else:
            options.append(arg)
    if not files:
        return 0
    cwd = Path.cwd()
    designs = affected(files, _repository_yaml(cwd))
    if not designs:
        return 0  # only fragments, and no design uses them yet
    shown = [str(p.relative_to(cwd)) if p.is_relative_to(cwd) else str(p) for p in designs]
    force = [] if "--no-force-exclude" in options else ["--force-exclude"]
    return dclint(["check", "--quiet", *force, *options, *shown])


def run() -> None:
    """The `dclint-pre-commit` console script: main(), its output flushed, then the process ends
    as `dclint` does (dclint.cli.run)."""
    from dclint.cli import finish

    finish(main)


if __name__ == "__main__":
    run()
