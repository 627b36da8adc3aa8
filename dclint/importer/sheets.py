"""Spreadsheets: racks, feeds, panels and devices from an xlsx workbook (openpyxl, read-only:
memory stays near constant whatever the file's size) or from csv files, by the mapping's
column map. Units come from the cell (`40 kW`) or from the header (`Power (kW)`); a formula
is read by the value a spreadsheet program cached for it; a merged cell's value holds over
its whole range; empty rows are skipped. Every bad cell is reported (`Racks!C12: ...`)."""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dclint.errors import ConfigError
from dclint.importer.cells import Cell as _Cell
from dclint.importer.cells import Uncached, csv_path, csv_rows, read_workbook, xlsx_rows
from dclint.importer.dcim import sanitize
from dclint.importer.inventory import (
    DeviceRec,
    DeviceTypeRec,
    FeedRec,
    ImportProblem,
    Inventory,
    PanelRec,
    RackRec,
)
from dclint.importer.mapping import Mapping

__all__ = ["MAX_BAD_CELLS", "input_paths", "read_sheet"]

MAX_BAD_CELLS = 10_000  # bad cells kept (the command prints the first 200 and a count)
_HEADER_UNIT = re.compile(r"^(.*?)\s*[\(\[]\s*([^\)\]]+?)\s*[\)\]]\s*$")
_DIMENSIONS = {  # field -> (unit a value is read in, example, what it is)
    "voltage": ("V", "415 V", "a voltage"),
    "current_rating": ("A", "63 A", "a current"),
    "it_load": ("W", "40 kW", "a power"),
    "power": ("W", "1.2 kW", "a power"),
}


_BOUND_KIND = {
    "voltage": "voltage",
    "current_rating": "current",
    "it_load": "power",
    "power": "power",
}


def input_paths(location: str, kind: str, mapping: Mapping) -> list[str]:
    """Every file an import of `location` reads, for the check that no output overwrites
    one."""
    if kind == "xlsx" or mapping.sheets is None:
        return [location]
    from dclint.importer.cells import csv_path

    tables = [getattr(mapping.sheets, t) for t in ("panels", "feeds", "racks", "devices")]
    out = [location]
    for table in tables:
        if table is not None:
            with contextlib.suppress(ConfigError):  # refused again, with its error, on reading
                out.append(csv_path(location, table.sheet))
    return out


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


# a row that sums the others: "TOTAL", "Subtotal row A", "Grand total", "Sum", German "Summe"
_TOTAL = re.compile(r"^(grand\s+|sub-?)?(totals?|sum|summe|gesamt)\b", re.IGNORECASE)


def _columns(table: Any) -> tuple[dict[str, str], dict[str, str | None]]:
    """The mapping's columns: field -> header, and field -> its unit (the mapping's, else the
    header's: 'Load (kW)')."""
    raw = {k: v for k, v in table.columns.model_dump().items() if v is not None}
    columns: dict[str, str] = {}
    defaults: dict[str, str | None] = {}
    for field, spec in raw.items():
        header = spec if isinstance(spec, str) else spec["column"]
        columns[field] = header
        m = _HEADER_UNIT.match(header)
        given = spec.get("unit") if isinstance(spec, dict) else None
        defaults[field] = given or (m.group(2) if m else None)
    return columns, defaults


@dataclass
class _Rows:
    """Where a table's reading stands: a blank row seen, `stop_at` met, the footer reached."""

    blank: bool = False
    stopped: bool = False
    footer: bool = False

    def left_out(self, table: Any, r: int, row: list[_Cell], no_id: bool) -> str:
        """Why row `r` is not data ('' when it is): `stop_at` and what follows it, `skip_rows`,
        a total row, a footer (after a blank row, a row with no id, and all after it)."""
        texts = [str(c.value) for c in row if isinstance(c.value, str)]
        if table.stop_at is not None and any(_norm(t) == _norm(table.stop_at) for t in texts):
            self.stopped = True
        if self.stopped or r in table.skip_rows:
            why = "stop_at" if self.stopped else "skip_rows"
            return f"a row the mapping's {why} leaves out"
        if any(_TOTAL.match(t.strip()) for t in texts):
            return "a total row"
        if self.footer or (self.blank and no_id):
            self.footer = True  # after a blank row, a row with no id: the table's footer
            return "a footer after a blank row"
        return ""


class _Reader:
    def __init__(self, path: str, kind: str, ledger: Any = None) -> None:
        from dclint.importer.ledger import Ledger

        self.path = path
        self.kind = kind
        self.problems: list[ImportProblem] = []
        self.label = os.path.basename(path)
        self.raw: bytes | None = None  # the workbook, read and checked once
        self.ledger: Ledger = ledger if ledger is not None else Ledger()
        self.headers: dict[str, dict[str, str]] = {}  # table -> field -> the client's header
        self.reported: set[str] = set()  # cells with a problem already

    def origin(self, where: str) -> str:
        return f"{self.label} {where}" if self.kind == "xlsx" else where

    def bad(self, cell: _Cell, expected: str) -> None:
        if cell.where in self.reported:
            return  # one problem a cell
        if len(self.problems) < MAX_BAD_CELLS:
            shown = repr(cell.value)[:60]
            self.problems.append(ImportProblem(cell.where, f"{shown}: expected {expected}"))

    def rows(self, sheet: str | None) -> Iterator[list[_Cell]]:
        if self.kind == "xlsx":
            if self.raw is None:
                self.raw = read_workbook(self.path)
            return xlsx_rows(self.path, self.raw, sheet)
        return csv_rows(csv_path(self.path, sheet))

    def table(
        self, table: Any, kind: str
    ) -> Iterator[tuple[dict[str, _Cell], dict[str, str | None]]]:
        """Each data row as {field: cell}, with each field's unit (the row's unit column, the
        header's, the mapping's). Rows that are not data go on the ledger: a total row, a
        footer after a blank row, `skip_rows`, `stop_at` and what follows it."""
        columns, defaults = _columns(table)
        index: dict[str, int] = {}
        units: dict[str, str | None] = {}
        unit_cols: dict[str, int] = {}
        first = next(iter(columns))  # the id (or name) column
        state = _Rows()
        for r, row in enumerate(self.rows(table.sheet), start=1):
            if r < table.header_row:
                continue
            if r == table.header_row:
                index, units = self._header(row, columns, table, defaults)
                unit_cols = self._unit_columns(row, table, columns, index)
                self.headers[kind] = {f: columns[f] for f in columns}
                continue
            if all(_empty(c.value) for c in row):
                state.blank = True
                continue  # an empty row
            cells = {}
            for field, i in index.items():
                cells[field] = row[i] if i < len(row) else _Cell(None, "")
            at = cells[first].where or (row[0].where if row else f"row {r}")
            where = self.origin(at)
            why = state.left_out(table, r, row, _empty(cells[first].value))
            self.ledger.read(kind, where)
            if why:
                self.ledger.skipped(kind, where, why)
                continue
            yield self._cells(cells), self._row_units(row, units, unit_cols)

    def _cells(self, cells: dict[str, _Cell]) -> dict[str, _Cell]:
        """A data row's cells, an uncached formula reported and read as empty."""
        for field, cell in cells.items():
            if isinstance(cell.value, Uncached):  # reported here, read as empty after
                self.uncached(cell)
                cells[field] = _Cell(None, cell.where, cell.fmt)
        return cells

    @staticmethod
    def _row_units(
        row: list[_Cell], units: dict[str, str | None], unit_cols: dict[str, int]
    ) -> dict[str, str | None]:
        """Each field's unit in this row: its unit column's, else the header's or mapping's."""
        row_units = dict(units)
        for field, i in unit_cols.items():
            cell = row[i] if i < len(row) else _Cell(None, "")
            if not _empty(cell.value):
                row_units[field] = str(cell.value).strip()
        return row_units

    def uncached(self, cell: _Cell) -> None:
        assert isinstance(cell.value, Uncached)
        self.reported.add(cell.where)
        if len(self.problems) < MAX_BAD_CELLS:
            self.problems.append(
                ImportProblem(
                    cell.where,
                    f"={cell.value.formula}: a formula with no value cached (the workbook "
                    "was written by a program that does not compute formulas): open and save "
                    "it in a spreadsheet program, or enter the value",
                )
            )

    def _unit_columns(
        self, row: list[_Cell], table: Any, columns: dict[str, str], index: dict[str, int]
    ) -> dict[str, int]:
        """field -> the column holding its rows' units (`units: {Design load: Unit}`)."""
        out: dict[str, int] = {}
        heads = {_norm(str(c.value)): i for i, c in enumerate(row) if c.value is not None}
        for quantity, unit_header in table.units.items():
            fields = [f for f, h in columns.items() if _norm(h) == _norm(quantity)]
            fields += [
                f
                for f, h in columns.items()
                if (m := _HEADER_UNIT.match(h)) and _norm(m.group(1)) == _norm(quantity)
            ]
            where = row[0].where.split("!")[0] if row else table.sheet
            if not fields:
                raise ConfigError(
                    f"units: {quantity!r} is not a column the mapping reads "
                    f"(it reads: {', '.join(map(repr, columns.values()))})"
                )
            if _norm(unit_header) not in heads:
                raise ConfigError(
                    f"{where}!{table.header_row}: no column headed {unit_header!r} (the "
                    f"units of {quantity!r})"
                )
            out[fields[0]] = heads[_norm(unit_header)]
        return out

    def _header(
        self,
        row: list[_Cell],
        columns: dict[str, str],
        table: Any,
        defaults: dict[str, str | None],
    ) -> tuple[dict[str, int], dict[str, str | None]]:
        found: dict[str, tuple[int, str | None]] = {}
        for i, cell in enumerate(row):
            if cell.value is None:
                continue
            text = str(cell.value)
            m = _HEADER_UNIT.match(text)
            for key in {_norm(text)} | ({_norm(m.group(1))} if m else set()):
                found.setdefault(key, (i, m.group(2) if m else None))
        index: dict[str, int] = {}
        units: dict[str, str | None] = {}
        missing = []
        for field, header in columns.items():
            hit = found.get(_norm(header))
            if hit is None:
                m = _HEADER_UNIT.match(header)
                hit = found.get(_norm(m.group(1))) if m else None
            if hit is None:
                missing.append(header)
                continue
            index[field] = hit[0]
            units[field] = hit[1] or defaults.get(field)
        if missing:
            where = row[0].where.split("!")[0] if row else table.sheet
            raise ConfigError(
                f"{where}!{table.header_row}: no column headed {', '.join(map(repr, missing))} "
                f"(the headers: {', '.join(repr(c.value) for c in row if c.value is not None)})"
            )
        return index, units

    def text(self, cell: _Cell, required: bool = True) -> str | None:
        value = cell.value
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.bad(cell, "a value")
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return sanitize(value, cell.where, self.problems).strip()

    def number(self, cell: _Cell, decimal: str) -> float | None:
        value = cell.value
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            return float(value)
        return _parse_number(str(value), decimal)

    def quantity(
        self, cell: _Cell, field: str, unit: str | None, decimal: str, header: str | None = None
    ) -> float | None:
        """The cell's value in the field's unit: a number with the unit of its row's unit
        column, its header's or the mapping's, or text with its own unit."""
        base, example, what = _DIMENSIONS[field]
        value = cell.value
        if value is None or (isinstance(value, str) and not value.strip()):
            self.bad(cell, f"{what}, e.g. '{example}'")
            return None
        from dclint.units import Q_, QuantityError, parse_quantity, parse_unit

        try:
            if isinstance(value, int | float) and not isinstance(value, bool):
                if unit is None:
                    head = header or field
                    self.bad(
                        cell,
                        f"{what} with its unit: '{example}', a unit in the header "
                        f"('{head} ({example.split()[-1]})'), a unit column (units: "
                        f"{{{head}: Unit}}) or the column's unit in the mapping file "
                        f"({{column: {head}, unit: {example.split()[-1]}}})",
                    )
                    return None
                q = Q_(float(value), parse_unit(unit))
            else:
                text = str(value).strip()
                m = re.fullmatch(r"([-+0-9.,\s\u00a0']+?)\s*([^\d\s.,].*)?", text)
                number = _parse_number(m.group(1), decimal) if m else None
                if number is None:
                    self.bad(cell, f"{what}, e.g. '{example}'" + _decimal_hint(text, decimal))
                    return None
                unit_text = (m.group(2) if m else None) or unit
                if unit_text is None:
                    self.bad(cell, f"{what} with its unit, e.g. '{example}'")
                    return None
                q = parse_quantity(f"{number!r} {unit_text}")
            out = float(q.m_as(base))
        except (QuantityError, Exception):  # an unknown unit, or one of another dimension
            self.bad(cell, f"{what}, e.g. '{example}'")
            return None
        if not math.isfinite(out) or out <= 0:
            self.bad(cell, f"{what} above zero, e.g. '{example}'")
            return None
        from dclint.importer.validate import BOUNDS, SMALLEST, below_text, bound_text

        kind = _BOUND_KIND[field]
        if out > BOUNDS[kind][0]:  # a typo of a few digits: dclint's bound (validate.BOUNDS)
            self.bad(cell, f"{what} of at most {bound_text(kind)}, e.g. '{example}'")
            return None
        if kind in SMALLEST and out < SMALLEST[kind]:  # '63 mA' for 63 A (validate.SMALLEST)
            self.bad(cell, f"{below_text(kind, out)}, e.g. '{example}'")
            return None
        return out


def _decimal_hint(text: str, decimal: str) -> str:
    if decimal == "." and re.search(r"\d,\d{1,2}(?!\d)", text):
        return " (a decimal comma? set `decimal: ','` for this table)"
    return ""


def _parse_number(text: str, decimal: str) -> float | None:
    """A number as a locale writes it: `1,234.5` ('.'), `1.234,5` or `1 234,5` (',')."""
    t = text.strip().replace("\u00a0", " ").replace("\u202f", " ").replace("'", "")
    t = re.sub(r"(?<=\d) (?=\d{3}\b)", "", t)
    thousands = "," if decimal == "." else "."
    if thousands in t:
        if not re.fullmatch(rf"[-+]?\d{{1,3}}(\{thousands}\d{{3}})+(\{decimal}\d+)?", t):
            return None
        t = t.replace(thousands, "")
    t = t.replace(decimal, ".")
    if not re.fullmatch(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?", t):
        return None
    value = float(t)
    return value if math.isfinite(value) else None


def read_sheet(path: str, kind: str, mapping: Mapping) -> Inventory:
    """An Inventory from a workbook (xlsx) or csv files, by `mapping.sheets`; every bad cell
    (up to MAX_BAD_CELLS) is an ImportProblem at its cell."""
    if mapping.sheets is None:
        raise ConfigError(
            f"import {kind} needs `sheets:` in the mapping file (--map): which sheet and "
            "columns hold racks, feeds, panels and devices"
        )
    inv = Inventory("spreadsheet")
    r = _Reader(path, kind, inv.ledger)
    if kind == "xlsx":  # a regular file within the limits, checked before openpyxl opens it
        r.raw = read_workbook(path)
    sheets = mapping.sheets
    if sheets.panels is not None:
        _panels(r, inv, sheets.panels)
    if sheets.racks is not None:
        _racks(r, inv, sheets.racks)
    if sheets.feeds is not None:
        _feeds(r, inv, sheets.feeds)
    if sheets.devices is not None:
        _devices(r, inv, sheets.devices)
    _check_refs(inv, r)
    inv.problems.extend(r.problems)
    return inv


@dataclass
class _Row:
    """One data row of a table, read field by field: a field the mapping names no column for
    reads as None; `given` reads a field whose cell may be empty."""

    r: _Reader
    cells: dict[str, _Cell]
    units: dict[str, str | None]
    table: Any  # the mapping's sheet: its decimal mark
    kind: str  # the ledger's kind of the table ('rack', 'power-feed', ...)

    def given(self, field: str) -> bool:
        return field in self.cells and self.cells[field].value is not None

    def text(self, field: str, required: bool = True) -> str | None:
        if field not in self.cells:
            return None
        return self.r.text(self.cells[field], required)

    def number(self, field: str) -> float | None:
        return self.r.number(self.cells[field], self.table.decimal)

    def quantity(self, field: str) -> float | None:
        """The field in its unit (reported at its cell when empty or bad)."""
        if field not in self.cells:
            return None
        header = self.r.headers.get(self.kind, {}).get(field)  # for a unit message
        return self.r.quantity(
            self.cells[field], field, self.units[field], self.table.decimal, header
        )

    def origin(self, field: str) -> str | None:
        cell = self.cells.get(field)
        return self.r.origin(cell.where) if cell is not None and cell.where else None


def _rows(r: _Reader, t: Any, kind: str) -> Iterator[_Row]:
    for cells, units in r.table(t, kind):
        yield _Row(r, cells, units, t, kind)


def _panels(r: _Reader, inv: Inventory, t: Any) -> None:
    """The power panels' sheet."""
    for row in _rows(r, t, "power-panel"):
        name = row.text("id")
        voltage, current = row.quantity("voltage"), row.quantity("current_rating")
        path_ = row.text("path", required=False)
        if name is not None:
            inv.panels.append(
                PanelRec(name, r.origin(row.cells["id"].where), _path(path_), voltage, current)
            )


def _racks(r: _Reader, inv: Inventory, t: Any) -> None:
    """The racks' sheet."""
    for row in _rows(r, t, "rack"):
        name = row.text("id")
        platform = row.text("platform", False)
        nodes = None
        if row.given("nodes"):
            n = row.number("nodes")
            if n is None or not n.is_integer() or n < 1:
                r.bad(row.cells["nodes"], "a whole number of nodes, e.g. 4")
            else:
                nodes = int(n)
        load = row.quantity("it_load") if row.given("it_load") else None
        rack_row = row.text("row", False)
        if name is not None:
            inv.racks.append(
                RackRec(
                    name,
                    r.origin(row.cells["id"].where),
                    "active",
                    rack_row,
                    platform,
                    nodes,
                    load,
                    row.origin("nodes"),
                    row.origin("it_load"),
                    row.origin("platform"),
                )
            )


def _feeds(r: _Reader, inv: Inventory, t: Any) -> None:
    """The power feeds' sheet."""
    for row in _rows(r, t, "power-feed"):
        name = row.text("id")
        v, a = row.quantity("voltage"), row.quantity("current_rating")
        phases = 3
        if row.given("phases"):
            n = row.number("phases")
            if n not in (1.0, 3.0):
                r.bad(row.cells["phases"], "1 or 3 phases")
            else:
                phases = int(n or 3)
        util = None
        if row.given("max_utilisation"):
            util = _percent(r, row.cells["max_utilisation"], t.decimal)
        panel, rack = row.text("panel", False), row.text("rack", False)
        path_ = row.text("path", False)
        if name is not None and v is not None and a is not None:
            inv.feeds.append(
                FeedRec(
                    name,
                    r.origin(row.cells["id"].where),
                    panel,
                    rack,
                    v,
                    a,
                    phases,
                    util,
                    _path(path_),
                    "active",
                )
            )


def _devices(r: _Reader, inv: Inventory, t: Any) -> None:
    """The devices' sheet."""
    for row in _rows(r, t, "device"):
        name = row.text("name")
        rack = row.text("rack")
        model = row.text("type")
        role = row.text("role", False)
        power = row.quantity("power") if row.given("power") else None
        if name is None or model is None:
            continue
        inv.device_types.setdefault(model, DeviceTypeRec(model, model))
        inv.devices.append(
            DeviceRec(name, r.origin(row.cells["name"].where), model, rack, role, "active", power)
        )


def _path(text: str | None) -> str | None:
    if text is None:
        return None
    t = text.strip().upper()
    return t[:16] if t else None


def _percent(r: _Reader, cell: _Cell, decimal: str) -> float | None:
    value = cell.value
    if isinstance(value, int | float) and not isinstance(value, bool):
        marked = "%" in cell.fmt
        pct = float(value) * 100 if marked else float(value)
    else:
        raw = str(value).strip()
        marked = raw.endswith("%")
        number = _parse_number(raw.removesuffix("%").strip(), decimal)
        pct = number if number is not None else -1.0
    if not 0 < pct <= 100:
        r.bad(cell, "a utilisation in percent, e.g. 80%")
        return None
    if pct <= 1 and not marked:  # 0.8: a share (80%, as a design reads it) or 0.8%? never 0.8%
        r.bad(
            cell,
            "a utilisation in percent, e.g. 80% (a bare number up to 1 is ambiguous: 0.8 is "
            "80% as a share, 0.8% as a percent; write 80%)",
        )
        return None
    return pct


def _check_refs(inv: Inventory, r: _Reader) -> None:
    """A feed's panel and rack, a device's rack: names the sheets list."""
    panels = {p.name for p in inv.panels}
    racks = {x.name for x in inv.racks}
    for f in inv.feeds:
        if f.panel is not None and panels and f.panel not in panels:
            r.problems.append(ImportProblem(f.origin, f"feed '{f.name}': no panel '{f.panel}'"))
        if f.rack is not None and racks and f.rack not in racks:
            r.problems.append(ImportProblem(f.origin, f"feed '{f.name}': no rack '{f.rack}'"))
    for d in inv.devices:
        if d.rack is not None and racks and d.rack not in racks:
            r.problems.append(ImportProblem(d.origin, f"device '{d.name}': no rack '{d.rack}'"))
