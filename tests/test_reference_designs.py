"""Public reference designs checked against their published verdicts (issues 17 and 18).

Each design in tests/reference_designs/ opens with a comment naming its public source
(NVIDIA DGX SuperPOD reference architectures and user guides, the OCP GB200 rack
specification, NetBox's power feed model, the Llama 3 paper, Narayanan et al. 2021, NVIDIA
NeMo and dgxc-benchmarking recipes, DeepSeek's 3FS) and the figures it encodes.
Published-sound designs must give no finding; known-bad variants (`bad-*.yaml`) must give
exactly the findings their `# expect: ID` marks name; the figures the sources print are
checked where dclint computes them.

Cases where dclint disagrees with a published verdict or figure, and the physics and the
source are certain, are asserted with the published value in the `test_disagreement_*`
functions at the end: they fail until the rule is fixed, and are not skipped.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import TODAY, expected_counts, finding_counts
from dclint import load
from dclint.calc.fabric_tiers import endpoint_ports, tier_bandwidths
from dclint.engine.config import Config
from dclint.engine.findings import Finding
from dclint.engine.runner import Engine, run
from dclint.model.resolve import topology_of
from dclint.projection import project_workloads
from dclint.units import Q_

DESIGNS = Path(__file__).resolve().parent / "reference_designs"
PAR = ("PAR001", "PAR002", "PAR003", "PAR004")
SQRT3 = math.sqrt(3)

# Published sound: no finding at dclint's defaults.
SOUND = [
    "dgx-h100-superpod-4su.yaml",  # NVIDIA DGX SuperPOD H100 RA, 4 SU, 127 nodes + 4 UFM
    "gb200-nvl72-superpod-su.yaml",  # NVIDIA DGX SuperPOD GB200 RA, one SU
    "dgx-b200-superpod-4su.yaml",  # NVIDIA DGX SuperPOD B200 RA, 4 SU, two DGX a rack
    "dgx-b200-superpod-fabric-8su.yaml",  # B200 RA table: 64 leaf + 32 spine, 2,048 GPUs
    "dgx-b200-superpod-fabric-16su.yaml",  # B200 RA table: 128 leaf + 128 spine + 64 core
    "dgx-b200-four-per-rack-rear-door.yaml",  # 57.2 kW racks, rear doors: CLG005's own fix
    "netbox-power-feeds.yaml",  # NetBox power feed worked examples
    "megatron-gpt3-175b-a100.yaml",  # Narayanan et al. 2021, GPT-3 175B, TP 8 PP 8
]

# Published unsound: exactly the marked (rule, line) findings, one per mark.
KNOWN_BAD = [
    "bad-dgx-h100-superpod-4su-leaf-2to1.yaml",  # NET001: 2:1 leaf, RA is 1:1
    "bad-dgx-h100-superpod-4su-128-nodes.yaml",  # NET009: no leaf port left for UFM
    "bad-dgx-h100-superpod-4su-storage-good.yaml",  # STO001: "good" storage, "better" claimed
    "bad-gb200-nvl72-rack-130kw.yaml",  # PWR001: 130 kW above the 120 kW rack design
    "bad-gb200-nvl72-busway-headroom.yaml",  # PWR002: 77.95 kW of headroom, 80 kW needed
    "bad-dgx-b200-superpod-fabric-16su-two-tier.yaml",  # NET005: 4,096 GPUs on two tiers
    "bad-deepseek-3fs-claim-above-line-rate.yaml",  # STO006: 9.9 TB/s on 9 TB/s of NICs
]

# Published sound; dclint adds only the warnings of its own practice that the file marks.
SOUND_WITH_PRACTICE_WARNINGS = [
    "deepseek-3fs-storage.yaml",  # 3FS: 6.6 TiB/s from 180 x 2 x 200 Gb/s; STO004 x2
]

# Published designs dclint flagged until the rule fixes the test_disagreement_* functions
# assert (they now guard those fixes).
DISAGREEMENT_DESIGNS = [
    "dgx-b300-superpod-xdr-1su.yaml",
    "nvidia-dgxc-llama31-405b-h100.yaml",
    "gb300-nvl72-superpod-su.yaml",
]

META = DESIGNS / "meta-llama3-24k-roce.yaml"
META_7_TO_1 = Config(rule_settings={"NET001": {"tier_limits": {"compute.spine": 7.0}}})


def _findings(name: str, config: Config | None = None) -> list[Finding]:
    result = run([str(DESIGNS / name)], Engine(config=config, today=TODAY))
    assert not result.errors, [str(e) for e in result.errors]
    return result.findings


def _figures(name: str, rule: str) -> list[tuple[int, str | None, str | None]]:
    return [(f.line, f.measured_text, f.limit_text) for f in _findings(name) if f.rule == rule]


def _mark(name: str, rule: str) -> int:
    """The line of the design's `# expect: RULE` mark."""
    (line,) = {line for rid, line in expected_counts(DESIGNS / name) if rid == rule}
    return line


def _projection(name: str, workload: str) -> dict[str, Any]:
    (found,) = [p.as_dict() for p in project_workloads(load(DESIGNS / name))]
    assert found["workload"] == workload
    return found


def test_every_reference_design_is_listed() -> None:
    """A design added to the folder without a verdict here would be checked by nothing."""
    listed = set(SOUND) | set(KNOWN_BAD) | set(SOUND_WITH_PRACTICE_WARNINGS) | {META.name}
    listed |= {"dgx-b200-four-per-rack-air.yaml", FEEDS_60A, *DISAGREEMENT_DESIGNS}
    assert {p.name for p in DESIGNS.glob("*.yaml")} == listed


def test_every_reference_design_names_its_source() -> None:
    for path in sorted(DESIGNS.glob("*.yaml")):
        head = path.read_text(encoding="utf-8").split("\nname:", 1)[0].lower()
        assert "source:" in head or "variant of" in head, path.name
        assert "verdict" in head, path.name


@pytest.mark.parametrize("name", SOUND)
def test_published_sound_design_is_clean(name: str) -> None:
    assert finding_counts(DESIGNS / name) == Counter()


@pytest.mark.parametrize("name", KNOWN_BAD)
def test_published_unsound_variant_fails_where_marked(name: str) -> None:
    path = DESIGNS / name
    expected = expected_counts(path)
    assert expected, f"{name} marks no expected finding"
    assert finding_counts(path) == expected


@pytest.mark.parametrize("name", SOUND_WITH_PRACTICE_WARNINGS)
def test_published_sound_design_has_only_its_marked_practice_warnings(name: str) -> None:
    path = DESIGNS / name
    assert finding_counts(path) == expected_counts(path)
    assert {f.severity for f in _findings(name)} == {"warning"}


def test_deepseek_3fs_measured_read_is_within_line_rate() -> None:
    """180 x 2 x 200 Gb/s = 9 TB/s; 6.6 TiB/s = 7.257 TB/s = 80.6% of it (STO006 allows 90%)."""
    line_rate = 180 * 2 * 200e9 / 8
    measured = 6.6 * 2**40
    assert measured / line_rate == pytest.approx(0.806, abs=0.001)
    assert _figures("deepseek-3fs-storage.yaml", "STO006") == []
    name = "bad-deepseek-3fs-claim-above-line-rate.yaml"
    assert _figures(name, "STO006") == [(_mark(name, "STO006"), "9896 GB/s", "8100 GB/s")]


# --- NVIDIA DGX SuperPOD, DGX H100, 4 SU -------------------------------------------------


def test_h100_superpod_figures() -> None:
    """127 DGX H100 = 1,016 GPUs; 40.8 kW racks (4 x 10.2 kW), the last one 30.6 kW; the
    1,016 GPU NICs and 4 UFM ports fit 32 x 32 leaf downlinks and run 1:1 to the spines."""
    design = load(DESIGNS / "dgx-h100-superpod-4su.yaml")
    topo = topology_of(design)
    assert topo.gpus == 1016
    loads = Counter(round(r.it_load.m_as("kW"), 6) for r in topo.racks)
    assert loads == Counter({40.8: 31, 30.6: 1})
    assert topo.it_load.m_as("kW") == pytest.approx(127 * 10.2)
    # 415 V / 100 A three-phase at 80%: 57.5 kVA, 54.6 kW at PF 0.95 (>= 40.8 kW)
    feed = topo.feeds["su1-a1"]
    assert feed.apparent_kva == pytest.approx(SQRT3 * 415 * 100 * 0.8 / 1000)
    assert feed.capacity.m_as("kW") == pytest.approx(54.629, abs=0.001)
    ports = endpoint_ports(design, design.fabrics[0])
    assert (ports.gpu_ports, ports.other, ports.total) == (1016, 4, 1020)
    leaf, spine = tier_bandwidths(design, 0)
    assert leaf.down.m_as("Tb/s") == pytest.approx(1020 * 0.4)  # the ports in use bind
    assert leaf.up is not None and leaf.up.m_as("Tb/s") == pytest.approx(1024 * 0.4)
    assert spine.down.m_as("Tb/s") == pytest.approx(1024 * 0.4)
    assert spine.up is None


def test_h100_superpod_2to1_leaf_verdict() -> None:
    (finding,) = _findings("bad-dgx-h100-superpod-4su-leaf-2to1.yaml")
    assert (finding.rule, finding.limit_text) == ("NET001", "1:1")
    assert "204.8 Tb/s up" in finding.message  # 32 leaves x 16 uplinks x 400 Gb/s


def test_h100_superpod_128th_node_leaves_ufm_without_a_port() -> None:
    name = "bad-dgx-h100-superpod-4su-128-nodes.yaml"
    assert _figures(name, "NET009") == [(_mark(name, "NET009"), "1,028", "1,024")]


def test_h100_superpod_storage_read_at_the_ra_better_level() -> None:
    """The 64-node job is 2 SU: 2 x 40 GB/s of read at the RA's 'better' level; 160 GB/s (the
    4 SU row) passes, 60 GB/s (the 4 SU 'good' row) does not."""
    name = "bad-dgx-h100-superpod-4su-storage-good.yaml"
    assert _figures(name, "STO001") == [(_mark(name, "STO001"), "60 GB/s", "80 GB/s")]


FEEDS_60A = "bad-dgx-h100-superpod-4su-feeds-60a.yaml"


def test_h100_superpod_on_60a_feeds_loses_2n() -> None:
    """415 V / 60 A at 80% and PF 0.95: 32.78 kW a feed, below a 40.8 kW rack. Each range line
    writes eight feeds or racks, so the marks name the lines and the counts come from the
    design: 31 racks at 40.8 kW (PWR004) and their 62 feeds (PWR003); su4-r8 (30.6 kW) fits."""
    found = finding_counts(DESIGNS / FEEDS_60A)
    assert set(found) == set(expected_counts(DESIGNS / FEEDS_60A))
    per_rule = Counter()
    for (rule, _line), n in found.items():
        per_rule[rule] += n
    assert per_rule == Counter({"PWR003": 62, "PWR004": 31})
    figures = {(f.rule, f.measured_text, f.limit_text) for f in _findings(FEEDS_60A)}
    assert figures == {("PWR003", "40.8 kW", "32.78 kW"), ("PWR004", "40.8 kW", "32.78 kW")}


# --- NVIDIA DGX SuperPOD, GB200 NVL72, one SU --------------------------------------------


def test_gb200_su_figures() -> None:
    """415 V / 250 A taps carry 136.6 kW >= 132 kW peak; 2,000 A busways carry 1,092.6 kW,
    132.6 kW above the SU's 960 kW; 102 kW of liquid heat a rack needs 146.9 L/min at 10 K."""
    topo = topology_of(load(DESIGNS / "gb200-nvl72-superpod-su.yaml"))
    assert topo.gpus == 576
    assert topo.it_load.m_as("kW") == pytest.approx(960)
    tap = SQRT3 * 415 * 250 * 0.8 * 0.95 / 1000
    assert tap == pytest.approx(136.57, abs=0.01)
    assert topo.feeds["tap-a1"].capacity.m_as("kW") == pytest.approx(tap)
    busway = SQRT3 * 415 * 2000 * 0.8 * 0.95 / 1000
    assert topo.panels["busway-a"].capacity.m_as("kW") == pytest.approx(busway)
    assert busway - 960 == pytest.approx(132.6, abs=0.05)
    water = 4.18 * 997 / 1000 * 10 / 60  # kW carried per L/min of water at a 10 K rise
    assert 0.85 * 120 / water == pytest.approx(146.9, abs=0.05)


def test_gb200_known_bad_figures() -> None:
    name = "bad-gb200-nvl72-rack-130kw.yaml"
    assert _figures(name, "PWR001") == [(_mark(name, "PWR001"), "130 kW", "120 kW")]
    busway = SQRT3 * 415 * 1900 * 0.8 * 0.95 / 1000
    assert busway - 960 == pytest.approx(77.95, abs=0.005)
    name = "bad-gb200-nvl72-busway-headroom.yaml"
    assert _figures(name, "PWR002") == [(_mark(name, "PWR002"), "77.95 kW", "80 kW")]


def test_gb300_su_is_clean_in_a_hall_built_for_it(tmp_path: Path) -> None:
    """The GB300 SU is clean in the hall NVIDIA's GB300 NVL72 enterprise reference
    architecture builds for it (racks up to 142 kW, declared as site.rack_power_limit), so its
    feeds (163.9 kW), busways (1,365.8 kW), CDUs and XDR fabric pass; the same SU in a hall
    that declares no envelope is held to the 120 kW default: 8 racks at 135 kW fail."""
    name = "gb300-nvl72-superpod-su.yaml"
    assert _findings(name) == []
    text = (DESIGNS / name).read_text(encoding="utf-8")
    bare = text.replace("  rack_power_limit: 142 kW", "  # no envelope declared")
    assert bare != text
    path = tmp_path / name
    path.write_text(bare, encoding="utf-8")
    found = run([str(path)], Engine(today=TODAY)).findings
    assert Counter(f.rule for f in found) == Counter({"PWR001": 8})
    assert {(f.measured.m_as("kW"), f.limit.m_as("kW")) for f in found} == {(135, 120)}
    topo = topology_of(load(DESIGNS / name))
    assert topo.feeds["tap-a1"].capacity.m_as("kW") == pytest.approx(163.887, abs=0.001)
    assert topo.panels["busway-a"].capacity.m_as("kW") == pytest.approx(1365.722, abs=0.001)


# --- NVIDIA DGX SuperPOD, DGX B200 and B300 ----------------------------------------------


def test_b200_four_a_rack_air_is_dclints_own_verdict() -> None:
    """NVIDIA publishes no four-a-rack DGX B200: 57.2 kW to air passes CLG005's own 60 kW
    default (just above NVIDIA's four-DGX B300 air rack, ~56 kW) and fails a hall held to
    50 kW a rack on every one of the 32 racks."""
    name = "dgx-b200-four-per-rack-air.yaml"
    assert finding_counts(DESIGNS / name) == Counter()
    line = _mark(name, "CLG005")
    config = Config(rule_settings={"CLG005": {"limit": "50 kW"}})
    assert finding_counts(DESIGNS / name, config=config) == Counter({("CLG005", line): 32})
    found = {(f.line, f.measured_text, f.limit_text) for f in _findings(name, config)}
    assert found == {(line, "57.2 kW", "50 kW")}


def test_b200_fabric_at_the_two_tier_bound() -> None:
    """2,048 GPUs is exactly 64^2/2: two tiers hold the 8 SU pod; 16 SU needs the core."""
    assert topology_of(load(DESIGNS / "dgx-b200-superpod-fabric-8su.yaml")).gpus == 64**2 // 2
    name = "bad-dgx-b200-superpod-fabric-16su-two-tier.yaml"
    assert _figures(name, "NET005") == [(_mark(name, "NET005"), "4,096", "2,048")]


# --- Meta's Llama 3 cluster --------------------------------------------------------------


def test_meta_llama3_cluster_is_oversubscribed_between_pods_only() -> None:
    """1:1 at the ToR (16 down, 16 up); 192:28 = 6.86:1 from the cluster switches to the
    aggregation layer, which the Llama 3 paper builds at 1:7 (up:down)."""
    assert finding_counts(META) == expected_counts(META)
    (finding,) = _findings(META.name)
    assert (finding.rule, finding.measured_text, finding.limit_text) == ("NET001", "6.86:1", "1:1")
    assert _findings(META.name, META_7_TO_1) == []
    tighter = Config(rule_settings={"NET001": {"tier_limits": {"compute.spine": 6.5}}})
    assert [(f.rule, f.measured_text) for f in _findings(META.name, tighter)] == [
        ("NET001", "6.86:1")
    ]


def test_meta_llama3_cluster_counts() -> None:
    design = load(META)
    assert topology_of(design).gpus == 24576
    tor, spine, aggregation = tier_bandwidths(design, 0)
    assert tor.down == tor.up  # 1:1 inside the pod
    assert tor.down.m_as("Tb/s") == pytest.approx(24576 * 0.4)
    assert spine.up is not None
    assert (spine.down / spine.up).m_as("") == pytest.approx(192 / 28)
    assert aggregation.up is None


# --- Published training layouts ----------------------------------------------------------

LAYOUTS = [
    ("megatron-gpt3-175b-a100.yaml", None),  # Narayanan et al. 2021, GPT-3 175B
    ("meta-llama3-24k-roce.yaml", META_7_TO_1),  # Llama 3 405B, CP 1 and CP 16 stages
    ("dgx-h100-superpod-4su.yaml", None),  # NeMo llama3_70b and llama31_405b recipes
]


@pytest.mark.parametrize(("name", "config"), LAYOUTS)
def test_published_layout_has_no_par_finding(name: str, config: Config | None) -> None:
    assert [f for f in _findings(name, config) if f.rule in PAR] == []
    assert load(DESIGNS / name).workloads  # the design does carry the layout


def test_gpt3_175b_projection_matches_narayanan_2021() -> None:
    """Equation 3 of Narayanan et al. 2021 (recomputation included): 96 T l h^2 (1 + s/6h
    + V/16lh) = 4.302e23 FLOPs for 300B tokens; at 140 TFLOP/s on 1,024 A100 that is the
    paper's "about 34 days"."""
    tokens, layers, hidden, seq, vocab = 300e9, 96, 12288, 2048, 51200
    paper = (
        96 * tokens * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    )
    assert paper == pytest.approx(4.302e23, rel=1e-3)
    found = _projection("megatron-gpt3-175b-a100.yaml", "gpt3-175b")
    assert found["hardware_flops"] == pytest.approx(paper, rel=2e-3)
    days = paper / (1024 * 140e12) / 86400
    assert found["compute_days"] == pytest.approx(days, rel=2e-3)
    assert 34 <= found["compute_days"] < 35


# --- NetBox power feeds ------------------------------------------------------------------


def test_netbox_worked_feed_capacities() -> None:
    """NetBox: 120 V / 20 A = 1,920 VA; 208 V / 30 A three-phase = 8,646 VA (NetBox rounds
    down); 415 V / 60 A three-phase at 80% = 34.5 kVA, 32.8 kW at PF 0.95."""
    feeds = topology_of(load(DESIGNS / "netbox-power-feeds.yaml")).feeds
    assert feeds["nb-120v-20a"].apparent_kva == pytest.approx(1.920)
    assert feeds["nb-120v-20a"].capacity.m_as("kW") == pytest.approx(1.824)
    assert math.floor(feeds["nb-208v-30a"].apparent_kva * 1000) == 8646
    assert feeds["eu-415v-60a"].apparent_kva == pytest.approx(34.502, abs=0.001)
    assert round(feeds["eu-415v-60a"].apparent_kva, 1) == 34.5
    assert feeds["eu-415v-60a"].capacity.m_as("kW") == pytest.approx(32.777, abs=0.001)
    assert round(feeds["eu-415v-60a"].capacity.m_as("kW"), 1) == 32.8


# --- Disagreements with published verdicts (fail until the rule is fixed) ----------------


def test_disagreement_net001_reports_the_fully_populated_leaf() -> None:
    """NET001 says 1.99:1 (1,020 endpoint ports over the tier's 512 uplinks), but 24 of the
    32 leaves carry 32 DGX H100 NICs each (SU 1-3 are full: 32 nodes, one NIC per rail
    leaf) against 16 uplinks: those leaves run 2.00:1. With endpoints spread over the leaves,
    the busiest carries ceil(1,020 / 32) = 32 ports."""
    name = "bad-dgx-h100-superpod-4su-leaf-2to1.yaml"
    assert _figures(name, "NET001") == [(_mark(name, "NET001"), "2.00:1", "1:1")]


def test_disagreement_clg005_flags_nvidias_b300_xdr_reference_rack() -> None:
    """NVIDIA's DGX SuperPOD B300 XDR RA puts four DGX B300 (~14 kW each) in a standard
    air-cooled rack with AC PDUs, ~56 kW, as its reference layout; CLG005's 50 kW default
    flags all 18 racks of that published design."""
    assert finding_counts(DESIGNS / "dgx-b300-superpod-xdr-1su.yaml") == Counter()


def test_disagreement_par003_refuses_nvidias_h100_llama31_405b_layout() -> None:
    """NVIDIA's dgxc-benchmarking runs Llama 3.1 405B (126 layers) on 512 H100 at TP 8, PP 8,
    CP 2, VP 8: Megatron-Core splits 126 layers + embedding + loss = 128 slots into 64 chunks
    of 2 (account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split). PAR003
    refused it ("126 layers do not split over pp 8 stages"); PAR004 refused it at 81.09 GiB
    (fp32 gradients, GeLU-at-4h activations). With bf16 main gradients (Megatron-Bridge's
    recipe) and activations from the layer's shapes, stage 1 holds 16 layers: 6.376e9
    parameters x (2 + 2 + 12/8) B and 69 chunks of 2 layers x 33.75 s b h / t, 68.97 GiB."""
    assert finding_counts(DESIGNS / "nvidia-dgxc-llama31-405b-h100.yaml") == Counter()
    (p,) = project_workloads(load(DESIGNS / "nvidia-dgxc-llama31-405b-h100.yaml"))
    parts = {k: round(v.m_as("GiB"), 3) for k, v in p.memory.breakdown().items()}
    assert parts == {
        "weights": 11.85,
        "gradients": 11.85,
        "optimizer": 8.887,
        "activations": 36.387,
    }
    per_layer = 4096 * 16384 * 33.75 / 8
    assert parts["activations"] == round(69 * 2 * per_layer / 2**30, 3)
    assert round(p.memory.total.m_as("GiB"), 2) == 68.97


def test_disagreement_pwr001_flags_the_gb300_nvl72_at_its_design_load() -> None:
    """A GB300 NVL72 rack at the catalog's own 135 kW (Lenovo TDP; NVIDIA's GB300 enterprise
    RA: up to 142 kW) was let through by a shipped per-platform limit of 142 kW, whatever hall
    it stood in; the limit is now the facility's: the SU passes only because it declares the
    hall the RA builds for it (site.rack_power_limit 142 kW)."""
    assert finding_counts(DESIGNS / "gb300-nvl72-superpod-su.yaml") == Counter()
    assert load(DESIGNS / "gb300-nvl72-superpod-su.yaml").site.rack_power_limit == Q_(142, "kW")
