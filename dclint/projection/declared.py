"""A workload's measured figures (mfu, step_time, tokens_per_second, achieved_flops) as an MFU.

Published runs quote any of the four; each is converted to the MFU on the workload's FLOP basis
and convention, so the projection's time comes from it exactly as from a declared `mfu`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.workload import Workload

__all__ = ["declared_mfu"]


def declared_mfu(wl: Workload, work: Quantity, peak: Quantity) -> tuple[Quantity, str] | str | None:
    """(MFU, where it comes from) from the first declared figure (mfu, step_time,
    tokens_per_second, achieved_flops); None if none is declared; a reason if it cannot be used."""
    per_token = work.m_as("FLOP") / float(wl.tokens)  # FLOPs a token on the chosen basis
    capacity = wl.gpus * peak.m_as("FLOP/s")
    if wl.mfu is not None:
        return wl.mfu, "declared (workload.mfu)"
    if wl.step_time is not None:
        if wl.global_batch is None:
            return "step_time needs global_batch (sequences a step) to give a throughput"
        tokens = wl.global_batch * wl.sequence_length
        rate = per_token * tokens / wl.step_time.m_as("s")
        return Q_(rate / capacity, "dimensionless"), (
            f"declared step_time {wl.step_time.m_as('s'):.4g} s for {tokens:,} tokens"
        )
    if wl.tokens_per_second is not None:
        tps = wl.tokens_per_second.m_as("token/s")
        return Q_(per_token * tps / capacity, "dimensionless"), (
            f"declared tokens_per_second {tps:,.0f} token/s"
        )
    if wl.achieved_flops is not None:
        achieved = wl.achieved_flops.m_as("TFLOPS")
        return Q_(achieved / peak.m_as("TFLOPS"), "dimensionless"), (
            f"declared achieved_flops {achieved:.4g} TFLOPS per GPU"
        )
    return None
