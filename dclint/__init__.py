"""dclint: a declarative datacenter-design linter and rules engine."""

from __future__ import annotations

from dclint._version import __version__

# typing.TYPE_CHECKING without importing typing (milliseconds of every start, the cached one too)
TYPE_CHECKING = False

__all__ = [
    "ConfigError",
    "DclintError",
    "Design",
    "LoadError",
    "__version__",
    "dump",
    "load",
    "load_text",
    "run",
    "topology_of",
]

if TYPE_CHECKING:
    from typing import Any

    from dclint.errors import ConfigError, DclintError, LoadError
    from dclint.library import run
    from dclint.loader import load, load_text
    from dclint.loader.dump import dump
    from dclint.model.design import Design
    from dclint.model.resolve import topology_of


def __getattr__(name: str) -> Any:
    # Lazy, so that `dclint --version` and `dclint rules` do not import pint or pydantic.
    if name in ("load", "load_text"):
        from dclint import loader

        return getattr(loader, name)
    if name == "dump":
        from dclint.loader.dump import dump

        return dump
    if name == "Design":
        from dclint.model.design import Design

        return Design
    if name == "topology_of":
        from dclint.model.resolve import topology_of

        return topology_of
    if name == "run":
        from dclint.library import run  # the library's entry point, above the assessment

        return run
    if name in ("LoadError", "DclintError", "ConfigError"):
        from dclint import errors

        return getattr(errors, name)
    raise AttributeError(name)
