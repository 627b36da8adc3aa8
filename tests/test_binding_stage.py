"""The pipeline stage that binds when the embedding and the loss count in the split
(docs/performance-model.md, The binding pipeline stage): Megatron-Core gives each of the
pp x vpp virtual stages (layers + slots) / (pp x vpp) slots, the embedding the first one's first
and the loss the last one's last (get_num_layers_to_build, core_r0.13.0); the step model times
the first, a middle and the last rank with their own layers and the output layer on the last,
and the step is the slowest one's."""

from __future__ import annotations

from dataclasses import replace

from test_calibration import Run, _run_inputs, runs

from dclint.projection.memory import split_slots
from dclint.projection.predict import predict
from dclint.projection.step.model import Stepper, _stage_step, _stages, stage_steps, step

MLPERF_GB200 = "mlperf-training-blackwell: llama31-405b-256-v5.0-tyche"
MLPERF_B200 = "mlperf-training-blackwell: llama31-405b-256-v5.1-uf"


def _run(name: str) -> Run:
    return next(r for r in runs() if r.name == name)


def test_126_layers_and_two_slots_on_pp_8() -> None:
    """Llama 3.1 405B on pp 8 x vpp 8 with both flags: 128 slots, 16 a rank; the first rank
    15 layers and the embedding, a middle one 16, the last 15 and the output layer."""
    run = _run(MLPERF_GB200)
    a, lay, _, _ = _run_inputs(run)
    assert (a.layers, lay.pp, lay.vpp, lay.split_slots, lay.stage_layers) == (126, 8, 8, (1, 1), 0)
    got = [(s.stage_layers, s.head, s.split_slots) for s in _stages(a, lay)]
    assert got == [(15.0, False, (0, 0)), (16.0, False, (0, 0)), (15.0, True, (0, 0))]


def test_the_step_is_the_slowest_stage() -> None:
    """The step is the slowest stage's, every term of it: MLPerf's GB200 run binds on a middle
    stage (16 layers: 19.302 s against the last stage's 19.216 s, 15 layers and the FP8 run's
    BF16 output layer with Transformer Engine's fused cross-entropy; the last bound, 19.341 s,
    when the loss was charged Megatron's unfused 52 B a logit), the University of Florida's
    B200 run on a middle one too (29.566 s against 29.199 s, its last stage's loss at tp 4
    all-gathering 12 B a token of statistics; 29.324 s unfused); the first
    stage, a layer short and no output layer, never binds."""
    seconds = {}
    for name in (MLPERF_GB200, MLPERF_B200):
        a, lay, mac, sw = _run_inputs(_run(name))
        stages = [_stage_step(a, s, mac, sw, True) for s in _stages(a, lay)]
        got = step(a, lay, mac, sw)
        assert got == max(stages, key=lambda st: st.time)
        seconds[name] = [round(st.time, 3) for st in stages]
    assert seconds == {
        MLPERF_GB200: [18.209, 19.302, 19.216],
        MLPERF_B200: [27.907, 29.566, 29.199],
    }


def test_the_layout_search_times_the_same_stages() -> None:
    """Stepper (the layout search's) gives step's Step, to the bit, with the slots."""
    a, lay, mac, sw = _run_inputs(_run(MLPERF_B200))
    timer = Stepper(a, mac, sw)
    assert timer(lay) == step(a, lay, mac, sw)
    assert timer(replace(lay, vpp=4)) == step(a, replace(lay, vpp=4), mac, sw)


def test_without_the_slots_one_stage_as_before() -> None:
    """No flags, or pp 1: the busiest stage's layers (layers / pp) with the output layer, one
    stage; pp 2: the first and the last rank, no middle one."""
    a, lay, mac, sw = _run_inputs(_run(MLPERF_GB200))
    plain = replace(lay, split_slots=(0, 0))
    assert _stages(a, plain) == (plain,)
    assert step(a, plain, mac, sw).time > step(a, lay, mac, sw).time  # 15.75 layers and the head
    assert _stages(a, replace(lay, pp=1)) == (replace(lay, pp=1),)
    two = [(s.stage_layers, s.head) for s in _stages(a, replace(lay, pp=2))]
    assert two == [(63.0, False), (63.0, True)]
    # one slot, the embedding's, on a split Megatron-Core accepts: 127 layers + 1 = 128 slots
    # over pp 8 x vpp 8 (126 + 1 = 127 does not divide; PAR003 refuses it)
    one_slot = [
        (s.stage_layers, s.head)
        for s in _stages(replace(a, layers=127), replace(lay, split_slots=(1, 0)))
    ]
    assert one_slot == [(15.0, False), (16.0, False), (16.0, True)]


def test_declared_ends_decide_over_the_flags() -> None:
    """Megatron-Core refuses the flags with declared first or last stage layers; dclint lets
    the declared layers decide, as PAR004's memory does."""
    run = _run(MLPERF_GB200)
    assert split_slots(run.wl) == (1, 1)
    parallel = run.wl.parallel.model_copy(update={"first_stage_layers": 14})
    assert split_slots(run.wl.model_copy(update={"parallel": parallel})) == (0, 0)


def _stage_notes(run: Run) -> list[str]:
    got = predict(run.design, run.wl, run.hw, causal=run.wl.causal_attention)
    assert not isinstance(got, str)
    return [n for n in got.assumptions if n.startswith("step timed on")]


def test_the_assumptions_name_the_stage_timed() -> None:
    """One note says which stage the step was timed on and what each stage takes, as
    stage_steps names them: the University of Florida's B200 run on a middle one."""
    run = _run(MLPERF_B200)
    a, lay, mac, sw = _run_inputs(run)
    named = [(n, s.stage_layers, s.head) for n, s, _ in stage_steps(a, lay, mac, sw)]
    assert named == [("first", 15.0, False), ("middle", 16.0, False), ("last", 15.0, True)]
    assert _stage_notes(run) == [
        "step timed on the slowest pipeline stage: a middle one, 16 layers (first 27.91 s, "
        "middle 29.57 s, last 29.2 s with the output layer and the loss); the embedding and "
        "the loss counted in the pipeline split"
    ]


def test_no_stage_note_without_uneven_stages() -> None:
    """An even split without the flags (one stage timed, layers / pp with the output layer)
    says nothing of stages; declared first and last stage layers say the busiest stage's
    layers were timed with the output layer and the loss."""
    run = _run(MLPERF_B200)
    plain = run.wl.parallel.model_copy(
        update={
            "account_for_embedding_in_pipeline_split": False,
            "account_for_loss_in_pipeline_split": False,
        }
    )
    even = Run(run.design, run.wl.model_copy(update={"parallel": plain}), run.hw)
    assert _stage_notes(even) == []
    ends = run.wl.parallel.model_copy(update={"first_stage_layers": 15, "last_stage_layers": 15})
    declared = Run(run.design, run.wl.model_copy(update={"parallel": ends}), run.hw)
    assert split_slots(declared.wl) == (0, 0)
    assert _stage_notes(declared) == [
        "step timed on the busiest pipeline stage's 16 layers with the output layer and the "
        "loss (layers declared: first stage 15, last stage 15)"
    ]
