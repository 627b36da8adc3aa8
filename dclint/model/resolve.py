"""Expand a design's ranges and resolve its references into a Topology, collecting errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from dclint.model.builtin_catalog import Catalog, builtin, merge_raw
from dclint.model.catalog import CatalogData, Platform
from dclint.model.hints import Hints, did_you_mean
from dclint.model.panel_cycles import panel_cycles
from dclint.model.racks import RackFields, RackGroup
from dclint.model.ranges import RangeError, counted, expand, substitute
from dclint.model.source import Path, format_path
from dclint.model.topology import ChainItem, FeedItem, PanelItem, Rack, RefError, Topology
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["did_you_mean", "resolve"]


def _catalog(design: Design, errors: list[RefError]) -> Catalog:
    if not design.catalog:
        return builtin()
    try:
        return Catalog.from_data(
            CatalogData.model_validate(merge_raw(design.catalog), strict=False)
        )
    except ValidationError as exc:
        from dclint.model.value_messages import value_message  # a catalog that does not load

        for err in exc.errors():
            errors.append(RefError(("catalog", *err["loc"]), f"catalog: {value_message(err)}"))
        return builtin()


class _Resolver:
    def __init__(self, design: Design) -> None:
        self.design = design
        self.errors: list[RefError] = []
        self.topo = Topology(design, _catalog(design, self.errors))
        self.hint = Hints()

    def error(self, path: Path, message: str, key: bool = False) -> None:
        self.errors.append(RefError(path, message, key))

    def duplicates(self, path: Path, what: str, dups: list[str]) -> None:
        """One error for all the ids of one entry that were already taken."""
        if len(dups) == 1:
            self.error(path, f"duplicate {what} id '{dups[0]}'")
        elif dups:
            self.error(
                path,
                f"duplicate {what} ids: {len(dups):,} of the ids here are already taken "
                f"('{dups[0]}' to '{dups[-1]}')",
            )

    def ids(self, pattern: str, path: Path) -> list[tuple[str, str]]:
        try:
            return expand(pattern)
        except RangeError as exc:
            self.error(path, str(exc))
            return []

    def run(self) -> Topology:
        self.panels()
        self.feeds()
        self.racks()
        self.cooling()
        self.declared_loads()
        self.workloads()
        return self.topo

    def declared_loads(self) -> None:
        """`fed_by` and `cooled_by` of fabrics, storage tiers and CDUs name known elements."""
        topo, design = self.topo, self.design
        known: dict[str, Any] = {**topo.panels, **topo.chain}
        halls = design.site.halls
        owners: list[tuple[Path, Any]] = [
            *((("fabrics", i), f) for i, f in enumerate(design.fabrics)),
            *((("storage", "tiers", i), t) for i, t in enumerate(design.storage.tiers)),
            *((("cooling", "cdus", i), c) for i, c in enumerate(design.cooling.cdus)),
        ]
        for path, owner in owners:
            for j, ref in enumerate(owner.fed_by or []):
                if ref not in known:
                    self.error(
                        (*path, "fed_by", j),
                        f"unknown power element '{ref}'{self.hint(ref, known)}",
                    )
            cooled = getattr(owner, "cooled_by", None)
            if cooled is not None and cooled not in topo.cdus and cooled not in halls:
                self.error(
                    (*path, "cooled_by"),
                    f"unknown CDU or hall '{cooled}'{self.hint(cooled, {**topo.cdus, **halls})}",
                )

    def panels(self) -> None:
        panels, chain = self.topo.panels, self.topo.chain
        for i, panel in enumerate(self.design.power.panels):
            path: Path = ("power", "panels", i)
            if panel.id in panels:
                self.error((*path, "id"), f"duplicate panel id '{panel.id}'")
                continue
            panels[panel.id] = PanelItem(panel.id, panel, path)
        power = self.design.power
        elements: list[tuple[str, str, Any]] = [
            ("transformer", "transformers", power.transformers),
            ("ups", "ups", power.ups),
        ]
        for kind, section, models in elements:
            for i, model in enumerate(models):
                path = ("power", section, i)
                if model.id in panels or model.id in chain:
                    self.error((*path, "id"), f"duplicate power element id '{model.id}'")
                    continue
                chain[model.id] = ChainItem(model.id, kind, model, path)
        known: dict[str, PanelItem | ChainItem] = {**panels, **chain}
        items: list[PanelItem | ChainItem] = [*panels.values(), *chain.values()]
        for item in items:
            up = item.model.fed_by
            if up is None:
                continue
            parent = known.get(up)
            if parent is None:
                what = "panel" if isinstance(item, PanelItem) and not chain else "power element"
                self.error((*item.path, "fed_by"), f"unknown {what} '{up}'{self.hint(up, known)}")
            else:
                parent.children.append(item)
        self.errors.extend(panel_cycles(known if chain else panels))  # type: ignore[arg-type]
        for item in chain.values():
            for j, ref in enumerate(getattr(item.model, "catches", [])):
                target = chain.get(ref)
                if target is None or target.kind != "ups":
                    self.error(
                        (*item.path, "catches", j), f"unknown UPS '{ref}'{self.hint(ref, chain)}"
                    )
        for i, gen in enumerate(power.generators):
            path = ("power", "generators", i)
            if gen.serves is not None and gen.serves not in known:
                self.error(
                    (*path, "serves"),
                    f"unknown power element '{gen.serves}'{self.hint(gen.serves, known)}",
                )
            self.topo.generators.append((gen, path))

    def feeds(self) -> None:
        feeds, panels = self.topo.feeds, self.topo.panels
        for i, feed in enumerate(self.design.power.feeds):
            path: Path = ("power", "feeds", i)
            dups: list[str] = []
            for fid, _ in self.ids(feed.id, (*path, "id")):
                if fid in feeds:
                    dups.append(fid)
                    continue
                item = FeedItem(fid, feed, path, panel=panels.get(feed.panel or ""))
                feeds[fid] = item
                if feed.panel is not None:
                    if feed.panel in panels:
                        panels[feed.panel].feeds.append(item)
                    else:
                        self.error(
                            (*path, "panel"),
                            f"unknown panel '{feed.panel}'{self.hint(feed.panel, panels)}",
                        )
                        break
            self.duplicates((*path, "id"), "feed", dups)

    def envelope(self, group: RackGroup, path: Path) -> tuple[Quantity | None, Path | None, str]:
        """The rack power envelope the design declares for a rack entry: its row's, else its
        hall's (the rack's own `hall`, or its row's), else the site's."""
        site = self.design.site
        if group.hall is not None and group.hall not in site.halls:
            self.error(
                (*path, "hall"), f"unknown hall '{group.hall}'{self.hint(group.hall, site.halls)}"
            )
        row = site.rows.get(group.row) if group.row is not None else None
        if row is not None and row.rack_power_limit is not None:
            where: Path = ("site", "rows", group.row or "", "rack_power_limit")
            return row.rack_power_limit, where, f"row {group.row}"
        hall_key = group.hall if group.hall is not None else (row.hall if row else None)
        hall = site.halls.get(hall_key) if hall_key is not None else None
        if hall is not None and hall.rack_power_limit is not None:
            where = ("site", "halls", hall_key or "", "rack_power_limit")
            return hall.rack_power_limit, where, f"hall {hall_key}"
        if site.rack_power_limit is not None:
            return site.rack_power_limit, ("site", "rack_power_limit"), "site"
        return None, None, ""

    def halls(self) -> None:
        site = self.design.site
        for key, row in site.rows.items():
            if row.hall is not None and row.hall not in site.halls:
                self.error(
                    ("site", "rows", key, "hall"),
                    f"unknown hall '{row.hall}'{self.hint(row.hall, site.halls)}",
                )

    def racks(self) -> None:
        self.halls()
        topo, types = self.topo, self.design.rack_types
        for i, group in enumerate(self.design.racks):
            path: Path = ("racks", i)
            rtype = None
            if group.type is not None:
                rtype = types.get(group.type)
                if rtype is None:
                    self.error(
                        (*path, "type"),
                        f"unknown rack type '{group.type}'{self.hint(group.type, types)}",
                    )
                    continue
            values, origin = _merge_fields(group, rtype, path, ("rack_types", group.type or ""))
            pkey = values.get("platform")
            platform = topo.catalog.platforms.get(pkey) if pkey else None
            if pkey and platform is None:
                self.error(
                    origin["platform"],
                    f"unknown platform '{pkey}'{self.hint(pkey, topo.catalog.platforms)}",
                )
                continue
            nodes = values.get("nodes") or 1
            load = values.get("it_load")
            if load is None:
                if platform is None:
                    self.error(path, f"rack '{group.id}' has neither it_load nor a platform")
                    continue
                load = platform.power * (nodes if platform.kind == "node" else 1)
                origin["it_load"] = origin["platform"]
            if values.get("extra_load") is not None:
                load = load + values["extra_load"]
            frac = values.get("liquid_fraction")
            if frac is None:
                frac = Q_(platform.liquid_fraction if platform else 0.0, "dimensionless")
                origin["liquid_fraction"] = origin.get("platform", path)
            names = (
                counted(group.id, group.count) if group.count else self.ids(group.id, (*path, "id"))
            )
            envelope = self.envelope(group, path)
            row = self.design.site.rows.get(group.row) if group.row is not None else None
            hall = group.hall if group.hall is not None else (row.hall if row else None)
            weight, footprint = _mass(values, platform, nodes, origin)
            dups: list[str] = []
            for rid, number in names:
                if rid in topo.rack_by_id:
                    dups.append(rid)
                    continue
                rack = Rack(
                    rid,
                    number,
                    path,
                    group.type,
                    pkey,
                    platform,
                    nodes,
                    load,
                    frac,
                    values.get("liquid_cooling_capacity"),
                    values.get("coolant_flow"),
                    group.status,
                    [substitute(f, number) for f in group.feeds],
                    origin,
                    power_capped=bool(values.get("power_capped")),
                )
                rack.power_envelope, rack.power_envelope_path, rack.power_envelope_scope = envelope
                rack.extra_load = values.get("extra_load")
                rack.hall, rack.weight, rack.footprint = hall, weight, footprint
                topo.racks.append(rack)
                topo.rack_by_id[rid] = rack
                for j, fid in enumerate(rack.feed_ids):
                    feed = topo.feeds.get(fid)
                    if feed is None:
                        self.error(
                            (*path, "feeds", j),
                            f"rack '{rid}' names unknown feed '{fid}'{self.hint(fid, topo.feeds)}",
                        )
                        break
                    rack.feeds.append(feed)
                    feed.racks.append(rack)
            self.duplicates((*path, "id"), "rack", dups)

    def rack_refs(self, refs: list[str], path: Path) -> list[Rack]:
        out = []
        for j, pattern in enumerate(refs):
            for rid, _ in self.ids(pattern, (*path, j)):
                rack = self.topo.rack_by_id.get(rid)
                if rack is None:
                    self.error(
                        (*path, j), f"unknown rack '{rid}'{self.hint(rid, self.topo.rack_by_id)}"
                    )
                    break
                out.append(rack)
        return out

    def cooling(self) -> None:
        topo = self.topo
        for i, cdu in enumerate(self.design.cooling.cdus):
            path: Path = ("cooling", "cdus", i)
            if cdu.id in topo.cdus:
                self.error((*path, "id"), f"duplicate CDU id '{cdu.id}'")
            topo.cdus.setdefault(cdu.id, (cdu, path))
        for i, loop in enumerate(self.design.cooling.loops):
            path = ("cooling", "loops", i)
            if loop.cdu not in topo.cdus:
                self.error(
                    (*path, "cdu"), f"unknown CDU '{loop.cdu}'{self.hint(loop.cdu, topo.cdus)}"
                )
            racks = self.rack_refs(loop.racks, (*path, "racks"))
            for rack in racks:
                if rack.loop is not None:
                    self.error(
                        (*path, "racks"),
                        f"rack '{rack.id}' is on two loops ('{rack.loop.id}' and '{loop.id}')",
                    )
                    break
                rack.loop, rack.loop_path = loop, path
            topo.loops.append((loop, path, racks))
        for i, unit in enumerate(self.design.cooling.heat_rejection):
            for j, ref in enumerate(unit.serves or []):
                if ref not in topo.cdus:
                    self.error(
                        ("cooling", "heat_rejection", i, "serves", j),
                        f"unknown CDU '{ref}'{self.hint(ref, topo.cdus)}",
                    )

    def workloads(self) -> None:
        seen: set[str] = set()
        platforms = self.topo.catalog.platforms
        for i, wl in enumerate(self.design.workloads):
            path: Path = ("workloads", i)
            if wl.id in seen:
                self.error((*path, "id"), f"duplicate workload id '{wl.id}'")
            seen.add(wl.id)
            if wl.platform is not None and wl.platform not in platforms:
                self.error(
                    (*path, "platform"),
                    f"unknown platform '{wl.platform}'{self.hint(wl.platform, platforms)}",
                )


def _mass(
    values: dict[str, Any], platform: Platform | None, nodes: int, origin: dict[str, Path]
) -> tuple[Quantity | None, Quantity | None]:
    """A rack's weight and footprint: declared, else the platform's catalog figures (a node's
    weight x nodes); where they come from is recorded in `origin`."""
    weight, footprint = values.get("weight"), values.get("footprint")
    if weight is None and platform is not None and platform.weight is not None:
        weight = platform.weight * (nodes if platform.kind == "node" else 1)
        origin["weight"] = origin["platform"]
    if footprint is None and platform is not None and platform.footprint is not None:
        footprint = platform.footprint
        origin["footprint"] = origin["platform"]
    return weight, footprint


def _merge_fields(
    group: RackFields, rtype: RackFields | None, path: Path, type_path: Path
) -> tuple[dict[str, Any], dict[str, Path]]:
    values: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    for name in RackFields.model_fields:
        own = getattr(group, name)
        if own is not None:
            values[name], origin[name] = own, (*path, name)
        elif rtype is not None and getattr(rtype, name) is not None:
            values[name], origin[name] = getattr(rtype, name), (*type_path, name)
    origin.setdefault("platform", (*path, "type") if rtype is not None else path)
    return values, origin


def resolve(design: Design) -> tuple[Topology, list[RefError]]:
    resolver = _Resolver(design)
    topo = resolver.run()
    return topo, resolver.errors


def topology_of(design: Design) -> Topology:
    """The design's racks, feeds, panels and loops, expanded and cross-referenced: built once
    (by the loader, which reports its errors at their lines; or here, for a design built in
    Python) and kept with the design. The topology points back at its design; the design does
    not know its topology's type."""
    topo: Topology | None = design.__pydantic_private__["_resolved"]  # type: ignore[index]
    if topo is None:
        topo, errors = resolve(design)
        if errors:
            raise ValueError(f"{format_path(errors[0].path)}: {errors[0].message}")
        design._resolved = topo
    return topo
