"""References resolve() does not check: switch and NIC catalog keys, fabric racks, endpoint
ids and links, rail leaves, storage tiers named by checkpoints, and duplicate fabric or tier ids."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from dclint.model.hints import Hints
from dclint.model.ranges import RangeError, expand
from dclint.model.source import Path
from dclint.model.topology import RefError

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Endpoint, Fabric
    from dclint.model.topology import Topology

__all__ = ["check_refs"]


def check_refs(design: Design, topo: Topology) -> list[RefError]:
    """Every dangling reference outside power, racks and cooling, at the referencing value."""
    refs = _Refs(topo)
    seen_fabrics: set[str] = set()
    for f, fabric in enumerate(design.fabrics):
        base: Path = ("fabrics", f)
        if fabric.id in seen_fabrics:
            refs.errors.append(RefError((*base, "id"), f"duplicate fabric id '{fabric.id}'"))
        seen_fabrics.add(fabric.id)
        refs.fabric(fabric, base)
    tiers = refs.storage_tiers(design)
    refs.checkpoints(design, tiers)
    return refs.errors


class _Refs:
    """The references of one design checked against what it declares; `errors` collects them."""

    def __init__(self, topo: Topology) -> None:
        self.topo = topo
        self.errors: list[RefError] = []
        self.hint = Hints()

    def unknown(self, path: Path, what: str, name: str, known: Iterable[str]) -> None:
        self.errors.append(RefError(path, f"unknown {what} '{name}'{self.hint(name, known)}"))

    def ids(self, pattern: str, path: Path) -> list[str]:
        try:
            return [i for i, _ in expand(pattern)]
        except RangeError as exc:
            self.errors.append(RefError(path, str(exc)))
            return []

    def fabric(self, fabric: Fabric, base: Path) -> None:
        """A fabric's NIC, switch models, switch ids, racks, endpoints, links and rails."""
        switches, nics = self.topo.catalog.switches, self.topo.catalog.nics
        if fabric.nic is not None and fabric.nic not in nics:
            self.unknown((*base, "nic"), "NIC", fabric.nic, nics)
        for t, tier in enumerate(fabric.tiers):
            if tier.switch not in switches:
                self.unknown((*base, "tiers", t, "switch"), "switch", tier.switch, switches)
        own = self.switch_ids(fabric, base)
        self.fabric_racks(fabric, base)
        ends = own | set(self.topo.rack_by_id)
        nodes = _endpoint_ids(fabric.endpoints, base, ends, self.ids, self.errors)
        what = "switch, rack or endpoint" if nodes else "switch or rack"
        ends |= nodes
        for k, link in enumerate(fabric.links):
            for side in ("a", "b"):
                for end in self.ids(getattr(link, side), (*base, "links", k, side)):
                    if end not in ends:
                        self.unknown((*base, "links", k, side), what, end, ends)
                        break
        for rail, leaves in (fabric.rails or {}).items():
            for j, pattern in enumerate(leaves):
                for sid in self.ids(pattern, (*base, "rails", rail, j)):
                    if sid not in own:
                        self.unknown((*base, "rails", rail, j), "switch", sid, own)
                        break

    def switch_ids(self, fabric: Fabric, base: Path) -> set[str]:
        """The ids of a fabric's own switches (each model known, each id once)."""
        switches = self.topo.catalog.switches
        own: set[str] = set()
        for s, sw in enumerate(fabric.switches):
            if sw.model not in switches:
                self.unknown((*base, "switches", s, "model"), "switch", sw.model, switches)
            for sid in self.ids(sw.id, (*base, "switches", s, "id")):
                if sid in own:
                    self.errors.append(
                        RefError((*base, "switches", s, "id"), f"duplicate switch id '{sid}'")
                    )
                    break
                own.add(sid)
        return own

    def fabric_racks(self, fabric: Fabric, base: Path) -> None:
        for j, pattern in enumerate(fabric.racks or ()):
            for rid in self.ids(pattern, (*base, "racks", j)):
                if rid not in self.topo.rack_by_id:
                    self.unknown((*base, "racks", j), "rack", rid, self.topo.rack_by_id)
                    break

    def storage_tiers(self, design: Design) -> set[str]:
        """The storage tiers' ids, each once."""
        tiers: set[str] = set()
        for i, storage_tier in enumerate(design.storage.tiers):
            if storage_tier.id in tiers:
                self.errors.append(
                    RefError(
                        ("storage", "tiers", i, "id"),
                        f"duplicate storage tier id '{storage_tier.id}'",
                    )
                )
            tiers.add(storage_tier.id)
        return tiers

    def checkpoints(self, design: Design, tiers: set[str]) -> None:
        """Each workload's checkpoint tier and drain tier name a storage tier."""
        for i, wl in enumerate(design.workloads):
            ref = wl.checkpoint.tier if wl.checkpoint else None
            if ref is not None and ref not in tiers:
                self.unknown(("workloads", i, "checkpoint", "tier"), "storage tier", ref, tiers)
            drain = wl.checkpoint.drain_tier if wl.checkpoint else None
            if drain is not None and drain not in tiers:
                path: Path = ("workloads", i, "checkpoint", "drain_tier")
                self.unknown(path, "storage tier", drain, tiers)


def _endpoint_ids(
    endpoints: list[Endpoint],
    base: Path,
    taken: set[str],
    ids: Callable[[str, Path], list[str]],
    errors: list[RefError],
) -> set[str]:
    """Endpoint node ids: one per node (`count` of them), none a switch's or rack's id."""
    out: set[str] = set()
    for e, ep in enumerate(endpoints):
        if ep.id is None:
            continue
        path: Path = (*base, "endpoints", e, "id")
        names = ids(ep.id, path)
        if names and len(names) != ep.count:
            errors.append(
                RefError(
                    path,
                    f"endpoint '{ep.name}' has {len(names):,} ids in '{ep.id}' but count "
                    f"{ep.count:,}; give one id per node",
                )
            )
        for eid in names:
            if eid in out or eid in taken:
                other = "another endpoint" if eid in out else "a switch or rack"
                errors.append(RefError(path, f"endpoint id '{eid}' is already the id of {other}"))
                break
            out.add(eid)
    return out
