"""The import's ledger: for each kind of source object, how many were read, imported (an
element of the design), merged (into another element: a GPU node into its rack's node count,
a panel-to-panel feed into `fed_by`) and skipped, and why; each skipped object named by its
source reference (a DCIM object's page, a sheet's cell). Nothing read is absent from both
the design and the ledger: an object read and never placed is listed as such."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Ledger", "LedgerItem"]

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
