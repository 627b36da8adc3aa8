"""What an import may write: every object named, every number finite and within reach of
real equipment (checked on the Inventory, at the source object), and, as a last guard, a
fragment that dclint's own loader reads (a failure is reported at the source object of the
entry it is in). Nothing is written otherwise."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from dclint.importer.inventory import ImportProblem, Inventory

__all__ = [
    "BOUNDS",
    "SMALLEST",
    "below_text",
    "bound_text",
    "check_inventory",
    "check_loads",
    "out_of_bounds",
]

# The largest value of each kind an import takes: dclint's own bounds, each about ten times
# the largest real equipment, so a typo of a few digits or a corrupted cell is caught, never a
# real site. Low-voltage switchgear is rated to 6,300 A (IEC 61439 frames), feeds in a hall
# are low or medium voltage (IEC 60038: to 35 kV), announced racks reach 1 MW (OCP's
# Mt Diablo, 2025), ports 1.6 Tb/s (IEEE 802.3dj).
BOUNDS: dict[str, tuple[float, str, str]] = {  # kind -> (largest, unit, what)
    "voltage": (100_000.0, "V", "a voltage"),
    "current": (100_000.0, "A", "a current"),
    "power": (10e6, "W", "a power"),
    "percent": (100.0, "%", "a utilisation"),
    "speed": (100_000.0, "Gb/s", "a link speed"),
    "nodes": (10_000.0, "", "a node count"),
}


# The smallest value of a kind an import takes, where a value too small is a unit mistaken
# rather than a small device: a feed's or breaker's current of 63 mA is a '63 A' written with
# the wrong unit. 1 A is dclint's own bound, the smallest standard rating of an overcurrent
# device in NEC 240.6(A) (fuses of 1, 3, 6 and 10 A; breakers from 15 A); IEC 60898-1's
# preferred circuit-breaker ratings start at 6 A.
SMALLEST: dict[str, float] = {"current": 1.0}  # kind -> smallest, in BOUNDS' unit


def below_text(kind: str, value: float) -> str:
    """What a value below the kind's smallest is read as and why it is refused: 'a current of
    at least 1 A (a feed or breaker rating; read as 0.063 A: a unit of mA where A was meant?)'."""
    _, unit, what = BOUNDS[kind]
    return (
        f"{what} of at least {SMALLEST[kind]:g} {unit} (a feed or breaker rating; read as "
        f"{value:g} {unit}: a unit of m{unit} where {unit} was meant?)"
    )


def bound_text(kind: str) -> str:
    """A kind's bound as the README gives it: '100 kV', '10 MW', '100 Tb/s', '10,000'."""
    from dclint.units import Q_, fmt

    largest, unit, _ = BOUNDS[kind]
    if not unit:
        return f"{largest:,.0f}"
    if unit == "%":
        return f"{largest:g}%"
    compact = Q_(largest, unit).to_compact()  # 100,000 V -> 100 kV
    return fmt(Q_(float(compact.magnitude), compact.units))


def out_of_bounds(value: float, kind: str, zero: bool = False) -> str | None:
    """Why `value` (in the kind's unit) cannot be imported, or None when it can."""
    largest, unit, what = BOUNDS[kind]
    shown = f"{value:g}" + (f" {unit}" if unit and unit != "%" else unit)
    if not math.isfinite(value):
        return f"{what} of {shown} is not a finite number"
    if value < 0 or (value == 0 and not zero):
        return f"{what} of {shown}: expected a value above zero"
    if kind in SMALLEST and value < SMALLEST[kind]:
        return f"{what} of {shown}: expected {below_text(kind, value)}"
    if kind == "percent" and 0 < value < 1:  # NetBox and Nautobot give whole percents
        return (
            f"{what} of {shown}: expected a percent from 1 to 100 (a share {value:g} would be "
            f"{value * 100:g}%)"
        )
    if value > largest and kind == "percent":
        return f"{what} of {shown}: expected at most 100%"
    if value > largest:
        return (
            f"{what} of {shown} is beyond any real equipment (dclint takes up to "
            f"{bound_text(kind)})"
        )
    return None


def _values(inv: Inventory) -> Iterator[tuple[str, str, str, Any, str, bool]]:
    """(origin, object, field, value, kind, zero allowed) for every number read."""
    for p in inv.panels:
        yield p.origin, "panel", "voltage", p.voltage, "voltage", False
        yield p.origin, "panel", "current_rating", p.current_rating, "current", False
    for f in inv.feeds:
        yield f.origin, "feed", "voltage", f.voltage, "voltage", False
        yield f.origin, "feed", "amperage", f.amperage, "current", False
        yield f.origin, "feed", "max_utilization", f.max_utilization, "percent", False
    for r in inv.racks:
        yield r.origin, "rack", "nodes", r.nodes, "nodes", False
        yield r.origin, "rack", "it_load", r.it_load, "power", True
    for key, t in inv.device_types.items():
        where = f"{inv.source} device type {t.key}" if t.key else f"device type {key}"
        yield where, "device type", "allocated_draw", t.allocated_draw, "power", True
        yield where, "device type", "maximum_draw", t.maximum_draw, "power", True
    for d in inv.devices:
        yield d.origin, "device", "power", d.power, "power", True
    for c in inv.cables:
        yield c.origin, "cable", "speed", c.speed, "speed", False


def check_inventory(inv: Inventory) -> list[ImportProblem]:
    """Every object without a name, read twice, or holding a number no design can, at the
    object it came from. An object read twice is reported once and its copy dropped (so it
    is not reported again as a duplicate id)."""
    problems: list[ImportProblem] = []
    groups: tuple[tuple[str, list[Any]], ...] = (
        ("panel", inv.panels),
        ("feed", inv.feeds),
        ("rack", inv.racks),
        ("device", inv.devices),
    )
    for kind, records in groups:
        seen: set[str] = set()
        kept = []
        for rec in records:
            if rec.origin in seen:  # one DCIM object twice (a sheet's origin is its own cell)
                problems.append(ImportProblem(rec.origin, f"the source lists this {kind} twice"))
                continue
            seen.add(rec.origin)
            kept.append(rec)
            if not str(rec.name).strip():
                problems.append(ImportProblem(rec.origin, f"a {kind} without a name"))
        records[:] = kept
    for origin, obj, field, value, kind, zero in _values(inv):
        if value is None:
            continue
        why = out_of_bounds(float(value), kind, zero)
        if why is not None:
            problems.append(ImportProblem(origin, f"{obj} {field}: {why}"))
    return problems


_ENTRY = re.compile(r"^(\s*)- .*  # (.+)$")


def _owners(text: str) -> dict[int, str]:
    """Line (1-based) -> the source named by the comment of the list entry it is in."""
    owners: dict[int, str] = {}
    current: tuple[int, str] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        indent = len(line) - len(line.lstrip())
        m = _ENTRY.match(line)
        if m:
            current = (len(m.group(1)), m.group(2))
        elif current is not None and indent <= current[0]:
            current = None
        if current is not None:
            owners[number] = current[1]
    return owners


def check_loads(text: str, source: str) -> tuple[list[ImportProblem], list[str]]:
    """(problems, warnings) of loading the fragment `text` with dclint's loader, each at the
    source object of the entry it is in (else at `source`, what was imported). A value or key
    the design's schema refuses is a problem: no design extending the file could load. What
    a design extending it can complete (a rack with no load and no platform, a platform it
    defines under `catalog:`, a panel it adds) is a warning."""
    from dclint.errors import LoadError
    from dclint.loader.load import load_text

    try:
        load_text(text, "<import>")
    except LoadError as exc:
        owners = _owners(text)
        found = [(owners.get(p.line, source), p.message) for p in exc.problems]
        if _schema_refuses(text):
            return [
                ImportProblem(w, f"the design written would not load: {m}") for w, m in found
            ], []
        # a reference to an element the import did not write (a panel's fed_by naming a panel
        # outside the data) is the import's own error: the chain it followed was cut there,
        # and the ledger says so; a catalog entry (platform, type) a design may define is not
        dangling = [(w, m) for w, m in found if _dangling(m)]
        if dangling:
            return [
                ImportProblem(w, f"the design written would not load: {m}") for w, m in dangling
            ], []
        return [], [
            f"{w}: {m} (the design that extends this file must complete it)" for w, m in found
        ]
    return [], []


_COMPLETABLE = ("unknown platform", "unknown rack type", "unknown type")


def _dangling(message: str) -> bool:
    """Whether a load error names an element of the design that is not there."""
    return message.startswith("unknown ") and not message.startswith(_COMPLETABLE)


def _schema_refuses(text: str) -> bool:
    """Whether the text is not YAML, or not a Design by the schema (before references)."""
    from pydantic import ValidationError

    from dclint.loader.yamlsafe import YamlError, read_yaml
    from dclint.model.design import Design

    try:
        data, _ = read_yaml("<import>", text)
        Design.model_validate(data)
    except (YamlError, ValidationError):
        return True
    return False
