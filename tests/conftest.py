"""Shared test helpers: run the engine on a file or text and get (rule, line) pairs."""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import re
import shutil
import sys
import tempfile
import types
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from _budget import MARKS, CpuBudget

from dclint.engine.config import CONFIG_NAMES, Config, load_config
from dclint.engine.runner import Engine, run
from dclint.testing import expected_findings

ROOT = Path(__file__).resolve().parent.parent
BYTECODE = "DCLINT_TESTS_BYTECODE"  # the folder this run's test subprocesses share bytecode in
# a test file whose every test is integration: its top-level mark
WHOLLY_INTEGRATION = re.compile(r"^pytestmark = pytest\.mark\.integration\b", re.MULTILINE)


class _ExampleFolders:
    """The built-in rules' examples as one folder of folders, though each family keeps its
    rules' examples beside them (rules/<family>/examples/<id>/): `EXAMPLES / "pwr001"`,
    `EXAMPLES / "pwr001/bad.yaml"` and `EXAMPLES.glob("*/*.yaml")` find them by rule id."""

    parent = ROOT / "rules"

    def __init__(self) -> None:
        self.folders = {p.name: p for p in ROOT.glob("rules/*/examples/*") if p.is_dir()}

    def __truediv__(self, path: str) -> Path:
        rule, _, rest = path.partition("/")
        return self.folders[rule] / rest if rest else self.folders[rule]

    def glob(self, pattern: str) -> list[Path]:
        return sorted(ROOT.glob(f"rules/*/examples/{pattern}"))


EXAMPLES = _ExampleFolders()
SAMPLES = ROOT / "sample_designs"
TODAY = date(2026, 12, 2)
# dclint check keeps a results cache (.dclint_cache/ at a repository's root): tests run without
# it, each seeing its own code and monkeypatches; tests/test_results_cache.py turns it on
os.environ.setdefault("DCLINT_NO_CACHE", "1")
# the `# expect: ID` marks, read as a plug-in's tests read them (one home: dclint.testing)
expected_counts = expected_findings


def example_config(folder: Path) -> Config | None:
    """An example folder's own config (PAR005's turns its search on), read as `--config` reads
    it: a config found by search may not turn on a costly option such as the search."""
    own = [folder / name for name in CONFIG_NAMES if (folder / name).is_file()]
    return load_config(own[0]) if own else None


def expected_marks(path: Path) -> set[tuple[str, int]]:
    """(rule, line) for every `# expect: ID[, ID]` comment in a file."""
    return set(expected_counts(path))


def finding_counts(path: Path | str, **engine_kwargs: object) -> Counter[tuple[str, int]]:
    """(rule, line) of every finding, as a multiset: two findings on one line count twice."""
    engine = Engine(today=TODAY, **engine_kwargs)  # type: ignore[arg-type]
    result = run([str(path)], engine)
    assert not result.errors, [str(e) for e in result.errors]
    return Counter((f.rule, f.line) for f in result.findings)


def findings_of(path: Path | str, **engine_kwargs: object) -> set[tuple[str, int]]:
    """(rule, line) of every finding, as a set."""
    return set(finding_counts(path, **engine_kwargs))


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    def _write(text: str, name: str = "design.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write


def pytest_configure(config: pytest.Config) -> None:
    # the default tier's CPU budget (tests/_budget.py): judged on whole default-tier runs only
    config.pluginmanager.register(CpuBudget(config), "dclint-cpu-budget")
    _share_bytecode(config)
    _keep_plugins_unrewritten(config)
    _share_rewrites(config)
    # pytest-lsp drives the language server's tests, all integration; importing it (the LSP
    # types) costs each process about half a CPU-second, so pyproject turns it off
    # (-p no:pytest-lsp), with the asyncio plug-ins only they use (pytest-asyncio, anyio: their
    # hooks cost every test), and a run that may select integration tests turns them back on
    if not default_tier(config):
        for blocked, module in OFF_IN_THE_DEFAULT_TIER.items():
            if config.pluginmanager.is_blocked(blocked):
                config.pluginmanager.register(importlib.import_module(module), module)


# plug-ins pyproject's addopts turn off (-p no:NAME), by name, and the module of each
OFF_IN_THE_DEFAULT_TIER = {
    "asyncio": "pytest_asyncio.plugin",
    "anyio": "anyio.pytest_plugin",
    "pytest-lsp": "pytest_lsp",
}


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if pluginmanager.is_blocked("asyncio"):  # pyproject sets its option: known, unused here
        parser.addini("asyncio_default_fixture_loop_scope", "pytest-asyncio's (when it is on)")


def pytest_collection_finish(session: pytest.Session) -> None:
    # What collection made (every test module, its imports, each test item) lives until the run
    # ends: out of the collector's sight, its full passes scan only what the tests make
    gc.freeze()
    folder = os.environ.get(BYTECODE)
    if folder is not None and session.items:  # a process that runs tests
        _link_bytecode(folder)


def default_tier(config: pytest.Config) -> bool:
    """Whether the run selects the default tier's marks (pyproject's -m)."""
    return (getattr(config.option, "markexpr", "") or "").strip() == MARKS


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The default tier does not import a test file whose every test is integration (its
    top-level `pytestmark = pytest.mark.integration`): each xdist worker would import it, and
    what it imports (pytest-lsp, an HTTP server, ...), to deselect all of it."""
    name = collection_path.name
    if not (name.startswith("test_") and name.endswith(".py")) or not default_tier(config):
        return None
    text = collection_path.read_text(encoding="utf-8")
    return True if WHOLLY_INTEGRATION.search(text) else None


def _share_bytecode(config: pytest.Config) -> None:
    """Under PYTHONDONTWRITEBYTECODE each `python` a test starts (`python -m dclint ...`, to see
    what a fresh process imports or how a real one ends) compiles every module it imports from
    its source, about a third of its CPU time. The interpreters the tests start share their
    bytecode instead, in a folder of this run's own, removed when it ends: nothing is written
    beside the sources, as the variable asks, and no run reads another's. The test processes
    themselves (this one, xdist's workers) keep the variable; a PYTHONPYCACHEPREFIX already set
    is left alone."""
    folder = os.environ.get(BYTECODE)
    if folder is None:  # the run's first process: make the folder, before xdist starts workers
        if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
            return
        folder = os.environ[BYTECODE] = tempfile.mkdtemp(prefix="dclint-tests-bytecode-")

        def remove() -> None:
            del os.environ[BYTECODE]
            shutil.rmtree(folder, ignore_errors=True)

        config.add_cleanup(remove)
        if getattr(config.option, "dist", "no") != "no" and getattr(config.option, "tx", None):
            return  # xdist's controller: runs no test, and its workers keep the variable
    saved = {
        name: os.environ.get(name) for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    }
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for the processes tests start
    os.environ["PYTHONPYCACHEPREFIX"] = folder

    def restore() -> None:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    config.add_cleanup(restore)


def _keep_plugins_unrewritten(config: pytest.Config) -> None:
    """pytest rewrites the asserts of every module of a plug-in's distribution, not only the
    plug-in: Hypothesis's (its pytest plug-in ships in the same distribution), about 80
    modules that three test files import at collection (and the controller for its summary),
    for asserts inside Hypothesis that no test of ours reports on (what they cost:
    tests/_budget.py). They are imported as any installed package is, from their own
    bytecode. (pytest's set of marked names is its own, private: a pytest without it rewrites
    them as before.)"""
    marked = getattr(config.pluginmanager.rewrite_hook, "_must_rewrite", None)
    if isinstance(marked, set):
        marked.discard("hypothesis")


def _share_rewrites(config: pytest.Config) -> None:
    """Every xdist worker collects the whole tier: it imports every test module, whose asserts
    pytest rewrites first (half of a worker's collection: tests/_budget.py). pytest keeps
    what it rewrote (a pyc of its own) beside the sources, not under PYTHONDONTWRITEBYTECODE,
    so each worker rewrote every test module again. The workers share them in the run's
    bytecode folder instead (_share_bytecode): each first rewrites its share of the test files
    (of two workers, gw0 every other one from the first, gw1 from the second), then collects,
    reading the other's from the folder (and rewriting what is not there yet). pytest's own
    pyc and functions (`_pytest.assertion.rewrite`, private): a pytest without them rewrites
    as before, and a run that is not the whole tier (a file or two) shares without the first
    pass."""
    workerinput = getattr(config, "workerinput", None)
    folder = os.environ.get(BYTECODE)
    if workerinput is None or folder is None:
        return
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        get_cache_dir, rewrite_test = rewrite.get_cache_dir, rewrite._rewrite_test
        write_pyc, tail = rewrite._write_pyc, rewrite.PYC_TAIL
    except (ImportError, AttributeError, KeyError):
        return
    tests = ROOT / "tests"
    shared = Path(folder, "rewritten")

    # Both replacements take whatever pytest passes and hand anything of another shape to
    # pytest's own function, and sharing what was rewritten is best effort: a pytest whose
    # private signatures changed rewrites as before rather than failing every worker's start.
    def cache_dir(*args: Any, **kwargs: Any) -> Any:
        path = args[0] if len(args) == 1 and not kwargs else None
        if isinstance(path, Path) and path.is_relative_to(tests):
            return shared / path.parent.relative_to(ROOT)
        return get_cache_dir(*args, **kwargs)

    def rewritten(*args: Any, **kwargs: Any) -> Any:
        got = rewrite_test(*args, **kwargs)
        path = args[0] if args else None
        if isinstance(path, Path) and path.is_relative_to(tests):
            with contextlib.suppress(Exception):
                source_hash, code = got
                if isinstance(source_hash, bytes) and isinstance(code, types.CodeType):
                    directory = shared / path.parent.relative_to(ROOT)
                    directory.mkdir(parents=True, exist_ok=True)
                    write_pyc(state, code, source_hash, directory / (path.name[:-3] + tail))
        return got

    rewrite.get_cache_dir, rewrite._rewrite_test = cache_dir, rewritten

    def restore() -> None:
        rewrite.get_cache_dir, rewrite._rewrite_test = get_cache_dir, rewrite_test

    config.add_cleanup(restore)
    here = config.invocation_params.dir
    if not all(Path(here, arg).resolve() in (ROOT, tests) for arg in config.args or ["."]):
        return
    files = sorted(tests.rglob("test_*.py"))
    if default_tier(config):
        files = [f for f in files if not WHOLLY_INTEGRATION.search(f.read_text(encoding="utf-8"))]
    first, count = (
        str(workerinput.get("workerid", "")).removeprefix("gw"),
        workerinput.get("workercount"),
    )
    if not first.isdigit() or not isinstance(count, int) or count < 1:
        return  # workers named otherwise (--tx id=...): they share without the first pass
    for path in files[int(first) :: count]:
        try:
            rewritten(path, config)
        except Exception:  # a pytest that rewrites otherwise: each worker rewrites its own
            return


def _link_bytecode(folder: str) -> None:
    """Under a pycache prefix an interpreter reads bytecode from the prefix only, so the first
    process a test starts compiled the standard library and the installed packages it imports
    (pint, pydantic, ...) again, though their bytecode sits beside them: about 1.3 CPU-seconds.
    The folder links to that bytecode instead, for every module the test process has imported
    once it has collected (what a `python -m dclint` imports, and more); a link is read, never
    written through (a rewritten file replaces the link)."""
    for module in list(sys.modules.values()):
        cached = getattr(module, "__cached__", None)
        source = getattr(module, "__file__", None)
        if not cached or not source or not os.path.isfile(cached):
            continue
        link = Path(folder + os.path.dirname(os.path.abspath(source)), os.path.basename(cached))
        with contextlib.suppress(OSError):
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(cached)
