"""Site policies (issue 55): declarative YAML standards judged as first-class rules.

Each test asserts exact findings (rule, line, message, numbers) or exact problems (line, column,
words), on small designs and policy files written here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, TODAY
from dclint.cli import main
from dclint.engine.config import load_config
from dclint.engine.runner import Engine
from dclint.errors import ConfigError

PACKS = ROOT / "docs" / "policy-packs"

DESIGN = """\
name: policy-demo
site:
  halls:
    B: {}
power:
  panels:
    - {id: p-a, voltage: 415 V, current_rating: 400 A, path: A}
    - {id: p-b, voltage: 415 V, current_rating: 400 A, path: B}
  feeds:
    - {id: fa, panel: p-a, voltage: 415 V, current_rating: 63 A, path: A}
    - {id: fb, panel: p-b, voltage: 415 V, current_rating: 63 A, path: B}
    - {id: fs, panel: p-a, voltage: 230 V, current_rating: 63 A, phases: 1, path: A}
racks:
  - id: r1
    platform: hgx-h100
    nodes: 4
    hall: B
    feeds: [fa, fb]
  - id: r2
    platform: hgx-h100
    nodes: 8
    it_load: 80 kW
    hall: B
    feeds: [fa]
"""

POLICIES = """\
policies:
  - id: ACME001
    name: hall-b-rack-power
    for: racks
    where: {hall: B}
    require:
      it_load: {max: 60 kW}
    message: "rack {id} in hall {hall} draws {value}, above {limit}"
    fix: move nodes to another rack
  - id: ACME002
    name: two-paths
    severity: warning
    for: racks
    require:
      distinct(feeds.panel.path): {min: 2}
  - id: ACME003
    name: single-phase
    for: feeds
    where: {phases: 1}
    require:
      capacity: {max: 7 kW}
  - id: ACME004
    name: hall-b-total
    for: design
    require:
      sum(racks.it_load) where hall == B: {max: 100 kW}
"""


def _repo(tmp_path: Path, policies: str = POLICIES, design: str = DESIGN) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "acme.yaml").write_text(policies, encoding="utf-8")
    (tmp_path / ".dclint.yaml").write_text('policies: ["policies/*.yaml"]\n', encoding="utf-8")
    (tmp_path / "design.yaml").write_text(design, encoding="utf-8")
    return tmp_path


def _found(folder: Path) -> list[tuple[str, int, int, str]]:
    result = Engine(today=TODAY).check_file(str(folder / "design.yaml"))
    assert result.errors == []
    return [
        (f.rule, f.line, f.column, f.message)
        for f in sorted(result.findings)
        if f.rule.startswith("ACME")
    ]


def test_policies_fire_at_the_elements_lines_with_their_units(tmp_path: Path) -> None:
    found = _found(_repo(tmp_path))
    assert found == [
        (
            "ACME004",
            1,
            1,
            "design policy-demo: sum(racks.it_load) where hall == B 114 kW is "
            "above the maximum 100 kW",
        ),
        ("ACME003", 12, 7, "feed fs: capacity 11.01 kW is above the maximum 7 kW"),
        ("ACME002", 19, 5, "rack r2: distinct(feeds.panel.path) 1 is below the minimum 2"),
        ("ACME001", 22, 14, "rack r2 in hall B draws 80 kW, above 60 kW"),
    ]


def test_a_policy_finding_carries_its_numbers_and_fix(tmp_path: Path) -> None:
    result = Engine(today=TODAY).check_file(str(_repo(tmp_path) / "design.yaml"))
    acme1 = next(f for f in result.findings if f.rule == "ACME001")
    assert (acme1.measured_text, acme1.limit_text, acme1.fix) == (
        "80 kW",
        "60 kW",
        "move nodes to another rack",
    )
    assert (acme1.severity, acme1.name, acme1.subject, acme1.path) == (
        "error",
        "hall-b-rack-power",
        "r2",
        "racks[1].it_load",
    )
    assert "policy" in acme1.tags


def test_an_inline_suppression_accepts_a_policy_finding(tmp_path: Path) -> None:
    design = DESIGN.replace(
        "    it_load: 80 kW", "    it_load: 80 kW  # dclint: ignore[ACME001] waived"
    )
    folder = _repo(tmp_path, design=design)
    result = Engine(today=TODAY).check_file(str(folder / "design.yaml"))
    assert [f.rule for f in result.findings if f.rule in ("ACME001", "DCL003")] == []
    assert [(w.finding.rule, w.reason) for w in result.waivers] == [("ACME001", "waived")]


def test_the_config_may_set_a_policys_severity_and_ignore_it(tmp_path: Path) -> None:
    folder = _repo(tmp_path)
    (folder / ".dclint.yaml").write_text(
        'policies: ["policies/*.yaml"]\nignore: [ACME002]\nACME001: {severity: info}\n',
        encoding="utf-8",
    )
    result = Engine(today=TODAY).check_file(str(folder / "design.yaml"))
    rules = sorted((f.rule, f.severity) for f in result.findings if f.rule.startswith("ACME"))
    assert rules == [("ACME001", "info"), ("ACME003", "error"), ("ACME004", "error")]


def test_a_config_without_policies_runs_none_of_another_configs(tmp_path: Path) -> None:
    folder = _repo(tmp_path)
    other = folder / "other"
    other.mkdir()
    (other / ".dclint.yaml").write_text("select: [ALL]\n", encoding="utf-8")
    (other / "design.yaml").write_text(DESIGN, encoding="utf-8")
    engine = Engine(today=TODAY)
    first = engine.check_file(str(folder / "design.yaml"))
    second = engine.check_file(str(other / "design.yaml"))
    assert sum(f.rule.startswith("ACME") for f in first.findings) == 4
    assert [f.rule for f in second.findings if f.rule.startswith("ACME")] == []


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (
            "    for: rackz\n    require: {it_load: {max: 60 kW}}\n",
            "p.yaml:4:10: unknown element kind 'rackz'; did you mean 'racks'?",
        ),
        (
            "    for: racks\n    require: {it_lod: {max: 60 kW}}\n",
            "p.yaml:5:15: unknown field 'it_lod' of rack; did you mean 'it_load'?",
        ),
        (
            "    for: racks\n    require: {it_load: {max: 3 m}}\n",
            "p.yaml:5:30: it_load is a power field (e.g. '120 kW'); '3 m' is a length: they cannot "
            "be compared",
        ),
        (
            "    for: racks\n    require: {it_load: {max: 60 kw}}\n",
            "p.yaml:5:30: unknown unit in 'kw' (did you mean 'kW'?); expected power, e.g. '120 kW'",
        ),
        (
            "    for: feeds\n    require: {voltage: {in: [415 V, 4 A]}}\n",
            "p.yaml:5:37: voltage is a voltage field (e.g. '415 V'); '4 A' is a current: they "
            "cannot be compared",
        ),
        (
            "    for: racks\n    require: {count(it_load): {min: 2}}\n",
            "p.yaml:5:15: count() takes a list, such as racks or feeds.panel: 'it_load' is power",
        ),
        (
            "    for: racks\n    require: {hall: {max: 3}}\n",
            "p.yaml:5:27: hall is text: `max` compares numbers and quantities; use equals or in",
        ),
        (
            "    for: racks\n    require: {it_load: {maximum: 60 kW}}\n",
            "p.yaml:5:25: unknown bound 'maximum'; did you mean 'max'?",
        ),
    ],
)
def test_a_bad_policy_is_an_error_at_its_line_and_column(policy: str, expected: str) -> None:
    from dclint.policy.format import read_policies

    text = "policies:\n  - id: ACME001\n    name: x\n" + policy
    with pytest.raises(ConfigError) as info:
        read_policies("p.yaml", text)
    assert str(info.value).startswith(expected), str(info.value)


def test_a_bad_unit_in_a_policy_reads_as_the_same_error_a_design_gets(tmp_path: Path) -> None:
    from dclint.errors import LoadError
    from dclint.loader.load import load_text
    from dclint.policy.format import read_policies

    with pytest.raises(LoadError) as design_error:
        load_text("name: x\nracks:\n  - {id: r1, it_load: 60 kw, platform: hgx-h100}\n", "d.yaml")
    with pytest.raises(ConfigError) as policy_error:
        read_policies(
            "p.yaml",
            "policies:\n  - {id: ACME001, name: x, for: racks, require: {it_load: {max: 60 kw}}}\n",
        )
    words = "unknown unit in 'kw' (did you mean 'kW'?); expected power, e.g. '120 kW'"
    assert str(design_error.value.problems[0]) == f"d.yaml:3:23: racks[0].it_load: {words}"
    assert str(policy_error.value) == f"p.yaml:2:65: {words}"


def test_policy_ids_may_not_take_a_built_in_family_nor_each_others(tmp_path: Path) -> None:
    folder = _repo(tmp_path, policies=POLICIES.replace("ACME003", "PWR901"))
    with pytest.raises(
        ConfigError,
        match=r"acme.yaml:16:9: policy id PWR901: the family PWR is "
        r"taken by PWR001",
    ):
        Engine(today=TODAY).check_file(str(folder / "design.yaml"))
    folder2 = tmp_path / "two"
    folder2.mkdir()
    _repo(folder2, policies=POLICIES.replace("ACME003", "ACME001"))
    with pytest.raises(
        ConfigError,
        match=r"acme.yaml:16:9: policy id ACME001 is taken: by the "
        r"policy at .*acme.yaml:2:9",
    ):
        Engine(today=TODAY).check_file(str(folder2 / "design.yaml"))


def test_a_found_config_may_not_name_a_policy_outside_the_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "shared.yaml"
    outside.write_text(POLICIES, encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    _repo(repo)
    (repo / ".dclint.yaml").write_text('policies: ["../shared.yaml"]\n', encoding="utf-8")
    code = main(["check", "--no-cache", str(repo / "design.yaml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "policies: '../shared.yaml' is outside the repository root" in err[0]
    code = main(
        ["check", "--no-cache", "--config", str(repo / ".dclint.yaml"), str(repo / "design.yaml")]
    )  # given with --config: the team's own choice
    assert code == 1
    assert "ACME001" in capsys.readouterr().out


def test_every_output_format_carries_policy_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _repo(tmp_path)
    from dclint.cli.check import FORMAT_NAMES

    for fmt in FORMAT_NAMES:
        code = main(["check", "--no-cache", "--format", fmt, str(folder / "design.yaml")])
        out = capsys.readouterr().out
        assert code == 1, fmt
        assert "ACME001" in out, fmt
    main(["check", "--no-cache", "--format", "sarif", str(folder / "design.yaml")])
    sarif = json.loads(capsys.readouterr().out)
    ids = [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    assert {"ACME001", "ACME004"} <= set(ids)


def test_a_baseline_records_and_hides_policy_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _repo(tmp_path)
    baseline = folder / "baseline.json"
    design = str(folder / "design.yaml")
    assert main(["check", "--no-cache", "--write-baseline", str(baseline), design]) == 0
    assert "ACME001" in baseline.read_text(encoding="utf-8")
    capsys.readouterr()
    code = main(["check", "--no-cache", "--baseline", str(baseline), "--select", "ACME", design])
    assert code == 0
    assert "ACME" not in capsys.readouterr().out


def test_rules_and_explain_list_the_configs_policies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_repo(tmp_path))
    assert main(["rules"]) == 0
    listed = [line.split()[:3] for line in capsys.readouterr().out.splitlines()]
    assert ["ACME002", "two-paths", "warning"] in listed
    assert main(["explain", "ACME001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ACME001 hall-b-rack-power [error]  tags: policy\n")
    assert "policies/acme.yaml:2:9 (a site policy, the client's standard" in out
    assert "## Fix\nmove nodes to another rack" in out


def test_policies_test_names_the_example_that_does_not_behave(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = (
        POLICIES.split("  - id: ACME002")[0]
        + """\
    examples:
      pass:
        - racks: [{id: r1, platform: hgx-h100, nodes: 4, hall: B}]
          site: {halls: {B: {}}}
      fail:
        - racks: [{id: r1, platform: hgx-h100, nodes: 4, hall: B}]
          site: {halls: {B: {}}}
"""
    )
    file = tmp_path / "p.yaml"
    file.write_text(policy, encoding="utf-8")
    assert main(["policies", "test", str(file)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"ok   ACME001 pass[0] ({file}:12:11)"
    assert out[1] == (
        f"FAIL ACME001 fail[0] ({file}:15:11): it should fail, but the policy found nothing"
    )
    assert out[-1] == "1 of 2 examples behave"
    assert main(["policies", "check", str(file)]) == 0
    assert capsys.readouterr().out == "1 policy in 1 file: ok\n"


def test_policies_check_reports_every_problem_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "p.yaml"
    file.write_text(
        POLICIES.replace("60 kW", "60 m").replace("for: feeds", "for: feed"), encoding="utf-8"
    )
    assert main(["policies", "check", str(file)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"dclint: error: {file}:7:22: it_load is a power field (e.g. '120 kW'); "
        "'60 m' is a length: they cannot be compared"
    ]


@pytest.mark.parametrize(
    ("pack", "examples"), [("dgx-superpod.yaml", 8), ("northwind-standard.yaml", 21)]
)
def test_the_example_packs_examples_all_behave(pack: str, examples: int) -> None:
    from dclint.policy import load_policies
    from dclint.policy.examples import run_examples

    outcomes = run_examples(load_policies([str(PACKS / pack)]))
    assert [(o.policy.id, o.example.label, o.detail) for o in outcomes if not o.ok] == []
    assert len(outcomes) == examples
    failing = {o.policy.id for o in outcomes if o.example.outcome == "fail"}
    assert failing == {o.policy.id for o in outcomes}  # every policy has a failing example


def test_the_superpod_pack_on_the_samples(tmp_path: Path) -> None:
    config = tmp_path / ".dclint.yaml"
    config.write_text(f'policies: ["{PACKS / "dgx-superpod.yaml"}"]\n', encoding="utf-8")
    engine = Engine(config=load_config(config), today=TODAY)
    found = {}
    for name in ("h100-40node", "broken-fabric-2to1"):
        result = engine.check_file(str(ROOT / "sample_designs" / f"{name}.yaml"))
        found[name] = [
            (f.rule, f.line) for f in sorted(result.findings) if f.rule.startswith("SPOD")
        ]
    assert found == {
        "h100-40node": [("SPOD003", 4)],
        "broken-fabric-2to1": [("SPOD003", 4), ("SPOD004", 80)],
    }


def test_the_policy_schema_is_in_sync_and_validates_the_packs() -> None:
    import yaml

    from dclint.policy.reference import policy_schema_text

    text = (ROOT / "schemas" / "policy.schema.json").read_text(encoding="utf-8")
    assert text == policy_schema_text(), "run `dclint schema policy > schemas/policy.schema.json`"
    validator = jsonschema.Draft202012Validator(json.loads(text))
    for pack in sorted(PACKS.glob("*.yaml")):
        data = yaml.safe_load(pack.read_text(encoding="utf-8"))
        assert [e.message for e in validator.iter_errors(data)] == [], pack.name
    bad = {
        "policies": [
            {"id": "ACME001", "name": "x", "for": "racks", "require": {"it_lod": {"max": "1 kW"}}}
        ]
    }
    assert [e.message for e in validator.iter_errors(bad)] != []


def test_the_generated_reference_in_the_docs_is_in_sync() -> None:
    from dclint.policy.reference import REFERENCE_END, REFERENCE_START, policy_reference

    doc = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    start, end = doc.index(REFERENCE_START), doc.index(REFERENCE_END) + len(REFERENCE_END)
    assert doc[start:end] + "\n" == policy_reference(), (
        "docs/policies.md is stale: python -m dclint.policy.reference --write"
    )


def test_a_changed_policy_file_is_not_replayed_from_the_results_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _repo(tmp_path)
    monkeypatch.delenv("DCLINT_NO_CACHE", raising=False)
    design = str(folder / "design.yaml")
    assert main(["check", "--select", "ACME001", design]) == 1
    assert "80 kW, above 60 kW" in capsys.readouterr().out
    policies = folder / "policies" / "acme.yaml"
    policies.write_text(POLICIES.replace("60 kW", "90 kW"), encoding="utf-8")
    assert main(["check", "--select", "ACME001", design]) == 0
    assert "ACME001" not in capsys.readouterr().out


def _modules(*argv: str) -> list[str]:
    script = (
        f"import json, sys\nsys.argv = {['dclint', *argv]!r}\n"
        "from dclint.cli import _replay_or_main\n"
        "code = _replay_or_main()\nsys.stdout.flush()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    return [m for m in json.loads(out.stdout.splitlines()[-1]) if m.startswith("dclint.policy")]


def test_policy_code_is_imported_only_when_a_config_names_policies(tmp_path: Path) -> None:
    # a check whose config names no policy imports none of dclint.policy: the same fresh
    # process test_cold_check_imports starts (`dclint check --no-cache` of a sample) says so
    folder = _repo(tmp_path)
    loaded = _modules("check", "--no-cache", str(folder / "design.yaml"))
    assert "dclint.policy.evaluate" in loaded
    assert "dclint.policy.examples" not in loaded and "dclint.policy.reference" not in loaded


def test_computed_facts_are_the_engines_own_figures() -> None:
    from dclint.api import facts
    from dclint.loader import load
    from dclint.policy.elements import context_for
    from dclint.policy.evaluate import judge
    from dclint.policy.format import read_policies

    design = load(str(ROOT / "sample_designs" / "h100-40node.yaml"))
    text = """\
policies:
  - {id: ACME001, name: a, for: workloads, require: {predicted_step: {max: 1 ms}}}
  - {id: ACME002, name: b, for: feeds, require: {capacity: {max: 1 kW}, load: {max: 1 kW}}}
  - {id: ACME003, name: c, for: tiers, require: {oversubscription: {max: "0.5:1"}}}
"""
    found = {p.id: list(judge(p, context_for(design))) for p in read_policies("p.yaml", text)}
    projection = facts(design).projections[0]
    step = projection.timing.step_time
    assert found["ACME001"][0].measured.m_as("s") == pytest.approx(step.m_as("s"), rel=1e-12)
    assert str(found["ACME001"][0].measured.units) == "ms"  # the unit of its limit
    assert found["ACME002"][0].measured.m_as("kW") == facts(design).feed_capacity_kw["a01"]
    bandwidths = facts(design).tier_bandwidths(0)
    assert [v.measured for v in found["ACME003"]] == [f"{bandwidths[0].ratio:.2f}:1"]
    assert len(found["ACME002"]) == 20  # every feed, ranges expanded


def test_policies_test_reads_a_directory_and_the_configs_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _repo(tmp_path)
    assert main(["policies", "check", str(folder / "policies")]) == 0
    assert capsys.readouterr().out == "4 policies in 1 file: ok\n"
    monkeypatch.chdir(folder)
    assert main(["policies", "test"]) == 0  # the config's files: no example, nothing fails
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "note: no failing example for ACME001, ACME002, ACME003, ACME004",
        "0 of 0 examples behave",
    ]


def test_a_directory_check_does_not_call_the_policy_files_stray_yaml(tmp_path: Path) -> None:
    from dclint.engine.runner import run

    folder = _repo(tmp_path)
    (folder / "notes.yaml").write_text("title: not a design\n", encoding="utf-8")
    result = run([str(folder)], Engine(today=TODAY))
    assert [Path(f).name for f in result.skipped] == ["notes.yaml"]
    assert sum(f.rule.startswith("ACME") for f in result.findings) == 4


def test_the_walk_throughs_policy_reads_and_its_inline_example_fails() -> None:
    from dclint.policy.examples import run_examples
    from dclint.policy.format import read_policies

    doc = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    block = doc.split("**2. Write a policy.**", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    (policy,) = read_policies("acme.yaml", block)
    assert (policy.id, policy.kind, policy.severity) == ("ACME001", "racks", "error")
    inline = [o for o in run_examples([policy]) if o.example.data is not None]
    assert [(o.example.label, o.ok) for o in inline] == [("fail[0]", True)]
    assert inline[0].detail == ("rack r1 in hall B draws 120 kW; hall B takes at most 60 kW a rack")


def test_two_configs_may_name_the_same_policy_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    for name, pattern in (("a", "../policies/acme.yaml"), ("b", "../policies/*.yaml")):
        (repo / name).mkdir()
        (repo / name / ".dclint.yaml").write_text(f'policies: ["{pattern}"]\n', "utf-8")
        (repo / name / "design.yaml").write_text(DESIGN, encoding="utf-8")
    engine = Engine(today=TODAY)
    counts = [
        sum(
            f.rule.startswith("ACME")
            for f in engine.check_file(str(repo / n / "design.yaml")).findings
        )
        for n in ("a", "b")
    ]
    assert counts == [4, 4]


def test_the_editor_workspace_judges_again_when_a_policy_file_changes(tmp_path: Path) -> None:
    from dclint.server.workspace import Workspace

    folder = _repo(tmp_path)
    ws = Workspace(folder, {"today": TODAY})
    design = (folder / "design.yaml").resolve()
    policies = folder / "policies" / "acme.yaml"

    def acme001() -> list[int]:
        diags = ws.check(design)[design]
        return [d.line for d in diags if d.rule == "ACME001"]

    assert not ws.is_policy_file(policies)  # nothing checked yet
    assert acme001() == [22]
    assert ws.is_policy_file(policies) and not ws.is_policy_file(design)
    policies.write_text(POLICIES.replace("60 kW", "90 kW"), encoding="utf-8")
    ws.reload_config()  # what the server does for a policy file it sees saved or changed
    assert acme001() == []


@pytest.mark.parametrize("fmt", ["junit", "sarif"])
def test_a_replayed_run_lists_the_site_policies_as_a_checked_one_does(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """JUnit (a testcase a rule) and SARIF (a description a rule) name the site policies the
    config runs: a run replayed from the results cache, which checks nothing, too."""
    folder = _repo(tmp_path)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("DCLINT_NO_CACHE", "1")
    argv = ["check", "--today", "2026-12-02", "--format", fmt, "design.yaml"]
    cold = (main(argv), capsys.readouterr().out)
    assert "ACME001" in cold[1]
    monkeypatch.delenv("DCLINT_NO_CACHE")
    assert (main(argv), capsys.readouterr().out) == cold  # checks and stores
    for record in (folder / ".dclint_cache").glob("run-*.json"):  # a run record replays
        record.unlink()  # the report whole: the designs' replay is the one tested

    def refuse(self: Engine, file: str) -> None:
        raise AssertionError(f"{file} was checked, not replayed")

    monkeypatch.setattr(Engine, "check_file", refuse)
    assert (main(argv), capsys.readouterr().out) == cold


def test_junit_lists_a_policy_only_under_the_designs_whose_config_runs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository where hall a's config names the site policies and hall b's names none:
    hall b's testsuite has no testcase for a policy it never ran (it would read as a pass)."""
    import xml.etree.ElementTree as ET

    folder = _repo(tmp_path)
    (folder / ".dclint.yaml").unlink()
    for name, config in (("a", 'policies: ["../policies/*.yaml"]\n'), ("b", "fail-on: error\n")):
        (folder / name).mkdir()
        (folder / name / ".dclint.yaml").write_text(config, encoding="utf-8")
        (folder / name / "design.yaml").write_text(DESIGN, encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("DCLINT_NO_CACHE", "1")
    argv = ["check", "--today", "2026-12-02", "--format", "junit", "a/design.yaml", "b/design.yaml"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1, err
    suites = ET.fromstring(out)
    acme = {
        s.get("file"): sorted(
            c.get("name", "").split()[0] for c in s if c.get("name", "").startswith("ACME")
        )
        for s in suites
    }
    assert acme == {
        "a/design.yaml": ["ACME001", "ACME002", "ACME003", "ACME004"],
        "b/design.yaml": [],
    }
