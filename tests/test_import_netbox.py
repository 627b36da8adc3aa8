"""`dclint import netbox --from-file`: the test cluster (tests/integration/cluster.py) in
NetBox's REST and GraphQL shapes, written as a design that `dclint check` reads, with the
exact findings its 32 A rack earns; stable bytes; problems listed, never guessed."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from integration.cluster import cluster, netbox_dump, netbox_graphql

from dclint.cli import main

HERE = Path(__file__).resolve().parent
NETBOX_MAP = HERE / "integration" / "netbox-import.yaml"


def _import(tmp_path: Path, dump: object, *extra: str, name: str = "dump.json") -> tuple[int, str]:
    path = tmp_path / name
    path.write_text(json.dumps(dump), encoding="utf-8")
    out = tmp_path / "site.yaml"
    code = main(["import", "netbox", "--from-file", str(path), *extra, "-o", str(out)])
    return code, out.read_text(encoding="utf-8") if out.exists() else ""


def _findings(path: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str, int]]:
    capsys.readouterr()
    code = main(["check", str(path), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    return sorted(
        (f["rule"], f["subject"], f["line"], f.get("origin"))
        for f in report["designs"][0]["findings"]
    )


EXPECTED_HEAD = """\
name: dc1
site:
  name: dc1
power:
  panels:
    - id: pp-a  # NetBox power-panel 1 <https://netbox.example.com/dcim/power-panels/1/>
      voltage: 415 V
      current_rating: 800 A
      path: A
    - id: pp-b  # NetBox power-panel 2 <https://netbox.example.com/dcim/power-panels/2/>
      voltage: 415 V
      current_rating: 800 A
      path: B
  feeds:
    - id: pf-a[01-07]  # NetBox power-feeds 1-7
      panel: pp-a
      voltage: 415 V
      current_rating: 100 A
      phases: 3
      max_utilisation: 80%
      path: A
    - id: pf-a[08-09]  # NetBox power-feeds 8-9
"""
EXPECTED_RACKS = """\
rack_types:
  dgx-h100-x4:
    platform: dgx-h100
    nodes: 4
racks:
  - id: gpu-r[01-08]  # NetBox racks 1-8
    type: dgx-h100-x4
    feeds: [pf-a$n, pf-b$n]
  - id: net-r01  # NetBox rack 9 <https://netbox.example.com/dcim/racks/9/>
    it_load: 13.2 kW
    feeds: [pf-a09, pf-b09]
fabrics:
  - id: compute
    kind: compute
    switches:
      - {id: 'leaf[1-8]', model: qm9700, tier: leaf}  # NetBox devices 33-40
      - {id: 'spine[1-4]', model: qm9700, tier: spine}  # NetBox devices 41-44
    links:
      - {a: 'gpu-r[01-08]', b: leaf1, count: 4, speed: 400 Gb/s}  # NetBox cables 1, 9, 17, \
25, 33, 41 ... (32 in all)
"""


def test_rest_dump_becomes_a_compact_design_with_sources(tmp_path: Path) -> None:
    code, text = _import(tmp_path, netbox_dump(cluster()), "--map", str(NETBOX_MAP))
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == (
        "# Written by `dclint import netbox --from-file dump.json --map netbox-import.yaml`. "
        "Do not edit: run the import again."
    )
    body = "\n".join(lines[3:]) + "\n"
    assert body.startswith(EXPECTED_HEAD)
    assert EXPECTED_RACKS in body
    assert body.count("\n      - {a: ") == 12  # 8 rack-leaf runs, 4 leaf-spine runs
    assert "      - {a: 'leaf[1-8]', b: spine4, count: 8, speed: 400 Gb/s}" in body
    assert body.endswith(
        "# Not imported, device types the mapping file does not name (devices):\n"
        "#   cm7200: 1\n"
        "# Import ledger (read = imported + merged + skipped):\n"
        "#   cable: read 512, imported 512, merged 0, skipped 0\n"
        "#   device: read 45, imported 12, merged 32, skipped 1 (unmapped type cm7200: 1)\n"
        "#   power-feed: read 18, imported 18, merged 0, skipped 0\n"
        "#   power-panel: read 2, imported 2, merged 0, skipped 0\n"
        "#   rack: read 9, imported 9, merged 0, skipped 0\n"
        "#   site: read 1, imported 1, merged 0, skipped 0\n"
        "# Skipped devices:\n"
        "#   NetBox device 45 <https://netbox.example.com/dcim/devices/45/>: unmapped type "
        "cm7200 (device console1)\n"
    )


def test_round_trip_checks_with_the_exact_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text = _import(tmp_path, netbox_dump(cluster()), "--map", str(NETBOX_MAP))
    assert code == 0
    lines = text.splitlines()
    a08 = lines.index("    - id: pf-a[08-09]  # NetBox power-feeds 8-9") + 1
    b08 = lines.index("    - id: pf-b[08-09]  # NetBox power-feeds 17-18") + 1
    racks = lines.index("  - id: gpu-r[01-08]  # NetBox racks 1-8") + 1
    # gpu-r08's 32 A feeds carry its 40.8 kW (4 x DGX H100 at 10.2 kW) above 17.48 kW: at
    # each feed entry's current_rating (its 4th line), at the rack entry's feeds (3rd line)
    # and each names the NetBox object it came from (the design's `origins`)
    nb = "https://netbox.example.com/dcim"
    assert _findings(tmp_path / "site.yaml", capsys) == [
        ("PWR003", "pf-a08", a08 + 3, f"NetBox power-feed 8 <{nb}/power-feeds/8/>"),
        ("PWR003", "pf-b08", b08 + 3, f"NetBox power-feed 17 <{nb}/power-feeds/17/>"),
        ("PWR004", "gpu-r08", racks + 2, f"NetBox rack 8 <{nb}/racks/8/>"),
    ]
    assert '  gpu-r[01-08]: "NetBox rack [1-8] <' + nb + '/racks/[1-8]/>"\n' in text


def test_findings_name_their_source_in_text_and_sarif(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _import(tmp_path, netbox_dump(cluster()), "--map", str(NETBOX_MAP))
    capsys.readouterr()
    assert main(["check", str(tmp_path / "site.yaml")]) == 1
    text = capsys.readouterr().out
    assert text.count(" (source: NetBox ") == 3
    assert "(source: NetBox rack 8 <https://netbox.example.com/dcim/racks/8/>)" in text
    assert main(["check", str(tmp_path / "site.yaml"), "--format", "sarif"]) == 1
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert sorted(r["properties"]["origin"].split(" <")[0] for r in results) == [
        "NetBox power-feed 17",
        "NetBox power-feed 8",
        "NetBox rack 8",
    ]


def test_reimport_is_byte_identical_whatever_the_dump_order(tmp_path: Path) -> None:
    dump = netbox_dump(cluster())
    _, first = _import(tmp_path, dump, "--map", str(NETBOX_MAP))
    shuffled = {k: random.Random(7).sample(v, len(v)) for k, v in reversed(dump.items())}
    _, second = _import(tmp_path, shuffled, "--map", str(NETBOX_MAP))
    assert second == first


def test_graphql_answer_gives_the_same_design(tmp_path: Path) -> None:
    _, rest = _import(tmp_path, netbox_dump(cluster()), "--map", str(NETBOX_MAP))
    _, graphql = _import(tmp_path, netbox_graphql(cluster()), "--map", str(NETBOX_MAP))

    def body(text: str) -> list[str]:  # GraphQL carries no URLs: comments name ids only
        return [re.sub(r" <[^>]*>", "", line).replace('"', "") for line in text.splitlines()[1:]]

    assert body(graphql) == body(rest)
    assert "# NetBox power-panel 1\n" in graphql


def test_unmapped_types_are_listed_with_counts_not_guessed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = tmp_path / "m.yaml"
    mapping.write_text("panels: {'*': {current_rating: 800 A}}\n", encoding="utf-8")
    code, text = _import(tmp_path, netbox_dump(cluster()), "--map", str(mapping))
    assert code == 0
    err = capsys.readouterr().err
    # counted once, on the ledger's line; the hint names what to do, not the counts again
    assert err.count("dgx-h100: 32") == 1
    assert (
        "dclint import: ledger: device: read 45, imported 0, merged 0, skipped 45 (unmapped "
        "type cm7200: 1; unmapped type dgx-h100: 32; unmapped type qm9700: 12)\n"
    ) in err
    assert err.endswith(
        "dclint import: hint: name device types cm7200, dgx-h100, qm9700 in the mapping file's "
        "device_types to import the devices the ledger counts as unmapped\n"
    )
    assert "warning" not in err
    assert "#   cm7200: 1\n#   dgx-h100: 32\n#   qm9700: 12\n" in text
    assert "platform:" not in text and "fabrics:" not in text


def test_every_panel_without_a_rating_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = tmp_path / "m.yaml"
    mapping.write_text("device_types: {}\n", encoding="utf-8")
    code, text = _import(tmp_path, netbox_dump(cluster()), "--map", str(mapping))
    assert (code, text) == (2, "")
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": panel ")[0] for line in err] == [
        "dclint import: error: NetBox power-panel 1 <https://netbox.example.com/dcim/"
        "power-panels/1/>",
        "dclint import: error: NetBox power-panel 2 <https://netbox.example.com/dcim/"
        "power-panels/2/>",
    ]
    assert "has no rating in NetBox (NetBox holds none: netbox#5976)" in err[0]


def test_control_characters_from_the_dcim_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = netbox_dump(cluster())
    dump["dcim/racks"][2]["name"] = "gpu-r03\nextends: /etc/passwd"
    dump["dcim/devices"][0]["name"] = "n1\x1b]0;owned\x07"
    code, text = _import(tmp_path, dump, "--map", str(NETBOX_MAP))
    assert (code, text) == (2, "")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\nextends" not in err
    assert err.count("holds a control character") == 2
    assert "NetBox rack 3 <https://netbox.example.com/dcim/racks/3/>: " in err


def test_a_feed_phase_neither_single_nor_three_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A phase value dclint does not know ('two-phase', a custom choice) was imported as
    single phase (a three-phase feed's capacity understated), without a word."""
    dump = netbox_dump(cluster())
    dump["dcim/power-feeds"][2]["phase"] = {"value": "two-phase", "label": "Two phase"}
    code, text = _import(tmp_path, dump, "--map", str(NETBOX_MAP))
    assert (code, text) == (2, "")
    assert capsys.readouterr().err.splitlines()[0] == (
        "dclint import: error: NetBox power-feed 3 <https://netbox.example.com/dcim/power-feeds/"
        "3/>: a power feed's phase 'two-phase': expected single-phase or three-phase"
    )


@pytest.mark.parametrize(
    ("voltage", "amperage", "shown"),
    [
        ("415V", 100, "voltage '415V', amperage 100"),
        (415, None, "voltage 415, amperage none"),
        (-415, 100, "voltage -415, amperage 100"),
        ("4\x1b[2J", 100, "voltage '4\\x1b[2J', amperage 100"),
    ],
)
def test_a_feed_without_a_positive_voltage_and_amperage_says_what_it_has(
    voltage: object,
    amperage: object,
    shown: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It said 'a power feed needs a positive voltage and amperage' of '415V' (a string where
    NetBox gives a number) as of a missing one."""
    dump = netbox_dump(cluster())
    dump["dcim/power-feeds"][2].update(voltage=voltage, amperage=amperage)
    code, text = _import(tmp_path, dump, "--map", str(NETBOX_MAP))
    assert (code, text) == (2, "")
    assert capsys.readouterr().err.splitlines()[0] == (
        "dclint import: error: NetBox power-feed 3 <https://netbox.example.com/dcim/power-feeds/"
        "3/>: a power feed needs a positive voltage and amperage (numbers, in V and A); "
        f"it has {shown}"
    )


def test_a_site_is_picked_by_slug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _import(tmp_path, netbox_dump(cluster()), "--map", str(NETBOX_MAP), "--site", "dc9")
    assert code == 2
    assert "no site or location 'dc9' in the dump (it holds: ['dc1'])" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "a dump is a mapping of API paths to object lists"),
        ('{"dcim/racks": 5}', "'dcim/racks' holds int, not a list of objects"),
        ("{not json", "dump.json:1:2: not valid JSON"),
    ],
)
def test_a_bad_dump_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "dump.json"
    path.write_text(content, encoding="utf-8")
    code = main(["import", "netbox", "--from-file", str(path), "--map", str(NETBOX_MAP)])
    assert code == 2
    assert message in capsys.readouterr().err
