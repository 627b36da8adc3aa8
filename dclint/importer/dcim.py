"""NetBox and Nautobot objects, as their REST API (or NetBox's GraphQL API) gives them, read
into an Inventory.

A dump is one JSON (or YAML) document: each endpoint's objects under its API path, e.g.
`{"dcim/racks": [...], "dcim/power-feeds": [...]}`; a path may hold a REST page as the API
answers it (`{"count": ..., "results": [...]}`), and NetBox's GraphQL answer
(`{"data": {"rack_list": [...], ...}}`) is read too. `dclint import ... --save-dump` writes one.

Both DCIMs nest related objects (`"rack": {"id": 7, "name": "r07", ...}`); a bare id is
followed to the object listed under its own path. Choice fields are read as `{"value": ...}`
(REST), as a bare string (GraphQL), or as Nautobot's Status object (`{"name": "Active"}`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import Any

from dclint.importer.inventory import (
    CableRec,
    DeviceRec,
    DeviceTypeRec,
    FeedRec,
    ImportProblem,
    Inventory,
    PanelRec,
    RackRec,
)

__all__ = ["ENDPOINTS", "GRAPHQL_NAMES", "GRAPHQL_QUERY", "read_dump", "sanitize"]

# the API paths an import reads, in the order it reads them
ENDPOINTS = (
    "dcim/sites",
    "dcim/locations",
    "dcim/racks",
    "dcim/power-panels",
    "dcim/power-feeds",
    "dcim/device-types",
    "dcim/power-port-templates",
    "dcim/devices",
    "dcim/power-ports",
    "dcim/interfaces",
    "dcim/cables",
)
# NetBox's GraphQL list fields for the same objects
GRAPHQL_NAMES = {
    "site_list": "dcim/sites",
    "location_list": "dcim/locations",
    "rack_list": "dcim/racks",
    "power_panel_list": "dcim/power-panels",
    "power_feed_list": "dcim/power-feeds",
    "device_type_list": "dcim/device-types",
    "power_port_template_list": "dcim/power-port-templates",
    "device_list": "dcim/devices",
    "power_port_list": "dcim/power-ports",
    "interface_list": "dcim/interfaces",
    "cable_list": "dcim/cables",
}
# The GraphQL query whose answer (`{"data": {...}}`) `--from-file` reads (NetBox 4.x).
GRAPHQL_QUERY = """{
  site_list { id name slug }
  location_list { id name slug site { id } parent { id } }
  rack_list { id name site { id } location { id name } status facility_id }
  power_panel_list { id name site { id } location { id name } }
  power_feed_list { id name power_panel { id name } rack { id name } status type supply
                    phase voltage amperage max_utilization }
  device_type_list { id slug model }
  power_port_template_list { id device_type { id } allocated_draw maximum_draw }
  device_list { id name device_type { id slug model } role { slug } site { id }
                rack { id name } status }
  interface_list { id name device { id name } type speed }
  cable_list { id status
               a_terminations { __typename ... on InterfaceType { id } }
               b_terminations { __typename ... on InterfaceType { id } } }
}"""
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# `400gbase-x-osfp` (REST), `A_400GBASE_X_OSFP` (GraphQL's enum name: netbox#14494)
_SPEED_IN_TYPE = re.compile(r"(?:^|_)(\d+(?:\.\d+)?)g(?:base|fc|e)", re.IGNORECASE)
_OBJECT_NAMES = {
    "dcim/sites": "site",
    "dcim/locations": "location",
    "dcim/racks": "rack",
    "dcim/power-panels": "power-panel",
    "dcim/power-feeds": "power-feed",
    "dcim/devices": "device",
    "dcim/cables": "cable",
}


def sanitize(text: Any, where: str, problems: list[ImportProblem]) -> str:
    """Free text from a DCIM, refused if it holds a control character (a newline would write
    YAML into the design; an escape, a terminal sequence into a log)."""
    value = str(text) if text is not None else ""
    if _CONTROL.search(value):
        from dclint.errors import printable

        problems.append(
            ImportProblem(where, f"{printable(value)[:80]!r} holds a control character")
        )
        return _CONTROL.sub("", value)
    return value


def _lists(dump: Any) -> dict[str, list[dict[str, Any]]]:
    if not isinstance(dump, Mapping):
        raise ValueError("a dump is a mapping of API paths to object lists")
    if isinstance(dump.get("data"), Mapping):  # GraphQL
        dump = {GRAPHQL_NAMES.get(k, k): v for k, v in dump["data"].items()}
    out: dict[str, list[dict[str, Any]]] = {}
    for key, value in dump.items():
        path = str(key).strip("/").removeprefix("api/").rstrip("/")
        if isinstance(value, Mapping) and isinstance(value.get("results"), list):
            value = value["results"]
        if not isinstance(value, list):
            raise ValueError(f"'{key}' holds {type(value).__name__}, not a list of objects")
        out[path] = [o for o in value if isinstance(o, Mapping)]  # type: ignore[misc]
    return out


def _shown(value: Any) -> str:
    """A source value in an error line: none, a number, or a string quoted with its control
    characters escaped (repr), cut at 40 characters."""
    if value is None:
        return "none"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _choice(value: Any) -> str | None:
    """A choice field: {"value": "x"} (REST), "x" or "X" (GraphQL), Nautobot's Status."""
    if value is None:
        return None
    if type(value) is dict or isinstance(value, Mapping):  # dict first: abc checks are slow
        for key in ("value", "name", "label"):
            if value.get(key) is not None:
                return str(value[key]).lower()
        return None
    return str(value).lower().removeprefix("status_")


def _key(obj: Any) -> str | None:
    """The id a nested reference or a bare id names."""
    if obj is None:
        return None
    if type(obj) is dict or isinstance(obj, Mapping):
        ident = obj.get("id")
        return None if ident is None else str(ident)
    return str(obj)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


class _Reader:
    def __init__(self, lists: dict[str, list[dict[str, Any]]], kind: str, base: str) -> None:
        self.lists = lists
        self.kind = kind
        self.base = base.rstrip("/")
        self.by_id: dict[str, dict[str, dict[str, Any]]] = {
            path: {str(o["id"]): o for o in objs if o.get("id") is not None}
            for path, objs in lists.items()
        }
        self.inv = Inventory(kind)
        self._origins: dict[tuple[str, str], str] = {}
        self.policy: dict[str, str] = {}

    def status(self, kind: str, obj: Mapping[str, Any], origin: str) -> str | None:
        """The object's status by the mapping's policy (active, planned, offline); None, and
        on the ledger, for a status the policy skips or does not name."""
        raw = _choice(obj.get("status")) or "active"
        use = self.policy.get(raw)
        if use is None:
            self.inv.ledger.skipped(
                kind, origin, f"status {raw}", "not in the mapping's status policy"
            )
            return None
        if use == "skip":
            self.inv.ledger.skipped(kind, origin, f"status {raw}")
            return None
        return use

    def origin(self, path: str, obj: Mapping[str, Any]) -> str:
        """`NetBox power-feed 12 <https://nb/dcim/power-feeds/12/>`: the object and its page."""
        key = (path, str(obj.get("id")))
        found = self._origins.get(key)
        if found is None:
            found = self._origins[key] = self._origin(path, obj)
        return found

    def _origin(self, path: str, obj: Mapping[str, Any]) -> str:
        name = _OBJECT_NAMES.get(path, path.rsplit("/", 1)[-1])
        ident = sanitize(obj.get("id"), path, self.inv.problems)
        url = obj.get("display_url")  # NetBox: the object's page
        if url is None:  # Nautobot has only the API's URL: its page is the same path, no /api/
            url = obj.get("url")
            if isinstance(url, str) and self.kind == "Nautobot":
                url = re.sub(r"^(https?://[^/]+(?:/[^/]+)*?)/api/", r"\1/", url, count=1)
        if isinstance(url, str) and re.fullmatch(r"https?://[\w.:@%/?=&+~-]{1,300}", url):
            return f"{self.kind} {name} {ident} <{url}>"
        return f"{self.kind} {name} {ident}"

    def resolve(self, path: str, ref: Any) -> dict[str, Any] | None:
        key = _key(ref)
        if key is None:
            return None
        found = self.by_id.get(path, {}).get(key)
        if found is not None:
            return found
        return dict(ref) if isinstance(ref, Mapping) else None

    def name(self, path: str, ref: Any, where: str) -> str | None:
        obj = self.resolve(path, ref)
        if obj is None:
            return None
        text = obj.get("name") or obj.get("display")
        # a bad name is reported at its own object, once, however many objects name it
        return None if text is None else sanitize(text, self.origin(path, obj), self.inv.problems)


def read_dump(
    dump: Any, kind: str, base: str = "", site: str | None = None, mapping: Any = None
) -> Inventory:
    """An Inventory of one site from a dump (see the module's text); ValueError if its shape
    is not a dump's. `kind` is "NetBox" or "Nautobot"; `site` picks a site (or location).
    Every site, location, rack, panel, feed, device and cable read is on the ledger."""
    from dclint.importer.mapping import Mapping

    the_map: Mapping = mapping if mapping is not None else Mapping()
    r = _Reader(_lists(dump), kind, base)
    r.policy = dict(the_map.status)
    inv = r.inv
    led = inv.ledger
    site_key, site_path = _site(r, site)
    in_site = _in_site(r, site_key, site_path)
    _places(r, site_key, site_path)

    rack_ids: set[str] = set()
    site_racks: set[str] = set()  # in the location, imported or not
    for obj in r.lists.get("dcim/racks", []):
        origin = r.origin("dcim/racks", obj)
        led.read("rack", origin)
        if not in_site(obj):
            led.skipped("rack", origin, "outside the location")
            continue
        site_racks.add(str(obj.get("id")))
        status = r.status("rack", obj, origin)
        if status is None:
            continue
        rack_ids.add(str(obj.get("id")))
        row = _row(r, obj, the_map.rows, site_key, origin)
        inv.racks.append(
            RackRec(sanitize(obj.get("name"), origin, inv.problems), origin, status, row)
        )

    panels = _panels(r, in_site, the_map)
    for obj in r.lists.get("dcim/power-feeds", []):
        origin = r.origin("dcim/power-feeds", obj)
        led.read("power-feed", origin)
        up = _key(obj.get("power_panel"))
        if _key(obj.get("destination_panel")) is not None:  # Nautobot: panel to panel
            down = _key(obj.get("destination_panel"))
            if up in panels and down in panels:
                down_name = r.name("dcim/power-panels", obj.get("destination_panel"), origin)
                up_name = r.name("dcim/power-panels", obj.get("power_panel"), origin)
                if down_name is not None and up_name is not None:
                    inv.fed_by[down_name] = up_name
                    led.merged("power-feed", origin, f"fed_by of panel {down_name}")
                    continue
            elif down in panels:  # the chain leaves the data here
                led.skipped("power-feed", origin, "its upstream panel is not in the data")
                continue
            led.skipped("power-feed", origin, "outside the location")
            continue
        if up not in panels:
            led.skipped("power-feed", origin, "outside the location" if up else "no panel")
            continue
        _feed(r, obj, rack_ids)

    _device_types(r)
    for obj in r.lists.get("dcim/devices", []):
        origin = r.origin("dcim/devices", obj)
        led.read("device", origin)
        rack = _key(obj.get("rack"))
        if rack not in rack_ids and not in_site(obj):
            led.skipped("device", origin, "outside the location")
            continue
        if rack is not None and rack in site_racks and rack not in rack_ids:
            led.skipped("device", origin, "its rack is not imported")
            continue
        _device(r, obj, rack_ids)
    _cables(r)
    return inv


def _places(r: _Reader, site_key: str | None, site_path: str) -> None:
    """Sites and locations on the ledger: those in the imported one merged into `site`."""
    inside = _descendants(r, site_key) if site_key is not None else set()
    above: set[tuple[str, str]] = set()  # the imported location's site and parents
    if site_key is not None and site_path == "dcim/locations":
        by_id = r.by_id.get("dcim/locations", {})
        here = by_id.get(site_key)
        while here is not None:
            if _key(here.get("site")) is not None:
                above.add(("dcim/sites", str(_key(here.get("site")))))
            parent = _key(here.get("parent"))
            if parent is not None:
                above.add(("dcim/locations", parent))
            here = by_id.get(parent) if parent is not None and parent != site_key else None
    for path in ("dcim/sites", "dcim/locations"):
        kind = path.removeprefix("dcim/").rstrip("s")
        for obj in r.lists.get(path, []):
            origin = r.origin(path, obj)
            r.inv.ledger.read(kind, origin)
            ident = str(obj.get("id"))
            if path == site_path and ident == site_key:
                r.inv.ledger.imported(kind, origin, "site")
            elif (
                site_key is None
                or (path == "dcim/locations" and ident in inside)
                or (site_path == "dcim/sites" and _key(obj.get("site")) == site_key)
            ):
                r.inv.ledger.merged(kind, origin, "site")
            elif (path, ident) in above:
                r.inv.ledger.skipped(kind, origin, "above the imported location")
            else:
                r.inv.ledger.skipped(kind, origin, "outside the location")


def _row(r: _Reader, obj: Mapping[str, Any], how: str, site_key: str | None, at: str) -> str | None:
    """A rack's row: its rack group (Nautobot), else the location it sits in when that is
    below the imported one (NetBox 4 keeps rows as locations); or as the mapping says."""
    value: Any = None
    if how == "group":
        group = obj.get("rack_group") or obj.get("group")
        if group is not None:
            value = r.name("dcim/rack-groups", group, at)
        elif _key(obj.get("location")) not in (None, site_key):
            value = r.name("dcim/locations", obj.get("location"), at)
    elif how == "location":
        value = r.name("dcim/locations", obj.get("location"), at)
    elif how == "facility_id":
        value = obj.get("facility_id") or None
    return None if value is None else sanitize(value, at, r.inv.problems)


def _panels(r: _Reader, in_site: Any, mapping: Any) -> dict[str, dict[str, Any]]:
    """The location's panels, and upstream of them every panel that feeds one (Nautobot's
    panel-to-panel feeds, the mapping's `fed_by`) wherever it sits, until the chain leaves the
    data: a campus UPS panel feeding the hall's RPPs is imported with them."""
    led = r.inv.ledger
    every = {str(o.get("id")): o for o in r.lists.get("dcim/power-panels", [])}
    chosen = {k: o for k, o in every.items() if in_site(o)}
    by_name = {str(o.get("name")): k for k, o in every.items()}
    feeders: dict[str, list[str]] = {}
    for f in r.lists.get("dcim/power-feeds", []):
        down, up = _key(f.get("destination_panel")), _key(f.get("power_panel"))
        if down is not None and up is not None:
            feeders.setdefault(down, []).append(up)
    upstream: dict[str, str] = {}  # panel id -> the panel it is upstream of
    todo = list(chosen)
    while todo:
        key = todo.pop()
        name = str(every[key].get("name"))
        given = mapping.panels.get(name) or mapping.panels.get(_slug(name))
        ups = list(feeders.get(key, []))
        if given is not None and given.fed_by:
            ups += [by_name[n] for n in by_name if n == given.fed_by or _slug(n) == given.fed_by]
        for up in ups:
            if up in every and up not in chosen:
                chosen[up] = every[up]
                upstream[up] = name
                todo.append(up)
    for key, obj in sorted(every.items()):
        origin = r.origin("dcim/power-panels", obj)
        led.read("power-panel", origin)
        if key not in chosen:
            led.skipped("power-panel", origin, "outside the location")
    for key in sorted(chosen, key=lambda k: str(chosen[k].get("name"))):
        obj = chosen[key]
        origin = r.origin("dcim/power-panels", obj)
        path = _choice(obj.get("power_path"))
        name = sanitize(obj.get("name"), origin, r.inv.problems)
        if key in upstream:
            r.inv.upstream[name] = upstream[key]
        r.inv.panels.append(PanelRec(name, origin, path.upper() if path in ("a", "b") else None))
    return chosen


def _slug(name: str) -> str:
    from dclint.importer.build import slug

    return slug(name)


def _site(r: _Reader, wanted: str | None) -> tuple[str | None, str]:
    """The id of the site or location to import (a NetBox site or location, a Nautobot
    location), and the path it is listed under: the one named, or the only one there is;
    None to import everything."""
    sites = r.lists.get("dcim/sites") or []
    locations = r.lists.get("dcim/locations") or []
    if wanted is not None:
        for path, objs in (("dcim/sites", sites), ("dcim/locations", locations)):
            for obj in objs:
                if wanted in (obj.get("slug"), obj.get("name"), str(obj.get("id"))):
                    name = obj.get("slug") or obj.get("name")
                    r.inv.site = sanitize(name, "site", r.inv.problems)
                    r.inv.site_origin = r.origin(path, obj)
                    return str(obj.get("id")), path
        names = sorted(str(o.get("slug") or o.get("name")) for o in (*sites, *locations))
        raise ValueError(f"no site or location '{wanted}' in the dump (it holds: {names})")
    path = "dcim/sites" if sites else "dcim/locations"
    roots = [o for o in (sites or locations) if o.get("parent") is None]
    if len(roots) == 1:
        obj = roots[0]
        r.inv.site = sanitize(obj.get("slug") or obj.get("name"), "site", r.inv.problems)
        r.inv.site_origin = r.origin(path, obj)
    return None, path


def _in_site(r: _Reader, site: str | None, path: str) -> Any:
    if site is None:
        return lambda obj: True
    if path == "dcim/sites":

        def test(obj: Mapping[str, Any]) -> bool:
            return _key(obj.get("site")) == site

        return test
    children = _descendants(r, site)

    def in_location(obj: Mapping[str, Any]) -> bool:
        return _key(obj.get("location")) in children

    return in_location


def _descendants(r: _Reader, root: str) -> set[str]:
    """A location and every location under it (racks sit in rooms under a site)."""
    found = {root}
    locations = r.lists.get("dcim/locations", [])
    grew = True
    while grew:
        grew = False
        for obj in locations:
            ident = str(obj.get("id"))
            if ident not in found and _key(obj.get("parent")) in found:
                found.add(ident)
                grew = True
    return found


def _feed(r: _Reader, obj: Mapping[str, Any], rack_ids: set[str]) -> None:
    inv = r.inv
    origin = r.origin("dcim/power-feeds", obj)
    status = r.status("power-feed", obj, origin)
    if status is None:
        return
    supply = _choice(obj.get("supply")) or "ac"
    if supply != "ac":
        inv.ledger.skipped("power-feed", origin, "DC supply (dclint's feeds are AC)")
        return
    voltage, amperage = _number(obj.get("voltage")), _number(obj.get("amperage"))
    if voltage is None or amperage is None or voltage <= 0 or amperage <= 0:
        inv.problems.append(
            ImportProblem(
                origin,
                "a power feed needs a positive voltage and amperage (numbers, in V and A); "
                f"it has voltage {_shown(obj.get('voltage'))}, amperage "
                f"{_shown(obj.get('amperage'))}",
            )
        )
        return
    phase = _choice(obj.get("phase")) or "single-phase"  # NetBox's and Nautobot's default
    if not phase.startswith(("single", "three")):  # a value neither names: never guessed
        inv.problems.append(
            ImportProblem(
                origin, f"a power feed's phase '{phase}': expected single-phase or three-phase"
            )
        )
        return
    kind = _choice(obj.get("type")) or "primary"
    path = _choice(obj.get("power_path"))
    # Nautobot's power_path; NetBox: primary feeds path A, redundant feeds path B
    path = path.upper() if path in ("a", "b") else {"primary": "A", "redundant": "B"}.get(kind)
    rack = _key(obj.get("rack"))
    inv.feeds.append(
        FeedRec(
            sanitize(obj.get("name"), origin, inv.problems),
            origin,
            r.name("dcim/power-panels", obj.get("power_panel"), origin),
            r.name("dcim/racks", obj.get("rack"), origin) if rack in rack_ids else None,
            abs(voltage),
            amperage,
            3 if phase.startswith("three") else 1,
            _number(obj.get("max_utilization")),
            path,
            status,
            supply,
        )
    )


def _device_types(r: _Reader) -> None:
    draws: dict[str, list[float]] = {}
    for obj in r.lists.get("dcim/power-port-templates", []):
        key = _key(obj.get("device_type"))
        if key is None:
            continue
        # allocated, maximum, seen(a, m), ports, the largest one port's maximum
        total = draws.setdefault(key, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        total[4] += 1
        for i, field in enumerate(("allocated_draw", "maximum_draw")):
            value = _number(obj.get(field))
            if value is not None:
                total[i] += value
                total[i + 2] = 1.0
                if i == 1:
                    total[5] = max(total[5], value)
    for obj in r.lists.get("dcim/device-types", []):
        ident = str(obj.get("id"))
        key = _type_key(obj)
        d = draws.get(ident)
        r.inv.device_types[ident] = DeviceTypeRec(
            sanitize(key, f"device type {ident}", r.inv.problems),
            sanitize(obj.get("model") or key, f"device type {ident}", r.inv.problems),
            d[0] if d and d[2] else None,
            d[1] if d and d[3] else None,
            int(d[4]) if d else 0,
            d[5] if d and d[3] else None,
        )


def _type_key(obj: Mapping[str, Any]) -> str:
    """A device type's mapping key: NetBox's slug, else (Nautobot) its model."""
    return str(obj.get("slug") or obj.get("model") or obj.get("display") or obj.get("id"))


def _device(r: _Reader, obj: Mapping[str, Any], rack_ids: set[str]) -> None:
    inv = r.inv
    origin = r.origin("dcim/devices", obj)
    status = r.status("device", obj, origin)
    if status is None:
        return
    dtype = obj.get("device_type")
    key = _key(dtype)
    if key is None:
        inv.ledger.skipped("device", origin, "no device type")
        return
    if key not in inv.device_types:  # a type not in the dump: its nested form names it
        nested = dtype if isinstance(dtype, Mapping) else {"id": key}
        inv.device_types[key] = DeviceTypeRec(
            sanitize(_type_key(nested), origin, inv.problems),
            sanitize(nested.get("model") or _type_key(nested), origin, inv.problems),
        )
    role_obj = obj.get("role") or obj.get("device_role")
    role = None
    if isinstance(role_obj, Mapping):
        role = role_obj.get("slug") or role_obj.get("name")
    elif role_obj is not None:
        role = role_obj
    rack = _key(obj.get("rack"))
    name = obj.get("name") or f"device-{obj.get('id')}"
    inv.devices.append(
        DeviceRec(
            sanitize(name, origin, inv.problems),
            origin,
            inv.device_types[key].key,
            r.name("dcim/racks", obj.get("rack"), origin) if rack in rack_ids else None,
            None if role is None else sanitize(role, origin, inv.problems),
            status,
        )
    )


def _ends(r: _Reader, cable: Mapping[str, Any], side: str) -> list[dict[str, Any]]:
    """The interfaces on one side of a cable: NetBox 3.3+ `a_terminations` lists, or the
    single `termination_a` of NetBox 3.2 and Nautobot."""
    out: list[dict[str, Any]] = []
    slots = cable.get("terminations")  # Nautobot 3.2: {"a1": {...}, "b1": {...}, "b2": ...}
    if isinstance(slots, Mapping) and slots:
        # by connector number: a2 before a10
        numbered = ((str(k)[1:], k) for k in slots if str(k)[:1] == side)
        for _, key in sorted((int(n), k) for n, k in numbered if n.isdigit() and n.isascii()):
            t = slots[key]
            if not isinstance(t, Mapping) or str(t.get("object_type")) != "dcim.interface":
                continue
            obj = r.resolve("dcim/interfaces", t)
            if obj is not None:
                out.append(obj)
        return out
    terms = cable.get(f"{side}_terminations")
    if isinstance(terms, list):
        for t in terms:
            if type(t) is not dict and not isinstance(t, Mapping):
                continue
            if "object_type" in t or "object_id" in t:  # REST: the termination's binding
                if str(t.get("object_type")) != "dcim.interface":
                    continue
                obj = r.resolve("dcim/interfaces", t.get("object") or t.get("object_id"))
            else:  # GraphQL: the terminating object itself
                if str(t.get("__typename", "InterfaceType")) != "InterfaceType":
                    continue
                obj = r.resolve("dcim/interfaces", t)
            if obj is not None:
                out.append(obj)
        return out
    letter = side[0]
    if str(cable.get(f"termination_{letter}_type", "dcim.interface")) != "dcim.interface":
        return out
    ref = cable.get(f"termination_{letter}") or cable.get(f"termination_{letter}_id")
    obj = r.resolve("dcim/interfaces", ref)
    return [] if obj is None else [obj]


def _speed(iface: Mapping[str, Any]) -> float | None:
    """Gb/s: the interface's speed (kb/s), else its type (`400gbase-x-osfp`)."""
    kbps = _number(iface.get("speed"))
    if kbps:
        return kbps / 1e6
    return _type_speed(_choice(iface.get("type")) or "")


@functools.lru_cache(maxsize=1024)
def _type_speed(kind: str) -> float | None:
    m = _SPEED_IN_TYPE.search(kind)
    return float(m.group(1)) if m else None


def _cables(r: _Reader) -> None:
    devices = {d.origin: d for d in r.inv.devices}
    device_origin = {
        str(o.get("id")): r.origin("dcim/devices", o) for o in r.lists.get("dcim/devices", [])
    }

    def end(iface: Mapping[str, Any]) -> tuple[DeviceRec | None, float | None]:
        return devices.get(device_origin.get(_key(iface.get("device")) or "", "")), _speed(iface)

    led = r.inv.ledger
    for cable in r.lists.get("dcim/cables", []):
        origin = r.origin("dcim/cables", cable)
        led.read("cable", origin)
        if cable.get("status") is None:
            cable = {**cable, "status": "connected"}
        if r.status("cable", cable, origin) is None:
            continue
        a_side, b_side = _ends(r, cable, "a"), _ends(r, cable, "b")
        if not a_side or not b_side:
            led.skipped("cable", origin, "not between two interfaces (power, console)")
            continue
        if len(a_side) == 1 and len(b_side) > 1:  # a breakout: one port to several
            pairs = [(a_side[0], b) for b in b_side]
        elif len(b_side) == 1 and len(a_side) > 1:
            pairs = [(a, b_side[0]) for a in a_side]
        else:
            pairs = list(zip(a_side, b_side, strict=False))
        for a, b in pairs:
            (da, sa), (db, sb) = end(a), end(b)
            if da is None or db is None:
                led.skipped("cable", origin, "to a device not imported")
                continue
            speeds = [s for s in (sa, sb) if s]
            r.inv.cables.append(CableRec(origin, da.name, db.name, min(speeds, default=None)))


def endpoint_lists(objs: Iterable[tuple[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """A dump from (path, objects) pairs, as `--save-dump` writes it."""
    return {path: objs_ for path, objs_ in objs}
