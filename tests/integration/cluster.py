"""The small AI cluster the import tests load into NetBox dumps and a real Nautobot.

Site dc1: two power panels in 2N (pp-a on path A, pp-b on path B), one feed from each into
every rack; eight racks of four DGX H100 (gpu-r01 ... gpu-r08), the last fed at 32 A where the
others have 100 A; a network rack (net-r01) with eight QM9700 leaves and four spines, rail-
optimised (node NIC k to leaf k) and 1:1 between the tiers; one console server whose device
type the mapping does not name. Standard library only: the Nautobot loader runs outside
dclint's environment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SITE = "dc1"
GPU_RACKS = [f"gpu-r{i:02d}" for i in range(1, 9)]
NET_RACK = "net-r01"
NODES_PER_RACK = 4
NICS = 8  # ConnectX-7 ports per DGX H100, one per GPU
LEAVES = [f"leaf{i}" for i in range(1, 9)]
SPINES = [f"spine{i}" for i in range(1, 5)]
UPLINKS_PER_SPINE = 8  # from each leaf: 4 spines x 8 = 32 up, 32 down


@dataclass
class Cluster:
    racks: list[str]
    panels: list[tuple[str, str]]  # (name, path)
    feeds: list[dict[str, Any]]  # name, panel, rack, voltage, amperage, phase, type, path
    device_types: list[dict[str, Any]]  # slug, model, manufacturer, u, allocated, maximum, psus
    devices: list[dict[str, Any]]  # name, type slug, role, rack
    cables: list[tuple[str, str, str, str]] = field(default_factory=list)  # dev, if, dev, if


def cluster(gpu_racks: int = 8, nodes: int = NODES_PER_RACK, small_last: bool = True) -> Cluster:
    """The cluster above; `gpu_racks` makes a larger site of the same shape (the bench's)."""
    width = max(2, len(str(gpu_racks)))
    racks = [f"gpu-r{i:0{width}d}" for i in range(1, gpu_racks + 1)]
    feeds = []
    for side, ftype in (("a", "primary"), ("b", "redundant")):
        for i, rack in enumerate([*racks, NET_RACK], start=1):
            small = (small_last and rack == racks[-1]) or rack == NET_RACK
            feeds.append(
                {
                    "name": f"pf-{side}{i:0{width}d}",
                    "panel": f"pp-{side}",
                    "rack": rack,
                    "voltage": 415,
                    "amperage": 32 if small else 100,
                    "phase": "three-phase",
                    "type": ftype,
                    "path": side,
                }
            )
    types = [
        {
            "slug": "dgx-h100",
            "model": "DGX H100",
            "manufacturer": "NVIDIA",
            "u": 8,
            "allocated": 1700,
            "maximum": 3300,
            "psus": 6,
        },
        {
            "slug": "qm9700",
            "model": "QM9700",
            "manufacturer": "NVIDIA",
            "u": 1,
            "allocated": 550,
            "maximum": 1720,
            "psus": 2,
        },
        {
            "slug": "cm7200",
            "model": "CM7200",
            "manufacturer": "Opengear",
            "u": 1,
            "allocated": 20,
            "maximum": 40,
            "psus": 1,
        },
    ]
    devices = []
    cables = []
    for rack in racks:
        for n in range(1, nodes + 1):
            name = f"{rack}-n{n}"
            devices.append({"name": name, "type": "dgx-h100", "role": "gpu-node", "rack": rack})
    # one scalable unit (SU) a group of 8 racks: 8 rail leaves; 64-port spines above them
    units = (gpu_racks + 7) // 8
    if units == 1:
        leaves_of = [LEAVES]
        spines = SPINES
    else:
        leaves_of = [[f"su{s}-leaf{k}" for k in range(1, 9)] for s in range(1, units + 1)]
        spines = [f"spine{j}" for j in range(1, units * 8 * 32 // 64 + 1)]
    for leaf in (x for su in leaves_of for x in su):
        devices.append({"name": leaf, "type": "qm9700", "role": "leaf", "rack": NET_RACK})
    for spine in spines:
        devices.append({"name": spine, "type": "qm9700", "role": "spine", "rack": NET_RACK})
    devices.append({"name": "console1", "type": "cm7200", "role": "console", "rack": NET_RACK})
    port: dict[str, int] = {}
    for r, rack in enumerate(racks):
        for n in range(1, nodes + 1):
            for k, leaf in enumerate(leaves_of[r // 8]):
                port[leaf] = port.get(leaf, 0) + 1
                cables.append((f"{rack}-n{n}", f"cx7-{k}", leaf, f"p{port[leaf]}"))
    spine_port: dict[str, int] = {}
    all_leaves = [x for su in leaves_of for x in su]
    per_spine = 32 // min(32, len(spines))  # each leaf's 32 uplinks spread over the spines
    for i, leaf in enumerate(all_leaves):
        up = 32
        chosen = [spines[(i * 32 // per_spine + j) % len(spines)] for j in range(32 // per_spine)]
        for spine in chosen:
            for _ in range(per_spine):
                up += 1
                spine_port[spine] = spine_port.get(spine, 0) + 1
                cables.append((leaf, f"p{up}", spine, f"p{spine_port[spine]}"))
    return Cluster(
        racks=[*racks, NET_RACK],
        panels=[("pp-a", "a"), ("pp-b", "b")],
        feeds=feeds,
        device_types=types,
        devices=devices,
        cables=cables,
    )


def interfaces(c: Cluster) -> list[tuple[str, str]]:
    """(device, interface) of every cabled interface, in cable order, each once."""
    seen: dict[tuple[str, str], None] = {}
    for a, ai, b, bi in c.cables:
        seen.setdefault((a, ai))
        seen.setdefault((b, bi))
    return list(seen)


def netbox_dump(c: Cluster, base: str = "https://netbox.example.com") -> dict[str, Any]:
    """The cluster as NetBox 4's REST API lists it (`GET /api/dcim/...`), each path's results."""
    api = base + "/api/"

    def ref(path: str, ident: int, **more: Any) -> dict[str, Any]:
        return {
            "id": ident,
            "url": f"{api}{path}/{ident}/",
            "display_url": f"{base}/{path}/{ident}/",
            "display": more.get("name", ""),
            **more,
        }

    site = ref("dcim/sites", 1, name="DC1", slug=SITE)
    rack_id = {name: i for i, name in enumerate(c.racks, start=1)}
    racks = [
        {
            **ref("dcim/racks", i, name=name),
            "site": site,
            "location": None,
            "status": {"value": "active", "label": "Active"},
            "u_height": 48,
            "facility_id": None,
        }
        for name, i in rack_id.items()
    ]
    panel_id = {name: i for i, (name, _) in enumerate(c.panels, start=1)}
    panels = [
        {**ref("dcim/power-panels", i, name=name), "site": site, "location": None}
        for name, i in panel_id.items()
    ]
    feeds = []
    for i, f in enumerate(c.feeds, start=1):
        feeds.append(
            {
                **ref("dcim/power-feeds", i, name=f["name"]),
                "power_panel": ref("dcim/power-panels", panel_id[f["panel"]], name=f["panel"]),
                "rack": ref("dcim/racks", rack_id[f["rack"]], name=f["rack"]),
                "status": {"value": "active", "label": "Active"},
                "type": {"value": f["type"], "label": f["type"].title()},
                "supply": {"value": "ac", "label": "AC"},
                "phase": {"value": f["phase"], "label": "Three phase"},
                "voltage": f["voltage"],
                "amperage": f["amperage"],
                "max_utilization": 80,
            }
        )
    type_id = {t["slug"]: i for i, t in enumerate(c.device_types, start=1)}
    types, templates = [], []
    for t in c.device_types:
        i = type_id[t["slug"]]
        types.append(
            {
                **ref("dcim/device-types", i, model=t["model"], slug=t["slug"]),
                "manufacturer": {"id": i, "name": t["manufacturer"]},
                "u_height": t["u"],
            }
        )
        for p in range(1, t["psus"] + 1):
            templates.append(
                {
                    **ref("dcim/power-port-templates", len(templates) + 1, name=f"psu{p}"),
                    "device_type": ref("dcim/device-types", i, model=t["model"], slug=t["slug"]),
                    "maximum_draw": t["maximum"],
                    "allocated_draw": t["allocated"],
                }
            )
    dev_id = {d["name"]: i for i, d in enumerate(c.devices, start=1)}
    devices = []
    for d in c.devices:
        t = next(t for t in c.device_types if t["slug"] == d["type"])
        devices.append(
            {
                **ref("dcim/devices", dev_id[d["name"]], name=d["name"]),
                "device_type": ref(
                    "dcim/device-types", type_id[t["slug"]], model=t["model"], slug=t["slug"]
                ),
                "role": {"id": 1, "name": d["role"], "slug": d["role"]},
                "site": site,
                "rack": ref("dcim/racks", rack_id[d["rack"]], name=d["rack"]),
                "status": {"value": "active", "label": "Active"},
            }
        )
    iface_id = {key: i for i, key in enumerate(interfaces(c), start=1)}
    ifaces = [
        {
            **ref("dcim/interfaces", i, name=name),
            "device": ref("dcim/devices", dev_id[dev], name=dev),
            "type": {"value": "400gbase-x-osfp", "label": "OSFP (400GE)"},
            "speed": None,
        }
        for (dev, name), i in iface_id.items()
    ]
    cables = []
    for i, (a, ai, b, bi) in enumerate(c.cables, start=1):

        def term(dev: str, name: str) -> dict[str, Any]:
            ident = iface_id[(dev, name)]
            return {
                "object_type": "dcim.interface",
                "object_id": ident,
                "object": {
                    **ref("dcim/interfaces", ident, name=name),
                    "device": ref("dcim/devices", dev_id[dev], name=dev),
                },
            }

        cables.append(
            {
                **ref("dcim/cables", i),
                "a_terminations": [term(a, ai)],
                "b_terminations": [term(b, bi)],
                "status": {"value": "connected", "label": "Connected"},
            }
        )
    return {
        "dcim/sites": [site],
        "dcim/racks": racks,
        "dcim/power-panels": panels,
        "dcim/power-feeds": feeds,
        "dcim/device-types": types,
        "dcim/power-port-templates": templates,
        "dcim/devices": devices,
        "dcim/interfaces": ifaces,
        "dcim/cables": cables,
    }


def _graphql_value(value: Any, key: str) -> Any:
    """A REST value as NetBox's GraphQL answers it: ids as strings, choice fields as their
    enum names (`ACTIVE`, `THREE_PHASE`, `A_400GBASE_X_OSFP`: netbox#14494), no URLs."""
    if isinstance(value, dict):
        if set(value) == {"value", "label"}:
            name = str(value["value"]).upper().replace("-", "_")
            return f"A_{name}" if name[:1].isdigit() else name
        return {
            k: _graphql_value(v, k)
            for k, v in value.items()
            if k not in ("url", "display_url", "display")
        }
    if isinstance(value, list):
        return [_graphql_value(v, key) for v in value]
    if key == "id":
        return str(value)
    return value


def netbox_graphql(c: Cluster) -> dict[str, Any]:
    """The cluster as NetBox's GraphQL API answers GRAPHQL_QUERY: `{"data": {"rack_list":
    [...]}}`, a cable's terminations being the interfaces themselves."""
    rest = netbox_dump(c)
    names = {
        "dcim/sites": "site_list",
        "dcim/racks": "rack_list",
        "dcim/power-panels": "power_panel_list",
        "dcim/power-feeds": "power_feed_list",
        "dcim/device-types": "device_type_list",
        "dcim/power-port-templates": "power_port_template_list",
        "dcim/devices": "device_list",
        "dcim/interfaces": "interface_list",
        "dcim/cables": "cable_list",
    }
    for cable in rest["dcim/cables"]:
        for side in ("a_terminations", "b_terminations"):
            cable[side] = [
                {"__typename": "InterfaceType", "id": t["object_id"]} for t in cable[side]
            ]
    return {"data": {names[k]: _graphql_value(v, k) for k, v in rest.items()}}
