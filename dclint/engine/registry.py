"""Rule discovery: the built-in pack, installed packs (entry points) and `--rules-dir`."""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import os
import pkgutil
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from dclint.engine.rule import SEVERITIES, Rule
from dclint.errors import ConfigError

__all__ = ["ENTRY_POINT_GROUP", "RULE_ID", "USER_PREFIX", "discover", "policy_rules"]

ENTRY_POINT_GROUP = "dclint.rules"
BUILTIN = "dclint.rules"
# Site policies (YAML a config names) become rules through this package, loaded by name as the
# built-in pack is, and only when a config names policies
POLICIES = "dclint.policy"
# A rule id: two to five capital letters (the family), three digits. Ids beginning with
# USER_PREFIX are users' own: no built-in rule takes one, so a plug-in never collides with a
# later release's rule.
RULE_ID = re.compile(r"^[A-Z]{2,5}\d{3}$")
USER_PREFIX = "X"
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _rules_in(module: ModuleType) -> list[type[Rule]]:
    found = []
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Rule)
            and value is not Rule
            and value.__module__ == module.__name__
            and "id" in vars(value)
        ):
            found.append(value)
    return found


def _modules_of(package: ModuleType) -> list[ModuleType]:
    """A pack's rule modules: its modules and those of its sub-packages (the built-in pack's
    families, rules/power/ ...), sorted by name; names beginning with `_` (a family's helpers)
    are not rule modules."""
    if not hasattr(package, "__path__"):
        return [package]
    found = sorted(
        (m.name, m.ispkg) for m in pkgutil.iter_modules(package.__path__) if m.name[0] != "_"
    )
    modules = []
    for name, ispkg in found:
        module = importlib.import_module(f"{package.__name__}.{name}")
        modules += _modules_of(module) if ispkg else [module]
    return modules


LOCAL = "dclint_local_rules"  # the package a --rules-dir is loaded as (a digest of its path)


def _from_dir(directory: str) -> list[ModuleType]:
    """A `--rules-dir`'s rule modules, loaded as a package, as an installed pack is: its
    modules and those of its folders (family folders as the built-in pack's), each with its
    relative imports (`from ._shared import ...`); names beginning with `_` or `.` are not rule
    modules. Loaded afresh on each call: a server or `watch` sees an edited rule."""
    root = Path(directory)
    if not os.path.isdir(directory):  # False, not OSError, for a name too long
        raise ConfigError(f"--rules-dir {directory}: not a directory")
    import hashlib

    name = f"{LOCAL}_{hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]}"
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]
    importlib.invalidate_caches()
    init = root / "__init__.py"
    spec = (
        importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(root)])
        if init.is_file()
        else None
    )
    if spec is None:  # a folder of modules: a package without code of its own
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(root)]
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    loader = spec.loader
    if loader is not None:

        def run_init() -> ModuleType:
            loader.exec_module(package)
            return package

        _exec(run_init, init)
    modules = []
    for file in _rule_files(root):
        dotted = ".".join(file.relative_to(root).with_suffix("").parts)
        modules.append(_exec(lambda d=dotted: importlib.import_module(f"{name}.{d}"), file))
    return modules


def _rule_files(root: Path) -> list[Path]:
    """The `.py` files below `root` that are rule modules, sorted by their path."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d[0] not in "_." and d != "examples")
        found += [Path(folder, f) for f in files if f.endswith(".py") and f[0] not in "_."]
    return sorted(found, key=lambda p: p.relative_to(root).parts)


def _exec(load: Any, file: Path) -> ModuleType:
    try:
        module: ModuleType = load()
    except Exception as exc:
        raise ConfigError(
            f"{file}: cannot import rule module: {type(exc).__name__}: {exc}"
        ) from None
    return module


def _builtin() -> ModuleType:
    try:
        return importlib.import_module(BUILTIN)
    except ModuleNotFoundError:
        # A source checkout imported from its own directory (python -m pytest): the pack sits
        # in rules/ beside the package, where the wheel's package-dir mapping would put it.
        folder = Path(__file__).resolve().parents[2] / "rules"
        spec = importlib.util.spec_from_file_location(
            BUILTIN, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        if spec is None or spec.loader is None:
            raise
        module = importlib.util.module_from_spec(spec)
        sys.modules[BUILTIN] = module
        spec.loader.exec_module(module)
        return module


@functools.cache
def _builtin_modules() -> tuple[ModuleType, ...]:
    """The built-in pack's rule modules, listed once per process as the installed packs are:
    listing its family folders cost each engine about 2 ms, a grid point or a test each."""
    return tuple(_modules_of(_builtin()))


@functools.cache
def _entry_point_packages() -> list[tuple[str, ModuleType]]:
    """Installed rule packs, looked up once per process: reading every distribution's
    metadata cost a grid about a tenth of its time when done per point. A long-running
    `dclint server` sees a pack installed after it started once it is restarted."""
    out = []
    for ep in _pack_entry_points():
        if ep.value == BUILTIN:
            continue
        try:
            out.append((f"entry point '{ep.name}' ({ep.value})", ep.load()))
        except Exception as exc:
            raise ConfigError(f"rule pack '{ep.name}' ({ep.value}) failed to load: {exc}") from None
    return out


def _pack_entry_points() -> list[Any]:
    """The installed `dclint.rules` entry points, as importlib.metadata.entry_points(group=...)
    finds them (one distribution per name, the first on sys.path), but parsing only the
    entry_points.txt files that name the group: parsing every installed distribution's, to
    select one group, was about 4% of a cold check of one small design (100 distributions)."""
    from importlib.metadata import distributions

    out: list[Any] = []
    seen: set[str] = set()
    for dist in distributions():
        name = getattr(dist, "_normalized_name", None) or _normalized(dist.name or "")
        if name in seen:
            continue
        seen.add(name)
        text = dist.read_text("entry_points.txt")
        if text and ENTRY_POINT_GROUP in text:
            out += dist.entry_points.select(group=ENTRY_POINT_GROUP)
    return out


def _normalized(name: str) -> str:
    """A distribution's name as importlib.metadata compares names (PEP 503)."""
    return re.sub(r"[-_.]+", "_", name).lower()


@functools.cache
def _builtin_rules() -> tuple[tuple[ModuleType, tuple[type[Rule], ...]], ...]:
    """The built-in pack's rule classes by module, found once per process as its modules are
    listed: scanning every name of each of its modules, twice, cost each engine about 0.25
    millisecond (a test or a grid point each)."""
    return tuple((module, tuple(_rules_in(module))) for module in _builtin_modules())


def discover(rules_dirs: tuple[str, ...] = (), *, plugins: bool = True) -> dict[str, type[Rule]]:
    """Every rule by id. Duplicate ids, and rules missing their metadata, are ConfigErrors."""
    builtin = _builtin_rules()
    for _module, own in builtin:
        for cls in own:
            if cls.id.startswith(USER_PREFIX):
                raise ConfigError(f"built-in rule {cls.id}: ids beginning with X are users'")
    sources: list[tuple[str, Sequence[tuple[ModuleType, Sequence[type[Rule]]]]]] = [
        ("built-in pack", builtin)
    ]
    if plugins:
        sources += [
            (label, _with_rules(_modules_of(pkg))) for label, pkg in _entry_point_packages()
        ]
    sources += [(f"--rules-dir {d}", _with_rules(_from_dir(d))) for d in rules_dirs]
    rules: dict[str, type[Rule]] = {}
    for label, modules in sources:
        for module, classes in modules:
            for cls in classes:
                origin = f"{label}: {module.__name__}"
                _check_metadata(cls, origin)
                if cls.id in rules:
                    raise ConfigError(
                        f"duplicate rule id {cls.id}: defined by {rules[cls.id].origin} "
                        f"and by {origin}"
                    )
                cls.origin = origin
                rules[cls.id] = cls
    return dict(sorted(rules.items()))


def _with_rules(modules: list[ModuleType]) -> list[tuple[ModuleType, list[type[Rule]]]]:
    return [(module, _rules_in(module)) for module in modules]


def _check_metadata(cls: type[Rule], origin: str) -> None:
    if not RULE_ID.match(cls.id):
        raise ConfigError(f"{origin}: rule id '{cls.id}' must look like PWR001")
    if not _NAME_RE.match(getattr(cls, "name", "")):
        raise ConfigError(f"{origin}: rule {cls.id} needs a kebab-case name")
    if cls.severity not in SEVERITIES:
        raise ConfigError(f"{origin}: rule {cls.id} has unknown severity '{cls.severity}'")


def policy_rules(
    config: Any, rules: dict[str, type[Rule]], confined: bool
) -> dict[str, type[Rule]]:
    """The rules of the site policies `config` names (dclint.policy, imported by name as the
    built-in pack is): ids checked against `rules`; `confined` (a config found by search):
    only files inside the repository. ConfigError, located, for a bad policy."""
    found: dict[str, type[Rule]] = importlib.import_module(POLICIES).policy_rules(
        config, rules, confined
    )
    return found
