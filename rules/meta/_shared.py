"""What the meta rules share: each documents findings the engine or the loader reports itself
(a design that does not load, suppression comments, unit spellings), so none checks a design."""

from __future__ import annotations

from typing import ClassVar

from dclint.api import Rule


class ReportedByEngine(Rule):
    """A rule the engine (or the loader) reports for, never run on a design: its `check`
    finds nothing. Tagged `meta`, covering no review topic."""

    tags: ClassVar[tuple[str, ...]] = ("meta",)
    consequence: ClassVar[str] = "meta"
    covers: ClassVar[tuple[str, ...]] = ()

    def check(self, design: object, ctx: object) -> tuple[()]:
        return ()
