"""The review as files a consultant edits: a Word document (`review --format docx`, the same
sections as the HTML and PDF, headings as Word's heading styles and tables as Word tables, to
carry into their own template) and a findings register as a workbook (`--format xlsx`: one row
a finding, with its location, source, fix, price and waiver). python-docx and openpyxl are
imported only here, only for these formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dclint.analysis.assess.assessment import RunAssessment
from dclint.analysis.assess.review import ReviewDocument
from dclint.engine.rollup import measured_limit
from dclint.errors import ConfigError
from dclint.report.document import Block, blocks
from dclint.report.fixes import fix_words, fix_yaml
from dclint.report.text import waiver_terms

__all__ = ["REGISTER_COLUMNS", "register_rows", "write_docx", "write_xlsx"]

_HEADINGS = {"h1": 0, "h2": 1, "h3": 2}


def _word() -> Any:
    try:
        import docx
    except ImportError as exc:  # an optional extra
        raise ConfigError("--format docx needs python-docx: pip install 'dclint[docx]'") from exc
    return docx


def _code(document: Any, text: str) -> None:
    for line in text.splitlines():
        para = document.add_paragraph()
        run = para.add_run(line)
        run.font.name = "Courier New"


def _table(document: Any, b: Block) -> None:
    columns = max(1, len(b.header), *(len(r) for r in b.rows))
    header = any(b.header)
    table = document.add_table(rows=len(b.rows) + int(header), cols=columns)
    table.style = "Table Grid"
    start = 0
    if header:
        for i, text in enumerate(b.header):
            cell = table.rows[0].cells[i]
            cell.text = ""
            cell.paragraphs[0].add_run(text).bold = True
        start = 1
    for r, row in enumerate(b.rows):
        for i, text in enumerate(row):
            table.rows[start + r].cells[i].text = text


# Word's contents field over the sections (Heading 1, the HTML and PDF contents' entries), page
# numbers shown (\\z hides them only in web layout), entries linked (\\h)
TOC_FIELD = 'TOC \\o "1-1" \\h \\z \\u'


def _contents(document: Any, entries: list[str]) -> None:
    """The contents as Word's TOC field: Word fills in each section's page when it opens the
    file (the settings ask it to update fields); until then, and in a reader that does not
    update fields, the field shows the entries as written here, without pages."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    para = document.add_paragraph()

    def char(kind: str) -> None:
        mark = OxmlElement("w:fldChar")
        mark.set(qn("w:fldCharType"), kind)
        para.add_run()._r.append(mark)

    char("begin")
    instruction = OxmlElement("w:instrText")
    instruction.set(qn("xml:space"), "preserve")
    instruction.text = TOC_FIELD
    para.add_run()._r.append(instruction)
    char("separate")
    for i, entry in enumerate(entries):
        run = para.add_run(entry)
        if i < len(entries) - 1:
            run.add_break()
    char("end")
    update = OxmlElement("w:updateFields")
    update.set(qn("w:val"), "true")
    document.settings.element.append(update)


def write_docx(doc: ReviewDocument, run: RunAssessment, path: str) -> None:
    """The review as a .docx at `path` (written whole to a temporary file, then moved)."""
    docx = _word()
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    document.core_properties.title = doc.front.title
    if doc.front.author:
        document.core_properties.author = doc.front.author
    for b in blocks(doc, run):
        if b.kind in _HEADINGS:
            document.add_heading(b.text, level=_HEADINGS[b.kind])
        elif b.kind == "p":
            document.add_paragraph(b.text)
        elif b.css == "toc":
            _contents(document, b.items)
        elif b.kind in ("ul", "ol"):
            style = "List Number" if b.kind == "ol" else "List Bullet"
            code = b.code or [""] * len(b.items)
            for item, change in zip(b.items, code, strict=True):
                document.add_paragraph(item, style=style)
                if change:
                    _code(document, change)
        elif b.kind == "pre":
            for text in b.code:
                _code(document, text)
        elif b.kind == "table":
            _table(document, b)
        elif b.kind == "page":
            document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    _save(path, document.save)


REGISTER_COLUMNS = (
    "Design",
    "File",
    "Line",
    "Column",
    "Design path",
    "Rule",
    "Name",
    "Severity",
    "Consequence",
    "Subject",
    "Finding",
    "Measured",
    "Limit",
    "Source",
    "Fix",
    "Design change",
    "Days",
    "Money",
    "Currency",
    "Waiver",
)


def register_rows(doc: ReviewDocument, run: RunAssessment) -> list[list[Any]]:
    """One row a finding (every object, not rolled up), then one a waived finding; in the
    executive summary's order of designs."""
    from dclint.engine.coverage import consequence_of

    rows: list[list[Any]] = []
    for part in doc.designs:
        entries = [(f, "") for f in part.result.findings]
        entries += [(w.finding, waiver_terms(w)) for w in part.waivers]
        for f, waiver in entries:
            impact = f.impact
            days = round(impact.days.m_as("day"), 3) if impact is not None else None
            money = None
            if impact is not None and impact.cost is not None:
                money = round(float(impact.cost.m_as(impact.currency)), 2)
            rows.append(
                [
                    part.name,
                    f.file,
                    f.line,
                    f.column,
                    f.path,
                    f.rule,
                    f.name,
                    f.severity,
                    consequence_of(run.rules.get(f.rule))[1],
                    f.subject,
                    f.message + measured_limit(f),
                    f.measured_text or "",
                    f.limit_text or "",
                    f.origin or "",
                    fix_words(f),
                    fix_yaml(f),
                    days,
                    money,
                    impact.currency if impact is not None and money is not None else "",
                    waiver,
                ]
            )
    return rows


def write_xlsx(doc: ReviewDocument, run: RunAssessment, path: str) -> None:
    """The findings register as a .xlsx at `path`: a sheet 'Findings' with REGISTER_COLUMNS."""
    try:
        from openpyxl import Workbook
    except ImportError as exc:  # an optional extra
        raise ConfigError("--format xlsx needs openpyxl: pip install 'dclint[xlsx]'") from exc
    book = Workbook(write_only=True)
    sheet = book.create_sheet("Findings")
    sheet.append(list(REGISTER_COLUMNS))
    for row in register_rows(doc, run):
        sheet.append([_cell(v) for v in row])
    _save(path, book.save)


def _cell(value: Any) -> Any:
    """A spreadsheet never evaluates a finding's text: a leading '=', '+', '-' or '@' is
    quoted (OWASP CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


def _save(path: str, save: Any) -> None:
    import os
    import tempfile

    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    os.close(fd)
    try:
        save(tmp)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
