"""`dclint import xlsx|csv` on hostile files built here with openpyxl and zipfile: a declared
dimension of the whole sheet, a row 30 million rows down, a zip bomb of shared strings, rows
spanning too many cells, a lowercase merge reference, a csv field over the limit. Each ends
in the right result or one error line and exit 2, within a second or so, nothing written."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl", reason="openpyxl is in the test extra")

from dclint.cli import main  # noqa: E402
from dclint.importer import cells  # noqa: E402

SHEET = "xl/worksheets/sheet1.xml"
MAP = "sheets: {racks: {sheet: Racks, columns: {id: Rack, it_load: Load, row: Row}}}\n"
GOOD_RACKS = (
    "racks:\n"
    "  - id: r1  # plan.xlsx Racks!B2\n"
    "    it_load: 12 kW\n"
    "    row: A\n"
    "  - id: r2  # plan.xlsx Racks!B3\n"
    "    it_load: 30 kW\n"
    "    row: A\n"
)


def _workbook(path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Racks"
    ws.append(["Row", "Rack", "Load (kW)"])
    ws.append(["A", "r1", 12])
    ws.append([None, "r2", 30])
    ws.merge_cells("A2:A3")  # row A written once over both racks
    wb.save(path)


def _rewrite(path: Path, name: str, change: Callable[[bytes], bytes]) -> None:
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts[name] = change(parts.get(name, b""))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for part, data in parts.items():
            z.writestr(part, data)


def _sub(pattern: str, repl: str) -> Callable[[bytes], bytes]:
    def change(xml: bytes) -> bytes:
        out, n = re.subn(pattern.encode(), repl.encode(), xml)
        assert n >= 1, pattern
        return out

    return change


def _import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list[str]]:
    (tmp_path / "map.yaml").write_text(MAP, encoding="utf-8")
    out = tmp_path / "site.yaml"
    code = main(
        [
            "import",
            "xlsx",
            str(tmp_path / "plan.xlsx"),
            "--map",
            str(tmp_path / "map.yaml"),
            "-o",
            str(out),
        ]
    )
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    # the ledger's lines (issue 49) say what was read; these tests read the other lines
    err = capsys.readouterr().err.splitlines()
    return code, text, [e for e in err if not e.startswith("dclint import: ledger: ")]


@pytest.fixture
def book(tmp_path: Path) -> Path:
    _workbook(tmp_path / "plan.xlsx")
    return tmp_path / "plan.xlsx"


def test_the_plain_workbook_imports(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, text, err = _import(tmp_path, capsys)
    assert (code, err) == (0, [])
    assert GOOD_RACKS in text


def test_a_declared_dimension_of_the_whole_sheet_is_ignored(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """openpyxl pads every row to the declared width and height: 17 billion cells."""
    _rewrite(book, SHEET, _sub(r'<dimension ref="[^"]*"\s*/>', '<dimension ref="A1:XFD1048576"/>'))
    code, text, err = _import(tmp_path, capsys)
    assert (code, err) == (0, [])
    assert GOOD_RACKS in text


def test_a_lowercase_merge_reference_is_read_as_excel_would(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _rewrite(book, SHEET, _sub('<mergeCell ref="A2:A3"', '<mergeCell ref="a2:a3"'))
    code, text, err = _import(tmp_path, capsys)
    assert (code, err) == (0, [])
    assert GOOD_RACKS in text  # r2's row is A, from the merged cell


def test_a_merge_reference_that_is_not_one_is_one_error(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _rewrite(book, SHEET, _sub('<mergeCell ref="A2:A3"', '<mergeCell ref="A2:XFE9"'))
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert err == [f"dclint: error: {book}: sheet 'Racks': 'XFE9' is not a cell reference"]


def test_a_row_30_million_rows_down_is_refused_at_once(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """openpyxl yields an empty row for each row skipped: 30 million of them."""
    _rewrite(book, SHEET, _sub("</sheetData>", '<row r="30000000"/></sheetData>'))
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert err == [
        f"dclint: error: {book}: sheet 'Racks': row 30,000,000 is past a sheet's 1,048,576 rows"
    ]


def _empty_rows(book: Path, millions: int) -> None:
    with zipfile.ZipFile(book) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    head, tail = parts[SHEET].split(b"</sheetData>")
    with zipfile.ZipFile(book, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            if name != SHEET:
                z.writestr(name, data)
        with z.open(SHEET, "w", force_zip64=True) as f:
            f.write(head)
            chunk = b"<row/>" * 1_000_000
            for _ in range(millions):
                f.write(chunk)
            f.write(b"</sheetData>" + tail)


@pytest.mark.parametrize(
    "millions",
    [3, pytest.param(30, marks=pytest.mark.integration)],  # 30: ~3 s to write the test's file
)
def test_millions_of_empty_rows_are_a_zip_bomb_refused_before_parsing(
    millions: int,
    book: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """30 million `<row/>` (180 MB) pack to ~0.3 MB: refused from the zip's directory, never
    parsed (openpyxl's load_workbook fails the test if called)."""
    _empty_rows(book, millions)
    monkeypatch.setattr(openpyxl, "load_workbook", _never)
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert len(err) == 1
    m = re.fullmatch(
        rf"dclint: error: {re.escape(str(book))}: {SHEET} unpacks ([\d,]+) times its packed "
        r"size \(over 250: a zip bomb, not a spreadsheet\)",
        err[0],
    )
    assert m is not None, err[0]
    assert int(m.group(1).replace(",", "")) > 250


def _never(*args: object, **kwargs: object) -> None:
    raise AssertionError("openpyxl was asked to open the workbook")


def test_a_shared_strings_bomb_is_refused_before_parsing(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    strings = b"<si><t>aaaaaaaa</t></si>" * 3_000_000  # 72 MB of one string, ~0.1 MB packed
    _rewrite(book, "xl/sharedStrings.xml", lambda _: b"<sst>" + strings + b"</sst>")
    monkeypatch.setattr(openpyxl, "load_workbook", _never)
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert len(err) == 1
    assert err[0].startswith(f"dclint: error: {book}: xl/sharedStrings.xml unpacks to ")
    assert err[0].endswith("over the 67,108,864-byte limit for a workbook's shared strings")


def test_shared_strings_under_another_name_are_capped_too(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The part [Content_Types].xml declares, whatever its name (cap lowered to 1 KiB)."""
    _rewrite(book, "xl/strs.xml", lambda _: b"<sst>" + b"<si><t>x</t></si>" * 100 + b"</sst>")
    _rewrite(
        book,
        "[Content_Types].xml",
        _sub(
            "</Types>",
            '<Override PartName="/xl/strs.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
        ),
    )
    monkeypatch.setattr(cells, "MAX_SHARED_STRINGS", 1024)
    code, _, err = _import(tmp_path, capsys)
    assert code == 2
    assert err == [
        f"dclint: error: {book}: xl/strs.xml unpacks to 1,711 bytes, over the 1,024-byte "
        "limit for a workbook's shared strings"
    ]


def test_rows_spanning_too_many_cells_are_refused(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One cell at column XFD pads its row to 16,384 cells: counted before the data is read
    (cap lowered to 40,000 cells here; 5,000,000 by default)."""
    rows = "".join(f'<row r="{r}"><c r="XFD{r}" t="n"><v>1</v></c></row>' for r in range(4, 10))
    _rewrite(book, SHEET, _sub("</sheetData>", rows + "</sheetData>"))
    monkeypatch.setattr(cells, "MAX_CELLS", 40_000)
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert err == [
        f"dclint: error: {book}: sheet 'Racks': its rows span more than 40,000 cells (up to row "
        "6): over the import's limit for a sheet"
    ]


def test_a_csv_field_over_the_limit_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    racks = tmp_path / "racks.csv"
    racks.write_text('Rack,Load (kW)\nr1,"12\n' + "x" * 2_000_000 + "\nr2,30\n", encoding="utf-8")
    (tmp_path / "map.yaml").write_text(
        "sheets: {racks: {columns: {id: Rack, it_load: Load}}}\n", encoding="utf-8"
    )
    out = tmp_path / "site.yaml"
    code = main(["import", "csv", str(racks), "--map", str(tmp_path / "map.yaml"), "-o", str(out)])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dclint: error: {racks}, line 3: a field longer than 1,048,576 characters (a quote "
        "left open?)"
    ]
    assert not out.exists()


def test_millions_of_empty_csv_lines_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blank lines are rows too: past the row cap (lowered to 1,000 here), one error."""
    racks = tmp_path / "racks.csv"
    racks.write_text("Rack,Load (kW)\nr1,12\n" + "\n" * 5000 + "r2,30\n", encoding="utf-8")
    (tmp_path / "map.yaml").write_text(
        "sheets: {racks: {columns: {id: Rack, it_load: Load}}}\n", encoding="utf-8"
    )
    monkeypatch.setattr(cells, "MAX_ROWS", 1000)
    code = main(["import", "csv", str(racks), "--map", str(tmp_path / "map.yaml")])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        f"dclint: error: {racks}: more than 1,000 rows or 5,000,000 cells (at line 1,001): "
        "over the import's limit for a table"
    ]


def test_a_bloated_styles_part_is_refused_before_parsing(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """openpyxl parses styles.xml whole even in read-only mode (cap lowered to 1 MiB here,
    32 MiB by default; 2 MiB of padding is under the zip-bomb floor)."""
    padding = b" " * (2 << 20)
    _rewrite(book, "xl/styles.xml", lambda xml: xml.replace(b"<fonts", padding + b"<fonts", 1))
    monkeypatch.setattr(cells, "MAX_XML_PART", 1 << 20)
    monkeypatch.setattr(openpyxl, "load_workbook", _never)
    code, text, err = _import(tmp_path, capsys)
    assert (code, text) == (2, "")
    assert len(err) == 1
    assert err[0].startswith(f"dclint: error: {book}: xl/styles.xml unpacks to 2,09")
    assert err[0].endswith(
        " bytes, over the 1,048,576-byte limit for a workbook's own XML (styles, workbook, "
        "relations)"
    )
