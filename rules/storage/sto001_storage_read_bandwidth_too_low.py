"""Training storage tier with less than 3x the read bandwidth its workloads demand.

## What it does
Adds up the read demand of the workloads that run concurrently and compares it with the
aggregate read bandwidth of the tiers that feed training (`feeds_training: true`, else every
parallel file system) that declare one (aggregate, or per node x nodes). Flags a shortfall
against `factor` x demand (default 3x).

A workload's demand is its `data_read_rate` where declared. Otherwise it is the largest of
these, each printed in the finding:

- data loading: tokens/s x `bytes_per_token` (the workload's, else the option, default 4 B),
  or samples/s x the workload's `bytes_per_sample` (a sample is one sequence); tokens/s is
  GPUs x dense peak x MFU / (6 x active parameters), with the workload's `mfu` or the
  projection's default MFU for its GPU and precision (the one `dclint cost` uses);
- image or video data (`modality: image` or `video`): bandwidth to provide, held as is
  like the reference architecture below: `media_read_per_gpu` (default 4 GB/s) per GPU
  where the workload reads 1080p/4K or uncompressed data (`high_resolution_media: true`)
  from a `dataset_size` above `media_dataset_size` (30 TB); any other image or video data
  takes the reference architecture's 'best' level for its nodes;
- reference architecture: where `storage.performance_level` names good, better or best, the
  aggregate read of that level per scalable unit (`reference_read_per_su`, 15 / 40 / 125 GB/s
  per SU of `su_nodes`, 32, nodes) scaled to the workload's nodes of `node_gpus` (8) GPUs,
  and at least the single-node figure (`reference_read_per_node`, 4 / 8 / 40 GB/s). This is
  bandwidth to provide, not a steady demand, so it is held as is: it enters the demand
  divided by `factor`.

A checkpoint restore is STO007's: it reads from the tier the checkpoint lives on, and its
time is the figure, with no 3x margin.

## Why it matters
Data loading and many jobs starting at once hit the
shared file system together; the 3x margin over the steady demand (dclint's own default) is
what keeps the GPUs fed through those bursts. Below the demand itself the GPUs wait on data:
each step takes demand / bandwidth as long, and the finding's price (`impact`) is those days
and their cost. Between the demand and the headroom the run loses no time at the demand, and
the finding says so (`impact_note`). The defaults and their sources:

- `bytes_per_token` 4 B: Megatron-Core's indexed dataset stores token ids as int32 when the
  vocabulary exceeds 65,500 (Llama 3's 128k), uint16 below.
- `media_read_per_gpu` 4 GB/s and `media_dataset_size` 30 TB: NVIDIA DGX SuperPOD
  reference architecture, storage guidance: about 4 GB/s of reads per GPU for training on
  1080p or 4K video or uncompressed images whose dataset is over 30 TB (too large for the
  nodes' caches); its Best level is the one for image and video training.
- `reference_read_per_node` (single node read: good 4, better 8, best 40 GB/s) and
  `reference_read_per_su` (1 SU aggregate read: 15, 40, 125 GB/s; its 4 SU row is four
  times that): NVIDIA DGX SuperPOD reference architecture (DGX H100),
  storage performance guidance; `su_nodes` 32 and `node_gpus` 8 are the DGX H100 scalable
  unit and node that guidance is written for (dclint scales it per 8 GPUs on other
  platforms).

Sources: Megatron-Core indexed dataset; NVIDIA DGX SuperPOD reference architecture (DGX H100),
storage guidance.

## Example
```yaml
storage:
  tiers:
    - id: lustre
      kind: parallel_fs
      read_bandwidth: 200 GB/s   # STO001: demand 200 GB/s needs 600 GB/s
workloads:
  - id: vlm
    data_read_rate: 200 GB/s
```

## Fix
Add storage nodes (or a faster tier) until the aggregate read bandwidth reaches 3x demand, or
stage data on node-local NVMe and mark that tier `feeds_training: true`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Bandwidth,
    Context,
    Count,
    Design,
    Information,
    Option,
    Positive,
    Remedy,
    Violation,
    rule,
    training_tiers,
    workload_demands,
)
from dclint.units import Q_, fmt

from ._shared import StorageRule
from .sto007_checkpoint_restore_too_slow import CheckpointRestoreTooSlow

if TYPE_CHECKING:
    from dclint.api import Finding, Projection, Quantity, WorkloadDemand


@rule("STO001", "storage-read-bandwidth-too-low", consequence="performance")
class StorageReadBandwidthTooLow(StorageRule):
    shares = {"storage_read_factor": "factor", "storage_demand": "*"}
    moved = {
        "restore_target": CheckpointRestoreTooSlow.id,
        "bytes_per_parameter": CheckpointRestoreTooSlow.id,
    }
    options = {
        "factor": Option(3.0, Positive, "Required multiple of the read demand"),
        "bytes_per_token": Option("4 B", Information, "Bytes read per training token"),
        "media_read_per_gpu": Option(
            "4 GB/s", Bandwidth, "Read rate per GPU of image and video training"
        ),
        "media_dataset_size": Option(
            "30 TB",
            Information,
            "Dataset size above which 1080p/4K or uncompressed media take media_read_per_gpu",
        ),
        "reference_read_per_node": Option(
            {"good": "4 GB/s", "better": "8 GB/s", "best": "40 GB/s"},
            dict[str, Bandwidth],
            "Single-node read guidance by storage.performance_level",
        ),
        "reference_read_per_su": Option(
            {"good": "15 GB/s", "better": "40 GB/s", "best": "125 GB/s"},
            dict[str, Bandwidth],
            "Aggregate read guidance per scalable unit by storage.performance_level",
        ),
        "su_nodes": Option(32, Count, "Nodes of the scalable unit the guidance is written for"),
        "node_gpus": Option(8, Count, "GPUs of the node the per-node guidance is written for"),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Storage that reads below the concurrent workloads' demand feeds each of them at
        bandwidth / demand of the rate it reads at: its steps take demand / bandwidth as long
        (the GPUs wait on data), and the fix (3x the demand) gives them their projected time.
        Storage at or above the demand and below the headroom costs no training time at the
        declared demand: the finding says so."""
        got = _demand_bandwidth(design, options)
        if got is None:
            return None
        demands, demand, bandwidth = got
        if projection.index not in {d.index for d in demands}:
            return None
        short = demand.m_as("GB/s") / bandwidth.m_as("GB/s")
        if short > 1.0:
            return Remedy(slowed=short)
        return Remedy(
            note=(
                f"costs no training time at the workloads' read demand: the storage reads "
                f"{fmt(bandwidth)} against a demand of {fmt(demand)}; the "
                f"{options['factor']:g}x headroom is for bursts (data loading and jobs "
                "starting at once)"
            )
        )

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        got = _demand_bandwidth(design, ctx.options)
        if got is None:
            return
        demands, demand, bandwidth = got
        tiers = training_tiers(design)
        need = (demand * ctx["factor"]).to("GB/s")
        if bandwidth.m_as("GB/s") >= need.m_as("GB/s") * (1 - 1e-9):
            return
        index, tier = tiers[0]
        field = "read_bandwidth" if tier.read_bandwidth is not None else "id"
        yield Violation(
            ("storage", "tiers", index, field),
            f"training storage ({', '.join(t.id for _, t in tiers)}) reads at "
            f"{fmt(bandwidth.to('GB/s'))}, below {ctx['factor']:g}x the workloads' read "
            f"demand of {fmt(demand.to('GB/s'))}; demand: " + "; ".join(d.text() for d in demands),
            subject=tier.id,
            measured=bandwidth.to("GB/s"),
            limit=need,
            fix="add storage bandwidth or stage data on a node-local tier",
        )


def _demand_bandwidth(
    design: Design, options: dict[str, Any]
) -> tuple[list[WorkloadDemand], Quantity, Quantity] | None:
    """The concurrent workloads' demands, their sum, and the training tiers' aggregate read
    bandwidth; None where there is no demand, no training tier or no read figure."""
    demands = workload_demands(design, options)
    demand = Q_(0.0, "GB/s")
    for d in demands:
        demand = demand + d.rate
    if demand.magnitude <= 0:
        return None
    tiers = training_tiers(design)
    if not tiers:
        return None
    known = [bw for _, t in tiers if (bw := t.aggregate("read")) is not None]
    if not known:
        return None  # no read figure declared: nothing to hold the demand against
    return demands, demand.to("GB/s"), sum(known[1:], known[0]).to("GB/s")
