"""`review --format docx` (an editable Word copy) and `--format xlsx` (the findings register):
read back with python-docx and openpyxl, they hold the same findings as the Markdown review
(whose blocks the HTML and PDF share), with Word's heading styles and Word tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SAMPLES
from dclint.cli import main

DESIGNS = [str(SAMPLES / "broken-feed-headroom.yaml"), str(SAMPLES / "h100-40node.yaml")]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("office")
    out = {}
    for suffix in ("md", "docx", "xlsx"):
        out[suffix] = folder / f"review.{suffix}"
        args = ["review", *DESIGNS, "-o", str(out[suffix]), "--today", "2026-12-02"]
        assert main([*args, "--author", "J. Doe"]) == 0
    return out


def _markdown_findings(text: str) -> list[tuple[str, int]]:
    """(rule, line) of each finding the Markdown review lists under a design."""
    found = re.findall(r"^- \S+?\.yaml:(\d+):\d+ \*\*([A-Z]+\d+)\*\*", text, re.M)
    return sorted((rule, int(line)) for line, rule in found)


def test_the_register_holds_every_finding(written: dict[str, Path]) -> None:
    from openpyxl import load_workbook

    book = load_workbook(written["xlsx"], read_only=True)
    rows = list(book["Findings"].iter_rows(values_only=True))
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    assert [(r[col["Rule"]], r[col["Line"]], r[col["Consequence"]]) for r in body] == [
        ("PWR002", 22, "capacity and headroom"),
        ("PWR008", 22, "equipment over its rating"),
        ("PAR005", 130, "performance and money"),
        ("PAR005", 99, "performance and money"),
    ]
    par005 = body[2]
    assert (par005[col["Days"]], par005[col["Currency"]]) == (27.177, "CNY")
    assert par005[col["Fix"]] == "run the best layout: the design change below"
    assert par005[col["Design change"]].startswith("workloads:\n  - # [0] llama-70b-pretrain\n")
    text = written["md"].read_text(encoding="utf-8")
    listed = sorted((r[col["Rule"]], r[col["Line"]]) for r in body)
    assert listed == _markdown_findings(text)


def test_the_word_copy_has_the_sections_as_styles(written: dict[str, Path]) -> None:
    import docx

    document = docx.Document(str(written["docx"]))
    headings = [
        (p.style.name, p.text)
        for p in document.paragraphs
        if p.style.name in ("Title", "Heading 1")
    ]
    assert headings == [
        ("Title", "Design review: broken-feed-headroom and h100-40node"),
        ("Heading 1", "Contents"),
        ("Heading 1", "Executive summary"),
        ("Heading 1", "broken-feed-headroom"),
        ("Heading 1", "h100-40node"),
        ("Heading 1", "Scope and method"),
        ("Heading 1", "Limitations and coverage"),
        ("Heading 1", "Sign-off"),
        ("Heading 1", "Appendix: assumptions and sources"),
    ]
    # the contents: Word's TOC field over the sections, its pages filled in when Word opens
    # the file (the settings ask it to), the entries written in until then
    xml = document.element.body.xml
    assert xml.count("<w:instrText") == 1
    assert '<w:instrText xml:space="preserve">TOC \\o "1-1" \\h \\z \\u</w:instrText>' in xml
    toc = next(p for p in document.paragraphs if "TOC" in p._p.xml)
    assert toc.text.split("\n") == [
        "Executive summary",
        "Design broken-feed-headroom",
        "Design h100-40node",
        "Scope and method",
        "Limitations and coverage",
        "Sign-off",
        "Appendix: assumptions and sources",
    ]
    assert '<w:updateFields w:val="true"/>' in document.settings.element.xml
    # the executive summary's register is a Word table with the Markdown's rows
    summary = next(t for t in document.tables if t.rows[0].cells[0].text == "#")
    ranked = [[c.text for c in row.cells][2:4] for row in summary.rows[1:]]
    assert ranked == [
        ["equipment over its rating", "PWR008 panel-overloaded"],
        ["capacity and headroom", "PWR002 power-headroom-too-small"],
        ["performance and money", "PAR005 layout-slower-than-best"],
        ["performance and money", "PAR005 layout-slower-than-best"],
    ]
    body = "\n".join(p.text for p in document.paragraphs)
    assert "--set" not in body
    # the terms the training days add up, as the Markdown review gives them
    markdown = written["md"].read_text(encoding="utf-8")
    terms = [x for x in body.splitlines() if x.startswith("Training time of ")]
    assert terms == [x for x in markdown.splitlines() if x.startswith("Training time of ")]
    assert len(terms) == 2
    signoff = next(t for t in document.tables if t.rows[0].cells[0].text == "Role")
    assert [c.text for c in signoff.rows[1].cells] == [
        "Prepared by",
        "J. Doe",
        "________________",
        "2026-12-02",
    ]


def test_docx_and_xlsx_need_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", DESIGNS[1], "--format", "docx"]) == 2
    assert capsys.readouterr().err == (
        "dclint: error: --format docx writes a file: give --output review.docx\n"
    )
