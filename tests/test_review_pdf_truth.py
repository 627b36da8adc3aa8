"""The printed review tells the truth (issue #50): real headless Chromium prints it, pdftotext
reads it back.

- The contents give each section's page, and the section's heading is on that page.
- Every figure agrees with the findings: the elements the figures draw as over their limit
  (the table under them names every one, `report.charts.over_rows`) are exactly the drawn
  elements (racks, feeds, panels, UPS, CDUs, fabric tiers) a power, cooling or fabric finding
  names; each fabric's tiers are drawn with the bandwidth
  the fabric rules compute (dclint.calc.fabric_tiers). Held on the review of an imported hall
  and of every sample design.
- The issue's "Done when": the review of an imported hall with a panel overload, a partitioned
  fabric and a slow layout ranks the overload and the partition first, prints no `--set`, has
  contents, scope, limitations, a coverage map and a sign-off, lists every skipped source
  object; the docx and xlsx hold the same findings as the PDF."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from integration.cluster import cluster, netbox_dump

from dclint.cli import main
from dclint.model.ranges import expand

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(str(p) for p in (ROOT / "sample_designs").glob("*.yaml"))
TOOLS = ("chromium", "pdftotext")
# the hall's import mapping: panels of 400 A (218.5 kW derated) under 8 racks of 40.8 kW
MAPPING = """\
name: dc1
site: dc1
device_types:
  dgx-h100: {kind: gpu_node, platform: dgx-h100}
  qm9700: {kind: switch, switch: qm9700}
roles: {leaf: leaf, spine: spine}
panels:
  "*": {current_rating: 400 A}
"""
# the client's plan over the import: Llama-3-70B-like pretraining on its 256 GPUs, laid out
# tp 4 / pp 8 (PAR005 finds faster layouts)
PLAN = """\
extends: site.yaml
name: dc1-plan
workloads:
  - id: llama-70b-pretrain
    model: {parameters: 70.6e9, layers: 80, hidden_size: 8192, attention_heads: 64,
            query_groups: 8, ffn_hidden_size: 28672, vocab_size: 128256, swiglu: true}
    tokens: 2e12
    sequence_length: 8192
    global_batch: 1024
    micro_batch: 1
    precision: bf16
    parallel: {tp: 4, pp: 8, cp: 1}
    gpus: 256
"""


def _need_tools() -> None:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (.ci/run installs chromium and poppler-utils)")


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The imported hall: the test cluster's NetBox dump with its leaf-spine cables and not
    its node cables (a partitioned fabric), 400 A panels (overloaded), the plan over it."""
    folder = tmp_path_factory.mktemp("hall")
    c = cluster(small_last=False)
    c.cables = [x for x in c.cables if x[0].startswith("leaf")]
    (folder / "dump.json").write_text(json.dumps(netbox_dump(c)), encoding="utf-8")
    (folder / "map.yaml").write_text(MAPPING, encoding="utf-8")
    args = ["import", "netbox", "--from-file", str(folder / "dump.json"), "--site", "dc1"]
    args += ["--map", str(folder / "map.yaml"), "-o", str(folder / "site.yaml")]
    assert main([*args, "--ledger", str(folder / "ledger.json")]) == 0
    (folder / "plan.yaml").write_text(PLAN, encoding="utf-8")
    return folder / "plan.yaml"


def _pages(pdf: Path, layout: bool = True) -> list[str]:
    """The PDF's text a page: laid out as printed, or in reading order (`layout` False)."""
    args = ["pdftotext", *(["-layout"] if layout else []), str(pdf), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout.split("\f")


def _contents(pages: list[str]) -> list[tuple[str, int]]:
    """(entry, page) of each line of the contents."""
    found = re.findall(r"^\s+\d+\. (.+?)\s{2,}(\d+)$", pages[0] + pages[1], re.M)
    return [(e, int(n)) for e, n in found]


def _findings(designs: list[str]) -> list[dict[str, object]]:
    """Every design's findings as `check --format json` gives them (the review's)."""
    out = io.StringIO()
    with redirect_stdout(out):
        main(["check", *designs, "--format", "json", "--layout-search"])
    return json.loads(out.getvalue())["designs"]


def _over_tables(raw: str) -> set[str]:
    """The ids the tables 'Over their limit in the figures above' name: pdftotext's reading
    order gives each cell as lines between blank lines, three a row after the header's."""
    out: set[str] = set()
    for m in re.finditer(r"Over their limit in the figures above \((\d+)\):\n", raw):
        rows = int(m.group(1))
        cells = [c for c in raw[m.end() :].split("\n\n") if c.strip()][: 3 * (rows + 1)]
        assert cells[:3] == ["Figure", "Box or bar", "Over its limit (every one)"]
        for cell in cells[5::3]:
            for part in " ".join(cell.split()).split(","):
                out.update(i for i, _ in expand(part.strip()))
    return out


def _drawn(design: str) -> dict[tuple[str, ...], set[str]]:
    """The rule families whose findings mark a figure's elements -> those elements' ids: the
    power and cooling figures' racks, feeds, panels, UPS and CDUs; the fabric figure's tiers."""
    from dclint.loader import load
    from dclint.model.resolve import topology_of

    d = load(design)
    topo = topology_of(d)
    tiers = {f"{f.id}.{t}" for f in d.fabrics for t in {s.tier for s in f.switches}}
    tiers |= {f"{f.id}.{t.name}" for f in d.fabrics for t in f.tiers}
    plant = {*(r.id for r in topo.racks), *topo.feeds, *topo.panels, *topo.chain, *topo.cdus}
    return {("PWR", "CLG"): plant, ("NET",): tiers}


@pytest.fixture(scope="module")
def printed(hall: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The review of the hall and every sample, printed; its text a page, laid out."""
    _need_tools()
    pdf = tmp_path_factory.mktemp("pdf") / "review.pdf"
    code = main(["review", str(hall), *SAMPLES, "-o", str(pdf), "--today", "2026-12-06"])
    assert code == 0
    return pdf, _pages(pdf)


def test_the_contents_give_each_section_its_page(printed: tuple[Path, list[str]]) -> None:
    _, pages = printed
    entries = _contents(pages)
    assert len(entries) == 1 + 9 + 5  # summary, 9 designs, back matter, 2 appendices
    assert entries[0] == ("Executive summary", 1)
    numbers = [n for _, n in entries]
    assert numbers == sorted(numbers) and numbers[-1] < len(pages)
    for entry, page in entries:
        heading = entry.removeprefix("Design ")
        lines = [x.strip() for x in pages[page - 1].splitlines()]
        assert heading in lines, (entry, page)


def test_every_figure_agrees_with_the_findings(hall: Path, printed: tuple[Path, list[str]]) -> None:
    from dclint.calc.fabric_tiers import tier_bandwidths
    from dclint.loader import load
    from dclint.units import fmt

    pdf, pages = printed
    raw = _pages(pdf, layout=False)
    entries = _contents(pages)
    starts = [n for e, n in entries if e.startswith("Design ")]
    end = next(n for e, n in entries if e == "Scope and method")
    designs = [str(hall), *SAMPLES]
    checked = _findings(designs)
    agreed = {}
    for n, (design, found) in enumerate(zip(designs, checked, strict=True)):
        last = starts[n + 1] if n + 1 < len(starts) else end
        text = "\f".join(pages[starts[n] - 1 : last - 1])
        drawn = _drawn(design)
        named = {
            str(f["subject"])
            for f in found["findings"]
            for families, ids in drawn.items()
            if str(f["rule"]).startswith(families) and f.get("subject") in ids
        }
        figures = _over_tables("\f".join(raw[starts[n] - 1 : last - 1]))
        assert figures == named, design  # every one a finding names, and none other
        agreed[Path(design).name] = sorted(named)
        flat = " ".join(text.split())
        d = load(design)
        for index, fabric in enumerate(d.fabrics):
            for t in tier_bandwidths(d, index):
                assert f"{t.name}: {t.switches} switches" in flat, (design, fabric.id, t.name)
                down = fmt(t.down.to("Tb/s"))
                if t.up is None:
                    assert f"{down} down, top tier" in flat, (design, t.name)
                elif t.down.magnitude == 0:
                    assert f"no endpoint links / {fmt(t.up.to('Tb/s'))} up" in flat
                else:
                    assert f"{down} down / {fmt(t.up.to('Tb/s'))} up" in flat, (design, t.name)
        assert " 0 Tb/s down" not in flat
    # what was compared: the elements the findings name, each drawn over and none other
    assert {k: v for k, v in agreed.items() if v} == {
        "plan.yaml": ["pp-a", "pp-b"],  # PWR008: 339.6 kW on 218.5 kW panels
        "broken-fabric-2to1.yaml": ["compute.leaf"],  # NET001: 2:1 against 1:1
        "broken-feed-headroom.yaml": ["busway-a"],  # PWR008 and PWR002
        "broken-rack-130kw.yaml": ["su1-r8"],  # over its rack limit
    }


def test_done_when(hall: Path, tmp_path: Path) -> None:
    """Issue #50's "Done when", on the imported hall alone, PDF, docx and xlsx."""
    _need_tools()
    out = {}
    for suffix in ("pdf", "docx", "xlsx"):
        out[suffix] = tmp_path / f"review.{suffix}"
        args = ["review", str(hall), "-o", str(out[suffix]), "--today", "2026-12-06"]
        assert main([*args, "--author", "J. Doe", "--reviewer", "A. Roe"]) == 0
    pages = _pages(out["pdf"])
    text = "\f".join(pages)
    flat = " ".join(text.split())
    # ranked: the panel overloads and the partition first, the slow layout last
    table = text[text.index("# Design ") : text.index("\ndc1-plan\n")]
    ranked = re.findall(r"^(\d+) .*?([A-Z]{3}\d{3}) ", table, re.M)
    assert ranked == [("1", "PWR008"), ("2", "PWR008"), ("3", "NET004"), ("4", "PAR005")]
    top = flat[flat.index("1. Equipment over its rating") :]
    assert top.index("2. Equipment over its rating") < top.index("3. The design cannot run")
    # no projection on a fabric that cannot run the workload
    blocked = r"Not meaningful until NET004 fabric-partitioned is fixed \([^)]*site\.yaml:63\)"
    assert re.search(blocked, flat)
    assert "--set" not in text
    headings = {x.strip() for x in text.splitlines()}
    for heading in (
        "Contents",
        "Executive summary",
        "Scope and method",
        "Limitations and coverage",
        "Sign-off",
        "Appendix: import ledger",
    ):
        assert heading in headings, heading
    assert "Standard Clause Topic Status Rules" in flat  # the coverage map's table
    assert "Prepared by J. Doe ________________ 2026-12-06" in flat
    assert "Reviewed by A. Roe ________________ ________________" in flat
    # every skipped source object, from the ledger the import wrote
    ledger = json.loads((hall.parent / "ledger.json").read_text(encoding="utf-8"))
    skipped = [o["source"] for k in ledger.values() for o in k["skipped_objects"]]
    assert skipped == ["NetBox device 45 <https://netbox.example.com/dcim/devices/45/>"]
    assert f"Skipped source objects ({len(skipped)})" in flat
    raw = subprocess.run(
        ["pdftotext", str(out["pdf"]), "-"], capture_output=True, text=True, check=True
    ).stdout  # reading order: a table's row whole
    appendix = " ".join(raw[raw.index("Skipped source objects") :].split())
    assert all(f"{s} device unmapped type cm7200 (device console1)" in appendix for s in skipped)
    # the same findings in the PDF, the Word copy and the register
    in_pdf = sorted(set(re.findall(r"(\w+\.yaml):(\d+):\d+ ([A-Z]{3}\d{3})", flat)))
    import docx
    from openpyxl import load_workbook

    book = load_workbook(out["xlsx"], read_only=True)
    rows = list(book["Findings"].iter_rows(values_only=True))
    col = {name: i for i, name in enumerate(rows[0])}
    in_xlsx = sorted({(r[col["File"]], str(r[col["Line"]]), r[col["Rule"]]) for r in rows[1:]})
    assert [(Path(f).name, ln, r) for f, ln, r in in_xlsx] == in_pdf
    words = "\n".join(p.text for p in docx.Document(str(out["docx"])).paragraphs)
    in_docx = sorted(set(re.findall(r"(\w+\.yaml):(\d+):\d+ ([A-Z]{3}\d{3})", words)))
    assert in_docx == in_pdf
    assert "--set" not in words
