"""STO001's derived read demand and STO006's hardware figures, with exact numbers; every
STO option changes a verdict when set (a rule that ignored it would fail here)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import EXAMPLES, findings_of
from dclint.calc.storage_demand import read_demand, workload_demands
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context
from dclint.loader import load, load_text

GB200_70B = """
name: gb200-9216
racks:
  - {{id: "r[001-128]", platform: gb200-nvl72}}
storage:
  {level}
  tiers:
    - {{id: lustre, kind: parallel_fs, read_bandwidth: 1 TB/s}}
workloads:
  - id: llm-70b
    model: {{parameters: 70e9}}
    tokens: 15e12
    gpus: 9216
    parallel: {{tp: 8, pp: 4}}
    {checkpoint}
"""


def _demands(text: str) -> list[tuple[str, float]]:
    (d,) = workload_demands(load_text(text), default_options()["STO001"])
    return [(b.name, b.rate.m_as("GB/s")) for b in d.bases]


def test_issue_case_text_tokens_alone_are_88_mb_per_s() -> None:
    # 9216 GB200 x 2.5 PFLOPS x 40% (bf16 default MFU) / (6 x 70e9) = 21.94M tokens/s x 4 B
    text = GB200_70B.format(level="", checkpoint="")
    tokens = 9216 * 2.5e15 * 0.40 / (6 * 70e9)
    assert _demands(text) == [("data loading", pytest.approx(tokens * 4 / 1e9, rel=1e-12))]
    assert tokens * 4 / 1e9 == pytest.approx(0.08777, rel=1e-3)


def test_checkpoint_restore_is_not_read_demand() -> None:
    """A restore reads from the checkpoint's own tier in a time of its own (STO007), so it is
    no basis of the demand STO001 triples: a 2 TB checkpoint adds nothing (it added 22.22 GB/s,
    66.67 GB/s at 3x, before issue 53)."""
    declared = GB200_70B.format(level="", checkpoint="checkpoint: {interval: 1 h, size: 2 TB}")
    (d,) = workload_demands(load_text(declared), default_options()["STO001"])
    assert [b.name for b in d.bases] == ["data loading"]
    assert "restore_target" not in default_options()["STO001"]


def test_reference_level_raises_the_demand() -> None:
    text = GB200_70B.format(
        level="performance_level: good", checkpoint="checkpoint: {interval: 1 h}"
    )
    bases = dict(_demands(text))
    assert "checkpoint restore" not in bases
    # 9216 GPUs = 1152 nodes of 8 = 36 SU x 15 GB/s = 540 GB/s to provide: 180 GB/s at 3x.
    assert bases["reference architecture 'good'"] == pytest.approx(540.0 / 3, rel=1e-12)
    total = read_demand(load_text(text), default_options()["STO001"])
    assert total.m_as("GB/s") == pytest.approx(180.0, rel=1e-12)


def test_fp8_uses_the_projection_default_mfu() -> None:
    text = GB200_70B.format(level="", checkpoint="precision: fp8")
    ((_, rate),) = _demands(text)
    assert rate == pytest.approx(9216 * 5e15 * 0.30 / (6 * 70e9) * 4 / 1e9, rel=1e-12)


def test_declared_rate_wins_and_non_concurrent_is_left_out() -> None:
    d = load_text((EXAMPLES / "sto001" / "good.yaml").read_text(encoding="utf-8"))
    (only,) = workload_demands(d, default_options()["STO001"])
    assert (only.workload, only.declared, only.rate.m_as("GB/s")) == ("vlm", True, 200.0)


def test_samples_and_media_figures() -> None:
    tokens = 64 * 989e12 * 0.40 / (6 * 1e9)
    d = load_text((EXAMPLES / "sto001" / "bad-samples.yaml").read_text(encoding="utf-8"))
    (w,) = workload_demands(d, default_options()["STO001"])
    assert w.rate.m_as("GB/s") == pytest.approx(tokens / 4096 * 3e6 / 1e9, rel=1e-12)
    d = load_text((EXAMPLES / "sto001" / "bad-media.yaml").read_text(encoding="utf-8"))
    (w,) = workload_demands(d, default_options()["STO001"])
    assert w.rate.m_as("GB/s") == pytest.approx(256.0 / 3, rel=1e-12)  # to provide, not x3


VIDEO = """
name: video
racks:
  - {{id: "r[001-128]", platform: hgx-h100, nodes: 1}}
workloads:
  - id: video
    model: {{parameters: 7e9}}
    modality: {modality}
    tokens: 1e12
    gpus: 1024
    parallel: {{tp: 8}}
    {extra}
"""
HIRES = "high_resolution_media: true\n    dataset_size: {size} TB"


@pytest.mark.parametrize(
    ("modality", "extra", "provide", "why"),
    [
        # 128 nodes = 4 SU x 125 GB/s (NVIDIA's Best level): hundreds of GB/s, not 12 TB/s
        ("video", "", 500.0, "not 1080p/4K or uncompressed"),
        ("image", "high_resolution_media: true", 500.0, "dataset_size not declared"),
        ("video", HIRES.format(size=30), 500.0, "dataset 30 TB, not above 30 TB"),
        ("video", HIRES.format(size=31), 4096.0, "1080p/4K or uncompressed, 31 TB above"),
    ],
)
def test_media_demand_is_bandwidth_to_provide(
    modality: str, extra: str, provide: float, why: str
) -> None:
    text = VIDEO.format(modality=modality, extra=extra)
    (w,) = workload_demands(load_text(text), default_options()["STO001"])
    media = next(b for b in w.bases if b.name == f"{modality} data")
    assert media.rate.m_as("GB/s") == pytest.approx(provide / 3, rel=1e-12)
    assert media.how.startswith(why)


SUPERPOD_4SU = """
name: dgx-superpod-h100-4su
racks:
  - {{id: "r[001-127]", platform: dgx-h100, nodes: 1}}
storage:
  performance_level: {level}
  tiers:
    - {{id: nvme, kind: node_local}}
    - {{id: hps, kind: parallel_fs, read_bandwidth: {read} GB/s}}
    - {{id: s3, kind: object}}
workloads:
  - id: llm
    model: {{parameters: 70e9}}
    tokens: 1e12
    gpus: 1016
    parallel: {{tp: 8}}
"""


@pytest.mark.parametrize(("level", "read"), [("good", 60), ("better", 160), ("best", 500)])
def test_reference_architecture_4su_storage_passes(
    write: Callable[..., Path], level: str, read: int
) -> None:
    # NVIDIA DGX SuperPOD H100 reference architecture: 4 SU (127 DGX H100, one node's place
    # taken by the fabric manager) with the 4 SU aggregate read of each level.
    text = SUPERPOD_4SU.format(level=level, read=read)
    assert not any(r == "STO001" for r, _ in findings_of(write(text)))
    short = SUPERPOD_4SU.format(level=level, read=read * 0.9)
    assert any(r == "STO001" for r, _ in findings_of(write(short)))


@pytest.mark.parametrize(
    ("example", "rule", "setting", "before", "after"),
    [
        ("sto001/bad.yaml", "STO001", "factor: 2.9", 1, 0),
        ("sto001/good-restore.yaml", "STO001", "bytes_per_token: 2 MB", 0, 1),
        ("sto001/bad-media.yaml", "STO001", "media_read_per_gpu: 3.5 GB/s", 1, 0),
        ("sto001/bad-media.yaml", "STO001", "media_dataset_size: 50 TB", 1, 0),
        ("sto001/bad-level-node.yaml", "STO001", "reference_read_per_node: {best: 38 GB/s}", 1, 0),
        ("sto001/bad-level.yaml", "STO001", "reference_read_per_su: {best: 124 GB/s}", 1, 0),
        ("sto001/bad-level.yaml", "STO001", "su_nodes: 33", 1, 0),
        ("sto001/bad-level.yaml", "STO001", "node_gpus: 9", 1, 0),
        ("sto002/bad.yaml", "STO002", "target: 130 s", 3, 0),
        ("sto002/bad.yaml", "STO002", "bytes_per_parameter: 12 B", 3, 2),
        ("sto003/bad.yaml", "STO003", "max_overhead: 10%", 2, 0),
        ("sto003/bad.yaml", "STO003", "bytes_per_parameter: 1 B", 2, 1),
        ("sto005/good.yaml", "STO005", "max_fill: 99%", 0, 1),
        ("sto005/bad.yaml", "STO005", "bytes_per_parameter: 10 B", 2, 1),
        ("sto006/bad.yaml", "STO006", "protocol_efficiency: 100%", 3, 1),
        ("sto006/bad.yaml", "STO006", "tolerance: 40%", 3, 2),
        ("sto006/bad-behind-nic.yaml", "STO006", "protocol_efficiency: 100%", 4, 3),
    ],
)
def test_every_option_changes_a_verdict(
    write: Callable[..., Path],
    example: str,
    rule: str,
    setting: str,
    before: int,
    after: int,
) -> None:
    text = (EXAMPLES / example).read_text(encoding="utf-8")
    assert sum(r == rule for r, _ in findings_of(write(text))) == before
    path = write(text)
    (path.parent / ".dclint.yaml").write_text(f"{rule}:\n  {setting}\n", encoding="utf-8")
    assert sum(r == rule for r, _ in findings_of(path)) == after


def test_sto006_bounds_behind_the_nic() -> None:
    """PCIe 5.0 x16: 32 GT/s x 128/130 x 16 lanes / 8 = 63.02 GB/s a slot, below a dual-port
    400G NIC's 100 GB/s; replication 3 and an 8+2 erasure code divide the write bound by 3
    and 1.25."""
    from dclint.calc.pcie import pcie_link

    assert pcie_link(5, 16).m_as("GB/s") == pytest.approx(32 * 128 / 130 * 16 / 8, rel=1e-12)
    assert pcie_link(6, 16).m_as("GB/s") == pytest.approx(64 * 242 / 256 * 16 / 8, rel=1e-12)
    assert pcie_link(4, 8).m_as("GB/s") == pytest.approx(16 * 128 / 130, rel=1e-12)
    path = EXAMPLES / "sto006" / "bad-behind-nic.yaml"
    rule = discover()["STO006"]()
    found = list(rule.check(load(path), Context(default_options()["STO006"])))
    slot = 32 * 128 / 130 * 2  # GB/s
    assert [(v.path[2:], round(v.limit.m_as("GB/s"), 9)) for v in found] == [  # type: ignore[union-attr]
        ((1, "read_bandwidth"), round(8 * slot * 0.9, 9)),
        ((1, "per_node_read_bandwidth"), round(slot * 0.9, 9)),
        ((2, "write_bandwidth"), round(800 * 0.9 / 3, 9)),
        ((3, "write_bandwidth"), round(800 * 0.9 / 1.25, 9)),
    ]
    assert found[2].message == (
        "storage tier ceph claims 300 GB/s of aggregate write bandwidth, above what its NICs "
        "carry: 8 nodes x 2 NICs x 400 Gb/s = 800 GB/s line rate x 90% protocol efficiency "
        "/ 3 copies (replication 3)"
    )
    # reads of the replicated tier are not amplified: 700 GB/s of 720 GB/s passes


def test_replication_and_erasure_code_are_one_or_the_other() -> None:
    from dclint.errors import DclintError

    text = """
name: both
storage:
  tiers:
    - {id: ceph, kind: parallel_fs, replication: 3, erasure_code: 8+2}
"""
    with pytest.raises(DclintError, match="declare replication or erasure_code, not both"):
        load_text(text)
    with pytest.raises(DclintError, match="erasure_code"):
        load_text(text.replace("replication: 3, erasure_code: 8+2", "erasure_code: 8-2"))
