"""The import's ledger: for each kind of source object, how many were read, imported (an
element of the design), merged (into another element: a GPU node into its rack's node count,
a panel-to-panel feed into `fed_by`) and skipped, and why; each skipped object named by its
source reference (a DCIM object's page, a sheet's cell). Nothing read is absent from both
the design and the ledger: an object read and never placed is listed as such."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Ledger", "LedgerItem", "LedgerLine", "ReadLedger", "read_foot", "read_json"]

MOST_NAMED = 200  # skipped objects the fragment's comment names per kind (JSON names all)
_DIGITS = re.compile(r"(\d+)")


def _natural(origin: str) -> tuple[Any, ...]:
    """Sources in a stable order whatever order the source listed them in: numbers by value
    (`device 9` before `device 10`), so a re-import writes the same bytes."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(origin))


@dataclass(slots=True)
class LedgerItem:
    origin: str
    state: str = "read"  # read (not placed), imported, merged, skipped
    into: str = ""  # imported/merged: the design element; skipped: the reason
    note: str = ""


@dataclass
class Ledger:
    kinds: dict[str, dict[str, LedgerItem]] = field(default_factory=dict)

    def read(self, kind: str, origin: str) -> None:
        self.kinds.setdefault(kind, {}).setdefault(origin, LedgerItem(origin))

    def _set(self, kind: str, origin: str, state: str, into: str, note: str) -> None:
        item = self.kinds.setdefault(kind, {}).setdefault(origin, LedgerItem(origin))
        item.state, item.into, item.note = state, into, note

    def imported(self, kind: str, origin: str, into: str, note: str = "") -> None:
        self._set(kind, origin, "imported", into, note)

    def merged(self, kind: str, origin: str, into: str, note: str = "") -> None:
        self._set(kind, origin, "merged", into, note)

    def skipped(self, kind: str, origin: str, reason: str, note: str = "") -> None:
        self._set(kind, origin, "skipped", reason, note)

    def state(self, kind: str, origin: str) -> str | None:
        item = self.kinds.get(kind, {}).get(origin)
        return None if item is None else item.state

    def counts(self, kind: str) -> dict[str, int]:
        out = {"read": 0, "imported": 0, "merged": 0, "skipped": 0, "unplaced": 0}
        for item in self.kinds.get(kind, {}).values():
            out["read"] += 1
            out["unplaced" if item.state == "read" else item.state] += 1
        return out

    def reasons(self, kind: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in self.kinds.get(kind, {}).values():
            if item.state == "skipped":
                out[item.into] = out.get(item.into, 0) + 1
        return dict(sorted(out.items()))

    def lines(self, incomplete: bool = False) -> list[str]:
        """One line a kind: `device: read 64, imported 12, merged 40, skipped 12 (unmapped
        type pdu: 8; status decommissioning: 4)`; with `incomplete`, only the kinds something
        was left out of (skipped, or read and not placed)."""
        out = []
        for kind in sorted(self.kinds):
            c = self.counts(kind)
            if incomplete and not (c["skipped"] or c["unplaced"]):
                continue
            text = (
                f"{kind}: read {c['read']}, imported {c['imported']}, merged {c['merged']}, "
                f"skipped {c['skipped']}"
            )
            reasons = self.reasons(kind)
            if reasons:
                text += " (" + "; ".join(f"{r}: {n}" for r, n in reasons.items()) + ")"
            if c["unplaced"]:
                text += f", read and not placed {c['unplaced']}"
            out.append(text)
        return out

    def items(self, kind: str, *states: str) -> list[LedgerItem]:
        found = [i for i in self.kinds.get(kind, {}).values() if i.state in states]
        return sorted(found, key=lambda i: _natural(i.origin))

    def skipped_items(self, kind: str) -> list[LedgerItem]:
        return self.items(kind, "skipped", "read")

    def comment(self) -> list[str]:
        """The fragment's foot: the counts, then each skipped object by its source."""
        out = ["# Import ledger (read = imported + merged + skipped):"]
        out += [f"#   {line}" for line in self.lines()]
        for kind in sorted(self.kinds):
            items = self.skipped_items(kind)
            if not items:
                continue
            out.append(f"# Skipped {kind}s:")
            for item in items[:MOST_NAMED]:
                why = item.into if item.state == "skipped" else "read and not placed"
                note = f" ({item.note})" if item.note else ""
                out.append(f"#   {item.origin}: {why}{note}")
            if len(items) > MOST_NAMED:
                out.append(f"#   ... and {len(items) - MOST_NAMED} more (--ledger FILE names all)")
        for kind in sorted(self.kinds):  # placed, with a note: an offline node counted
            noted = [i for i in self.items(kind, "imported", "merged") if i.note]
            if not noted:
                continue
            out.append(f"# Placed with a note ({kind}s):")
            for item in noted[:MOST_NAMED]:
                out.append(f"#   {item.origin}: {item.state} into {item.into} ({item.note})")
            if len(noted) > MOST_NAMED:
                out.append(f"#   ... and {len(noted) - MOST_NAMED} more (--ledger FILE names all)")
        return out

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kind in sorted(self.kinds):
            entry: dict[str, Any] = dict(self.counts(kind))
            entry["skipped_by_reason"] = self.reasons(kind)
            for state in ("imported", "merged", "skipped"):
                key = "reason" if state == "skipped" else "into"
                entry[state + "_objects"] = [
                    {"source": i.origin, key: i.into, **({"note": i.note} if i.note else {})}
                    for i in self.items(kind, state)
                ]
            entry["unplaced_objects"] = [i.origin for i in self.items(kind, "read")]
            out[kind] = entry
        return out


# ---- the ledger read back (the review's appendix) -------------------------------------------

FOOT = "# Import ledger (read = imported + merged + skipped):"
_COUNTS = re.compile(
    r"^#   (?P<kind>[\w.-]+): read (?P<read>\d+), imported (?P<imported>\d+), "
    r"merged (?P<merged>\d+), skipped (?P<skipped>\d+)(?: \((?P<reasons>.*?)\))?"
    r"(?:, read and not placed (?P<unplaced>\d+))?$"
)
_COMMAND = re.compile(r"^# Written by `(?P<command>[^`]*)`")
_MORE = re.compile(r"^#   \.\.\. and (\d+) more")


@dataclass(frozen=True)
class LedgerLine:
    """One source object the ledger names: skipped (`why` is the reason), read and not
    placed, or placed with a note (`why`: 'merged into rack A02 (status offline: ...)')."""

    kind: str
    origin: str
    state: str  # skipped, unplaced, noted
    why: str


@dataclass
class ReadLedger:
    """An import's ledger as the review reads it back: from the fragment's foot (`read_foot`)
    or the `--ledger FILE` JSON (`read_json`). `unnamed` counts, per kind, the objects the
    foot left unnamed (it names MOST_NAMED a kind; the JSON names all)."""

    file: str
    command: str = ""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    lines: list[LedgerLine] = field(default_factory=list)
    unnamed: dict[str, int] = field(default_factory=dict)

    @property
    def left_out(self) -> int:
        """Objects skipped or read and not placed, over every kind."""
        return sum(c["skipped"] + c["unplaced"] for c in self.counts.values())

    def listed(self, *states: str) -> list[LedgerLine]:
        return [x for x in self.lines if x.state in states]


def _split(text: str) -> tuple[str, str]:
    """'NetBox device 45 <https://...>: unmapped type cm7200' -> (origin, why): after the
    source's <address> where it has one (an address holds ':'), else at the first ': '."""
    close = text.find(">: ")
    if text.find(" <") >= 0 and close >= 0:
        return text[: close + 1], text[close + 3 :]
    origin, _, why = text.partition(": ")
    return origin, why


def read_foot(text: str, file: str) -> ReadLedger | None:
    """The ledger at a fragment's foot (`Ledger.comment`), None where the file has none."""
    lines = text.splitlines()
    try:
        start = lines.index(FOOT)
    except ValueError:
        return None
    out = ReadLedger(file)
    for line in lines[:5]:
        m = _COMMAND.match(line)
        if m:
            out.command = m.group("command")
    section, state = "", ""
    for line in lines[start + 1 :]:
        if not line.startswith("#"):
            break
        m = _COUNTS.match(line)
        if m and not section:
            kind = m.group("kind")
            out.counts[kind] = {
                k: int(m.group(k) or 0)
                for k in ("read", "imported", "merged", "skipped", "unplaced")
            }
            if m.group("reasons"):
                out.reasons[kind] = m.group("reasons")
            continue
        if line.startswith("# Skipped ") and line.endswith("s:"):
            section, state = line[len("# Skipped ") : -2], "skipped"
            continue
        if line.startswith("# Placed with a note (") and line.endswith("s):"):
            section, state = line[len("# Placed with a note (") : -3], "noted"
            continue
        more = _MORE.match(line)
        if more and section:
            if state != "noted":
                out.unnamed[section] = out.unnamed.get(section, 0) + int(more.group(1))
            continue
        if line.startswith("#   ") and section:
            origin, why = _split(line[4:])
            item_state = "unplaced" if why == "read and not placed" else state
            out.lines.append(LedgerLine(section, origin, item_state, why))
    return out


def read_json(data: Any, file: str) -> ReadLedger:
    """The ledger `import --ledger FILE` wrote (`Ledger.as_json`): every object named."""
    if not isinstance(data, dict):
        raise ValueError("not an import ledger (a JSON object of kinds)")
    out = ReadLedger(file)
    for kind, entry in data.items():
        if not isinstance(entry, dict) or "read" not in entry:
            raise ValueError(f"kind {kind!r}: not an import ledger entry (no 'read' count)")
        out.counts[kind] = {
            k: int(entry.get(k, 0)) for k in ("read", "imported", "merged", "skipped", "unplaced")
        }
        reasons = entry.get("skipped_by_reason") or {}
        if reasons:
            out.reasons[kind] = "; ".join(f"{r}: {n}" for r, n in reasons.items())
        for obj in entry.get("skipped_objects", []):
            note = f" ({obj['note']})" if obj.get("note") else ""
            out.lines.append(LedgerLine(kind, obj["source"], "skipped", obj["reason"] + note))
        for origin in entry.get("unplaced_objects", []):
            out.lines.append(LedgerLine(kind, origin, "unplaced", "read and not placed"))
        for state in ("imported", "merged"):
            for obj in entry.get(state + "_objects", []):
                if obj.get("note"):
                    why = f"{state} into {obj['into']} ({obj['note']})"
                    out.lines.append(LedgerLine(kind, obj["source"], "noted", why))
    return out
