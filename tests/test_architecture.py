"""The package's structure, measured from its imports (grimp): no import circle, every import
runs down the layers, the root package holds only its public face, and rules import only what
a rule may use.

Imports under `if TYPE_CHECKING:` are left out: they name types for the checker and never run.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import grimp
import networkx as nx
import pytest

from conftest import ROOT

# Rooms from the top down; a room may import only rooms with a lower rank. Rooms of one rank
# are independent of each other (engine and projection; loader and calc).
RANK = {
    # the root package's face (dclint.load, dclint.run, ...): it reaches down to all of them
    # lazily, and nothing in the package imports it (the version is dclint._version's)
    "dclint": 10,
    "__main__": 9,
    "library": 8,  # dclint.library: the library's entry point dclint.run(), beside cli
    "cli": 8,
    "report": 7,
    "server": 7,  # the editor's presenter, beside report
    "analysis": 6,
    "fix": 6,  # text edits of a design (a fix, the best layout), beside analysis
    "api": 6,  # dclint.api: what a rule may use, gathered from the rooms below
    "testing": 6,  # dclint.testing: the example checker, over the engine
    # site policies as rules (dclint.policy): a rule source over the engine, which loads it by
    # name only when a config names policies, as it loads the built-in rule pack
    "policy": 6,
    "engine": 5,
    "importer": 5,  # beside the engine: reads sources into designs, never imported by check
    "projection": 5,
    "loader": 4,
    "calc": 4,
    "model": 3,
    "units": 2,
    "_fastq": 1,
    "errors": 1,
    "escaping": 0,
    "figures": 0,
    "_version": 0,
    "data": 0,
}
ROOT_FILES = {"__init__.py", "__main__.py", "units.py", "_fastq.py", "errors.py", "api.py"}
ROOT_FILES |= {"escaping.py"}  # the free-text escapers every presenter and importer uses
ROOT_FILES |= {"figures.py"}  # how a number prints, pint-free: units and a replayed finding
ROOT_FILES |= {"testing.py"}  # the rule API and its example checker: public face
ROOT_FILES |= {"library.py"}  # dclint.run(), the library's entry point
ROOT_FILES |= {"_version.py"}  # __version__, which outputs quote: importing it is not the face
# a built-in rule imports what a third party's may: the published API and the units
RULE_MAY_IMPORT = ("dclint.api", "dclint.units")


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module's syntax tree (ast.walk's order): the tests of this file walk
    dclint/ and rules/ five times, and parse each module once."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))


@pytest.fixture(autouse=True, scope="module")
def _parsed_once() -> Iterator[None]:
    """The trees live while this file's tests run, not for the rest of the session."""
    yield
    _nodes.cache_clear()


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph("dclint", exclude_type_checking_imports=True)


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "dclint"


def test_no_import_circle() -> None:
    graph = _graph()
    edges = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges.add_edge(module, imported)
    assert list(nx.simple_cycles(edges)) == []


def test_every_import_runs_down_the_layers() -> None:
    graph = _graph()
    upward = []
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            a, b = _room(module), _room(imported)
            if a == b:
                continue
            assert a in RANK and b in RANK, f"unknown room in {module} -> {imported}"
            if RANK[a] <= RANK[b]:
                upward.append(f"{module} -> {imported}")
    assert upward == []


def test_presenters_compute_nothing() -> None:
    """report/ presents the run's assessment (dclint.analysis.assess.assessment): it imports
    neither the projection nor the calculators, even for a type name."""
    graph = grimp.build_graph("dclint", exclude_type_checking_imports=False)
    bad = [
        f"{module} -> {imported}"
        for module in graph.modules
        if _room(module) == "report"
        for imported in graph.find_modules_directly_imported_by(module)
        if _room(imported) in ("projection", "calc")
    ]
    assert bad == []


def test_presenters_never_resolve_a_design() -> None:
    """report/ reads verdicts from findings and the assessment: it imports nothing from
    dclint.model.resolve (a rack's kind comes on the design's result, `rack_kinds`)."""
    graph = grimp.build_graph("dclint", exclude_type_checking_imports=False)
    bad = [
        f"{module} -> {imported}"
        for module in graph.modules
        if _room(module) == "report"
        for imported in graph.find_modules_directly_imported_by(module)
        if imported == "dclint.model.resolve"
    ]
    assert bad == []


def test_every_renderer_lives_in_report() -> None:
    """No function named render* is defined in analysis/ or cli/: every presenter is in
    report/, behind dclint.report.registry."""
    found = []
    for room in ("analysis", "cli"):
        for path in sorted((ROOT / "dclint" / room).rglob("*.py")):
            for node in _nodes(path):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("render"):
                    found.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert found == []


def test_root_package_holds_only_its_public_face() -> None:
    files = {p.name for p in (ROOT / "dclint").glob("*.py")}
    assert files <= ROOT_FILES, sorted(files - ROOT_FILES)


def test_the_root_package_is_the_face_and_nothing_imports_it() -> None:
    """dclint/__init__.py is the public face, on top of the house: it imports (lazily) the
    loader, the model, the errors and dclint.library (whose `run` is dclint.run), and no module
    of the package imports it (the version comes from dclint._version), so none of its arrows
    runs up. (The one that did: the root imported dclint.library for `run` while report/, cli/
    and analysis/ imported the root for `__version__`.)"""
    graph = _graph()
    assert sorted(graph.find_modules_that_directly_import("dclint")) == []
    assert graph.find_modules_directly_imported_by("dclint") == {
        "dclint._version",
        "dclint.errors",
        "dclint.library",
        "dclint.loader",
        "dclint.loader.dump",
        "dclint.model.design",
        "dclint.model.resolve",
    }
    import dclint
    from dclint.library import run

    assert dclint.run is run


def test_rules_import_only_what_a_rule_may_use() -> None:
    """Every built-in rule imports only dclint.api and dclint.units (at module level, in a
    function or under TYPE_CHECKING alike), as a third party's rule does. Inside the pack, a
    rule may import its own family's modules, by a relative import: the family's helpers
    (`_shared`: the pattern its rules share) and a sibling rule, to name it by its class
    (`ctx.peer(FabricOversubscribed.id)`); and the pack's helpers for a concept two families
    share (`from .._checkpoints import ...`: storage and reliability). The helpers obey the
    same bounds. No rule imports another family's module."""
    bad = []
    for path in sorted((ROOT / "rules").rglob("*.py")):
        family = path.parent
        for node in _nodes(path):
            if isinstance(node, ast.ImportFrom) and node.level:
                home = family if node.level == 1 else family.parent
                shared = node.level == 2 and str(node.module).startswith("_")  # .._checkpoints
                inside = family.parent == ROOT / "rules" and (node.level == 1 or shared)
                if not inside or not (home / f"{node.module}.py").is_file():
                    bad.append(f"{path.relative_to(ROOT)}: {'.' * node.level}{node.module}")
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("dclint") and name not in RULE_MAY_IMPORT:
                    bad.append(f"{path.relative_to(ROOT)}: {name}")
    assert bad == []


def test_every_rule_lives_in_a_family_folder_with_its_examples() -> None:
    """rules/<family>/ holds its rule modules, its helpers (names beginning with `_`) and
    examples/<id>/ for each of its rules; no rule module sits at the pack's top."""
    from dclint.engine.registry import discover

    top = [p.name for p in (ROOT / "rules").glob("*.py") if p.name != "__init__.py"]
    assert [n for n in top if not n.startswith("_")] == []  # the pack's shared helpers only
    for rule_id, cls in discover(plugins=False).items():
        module = Path(sys.modules[cls.__module__].__file__ or "")
        assert module.parent.parent == ROOT / "rules", f"{rule_id}: {module}"
        assert (module.parent / "examples" / rule_id.lower()).is_dir(), rule_id


# Where a rule id may still be written as a string outside its rule's module (dclint/ and
# rules/), and why. Documentation (docstrings, field descriptions, help text) may name ids.
ID_LITERALS_ALLOWED = {
    # the engine reports these findings itself (no rule's check does); the rule that documents
    # each takes its id from here through dclint.api (DesignLoadError.id is LOAD_ERROR_ID)
    "dclint/errors.py": {"DCL000"},
    "dclint/engine/suppress.py": {"DCL001", "DCL002", "DCL003", "DCL004"},
    "dclint/engine/spelling.py": {"DCL005"},
}
_ID_LITERAL = re.compile(r"^\s*([A-Z]{2,5}\d{3})(?::|\s*$)")


def _id_literals(path: Path) -> set[str]:
    """Rule ids written as a string constant of their own (`"PWR001"`) or as a label's head
    (`"PAR003: ..."`) in `path`, less the ids of the rules it defines (`@rule("PWR001", ...)`,
    or `id = "PWR001"` in the attribute form)."""
    own, found = set(), set()  # one walk of the tree (the test walks every module of dclint/)
    for n in _nodes(path):
        if isinstance(n, ast.Constant):
            match = _ID_LITERAL.match(n.value) if isinstance(n.value, str) else None
            if match:
                found.add(match.group(1))
        elif (
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "id" for t in n.targets)
            and isinstance(n.value, ast.Constant)
        ):
            own.add(n.value.value)
        elif (
            isinstance(n, ast.ClassDef)
            and n.decorator_list
            and isinstance(call := n.decorator_list[0], ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "rule"
            and isinstance(call.args[0], ast.Constant)
        ):
            own.add(call.args[0].value)
    return found - own


def test_a_rule_is_named_by_its_class_not_a_string() -> None:
    """Outside its own module a rule is referred to by its class (`FabricOversubscribed.id`) or
    the registry, never a string literal: a new `"PWR001"` in dclint/ or rules/ fails here
    unless ID_LITERALS_ALLOWED says why it must stay."""
    found = {}
    for path in sorted([*(ROOT / "dclint").rglob("*.py"), *(ROOT / "rules").rglob("*.py")]):
        ids = _id_literals(path)
        if ids:
            found[path.relative_to(ROOT).as_posix()] = ids
    assert found == ID_LITERALS_ALLOWED


def _rule_imports() -> set[tuple[str, str]]:
    """(module, name) of every dclint name a built-in rule imports."""
    found = set()
    for path in sorted((ROOT / "rules").rglob("*.py")):
        for node in _nodes(path):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dclint"):
                found.update((str(node.module), a.name) for a in node.names)
    return found


def test_the_rule_api_names_everything_a_built_in_rule_uses() -> None:
    """dclint.api is the rule author's surface: whatever the built-in rules need, a third
    party's rule can have from it, as the same object."""
    import importlib

    import dclint.api

    missing = []
    for module, name in sorted(_rule_imports()):
        if module == "dclint.api":
            continue
        value = getattr(importlib.import_module(module), name)
        exported = [n for n in dclint.api.__all__ if getattr(dclint.api, n) is value]
        if not exported:
            missing.append(f"{module}.{name}")
    assert missing == [], "a built-in rule imports these: export them from dclint.api"
    assert all(hasattr(dclint.api, n) for n in dclint.api.__all__)


def test_no_built_in_rule_takes_a_users_id() -> None:
    from dclint.api import RULE_ID, USER_PREFIX
    from dclint.engine.registry import discover

    ids = list(discover(plugins=False))
    assert [i for i in ids if i.startswith(USER_PREFIX) or not RULE_ID.match(i)] == []


# No rule id is looked up outside rules/: tests/test_shared_settings.py walks dclint/.


def test_every_package_is_in_the_wheels_package_list() -> None:
    """pyproject's [tool.setuptools] packages names every package of the tree (an editable
    install finds a package left out; the wheel, and so pre-commit's install, does not:
    dclint.policy and the folders by concept were left out)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    dotted = [
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("dclint", "rules")
        for p in (ROOT / top).rglob("__init__.py")
    ]
    tree = {f"dclint.{d}" if d.startswith("rules") else d for d in dotted}
    assert listed == tree
