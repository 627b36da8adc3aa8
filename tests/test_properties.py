"""Property tests: generated designs load or fail cleanly, and findings obey invariants.

Example counts are small by default; set DCLINT_DEEP=1 for a thorough run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dclint
from conftest import SAMPLES, TODAY
from dclint.engine.runner import Engine
from dclint.errors import LoadError
from dclint.loader.dump import _Dumper

ROOT = Path(__file__).resolve().parent.parent
DEEP = os.environ.get("DCLINT_DEEP") == "1"
SETTINGS = settings(
    max_examples=500 if DEEP else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ENGINE = Engine(today=TODAY)

# --- building blocks --------------------------------------------------------------------------
GARBAGE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**25),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.sampled_from(["a", "id", "<<"]), st.integers(0, 9), max_size=2),
    st.sampled_from(
        [
            "no",
            "on",
            "1:30",
            "010",
            "nan W",
            "inf kW",
            "1e999999 W",
            "9**9**9 W",
            "120 kg",
            "-5 kW",
            "0 kW",
            "120",
            "1e308 kW",
            "r[10-01]",
            "kW",
            "",
            "~",
            "80 %",
            "5 K",
        ]
    ),
)


def valid_or_garbage(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(valid, valid, valid, GARBAGE)  # mostly valid, so rules get to run


def quantity(unit: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(lambda n: f"{n} {unit}")


POWER = st.one_of(quantity("kW", 1, 200), quantity("W", 1000, 200000), quantity("MW", 1, 2))
RACK_IDS = st.sampled_from(["r01", "r02", "r[01-04]", "r[1-3]", "su-r", "r[10-01]"])


@st.composite
def racks(draw: st.DrawFn) -> list[dict[str, Any]]:
    out = []
    for _ in range(draw(st.integers(1, 3))):
        rack: dict[str, Any] = {"id": draw(valid_or_garbage(RACK_IDS))}
        if rack["id"] == "su-r":
            rack["count"] = draw(valid_or_garbage(st.integers(1, 8)))
        if draw(st.booleans()):
            rack["platform"] = draw(st.sampled_from(["gb200-nvl72", "hgx-h100", "nope"]))
        if draw(st.booleans()) or "platform" not in rack:
            rack["it_load"] = draw(valid_or_garbage(POWER))
        if draw(st.booleans()):
            rack["liquid_fraction"] = draw(valid_or_garbage(st.sampled_from(["80%", 0.5, "0%"])))
        if draw(st.booleans()):
            rack["feeds"] = draw(st.lists(st.sampled_from(["f1", "fa$n", "nope"]), max_size=2))
        out.append(rack)
    return out


@st.composite
def power(draw: st.DrawFn) -> dict[str, Any]:
    panels = [
        {
            "id": pid,
            "voltage": draw(valid_or_garbage(st.just("415 V"))),
            "current_rating": draw(valid_or_garbage(quantity("A", 50, 2000))),
            **(
                {"fed_by": draw(st.sampled_from(["p1", "p2", "p9"]))} if draw(st.booleans()) else {}
            ),
        }
        for pid in draw(st.lists(st.sampled_from(["p1", "p2"]), max_size=2))
    ]
    feeds = [
        {
            "id": fid,
            "voltage": "415 V",
            "current_rating": draw(quantity("A", 10, 400)),
            **({"panel": draw(st.sampled_from(["p1", "p2"]))} if draw(st.booleans()) else {}),
        }
        for fid in draw(st.lists(st.sampled_from(["f1", "fa[1-4]", "fa[01-04]"]), max_size=2))
    ]
    return {"panels": panels, "feeds": feeds}


@st.composite
def fabric(draw: st.DrawFn) -> dict[str, Any]:
    tier = {
        "name": "leaf",
        "switch": draw(st.sampled_from(["qm9700", "qm9700", "bogus"])),
        "count": draw(valid_or_garbage(st.integers(1, 32))),
        "downlinks": draw(valid_or_garbage(st.integers(0, 64))),
        "uplinks": draw(valid_or_garbage(st.integers(0, 64))),
    }
    spine = {
        "name": "spine",
        "switch": "qm9700",
        "count": draw(st.integers(1, 16)),
        "downlinks": draw(st.integers(1, 64)),
    }
    return {
        "id": "compute",
        "kind": draw(valid_or_garbage(st.just("compute"))),
        "tiers": [tier, spine],
    }


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {"name": draw(valid_or_garbage(st.just("gen")))}
    doc["racks"] = draw(racks())
    if draw(st.booleans()):
        doc["power"] = draw(power())
    if draw(st.booleans()):
        doc["fabrics"] = [draw(fabric())]
    if draw(st.booleans()):
        doc["storage"] = {
            "tiers": [
                {
                    "id": "fs",
                    "kind": "parallel_fs",
                    "read_bandwidth": draw(valid_or_garbage(quantity("GB/s", 1, 500))),
                }
            ]
        }
    if draw(st.booleans()):
        doc["site"] = {
            "pue": draw(valid_or_garbage(st.sampled_from([1.2, 1.5]))),
            "utility_capacity": draw(valid_or_garbage(POWER)),
        }
    if draw(st.integers(0, 9)) == 0:
        doc[draw(st.sampled_from(["extra", "rack", "<<"]))] = draw(GARBAGE)
    return doc


@st.composite
def texts(draw: st.DrawFn) -> str:
    text = yaml.safe_dump(draw(documents()), sort_keys=False)
    mutation = draw(st.integers(0, 5))
    if mutation == 0 and text:  # truncated mid-edit
        text = text[: draw(st.integers(0, len(text) - 1))]
    elif mutation == 1:  # a stray character somewhere
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at]
            + draw(st.sampled_from(["\t", "'", '"', "[", "{", ":", "&a", "*a", "!x"]))
            + text[at:]
        )
    return text


def check_text(text: str) -> Any:
    """Run the engine on `text` as a design file; returns the DesignResult."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "design.yaml"
        path.write_text(text, encoding="utf-8")
        result = ENGINE.check_file(str(path))
    return result


def findings(text: str, rule: str | None = None) -> set[tuple[str, int, int, str, str]]:
    result = check_text(text)
    assert not result.errors, [str(e) for e in result.errors]
    return {
        (f.rule, f.line, f.column, f.subject, f.message)
        for f in result.findings
        if rule is None or f.rule == rule
    }


# --- properties ------------------------------------------------------------------------------
@SETTINGS
@given(texts())
def test_any_generated_design_loads_or_fails_cleanly(text: str) -> None:
    try:
        dclint.load_text(text, "gen.yaml")
    except LoadError as exc:
        assert exc.problems and all(p.line >= 1 and p.column >= 1 for p in exc.problems)
    result = check_text(text)  # the engine never raises; broken rules become findings
    assert not [f for f in result.findings if "rule-failure" in f.tags], result.findings


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
@pytest.mark.integration  # a process per hash seed
def test_json_output_is_identical_across_runs_and_hash_seeds(sample: str) -> None:
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "dclint",
                "check",
                f"sample_designs/{sample}",
                "--format",
                "json",
                "--today",
                TODAY.isoformat(),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode in (0, 1), proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1


LOADS_KW = st.lists(st.integers(1, 300), min_size=1, max_size=4)


def rack_design(loads: list[str], uplinks: int = 32) -> str:
    lines = ["name: gen", "racks:"]
    lines += [f"  - {{id: r{i:02d}, it_load: '{load}'}}" for i, load in enumerate(loads)]
    lines += [
        "fabrics:",
        "  - id: compute",
        "    kind: compute",
        "    tiers:",
        f"      - {{name: leaf, switch: qm9700, count: 4, downlinks: 32, uplinks: {uplinks}}}",
        "      - {name: spine, switch: qm9700, count: 2, downlinks: 64}",
    ]
    return "\n".join(lines) + "\n"


@SETTINGS
@given(LOADS_KW, st.data())
def test_the_same_values_in_other_units_give_the_same_findings(loads: list[int], data: Any) -> None:
    units = data.draw(
        st.lists(st.sampled_from(["W", "kW", "MW"]), min_size=len(loads), max_size=len(loads))
    )
    scale = {"W": 1000, "kW": 1, "MW": 0.001}
    base = findings(rack_design([f"{kw} kW" for kw in loads]))
    other = [
        f"{kw * scale[u]:g} {u}" if u != "MW" else f"{kw / 1000!r} MW"
        for kw, u in zip(loads, units, strict=True)
    ]
    assert findings(rack_design(other)) == base


@SETTINGS
@given(LOADS_KW, st.data())
def test_raising_a_rack_load_never_removes_a_pwr001_finding(loads: list[int], data: Any) -> None:
    before = {s for _, _, _, s, _ in findings(rack_design([f"{x} kW" for x in loads]), "PWR001")}
    which = data.draw(st.integers(0, len(loads) - 1))
    raised = list(loads)
    raised[which] += data.draw(st.integers(0, 200))
    after = {s for _, _, _, s, _ in findings(rack_design([f"{x} kW" for x in raised]), "PWR001")}
    assert before <= after


@SETTINGS
@given(st.integers(1, 64), st.integers(0, 64))
def test_adding_uplinks_never_adds_a_net001_finding(uplinks: int, more: int) -> None:
    loads = ["100 kW"]
    before = findings(rack_design(loads, uplinks), "NET001")
    after = findings(rack_design(loads, uplinks + more), "NET001")
    assert {s for *_, s, _ in after} <= {s for *_, s, _ in before}


@st.composite
def valid_designs(draw: st.DrawFn) -> str:
    racks_ = [
        {
            "id": f"r{i:02d}",
            "it_load": draw(POWER),
            **(
                {"liquid_fraction": draw(st.sampled_from(["80%", 0.5, "12.5%"]))}
                if draw(st.booleans())
                else {}
            ),
        }
        for i in range(draw(st.integers(1, 3)))
    ]
    doc: dict[str, Any] = {
        "name": draw(st.sampled_from(["gen", "1e3", "true", "010", "no"])),
        "racks": racks_,
    }
    if draw(st.booleans()):
        doc["fabrics"] = [
            draw(
                fabric().filter(
                    lambda f: (
                        f["tiers"][0]["switch"] == "qm9700"
                        and f["kind"] == "compute"
                        and all(
                            isinstance(f["tiers"][0][k], int)
                            and not isinstance(f["tiers"][0][k], bool)
                            and 0 <= f["tiers"][0][k] <= 100_000  # the model's bounds
                            for k in ("count", "downlinks", "uplinks")
                        )
                        and f["tiers"][0]["count"] > 0
                    )
                )
            )
        ]
    if draw(st.booleans()):
        doc["cooling"] = {
            "cdus": [
                {
                    "id": "c1",
                    "capacity": "500 kW",
                    "max_flow": "700 L/min",
                    "approach": draw(st.sampled_from(["5 K", "3 delta_degC"])),
                }
            ],
            "loops": [
                {
                    "id": "l1",
                    "cdu": "c1",
                    "racks": ["r00"],
                    "supply_temperature": draw(st.sampled_from(["32 degC", "305 K", "90 degF"])),
                    "return_temperature": "45 degC",
                }
            ],
        }
    # dclint's dumper quotes `1e3` and friends, which PyYAML (YAML 1.1) would write plain
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False)


@SETTINGS
@given(valid_designs())
def test_dump_round_trips_generated_designs(text: str) -> None:
    design = dclint.load_text(text, "gen.yaml")
    again = dclint.load_text(dclint.dump(design), "dumped.yaml")
    assert again.model_dump(mode="json") == design.model_dump(mode="json")


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
def test_dump_round_trips_samples(sample: str) -> None:
    design = dclint.load(SAMPLES / sample)
    again = dclint.load_text(dclint.dump(design), "dumped.yaml")
    assert again.model_dump(mode="json") == design.model_dump(mode="json")
