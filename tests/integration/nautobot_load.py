"""Load the test cluster (cluster.py) into a running Nautobot through its own REST API.

    NAUTOBOT_TOKEN=... python nautobot_load.py http://127.0.0.1:PORT

Standard library only (tests/integration/nautobot.sh runs it with any python3). Objects go in
as Nautobot 2.x/3.x takes them: a location type and a location (no sites), statuses and roles
by their ids, panels and feeds with Nautobot's own power_path (A/B), device types by model,
power port and interface templates (so every device gets its power ports and interfaces,
as a device-type library gives them), and
cables by `termination_a_type`/`termination_a_id`. Lists go in bulk (one POST per 200). The
token is read from the environment and sent only in the Authorization header; nothing here
prints it. Exits non-zero with the server's answer (never the token) when a request fails.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster import SITE, Cluster, cluster, interfaces
from hall import GPU_RACKS, OFFLINE, PLANNED_RACK, RACKS, TYPES

TIMEOUT_S = 900  # one bulk request: a busy two-core machine takes ~0.8 s a cable
CHUNK = 200
CABLE_CHUNK = 32  # each cable traces its path as it is made: smaller requests


class Api:
    def __init__(self, base: str, token: str) -> None:
        self.base = base.rstrip("/") + "/api/"
        self.headers = {
            "Authorization": f"Token {token}",
            "Accept": "application/json",
            "Content-Type": "application/json",
        }
        self.requests = 0

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers=self.headers
        )
        self.requests += 1
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:2000]
            message = f"nautobot_load: {method} {path}: {exc.code} {exc.reason}: {text}"
            raise SystemExit(message) from None

    def get_one(self, path: str, **query: str) -> dict[str, Any]:
        qs = "&".join(f"{k}={urllib.parse.quote(v)}" for k, v in query.items())
        answer = self.call("GET", f"{path}/?{qs}")
        if answer["count"] != 1:
            raise SystemExit(f"nautobot_load: {path} {query}: {answer['count']} objects, not 1")
        return dict(answer["results"][0])

    def list_all(self, path: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        page: str | None = f"{path}/?limit=200"
        while page is not None:
            answer = self.call("GET", page)
            out.extend(answer["results"])
            page = answer["next"] and answer["next"].split("/api/", 1)[1]
        return out

    def create(
        self, path: str, objects: list[dict[str, Any]], chunk: int = CHUNK
    ) -> list[dict[str, Any]]:
        """Bulk-create in chunks; the created objects in the order given."""
        out: list[dict[str, Any]] = []
        start = time.monotonic()
        for i in range(0, len(objects), chunk):
            out.extend(self.call("POST", f"{path}/", objects[i : i + chunk]))
        took = time.monotonic() - start
        print(f"nautobot_load: {len(out)} {path} in {took:.1f} s", file=sys.stderr, flush=True)
        return out


def load(api: Api, c: Cluster) -> dict[str, int]:
    active = api.get_one("extras/statuses", name="Active")["id"]
    connected = api.get_one("extras/statuses", name="Connected")["id"]
    (site_type,) = api.create(
        "dcim/location-types",
        [
            {
                "name": "Site",
                "nestable": False,
                "content_types": ["dcim.rack", "dcim.device", "dcim.powerpanel"],
            }
        ],
    )
    (site,) = api.create(
        "dcim/locations",
        [{"name": SITE, "location_type": site_type["id"], "status": active}],
    )
    racks = api.create(
        "dcim/racks",
        [{"name": name, "location": site["id"], "status": active} for name in c.racks],
    )
    rack_id = {r["name"]: r["id"] for r in racks}
    panels = api.create(
        "dcim/power-panels",
        [
            {"name": name, "location": site["id"], "power_path": path, "panel_type": "rpp"}
            for name, path in c.panels
        ],
    )
    panel_id = {p["name"]: p["id"] for p in panels}
    api.create(
        "dcim/power-feeds",
        [
            {
                "name": f["name"],
                "power_panel": panel_id[f["panel"]],
                "rack": rack_id[f["rack"]],
                "status": active,
                "type": f["type"],
                "power_path": f["path"],
                "supply": "ac",
                "phase": f["phase"],
                "voltage": f["voltage"],
                "amperage": f["amperage"],
                "max_utilization": 80,
            }
            for f in c.feeds
        ],
    )
    makers = sorted({t["manufacturer"] for t in c.device_types})
    created = api.create("dcim/manufacturers", [{"name": m} for m in makers])
    maker_id = {m["name"]: m["id"] for m in created}
    types = api.create(
        "dcim/device-types",
        [
            {"manufacturer": maker_id[t["manufacturer"]], "model": t["model"], "u_height": t["u"]}
            for t in c.device_types
        ],
    )
    type_id = {t["slug"]: d["id"] for t, d in zip(c.device_types, types, strict=True)}
    api.create(
        "dcim/power-port-templates",
        [
            {
                "device_type": type_id[t["slug"]],
                "name": f"psu{p}",
                "maximum_draw": t["maximum"],
                "allocated_draw": t["allocated"],
            }
            for t in c.device_types
            for p in range(1, t["psus"] + 1)
        ],
    )
    # interfaces as Nautobot users make them: templates on the device type, instantiated with
    # each device (the ports each type's cables use: cx7-0..7 on a node, p1..p64 on a switch)
    ports = interfaces(c)
    names: dict[str, list[str]] = {}
    slug_of = {d["name"]: d["type"] for d in c.devices}
    for dev, name in ports:
        kind = names.setdefault(slug_of[dev], [])
        if name not in kind:
            kind.append(name)
    api.create(
        "dcim/interface-templates",
        [
            {"device_type": type_id[slug], "name": name, "type": "400gbase-x-osfp"}
            for slug, kind in names.items()
            for name in kind
        ],
    )
    role_names = sorted({d["role"] for d in c.devices})
    role_id = {
        r["name"]: r["id"]
        for r in api.create(
            "extras/roles", [{"name": n, "content_types": ["dcim.device"]} for n in role_names]
        )
    }
    devices = api.create(
        "dcim/devices",
        [
            {
                "name": d["name"],
                "device_type": type_id[d["type"]],
                "role": role_id[d["role"]],
                "location": site["id"],
                "rack": rack_id[d["rack"]],
                "status": active,
            }
            for d in c.devices
        ],
    )
    dev_name = {d["id"]: d["name"] for d in devices}
    created = api.list_all("dcim/interfaces")
    iface_id = {(dev_name[i["device"]["id"]], i["name"]): i["id"] for i in created}
    missing = [key for key in ports if key not in iface_id]
    if missing:
        raise SystemExit(f"nautobot_load: devices came without interfaces {missing[:5]}")
    cables = api.create(
        "dcim/cables",
        [
            {
                "termination_a_type": "dcim.interface",
                "termination_a_id": iface_id[(a, ai)],
                "termination_b_type": "dcim.interface",
                "termination_b_id": iface_id[(b, bi)],
                "status": connected,
            }
            for a, ai, b, bi in c.cables
        ],
        chunk=CABLE_CHUNK,
    )
    return {
        "racks": len(racks),
        "power-panels": len(panels),
        "power-feeds": len(c.feeds),
        "devices": len(devices),
        "interfaces": len(created),
        "cables": len(cables),
    }


def load_hall(api: Api) -> dict[str, int]:
    """The client's hall of issue #49 (tests/integration/hall.py) beside the cluster: a campus
    location holding two UPS panels, the hall under it with its RPPs, rack groups Row A/B/N,
    the UPS-to-RPP circuits as panel-to-panel feeds, an offline (RMA) node, a planned rack.
    Device types the cluster made are reused (DGX H100, QM9700, CM7200: the same draws)."""
    status = {n: api.get_one("extras/statuses", name=n)["id"] for n in ("Active", "Planned")}
    status["Offline"] = api.get_one("extras/statuses", name="Offline")["id"]
    (campus_type,) = api.create(
        "dcim/location-types",
        [{"name": "Campus", "nestable": False, "content_types": ["dcim.powerpanel"]}],
    )
    (hall_type,) = api.create(
        "dcim/location-types",
        [
            {
                "name": "Hall",
                "parent": campus_type["id"],
                "nestable": False,
                "content_types": [
                    "dcim.rack",
                    "dcim.rackgroup",
                    "dcim.device",
                    "dcim.powerpanel",
                ],
            }
        ],
    )
    (campus,) = api.create(
        "dcim/locations",
        [{"name": "Campus", "location_type": campus_type["id"], "status": status["Active"]}],
    )
    (hall,) = api.create(
        "dcim/locations",
        [
            {
                "name": "Hall 1",
                "location_type": hall_type["id"],
                "parent": campus["id"],
                "status": status["Active"],
            }
        ],
    )
    groups = api.create(
        "dcim/rack-groups", [{"name": f"Row {r}", "location": hall["id"]} for r in "ABN"]
    )
    group_id = {g["name"][-1]: g["id"] for g in groups}
    racks = api.create(
        "dcim/racks",
        [
            {
                "name": name,
                "location": hall["id"],
                "rack_group": group_id[name[0]],
                "facility_id": f"G-{10 + i}",
                "status": status["Planned" if name == PLANNED_RACK else "Active"],
            }
            for i, name in enumerate(RACKS, start=1)
        ],
    )
    rack_id = {r["name"]: r["id"] for r in racks}
    panels = api.create(
        "dcim/power-panels",
        [
            {"name": f"ups-{p}", "location": campus["id"], "power_path": p, "panel_type": "ups"}
            for p in "ab"
        ]
        + [
            {"name": f"rpp-{p}", "location": hall["id"], "power_path": p, "panel_type": "rpp"}
            for p in "ab"
        ],
    )
    panel_id = {p["name"]: p["id"] for p in panels}
    common = {"status": status["Active"], "supply": "ac", "phase": "three-phase"}
    common |= {"voltage": 415, "max_utilization": 80}
    feeds = [
        {
            **common,
            "name": f"ups-{p}-rpp-{p}",
            "power_panel": panel_id[f"ups-{p}"],
            "destination_panel": panel_id[f"rpp-{p}"],
            "power_path": p,
            "type": "primary" if p == "a" else "redundant",
            "amperage": 1250,
        }
        for p in "ab"
    ]
    feeds += [
        {
            **common,
            "name": f"{rack}-{p}",
            "power_panel": panel_id[f"rpp-{p}"],
            "rack": rack_id[rack],
            "power_path": p,
            "type": "primary" if p == "a" else "redundant",
            "amperage": 63 if rack == "A02" else 100,
        }
        for p in "ab"
        for rack in RACKS
    ]
    api.create("dcim/power-feeds", feeds)
    maker = api.create("dcim/manufacturers", [{"name": "Generic"}])[0]["id"]
    new_types = api.create(
        "dcim/device-types",
        [{"manufacturer": maker, "model": m, "u_height": 1} for m in ("SN2201", "PDU-X")],
    )
    type_id = {t["model"]: t["id"] for t in new_types}
    for model in ("DGX H100", "QM9700", "CM7200"):
        type_id[model] = api.get_one("dcim/device-types", model=model)["id"]
    api.create(
        "dcim/power-port-templates",
        [
            {"device_type": type_id[model], "name": f"psu{p}"}
            | ({} if allocated is None else {"allocated_draw": allocated})
            | ({} if maximum is None else {"maximum_draw": maximum})
            for _, model, psus, allocated, maximum in TYPES
            if model in ("SN2201", "PDU-X")
            for p in range(1, psus + 1)
        ],
    )
    role_id = {r["name"]: r["id"] for r in api.list_all("extras/roles")}
    missing = [n for n in ("mgmt", "pdu") if n not in role_id]
    for r in api.create(
        "extras/roles", [{"name": n, "content_types": ["dcim.device"]} for n in missing]
    ):
        role_id[r["name"]] = r["id"]
    model_of = {slug: model for slug, model, *_ in TYPES}
    plan = [(f"{r}-n{n}", "dgx-h100", "gpu-node", r) for r in GPU_RACKS for n in range(1, 5)]
    plan += [(f"hall-leaf{k}", "qm9700", "leaf", "N01") for k in range(1, 9)]
    plan += [(f"hall-spine{k}", "qm9700", "spine", "N01") for k in range(1, 5)]
    plan += [(f"{r}-mgmt", "sn2201", "mgmt", r) for r in RACKS]
    plan += [(f"{r}-pdu", "pdu-x", "pdu", r) for r in RACKS]
    plan += [("N01-pdu2", "pdu-x", "pdu", "N01"), ("hall-console1", "cm7200", "console", "N01")]
    devices = api.create(
        "dcim/devices",
        [
            {
                "name": name,
                "device_type": type_id[model_of[slug]],
                "role": role_id[role],
                "location": hall["id"],
                "rack": rack_id[rack],
                "status": status["Offline" if name == OFFLINE else "Active"],
            }
            for name, slug, role, rack in plan
        ],
    )
    return {"racks": len(racks), "power-feeds": len(feeds), "devices": len(devices)}


def main() -> int:
    if len(sys.argv) != 2:
        raise SystemExit("usage: NAUTOBOT_TOKEN=... nautobot_load.py URL")
    token = os.environ.get("NAUTOBOT_TOKEN", "")
    if not token:
        raise SystemExit("nautobot_load: set NAUTOBOT_TOKEN")
    api = Api(sys.argv[1], token)
    start = time.monotonic()
    counts = load(api, cluster())
    counts |= {f"hall {k}": v for k, v in load_hall(api).items()}
    took = time.monotonic() - start
    print(f"nautobot_load: {json.dumps(counts)} in {api.requests} requests, {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
