"""Storage facts the design states (issue 53, item 6): raw capacity under erasure coding or
replication (STO005), the loaders' file opens against the metadata rate (STO008)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import EXAMPLES, TODAY
from dclint.engine.findings import Finding
from dclint.engine.runner import Engine, run
from dclint.model.storage import StorageTier


def _found(path: Path, rule: str) -> list[Finding]:
    result = run([str(path)], Engine(today=TODAY))
    assert not result.errors, [str(e) for e in result.errors]
    return [f for f in result.findings if f.rule == rule]


@pytest.mark.parametrize(
    ("protection", "usable_tb"),
    [({"erasure_code": "8+2"}, 800.0), ({"replication": 3}, 1000 / 3), ({}, 1000.0)],
)
def test_raw_capacity_keeps_what_the_protection_leaves(
    protection: dict[str, object], usable_tb: float
) -> None:
    raw = {"id": "t", "kind": "parallel_fs", "capacity": "1 PB", "capacity_basis": "raw"}
    tier = StorageTier.model_validate({**raw, **protection})
    assert tier.usable_capacity is not None
    assert tier.usable_capacity.m_as("TB") == pytest.approx(usable_tb, rel=1e-12)
    usable = StorageTier.model_validate({**raw, "capacity_basis": "usable", **protection})
    assert usable.usable_capacity is not None and usable.usable_capacity.m_as("TB") == 1000


def test_8_plus_2_of_1_2_pb_raw_is_960_tb_for_1_pb_of_data() -> None:
    (f,) = _found(EXAMPLES / "sto005" / "bad-raw.yaml", "STO005")
    assert (f.line, f.measured_text, f.limit_text) == (10, "1000 TB", "960 TB")
    assert "(raw 1.2 PB: 8+2 erasure code keeps 80%)" in f.message
    assert _found(EXAMPLES / "sto005" / "good-raw.yaml", "STO005") == []


def test_file_opens_against_the_metadata_rate() -> None:
    """64 x 989 TFLOPS x 40% / (6 x 1e9) tokens/s over 4,096 tokens a sample, 4 files each."""
    (f,) = _found(EXAMPLES / "sto008" / "bad.yaml", "STO008")
    opens = 64 * 989e12 * 0.40 / 6e9 / 4096 * 4
    assert round(opens) == 4121
    assert f.line == 15
    assert f.measured.m_as("op/s") == pytest.approx(opens, rel=1e-12)  # type: ignore[union-attr]
    assert f.limit_text == "4000 op/s"
    assert _found(EXAMPLES / "sto008" / "good.yaml", "STO008") == []


def test_metadata_max_load() -> None:
    from dclint.engine.config import Config

    good = EXAMPLES / "sto008" / "good.yaml"
    config = Config(rule_settings={"STO008": {"max_load": "90%"}})
    found = [
        f
        for f in run([str(good)], Engine(config=config, today=TODAY)).findings
        if f.rule == "STO008"
    ]
    assert [(f.line, f.limit_text) for f in found] == [(13, "3780 op/s")]


def test_async_checkpoints_are_kept_on_their_drain_tier(write: Callable[..., Path]) -> None:
    """5 retained 5.67 TB checkpoints drained to s3 (15 TB usable) need 28.35 TB there."""
    text = (EXAMPLES / "rel004" / "good.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "{id: s3, kind: object, read_bandwidth: 100 GB/s, write_bandwidth: 20 GB/s}",
        "{id: s3, kind: object, capacity: 15 TB, read_bandwidth: 100 GB/s, "
        "write_bandwidth: 20 GB/s}",
    ).replace("      drain_tier: s3\n", "      drain_tier: s3\n      retained: 5\n", 1)
    (f,) = _found(write(text), "STO005")
    assert (f.subject, f.measured_text, f.limit_text) == ("s3", "28.35 TB", "15 TB")
