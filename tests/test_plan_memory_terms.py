"""The layout search holds a layout's memory as PAR004 holds the declared one, with the
software's own terms (memory.state_terms): bf16 parameters and optimizer states, the chunked
loss, llm-foundry's fused loss, FSDP's gradients accumulated unsharded where it syncs on the
last micro-batch. Each published run's declared layout, through the search's own path
(memory_bytes on the plan's Space), against PAR004's estimate, both pinned in GiB."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.loader import load
from dclint.model.design import Design
from dclint.model.workload import Workload
from dclint.projection.hardware import hardware_of
from dclint.projection.memory import memory_per_gpu
from dclint.projection.search.layouts import memory_bytes, uneven_split
from dclint.projection.search.plan import plan_layouts, question
from dclint.projection.search.records import OPTIMIZERS
from dclint.projection.step.model import Layout

HERE = Path(__file__).parent

# (file, workload, GiB: PAR004's estimate and the search's for the declared layout)
CASES = [
    # bf16 parameters and AdamW states, the gradients accumulated unsharded (last-micro-batch)
    ("validation/kempnerforge-h200.yaml", "02-7b-2gpu-fsdp2", 60.22),
    # one GPU: nothing sharded, nothing accumulated beyond the bf16 gradients
    ("validation/kempnerforge-h200.yaml", "01-7b-1gpu-single", 67.7),
    ("validation/kempnerforge-h200.yaml", "14-70b-32gpu-tp4-fsdp8", 86.4),
    # TorchTitan's chunked loss: one chunk's logits, the wrapper's buffers, the output layer
    # gathered with its unsynced fp32 gradient
    ("validation/torchtitan-gb200.yaml", "llama3-8b-bf16", 167.96),
    # llm-foundry's fused_crossentropy, 4 B a logit
    ("calibration/llm-foundry.yaml", "mpt-3b-h100-8gpu-8192", 70.2),
    # Meta's FSDP under pipeline parallelism, its gradients accumulated in fp32 over the
    # micro-batches as the paper says (gradient_sync last-micro-batch)
    ("validation/llama3-405b-h100.yaml", "llama3-405b-16384-8k", 81.59),
    # TorchTitan's 405B under pipeline parallelism: PyTorch's stages accumulate the gradients
    # unsharded (the default, gradient_sync unset)
    ("calibration/torchtitan-h100.yaml", "llama31-405b-512-1f1b", 58.58),
]


def _declared(file: str, workload: str) -> tuple[Design, Workload, float]:
    """The design, its workload and PAR004's estimate for it (bytes), on its own GPU."""
    design = load(str(HERE / file))
    wl = next(w for w in design.workloads if w.id == workload)
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    return design, wl, memory_per_gpu(wl, hw.blackwell).total.m_as("B")


@pytest.mark.parametrize(("file", "workload", "gib"), CASES)
def test_the_search_holds_the_declared_layout_as_par004(
    file: str, workload: str, gib: float
) -> None:
    design, wl, par004 = _declared(file, workload)
    q = question(design, wl)
    assert not isinstance(q, str), q
    space, c = q.space, q.declared
    ends = (c.first_layers, c.last_layers) if c.first_layers else None
    if ends is None and not space.split_extra:
        # the search's own uneven split where pp does not divide the layers (TorchTitan's 126
        # over 8: 15 / 16 x 6 / 15, the framework's split PAR004 holds); the declared candidate
        # carries declared first and last stages only
        ends = uneven_split(space.arch.layers, c.pp)
    busiest = max(*ends, -(-space.arch.layers // c.pp)) if ends else 0.0
    torch_fsdp = c.reshard is not None
    lay = Layout(
        c.tp, c.pp, c.cp, c.dp, c.ep, c.vpp, c.micro_batch, space.global_batch,
        c.sequence_parallel, OPTIMIZERS.index(c.optimizer) >= 1, c.recompute, fsdp=torch_fsdp,
        reshard=c.reshard if torch_fsdp else True, shard_group=c.shard_group,
        torch_fsdp=torch_fsdp, stage_layers=busiest,
    )  # fmt: skip
    searched = memory_bytes(
        space.arch, lay, OPTIMIZERS.index(c.optimizer), space.software.flash_attention,
        space.split_ends, ends, space.terms, space.software.expert_tp, space.saved,
        space.offload, space.layer_weight_bytes, space.op_recompute, c.shard_group,
        c.reshard is False,
    )  # fmt: skip
    assert (round(par004 / 2**30, 2), round(searched / 2**30, 2)) == (gib, gib)


# Megatron-Bridge recipes (bf16 gradient reduction, Transformer Engine's fused loss): the
# search's own candidate of the declared layout, through its inline path (not memory_bytes)
RECIPES = [
    ("calibration/megatron-bridge-25.11-h100.yaml", "llama3-70b-64", 63.51),
    ("calibration/megatron-bridge-25.11-b200.yaml", "llama31-405b-128", 128.38),
]


@pytest.mark.parametrize(("file", "workload", "gib"), RECIPES)
def test_the_searched_candidate_of_a_recipe_holds_its_memory_as_par004(
    file: str, workload: str, gib: float
) -> None:
    design, wl, par004 = _declared(file, workload)
    software = wl.software_in_effect
    assert software.fused_cross_entropy and not software.grad_reduce_in_fp32
    plan = plan_layouts(design, wl)
    assert not isinstance(plan, str), plan
    (searched,) = [c for c in plan.result.valid if c.key == plan.declared.key]
    assert (round(par004 / 2**30, 2), round(searched.memory / 2**30, 2)) == (gib, gib)
