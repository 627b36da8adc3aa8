"""The review's diagrams as data: the power one-line, the cooling loops and the fabric tiers, as
layered graphs (`Graph`) whose boxes (`Node`) carry each element's load against its capacity.
Racks are grouped by type and row (or by the `racks` entry that wrote them), feeds by panel: a
1,000-rack hall draws as a few dozen boxes, not a thousand.
`dclint.analysis.assess.assessment` builds them once a design; `dclint.report.drawing` draws
them as SVG or Mermaid."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dclint.analysis.summary import DesignSummary, rack_group
from dclint.calc.cooling import cdu_loads, required_flow
from dclint.calc.power import feed_allocation, feed_capacity_kw, panel_allocation, site_load
from dclint.calc.power_chain import FailureCase, chain_loads, failure_cases, generation_loads
from dclint.model.ranges import compact
from dclint.model.resolve import topology_of
from dclint.units import Q_, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.topology import Rack, Topology

__all__ = [
    "Graph",
    "Node",
    "cooling_graph",
    "fabric_graph",
    "flags",
    "grouped",
    "over_text",
    "power_basis",
    "power_graph",
    "rack_group",
    "rack_nodes",
    "share",
]


@dataclass(frozen=True)
class Node:
    """One box: `title` names it, `detail` gives load against capacity; `over` when the load
    exceeds the capacity or a finding names it (`rules`); `binding` marks the limiting tier."""

    key: str
    title: str
    detail: str
    layer: int
    share: float | None = None
    over: bool = False
    rules: tuple[str, ...] = ()
    binding: bool = False
    members: tuple[str, ...] = ()  # the ids a group box stands for
    consequence: str = ""  # what the element's loss takes (power: racks left with no supply)
    over_members: tuple[str, ...] = ()  # every member over its limit (the figure's list)


@dataclass
class Graph:
    name: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, label)
    # the edges as a set: `link` looks each one up once (a scan of the list was quadratic)
    _linked: set[tuple[str, str, str]] = field(default_factory=set, repr=False, compare=False)

    def add(self, node: Node) -> None:
        self.nodes.append(node)

    def link(self, a: str, b: str, label: str = "") -> None:
        edge = (a, b, label)
        if len(self._linked) != len(self.edges):  # edges given or changed outside link()
            self._linked = set(self.edges)
        if edge not in self._linked:
            self._linked.add(edge)
            self.edges.append(edge)

    def layers(self) -> dict[int, list[Node]]:
        """The nodes of each layer, in layer order (one pass, not one a layer)."""
        out: dict[int, list[Node]] = {}
        for n in self.nodes:
            out.setdefault(n.layer, []).append(n)
        return dict(sorted(out.items()))


OVER_INLINE = 24  # characters of the over list a box holds; a longer one is listed under it


def over_text(over: list[str]) -> str:
    """The members over their limit as a box states them: named where the names fit whole,
    else counted ('9, listed under the figures'): a box never drops names at its edge."""
    named = compact(over, most=len(over))
    if len(named) <= OVER_INLINE:
        return named
    return f"{len(over)}, listed under the figures"


TITLE_IDS = 26  # characters of ids a box's title holds whole


def _whole(ids: list[str], noun: str) -> str:
    """Ids as a box's title names them: whole where they fit, else counted ('12 racks')."""
    named = compact(ids, most=len(ids))
    return named if len(named) <= TITLE_IDS else f"{len(ids)} {noun}"


def _family(flagged: dict[str, list[str]], prefix: str) -> dict[str, list[str]]:
    """The findings a diagram marks its elements by: its own family's (a power one-line is
    not red where a fabric finding names a rack: NET004's partition is no power overload)."""
    out = {k: [r for r in v if r.startswith(prefix)] for k, v in flagged.items()}
    return {k: v for k, v in out.items() if v}


def share(load: float, capacity: float) -> float | None:
    return load / capacity if capacity > 0 else None


def flags(ids: Iterable[str], flagged: dict[str, list[str]]) -> tuple[str, ...]:
    return tuple(sorted({r for i in ids for r in flagged.get(i, [])}))


def rack_nodes(
    design: Design, s: DesignSummary, topo: Topology, flagged: dict[str, list[str]], layer: int
) -> tuple[list[Node], dict[str, str]]:
    limits = {r.id: r.limit.m_as("kW") for r in s.rack_loads}
    groups: dict[str, list[Rack]] = {}
    for rack in topo.racks:
        groups.setdefault(rack_group(design, rack), []).append(rack)
    nodes, where = [], {}
    for key, racks in groups.items():
        loads = [r.it_load.m_as("kW") for r in racks]
        over = [r.id for r in racks if r.it_load.m_as("kW") > limits.get(r.id, 1e300) * (1 + 1e-9)]
        limit = max(limits.get(r.id, 0.0) for r in racks)
        ids = [r.id for r in racks]
        spread = (
            f"{min(loads):.4g}-{max(loads):.4g} kW"
            if min(loads) != max(loads)
            else (f"{loads[0]:.4g} kW")
        )
        detail = f"{len(racks)} x {spread} / {limit:.4g} kW limit"
        if over:
            detail += f"; over: {over_text(over)}"
        rules = flags(ids, flagged)
        node_key = f"racks:{key}"
        nodes.append(
            Node(
                node_key,
                f"{_whole(ids, 'racks')} ({key.split(' @ ')[0]})",
                detail,
                layer,
                share(max(loads), limit),
                bool(over or rules),
                rules,
                members=tuple(ids),
                over_members=tuple(i for i in ids if i in over or i in flagged),
            )
        )
        where.update(dict.fromkeys(ids, node_key))
    return nodes, where


def _peak(basis: Mapping[str, bool], need: str) -> bool:
    """Whether the rules that load what `need` names (panels, feeds, site_power) load it with
    the racks' peak: a rule with a `design_load` option and that need (PanelOverloaded and so
    on, found through what they declare, not by id) has it off in the options in effect."""
    return basis.get(need, True)


UPSTREAM = "upstream"  # the basis of the elements above the panels (power_basis)


def power_basis(
    rules: Mapping[str, Any], options: Mapping[str, Mapping[str, Any]]
) -> dict[str, bool]:
    """need -> whether the rules with a `design_load` option that need it load at peak. The
    rules with a `design_load` option and no need (UPS, transformer, generator: they apply to
    whatever the design declares above its panels) set the basis of `UPSTREAM`."""
    found: dict[str, bool] = {}
    for rid, rule in rules.items():
        if "design_load" not in getattr(rule, "options", {}) or rid not in options:
            continue
        for need in getattr(rule, "needs", ()) or (UPSTREAM,):
            peak = not options[rid].get("design_load", False)
            found[need] = found.get(need, True) and peak
    return found


def _basis(peak: bool) -> str:
    return "at peak" if peak else "at design load"


def power_graph(
    design: Design,
    s: DesignSummary,
    flagged: dict[str, list[str]],
    basis: Mapping[str, bool] | None = None,
) -> Graph | None:
    """Utility and generator sets -> transformers, UPS systems, switchboards, panels and
    busways (by `fed_by` depth) -> feeds (grouped by panel) -> rack groups. Each box carries the
    load its rules check (`basis`, from power_basis: the site's, panels' and feeds' rules load
    the racks' peak, catalog max_power, unless their `design_load` option or `power_capped` says
    the design load; UPS systems and transformers as PWR009/PWR011 count them, with spare
    modules out; generator sets as PWR012, IT x PUE with the spare sets out), labelled, and the
    consequence of its loss where that leaves racks with no supply (PWR013's failure cases)."""
    topo = topology_of(design)
    if not topo.panels and not topo.feeds and not topo.chain:
        return None
    p = _PowerDrawing(design, topo, _family(flagged, "PWR"), basis or {})
    p.utility()
    p.chain()
    p.catchers()
    p.panels()
    p.generators()
    racks = p.feeds(s)
    for node in racks:
        p.g.add(node)
    return p.g


class _PowerDrawing:
    """The power graph drawn step by step: the utility, the chain (UPS systems, transformers,
    switchboards), the catchers' links, the panels, the generator sets, the feeds and racks."""

    def __init__(
        self,
        design: Design,
        topo: Topology,
        flagged: dict[str, list[str]],
        basis: Mapping[str, bool],
    ) -> None:
        self.design, self.topo, self.flagged = design, topo, flagged
        self.g = Graph("power")
        self.site_peak, self.panel_peak, self.feed_peak, self.up_peak = (
            _peak(basis, n) for n in ("site_power", "panels", "feeds", UPSTREAM)
        )
        self.cases = failure_cases(topo)
        self.lost = _losses(self.cases)
        self.depth: dict[str, int] = {}

    def key(self, element: str | None) -> str:
        """The box of a `fed_by` target, resolved as the failure cases resolve it."""
        if element in self.topo.chain:
            return f"chain:{element}"
        if element in self.topo.panels:
            return f"panel:{element}"
        return "utility"

    def level(self, eid: str, seen: tuple[str, ...] = ()) -> int:
        """An element's `fed_by` depth below the utility (0: fed by the utility)."""
        depth = self.depth
        if eid not in depth:
            item = self.topo.chain.get(eid) or self.topo.panels[eid]
            parent = item.model.fed_by
            if parent is not None and self.key(parent) != "utility" and parent not in seen:
                depth[eid] = self.level(str(parent), (*seen, eid)) + 1
            else:
                depth[eid] = 0
        return depth[eid]

    def utility(self) -> None:
        design, topo = self.design, self.topo
        facility_q = Q_(site_load(topo, self.site_peak).m_as("kW") * design.site.pue, "kW")
        facility = facility_q.m_as("kW")
        cap = design.site.utility_power
        capacity = cap.m_as("kW") if cap is not None else 0.0
        self.g.add(
            Node(
                "utility",
                "utility",
                f"{fmt(facility_q)} facility ({_basis(self.site_peak)} x PUE {design.site.pue:g})"
                + (f" / {fmt(cap)}" if cap is not None else " (capacity not given)"),
                0,
                share(facility, capacity),
                cap is not None and facility > capacity,
                flags(["site", "utility"], self.flagged),
            )
        )

    def chain(self) -> None:
        """UPS systems, transformers and switchboards, as PWR009/PWR011 load them."""
        up_peak = self.up_peak
        loads = chain_loads(self.topo, up_peak)
        for cid, item in self.topo.chain.items():
            load = loads[cid]
            rules = flags([cid], self.flagged)
            caught = [loads[c] for c in getattr(item.model, "catches", None) or [] if c in loads]
            carried = load.load_kw
            detail = f"{carried:.4g} kW {_basis(up_peak)}"
            if caught:  # as PWR009 checks a catcher: its own load and the largest it takes over
                taken = max(caught, key=lambda c: c.load_kw)
                carried += taken.load_kw
                detail = (
                    f"{carried:.4g} kW {_basis(up_peak)} taking over {taken.id} (catcher for "
                    f"{', '.join(c.id for c in caught)})"
                )
            if load.includes:  # what the carried load is made of, where it is more than racks
                detail += f" ({load.includes})"
            detail += (
                f" / {load.capacity_kw:.4g} kW ({load.capacity_text}; "
                f"{load.capacity_kw - carried:.4g} kW free)"
            )
            self.g.add(
                Node(
                    f"chain:{cid}",
                    f"{cid} ({'UPS' if item.kind == 'ups' else item.kind})",
                    detail,
                    self.level(cid) + 1,
                    share(carried, load.capacity_kw),
                    carried > load.capacity_kw * (1 + 1e-9) or bool(rules),
                    rules,
                    consequence=self.lost.get(("chain", cid), ""),
                )
            )
            self.g.link(self.key(item.model.fed_by), f"chain:{cid}")

    def catchers(self) -> None:
        """A catcher UPS to what the UPS systems it backs up feed."""
        chain = self.topo.chain
        for cid, item in chain.items():
            for caught_id in getattr(item.model, "catches", None) or []:
                for child in getattr(chain.get(caught_id), "children", []):
                    self.g.link(f"chain:{cid}", self.key(child.id), f"catches {caught_id}")

    def panels(self) -> None:
        for pid, panel in self.topo.panels.items():
            load = panel_allocation(self.topo, panel, peak=self.panel_peak).m_as("kW")
            pcap = panel.capacity.m_as("kW")
            rules = flags([pid], self.flagged)
            drawn = _basis(self.panel_peak and not panel.model.power_capped)
            self.g.add(
                Node(
                    f"panel:{pid}",
                    f"{pid} ({panel.model.kind})",
                    f"{load:.4g} kW {drawn} / {pcap:.4g} kW derated ({pcap - load:.4g} kW free)",
                    self.level(pid) + 1,
                    share(load, pcap),
                    load > pcap or bool(rules),
                    rules,
                    consequence=self.lost.get(("panel", pid), ""),
                )
            )
            self.g.link(self.key(panel.model.fed_by), f"panel:{pid}")

    def generators(self) -> None:
        """Generator sets as PWR012 counts them: IT x PUE with the spare sets out."""
        g, up_peak = self.g, self.up_peak
        for gl in generation_loads(self.topo, up_peak):
            gen = gl.generator
            rules = flags([gen.id], self.flagged)
            red = f"N+{gen.redundant}" if gen.redundant else "N"
            g.add(
                Node(
                    f"gen:{gen.id}",
                    f"{gen.id} ({gen.count} generator{'s' * (gen.count != 1)}, {red})",
                    f"{gl.load_kw:.4g} kW facility ({_basis(up_peak)} x {_pue(self.design)}) / "
                    f"{gl.firm_kw:.4g} kW firm ({gen.count - gen.redundant} of {gen.count} at "
                    f"{fmt(gen.site_rating)} {gen.rating_class}; serves {gl.serves})",
                    0,
                    share(gl.load_kw, gl.firm_kw),
                    gl.load_kw > gl.firm_kw * (1 + 1e-9) or bool(rules),
                    rules,
                )
            )
            if gen.serves is not None and self.key(gen.serves) != "utility":
                g.link(f"gen:{gen.id}", self.key(gen.serves), "backs up")
            else:  # the whole site: what the utility feeds
                for b in [b for a, b, _ in g.edges if a == "utility"]:
                    g.link(f"gen:{gen.id}", b, "backs up")

    def feeds(self, s: DesignSummary) -> list[Node]:
        """A box of feeds a panel, linked to the rack groups they feed; the rack groups' boxes
        (added last)."""
        topo, g, feed_peak = self.topo, self.g, self.feed_peak
        deepest = max((self.level(e) for e in [*topo.chain, *topo.panels]), default=-1)
        by_feed = {
            c.element: len(c.racks_lost) for c in self.cases if c.kind == "feed" and c.racks_lost
        }
        alloc, caps = feed_allocation(topo, feed_peak), feed_capacity_kw(topo)
        by_panel: dict[str, list[str]] = {}
        for fid, feed in topo.feeds.items():
            by_panel.setdefault(feed.panel.id if feed.panel else "", []).append(fid)
        racks, where = rack_nodes(self.design, s, topo, self.flagged, deepest + 3)
        for pid, fids in by_panel.items():
            shares = {f: alloc[f].m_as("kW") / caps[f] if caps[f] else float("inf") for f in fids}
            worst = max(fids, key=lambda f: shares[f])
            over = [f for f in fids if shares[f] > 1 + 1e-9]
            rules = flags(fids, self.flagged)
            detail = (
                f"worst {alloc[worst].m_as('kW'):.4g} kW {_basis(feed_peak)} / "
                f"{caps[worst]:.4g} kW derated"
            )
            if over:
                detail += f"; over: {over_text(over)}"
            key_ = f"feeds:{pid}"
            g.add(
                Node(
                    key_,
                    f"{len(fids)} feed{'s' * (len(fids) > 1)} "
                    + (compact(fids) if _whole(fids, "") == compact(fids) else f"of {pid}"),
                    detail,
                    deepest + 2,
                    shares[worst],
                    bool(over or rules),
                    rules,
                    members=tuple(fids),
                    consequence=_feed_losses(fids, by_feed),
                    over_members=tuple(f for f in fids if f in over or f in self.flagged),
                )
            )
            g.link(f"panel:{pid}" if pid else "utility", key_)
            for fid in fids:
                for rack in topo.feeds[fid].racks:
                    g.link(key_, where[rack.id])
        return racks


def _losses(cases: list[FailureCase]) -> dict[tuple[str, str], str]:
    """('chain' | 'panel' | 'feed', id) -> 'loss of UPS ups-1: 2 racks (r[2-3], 200 kW) lose
    all supply', for each element whose single loss leaves racks with no supply."""
    out: dict[tuple[str, str], str] = {}
    for case in cases:
        if not case.racks_lost:
            continue
        room = (
            "feed"
            if case.kind == "feed"
            else ("chain" if case.kind in ("ups", "transformer") else "panel")
        )
        n = len(case.racks_lost)
        name = "UPS" if case.kind == "ups" else case.kind
        out[(room, case.element)] = (
            f"loss of {name} {case.element}: {n} rack{'s' * (n != 1)} "
            f"({compact(list(case.racks_lost))}, {case.load_lost_kw:.4g} kW) "
            f"lose{'s' * (n == 1)} all supply"
        )
    return out


def cooling_graph(design: Design, s: DesignSummary, flagged: dict[str, list[str]]) -> Graph | None:
    """CDUs (heat and flow against capacity) -> loops -> rack groups."""
    topo = topology_of(design)
    if not topo.cdus:
        return None
    g = Graph("cooling")
    flagged = _family(flagged, "CLG")
    for cid, load in cdu_loads(topo).items():
        heat, cap = load.heat.m_as("kW"), load.cdu.capacity.m_as("kW")
        flow, top = load.flow.m_as("L/min"), load.cdu.max_flow.m_as("L/min")
        rules = flags([cid], flagged)
        share = max(heat / cap if cap else 0.0, flow / top if top else 0.0)
        made = f" kW ({load.includes})" if load.includes else ""  # where more than racks
        detail = f"heat {heat:.4g}{made} / {cap:.4g} kW; flow {flow:.4g} / {top:.4g} L/min"
        cdu = load.cdu
        if cdu.facility_flow is not None and cdu.facility_temperature_rise is not None:
            need = required_flow(load.heat, cdu.facility_coolant, cdu.facility_temperature_rise)
            given = cdu.facility_flow.m_as("L/min")
            detail += f"; facility {need.m_as('L/min'):.4g} / {given:.4g} L/min"  # CLG007
            share = max(share, need.m_as("L/min") / given)
        g.add(
            Node(
                f"cdu:{cid}",
                f"CDU {cid}",
                detail,
                0,
                share,
                share > 1 + 1e-9 or bool(rules),
                rules,
            )
        )
    racks, where = rack_nodes(design, s, topo, flagged, 2)
    for loop, _, loop_racks in topo.loops:
        rules = flags([loop.id], flagged)
        key = f"loop:{loop.id}"
        g.add(
            Node(
                key,
                f"loop {loop.id} ({loop.coolant})",
                f"{fmt(loop.supply_temperature)} supply, {fmt(loop.return_temperature)} "
                f"return; {len(loop_racks)} racks",
                1,
                None,
                bool(rules),
                rules,
            )
        )
        if loop.cdu in topo.cdus:
            g.link(f"cdu:{loop.cdu}", key)
        for rack in loop_racks:
            g.link(key, where[rack.id])
    used = {b for _, b, _ in g.edges}
    for node in racks:
        if node.key in used:
            g.add(node)
    return g


_BASE = 64  # layer of a fabric's endpoints; tier n sits n layers above them


def fabric_graph(s: DesignSummary, flagged: dict[str, list[str]]) -> Graph | None:
    """Each fabric's tiers from the GPUs up, with down:up ratios; the binding tier (highest
    ratio against its limit) marked."""
    if not s.tiers:
        return None
    g = Graph("fabric")
    flagged = _family(flagged, "NET")
    fabrics: dict[str, list[int]] = {}
    for i, t in enumerate(s.tiers):
        fabrics.setdefault(t.fabric, []).append(i)
    for fabric, idx in fabrics.items():
        tiers = [s.tiers[i] for i in idx]

        def weight(t: object) -> float:
            ratio = getattr(t, "ratio", None)
            limit = getattr(t, "limit", None)
            return -1.0 if ratio is None else ratio / (limit or 1.0)

        binding = max(tiers, key=weight)
        # the top tier first: a fabric is drawn as it is pictured, spines above leaves
        g.add(Node(f"ep:{fabric}", f"fabric {fabric} ({tiers[0].kind})", "endpoints", _BASE))
        below = f"ep:{fabric}"
        for t in sorted(tiers, key=lambda t: t.level):
            key = f"tier:{fabric}.{t.tier}"
            rules = flags([f"{fabric}.{t.tier}", fabric], flagged)
            if t.ratio is None:
                detail = f"{fmt(t.down.to('Tb/s'))} down, top tier"
            elif t.down.magnitude == 0:  # leaf-spine links and no endpoint links (NET004)
                detail = f"no endpoint links / {fmt(t.up.to('Tb/s'))} up"  # type: ignore[union-attr]
            else:
                limit = f" (limit {t.limit:g}:1)" if t.limit is not None else ""
                detail = (
                    f"{fmt(t.down.to('Tb/s'))} down / {fmt(t.up.to('Tb/s'))} up"  # type: ignore[union-attr]
                    f" = {t.ratio:.2f}:1{limit}"
                )
            over = t.ratio is not None and t.limit is not None and t.ratio > t.limit * (1 + 1e-9)
            g.add(
                Node(
                    key,
                    f"{t.tier}: {t.switches} switches",
                    detail,
                    _BASE - t.level,
                    None,
                    over or bool(rules),
                    rules,
                    binding=t is binding and bool(t.ratio),
                )
            )
            g.link(key, below)
            below = key
    return g


def _feed_losses(fids: list[str], by_feed: Mapping[str, int]) -> str:
    """'loss of one feed: 1 rack loses all supply' where a feed of the group is some rack's
    only supply (the most racks one feed of the group takes)."""
    worst = max((by_feed.get(f, 0) for f in fids), default=0)
    if not worst:
        return ""
    return (
        f"loss of {'one feed' if len(fids) > 1 else fids[0]}: {worst} rack"
        f"{'s' * (worst != 1)} lose{'s' * (worst == 1)} all supply"
    )


def grouped(g: Graph) -> Graph:
    """`g` with identical siblings drawn as one box: elements of one kind in one layer with the
    same figures, the same findings and the same (grouped) parents become "24 x bw-a[01-24]
    (busway)", each figure stated once with "each". Edges follow their ends' groups, once."""
    group_of: dict[str, str] = {}
    parents: dict[str, set[str]] = {}
    for a, b, _ in g.edges:
        parents.setdefault(b, set()).add(a)
    out = Graph(g.name)
    for layer, nodes_in_layer in g.layers().items():
        alike: dict[tuple[Any, ...], list[Node]] = {}
        for n in nodes_in_layer:
            above = frozenset(group_of.get(p, p) for p in parents.get(n.key, ()))
            kind = n.key.split(":", 1)[0]
            same = (kind, n.detail, n.share, n.over, n.rules, n.binding, n.consequence, above)
            alike.setdefault(same, []).append(n)
        for nodes in alike.values():
            first = nodes[0]
            if len(nodes) == 1:
                out.add(first)
                continue
            ids = [n.key.split(":", 1)[-1] for n in nodes]
            first_id = ids[0]
            title = first.title
            if first.members and compact(first.members) in title:  # "10 feeds tap-a[001-010]"
                every = [m for n in nodes for m in n.members]
                title = title.replace(compact(first.members), compact(every), 1)
            elif first_id in title:
                title = title.replace(first_id, compact(ids), 1)
            members = tuple(m for n in nodes for m in (n.members or (n.key.split(":", 1)[-1],)))
            key = f"{first.key}+{len(nodes) - 1}"  # unique: the first member's key is
            group_of.update(dict.fromkeys((n.key for n in nodes), key))
            out.add(
                Node(
                    key,
                    f"{len(nodes)} x {title}",
                    f"each {first.detail}",
                    layer,
                    first.share,
                    first.over,
                    first.rules,
                    first.binding,
                    members,
                    first.consequence,
                    tuple(m for n in nodes for m in n.over_members),
                )
            )
    for a, b, label in g.edges:
        out.link(group_of.get(a, a), group_of.get(b, b), label)
    return out


def _pue(design: Design) -> str:
    """The PUE the generators are sized on, as PWR012 names it: the design day's where
    declared."""
    pue = design.site.sizing_pue[0]
    return f"design-day PUE {pue:g}" if design.site.design_pue is not None else f"PUE {pue:g}"
