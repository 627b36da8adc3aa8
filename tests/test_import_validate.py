"""Every import writes a design that loads, or exits 2 naming the source object: a duplicate
id, an object without a name, a non-finite number and an absurd magnitude are each one error
line at the NetBox object or the sheet cell, nothing written; what dclint's loader refuses in
the written text is an error at the entry's source; what a design extending it can complete
is a warning."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from integration.cluster import cluster, netbox_dump

from dclint.cli import main
from dclint.importer.validate import check_loads

HERE = Path(__file__).resolve().parent
NETBOX_MAP = HERE / "integration" / "netbox-import.yaml"
NB = "https://netbox.example.com/dcim"


def _set(path: str, index: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(dump: dict[str, Any]) -> None:
        dump[path][index][key] = value

    return change


def _every(path: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(dump: dict[str, Any]) -> None:
        for record in dump[path]:
            record[key] = value

    return change


def _twice(dump: dict[str, Any]) -> None:
    dump["dcim/racks"].append(copy.deepcopy(dump["dcim/racks"][0]))


CASES = {
    "duplicate id": (
        _set("dcim/racks", 1, "name", "gpu-r01"),
        f"NetBox rack 2 <{NB}/racks/2/>: its id 'gpu-r01' is also the id of NetBox rack 1 "
        f"<{NB}/racks/1/>: rename one",
    ),
    "an object listed twice": (
        _twice,
        f"NetBox rack 1 <{NB}/racks/1/>: the source lists this rack twice",
    ),
    "a rack named ''": (
        _set("dcim/racks", 1, "name", ""),
        f"NetBox rack 2 <{NB}/racks/2/>: a rack without a name",
    ),
    "a rack without a name": (
        _set("dcim/racks", 1, "name", None),
        f"NetBox rack 2 <{NB}/racks/2/>: a rack without a name",
    ),
    "inf utilisation": (
        _set("dcim/power-feeds", 0, "max_utilization", float("inf")),
        f"NetBox power-feed 1 <{NB}/power-feeds/1/>: feed max_utilization: a utilisation of "
        "inf% is not a finite number",
    ),
    "nan utilisation": (
        _set("dcim/power-feeds", 0, "max_utilization", float("nan")),
        f"NetBox power-feed 1 <{NB}/power-feeds/1/>: feed max_utilization: a utilisation of "
        "nan% is not a finite number",
    ),
    "a utilisation below 1%": (  # 0.8 was imported as 0.8%, the feed derated to nothing
        _set("dcim/power-feeds", 0, "max_utilization", 0.8),
        f"NetBox power-feed 1 <{NB}/power-feeds/1/>: feed max_utilization: a utilisation of "
        "0.8%: expected a percent from 1 to 100 (a share 0.8 would be 80%)",
    ),
    "a 70-digit amperage": (
        _set("dcim/power-feeds", 0, "amperage", int("9" * 70)),
        f"NetBox power-feed 1 <{NB}/power-feeds/1/>: feed amperage: a current of 1e+70 A is "
        "beyond any real equipment (dclint takes up to 100 kA)",
    ),
    "a 70-digit draw": (
        _set("dcim/power-port-templates", 0, "allocated_draw", int("9" * 70)),
        "NetBox device type dgx-h100: device type allocated_draw: a power of 1e+70 W is "
        "beyond any real equipment (dclint takes up to 10 MW)",
    ),
    # 63 mA, a 63 A breaker with the wrong unit, was imported as a 0.063 A feed
    "an amperage below 1 A": (
        _set("dcim/power-feeds", 0, "amperage", 0.063),
        f"NetBox power-feed 1 <{NB}/power-feeds/1/>: feed amperage: a current of 0.063 A: "
        "expected a current of at least 1 A (a feed or breaker rating; read as 0.063 A: a "
        "unit of mA where A was meant?)",
    ),
    # past every check on the source (a draw may be zero): 1e-9 W a device is a rack's
    # '0 kW', which the loader refuses (a feed's 1e-9 A now stops at the check above)
    "the loader's last guard": (
        _every("dcim/power-port-templates", "allocated_draw", 1e-9),
        f"NetBox rack 9 <{NB}/racks/9/>: the design written would not load: "
        "racks[1].it_load: power must be greater than zero, got '0 kW'",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_source_object_is_one_error_and_nothing_written(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    change, expected = CASES[case]
    dump = netbox_dump(cluster())
    change(dump)
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(dump), encoding="utf-8")  # inf and nan as JSON's Infinity, NaN
    out = tmp_path / "site.yaml"
    args = ["import", "netbox", "--from-file", str(path), "--map", str(NETBOX_MAP)]
    code = main([*args, "-o", str(out)])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [f"dclint import: error: {expected}"]
    assert not out.exists()


def test_bad_magnitudes_in_a_sheet_are_errors_at_their_cells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "feeds.csv").write_text(
        "Feed,Voltage,Breaker\nf1,415 V,63 A\nf2,415 V," + "9" * 70 + " A\nf3,2000000 V,63 A\n"
        "f4,415 V,63 mA\n",
        encoding="utf-8",
    )
    (tmp_path / "map.yaml").write_text(
        "sheets: {feeds: {columns: {id: Feed, voltage: Voltage, current_rating: Breaker}}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site.yaml"
    csv, mapping = str(tmp_path / "feeds.csv"), str(tmp_path / "map.yaml")
    code = main(["import", "csv", csv, "--map", mapping, "-o", str(out)])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        "dclint import: error: feeds.csv!C3: '" + "9" * 59 + ": expected a current of at most "
        "100 kA, e.g. '63 A'",
        "dclint import: error: feeds.csv!B4: '2000000 V': expected a voltage of at most 100 kV, "
        "e.g. '415 V'",
        "dclint import: error: feeds.csv!C5: '63 mA': expected a current of at least 1 A (a feed "
        "or breaker rating; read as 0.063 A: a unit of mA where A was meant?), e.g. '63 A'",
    ]
    assert not out.exists()


def test_what_an_extending_design_completes_is_a_warning_at_its_source() -> None:
    text = (
        "name: t\n"
        "racks:\n"
        "  - id: r1  # NetBox rack 7 <https://nb/dcim/racks/7/>\n"
        "    row: A\n"
        "  - id: r2  # NetBox rack 8 <https://nb/dcim/racks/8/>\n"
        "    platform: my-own-platform\n"
    )
    problems, warnings = check_loads(text, "https://nb")
    assert problems == []
    assert warnings == [
        "NetBox rack 7 <https://nb/dcim/racks/7/>: rack 'r1' has neither it_load nor a platform "
        "(the design that extends this file must complete it)",
        "NetBox rack 8 <https://nb/dcim/racks/8/>: unknown platform 'my-own-platform' (the "
        "design that extends this file must complete it)",
    ]


def test_a_value_the_schema_refuses_is_an_error_at_its_source() -> None:
    text = "name: t\nracks:\n  - id: r1  # sheet.xlsx Racks!A7\n    it_load: 0 kW\n"
    problems, warnings = check_loads(text, "sheet.xlsx")
    assert [str(p) for p in problems] == [
        "sheet.xlsx Racks!A7: the design written would not load: racks[0].it_load: power must "
        "be greater than zero, got '0 kW'"
    ]
    assert warnings == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            '{"dcim/racks": [{"id": 1, "u_height": ' + "9" * 5000 + "}]}",
            "Exceeds the limit (4300 digits) for integer string conversion",
        ),
        ("[" * 100_000 + "]" * 100_000, "nested too deep"),
    ],
)
def test_a_dump_python_cannot_decode_is_one_error(
    text: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "dump.json"
    path.write_text(text, encoding="utf-8")
    assert main(["import", "netbox", "--from-file", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dclint: error: --from-file {path}: not a dump dclint reads ({why})"
    ]


def test_a_bare_utilisation_up_to_1_is_ambiguous_not_a_fraction_of_a_percent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A feed's max utilisation '0.8' in a csv was imported as 0.8%, derating the feed to
    almost nothing, where a design reads 0.8 as 80%; '80' and '80%' stay 80%."""
    (tmp_path / "feeds.csv").write_text(
        "Feed,Voltage,Breaker,Max\nf1,415 V,63 A,80\nf2,415 V,63 A,80%\nf3,415 V,63 A,0.8\n",
        encoding="utf-8",
    )
    (tmp_path / "map.yaml").write_text(
        "sheets: {feeds: {columns: {id: Feed, voltage: Voltage, current_rating: Breaker, "
        "max_utilisation: Max}}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "site.yaml"
    csv, mapping = str(tmp_path / "feeds.csv"), str(tmp_path / "map.yaml")
    assert main(["import", "csv", csv, "--map", mapping, "-o", str(out)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "dclint import: error: feeds.csv!D4: '0.8': expected a utilisation in percent, e.g. 80% "
        "(a bare number up to 1 is ambiguous: 0.8 is 80% as a share, 0.8% as a percent; write "
        "80%)"
    ]
    assert not out.exists()
    (tmp_path / "feeds.csv").write_text(
        "Feed,Voltage,Breaker,Max\nf1,415 V,63 A,80\nf2,415 V,63 A,80%\n", encoding="utf-8"
    )
    assert main(["import", "csv", csv, "--map", mapping, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")  # the two alike, one range f[1-2]
    assert "  - id: f[1-2]  # feeds.csv!A2:A3\n" in text
    assert "      max_utilisation: 80%\n" in text
