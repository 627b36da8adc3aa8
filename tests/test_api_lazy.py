"""dclint.api imports a name's module when a rule first asks for the name (issue 30, cold
speed): a check imports what the rules it runs use, and the layout search only when PAR005
searches."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT

SAMPLE = ROOT / "sample_designs" / "gb200-superpod-su.yaml"


@pytest.fixture(scope="module")
def imported() -> tuple[list[str], list[str]]:
    """The dclint modules one fresh process holds after `import dclint.api`, then after
    `from dclint.api import cdu_loads` (the two tests below read this one process)."""
    show = "print(json.dumps([m for m in sorted(sys.modules) if m.startswith('dclint')]))\n"
    script = f"import json, sys\nimport dclint.api\n{show}from dclint.api import cdu_loads\n{show}"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    *_, api, name = out.stdout.splitlines()
    return json.loads(api), json.loads(name)


def test_importing_the_api_imports_no_calculator_nor_projection(
    imported: tuple[list[str], list[str]],
) -> None:
    loaded = imported[0]
    assert "dclint.api" in loaded
    assert [m for m in loaded if m.startswith(("dclint.calc", "dclint.projection"))] == []


def test_one_name_imports_its_own_module_only(imported: tuple[list[str], list[str]]) -> None:
    loaded = imported[1]
    assert "dclint.calc.cooling" in loaded
    assert [m for m in loaded if m.startswith(("dclint.projection", "dclint.calc.power"))] == []


@pytest.fixture(scope="module")
def checked() -> tuple[list[str], str]:
    """Every module a fresh process holds after `dclint check --no-cache` of the sample (the
    three tests below read this one run), and what importing dask then did."""
    code = (
        "import json, sys\nfrom dclint.cli import main\n"
        f"code = main(['check', '--no-cache', {str(SAMPLE)!r}])\n"
        "assert code == 0, code\nsys.stdout.flush()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
        "try:\n    import dask\nexcept Exception as exc:\n    print(repr(exc))\n"
        "else:\n    print('imported')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    *_, modules, dask = out.stdout.splitlines()
    return json.loads(modules), dask


def test_a_check_that_does_not_search_imports_no_layout_search(
    checked: tuple[list[str], str],
) -> None:
    loaded = checked[0]
    assert "dclint.projection" in loaded  # the sample's workload is projected
    assert [m for m in loaded if m.startswith("dclint.projection.search.layouts")] == []


def test_every_exported_name_is_the_object_of_its_module() -> None:
    import importlib

    import dclint.api

    for name, module in dclint.api._MODULE.items():
        source = importlib.import_module(module)
        assert getattr(dclint.api, name) is getattr(source, dclint.api._RENAMED.get(name, name))
    assert set(dclint.api._MODULE) | {"Facts", "facts"} == set(dclint.api.__all__)
    assert set(dclint.api.__all__) <= set(dir(dclint.api))


def test_a_check_imports_pint_without_dask_and_leaves_dask_importable(
    checked: tuple[list[str], str],
) -> None:
    pytest.importorskip("dask")  # installed with the test extra (plan's cluster executor)
    loaded, dask = checked
    assert "pint" in loaded and "dask" not in loaded
    assert dask == "imported"
    assert "dclint.cli.check" in loaded


def test_a_check_imports_neither_the_summary_nor_the_diagrams(
    checked: tuple[list[str], str],
) -> None:
    loaded = checked[0]
    assert "dclint.analysis.assess.assessment" in loaded
    assert [m for m in loaded if m in ("dclint.analysis.summary", "dclint.analysis.diagrams")] == []


def test_every_exported_name_is_in_exactly_one_facet() -> None:
    import dclint.api

    named = [n for names in dclint.api.FACETS.values() for n in names]
    assert sorted(named) == sorted(dclint.api.__all__)
    assert len(named) == len(set(named))
    assert list(dclint.api.FACETS) == [
        "rule surface",
        "design and topology",
        "facts",
        "calculators (provisional)",
        "layout predicates",
    ]
    # the names the docs promise live in the facet they are promised in
    assert {"Rule", "Option", "Violation", "Change", "Remedy"} <= set(
        dclint.api.FACETS["rule surface"]
    )
    assert {"topology_of", "Rack", "Topology"} <= set(dclint.api.FACETS["design and topology"])
    assert {"facts", "Facts"} <= set(dclint.api.FACETS["facts"])
