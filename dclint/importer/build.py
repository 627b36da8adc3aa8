"""An Inventory and a mapping made into a design fragment: entries in a stable order, ids that
run written as ranges (`r[001-128]`), each entry with the source objects it came from."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dclint.importer.inventory import DeviceRec, DeviceTypeRec, ImportProblem, Inventory, RackRec
from dclint.importer.ledger import Ledger
from dclint.importer.mapping import Mapping

__all__ = ["Entry", "Fragment", "build", "slug"]

_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_.:\-]+")
_TAIL = re.compile(r"^(.*?)(\d+)$")


def slug(name: str) -> str:
    """A DCIM name as a dclint id: runs of other characters become '-' (`Rack 01` -> Rack-01)."""
    out = _BAD_ID_CHARS.sub("-", name).strip("-._:")
    return (out or "x")[:120]


@dataclass
class Entry:
    """One list item of the design: its fields in order, the comment naming its source, and
    the source of each element it expands to (element id -> origin)."""

    fields: dict[str, Any]
    comment: str
    origins: dict[str, str] = field(default_factory=dict)


@dataclass
class Fragment:
    name: str
    site: str | None
    panels: list[Entry] = field(default_factory=list)
    feeds: list[Entry] = field(default_factory=list)
    rack_types: dict[str, dict[str, Any]] = field(default_factory=dict)
    racks: list[Entry] = field(default_factory=list)
    fabric: dict[str, Any] | None = None
    switches: list[Entry] = field(default_factory=list)
    links: list[Entry] = field(default_factory=list)
    unmapped: dict[str, int] = field(default_factory=dict)  # device type -> devices
    notes: list[str] = field(default_factory=list)  # what was left out, and why
    origins: list[tuple[str, str]] = field(default_factory=list)  # the design's `origins`
    problems: list[ImportProblem] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)


def num(value: float) -> str:
    """A number as a design writes it: no float noise, no trailing zeros."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def build(inv: Inventory, mapping: Mapping) -> Fragment:
    name = mapping.name or slug(inv.site or "imported")
    frag = Fragment(name, inv.site, ledger=inv.ledger)
    frag.problems.extend(inv.problems)
    ids = _Ids(frag)
    panel_ids = {p.name: ids.take(p.name, p.origin) for p in inv.panels}
    feed_ids = _feed_ids(inv, ids)
    _panels(inv, mapping, frag, panel_ids)
    _feeds(inv, frag, panel_ids, feed_ids)
    _racks(inv, mapping, frag, ids, feed_ids)
    _fabric(inv, mapping, frag, ids)
    for reason, count in sorted(inv.skipped.items()):
        frag.notes.append(f"{count} {reason}")
    for entry in (*frag.panels, *frag.feeds, *frag.racks, *frag.switches):
        frag.origins.extend(_stepped(str(entry.fields["id"]), entry.origins))
    return frag


_DIGITS = re.compile(r"\d+")


def _stepped(key: str, origins: dict[str, str]) -> list[tuple[str, str]]:
    """An entry's origins as the design writes them: one line whose ranges run in step with
    the id's (`gpu-r[01-08]: NetBox rack [1-8] <.../racks/[1-8]/>`) when the sources' numbers
    run with the ids, else a line per element."""
    items = list(origins.items())
    if len(items) == 1:
        return [(key, items[0][1])]
    first, last = items[0][1], items[-1][1]
    a, b = _DIGITS.split(first), _DIGITS.split(last)
    na, nb = _DIGITS.findall(first), _DIGITS.findall(last)
    if a == b and len(na) == len(nb) and "[" not in first:
        parts = [a[0]]
        for i, (x, y) in enumerate(zip(na, nb, strict=True)):
            if x == y:
                parts.append(x)
            elif int(y) - int(x) == len(items) - 1:
                parts.append(f"[{x}-{y}]")
            else:
                break
            parts.append(a[i + 1])
        else:
            from dclint.model.origins import origin_table

            text = "".join(parts)
            if origin_table({key: text}) == origins:
                return [(key, text)]
    return items


class _Ids:
    """Ids given out, each once: two DCIM objects that slug alike are a problem."""

    def __init__(self, frag: Fragment) -> None:
        self.seen: dict[str, str] = {}
        self.frag = frag

    def take(self, name: str, origin: str) -> str:
        ident = slug(name)
        if ident in self.seen:
            self.frag.problems.append(
                ImportProblem(
                    origin, f"its id '{ident}' is also the id of {self.seen[ident]}: rename one"
                )
            )
        self.seen[ident] = origin
        return ident


def _feed_ids(inv: Inventory, ids: _Ids) -> dict[int, str]:
    """Feed names are unique per panel only (in NetBox and Nautobot): a name two panels use is
    prefixed with its panel's."""
    count = Counter(f.name for f in inv.feeds)
    out: dict[int, str] = {}
    for i, f in enumerate(inv.feeds):
        name = f.name if count[f.name] == 1 else f"{f.panel}-{f.name}"
        out[i] = ids.take(name, f.origin)
    return out


def _panels(inv: Inventory, mapping: Mapping, frag: Fragment, panel_ids: dict[str, str]) -> None:
    by_panel: dict[str, list[Any]] = {}
    for f in inv.feeds:
        by_panel.setdefault(f.panel or "", []).append(f)
    for p in sorted(inv.panels, key=lambda p: _order(panel_ids[p.name])):
        ident = panel_ids[p.name]
        given = mapping.panels.get(p.name) or mapping.panels.get(ident) or mapping.panels.get("*")
        feeds = by_panel.get(p.name, [])
        voltages = {f.voltage for f in feeds}
        voltage: float | None = None
        if given is not None and given.voltage is not None:
            voltage = float(given.voltage.m_as("V"))
        elif p.voltage is not None:
            voltage = p.voltage
        elif len(voltages) == 1:
            voltage = voltages.pop()
        rating = p.current_rating
        if given is not None:
            rating = float(given.current_rating.m_as("A"))
        if rating is None:
            frag.problems.append(
                ImportProblem(
                    p.origin,
                    f"panel '{p.name}' has no rating in {inv.source} (NetBox holds none: "
                    f"netbox#5976); give it in the mapping file: "
                    f"panels: {{{ident}: {{current_rating: 800 A}}}} (or '*' for every panel)",
                )
            )
            continue
        if voltage is None:
            frag.problems.append(
                ImportProblem(
                    p.origin,
                    f"panel '{p.name}': its feeds' voltages do not settle its own "
                    f"({sorted(voltages) or 'no feeds'}); give panels: {{{ident}: "
                    f"{{voltage: 415 V}}}} in the mapping file",
                )
            )
            continue
        paths = {f.path for f in feeds}
        path = p.path or (paths.pop() if len(paths) == 1 else None)
        fields: dict[str, Any] = {"id": ident}
        fields["voltage"] = f"{num(voltage)} V"
        fields["current_rating"] = f"{num(rating)} A"
        if path:
            fields["path"] = path
        if given is not None and given.fed_by:
            fields["fed_by"] = given.fed_by
        elif p.name in inv.fed_by and inv.fed_by[p.name] in panel_ids:
            fields["fed_by"] = panel_ids[inv.fed_by[p.name]]
        note = f"upstream of panel {inv.upstream[p.name]}" if p.name in inv.upstream else ""
        inv.ledger.imported("power-panel", p.origin, ident, note)
        frag.panels.append(Entry(fields, p.origin, {ident: p.origin}))


def _feeds(
    inv: Inventory, frag: Fragment, panel_ids: dict[str, str], feed_ids: dict[int, str]
) -> None:
    rows = []
    for i, f in enumerate(inv.feeds):
        fields: dict[str, Any] = {"id": feed_ids[i]}
        if f.panel is not None and f.panel in panel_ids:
            fields["panel"] = panel_ids[f.panel]
        fields["voltage"] = f"{num(f.voltage)} V"
        fields["current_rating"] = f"{num(f.amperage)} A"
        fields["phases"] = f.phases
        if f.max_utilization is not None:
            fields["max_utilisation"] = f"{num(f.max_utilization)}%"
        if f.path:
            fields["path"] = f.path
        if f.status == "planned":
            fields["status"] = f.status
        note = f"status {f.status}: counted as load" if f.status == "offline" else ""
        inv.ledger.imported("power-feed", f.origin, feed_ids[i], note)
        rows.append((fields, f.origin))
    frag.feeds.extend(compact_entries(rows, inv.source, "power-feed"))


def _draw(
    types: dict[str, DeviceTypeRec], mapping: Mapping, dev: DeviceRec, which: str
) -> float | None:
    """W one device draws: the sheet's or the mapping's figure, else the DCIM's allocated
    (or maximum) draw of its power ports. A device type with several power ports has
    redundant PSUs: each port's maximum is what that PSU carries when its partners fail, so
    the device's maximum is its draw spread over them (their allocated draws), at least one
    port's maximum, never the sum of the ports' maxima (the caveat of NetBox's and
    Nautobot's own power utilisation)."""
    if dev.power is not None:
        return dev.power
    m = mapping.device_types.get(dev.device_type)
    if m is not None and m.power is not None:
        return float(m.power.m_as("W"))
    dtype = types.get(dev.device_type)
    if dtype is None:
        return None
    if dtype.ports > 1:
        found = [x for x in (dtype.allocated_draw, dtype.largest_maximum) if x is not None]
        if which == "maximum":
            return max(found) if found else None
        return found[0] if found else None
    first = dtype.maximum_draw if which == "maximum" else dtype.allocated_draw
    second = dtype.allocated_draw if which == "maximum" else dtype.maximum_draw
    return first if first is not None else second


def _catalog_power(platform: str) -> tuple[float | None, float | None] | None:
    """(power, max_power) in W of a catalog platform; None when the catalog has no such
    platform."""
    from dclint.model.builtin_catalog import builtin_raw
    from dclint.units import parse_quantity

    entry = builtin_raw().get("platforms", {}).get(platform)
    if entry is None:
        return None
    out: list[float | None] = []
    for key in ("power", "max_power"):
        value = entry.get(key)
        out.append(None if value is None else float(parse_quantity(str(value)).m_as("W")))
    return out[0], out[1]


def _cells(origins: list[str]) -> str:
    """Source references of several rows, as one text (`plan.xlsx Equipment!A5:A8`)."""
    if len(origins) == 1:
        return origins[0]
    return _many(origins, "", "row")


def _racks(
    inv: Inventory, mapping: Mapping, frag: Fragment, ids: _Ids, feed_ids: dict[int, str]
) -> None:
    b = _RackBuilder(inv, mapping, frag)
    for i, f in enumerate(inv.feeds):
        if f.rack is not None:
            b.feeds_of.setdefault(f.rack, []).append((f.path or "~", feed_ids[i]))
    b.sort_devices()
    rows = []
    for rack in inv.racks:
        ident = ids.take(rack.name, rack.origin)
        fields = b.rack(rack, ident)
        if fields is None:
            continue
        note = "status offline: counted as load" if rack.status == "offline" else ""
        if inv.ledger.state("rack", rack.origin) != "imported":
            inv.ledger.imported("rack", rack.origin, ident, note)
        rows.append((fields, rack.origin))
    for dtype, count in sorted(b.no_draw.items()):
        frag.notes.append(
            f"{count} devices of type {dtype} with no power draw in {inv.source}: counted "
            f"as 0 W (give `power:` in the mapping's device_types)"
        )
    frag.racks.extend(compact_entries(rows, inv.source, "rack"))


@dataclass
class _Drawn:
    """What a rack's devices add up to: its GPU nodes by platform, their rows and draw, the
    offline ones, and the draw of the rest (switches, storage, ...), in W."""

    platforms: Counter[str] = field(default_factory=Counter)
    node_rows: list[DeviceRec] = field(default_factory=list)
    offline: int = 0
    extra: float = 0.0
    node_draw: float = 0.0


class _RackBuilder:
    """The racks' entries, built from the racks, their devices and their feeds; problems,
    warnings and the ledger go to the fragment and the inventory."""

    def __init__(self, inv: Inventory, mapping: Mapping, frag: Fragment) -> None:
        self.inv, self.mapping, self.frag = inv, mapping, frag
        self.types = {t.key: t for t in inv.device_types.values()}
        self.feeds_of: dict[str, list[tuple[str, str]]] = {}
        self.devices_of: dict[str, list[DeviceRec]] = {}
        self.no_draw: Counter[str] = Counter()
        self.over: dict[str, str] = {}  # device type -> the warning that its draw is above

    def sort_devices(self) -> None:
        """Each mapped device to its rack; the rest on the ledger (unmapped, ignored, unknown
        platform, no rack)."""
        inv, mapping, frag, led = self.inv, self.mapping, self.frag, self.inv.ledger
        unmapped: Counter[str] = Counter()
        rack_names = {r.name for r in inv.racks}
        for d in inv.devices:
            m = mapping.device_types.get(d.device_type)
            if m is None:
                unmapped[d.device_type] += 1
                led.skipped("device", d.origin, f"unmapped type {d.device_type}", _named(d.name))
                continue
            if m.kind == "ignore":
                led.skipped("device", d.origin, "ignored by the mapping")
                continue
            if m.kind == "gpu_node" and m.platform and _catalog_power(m.platform) is None:
                frag.problems.append(
                    ImportProblem(
                        d.origin,
                        f"device type {d.device_type} is mapped to platform '{m.platform}', "
                        "which the catalog does not know: name a catalog key in the mapping's "
                        "device_types",
                    )
                )
                continue
            if d.rack is None or d.rack not in rack_names:
                if not (m.kind == "switch" and m.switch):
                    led.skipped("device", d.origin, "no rack")
                continue
            self.devices_of.setdefault(d.rack, []).append(d)
        frag.unmapped = dict(sorted(unmapped.items()))

    def drawn(self, rack: RackRec, ident: str) -> _Drawn:
        """A rack's devices counted: GPU nodes by platform and their draw, the rest's draw."""
        inv, mapping, led = self.inv, self.mapping, self.inv.ledger
        out = _Drawn()
        for d in self.devices_of.get(rack.name, []):
            m = mapping.device_types[d.device_type]
            if m.kind == "gpu_node" and m.platform:
                out.platforms[m.platform] += 1
                out.node_rows.append(d)
                out.offline += d.status == "offline"
                if mapping.power_draw != "catalog" or d.power is not None:
                    w = _draw(self.types, mapping, d, mapping.power_draw)
                    if w is None:
                        self.no_draw[d.device_type] += 1
                    out.node_draw += w or 0.0
                    _above_rating(inv, m.platform, d, w, mapping.power_draw, self.types, self.over)
                    _one_port(inv, d, self.types, mapping, self.over)
                else:
                    out.node_draw += (_catalog_power(m.platform) or (0.0, None))[0] or 0.0
                note = (
                    f"{_named(d.name)}, status offline: counted, marked offline_nodes"
                    if d.status == "offline"
                    else ""
                )
                led.merged("device", d.origin, f"rack {ident} (a {m.platform} node)", note)
                continue
            w = _draw(self.types, mapping, d, "allocated")
            if w is None:
                self.no_draw[d.device_type] += 1
            out.extra += w or 0.0
            led.merged("device", d.origin, f"rack {ident} (its load)")
        return out

    def platform(self, rack: RackRec) -> tuple[bool, str | None]:
        """(known, the rack's own platform as the mapping names it); not known: a problem."""
        platform = rack.platform
        if platform is not None and platform in self.mapping.rack_platforms:
            return True, self.mapping.rack_platforms[platform]
        if platform is not None and _catalog_power(platform) is None:
            self.frag.problems.append(
                ImportProblem(
                    rack.platform_at or rack.origin,
                    f"'{platform}' is not a platform the catalog knows: map it in the mapping "
                    f"file's rack_platforms ({{{platform}: null}} for a rack without GPU nodes, "
                    "or a catalog key such as dgx-h100)",
                )
            )
            return False, None
        return True, platform

    def rack(self, rack: RackRec, ident: str) -> dict[str, Any] | None:
        """A rack's entry (None: left out, with a problem or on the ledger)."""
        inv, frag = self.inv, self.frag
        fields: dict[str, Any] = {"id": ident}
        drawn = self.drawn(rack, ident)
        known, platform = self.platform(rack)
        if not known:
            return None
        nodes = _node_count(inv, self.mapping, frag, rack, ident, platform, drawn.node_rows)
        if nodes is None:
            return None
        platforms = drawn.platforms
        if platform is not None:
            platforms[platform] += 0
        if len(platforms) > 1:
            frag.problems.append(
                ImportProblem(
                    rack.origin,
                    f"rack '{rack.name}' holds GPU nodes of {len(platforms)} platforms "
                    f"({', '.join(sorted(platforms))}): a dclint rack holds one",
                )
            )
            return None
        devices_w = self.load(fields, drawn, nodes)
        if "type" not in fields and "it_load" not in fields and rack.it_load is None:
            kinds = sorted({d.device_type for d in inv.devices if d.rack == rack.name})
            why = "no devices and no load" if not kinds else "no mapped devices and no load"
            note = f"its devices' types: {', '.join(kinds)}" if kinds else ""
            inv.ledger.skipped("rack", rack.origin, why, note)
            return None
        if rack.it_load is not None:
            self.declared_load(fields, rack, devices_w)
        offline = drawn.offline
        if rack.status == "offline":
            offline = max(nodes or 0, offline)
        if offline:
            fields["offline_nodes"] = offline
        feeds = [f for _, f in sorted(self.feeds_of.get(rack.name, []))]
        if feeds:
            fields["feeds"] = feeds
        if rack.status == "planned":
            fields["status"] = rack.status
        if rack.row:
            fields["row"] = rack.row
        return fields

    def load(self, fields: dict[str, Any], drawn: _Drawn, nodes: int) -> float:
        """The rack's type and load in `fields`; its devices' draw in W."""
        extra, node_rows = drawn.extra, drawn.node_rows
        devices_w = extra
        if drawn.platforms:
            platform = next(iter(drawn.platforms))
            key = f"{platform}-x{nodes}" if nodes else platform
            self.frag.rack_types.setdefault(
                key, {"platform": platform, "nodes": nodes} if nodes else {"platform": platform}
            )
            fields["type"] = key
            each = (_catalog_power(platform) or (None, None))[0]
            powered = any(d.power for d in node_rows)
            if node_rows and (self.mapping.power_draw != "catalog" or powered):
                gpu_w = drawn.node_draw * nodes / len(node_rows)  # the counted nodes, alike
                fields["it_load"] = f"{num((gpu_w + extra) / 1000)} kW"
                devices_w += gpu_w
            else:
                devices_w += (each or 0.0) * max(nodes, 1)
                if extra:
                    fields["extra_load"] = f"{num(extra / 1000)} kW"
        elif extra:
            fields["it_load"] = f"{num(extra / 1000)} kW"
        return devices_w

    def declared_load(self, fields: dict[str, Any], rack: RackRec, devices_w: float) -> None:
        """A declared load and the devices' draw: the larger governs, a warning if it is the
        devices'."""
        assert rack.it_load is not None
        fields.pop("extra_load", None)
        governs = max(rack.it_load, devices_w)
        fields["it_load"] = f"{num(governs / 1000)} kW"
        if rack.it_load < devices_w - 0.5:
            self.inv.warnings.append(
                ImportProblem(
                    rack.load_at or rack.origin,
                    f"rack '{rack.name}': the declared load {num(rack.it_load / 1000)} kW "
                    f"is below its devices' draw {num(devices_w / 1000)} kW: the larger "
                    "governs (it_load)",
                )
            )


def _above_rating(
    inv: Inventory,
    platform: str,
    dev: DeviceRec,
    w: float | None,
    which: str,
    types: dict[str, DeviceTypeRec],
    seen: dict[str, str],
) -> None:
    """A GPU node drawing more than its platform's rated maximum in the catalog: a warning
    naming both figures, once a device type."""
    rated = (_catalog_power(platform) or (None, None))[1]
    if w is None or rated is None or w <= rated + 0.5 or dev.device_type in seen:
        return
    dtype = types.get(dev.device_type)
    how = "its own figure" if dev.power is not None else f"its {which} draw"
    if dev.power is None and dtype is not None and dtype.ports > 1:
        how += f" over {dtype.ports} power ports"
    text = (
        f"device type {dev.device_type}: {num(w / 1000)} kW a device ({how}) is above "
        f"{platform}'s rated maximum of {num(rated / 1000)} kW in dclint's catalog"
    )
    seen[dev.device_type] = text
    inv.warnings.append(ImportProblem(dev.origin, text))


def _one_port(
    inv: Inventory,
    dev: DeviceRec,
    types: dict[str, DeviceTypeRec],
    mapping: Mapping,
    seen: dict[str, str],
) -> None:
    """Redundant PSUs with no allocated draw: the device's draw is read as one port's
    maximum, which may be below it; a warning, once a device type."""
    dtype = types.get(dev.device_type)
    m = mapping.device_types.get(dev.device_type)
    if (
        dev.power is not None
        or (m is not None and m.power is not None)
        or dtype is None
        or dtype.ports < 2
        or dtype.allocated_draw is not None
        or dtype.largest_maximum is None
        or f"{dev.device_type} one port" in seen
    ):
        return
    text = (
        f"device type {dev.device_type}: {dtype.ports} power ports (redundant PSUs) with no "
        f"allocated draw: read as one port's maximum, {num(dtype.largest_maximum / 1000)} kW "
        "a device, never their sum; give the device's draw as `power:` in the mapping's "
        "device_types"
    )
    seen[f"{dev.device_type} one port"] = text
    inv.warnings.append(ImportProblem(dev.origin, text))


def _node_count(
    inv: Inventory,
    mapping: Mapping,
    frag: Fragment,
    rack: RackRec,
    ident: str,
    platform: str | None,
    node_rows: list[DeviceRec],
) -> int | None:
    """A rack's nodes, where the rack's node count and its device rows both count them:
    reconciled, never summed. Agreement is one count; a disagreement is an error at both
    cells unless the mapping's node_count names the source that wins (the ledger says so)."""
    rows = len(node_rows)
    if rack.nodes is None:
        return rows
    if not node_rows:
        return rack.nodes
    at = rack.nodes_at or rack.origin
    where = _cells([d.origin for d in node_rows])
    if rows == rack.nodes:
        for d in node_rows:
            inv.ledger.merged(
                "device", d.origin, f"rack {ident} (a node)", f"agrees with the count at {at}"
            )
        return rack.nodes
    if mapping.node_count == "both":
        text = (
            f"rack '{rack.name}': its node count says {rack.nodes} ({at}), its device rows "
            f"{rows} ({where}): both count the same nodes; correct one, or set node_count: "
            "racks (or devices) in the mapping file to name the one that wins"
        )
        frag.problems.append(ImportProblem(at, text))
        frag.problems.append(ImportProblem(node_rows[0].origin, text))
        return None
    wins = rack.nodes if mapping.node_count == "racks" else rows
    note = (
        f"node count {rack.nodes} at {at} and {rows} device rows disagree: "
        f"{mapping.node_count} wins ({wins} nodes)"
    )
    inv.ledger.imported("rack", rack.origin, ident, note)
    for d in node_rows:
        inv.ledger.merged("device", d.origin, f"rack {ident} (a node)", note)
    return wins


def _fabric(inv: Inventory, mapping: Mapping, frag: Fragment, ids: _Ids) -> None:
    node: dict[str, tuple[str, str]] = {}  # device name -> (kind, dclint id)
    rows = []
    tiers: dict[str, str] = {}
    for d in inv.devices:
        m = mapping.device_types.get(d.device_type)
        if m is None:
            continue
        if m.kind == "switch" and m.switch:
            ident = ids.take(d.name, d.origin)
            tier = mapping.roles.get(d.role or "", d.role or "leaf")
            node[d.name] = ("switch", ident)
            tiers[ident] = tier
            rows.append(({"id": ident, "model": m.switch, "tier": tier}, d.origin))
        elif m.kind == "gpu_node" and d.rack is not None:
            node[d.name] = ("rack", slug(d.rack))
    if not rows:
        return
    led = inv.ledger
    if not inv.cables:  # a fabric is its links: switches alone would read as unconnected
        frag.notes.append(
            f"{len(rows)} switches: no cables between interfaces, so no fabric (their draw "
            "is in their racks' load)"
        )
        for _, origin in rows:
            if led.state("device", origin) != "merged":
                led.skipped("device", origin, "a switch with no rack and no cables")
        return
    for fields, origin in rows:
        led.imported("device", origin, str(fields["id"]))
    frag.fabric = {"id": mapping.fabric.id, "kind": mapping.fabric.kind}
    frag.switches = compact_entries(rows, inv.source, "device", flow=True)
    default_speed = mapping.fabric.link_speed
    links: dict[tuple[str, str, float], list[str]] = {}
    left_out: Counter[str] = Counter()
    for c in inv.cables:
        a, b = node.get(c.a), node.get(c.b)
        if a is None or b is None:
            left_out["cables not between a mapped GPU node or switch and a switch"] += 1
            led.skipped("cable", c.origin, "not between a mapped GPU node or switch and a switch")
            continue
        if a[0] == "rack" and b[0] == "rack":
            left_out["cables between two GPU nodes (NVLink is the platform's own)"] += 1
            led.skipped("cable", c.origin, "between two GPU nodes (NVLink is the platform's)")
            continue
        if b[0] == "rack" or (a[0] == b[0] == "switch" and _above(tiers, a[1], b[1], mapping)):
            a, b = b, a
        speed = c.speed
        if speed is None and default_speed is not None:
            speed = float(default_speed.m_as("Gb/s"))
        if speed is None:
            frag.problems.append(
                ImportProblem(
                    c.origin,
                    "the cable's interfaces name no speed; give fabric: {link_speed: "
                    "400 Gb/s} in the mapping file",
                )
            )
            continue
        links.setdefault((a[1], b[1], speed), []).append(c.origin)
        led.imported("cable", c.origin, f"link {a[1]} - {b[1]}")
    for reason, count in sorted(left_out.items()):
        frag.notes.append(f"{count} {reason}")
    frag.links = _link_entries(links, inv.source)


def _above(tiers: dict[str, str], a: str, b: str, mapping: Mapping) -> bool:
    """Whether switch a sits above switch b: the mapping's roles in the order written."""
    order = list(dict.fromkeys(mapping.roles.values()))
    ra = order.index(tiers[a]) if tiers[a] in order else len(order)
    rb = order.index(tiers[b]) if tiers[b] in order else len(order)
    return (ra, a) > (rb, b)


def _link_entries(links: dict[tuple[str, str, float], list[str]], source: str) -> list[Entry]:
    rows = []
    for (a, b, speed), origins in sorted(
        links.items(), key=lambda kv: (_order(kv[0][1]), _order(kv[0][0]))
    ):
        fields = {"a": a, "b": b, "count": len(origins), "speed": f"{num(speed)} Gb/s"}
        rows.append((fields, _origin_list(origins, source)))
    # links of the same b, count and speed whose a's run: one entry with a range in `a`
    out: list[Entry] = []
    for group in _runs(rows, key="a", same=("b", "count", "speed")):
        out.append(_merge(group, key="a", source=source, kind="cable", flow=True))
    return out


def _origin_list(origins: list[str], source: str) -> str:
    if len(origins) == 1:
        return origins[0]
    return "; ".join(o.split(" <")[0] for o in origins)


def _order(ident: str) -> tuple[str, int, str]:
    m = _TAIL.match(ident)
    if m is None:
        return (ident, -1, "")
    return (m.group(1), int(m.group(2)), m.group(2))


def compact_entries(
    rows: list[tuple[dict[str, Any], str]], source: str, kind: str, flow: bool = False
) -> list[Entry]:
    """Entries sorted by id; ids with a common stem whose numbers run, and whose other fields
    agree (a feed named after the rack's number written `$n`), become one ranged entry."""
    rows = sorted(rows, key=lambda r: _order(r[0]["id"]))
    out: list[Entry] = []
    for group in _runs(rows, key="id", same=None):
        out.append(_merge(group, key="id", source=source, kind=kind, flow=flow))
    return out


def _template(fields: dict[str, Any], number: str) -> dict[str, Any]:
    """Fields with the element's number written `$n` in its feeds (the design's template)."""
    out = dict(fields)
    if "feeds" in out and number:
        out["feeds"] = [
            f.replace(number, "$n") if f.count(number) == 1 and "$" not in f else f
            for f in out["feeds"]
        ]
    return out


def _runs(
    rows: list[tuple[dict[str, Any], str]], key: str, same: tuple[str, ...] | None
) -> list[list[tuple[dict[str, Any], str]]]:
    groups: list[list[tuple[dict[str, Any], str]]] = []
    last: tuple[str, int, int, str] | None = None  # stem, number, width, other fields
    for fields, origin in rows:
        m = _TAIL.match(str(fields[key]))
        if m is None or "[" in str(fields[key]):
            groups.append([(fields, origin)])
            last = None
            continue
        stem, digits = m.group(1), m.group(2)
        rest = {k: v for k, v in _template(fields, digits).items() if k != key}
        if same is not None:
            rest = {k: v for k, v in rest.items() if k in same}
            rest["__other__"] = {k: v for k, v in fields.items() if k not in same and k != key}
        other = repr(sorted(rest.items(), key=lambda kv: kv[0]))
        if (
            last is not None
            and groups
            and last[0] == stem
            and last[2] == len(digits)
            and last[3] == other
            and int(digits) == last[1] + 1
            and (digits.startswith("0") or len(digits) == len(str(int(digits))))
        ):
            groups[-1].append((fields, origin))
        else:
            groups.append([(fields, origin)])
        last = (stem, int(digits), len(digits), other)
    return groups


def _merge(
    group: list[tuple[dict[str, Any], str]], key: str, source: str, kind: str, flow: bool
) -> Entry:
    fields, origin = group[0]
    if len(group) == 1:
        comment = origin if "; " not in origin else _many([origin], source, kind)
        out = Entry(dict(fields), comment, {str(fields[key]): origin})
        out.fields["__flow__"] = flow
        return out
    first, last = str(group[0][0][key]), str(group[-1][0][key])
    m1, m2 = _TAIL.match(first), _TAIL.match(last)
    assert m1 is not None and m2 is not None
    merged = _template(fields, m1.group(2))
    merged[key] = f"{m1.group(1)}[{m1.group(2)}-{m2.group(2)}]"
    origins = {str(f[key]): o for f, o in group}
    merged["__flow__"] = flow
    return Entry(merged, _many([o for _, o in group], source, kind), origins)


_NUMBERED = re.compile(r"^(\S+ \S+) (\d+)(?: <.*>)?$")
_CELL = re.compile(r"^(.*!)([A-Z]{1,3})(\d+)$")
MOST_RUNS = 6  # runs of source ids a comment names before it counts the rest


def _many(origins: list[str], source: str, kind: str) -> str:
    """Several source objects in one comment: `NetBox racks 1-8`, `NetBox cables 1, 9, 17`;
    objects without numbered ids (Nautobot's UUIDs) by count, first and last."""
    numbers: list[int] = []
    head = None
    for o in origins:
        for part in o.split("; "):
            m = _NUMBERED.match(part)
            if m is None:
                numbers = []
                break
            head = m.group(1)
            numbers.append(int(m.group(2)))
        else:
            continue
        break
    if numbers and head is not None:
        values = sorted(set(numbers))
        runs: list[list[int]] = [[values[0]]]
        for n in values[1:]:
            if n == runs[-1][-1] + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        text = ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs[:MOST_RUNS])
        if len(runs) > MOST_RUNS:
            text += f" ... ({len(values)} in all)"
        return f"{head}s {text}"
    cells = [_CELL.match(o) for o in origins]
    if all(cells):
        heads = {(m.group(1), m.group(2)) for m in cells if m}
        rows = [int(m.group(3)) for m in cells if m]
        if len(heads) == 1 and rows == list(range(rows[0], rows[-1] + 1)):
            (head, col) = heads.pop()
            return f"{head}{col}{rows[0]}:{col}{rows[-1]}"  # a sheet's cell range
    first, last = origins[0].split(" <")[0], origins[-1].split(" <")[0]
    return f"{len(origins)} {source} {kind}s: {first} ... {last}"


def _named(name: str) -> str:
    """A device's name as the ledger notes it: 'device A02-n3' (the source's name, which a
    reader knows it by; the origin is the record's reference)."""
    return f"device {name}" if name else ""
