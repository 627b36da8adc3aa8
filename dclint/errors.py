"""dclint's exceptions and the record of a problem found while loading."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ConfigError", "DclintError", "LoadError", "Problem", "printable"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\n`): text from
    a design (a key holding ESC or a newline) cannot write terminal escape sequences or CI
    workflow commands into a log, whatever the output format."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class DclintError(Exception):
    """Base of every error dclint raises on purpose."""


@dataclass(frozen=True, order=True)
class Problem:
    """One load or config problem at a 1-based line and column."""

    file: str
    line: int
    column: int
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "file", printable(self.file))
        object.__setattr__(self, "message", printable(self.message))

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class LoadError(DclintError):
    """A design that cannot be read or is invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(str(problems[0]) if problems else "invalid design")
        self.problems = sorted(problems)


class ConfigError(DclintError):
    """Invalid configuration, command-line usage or rule set."""

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(printable(message))
        self.problems = problems or []
