"""A client's hall as NetBox 4.x's REST API lists it (issue #49): what a consultant meets.

Site `campus` holds two UPS panels at the campus level (no location) and the location
`hall-1`, whose locations Row A, Row B and Row N are the client's rack groups (NetBox 4 has
no rack groups: rows are locations). The hall's two RPPs (415 V) are fed by the UPS panels
(NetBox holds no panel-to-panel chain: the mapping's `fed_by` names it; the two UPS-to-RPP
circuits are feeds without a rack). Nine racks: A01-A04 and B01-B04 of four DGX H100 each
(one node in A02 offline for RMA, B04 planned), N01 with the fabric's 12 QM9700; a floor-grid
`facility_id` on each rack that is not its row. 20 feeds; 64 devices of five types: DGX H100
(six 3.3 kW PSUs, 1.7 kW allocated on each: a 10.2 kW device), QM9700, SN2201 management
switches, PDUs and a console server (the last three not in the mapping). Standard library
only."""

from __future__ import annotations

from typing import Any

BASE = "https://netbox.example.com"
GPU_RACKS = [f"A{i:02d}" for i in range(1, 5)] + [f"B{i:02d}" for i in range(1, 5)]
RACKS = [*GPU_RACKS, "N01"]
OFFLINE = "A02-n3"  # in repair (RMA): it comes back
PLANNED_RACK = "B04"
TYPES = [  # slug, model, psus, allocated (W a port), maximum (W a port)
    ("dgx-h100", "DGX H100", 6, 1700, 3300),
    ("qm9700", "QM9700", 2, 550, 1720),
    ("sn2201", "SN2201", 2, 100, 250),
    ("pdu-x", "PDU-X", 1, None, None),
    ("cm7200", "CM7200", 1, 20, 40),
]


def _ref(path: str, ident: int, **more: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "url": f"{BASE}/api/{path}/{ident}/",
        "display_url": f"{BASE}/{path}/{ident}/",
        "display": more.get("name", ""),
        **more,
    }


def _status(value: str) -> dict[str, str]:
    return {"value": value, "label": value.title()}


def hall_dump() -> dict[str, Any]:
    site = _ref("dcim/sites", 1, name="Campus", slug="campus")
    hall = {**_ref("dcim/locations", 1, name="Hall 1", slug="hall-1"), "site": site}
    hall["parent"] = None
    rows = {}
    for i, row in enumerate(("A", "B", "N"), start=2):
        loc = _ref("dcim/locations", i, name=f"Row {row}", slug=f"row-{row.lower()}")
        rows[row] = {**loc, "site": site, "parent": {"id": 1, "name": "Hall 1"}, "_depth": 1}
    rack_id = {name: i for i, name in enumerate(RACKS, start=1)}
    racks = []
    for name, i in rack_id.items():
        row = rows[name[0]]
        racks.append(
            {
                **_ref("dcim/racks", i, name=name),
                "site": site,
                "location": {k: row[k] for k in ("id", "name", "slug", "url", "display")},
                "status": _status("planned" if name == PLANNED_RACK else "active"),
                "facility_id": f"G-{10 + i}",  # a floor-grid cell, not a row
                "u_height": 48,
            }
        )
    panels = [
        {**_ref("dcim/power-panels", 1, name="ups-a"), "site": site, "location": None},
        {**_ref("dcim/power-panels", 2, name="ups-b"), "site": site, "location": None},
        {**_ref("dcim/power-panels", 3, name="rpp-a"), "site": site, "location": hall},
        {**_ref("dcim/power-panels", 4, name="rpp-b"), "site": site, "location": hall},
    ]
    feeds = []

    def feed(name: str, panel: int, rack: str | None, amps: int, kind: str) -> None:
        feeds.append(
            {
                **_ref("dcim/power-feeds", len(feeds) + 1, name=name),
                "power_panel": _ref("dcim/power-panels", panel, name=panels[panel - 1]["name"]),
                "rack": None if rack is None else _ref("dcim/racks", rack_id[rack], name=rack),
                "status": _status("active"),
                "type": _status(kind),
                "supply": _status("ac"),
                "phase": _status("three-phase"),
                "voltage": 415,
                "amperage": amps,
                "max_utilization": 80,
            }
        )

    feed("ups-a-rpp-a", 1, None, 1250, "primary")  # the UPS-to-RPP circuits
    feed("ups-b-rpp-b", 2, None, 1250, "redundant")
    for side, panel, kind in (("a", 3, "primary"), ("b", 4, "redundant")):
        for rack in RACKS:  # A02's 63 A feeds carry its 40.8 kW only if the RMA node is lost
            feed(f"{rack}-{side}", panel, rack, 63 if rack == "A02" else 100, kind)
    types, templates = [], []
    for i, (slug, model, psus, allocated, maximum) in enumerate(TYPES, start=1):
        types.append({**_ref("dcim/device-types", i, model=model, slug=slug), "u_height": 1})
        for p in range(1, psus + 1):
            templates.append(
                {
                    **_ref("dcim/power-port-templates", len(templates) + 1, name=f"psu{p}"),
                    "device_type": _ref("dcim/device-types", i, model=model, slug=slug),
                    "maximum_draw": maximum,
                    "allocated_draw": allocated,
                }
            )
    type_id = {t[0]: i for i, t in enumerate(TYPES, start=1)}
    devices = []

    def device(name: str, slug: str, role: str, rack: str | None) -> None:
        model = next(t[1] for t in TYPES if t[0] == slug)
        devices.append(
            {
                **_ref("dcim/devices", len(devices) + 1, name=name),
                "device_type": _ref("dcim/device-types", type_id[slug], model=model, slug=slug),
                "role": {"id": 1, "name": role, "slug": role},
                "site": site,
                "location": None if rack is None else racks[rack_id[rack] - 1]["location"],
                "rack": None if rack is None else _ref("dcim/racks", rack_id[rack], name=rack),
                "status": _status("offline" if name == OFFLINE else "active"),
            }
        )

    for rack in GPU_RACKS:
        for n in range(1, 5):
            device(f"{rack}-n{n}", "dgx-h100", "gpu-node", rack)
    for k in range(1, 9):
        device(f"leaf{k}", "qm9700", "leaf", "N01")
    for k in range(1, 5):
        device(f"spine{k}", "qm9700", "spine", "N01")
    for rack in RACKS:
        device(f"{rack}-mgmt", "sn2201", "mgmt", rack)
    for rack in RACKS:
        device(f"{rack}-pdu", "pdu-x", "pdu", rack)
    device("N01-pdu2", "pdu-x", "pdu", "N01")
    device("console1", "cm7200", "console", "N01")
    assert (len(feeds), len(devices)) == (20, 64)
    return {
        "dcim/sites": [site],
        "dcim/locations": [hall, *rows.values()],
        "dcim/racks": racks,
        "dcim/power-panels": panels,
        "dcim/power-feeds": feeds,
        "dcim/device-types": types,
        "dcim/power-port-templates": templates,
        "dcim/devices": devices,
        "dcim/interfaces": [],
        "dcim/cables": [],
    }


MAPPING = """\
name: hall1
site: hall-1
device_types:
  dgx-h100: {kind: gpu_node, platform: dgx-h100}
  qm9700: {kind: switch, switch: qm9700}
power_draw: maximum
panels:
  ups-a: {current_rating: 1600 A, voltage: 415 V}
  ups-b: {current_rating: 1600 A, voltage: 415 V}
  rpp-a: {current_rating: 800 A, fed_by: ups-a}
  rpp-b: {current_rating: 800 A, fed_by: ups-b}
"""


def nautobot_hall_dump() -> dict[str, Any]:
    """The same hall as Nautobot 3.x's REST API lists it at depth=1: locations (campus, the
    hall under it), rack groups Row A/B/N, Status objects, `power_path` on panels and feeds,
    the UPS-to-RPP circuits as panel-to-panel feeds (`destination_panel`), device types keyed
    by model."""
    nb = hall_dump()
    url = "https://nautobot.example.com/api"

    def ref(path: str, ident: Any, **more: Any) -> dict[str, Any]:
        return {"id": str(ident), "url": f"{url}/{path}/{ident}/", "display": "", **more}

    def status(obj: dict[str, Any]) -> dict[str, str]:
        return {"name": obj["status"]["label"]}

    campus = {**ref("dcim/locations", "campus", name="Campus"), "parent": None}
    hall = {**ref("dcim/locations", "hall-1", name="Hall 1"), "parent": {"id": "campus"}}
    groups = {row: ref("dcim/rack-groups", f"row-{row}", name=f"Row {row}") for row in "ABN"}
    racks = [
        {
            **ref("dcim/racks", f"rack-{r['name']}", name=r["name"]),
            "location": {"id": "hall-1"},
            "rack_group": groups[r["name"][0]],
            "status": status(r),
            "facility_id": r["facility_id"],
        }
        for r in nb["dcim/racks"]
    ]
    panels = [
        {
            **ref("dcim/power-panels", p["name"], name=p["name"]),
            "location": {"id": "campus" if p["name"].startswith("ups") else "hall-1"},
            "power_path": {"value": p["name"][-1]},
        }
        for p in nb["dcim/power-panels"]
    ]
    feeds = []
    for f in nb["dcim/power-feeds"]:
        panel = f["power_panel"]["name"]
        feed = {
            **ref("dcim/power-feeds", f"feed-{f['name']}", name=f["name"]),
            "power_panel": {"id": panel, "name": panel},
            "rack": None if f["rack"] is None else {"id": f"rack-{f['rack']['name']}"},
            "status": status(f),
            "type": f["type"],
            "supply": f["supply"],
            "phase": f["phase"],
            "voltage": f["voltage"],
            "amperage": f["amperage"],
            "max_utilization": f["max_utilization"],
            "power_path": {"value": panel[-1]},
        }
        if f["rack"] is None:  # ups-a-rpp-a: the UPS panel feeding the RPP
            down = "rpp-" + panel[-1]
            feed["destination_panel"] = {"id": down, "name": down}
        feeds.append(feed)
    types = [
        {**ref("dcim/device-types", t["slug"]), "model": t["model"]}
        for t in nb["dcim/device-types"]
    ]
    templates = [
        {
            **ref("dcim/power-port-templates", t["id"]),
            "device_type": {"id": t["device_type"]["slug"]},
            "maximum_draw": t["maximum_draw"],
            "allocated_draw": t["allocated_draw"],
        }
        for t in nb["dcim/power-port-templates"]
    ]
    devices = [
        {
            **ref("dcim/devices", f"dev-{d['name']}", name=d["name"]),
            "device_type": {"id": d["device_type"]["slug"], "model": d["device_type"]["model"]},
            "role": {"name": d["role"]["name"]},
            "location": {"id": "hall-1"},
            "rack": {"id": f"rack-{d['rack']['name']}"},
            "status": status(d),
        }
        for d in nb["dcim/devices"]
    ]
    return {
        "dcim/locations": [campus, hall],
        "dcim/racks": racks,
        "dcim/power-panels": panels,
        "dcim/power-feeds": feeds,
        "dcim/device-types": types,
        "dcim/power-port-templates": templates,
        "dcim/devices": devices,
        "dcim/interfaces": [],
        "dcim/cables": [],
    }


NAUTOBOT_MAPPING = """\
name: hall1
site: Hall 1
device_types:
  DGX H100: {kind: gpu_node, platform: dgx-h100}
  QM9700: {kind: switch, switch: qm9700}
power_draw: maximum
panels:
  ups-a: {current_rating: 1600 A, voltage: 415 V}
  ups-b: {current_rating: 1600 A, voltage: 415 V}
  "*": {current_rating: 800 A}
"""
