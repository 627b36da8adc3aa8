"""The cells of a csv file or an xlsx sheet, row by row, read within bounds: a workbook's zip
is checked before openpyxl parses any of it (each part's size, the shared strings' size, the
compression ratio of a zip bomb), its declared dimension is ignored, and its rows, columns and
cells are capped while its XML is scanned; a csv field over the limit is one error line."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
from collections.abc import Iterator
from typing import Any

from dclint.errors import ConfigError

__all__ = [
    "MAX_CELLS",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_SHEET_BYTES",
    "Cell",
    "col_letter",
    "csv_path",
    "csv_rows",
    "read_workbook",
    "xlsx_rows",
]

MAX_SHEET_BYTES = 1 << 30  # an xlsx file (its parts are bounded again, unpacked)
MAX_CSV_BYTES = 256 << 20  # a csv file: 1,000 racks' inventory is ~1 MB
MAX_ROWS = 1_048_576  # Excel's own limits of a sheet
MAX_COLUMNS = 16_384  # XFD
# dclint's own bounds, far above an inventory (1,000 racks: ~10,000 rows of ~30 columns):
MAX_CELLS = 5_000_000  # cells a sheet's rows span, gaps included (openpyxl fills them)
MAX_PART_BYTES = 256 << 20  # one part of the zip, uncompressed (a sheet's XML)
MAX_XML_PART = 32 << 20  # any other XML part (workbook, styles, relations), parsed whole
MAX_SHARED_STRINGS = 64 << 20  # xl/sharedStrings.xml, which openpyxl parses whole on opening
MAX_UNZIPPED = 1 << 30  # every part together
MAX_RATIO = 250  # a part compressed more than this (and over RATIO_FLOOR) is a zip bomb
RATIO_FLOOR = 8 << 20
MAX_PARTS = 10_000
MAX_MERGED_CELLS = 1_000_000
CSV_FIELD = 1 << 20  # one csv field (the csv module's default is 131,072 characters)


class Cell:
    __slots__ = ("fmt", "value", "where")

    def __init__(self, value: Any, where: str, fmt: str = "General") -> None:
        self.value = value
        self.where = where
        self.fmt = fmt


def col_letter(index: int) -> str:
    out = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


def _cell_ref(ref: str) -> tuple[int, int]:
    """(row, 0-based column) of `B12` (any case: Excel writes upper, other programs may not);
    ValueError for anything else or past Excel's limits."""
    m = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d{1,7})", ref.strip())
    if m is None:
        raise ValueError(ref)
    col = 0
    for ch in m.group(1).upper():
        col = col * 26 + ord(ch) - 64
    row = int(m.group(2))
    if not (1 <= row <= MAX_ROWS and 1 <= col <= MAX_COLUMNS):
        raise ValueError(ref)
    return row, col - 1


def read_workbook(path: str) -> bytes:
    """The workbook's bytes (a regular file within MAX_SHEET_BYTES), its zip checked before
    any part of it is parsed."""
    import zipfile

    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_SHEET_BYTES, "workbook")
    except FileRejected as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            parts = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ConfigError(f"{path}: not a readable xlsx workbook ({type(exc).__name__})") from None
    if len(parts) > MAX_PARTS:
        raise ConfigError(
            f"{path}: {len(parts):,} parts in the workbook's zip (over {MAX_PARTS:,})"
        )
    strings = _shared_strings_part(path, raw, parts)
    total = 0
    for part in parts:
        size = part.file_size
        total += size
        name = part.filename
        if name.lower() in strings and size > MAX_SHARED_STRINGS:
            raise ConfigError(
                f"{path}: {name} unpacks to {size:,} bytes, over the {MAX_SHARED_STRINGS:,}-byte "
                "limit for a workbook's shared strings"
            )
        whole = name.lower().endswith((".xml", ".rels")) and name.lower() not in strings
        if whole and not name.lower().startswith("xl/worksheets/") and size > MAX_XML_PART:
            raise ConfigError(  # openpyxl parses these whole on opening, even read-only
                f"{path}: {name} unpacks to {size:,} bytes, over the {MAX_XML_PART:,}-byte "
                "limit for a workbook's own XML (styles, workbook, relations)"
            )
        if size > MAX_PART_BYTES:
            raise ConfigError(
                f"{path}: {name} unpacks to {size:,} bytes, over the {MAX_PART_BYTES:,}-byte "
                "limit for one part of a workbook"
            )
        if size > RATIO_FLOOR and size > MAX_RATIO * max(part.compress_size, 1):
            raise ConfigError(
                f"{path}: {name} unpacks {size // max(part.compress_size, 1):,} times its "
                f"packed size (over {MAX_RATIO}: a zip bomb, not a spreadsheet)"
            )
    if total > MAX_UNZIPPED:
        raise ConfigError(
            f"{path}: the workbook unpacks to {total:,} bytes, over the {MAX_UNZIPPED:,}-byte limit"
        )
    return raw


def _shared_strings_part(path: str, raw: bytes, parts: list[Any]) -> set[str]:
    """The names (lowercase) of the part(s) holding the shared strings: the one
    [Content_Types].xml declares, and the usual name."""
    import zipfile

    names = {"xl/sharedstrings.xml"}
    types = next((p for p in parts if p.filename == "[Content_Types].xml"), None)
    if types is None:
        return names
    if types.file_size > 1 << 20:
        raise ConfigError(f"{path}: [Content_Types].xml is over 1 MiB: not a workbook's")
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        text = z.read(types).decode("utf-8", "replace")
    for m in re.finditer(r"<Override\b[^>]*>", text):
        tag = m.group(0)
        part = re.search(r'PartName="/?([^"]+)"', tag)
        if part and "sharedStrings+xml" in tag:
            names.add(part.group(1).lower())
    return names


class Uncached:
    """A formula cell with no value cached (a workbook written by a program that does not
    compute formulas): its value is unknown, never 0 or empty."""

    __slots__ = ("formula",)

    def __init__(self, formula: str) -> None:
        self.formula = formula

    def __repr__(self) -> str:
        return f"={self.formula}"


class _Scan:
    """Counts of a sheet's XML, fed element by element (expat: no tree is built, memory
    stays flat), and its merged ranges."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.row = 0  # the current row's number
        self.width = 0  # columns the current row spans
        self.spanned = 0  # cells all rows before it span
        self.merged: dict[tuple[int, int], tuple[int, int]] = {}
        # (row, col) -> formula of each formula cell without a cached value (read-only,
        # data-only openpyxl gives such a cell as empty)
        self.uncached: dict[tuple[int, int], str] = {}
        self._in = ""  # the cell child being read: "f" (formula) or "v"/"is" (value)
        self._formula: str | None = None
        self._value = ""

    def text(self, data: str) -> None:
        if self._in == "f":
            self._formula = (self._formula or "") + data
        elif self._in in ("v", "t"):
            self._value += data

    def end(self, name: str) -> None:
        local = name.rpartition("}")[2]
        if local == "c":
            if self._formula is not None and not self._value.strip():
                self.uncached[(self.row, self.width - 1)] = self._formula or "(shared formula)"
            self._formula, self._value = None, ""
        if local in ("f", "v", "t"):
            self._in = ""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition("}")[2]
        if local == "f":
            self._in = "f"
            self._formula = self._formula or ""
        elif local in ("v", "t"):
            self._in = local
        if local == "c":
            ref = attrs.get("r")
            self.width = _cell_ref(ref)[1] + 1 if ref else self.width + 1
            if self.width > MAX_COLUMNS:
                raise ConfigError(
                    f"{self.where}: row {self.row:,} is past a sheet's {MAX_COLUMNS:,} columns"
                )
        elif local == "row":
            self.end_row()
            r = attrs.get("r")
            self.row = int(r) if r is not None and r.isdigit() else self.row + 1
            if self.row > MAX_ROWS:
                raise ConfigError(
                    f"{self.where}: row {self.row:,} is past a sheet's {MAX_ROWS:,} rows"
                )
        elif local == "mergeCell":
            _merge(self.merged, attrs.get("ref", ""), self.where)

    def end_row(self) -> None:
        self.spanned += self.width
        self.width = 0
        if self.spanned > MAX_CELLS:
            raise ConfigError(
                f"{self.where}: its rows span more than {MAX_CELLS:,} cells (up to row "
                f"{self.row:,}): over the import's limit for a sheet"
            )


def _scan(ws: Any, where: str) -> _Scan:
    """The sheet's XML scanned once, streaming, before its data is read: ConfigError for a row
    or column past Excel's limits or more than MAX_CELLS cells spanned (openpyxl fills a
    row's gaps); then (row, col) -> the top-left cell of its merged range (read-only mode
    does not parse <mergeCells>)."""
    from xml.parsers import expat

    source = getattr(ws, "_get_source", None)
    scan = _Scan(where)
    if source is None:
        return scan
    parser = expat.ParserCreate(namespace_separator="}")
    parser.StartElementHandler = scan.start
    parser.EndElementHandler = scan.end
    parser.CharacterDataHandler = scan.text
    try:
        with source() as xml:
            parser.ParseFile(xml)
        scan.end_row()
    except ValueError as exc:  # a cell reference past the limits, or garbage
        raise ConfigError(f"{where}: '{str(exc)[:40]}' is not a cell reference") from None
    except expat.ExpatError as exc:
        raise ConfigError(f"{where}: the sheet's XML is malformed ({exc})") from None
    return scan


def _merge(out: dict[tuple[int, int], tuple[int, int]], ref: str, where: str) -> None:
    if ":" not in ref:
        return
    (r1, c1), (r2, c2) = (_cell_ref(x) for x in ref.split(":", 1))
    r1, r2, c1, c2 = min(r1, r2), max(r1, r2), min(c1, c2), max(c1, c2)
    if (r2 - r1 + 1) * (c2 - c1 + 1) + len(out) > MAX_MERGED_CELLS:
        raise ConfigError(
            f"{where}: merged ranges cover more than {MAX_MERGED_CELLS:,} cells ({ref})"
        )
    for r in range(r1, r2 + 1):
        for c in range(c1, c2 + 1):
            if (r, c) != (r1, c1):
                out[(r, c)] = (r1, c1)


def xlsx_rows(path: str, raw: bytes, sheet: str | None) -> Iterator[list[Cell]]:
    """The sheet's rows (the first sheet's when `sheet` is None), from `raw`, the bytes
    read_workbook checked."""
    try:
        from openpyxl import load_workbook
    except ImportError:
        raise ConfigError(
            "import xlsx needs openpyxl: pip install 'dclint[xlsx]' (or read a csv export)"
        ) from None
    try:
        wb = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # zipfile.BadZipFile, KeyError, InvalidFileException...
        raise ConfigError(f"{path}: not a readable xlsx workbook ({type(exc).__name__})") from None
    try:
        name = sheet or wb.sheetnames[0]
        if name not in wb.sheetnames:
            raise ConfigError(f"{path}: no sheet '{name}' (it has: {', '.join(wb.sheetnames)})")
        ws = wb[name]
        ws.reset_dimensions()  # the declared <dimension> may claim A1:XFD1048576
        scanned = _scan(ws, f"{path}: sheet '{name}'")
        merged, uncached = scanned.merged, scanned.uncached
        anchors: dict[tuple[int, int], Any] = {}
        wanted = set(merged.values())
        for r, row in enumerate(ws.iter_rows(), start=1):
            cells = []
            for c, cell in enumerate(row):
                value = getattr(cell, "value", None)
                if (r, c) in wanted:
                    anchors[(r, c)] = value
                if value is None and (r, c) in merged:
                    value = anchors.get(merged[(r, c)])
                if value is None and (r, c) in uncached:
                    value = Uncached(uncached[(r, c)])
                fmt = getattr(cell, "number_format", "General") or "General"
                cells.append(Cell(value, f"{name}!{col_letter(c)}{r}", fmt))
            yield cells
    finally:
        wb.close()


def csv_rows(path: str) -> Iterator[list[Cell]]:
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_CSV_BYTES, "csv")
    except FileRejected as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (export the csv as UTF-8)") from None
    dialect: Any = csv.excel
    with contextlib.suppress(csv.Error):
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t")
    name = os.path.basename(path)
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    del raw
    previous = csv.field_size_limit(CSV_FIELD)
    spanned = 0
    try:
        for r, row in enumerate(reader, start=1):
            spanned += len(row)
            if r > MAX_ROWS or spanned > MAX_CELLS:
                raise ConfigError(
                    f"{path}: more than {MAX_ROWS:,} rows or {MAX_CELLS:,} cells (at line "
                    f"{reader.line_num:,}): over the import's limit for a table"
                )
            yield [
                Cell(v if v.strip() else None, f"{name}!{col_letter(c)}{r}")
                for c, v in enumerate(row)
            ]
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise ConfigError(
                f"{path}, line {reader.line_num}: a field longer than {CSV_FIELD:,} "
                "characters (a quote left open?)"
            ) from None
        raise ConfigError(f"{path}, line {reader.line_num}: not a csv row ({exc})") from None
    finally:
        csv.field_size_limit(previous)


def csv_path(location: str, sheet: str | None) -> str:
    """The csv a table is read from: FILE itself, or `SHEET.csv` in FILE's folder (FILE's
    folder is FILE when it is a directory). A name that leads out of that folder, by a path
    (the mapping refuses those) or a symbolic link, is refused before the file is opened."""
    if os.path.isdir(location):
        if sheet is None:
            raise ConfigError(f"{location} is a directory: name each table's csv in `sheet:`")
        folder = location
    elif sheet is None or os.path.splitext(os.path.basename(location))[0] == sheet:
        return location  # the file named on the command line
    else:
        folder = os.path.dirname(location) or "."
    path = os.path.join(folder, f"{sheet}.csv")
    real, top = os.path.realpath(path), os.path.realpath(folder)
    if re.search(r"[/\\:\x00]", sheet) or os.path.dirname(real) != top:
        raise ConfigError(
            f"{path}: outside {folder} (a path or a symbolic link): an import reads only "
            "the files in the folder of the file named"
        )
    return path
