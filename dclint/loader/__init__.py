"""Loading designs: safe YAML with positions, validation into models, reference resolution."""

from __future__ import annotations

import importlib
import sys
import types

# typing.TYPE_CHECKING without importing typing (milliseconds of every start, the cached one too)
TYPE_CHECKING = False


if TYPE_CHECKING:
    from typing import Any

    from dclint.loader.load import load, load_text

__all__ = ["load", "load_text"]


def __getattr__(name: str) -> Any:
    # load and load_text are imported on first use: reading a file (readfile) or YAML
    # (yamlsafe), as config discovery and a cached check do, must not cost pydantic and pint
    if name in __all__:
        value = getattr(importlib.import_module("dclint.loader.load"), name)
        globals()[name] = value
        return value
    raise AttributeError(name)


class _Package(types.ModuleType):
    """Importing the submodule dclint.loader.load binds the package's `load` to that module;
    `dclint.loader.load` stays the function (as when it was imported eagerly here), and the
    module stays reachable as `from dclint.loader.load import ...` (through sys.modules)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "load" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
