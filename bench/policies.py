"""Fifty site policies for the benchmark (docs/policies.md): a team's standard as a large
policy file would hold it, every kind of test the evaluator runs (fields with units, `in`,
counts, distinct values, sums with `where`, all/any/not, computed facts) over the generated
GB200 designs' racks, feeds, panels, CDUs, loops, tiers, workloads and the design itself.
Ten templates, five limits each; most pass, as a standard a design meets would."""

from __future__ import annotations

from pathlib import Path

__all__ = ["COUNT", "policies_text", "write"]

COUNT = 50

_TEMPLATES = [
    ("racks", "it_load: {{max: {n} kW}}", [132, 140, 150, 160, 125]),
    (
        "racks",
        "count(feeds): {{min: {n}}}\n      distinct(feeds.panel.path): {{min: 2}}",
        [1, 2, 2, 1, 2],
    ),
    (
        "racks",
        "any:\n        - peak_load: {{max: {n} kW}}\n        - power_capped: true",
        [132, 140, 150, 160, 200],
    ),
    (
        "feeds",
        "capacity: {{min: {n} kW}}\n      voltage: {{in: [415 V, 400 V, 480 V]}}",
        [10, 20, 30, 40, 50],
    ),
    ("panels", "not: {{capacity: {{max: {n} kW}}}}", [10, 20, 30, 40, 50]),
    (
        "tiers",
        'switch: {{in: [qm9700, q3400]}}\n      oversubscription: {{max: "{n}:1"}}',
        [1, 2, 3, 4, 8],
    ),
    ("cdus", "capacity: {{min: {n} kW}}\n      count(loops): {{min: 1}}", [100, 200, 300, 400, 50]),
    (
        "loops",
        "supply_temperature: {{max: {n} degC}}\n      count(racks): {{min: 1}}",
        [40, 45, 35, 50, 32],
    ),
    (
        "design",
        "sum(racks.it_load) where status == active: {{max: {n} MW}}\n      gpus: {{max: 200000}}",
        [100, 200, 300, 400, 500],
    ),
    (
        "workloads",
        "gpus: {{max: {n}}}\n      precision: {{in: [bf16, fp8]}}",
        [100000, 200000, 50000, 20000, 15000],
    ),
]


def policies_text() -> str:
    lines = ["policies:"]
    n = 0
    for kind, require, limits in _TEMPLATES:
        for limit in limits:
            n += 1
            lines += [
                f"  - id: BENCH{n:03d}",
                f"    name: bench-policy-{n}",
                "    severity: warning",
                f"    for: {kind}",
                "    require:",
                "      " + require.format(n=limit),
            ]
    assert n == COUNT
    return "\n".join(lines) + "\n"


def write(out: Path) -> dict[str, Path]:
    """The policy file and two configs to compare: one naming it, one naming none."""
    folder = out / "policies"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "site.yaml").write_text(policies_text(), encoding="utf-8")
    with_policies = folder / "with-policies.dclint.yaml"
    with_policies.write_text('policies: ["site.yaml"]\n', encoding="utf-8")
    without = folder / "without-policies.dclint.yaml"
    without.write_text("select: [ALL]\n", encoding="utf-8")
    return {"with": with_policies, "without": without}
