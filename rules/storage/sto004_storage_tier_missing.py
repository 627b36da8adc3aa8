"""Storage without one of the three tiers: node-local cache, parallel file system, object store.

## What it does
Looks at the kinds of the design's storage tiers and flags each of `node_local`,
`parallel_fs` and `object` that is missing (one warning each, at `storage.tiers`). A design
that declares no storage tiers at all is left alone: its storage is out of its scope.

## Why it matters
Three tiers, each for its own load, is dclint's own default practice: node-local NVMe stages
the data set and absorbs restarts (the NVIDIA DGX SuperPOD reference architecture uses each
DGX's local NVMe as a read cache in front of its high-performance shared storage); a
parallel file system (WekaFS, VAST, Lustre) feeds training; an S3-compatible object store
holds checkpoints and archives. Without the cache every epoch and every restart hits the
shared file system; without the object store checkpoints crowd the data.

Sources: NVIDIA DGX SuperPOD reference architecture.

## Example
```yaml
storage:
  tiers:               # STO004: no node_local tier; STO004: no object tier
    - id: lustre
      kind: parallel_fs
```

## Fix
Add the missing tier, or suppress the warning with a reason where the design deliberately
does without it (e.g. a small cluster that checkpoints to the parallel file system).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, rule

from ._shared import StorageRule

_TIERS = {
    "node_local": "a node-local NVMe cache",
    "parallel_fs": "a parallel file system",
    "object": "an object store",
}


@rule(
    "STO004", "storage-tier-missing", severity="warning", consequence="capacity", needs=("storage",)
)
class StorageTierMissing(StorageRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        tiers = design.storage.tiers
        if not tiers:
            return
        kinds = {t.kind for t in tiers}
        have = ", ".join(f"{t.id} ({t.kind})" for t in tiers)
        for kind, what in _TIERS.items():
            if kind in kinds:
                continue
            yield Violation(
                ("storage", "tiers"),
                f"storage has no {kind} tier ({what}) of the three-tier practice; its "
                f"tiers are {have}",
                subject=kind,
                fix=f"add {what} (kind {kind})",
                key=True,
            )
