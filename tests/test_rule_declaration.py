"""How a rule declares itself: the `rule` decorator (recommended) and class attributes (the form
plug-ins were first written in) give the registry, `dclint rules` and the findings the same
rule; defaults are inherited, not restated; a name declared twice is an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, TODAY
from dclint.api import Rule, rule
from dclint.cli import main
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run
from dclint.errors import ConfigError

_DOC = (
    '"""Rack over 40 kW.\n\n## What it does\nx\n## Why it matters\nx\n'
    '## Example\nx\n## Fix\nx\n"""\n'
)
_CHECK = (
    "    options = {'limit': Option('40 kW', Power, 'Highest IT load of one rack')}\n\n"
    "    def check(self, design, ctx):\n"
    "        for rack in topology_of(design).racks:\n"
    "            if rack.it_load > ctx['limit']:\n"
    "                yield Violation(rack.field_path('it_load'), f'{rack.id} over', "
    "subject=rack.id, measured=rack.it_load, limit=ctx['limit'], fix='move load')\n"
)
_IMPORTS = "from dclint.api import Option, Power, Rule, Violation, rule, topology_of\n\n"
DECORATED = (
    _DOC + _IMPORTS + "@rule('XHS001', 'rack-over-house-limit', severity='warning', "
    "tags=('power',), consequence='over-rating', covers=('ocp.rack-power',), needs=('racks',))\n"
    "class RackOverHouseLimit(Rule):\n" + _CHECK
)
ATTRIBUTES = (
    _DOC + _IMPORTS + "class RackOverHouseLimit(Rule):\n"
    "    id = 'XHS001'\n    name = 'rack-over-house-limit'\n    severity = 'warning'\n"
    "    tags = ('power',)\n    consequence = 'over-rating'\n    covers = ('ocp.rack-power',)\n"
    "    needs = ('racks',)\n" + _CHECK
)
HOT = "name: hot\nracks:\n  - id: r01\n    it_load: 40 kW\n  - id: r02\n    it_load: 41 kW\n"


def _pack(tmp_path: Path, name: str, text: str) -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "xhs001_rack_over_house_limit.py").write_text(text)
    return str(folder)


def _listed(folder: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, object]]:
    assert main(["rules", "--isolated", "--rules-dir", folder]) == 0
    text = [line for line in capsys.readouterr().out.splitlines() if "XHS001" in line]
    assert main(["rules", "--isolated", "--rules-dir", folder, "--format", "json"]) == 0
    (entry,) = [e for e in json.loads(capsys.readouterr().out) if e["id"] == "XHS001"]
    assert entry.pop("origin").startswith("--rules-dir ")  # names the folder it was loaded from
    (row,) = text
    return row, entry


def test_both_forms_declare_the_same_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decorated = _pack(tmp_path, "decorated", DECORATED)
    attributes = _pack(tmp_path, "attributes", ATTRIBUTES)
    one, two = discover((decorated,))["XHS001"], discover((attributes,))["XHS001"]
    for key in ("id", "name", "severity", "tags", "consequence", "covers", "needs"):
        assert getattr(one, key) == getattr(two, key), key
    assert (one.severity, one.tags, one.needs) == ("warning", ("power",), ("racks",))
    row, entry = _listed(decorated, capsys)
    assert (row.split()[:3], entry["consequence"]) == (
        ["XHS001", "rack-over-house-limit", "warning"],
        "over-rating",
    )
    assert _listed(attributes, capsys) == (row, entry)
    design = tmp_path / "hot.yaml"
    design.write_text(HOT)
    seen = []
    for folder in (decorated, attributes):
        result = run([str(design)], Engine(today=TODAY, rules_dirs=(folder,)))
        seen.append([(f.rule, f.line, f.severity, f.message) for f in result.findings])
    assert seen[0] == seen[1] == [("XHS001", 6, "warning", "r02 over")]


def test_what_the_decorator_leaves_out_is_inherited() -> None:
    class House(Rule):
        tags = ("power",)
        needs = ("racks",)

    @rule("XHS002", "plain-rule")
    class Plain(Rule):
        pass

    @rule("XHS003", "house-rule", consequence="over-rating")
    class Mine(House):
        pass

    assert (Plain.severity, Plain.tags, Plain.consequence, Plain.needs) == ("error", (), "", ())
    assert (Mine.id, Mine.name, Mine.severity) == ("XHS003", "house-rule", "error")
    assert (Mine.tags, Mine.needs, Mine.consequence) == (("power",), ("racks",), "over-rating")
    assert House.consequence == ""  # the base is not changed by its rule's declaration


def test_a_name_declared_twice_or_on_a_non_rule_is_an_error() -> None:
    with pytest.raises(TypeError, match=r"rule XHS004: severity declared both by @rule and in"):

        @rule("XHS004", "twice", severity="warning")
        class Twice(Rule):
            severity = "info"

    with pytest.raises(TypeError, match=r"@rule\('XHS005', \.\.\.\) declares a Rule subclass"):
        rule("XHS005", "not-a-rule")(dict)  # type: ignore[type-var]


def test_the_registry_checks_a_decorated_rule_as_any_other(tmp_path: Path) -> None:
    bad = DECORATED.replace("'rack-over-house-limit'", "'Rack Over'")
    with pytest.raises(ConfigError, match=r"rule XHS001 needs a kebab-case name"):
        discover((_pack(tmp_path, "bad", bad),))


def test_every_built_in_rule_declares_itself_with_the_decorator() -> None:
    """The recommended form is the one dclint's own rules are written in: an `@rule(...)` on
    the class, no metadata restated in its body."""
    import ast
    import inspect

    builtin = {rid: cls for rid, cls in discover().items() if cls.origin.startswith("built-in")}
    assert len(builtin) == len(list((ROOT / "rules").glob("*/[a-z]*[0-9]_*.py")))
    for rid, cls in builtin.items():
        tree = ast.parse(inspect.getsource(cls))
        (node,) = tree.body
        assert isinstance(node, ast.ClassDef)
        (decorator,) = node.decorator_list
        assert isinstance(decorator, ast.Call) and ast.unparse(decorator.func) == "rule", rid
        body = {t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets}  # type: ignore[attr-defined]
        assert not body & {"id", "name", "severity", "tags", "consequence", "covers", "needs"}
