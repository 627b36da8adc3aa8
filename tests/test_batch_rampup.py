"""The batch-size ramp-up and evaluations as terms of the training time (dclint.projection.rampup).

The ramp's replay is held against BLOOM's own log (bigscience-workshop/bigscience,
train/tr11-176B-ml/chronicles.md): with `--rampup-batch-size 192 16 9_765_625` and a global
batch of 2,048, iteration 12,695 logged 9,841,584 consumed samples (2022-03-18) and iteration
31,214 logged 47,768,496 (2022-04-12).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_published_gpu_hours import BLOOM, BLOOM_RUN

from dclint.cli import main
from dclint.errors import LoadError
from dclint.loader import load_text
from dclint.projection import project_workloads
from dclint.projection.rampup import Phase, phases


def _megatron(start: int, increment: int, ramp: float, batch: int, samples: float) -> list[Phase]:
    """Megatron's update(consumed_samples) called before every step, one step at a time."""
    per_increment = ramp / ((batch - start) // increment)
    consumed, out = 0, []
    while consumed < samples:
        b = batch if consumed > ramp else start + int(consumed / per_increment) * increment
        if b >= batch:
            break
        if out and out[-1].batch == b:
            out[-1] = Phase(b, out[-1].steps + 1)
        else:
            out.append(Phase(b, 1))
        consumed += b
    return out


def test_bloom_ramp_replays_its_log() -> None:
    got = phases(192, 16, 9_765_625, 2048, 366e9 / 2048)
    steps = sum(p.steps for p in got)
    samples = sum(p.steps * p.batch for p in got)
    assert (len(got), steps, samples) == (116, 12_658, 9_765_808)
    assert got[0] == Phase(192, 439) and got[-1] == Phase(2032, 41)
    # the full batch from there on: the consumed samples the run logged
    assert samples + (12_695 - steps) * 2048 == 9_841_584
    assert samples + (31_214 - steps) * 2048 == 47_768_496


@pytest.mark.parametrize(
    "args",
    [
        (192, 16, 9_765_625, 2048, 366e9 / 2048),
        (192, 16, 9_765_625, 2048, 1e6),  # the run ends inside the ramp
        (32, 32, 1000, 256, 1e9),  # a fractional samples a increment
        (16, 16, 112, 64, 1e9),  # the ramp's samples a multiple of the batches
        (8, 24, 4_000, 200, 1e9),
        (4, 4, 999.5, 12, 30.0),
    ],
)
def test_phases_are_megatrons_schedule(args: tuple[int, int, float, int, float]) -> None:
    assert phases(*args) == _megatron(*args)


def test_bloom_ramp_and_evaluations_in_the_assumptions() -> None:
    (proj,) = project_workloads(load_text(BLOOM_RUN))
    notes = [a for a in proj.assumptions if a.startswith(("batch ramp-up", "evaluations"))]
    assert notes == [
        "batch ramp-up: 192 to 2048 sequences by 16 over 9.76562e+06 samples (Megatron "
        "--rampup-batch-size), 12,658 steps of 116 batches, each timed by the step model at its "
        "batch (a 192-sequence step 17.49 s against 9.849 s at the full batch's rate): 0.77 d "
        "beyond the same samples at the full batch",
        "evaluations: one every 1,000 steps, 12 min each, 95 in 95,151 steps: 0.792 d",
    ]
    # 87,265 steps at the full batch, less the ramp's 4,768.5 batches' worth, plus its 12,658
    steps = 366e9 / (2048 * 2048) - 9_765_808 / 2048 + 12_658
    assert steps == pytest.approx(95_151, abs=0.5)


def test_bloom_ramp_is_its_extra_steps_fixed_costs() -> None:
    # by hand: a step's pipeline fill and drain and its per-step collectives, optimizer and
    # stragglers do not shrink with the batch, so the ramp costs them once for each step
    # beyond the 9,765,808 / 2,048 full batches its samples would take, at the measured 105.1 s
    # over the predicted step
    (proj,) = project_workloads(load_text(BLOOM_RUN))
    t = proj.timing
    assert t.prediction is not None and t.step_time is not None
    parts = {k: v.m_as("s") for k, v in t.prediction.breakdown.items()}
    fixed = parts["pp_bubble"] + parts["dp"] + parts["optimizer"] + parts["straggler"]
    scale = t.step_time / t.prediction.step_time
    by_hand = (12_658 - 9_765_808 / 2048) * fixed * scale.m_as("") / 86_400
    assert t.rampup.m_as("day") == pytest.approx(by_hand, rel=1e-3)


def test_the_ramp_costs_the_pipeline_bubble() -> None:
    # the same ramp (256 to 2,048 by 128) on pp 12 and on one pipeline stage (tp 4, dp 64 on
    # 256 GPUs): without the pipeline's fill and drain the smaller batches cost little more
    # than their samples at the full batch
    ramp = "start: 256, increment: 128"
    deep = BLOOM_RUN.replace("start: 192, increment: 16", ramp)
    flat = deep.replace("pp: 12, dp: 8", "pp: 1, dp: 64").replace("gpus: 384", "gpus: 256")
    shares = []
    for text in (deep, flat):
        (proj,) = project_workloads(load_text(text))
        shares.append(proj.timing.rampup / proj.timing.compute)
    assert shares[0].m_as("") == pytest.approx(0.00724, abs=1e-5)
    assert shares[1].m_as("") < 0.1 * shares[0].m_as("")


def _error(extra: str, batch: str = "global_batch: 2048") -> str:
    text = BLOOM.replace("    global_batch: 2048\n", f"    {batch}\n" if batch else "") + extra
    with pytest.raises(LoadError) as err:
        load_text(text, "d.yaml")
    return "\n".join(str(p) for p in err.value.problems)


@pytest.mark.parametrize(
    ("ramp", "batch", "message"),
    [
        (
            "{start: 2048, increment: 16, samples: 1e6}",
            "global_batch: 2048",
            "batch_rampup.start 2048 is not below global_batch 2048",
        ),
        (
            "{start: 192, increment: 48, samples: 1e6}",
            "global_batch: 2048",
            "global_batch 2048 - start 192 = 1856 is not a multiple of increment 48",
        ),
        (
            "{start: 200, increment: 8, samples: 1e6}",
            "global_batch: 2048",
            "batch_rampup.start 200 is not a multiple of micro_batch x dp = 2 x 8 = 16",
        ),
        (
            "{start: 192, increment: 8, samples: 1e6}",
            "global_batch: 2048",
            "batch_rampup.increment 8 is not a multiple of micro_batch x dp = 2 x 8 = 16",
        ),
        (
            "{start: 192, increment: 16, samples: 1e6}",
            "",
            "batch_rampup needs global_batch",
        ),
        (  # a hostile ramp: 127,999 batch sizes, each timed (about 9 s before the limit)
            "{start: 16, increment: 16, samples: 1e12}",
            "global_batch: 2048000",
            "batch_rampup: 127,999 batch sizes from start 16 to global_batch 2048000 by 16; "
            "dclint times each with the step model and takes at most 4,096",
        ),
    ],
)
def test_a_ramp_megatron_refuses_is_a_load_error(ramp: str, batch: str, message: str) -> None:
    got = _error(f"    batch_rampup: {ramp}\n", batch)
    assert got.startswith("d.yaml:")
    assert message in got


def test_cost_shows_the_terms_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "bloom.yaml"
    design.write_text(BLOOM_RUN)
    assert main(["cost", str(design), "--format", "json"]) == 0
    (proj,) = json.loads(capsys.readouterr().out)["projections"]
    assert proj["rampup_days"] == pytest.approx(0.7704, abs=1e-4)
    assert proj["evaluation_days"] == pytest.approx(0.7917, abs=1e-4)
    for fmt in ("text", "markdown", "html"):
        assert main(["cost", str(design), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "batch ramp-up" in out and "0.770" in out, fmt
        assert "evaluations" in out and "0.792" in out, fmt
    plain = tmp_path / "plain.yaml"
    plain.write_text(BLOOM)
    assert main(["cost", str(plain)]) == 0
    out = capsys.readouterr().out
    assert "batch ramp-up" not in out and "evaluations" not in out


def test_the_reliability_rules_see_the_same_run() -> None:
    # REL001-REL004 hold their intervals against the run the projection times: its steps, the
    # ramp-up's and the evaluations included, so the wall time at the declared interval is
    # the projection's
    from dclint.projection.reliability import run_of

    design = load_text(BLOOM_RUN)
    (proj,) = project_workloads(design)
    run = run_of(design, 0)
    assert run is not None
    t = proj.timing
    assert t.reliability is not None
    assert run.steps_s == pytest.approx(t.running.m_as("s"), rel=1e-12)
    wall = run.checkpointed_s(t.reliability.save.m_as("s"), 175 * 60)
    assert wall / 86_400 == pytest.approx(proj.training_time.m_as("day"), rel=1e-9)


def test_a_ramp_the_step_model_cannot_time_is_said_not_guessed() -> None:
    # no architecture: the step model has nothing to time the smaller batches with, so the
    # term is 0 and the assumptions say why; the ramp's steps still count for the evaluations
    text = BLOOM_RUN.replace(
        "layers: 70, hidden_size: 14336, attention_heads: 112,\n            vocab_size: 250880",
        "attention_heads: 112",
    )
    (proj,) = project_workloads(load_text(text))
    assert proj.timing.rampup.m_as("day") == 0
    assert (
        "batch ramp-up not timed (12,658 steps): model.layers, hidden_size and vocab_size are "
        "needed to predict a step"
    ) in proj.assumptions
    assert proj.timing.evaluation.m_as("min") == pytest.approx(95 * 12, rel=1e-9)


def test_each_batch_of_the_ramp_is_timed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """BLOOM's ramp times 116 batch sizes and the full batch: 117 steps of the step model. The
    first batch (192) was timed twice, for its phase and again for the note's 17.36 s; the
    figures are the same (0.757 d)."""
    import dclint.projection.rampup as rampup

    calls: list[int] = []
    real = rampup.step

    def counted(arch, layout, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(layout.global_batch)
        return real(arch, layout, *args, **kwargs)

    monkeypatch.setattr(rampup, "step", counted)
    (proj,) = project_workloads(load_text(BLOOM_RUN))
    assert len(calls) == 117 and len(set(calls)) == 117
    assert proj.timing.rampup.m_as("day") == pytest.approx(0.7704, abs=5e-5)
