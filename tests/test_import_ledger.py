"""The import ledger: every object a NetBox dump holds is either an element of the design
(its `origins`) or on the ledger (merged into one, or skipped and why); the counts add up,
on stderr (one line a kind), at the fragment's foot and in `--ledger FILE`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from integration.cluster import cluster, netbox_dump

from dclint.cli import main
from dclint.loader import load

HERE = Path(__file__).resolve().parent
NETBOX_MAP = HERE / "integration" / "netbox-import.yaml"
WALKED = {
    "dcim/sites": "site",
    "dcim/locations": "location",
    "dcim/racks": "rack",
    "dcim/power-panels": "power-panel",
    "dcim/power-feeds": "power-feed",
    "dcim/devices": "device",
    "dcim/cables": "cable",
}


def _origin(kind: str, obj: dict[str, Any]) -> str:
    return f"NetBox {kind} {obj['id']} <{obj['display_url']}>"


def _mutated() -> dict[str, Any]:
    """The test cluster with what a real site holds besides: a second site's rack and its
    device, a decommissioning device, a cable between power ports."""
    dump = netbox_dump(cluster())
    base = "https://netbox.example.com"
    other = {"id": 2, "name": "DC2", "slug": "dc2", "display_url": f"{base}/dcim/sites/2/"}
    dump["dcim/sites"].append(other)
    rack = {**dump["dcim/racks"][0], "id": 99, "name": "far-r01", "site": other}
    rack["display_url"] = f"{base}/dcim/racks/99/"
    dump["dcim/racks"].append(rack)
    far = {**dump["dcim/devices"][0], "id": 99, "name": "far-n1", "site": other, "rack": rack}
    far["display_url"] = f"{base}/dcim/devices/99/"
    dump["dcim/devices"].append(far)
    dump["dcim/devices"][1]["status"] = {"value": "decommissioning", "label": "Decommissioning"}
    power = {"object_type": "dcim.powerport", "object_id": 1}
    dump["dcim/cables"].append(
        {
            "id": 999,
            "display_url": f"{base}/dcim/cables/999/",
            "a_terminations": [power],
            "b_terminations": [power],
            "status": {"value": "connected", "label": "Connected"},
        }
    )
    return dump


def test_every_object_read_is_in_the_design_or_on_the_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = _mutated()
    (tmp_path / "dump.json").write_text(json.dumps(dump), encoding="utf-8")
    out, ledger_file = tmp_path / "site.yaml", tmp_path / "ledger.json"
    args = ["import", "netbox", "--from-file", str(tmp_path / "dump.json")]
    args += ["--map", str(NETBOX_MAP), "--site", "dc1", "-o", str(out)]
    assert main([*args, "--ledger", str(ledger_file)]) == 0
    err = capsys.readouterr().err
    ledger = json.loads(ledger_file.read_text(encoding="utf-8"))
    from dclint.model.origins import origin_table

    design = load(str(out))
    in_design = set(origin_table(design.origins).values())
    on_ledger: dict[str, str] = {}
    for kind, entry in ledger.items():
        assert entry["unplaced_objects"] == [], kind
        assert entry["read"] == entry["imported"] + entry["merged"] + entry["skipped"]
        for state in ("imported", "merged", "skipped"):
            assert len(entry[f"{state}_objects"]) == entry[state]
            for item in entry[f"{state}_objects"]:
                on_ledger[item["source"]] = state
    walked = 0
    for path, kind in WALKED.items():
        for obj in dump.get(path, []):
            origin = _origin(kind, obj)
            assert origin in in_design or origin in on_ledger, origin
            walked += 1
    assert walked == 1 + 1 + 10 + 2 + 18 + 46 + 513
    # the design's elements are the ledger's imported racks, panels, feeds and switches
    imported = {s for s, state in on_ledger.items() if state == "imported"}
    assert in_design <= imported
    skipped = {
        item["source"]: item["reason"]
        for entry in ledger.values()
        for item in entry["skipped_objects"]
    }
    base = "https://netbox.example.com/dcim"
    assert skipped == {
        f"NetBox site 2 <{base}/sites/2/>": "outside the location",
        f"NetBox rack 99 <{base}/racks/99/>": "outside the location",
        f"NetBox device 99 <{base}/devices/99/>": "outside the location",
        f"NetBox device 2 <{base}/devices/2/>": "status decommissioning",
        f"NetBox device 45 <{base}/devices/45/>": "unmapped type cm7200",
        f"NetBox cable 999 <{base}/cables/999/>": "not between two interfaces (power, console)",
        # the decommissioning node's eight NICs' cables (gpu-r01-n2's are cables 9-16)
        **{
            f"NetBox cable {i} <{base}/cables/{i}/>": "to a device not imported"
            for i in range(9, 17)
        },
    }
    # stderr: one line a kind; the fragment's foot: the same counts and each skipped object
    assert (
        "dclint import: ledger: device: read 46, imported 12, merged 31, skipped 3 "
        "(outside the location: 1; status decommissioning: 1; unmapped type cm7200: 1)\n"
    ) in err
    assert (
        "dclint import: ledger: cable: read 513, imported 504, merged 0, skipped 9 (not between "
        "two interfaces (power, console): 1; to a device not imported: 8)\n"
    ) in err
    assert "dclint import: ledger: rack: read 10, imported 9, merged 0, skipped 1" in err
    text = out.read_text(encoding="utf-8")
    assert f"#   NetBox device 2 <{base}/devices/2/>: status decommissioning\n" in text
    assert "#   rack: read 10, imported 9, merged 0, skipped 1 (outside the location: 1)\n" in text
    # the decommissioning node is not load: gpu-r01 holds 3 nodes
    assert "dgx-h100-x3" in text


def test_a_design_that_would_not_load_is_never_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dump.json").write_text(json.dumps(netbox_dump(cluster())), encoding="utf-8")
    mapping = NETBOX_MAP.read_text(encoding="utf-8").replace(
        '"*": {current_rating: 800 A}', '"*": {current_rating: 800 A, fed_by: ups-z}'
    )
    (tmp_path / "map.yaml").write_text(mapping, encoding="utf-8")
    out = tmp_path / "site.yaml"
    args = ["import", "netbox", "--from-file", str(tmp_path / "dump.json")]
    assert main([*args, "--map", str(tmp_path / "map.yaml"), "-o", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err.splitlines()
    errors = [e for e in err if e.startswith("dclint import: error: ")]
    assert len(errors) == 2  # pp-a's and pp-b's fed_by, each at its NetBox panel
    for line in errors:
        assert "the design written would not load: unknown panel 'ups-z'" in line


def test_the_ledger_is_the_same_bytes_whatever_the_dump_order(tmp_path: Path) -> None:
    import random

    dump = _mutated()
    texts = []
    for i, order in enumerate(
        (dump, {k: random.Random(3).sample(v, len(v)) for k, v in dump.items()})
    ):
        (tmp_path / "dump.json").write_text(json.dumps(order), encoding="utf-8")
        out, ledger = tmp_path / f"site{i}.yaml", tmp_path / f"ledger{i}.json"
        args = ["import", "netbox", "--from-file", str(tmp_path / "dump.json")]
        args += ["--map", str(NETBOX_MAP), "--site", "dc1", "-o", str(out)]
        assert main([*args, "--ledger", str(ledger)]) == 0
        texts.append((out.read_text(encoding="utf-8"), ledger.read_text(encoding="utf-8")))
    assert texts[0] == texts[1]
    assert texts[0][0].count("\n#   NetBox cable ") == 9  # the 9 skipped cables, in order
