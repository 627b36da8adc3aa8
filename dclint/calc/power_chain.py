"""The power chain above the panels: the load on each transformer, UPS and generator set
against its capacity, and what the loss of each single element takes from the racks.

`chain_loads` and `failure_cases` are the records the review's one-line diagram and `capacity`
read: each element's load against its capacity, and each element's failure consequence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dclint.calc.power import feeds_below, panel_share, rack_load_kw
from dclint.model.power_chain import Generator, Transformer, Ups, rating_kw
from dclint.model.source import Path
from dclint.model.topology import ChainItem, FeedItem, PanelItem, Rack, Topology
from dclint.units import Q_, fmt

__all__ = [
    "ElementLoad",
    "FailureCase",
    "GenerationLoad",
    "chain_feeds",
    "chain_loads",
    "failure_cases",
    "generation_loads",
    "ups_below",
]


@dataclass(frozen=True)
class ElementLoad:
    """One transformer or UPS: what it delivers (racks below it, each once, the declared loads
    besides them it carries, plus the losses of the UPS systems below) against what it can
    deliver (its capacity with spares out), in kW."""

    id: str
    kind: str
    path: Path
    load_kw: float
    capacity_kw: float
    capacity_text: str
    racks: int
    # the single failure that puts `load_kw` on it (the failure engine's worst case as a
    # survivor); None: its load in normal running is its most
    failure: str | None = None
    # what `load_kw` is made of: ('racks', kW), ('fabric switches', kW) ...; the rest of it is
    # the losses of UPS systems below
    parts: tuple[tuple[str, float], ...] = ()

    @property
    def includes(self) -> str:
        """'racks 580 kW + fabric switches 20.4 kW + storage data nodes 11.6 kW', or '' where
        the racks are all of it."""
        from dclint.calc.it_load import sum_text

        if not any(kw > 1e-9 for w, kw in self.parts if w != "racks"):
            return ""
        return sum_text(list(self.parts), self.load_kw)

    def allocation(self, topo: Topology) -> str:
        """'fabric switches on the UPS of the racks they serve, pro rata by rack, as no fed_by
        is declared' where a load in `parts` is counted by the default allocation, else ''."""
        from dclint.calc.it_load import default_note

        return default_note(topo, [w for w, kw in self.parts if w != "racks" and kw > 1e-9])

    @property
    def share(self) -> float:
        return self.load_kw / self.capacity_kw if self.capacity_kw > 0 else float("inf")


@dataclass(frozen=True)
class GenerationLoad:
    """A generator set: the facility load it must carry (IT x PUE below what it serves) against
    its output with the spare generators out, in kW."""

    generator: Generator
    path: Path
    it_kw: float
    load_kw: float
    firm_kw: float
    serves: str


@dataclass(frozen=True)
class FailureCase:
    """The loss of one element (feed, panel, busway, switchboard, UPS, transformer): the racks
    it takes all supply from, and those that lose part of it (running on their other feeds)."""

    element: str
    kind: str
    path: Path
    racks_lost: tuple[str, ...] = ()
    racks_degraded: tuple[str, ...] = ()
    load_lost_kw: float = 0.0
    rack_paths: tuple[Path, ...] = field(default=())


def chain_feeds(item: ChainItem) -> list[FeedItem]:
    """Feeds below a transformer or UPS, through the panels and elements it feeds."""
    return feeds_below(item)


def ups_below(item: PanelItem | ChainItem) -> list[ChainItem]:
    """UPS systems below an element whose losses it carries: every UPS below, each once; the
    losses of a UPS below another UPS are carried by that one's output already."""
    found: list[ChainItem] = []
    for child in item.children:
        if isinstance(child, ChainItem) and child.kind == "ups":
            found.append(child)
        else:
            found.extend(ups_below(child))
    return found


def _capacity(item: ChainItem) -> tuple[float, str]:
    model = item.model
    if isinstance(model, Ups):
        text = f"frame {fmt(model.rating)}"
        if model.rating.dimensionality != Q_(1, "kW").dimensionality:
            text += f" x PF {model.power_factor:g}"
        if model.power is not None:
            text += f", {fmt(model.power)}"
        if model.module_rating is not None:
            left = model.modules - model.redundant_modules
            red = f"N+{model.redundant_modules}" if model.redundant_modules else "N"
            text += (
                f"; {model.modules} modules of {fmt(model.module_rating)} in {red}: {left} "
                f"carry the load"
            )
        return model.output_kw, text
    assert isinstance(model, Transformer)
    kw = rating_kw(model.rating, model.power_factor)
    text = f"nameplate {fmt(model.rating)}"
    if model.rating.dimensionality != Q_(1, "kW").dimensionality:
        text += f" x PF {model.power_factor:g}"
    return kw, text


def chain_loads(topo: Topology, peak: bool = True) -> dict[str, ElementLoad]:
    """Every transformer and UPS with its load (racks at their peak, or design IT load) and its
    capacity with the spare modules out."""
    return topo.derived.once((chain_loads, peak), lambda: _chain_loads(topo, peak))


def _chain_loads(topo: Topology, peak: bool) -> dict[str, ElementLoad]:
    """Each element's load is the most it carries in normal running or as a survivor of any
    single failure (dclint.calc.failures.play): a rack's load shared by its live feeds, so a
    distributed-redundant UPS carries its racks' partners' share only when a partner fails."""
    out: dict[str, ElementLoad] = {}
    if not topo.chain:  # no transformer or UPS: no failure to play for them
        return out
    from dclint.calc.failures.play import failure_table

    table = failure_table(topo, peak)
    worst = table.worst_load
    for cid, item in topo.chain.items():
        cap, text = _capacity(item)
        racks = {r.id for f in chain_feeds(item) for r in f.racks}
        kw, failure = worst.get(cid, (0.0, None))
        parts = table.parts.get(cid, ())
        out[cid] = ElementLoad(cid, item.kind, item.path, kw, cap, text, len(racks), failure, parts)
    return out


def generation_loads(topo: Topology, peak: bool = True) -> list[GenerationLoad]:
    """Each generator set with the facility load it must carry: the IT load below the element it
    serves (the whole site if none) x the site's design-day PUE (its annual PUE where no
    design_pue is declared)."""
    pue, _ = topo.design.site.sizing_pue  # the design day's, where declared
    out: list[GenerationLoad] = []
    for gen, path in topo.generators:
        if gen.serves is None:  # the racks and every other declared load (calc.it_load)
            from dclint.calc.it_load import it_total_kw

            it = it_total_kw(topo, peak)
            serves = "the site"
        else:
            it = _it_below(topo, gen.serves, peak)
            serves = gen.serves
        out.append(GenerationLoad(gen, path, it, it * pue, gen.firm_kw, serves))
    return out


def _it_below(topo: Topology, element: str, peak: bool) -> float:
    """The IT load below an element in normal running: its racks' shares and those of the
    declared IT loads fed below it (switches, storage and other nodes; CDU pumps are facility
    load, in the PUE)."""
    item = topo.panels.get(element) or topo.chain.get(element)
    if item is None:
        return 0.0
    feeds = feeds_below(item)
    below = {f.id for f in feeds}
    racks = {r.id: r for f in feeds for r in f.racks}
    kw = sum(rack_load_kw(r, peak) * panel_share(r, below) for r in racks.values())
    from dclint.calc.failures.play import extras_below

    return kw + extras_below(topo, element, peak)


def _parents(topo: Topology) -> dict[Any, Any]:
    """Each element of the supply to the one above it: ('feed', id) to its panel, ('panel', id)
    and ('chain', id) to what they are `fed_by` (None at the utility)."""
    up: dict[Any, Any] = {}
    for fid, feed in topo.feeds.items():
        up[("feed", fid)] = ("panel", feed.panel.id) if feed.panel is not None else None
    elements: list[PanelItem | ChainItem] = [*topo.chain.values(), *topo.panels.values()]
    for element in elements:
        kind = "chain" if isinstance(element, ChainItem) else "panel"
        parent = element.model.fed_by
        if parent in topo.chain:
            up[(kind, element.id)] = ("chain", parent)
        elif parent in topo.panels:
            up[(kind, element.id)] = ("panel", parent)
        else:
            up[(kind, element.id)] = None
    return up


def _ancestors(node: Any, up: dict[Any, Any], memo: dict[Any, frozenset[Any]]) -> frozenset[Any]:
    """A feed and every element above it. Kept per feeding panel: keeping every intermediate
    element's set would be quadratic on a long `fed_by` chain."""
    start = up.get(node)
    if start not in memo:
        found, cur = [], start
        while cur is not None:
            found.append(cur)
            cur = up.get(cur)
        memo[start] = frozenset(found)
    return memo[start] | {node}


def _caught(topo: Topology) -> set[str]:
    """UPS systems a catcher UPS takes over from: their single loss is ridden through."""
    out: set[str] = set()
    for item in topo.chain.values():
        if isinstance(item.model, Ups):
            out.update(item.model.catches)
    return out


def failure_cases(topo: Topology, peak: bool = True) -> list[FailureCase]:
    """The loss of every single element, in the supply graph's order: the racks that lose all
    their supply (every feed of theirs is at or below the element) and those that lose part.
    A UPS that a catcher covers, and the utility (backed up by generators), are not counted."""
    return topo.derived.once((failure_cases, peak), lambda: _failure_cases(topo, peak))


def _failure_cases(topo: Topology, peak: bool) -> list[FailureCase]:
    up = _parents(topo)
    caught = _caught(topo)
    memo: dict[Any, frozenset[Any]] = {}
    lost: dict[Any, list[Rack]] = {}
    degraded: dict[Any, list[Rack]] = {}
    for rack in topo.racks:
        if not rack.feeds:
            continue
        sets = [_ancestors(("feed", f.id), up, memo) for f in rack.feeds]
        common = frozenset.intersection(*sets)
        for node in common:
            lost.setdefault(node, []).append(rack)
        for node in frozenset.union(*sets) - common:
            degraded.setdefault(node, []).append(rack)
    cases: list[FailureCase] = []
    for node in up:  # feeds, then transformers and UPS systems, then panels
        if node[0] == "chain" and node[1] in caught:
            continue
        gone, part = lost.get(node, []), degraded.get(node, [])
        if not gone and not part:
            continue
        cases.append(
            FailureCase(
                node[1],
                _kind(topo, node),
                _path(topo, node),
                tuple(r.id for r in gone),
                tuple(r.id for r in part),
                sum(rack_load_kw(r, peak) for r in gone),
                tuple(dict.fromkeys(r.path for r in gone)),
            )
        )
    return cases


def _kind(topo: Topology, node: Any) -> str:
    if node[0] == "feed":
        return "feed"
    if node[0] == "chain":
        return str(topo.chain[node[1]].kind)
    return str(topo.panels[node[1]].model.kind)


def _path(topo: Topology, node: Any) -> Path:
    if node[0] == "feed":
        return topo.feeds[node[1]].path
    if node[0] == "chain":
        return topo.chain[node[1]].path
    return topo.panels[node[1]].path


def rack_by_id(topo: Topology, ids: tuple[str, ...]) -> list[Rack]:
    return [topo.rack_by_id[i] for i in ids]
