"""A plugin rule whose check raises: the engine must report it, not crash."""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design


class AlwaysFails(Rule):
    id = "TST901"
    name = "always-fails"
    severity = "error"
    tags = ("test",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        raise ZeroDivisionError("plugin bug")
        yield  # pragma: no cover - makes this a generator
