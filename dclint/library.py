"""The library's entry point, `dclint.run()`: check designs and assess them, as `dclint check`
does (the command line's entry point is dclint.cli). The root package exposes it lazily, so
that `import dclint` reaches neither the engine nor the assessment."""

from __future__ import annotations

from collections.abc import Sequence

from dclint.analysis.assess.assessment import RunAssessment, assess
from dclint.engine.runner import Engine

__all__ = ["run"]


def run(paths: str | Sequence[str], engine: Engine | None = None) -> RunAssessment:
    """Check the designs under `paths` (files or directories) and assess them: the library
    entry point, `dclint.run()`. `engine` carries a configuration, a rule selection, extra
    rule directories and the date (default: each file's own configuration, today). Raises
    `dclint.ConfigError` for a bad configuration; a design that does not load is an error
    in its `Assessment`, never an exception."""
    from dclint.engine.runner import run as run_engine

    engine = engine or Engine()
    paths = [paths] if isinstance(paths, str) else list(paths)
    return assess(run_engine(paths, engine), engine)
