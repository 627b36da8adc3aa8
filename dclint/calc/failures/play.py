"""The failure engine: every single failure of the power and cooling plant a design declares,
played one at a time. For each, the load is re-distributed by the design's own topology (a
rack's load is shared by its live feeds, so A/B cords and distributed-redundant UPS pairs share
it as wired; a catcher UPS takes over the UPS it backs up; the members of a CDU group or the
units of an air-handler set share what a lost one carried) and every surviving element is judged
against its capacity: the worst survivor, its margin, and the racks left without supply or
cooling. Nothing here prints; `dclint failures` and the rules read `failure_table`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from dclint.calc.failures.plant import cooling_failures, generation_failures
from dclint.calc.failures.records import EPS, Failure, Survivor, failure_name, kw_text
from dclint.calc.it_load import declared_loads
from dclint.calc.power import feed_capacity_kw, feeds_below, rack_load_kw
from dclint.model.power_chain import Transformer, Ups, rating_kw
from dclint.model.source import Path
from dclint.model.topology import ChainItem, PanelItem, Rack, Topology

__all__ = [
    "Failure",
    "FailureTable",
    "MaintenanceCase",
    "Survivor",
    "failure_table",
    "maintenance_table",
    "most_severe_first",
    "sharing_text",
]

Node = tuple[str, str]  # ("feed" | "panel" | "chain", id)


@dataclass
class FailureTable:
    """Every single failure, and the most each power element carries as a survivor of any of
    them (or in normal running): `worst_load[id] = (kW, the failure's description or None)`."""

    failures: list[Failure] = field(default_factory=list)
    worst_load: dict[str, tuple[float, str | None]] = field(default_factory=dict)
    normal_load: dict[str, float] = field(default_factory=dict)
    # what each transformer's and UPS's worst load is made of: ('racks', kW), ('fabric
    # switches', kW) ..., without the losses of UPS systems below (the rest of the total)
    parts: dict[str, tuple[tuple[str, float], ...]] = field(default_factory=dict)


def most_severe_first(failures: Iterable[Failure]) -> list[Failure]:
    """`failures` in an FMEA's criticality order, as `dclint failures` and the review list
    them: those that leave racks without supply or cooling first (most racks first), then by
    the worst survivor's load over its capacity (an overloaded survivor above 100%); a tie
    keeps the order they were played in."""
    return sorted(
        failures,
        key=lambda f: (-len(f.racks_lost), -(f.worst.share if f.worst is not None else 0.0)),
    )


def failure_table(topo: Topology, peak: bool = True) -> FailureTable:
    """The failure table of a design, racks at their peak (catalog max_power) or design IT
    load; computed once per design and load basis."""
    return topo.derived.once((failure_table, peak), lambda: _power(topo, peak).table())


def _power(topo: Topology, peak: bool) -> _Power:
    """The power graph of a design, built once per load basis."""
    return topo.derived.once((_Power, peak), lambda: _Power(topo, peak))


@dataclass(frozen=True)
class MaintenanceCase:
    """One element out for maintenance, then the single failure that does most harm on top of
    it: the racks lost (by maintenance alone, and with the failure) and the worst survivor."""

    maintained: str
    kind: str
    path: Path
    lost_alone: tuple[str, ...]
    failure: str | None
    worst: Survivor | None
    racks_lost: tuple[str, ...]


def maintenance_table(topo: Topology, peak: bool = True) -> list[MaintenanceCase]:
    """Maintenance mode (Tier III/IV): each transformer, UPS, panel, busway and switchboard out
    for service, then each single failure of another of them: the racks lost and the worst
    survivor of the worst pairing (most racks lost, then the most loaded survivor). Pairs of
    elements: a design's elements squared, each pair playing the racks below both."""
    return topo.derived.once((maintenance_table, peak), lambda: _power(topo, peak).maintenance())


def extras_below(topo: Topology, element: str, peak: bool = True) -> float:
    """The declared IT loads besides the racks (switches, storage and other nodes) below an
    element, by the failure engine's allocation, as `panel_share` counts a rack: a load any of
    whose sources is at or below the element counts whole (with its other sources lost, the
    element carries all of it). CDU pumps are facility load (in the PUE): not counted."""
    node: Node = ("chain", element) if element in topo.chain else ("panel", element)
    facility = {p.what for p in declared_loads(topo, peak) if not p.it}
    power = _power(topo, peak)
    return sum(
        kw
        for what, kw, atts in power.extras
        if what not in facility and any(node in power.above(a) for a in atts)
    )


def sharing_text(failure: str | None) -> str:
    """How racks' load reaches an element, for a message: shared by their live feeds, in the
    single failure that loads it most, or in normal running."""
    if failure is None:
        return "each shared by its live feeds, in normal running"
    return f"each shared by its live feeds, with {failure} (its worst single failure)"


Extra = tuple[str, float, tuple[Node, ...]]  # (what, kW, the elements it is fed from)


class _Power:
    """The power plant's graph: feeds under panels under UPS systems and transformers, and the
    loads besides the racks (switches, storage and other nodes, CDU pumps), each shared by the
    elements it is fed from, as a dual-corded device rides its live sources: those it declares
    (`fed_by`), else, pro rata by rack, the UPS systems (or transformers) of the racks it
    serves."""

    def __init__(self, topo: Topology, peak: bool) -> None:
        self.topo = topo
        self.peak = peak
        self.parent: dict[Node, Node | None] = {}
        self.eff: dict[Node, float] = {}
        self.capacity: dict[Node, float] = {}
        self.kinds: dict[Node, str] = {}
        self.paths: dict[Node, Path] = {}
        self.rack_kw = {r.id: rack_load_kw(r, peak) for r in topo.racks}
        caps = feed_capacity_kw(topo)
        for fid, feed in topo.feeds.items():
            node = ("feed", fid)
            self.parent[node] = ("panel", feed.panel.id) if feed.panel is not None else None
            self.capacity[node], self.kinds[node], self.paths[node] = caps[fid], "feed", feed.path
        items: list[PanelItem | ChainItem] = [*topo.panels.values(), *topo.chain.values()]
        for item in items:
            node = self._node(item)
            up = item.model.fed_by
            self.parent[node] = (
                ("chain", up) if up in topo.chain else ("panel", up) if up in topo.panels else None
            )
            self.paths[node] = item.path
            if isinstance(item, PanelItem):
                self.kinds[node] = str(item.model.kind)
                self.capacity[node] = float(item.capacity.m_as("kW"))
            elif isinstance(item.model, Ups):
                self.kinds[node] = "ups"
                self.capacity[node] = item.model.output_kw
                self.eff[node] = float(item.model.efficiency.m_as("")) or 1.0
            else:
                assert isinstance(item.model, Transformer)
                self.kinds[node] = "transformer"
                self.capacity[node] = rating_kw(item.model.rating, item.model.power_factor)
        self._up: dict[Node, list[tuple[Node, float]]] = {}
        self._upset: dict[Node, frozenset[Node]] = {}
        self.extras = self._extras()
        self.extras_lost: dict[str, float] = {}  # the last play's: declared loads lost, moved
        self.extras_moved: dict[str, float] = {}
        self.under: dict[Node, set[int]] = defaultdict(set)  # extras fed at or below a node
        for i, (_, _, atts) in enumerate(self.extras):
            for a in set(atts):
                self.under[a].add(i)
                for up, _ in self.ancestors(a):
                    self.under[up].add(i)
        self.load = self._normal()

    def _extras(self) -> list[Extra]:
        """The declared loads on the graph: each `fed_by` element an equal share; without one,
        each rack it serves an equal share, split over the rack's feeds as the rack's own load
        is, on the UPS or transformer nearest above each feed (not on the rack's panels and
        busways, which feed the racks; a share on a feed with neither above it reaches no
        element but the site). Grouped by the elements they ride on. A CDU's pumps without
        `fed_by` are on no declared element."""
        out: list[Extra] = []
        known = {("panel", p) for p in self.topo.panels} | {("chain", c) for c in self.topo.chain}
        for part in declared_loads(self.topo, self.peak):
            if part.fed_by:
                atts = tuple(n for n in map(self._ref, part.fed_by) if n in known)
                if atts:
                    out.append((part.what, part.kw, atts))
                continue
            if not part.it or not part.racks:
                continue
            per = part.kw / len(part.racks)
            shares: dict[tuple[Node, ...], float] = defaultdict(float)
            for rid in part.racks:
                rack = self.topo.rack_by_id.get(rid)
                if rack is None or not rack.feeds:
                    continue
                ups = (self._nearest(("feed", f.id)) for f in rack.feeds)
                atts = tuple(n for n in ups if n is not None)
                if atts:
                    shares[atts] += per * len(atts) / len(rack.feeds)
            out.extend((part.what, kw, atts) for atts, kw in shares.items())
        return out

    def _nearest(self, node: Node) -> Node | None:
        """The first UPS or transformer above a node, None where it has none."""
        return next((up for up, _ in self.ancestors(node) if up[0] == "chain"), None)

    def _ref(self, ref: str) -> Node:
        return ("chain", ref) if ref in self.topo.chain else ("panel", ref)

    def above(self, node: Node) -> frozenset[Node]:
        """A node and every element above it."""
        if node not in self._upset:
            self._upset[node] = frozenset([node, *(n for n, _ in self.ancestors(node))])
        return self._upset[node]

    def _cut(self, node: Node, gone: set[Node]) -> bool:
        """Whether a node is lost with the `gone` elements (it is one, or one is above it)."""
        return bool(gone) and not gone.isdisjoint(self.above(node))

    @staticmethod
    def _node(item: PanelItem | ChainItem) -> Node:
        return ("panel", item.id) if isinstance(item, PanelItem) else ("chain", item.id)

    def ancestors(self, node: Node) -> list[tuple[Node, float]]:
        """The elements above a node, each with the factor a change of the node's load reaches
        it by (1 / efficiency of each UPS passed on the way up)."""
        if node in self._up:
            return self._up[node]
        # walked, not recursed: a chain of thousands of panels is a design, not a stack
        out: list[tuple[Node, float]] = []
        factor, here, seen = 1.0, node, {node}
        parent = self.parent.get(here)
        while parent is not None and parent not in seen:
            factor /= self.eff.get(here, 1.0)
            out.append((parent, factor))
            seen.add(parent)
            here, parent = parent, self.parent.get(parent)
        self._up[node] = out
        return out

    def _normal(self) -> dict[Node, float]:
        """Every element's load with everything running: a rack shared by all its feeds."""
        load: dict[Node, float] = defaultdict(float)
        for rack in self.topo.racks:
            for feed in rack.feeds:
                self._add(load, ("feed", feed.id), self.rack_kw[rack.id] / len(rack.feeds))
        for _, kw, atts in self.extras:
            for a in atts:
                self._add(load, a, kw / len(atts))
        return load

    def parts_at(self, node: Node, lost: set[str], gone: set[Node]) -> list[tuple[str, float]]:
        """What a node carries with the `lost` feeds and `gone` elements down, by kind of load
        (racks first), without the losses of UPS systems below it."""
        out: dict[str, float] = {"racks": 0.0}
        for rack in self.topo.racks:
            live = [f for f in rack.feeds if f.id not in lost]
            for f in live:
                if node in self.above(("feed", f.id)):
                    out["racks"] += self.rack_kw[rack.id] / len(live)
        for what, kw, atts in self.extras:
            alive = [a for a in atts if not self._cut(a, gone)]
            for a in alive:
                if node in self.above(a):
                    out[what] = out.get(what, 0.0) + kw / len(alive)
        return list(out.items())

    def _add(self, delta: dict[Node, float], node: Node, kw: float) -> None:
        delta[node] += kw
        for up, factor in self.ancestors(node):
            delta[up] += kw * factor

    # -- failures -------------------------------------------------------------------------------
    def scenarios(self) -> list[tuple[str, str, Path, set[str], list[Rack]]]:
        """(kind, element, path, feeds lost, racks touched) for every element of the supply."""
        out = []  # top down: transformers and UPS systems, panels, feeds
        items: list[PanelItem | ChainItem] = [*self.topo.chain.values(), *self.topo.panels.values()]
        for item in items:
            feeds = feeds_below(item)
            racks = list({r.id: r for f in feeds for r in f.racks}.values())
            node = self._node(item)
            out.append((self.kinds[node], item.id, item.path, {f.id for f in feeds}, racks))
        for fid, feed in self.topo.feeds.items():
            racks = list({r.id: r for r in feed.racks}.values())
            out.append(("feed", fid, feed.path, {fid}, racks))
        out.extend(self._paths())
        return out

    def _paths(self) -> list[tuple[str, str, Path, set[str], list[Rack]]]:
        """A power path whose source the design leaves undeclared (its feeds have no UPS or
        transformer above them): the loss of that source takes every such feed of the path."""
        by_path: dict[str, list[str]] = defaultdict(list)
        for fid, feed in self.topo.feeds.items():
            if feed.model.path and not any(
                a[0] == "chain" for a, _ in self.ancestors(("feed", fid))
            ):
                by_path[feed.model.path].append(fid)
        if len(by_path) < 2:
            return []
        out = []
        for name, fids in sorted(by_path.items()):
            racks = {r.id: r for fid in fids for r in self.topo.feeds[fid].racks}
            path = self.topo.feeds[fids[0]].path
            out.append(("path", name, path, set(fids), list(racks.values())))
        return out

    def play(
        self, lost: set[str], racks: list[Rack], gone: set[Node] | None = None
    ) -> tuple[dict[Node, float], list[str]]:
        """Load changes when the `lost` feeds (and the `gone` elements, which the declared
        loads besides the racks ride on) go down, and the racks left with no live feed."""
        delta: dict[Node, float] = defaultdict(float)
        dead: list[str] = []
        self.extras_lost, self.extras_moved = {}, {}
        hit: set[int] = set()
        for node in gone or ():
            hit |= self.under.get(node, set())
        for i in sorted(hit):
            what, kw, atts = self.extras[i]
            alive = [not self._cut(a, gone or set()) for a in atts]
            up_n = sum(alive)
            if not up_n:
                self.extras_lost[what] = self.extras_lost.get(what, 0.0) + kw
            elif up_n < len(atts):
                moved = kw * (len(atts) - up_n) / len(atts)
                self.extras_moved[what] = self.extras_moved.get(what, 0.0) + moved
            for a, up in zip(atts, alive, strict=True):
                new = kw / up_n if up else 0.0
                if abs(new - kw / len(atts)) > EPS:
                    self._add(delta, a, new - kw / len(atts))
        for rack in racks:
            kw, n = self.rack_kw[rack.id], len(rack.feeds)
            live = [f for f in rack.feeds if f.id not in lost]
            if not live:
                dead.append(rack.id)
            for feed in rack.feeds:
                new = kw / len(live) if live and feed.id not in lost else 0.0
                if abs(new - kw / n) > EPS:
                    self._add(delta, ("feed", feed.id), new - kw / n)
        return delta, dead

    def survivor(self, node: Node, load: float, capacity: float | None = None) -> Survivor:
        cap = self.capacity[node] if capacity is None else capacity
        return Survivor(node[1], self.kinds[node], self.paths[node], load, cap)

    def judge(
        self, delta: dict[Node, float], gone: set[Node], ranked: list[tuple[float, Node]]
    ) -> tuple[Survivor | None, list[Survivor]]:
        """The worst survivor and the overloaded ones: the changed elements, and the most loaded
        unchanged one (the first of `ranked` neither changed nor gone)."""
        found: list[Survivor] = []
        for node, d in delta.items():
            if node in gone:
                continue
            load = self.load[node] + d
            if load <= EPS and self.load[node] > EPS:
                continue  # everything below it lost: it carries nothing, it is not judged
            found.append(self.survivor(node, load))
        for _, node in ranked:
            if node not in delta and node not in gone:
                found.append(self.survivor(node, self.load[node]))
                break
        over = sorted((s for s in found if s.over), key=lambda s: -s.share)
        worst = max(found, key=lambda s: (s.share, s.load), default=None)
        return worst, over

    def table(self) -> FailureTable:
        table = FailureTable()
        for n in self.parent:
            if n[0] != "feed":
                table.normal_load[n[1]] = self.load[n]
                table.worst_load[n[1]] = (self.load[n], None)
        ranked = sorted(
            ((Survivor("", "", (), self.load[n], self.capacity[n]).share, n) for n in self.parent),
            key=lambda x: -x[0],
        )
        caught = self._catchers()
        cases: dict[str, tuple[set[str], set[Node]]] = {}  # each element's worst: what is down
        for kind, element, path, lost, racks in self.scenarios():
            node: Node = ("feed", element) if kind == "feed" else self._key(kind, element)
            chain_ups = kind == "ups" and node[0] == "chain"
            if chain_ups and element in caught:
                table.failures.append(self._caught(element, caught[element], path, ranked, table))
                continue
            gone = {node} if kind != "path" else set()
            delta, dead = self.play(lost, racks, gone)
            worst, over = self.judge(delta, gone, ranked)
            what = failure_name(kind, element)
            for n, d in delta.items():
                load = self.load[n] + d
                if n[0] != "feed" and n not in gone and load > table.worst_load[n[1]][0] + EPS:
                    table.worst_load[n[1]] = (load, f"{what} lost")
                    cases[n[1]] = (lost, gone)
            table.failures.append(
                Failure(
                    element,
                    kind,
                    path,
                    "power",
                    self._moves(delta, dead, racks),
                    worst,
                    tuple(over),
                    tuple(dead),
                )
            )
            if chain_ups:
                module = self._module(element, path)
                if module is not None:
                    table.failures.append(module)
        for cid in self.topo.chain:
            lost, gone = cases.get(cid, (set(), set()))
            table.parts[cid] = tuple(self.parts_at(("chain", cid), lost, gone))
        facility = {p.what for p in declared_loads(self.topo, self.peak) if not p.it}
        served = {g.serves for g, _ in self.topo.generators if g.serves in self.topo.panels}
        for pid in served:
            lost, gone = cases.get(str(pid), (set(), set()))
            table.parts[str(pid)] = tuple(self.parts_at(("panel", str(pid)), lost, gone))
        # what a generator set serving an element carries is IT load x PUE: the facility loads
        # on the element (CDU pumps) are in the PUE already
        it_worst = {
            k: (kw - sum(p for w, p in table.parts.get(k, ()) if w in facility), why)
            for k, (kw, why) in table.worst_load.items()
        }
        table.failures.extend(generation_failures(self.topo, self.peak, it_worst))
        table.failures.extend(cooling_failures(self.topo))
        return table

    def maintenance(self) -> list[MaintenanceCase]:
        ranked = sorted(
            ((Survivor("", "", (), self.load[n], self.capacity[n]).share, n) for n in self.parent),
            key=lambda x: -x[0],
        )
        items = [x for x in self.scenarios() if x[0] not in ("feed", "path")]
        out: list[MaintenanceCase] = []
        for kind, element, path, lost, racks in items:
            _, alone = self.play(lost, racks, {self._key(kind, element)})
            best: tuple[tuple[int, float], str | None, Survivor | None, list[str]] = (
                (len(alone), 0.0), None, None, alone,
            )  # fmt: skip
            for kind2, element2, _, lost2, racks2 in items:
                if element2 == element:
                    continue
                both = list({r.id: r for r in [*racks, *racks2]}.values())
                gone = {self._key(kind, element), self._key(kind2, element2)}
                delta, dead = self.play(lost | lost2, both, gone)
                worst, _ = self.judge(delta, gone, ranked)
                score = (len(dead), worst.share if worst is not None else 0.0)
                if score > best[0]:
                    best = (score, failure_name(kind2, element2), worst, dead)
            out.append(
                MaintenanceCase(element, kind, path, tuple(alone), best[1], best[2], tuple(best[3]))
            )
        return out

    def _key(self, kind: str, element: str) -> Node:
        if kind == "path":
            return ("path", element)
        return ("chain", element) if element in self.topo.chain else ("panel", element)

    def _catchers(self) -> dict[str, str]:
        """Each UPS a catcher backs up, to its (first) catcher."""
        out: dict[str, str] = {}
        for cid, item in self.topo.chain.items():
            if isinstance(item.model, Ups):
                for caught in item.model.catches:
                    out.setdefault(caught, cid)
        return out

    def _caught(
        self,
        ups: str,
        catcher: str,
        path: Path,
        ranked: list[tuple[float, Node]],
        table: FailureTable,
    ) -> Failure:
        """A UPS that a catcher backs up: its whole output moves to the catcher."""
        node, cnode = ("chain", ups), ("chain", catcher)
        kw = self.load[node]
        delta: dict[Node, float] = defaultdict(float)
        self._add(delta, cnode, kw)
        for up, factor in self.ancestors(node):  # the caught UPS's input is gone
            delta[up] -= kw * factor
        worst, over = self.judge(delta, {node}, ranked)
        del table  # a catcher's takeover is its own check (PWR009): not in its worst load
        moves = f"{kw_text(kw)} to catcher {catcher}"
        return Failure(ups, "ups", path, "power", moves, worst, tuple(over))

    def _module(self, ups: str, path: Path) -> Failure | None:
        """One power module of a modular UPS lost: the UPS carries its load on the rest."""
        model = self.topo.chain[ups].model
        if model.module_rating is None or model.modules < 2:
            return None
        limits = [rating_kw(model.rating, model.power_factor)]
        if model.power is not None:
            limits.append(float(model.power.m_as("kW")))
        limits.append((model.modules - 1) * rating_kw(model.module_rating, model.power_factor))
        node: Node = ("chain", ups)
        # nothing moves elsewhere: the UPS itself, on one module fewer, is what is judged
        me = self.survivor(node, self.load[node], min(limits))
        moves = f"{model.modules - 1} of {model.modules} modules carry {ups}'s load"
        return Failure(ups, "ups module", path, "power", moves, me, (me,) * me.over)

    def _moves(self, delta: dict[Node, float], dead: list[str], racks: list[Rack]) -> str:
        """What moves where: the load the racks' live feeds take over, to the highest elements
        that gain it (UPS or transformer, else panel, else feed), and the load lost."""
        gained = {n: d for n, d in delta.items() if d > EPS}
        moved = sum(d for n, d in gained.items() if n[0] == "feed")
        parts = []
        if gained:
            level = next(
                (lv for lv in ("chain", "panel", "feed") if any(n[0] == lv for n in gained)), "feed"
            )
            tops = sorted(((n, d) for n, d in gained.items() if n[0] == level), key=lambda x: -x[1])
            to = ", ".join(f"{n[1]} +{kw_text(d)}" for n, d in tops[:4])
            more = f" and {len(tops) - 4} more" if len(tops) > 4 else ""
            live = len(racks) - len(dead)
            said = [f"{kw_text(moved)} of {live} rack{'s' * (live != 1)}"] if moved > EPS else []
            said += [f"{kw_text(kw)} of {w}" for w, kw in self.extras_moved.items()]
            parts.append(f"{' and '.join(said or ['load'])} to {to}{more}")
        if dead:
            kw = sum(self.rack_kw[r] for r in dead)
            parts.append(f"{kw_text(kw)} lost with {len(dead)} rack{'s' * (len(dead) != 1)}")
        for what, kw in self.extras_lost.items():
            parts.append(f"{kw_text(kw)} of {what} lost")
        return "; ".join(parts) or "nothing below it"
