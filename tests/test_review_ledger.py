"""The review's appendix "Import ledger" (issue #50 item 5): for a design an import wrote, what
the import read, imported, merged and skipped by kind, and every skipped source object by its
reference, kind and reason; read from the fragment's foot, or from `--ledger FILE` (the JSON
`dclint import --ledger` wrote, which names every object). The same section in Markdown and in
the Word copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from integration.hall import MAPPING, hall_dump

from dclint.cli import main
from dclint.importer.ledger import MOST_NAMED, Ledger, read_foot, read_json

# the hall of issue #49 (tests/integration/hall.py) as imported: 20 devices of unmapped types
# (9 SN2201, 10 PDU-X, the console server) and the campus site above the hall are skipped
SKIPPED = 21


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hall")
    (folder / "dump.json").write_text(json.dumps(hall_dump()), encoding="utf-8")
    (folder / "map.yaml").write_text(MAPPING, encoding="utf-8")
    args = ["import", "netbox", "--from-file", str(folder / "dump.json")]
    args += ["--map", str(folder / "map.yaml"), "-o", str(folder / "hall.yaml")]
    assert main([*args, "--ledger", str(folder / "ledger.json")]) == 0
    return folder


def _appendix(text: str) -> str:
    return text[text.index("## Appendix: import ledger") :]


def _skipped_rows(appendix: str) -> list[list[str]]:
    """The rows of the table under "Skipped source objects (N)": reference, kind, why."""
    part = appendix[appendix.index("### Skipped source objects") :]
    rows = re.findall(r"^\| (NetBox .+?) \| (\S+) \| (.+?) \|$", part.split("\n### ")[0], re.M)
    return [list(r) for r in rows]


def _review(hall: Path, name: str, *extra: str) -> str:
    out = hall / name
    args = ["review", str(hall / "hall.yaml"), "-o", str(out), "--today", "2026-12-06"]
    assert main([*args, *extra]) == 0
    return out.read_text(encoding="utf-8")


@pytest.mark.parametrize("given", [False, True], ids=["fragment-foot", "ledger-json"])
def test_the_appendix_lists_every_skipped_object(hall: Path, given: bool) -> None:
    extra = ("--ledger", str(hall / "ledger.json")) if given else ()
    text = _review(hall, f"review-{given}.md", *extra)
    ledger = json.loads((hall / "ledger.json").read_text(encoding="utf-8"))
    count = sum(k["skipped"] + k["unplaced"] for k in ledger.values())
    assert count == SKIPPED
    appendix = _appendix(text)
    rows = _skipped_rows(appendix)
    assert len(rows) == count
    assert f"### Skipped source objects ({SKIPPED})" in appendix
    assert sorted(r[0] for r in rows) == sorted(
        o["source"].replace("<", "\\<").replace(">", "\\>")
        for k in ledger.values()
        for o in k["skipped_objects"]
    )
    # the unmapped device type and the offline node, each by its source and its name
    assert [
        "NetBox device 64 \\<https://netbox.example.com/dcim/devices/64/\\>",
        "device",
        "unmapped type cm7200 (device console1)",
    ] in rows
    assert (
        "| NetBox device 7 \\<https://netbox.example.com/dcim/devices/7/\\> | device | merged "
        "into rack A02 (a dgx-h100 node) (device A02-n3, status offline: counted, marked "
        "offline\\_nodes) |"
    ) in appendix
    assert (
        "| device | 64 | 0 | 44 | 20 | 0 | unmapped type cm7200: 1; unmapped type pdu-x: 10; "
        "unmapped type sn2201: 9 |"
    ) in appendix
    assert re.search(r"^7\. Appendix: import ledger$", text, re.M)  # in the contents
    assert "its ledger (what was read, imported and skipped: 21 objects left out)" in text


def test_a_design_not_imported_has_no_ledger_appendix(tmp_path: Path) -> None:
    from conftest import SAMPLES

    out = tmp_path / "r.md"
    main(["review", str(SAMPLES / "h100-40node.yaml"), "-o", str(out), "--today", "2026-12-06"])
    assert "import ledger" not in out.read_text(encoding="utf-8").lower()


def test_the_word_copy_holds_the_same_appendix(hall: Path) -> None:
    import docx

    out = hall / "review.docx"
    main(["review", str(hall / "hall.yaml"), "-o", str(out), "--today", "2026-12-06"])
    document = docx.Document(str(out))
    headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
    assert "Appendix: import ledger" in headings
    assert f"Skipped source objects ({SKIPPED})" in headings
    tables = [t for t in document.tables if t.rows[0].cells[0].text == "Source object"]
    skipped = tables[0]
    assert len(skipped.rows) == SKIPPED + 1  # the header, then one row an object
    kinds = [row.cells[1].text for row in skipped.rows[1:]]
    assert kinds.count("device") == 20 and kinds.count("site") == 1


def test_the_foot_reads_back_as_the_json_does() -> None:
    """The fragment's foot and the JSON ledger of one import read back the same; past
    MOST_NAMED skipped objects of a kind the foot counts the rest and the review says so."""
    led = Ledger()
    for i in range(1, MOST_NAMED + 6):
        led.skipped("device", f"plan.xlsx Equipment!A{i}", "unmapped type PDU-X", f"pdu{i}")
    led.merged("device", "plan.xlsx Equipment!B1", "rack r1 (a node)", "device n1, offline")
    led.read("cable", "plan.xlsx Cables!A2")  # read and never placed
    led.imported("rack", "plan.xlsx Racks!A2", "r1")
    text = "# Written by `dclint import xlsx plan.xlsx --map m.yaml`. Do not edit\n"
    text += "name: x\n" + "\n".join(led.comment()) + "\n"
    foot = read_foot(text, "site.yaml")
    whole = read_json(json.loads(json.dumps(led.as_json())), "ledger.json")
    assert foot is not None
    assert foot.command == "dclint import xlsx plan.xlsx --map m.yaml"
    assert foot.counts == whole.counts
    assert foot.counts["device"]["skipped"] == MOST_NAMED + 5
    assert foot.unnamed == {"device": 5}
    assert len(foot.listed("skipped")) == MOST_NAMED
    assert len(whole.listed("skipped")) == MOST_NAMED + 5
    assert foot.listed("skipped")[:3] == whole.listed("skipped")[:3]
    assert [(x.kind, x.origin, x.why) for x in foot.listed("unplaced")] == [
        ("cable", "plan.xlsx Cables!A2", "read and not placed")
    ]
    assert foot.listed("noted") == whole.listed("noted")
    assert foot.left_out == whole.left_out == MOST_NAMED + 6
    assert read_foot("name: x\n", "x.yaml") is None
