"""What a cold `dclint check --no-cache` of one small design imports (issue 30, the import
floor): nothing of the results cache, the baseline or a command it does not run. Import sets,
not timings: each name here was imported by such a check before and is not needed by it."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

SAMPLE = ROOT / "sample_designs" / "gb200-superpod-su.yaml"


def _check_modules(*flags: str) -> list[str]:
    argv = ["dclint", "check", *flags, str(SAMPLE)]
    script = (
        f"import json, sys\nsys.argv = {argv!r}\n"
        "from dclint.cli import _replay_or_main\n"  # what the console script runs
        "code = _replay_or_main()\nsys.stdout.flush()\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    code, modules = json.loads(out.stdout.splitlines()[-1])
    assert code == 0
    return [m for m in modules if m.startswith("dclint")]


def test_a_check_without_the_cache_imports_neither_the_cache_nor_the_baseline() -> None:
    loaded = _check_modules("--no-cache")
    assert "dclint.rules.cooling.clg001_cdu_overloaded" in loaded  # the rules did run
    unneeded = {"dclint.cli._cache", "dclint.cli._runs", "dclint.engine.baseline"}
    unneeded |= {"dclint.policy", "dclint.policy.format"}  # no config names site policies
    # what a Markdown or HTML report prints of git (and its record keeps): not for text
    unneeded |= {"dclint.report.meta", "dclint.report.commits"}
    unneeded.add("dclint.engine.shared")  # the settings by concept: the summary's, capacity's
    assert sorted(unneeded & set(loaded)) == []
    # no policy code at all (test_policies checks a config naming policies imports it)
    assert [m for m in loaded if m.startswith("dclint.policy")] == []


def test_the_model_modules_give_pydantic_evaluated_annotations() -> None:
    """Without `from __future__ import annotations` in the modules whose classes pydantic
    reads, it is handed types, not strings to compile and evaluate one by one."""
    import ast

    models = ["catalog", "cooling", "cost", "design", "fabric", "power_chain", "racks"]
    models += ["site", "software", "storage", "types", "workload"]
    postponed = []
    for name in models:
        tree = ast.parse((ROOT / "dclint" / "model" / f"{name}.py").read_text("utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                postponed += [f"{name}: {a.name}" for a in node.names if a.name == "annotations"]
    assert postponed == []


def test_rule_packs_are_found_as_importlib_metadata_finds_their_entry_points() -> None:
    """The registry parses only the entry_points.txt files naming `dclint.rules`: the same
    entry points, in the same order, as importlib.metadata's own selection."""
    from importlib.metadata import entry_points

    from dclint.engine.registry import ENTRY_POINT_GROUP, _normalized, _pack_entry_points

    assert _pack_entry_points() == list(entry_points(group=ENTRY_POINT_GROUP))
    assert [e.value for e in _pack_entry_points()] == ["dclint.rules"]  # dclint's own pack
    assert _normalized("Dclint.Rules-Extra_pack") == "dclint_rules_extra_pack"
