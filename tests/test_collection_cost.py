"""What each test process pays to collect the tier (tests/conftest.py; the figures are in
tests/_budget.py): pytest rewrites the asserts of our test modules, not of Hypothesis, and
xdist's workers rewrite each test module once between them, not once each."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conftest import BYTECODE, ROOT

# pytest's private module (conftest's sharing falls back without it): a pytest that drops it
# skips this file, visibly, rather than failing the tier's collection
rewrite = pytest.importorskip("_pytest.assertion.rewrite")


def test_hypothesis_is_imported_as_installed_and_the_tests_are_rewritten() -> None:
    import hypothesis
    import hypothesis.strategies

    for module in (hypothesis, hypothesis.strategies):
        assert module.__spec__ is not None
        assert not isinstance(module.__spec__.loader, rewrite.AssertionRewritingHook)
    assert __spec__ is not None
    assert isinstance(__spec__.loader, rewrite.AssertionRewritingHook)


def test_the_workers_share_the_test_modules_they_rewrote(request: pytest.FixtureRequest) -> None:
    here = Path(__file__)
    folder = os.environ.get(BYTECODE)
    if not hasattr(request.config, "workerinput") or folder is None:
        # one process, or bytecode written beside the sources: pytest's own cache, untouched
        assert rewrite.get_cache_dir.__module__ == rewrite.__name__
        return
    shared = Path(folder, "rewritten", "tests")
    assert rewrite.get_cache_dir(here) == shared
    # every test module this worker imported to collect, whichever worker rewrote it
    tests = [
        Path(file)
        for module in list(sys.modules.values())
        if (file := getattr(module, "__file__", None))
        and Path(file).parent == ROOT / "tests"
        and Path(file).name.startswith("test_")
    ]
    assert here in tests
    missing = [p.name for p in tests if not (shared / (p.name[:-3] + rewrite.PYC_TAIL)).is_file()]
    assert missing == []
