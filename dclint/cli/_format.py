"""One way for every command to choose its report format: `--format` when given, else the
`--output` file's suffix, else the command's default. A suffix names a format the command
cannot write: one error line, before any work."""

from __future__ import annotations

import argparse
from pathlib import PurePath

__all__ = ["SUFFIXES", "choose_format"]

# a suffix -> the formats it may mean, in order of preference
SUFFIXES: dict[str, tuple[str, ...]] = {
    ".txt": ("text",),
    ".json": ("json",),
    ".sarif": ("sarif",),
    ".xml": ("junit",),
    ".md": ("markdown",),
    ".markdown": ("markdown",),
    ".html": ("html",),
    ".htm": ("html",),
    ".pdf": ("pdf",),
    ".csv": ("csv",),
    ".docx": ("docx",),
    ".xlsx": ("xlsx",),
}
_FLAGS = ("--format", "--output-format")


def _given(argv: list[str]) -> bool:
    """Whether the command line names the format itself."""
    return any(a in _FLAGS or a.startswith(tuple(f + "=" for f in _FLAGS)) for a in argv)


def _choices(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    for action in parser._actions:
        if action.dest == "format" and action.choices is not None:
            return tuple(action.choices)
    return ()


def _listed(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def choose_format(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Set `args.format` from the `--output` suffix where the command line names no format.
    Raises ConfigError when the suffix names a format the command does not write."""
    output = getattr(args, "output", None)
    choices = _choices(parser)
    if not output or not choices or _given(args.argv):
        return
    suffix = PurePath(str(output)).suffix.lower()
    wanted = SUFFIXES.get(suffix)
    if wanted is None:
        return  # no suffix, or one that names no format: the command's default
    for name in wanted:
        if name in choices:
            args.format = name
            return
    from dclint.errors import ConfigError

    raise ConfigError(
        f"--output {output}: `dclint {args.command}` does not write {_listed(wanted)}; "
        f"it writes {_listed(choices)} (name one with --format, or use its suffix)"
    )
