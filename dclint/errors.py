"""dclint's exceptions and the record of a problem found while loading."""

from __future__ import annotations

from dataclasses import dataclass

from dclint.escaping import printable

__all__ = ["LOAD_ERROR_ID", "ConfigError", "DclintError", "LoadError", "Problem", "printable"]


# the id a design that does not load is reported under (the DCL000 rule documents it; reports,
# the server and dclint.testing name it through this constant, never the string)
LOAD_ERROR_ID = "DCL000"


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
