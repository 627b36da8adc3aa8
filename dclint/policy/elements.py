"""What a policy can judge: the design's elements by kind, each with its fields, typed.

A *kind* (`racks`, `feeds`, `tiers`, `workloads`, `design`, ...) lists elements of the loaded
design; each element has an id, the design path it was written at (where a finding points)
and fields. A field is read from the design model as written (`voltage`, `hall`), a relation
to other elements (`feeds` of a rack, `panel` of a feed), or a computed, read-only fact the
engine already has (a feed's derated `capacity`, a rack's `peak_load`, a tier's
`oversubscription`, a workload's `predicted_step`). Each field has a type (a quantity of one
dimension, a number, a ratio, text, a flag, an element, a list of elements, a nested section)
that the policy loader checks every condition against before anything runs.

This module names no policy syntax: dclint.policy.format reads policies, dclint.policy.evaluate
judges elements.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from dclint.model.source import Path

__all__ = ["KINDS", "Context", "Element", "FieldSpec", "FieldType", "Kind", "context_for"]


@dataclass(frozen=True)
class FieldType:
    """A field's type. `kind` is one of quantity, number, ratio, text, bool, element,
    elements, section, list, any. `dim` is a quantity's dclint.model.types.Dim (None for a
    share, a dimensionless fraction); `target` an element kind; `section` a nested model."""

    kind: str
    dim: Any = None
    target: str = ""
    section: Any = None
    choices: tuple[Any, ...] = ()
    item: FieldType | None = None

    def describe(self) -> str:
        if self.kind == "quantity":
            return self.dim.kind if self.dim is not None else "share"
        if self.kind == "element":
            return f"one of {self.target}"
        if self.kind == "elements":
            return f"list of {self.target}"
        if self.kind == "list" and self.item is not None:
            return f"list of {self.item.describe()}"
        if self.choices:
            return f"{self.kind}: " + ", ".join(map(str, self.choices))
        return self.kind

    @property
    def unit(self) -> str:
        """The unit a quantity's values are compared in (its dimension's example unit)."""
        if self.kind != "quantity":
            return ""
        return "" if self.dim is None else self.dim.example.split(" ", 1)[1]


SHARE = FieldType("quantity")
NUMBER, TEXT, BOOL, RATIO, ANY = (FieldType(k) for k in ("number", "text", "bool", "ratio", "any"))


def _quantity(example: str, kind: str) -> FieldType:
    from dclint.model.types import Dim

    return FieldType("quantity", dim=Dim(example, kind))


class Element:
    """One element of a kind: `obj` is the model or topology record it reads."""

    __slots__ = ("extra", "id", "kind", "model", "obj", "path")

    def __init__(
        self, kind: str, id: str, path: Path, obj: Any, model: Any = None, extra: Any = None
    ) -> None:
        self.kind, self.id, self.path, self.obj, self.extra = kind, id, path, obj, extra
        self.model = obj if model is None else model  # what model fields are read from


@dataclass(frozen=True)
class FieldSpec:
    """A field of a kind: its type, its doc, how to read it and where it is written."""

    type: FieldType
    doc: str
    get: Callable[[Element, Context], Any]
    at: Callable[[Element], Path] | None = None  # where it is written (None: the element)
    computed: bool = False


@dataclass(frozen=True)
class Kind:
    name: str
    singular: str
    doc: str
    fields: dict[str, FieldSpec]
    elements: Callable[[Context], list[Element]]


@dataclass
class Context:
    """The elements of one design, by kind, built on first use and kept with the design."""

    design: Any
    _lists: dict[str, list[Element]] = field(default_factory=dict)
    _by_id: dict[str, dict[str, Element]] = field(default_factory=dict)
    _kept: dict[Any, Any] = field(default_factory=dict)

    @property
    def topology(self) -> Any:
        from dclint.model.resolve import topology_of

        return topology_of(self.design)

    def of(self, kind: str) -> list[Element]:
        found = self._lists.get(kind)
        if found is None:
            found = self._lists[kind] = KINDS[kind].elements(self)
        return found

    def by_id(self, kind: str, id: str | None) -> Element | None:
        if id is None:
            return None
        table = self._by_id.get(kind)
        if table is None:
            table = self._by_id[kind] = {e.id: e for e in self.of(kind)}
        return table.get(id)

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        if key not in self._kept:
            self._kept[key] = compute()
        return self._kept[key]


def context_for(design: Any) -> Context:
    """The policy context of `design`, one a design (kept in its topology's derived figures)."""
    from dclint.model.resolve import topology_of

    return topology_of(design).derived.once(context_for, lambda: Context(design))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------------------------
# Field types from the design models' annotations


def type_of(annotation: Any, metadata: tuple[Any, ...] = ()) -> FieldType:
    """The FieldType of a model field's annotation (and pydantic's metadata for it)."""
    from dclint.model.types import Dim, _Fraction

    for meta in metadata:
        if isinstance(meta, Dim):
            return FieldType("quantity", dim=meta)
        if isinstance(meta, _Fraction):
            return SHARE
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_of(args[0], tuple(args[1:]))
    if origin in (typing.Union, types.UnionType):
        kinds = [type_of(a) for a in args if a is not type(None)]
        if len(kinds) == 1:
            return kinds[0]
        if all(k.kind == "text" for k in kinds):
            return TEXT
        return ANY
    if origin is typing.Literal:
        if all(isinstance(a, bool) for a in args):
            return BOOL
        if all(isinstance(a, str) for a in args):
            return FieldType("text", choices=tuple(args))
        if all(isinstance(a, (int, float)) for a in args):
            return FieldType("number", choices=tuple(args))
        return ANY
    if origin is list:
        return FieldType("list", item=type_of(args[0]) if args else ANY)
    if annotation is bool:
        return BOOL
    if annotation in (int, float):
        return NUMBER
    if annotation is str:
        return TEXT
    if isinstance(annotation, type) and isinstance(
        getattr(annotation, "__pydantic_fields__", None), dict
    ):
        return FieldType("section", section=annotation)
    return ANY


def section_fields(model: Any) -> dict[str, tuple[FieldType, str]]:
    """(type, doc) of each field of a nested model section (a workload's `checkpoint`)."""
    return _model_types(model)


@cache
def _model_types(model: Any) -> dict[str, tuple[FieldType, str]]:
    from dclint.model.types import fields_of

    out = {}
    for name, info in fields_of(model).items():
        out[name] = (type_of(info.annotation, tuple(info.metadata)), info.description or "")
    return out


def _model_fields(model: Any, skip: tuple[str, ...] = ()) -> dict[str, FieldSpec]:
    """A FieldSpec for each field of a design model, read from the element's `obj` (or its
    `extra`, the model, where `obj` is a topology record) and located at its key."""
    out = {}
    for name, (ftype, doc) in _model_types(model).items():
        if name in skip:
            continue
        out[name] = FieldSpec(ftype, doc, _attr(name), _key(name))
    return out


def _attr(name: str) -> Callable[[Element, Context], Any]:
    def get(e: Element, c: Context) -> Any:
        return getattr(e.model, name, None)

    return get


def _key(name: str) -> Callable[[Element], Path]:
    return lambda e: (*e.path, name)


def _computed(ftype: FieldType, doc: str, get: Callable[[Element, Context], Any]) -> FieldSpec:
    return FieldSpec(ftype, doc, get, None, computed=True)


def _relation(ftype: FieldType, doc: str, get: Callable[[Element, Context], Any]) -> FieldSpec:
    return FieldSpec(ftype, doc, get, None)


def _elements(target: str) -> FieldType:
    return FieldType("elements", target=target)


def _element(target: str) -> FieldType:
    return FieldType("element", target=target)


_ID = FieldSpec(TEXT, "The element's id (a hall's or rack type's key)", lambda e, c: e.id)


# ---------------------------------------------------------------------------------------------
# The kinds


_Add = Callable[[str, str, str, dict[str, FieldSpec], Any], None]


def _kinds() -> dict[str, Kind]:
    """Every kind of element a policy can select, with its fields."""
    power = _quantity("120 kW", "power")
    kinds: dict[str, Kind] = {}

    def add(name: str, singular: str, doc: str, fields: dict[str, FieldSpec], make: Any) -> None:
        kinds[name] = Kind(name, singular, doc, {"id": _ID, **fields}, make)

    _rack_kinds(add, power)
    _power_kinds(add, power)
    _cooling_kinds(add, power)
    _fabric_kinds(add)
    _storage_and_workload_kinds(add)
    _design_kind(add, power, list(kinds))
    return kinds


def _rack_kinds(add: _Add, power: FieldType) -> None:
    """Racks (one element per physical rack) and rack types."""
    from dclint.model.racks import RackGroup, RackType

    # racks: one element per physical rack (ranges and counts expanded)
    rack_fields = {
        k: FieldSpec(v.type, v.doc, v.get, _rack(k))
        for k, v in _model_fields(RackGroup, ("id", "count", "feeds", "type", "status")).items()
    }
    rack_fields.update(
        {
            "type": FieldSpec(TEXT, "Rack type key", lambda e, c: e.obj.type_key, _key("type")),
            "platform": FieldSpec(
                TEXT, "Platform catalog key", lambda e, c: e.obj.platform_key, _rack("platform")
            ),
            "nodes": FieldSpec(
                NUMBER, "Nodes in the rack", lambda e, c: e.obj.nodes, _rack("nodes")
            ),
            "it_load": FieldSpec(
                power,
                "Design IT load (declared, or the platform's)",
                lambda e, c: e.obj.it_load,
                _rack("it_load"),
            ),
            "liquid_fraction": FieldSpec(
                SHARE,
                "Share of heat to liquid",
                lambda e, c: e.obj.liquid_fraction,
                _rack("liquid_fraction"),
            ),
            "status": FieldSpec(
                FieldType("text", choices=("active", "planned")),
                "active or planned",
                lambda e, c: e.obj.status,
                _key("status"),
            ),
            "hall": FieldSpec(
                TEXT,
                "The hall it stands in (its own, or its row's)",
                lambda e, c: e.obj.hall,
                _key("hall"),
            ),
            "weight": FieldSpec(
                _quantity("1360 kg", "mass"),
                "Weight (declared or the platform's)",
                lambda e, c: e.obj.weight,
                _rack("weight"),
            ),
            "footprint": FieldSpec(
                _quantity("0.64 m^2", "area"),
                "Footprint",
                lambda e, c: e.obj.footprint,
                _rack("footprint"),
            ),
            "power_capped": FieldSpec(
                BOOL, "Power-capped", lambda e, c: e.obj.power_capped, _rack("power_capped")
            ),
            "row": FieldSpec(TEXT, "The row it stands in", _rack_row, _key("row")),
            "platform_kind": _computed(
                FieldType("text", choices=("rack", "node")),
                "Its platform's kind: a rack-scale system or a server node",
                lambda e, c: e.obj.platform.kind if e.obj.platform is not None else None,
            ),
            "gpus": _computed(NUMBER, "GPUs in the rack", lambda e, c: e.obj.gpus),
            "gpus_per_node": _computed(
                NUMBER,
                "GPUs in one node of a server-node platform (none for a rack-scale one)",
                _gpus_per_node,
            ),
            "peak_load": _computed(
                power,
                "Most it can draw: the platform's max_power x nodes, or it_load if higher",
                lambda e, c: e.obj.peak_load,
            ),
            "power_limit": _computed(
                power,
                "The rack power envelope declared for its row, hall or site",
                lambda e, c: e.obj.power_envelope,
            ),
            "phases": _computed(
                NUMBER,
                "Fewest phases among its feeds",
                lambda e, c: min((f.model.phases for f in e.obj.feeds), default=None),
            ),
            "feeds": _relation(
                _elements("feeds"),
                "The feeds it draws from",
                lambda e, c: [c.by_id("feeds", f.id) for f in e.obj.feeds],
            ),
            "loop": _relation(
                _element("loops"),
                "The cooling loop it is on",
                lambda e, c: c.by_id("loops", e.obj.loop.id) if e.obj.loop else None,
            ),
        }
    )
    add(
        "racks",
        "rack",
        "Every physical rack, ranges and counts expanded",
        rack_fields,
        lambda c: [Element("racks", r.id, r.path, r, r) for r in c.topology.racks],
    )

    add(
        "rack_types",
        "rack_type",
        "Each `rack_types` entry",
        _model_fields(RackType),
        lambda c: [
            Element("rack_types", k, ("rack_types", k), v) for k, v in c.design.rack_types.items()
        ],
    )


def _power_kinds(add: _Add, power: FieldType) -> None:
    """Feeds, panels, UPS systems, transformers and generator sets."""
    from dclint.model.power_chain import Generator, Transformer, Ups
    from dclint.model.site import Feed, Panel

    feed_fields = _model_fields(Feed, ("id", "panel"))
    feed_fields.update(
        {
            "panel": _relation(
                _element("panels"),
                "The panel it hangs from",
                lambda e, c: c.by_id("panels", e.obj.panel.id) if e.obj.panel else None,
            ),
            "racks": _relation(
                _elements("racks"),
                "The racks it feeds",
                lambda e, c: [c.by_id("racks", r.id) for r in e.obj.racks],
            ),
            "capacity": _computed(
                power,
                "Derated capacity (V x I x PF x max utilisation)",
                lambda e, c: e.obj.capacity,
            ),
            "load": _computed(
                power,
                "Design load allocated to it (a rack's load on each path)",
                lambda e, c: _feed_load(c, False).get(e.id),
            ),
            "peak_load": _computed(
                power,
                "Peak load allocated to it (racks at max_power)",
                lambda e, c: _feed_load(c, True).get(e.id),
            ),
        }
    )
    add(
        "feeds",
        "feed",
        "Every power feed, ranges expanded",
        feed_fields,
        lambda c: [Element("feeds", f.id, f.path, f, f.model) for f in c.topology.feeds.values()],
    )

    panel_fields = _model_fields(Panel, ("id",))
    panel_fields.update(
        {
            "feeds": _relation(
                _elements("feeds"),
                "The feeds hanging from it",
                lambda e, c: [c.by_id("feeds", f.id) for f in e.obj.feeds],
            ),
            "capacity": _computed(
                power,
                "Derated capacity (or the nameplate rating if lower)",
                lambda e, c: e.obj.capacity,
            ),
        }
    )
    add(
        "panels",
        "panel",
        "Every panel (busway, switchboard)",
        panel_fields,
        lambda c: [Element("panels", p.id, p.path, p, p.model) for p in c.topology.panels.values()],
    )

    for name, singular, model, doc in (
        ("ups", "ups", Ups, "Every UPS system (power.ups)"),
        ("transformers", "transformer", Transformer, "Every transformer (power.transformers)"),
    ):
        add(name, singular, doc, _model_fields(model, ("id",)), _chain(name, singular))

    add(
        "generators",
        "generator",
        "Every generator set (power.generators)",
        _model_fields(Generator, ("id",)),
        lambda c: [Element("generators", g.id, p, g) for g, p in c.topology.generators],
    )


def _cooling_kinds(add: _Add, power: FieldType) -> None:
    """CDUs, loops, halls and their air handlers."""
    from dclint.model.cooling import AirHandlers, Cdu, Loop
    from dclint.model.site import Hall

    cdu_fields = _model_fields(Cdu, ("id",))
    cdu_fields.update(
        {
            "heat": _computed(
                power, "Liquid heat on its loops", lambda e, c: _cdu_load(c, e.id, "heat")
            ),
            "flow": _computed(
                _quantity("150 L/min", "volume flow"),
                "Flow its loops need",
                lambda e, c: _cdu_load(c, e.id, "flow"),
            ),
            "loops": _relation(
                _elements("loops"),
                "The loops it serves",
                lambda e, c: [x for x in c.of("loops") if x.obj.cdu == e.id],
            ),
        }
    )
    add(
        "cdus",
        "cdu",
        "Every coolant distribution unit",
        cdu_fields,
        lambda c: [Element("cdus", k, p, m) for k, (m, p) in c.topology.cdus.items()],
    )

    loop_fields = _model_fields(Loop, ("id", "cdu", "racks"))
    loop_fields.update(
        {
            "cdu": _relation(
                _element("cdus"), "The CDU it hangs from", lambda e, c: c.by_id("cdus", e.obj.cdu)
            ),
            "racks": _relation(
                _elements("racks"),
                "The racks on it",
                lambda e, c: [c.by_id("racks", r.id) for r in e.extra],
            ),
        }
    )
    add(
        "loops",
        "loop",
        "Every cooling loop",
        loop_fields,
        lambda c: [Element("loops", m.id, p, m, extra=racks) for m, p, racks in c.topology.loops],
    )

    hall_fields = _model_fields(Hall)
    hall_fields.update(
        {
            "racks": _relation(
                _elements("racks"),
                "The racks standing in it",
                lambda e, c: [r for r in c.of("racks") if r.obj.hall == e.id],
            ),
            "cdus": _relation(
                _elements("cdus"),
                "The CDUs whose loops cool its racks, and the others of their redundancy groups",
                _hall_cdus,
            ),
            "it_load": _computed(
                power,
                "Design IT load of its racks",
                lambda e, c: _sum_kw(r.obj.it_load for r in c.of("racks") if r.obj.hall == e.id),
            ),
        }
    )
    add(
        "halls",
        "hall",
        "Each data hall (site.halls)",
        hall_fields,
        lambda c: [
            Element("halls", k, ("site", "halls", k), v) for k, v in c.design.site.halls.items()
        ],
    )

    air_fields = _model_fields(AirHandlers)
    air_fields["hall"] = _relation(
        _element("halls"), "The hall they serve", lambda e, c: c.by_id("halls", e.id)
    )
    add(
        "air_handlers",
        "air_handlers",
        "Each hall's air handlers (site.halls.<hall>.air_handlers)",
        air_fields,
        lambda c: [
            Element("air_handlers", k, ("site", "halls", k, "air_handlers"), v.air_handlers)
            for k, v in c.design.site.halls.items()
            if v.air_handlers is not None
        ],
    )


def _fabric_kinds(add: _Add) -> None:
    """Fabrics, their switch tiers and their explicit switches."""
    from dclint.model.fabric import Fabric, Switch, Tier

    fabric_fields = _model_fields(Fabric, ("id", "tiers", "switches", "racks"))
    fabric_fields.update(
        {
            "tiers": _relation(
                _elements("tiers"),
                "Its switch tiers",
                lambda e, c: [t for t in c.of("tiers") if t.extra[0] == e.obj],
            ),
            "switches": _relation(
                _elements("switches"),
                "Its explicit switches",
                lambda e, c: [s for s in c.of("switches") if s.extra[0] == e.obj],
            ),
            "racks": _relation(_elements("racks"), "The racks on it", _fabric_racks),
            "gpus": _computed(
                NUMBER, "GPUs on it", lambda e, c: sum(r.obj.gpus for r in _fabric_racks(e, c))
            ),
            "nics_per_node": _computed(
                NUMBER,
                "Its NICs in one node: nics_per_gpu x GPUs a node (the fewest of its racks)",
                _nics_per_node,
            ),
        }
    )
    add(
        "fabrics",
        "fabric",
        "Every network fabric",
        fabric_fields,
        lambda c: [
            Element("fabrics", f.id, ("fabrics", i), f) for i, f in enumerate(c.design.fabrics)
        ],
    )

    tier_fields = _model_fields(Tier)
    tier_fields.update(
        {
            "fabric": _relation(
                _element("fabrics"),
                "The fabric it belongs to",
                lambda e, c: c.by_id("fabrics", e.extra[0].id),
            ),
            "level": _computed(
                NUMBER,
                "1 for the tier facing the GPUs, 2 above it, ...",
                lambda e, c: e.extra[2] + 1,
            ),
            "oversubscription": _computed(
                RATIO,
                "Downlink to uplink bandwidth of its worst switch (2 for 2:1)",
                _oversubscription,
            ),
        }
    )
    add("tiers", "tier", "Every switch tier of every fabric (id: fabric.tier)", tier_fields, _tiers)

    switch_fields = _model_fields(Switch, ("id",))
    switch_fields["fabric"] = _relation(
        _element("fabrics"),
        "The fabric it belongs to",
        lambda e, c: c.by_id("fabrics", e.extra[0].id),
    )
    add(
        "switches", "switch", "Every explicit switch (fabrics[].switches)", switch_fields, _switches
    )


def _storage_and_workload_kinds(add: _Add) -> None:
    from dclint.model.storage import StorageTier
    from dclint.model.workload import Workload

    duration = _quantity("3 year", "duration")
    add(
        "storage_tiers",
        "storage_tier",
        "Every storage tier (storage.tiers)",
        _model_fields(StorageTier, ("id",)),
        lambda c: [
            Element("storage_tiers", s.id, ("storage", "tiers", i), s)
            for i, s in enumerate(c.design.storage.tiers)
        ],
    )

    workload_fields = _model_fields(Workload, ("id",))
    workload_fields.update(
        {
            "predicted_step": _computed(
                duration, "Projected time of one step", lambda e, c: _timing(c, e, "step")
            ),
            "training_time": _computed(
                _quantity("30 day", "duration"),
                "Projected wall time of the run",
                lambda e, c: _timing(c, e, "wall"),
            ),
        }
    )
    add(
        "workloads",
        "workload",
        "Every workload",
        workload_fields,
        lambda c: [
            Element("workloads", w.id, ("workloads", i), w)
            for i, w in enumerate(c.design.workloads)
        ],
    )


def _design_kind(add: _Add, power: FieldType, kinds: list[str]) -> None:
    """The design itself, with a relation to every element of each kind added before it."""
    design_fields: dict[str, FieldSpec] = {
        "name": FieldSpec(TEXT, "The design's name", lambda e, c: c.design.name, _key("name")),
        "site": FieldSpec(
            FieldType("section", section=_site_model()),
            "The site section",
            lambda e, c: c.design.site,
            _key("site"),
        ),
        "gpus": _computed(NUMBER, "GPUs in every rack", lambda e, c: c.topology.gpus),
        "it_load": _computed(
            power, "Design IT load of every rack", lambda e, c: c.topology.it_load
        ),
        "peak_load": _computed(
            power,
            "Peak load of every rack",
            lambda e, c: _sum_kw(r.obj.peak_load for r in c.of("racks")),
        ),
    }
    for name in kinds:
        design_fields[name] = _relation(_elements(name), f"Every element of {name}", _every(name))
    add(
        "design",
        "design",
        "The design itself (one element)",
        design_fields,
        lambda c: [Element("design", c.design.name, (), c.design)],
    )


def _site_model() -> Any:
    from dclint.model.site import Site

    return Site


def _every(name: str) -> Callable[[Element, Context], Any]:
    return lambda e, c: c.of(name)


def _rack(name: str) -> Callable[[Element], Path]:
    return lambda e: e.obj.field_path(name)


def _gpus_per_node(e: Element, c: Context) -> int | None:
    """GPUs in a node of a server-node platform (HGX, DGX); None for a rack-scale one."""
    platform = e.obj.platform
    if platform is None or platform.kind != "node":
        return None
    return int(platform.gpus)


def _rack_row(e: Element, c: Context) -> str | None:
    group = c.design.racks[e.obj.path[1]] if len(e.obj.path) > 1 else None
    return getattr(group, "row", None)


def _chain(name: str, singular: str) -> Callable[[Context], list[Element]]:
    return lambda c: [
        Element(name, item.id, item.path, item, item.model)
        for item in c.topology.chain.values()
        if item.kind == singular
    ]


def _hall_cdus(e: Element, c: Context) -> list[Element]:
    """The CDUs whose loops cool the hall's racks, and those of their redundancy groups."""
    ids = {m.cdu for m, _, racks in c.topology.loops if any(r.hall == e.id for r in racks)}
    cdus = c.of("cdus")
    groups = {x.obj.redundancy_group for x in cdus if x.id in ids} - {None}
    return [x for x in cdus if x.id in ids or x.obj.redundancy_group in groups]


def _sum_kw(values: Any) -> Any:
    from dclint.units import Q_

    return Q_(sum((v.m_as("kW") for v in values if v is not None), 0.0), "kW")


def _feed_load(c: Context, peak: bool) -> dict[str, Any]:
    from dclint.calc.power import feed_allocation

    return c.once(("feed_load", peak), lambda: feed_allocation(c.topology, peak))  # type: ignore[no-any-return]


def _cdu_load(c: Context, cdu: str, what: str) -> Any:
    from dclint.calc.cooling import cdu_loads

    loads = c.once("cdu_loads", lambda: cdu_loads(c.topology))
    load = loads.get(cdu)
    return None if load is None else getattr(load, what)


def _fabric_racks(e: Element, c: Context) -> list[Element]:
    from dclint.calc.fabric_graph import fabric_racks

    def compute() -> list[Element]:
        found = [c.by_id("racks", r.id) for r in fabric_racks(c.design, e.obj)]
        return [r for r in found if r is not None]

    return c.once(("fabric_racks", e.id), compute)  # type: ignore[no-any-return]


def _nics_per_node(e: Element, c: Context) -> float | None:
    per_node = [_gpus_per_node(r, c) for r in _fabric_racks(e, c)]
    known = [n for n in per_node if n]
    if not known:
        return None
    return float(e.obj.nics_per_gpu) * min(known)


def _tiers(c: Context) -> list[Element]:
    out = []
    for i, fabric in enumerate(c.design.fabrics):
        for j, tier in enumerate(fabric.tiers):
            path = ("fabrics", i, "tiers", j)
            out.append(
                Element("tiers", f"{fabric.id}.{tier.name}", path, tier, extra=(fabric, i, j))
            )
    return out


def _switches(c: Context) -> list[Element]:
    out = []
    for i, fabric in enumerate(c.design.fabrics):
        for j, switch in enumerate(fabric.switches):
            path = ("fabrics", i, "switches", j)
            out.append(Element("switches", switch.id, path, switch, extra=(fabric, i, j)))
    return out


def _oversubscription(e: Element, c: Context) -> float | None:
    from dclint.calc.fabric_tiers import tier_bandwidths

    _, index, level = e.extra
    tiers = tier_bandwidths(c.design, index)
    return tiers[level].ratio if level < len(tiers) else None


def _timing(c: Context, e: Element, what: str) -> Any:
    from dclint.projection import project_workloads

    projections = c.once(
        "projections", lambda: {p.workload: p for p in project_workloads(c.design)}
    )
    p = projections.get(e.id)
    if p is None:
        return None
    return p.timing.step_time if what == "step" else p.training_time


class _Kinds(dict):  # type: ignore[type-arg]
    """KINDS, built on first use (it imports the design models)."""

    def _built(self) -> None:
        if not dict.__len__(self):
            dict.update(self, _kinds())

    def __getitem__(self, key: str) -> Kind:
        self._built()
        return dict.__getitem__(self, key)  # type: ignore[no-any-return]

    def __contains__(self, key: object) -> bool:
        self._built()
        return dict.__contains__(self, key)

    def __iter__(self) -> Any:
        self._built()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._built()
        return dict.__len__(self)

    def items(self) -> Any:
        self._built()
        return dict.items(self)

    def keys(self) -> Any:
        self._built()
        return dict.keys(self)

    def values(self) -> Any:
        self._built()
        return dict.values(self)

    def get(self, key: str, default: Any = None) -> Any:
        self._built()
        return dict.get(self, key, default)


KINDS: dict[str, Kind] = _Kinds()
