"""A place in a design's files (dclint.model.source), in a module of its own: imported on the
first position asked for (a finding's, an error's), so a clean check does not create the class
(the standard library compiles each generated method of a dataclass: a few million
instructions a class, ten methods for a frozen, ordered one)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Position"]


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    file: str
    line: int
    column: int
