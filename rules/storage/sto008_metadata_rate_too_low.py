"""Training data loaders that open more files a second than the storage's metadata servers serve.

## What it does
For each workload that runs concurrently and declares `files_per_sample`, counts the files its
data loaders open a second: samples a second (training tokens a second at its MFU, declared
or the projection's default, over `sequence_length`, as STO001 counts them) x files a sample.
Adds them up and holds the total against `max_load` (default 100%) of the metadata rate of the
tiers that feed training (`feeds_training`, else the parallel file systems) that declare a
`metadata_rate`. Tiers that declare none are not checked.

## Why it matters
Small-file datasets (an image, a caption or a shard index a file) are bound by metadata
operations, not bandwidth: every open is a lookup on the file system's metadata servers,
and a training tier that reads hundreds of GB/s can still stall its loaders at a few hundred
thousand opens a second. The rate a metadata server sustains is the vendor's or a measured
figure (e.g. mdtest); the 100% `max_load` is dclint's own default, the declared rate being
what the servers sustain.

Sources: mdtest, the metadata benchmark of the IOR suite.

## Example
```yaml
storage:
  tiers:
    - {id: lustre, kind: parallel_fs, metadata_rate: 4000 op/s}
workloads:
  - id: vlm-1b              # 64 H100, 1e9 parameters: 1,030 samples/s of 4,096 tokens
    files_per_sample: 4     # STO008: 4,121 opens/s
```

## Fix
Pack small files into large shards (WebDataset tar, Megatron's indexed datasets), stage the
data on node-local NVMe, or add metadata servers.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Share,
    Violation,
    rule,
    samples_per_second,
    training_tiers,
)
from dclint.units import Q_, fmt

from ._shared import StorageRule


@rule("STO008", "metadata-rate-too-low", consequence="performance")
class MetadataRateTooLow(StorageRule):
    options = {
        "max_load": Option("100%", Share, "Highest share of the metadata rate the loaders use"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        tiers = [(i, t) for i, t in training_tiers(design) if t.metadata_rate is not None]
        if not tiers:
            return
        demand = Q_(0.0, "op/s")
        parts = []
        for wl in design.workloads:
            if not wl.concurrent or wl.files_per_sample is None:
                continue
            got = samples_per_second(design, wl)
            if got is None:
                continue
            opens = Q_(got[0] * wl.files_per_sample, "op/s")
            demand = demand + opens
            parts.append(
                f"{wl.id}: {got[0]:,.4g} samples/s x {wl.files_per_sample:g} files = "
                f"{fmt(opens)} ({got[1]})"
            )
        if not parts:
            return
        rates = [t.metadata_rate for _, t in tiers if t.metadata_rate is not None]
        rate = sum(rates[1:], rates[0]).to("op/s")
        limit = (rate * ctx["max_load"]).to("op/s")
        if demand.m_as("op/s") <= limit.m_as("op/s") * (1 + 1e-9):
            return
        index, tier = tiers[0]
        load = (
            ""
            if ctx["max_load"].m_as("percent") == 100
            else (f" ({fmt(ctx['max_load'].to('percent'))} of {fmt(rate)})")
        )
        yield Violation(
            ("storage", "tiers", index, "metadata_rate"),
            f"the data loaders' {fmt(demand)} of file opens on "
            f"{', '.join(t.id for _, t in tiers)} exceed what its metadata servers "
            f"serve{load}: " + "; ".join(parts),
            subject=tier.id,
            measured=demand,
            limit=limit,
            fix="pack small files into shards, stage data on node-local NVMe or add metadata "
            "servers",
        )
