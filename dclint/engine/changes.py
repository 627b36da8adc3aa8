"""Fixes that several rules offer, built once: a rule passes them as `Violation.changes`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dclint.engine.rule import Change

if TYPE_CHECKING:
    from dclint.model.topology import FeedItem
    from dclint.units import Quantity

__all__ = ["entry_copies_change", "next_ids", "rating_change"]


def rating_change(feed: FeedItem, load: Quantity, capacity: Quantity) -> tuple[Change, ...]:
    """Raise the feed's current rating to the next standard size (NEC 240.6(A)) whose derated
    capacity carries `load` (the capacity is linear in the current). Unsafe: it changes the
    design, and the panel above must carry it too (PWR008 checks)."""
    from dclint.calc.ratings import next_standard_rating
    from dclint.units import fmt

    amps = float(feed.model.current_rating.m_as("A"))
    cap_kw = float(capacity.m_as("kW"))
    if cap_kw <= 0:
        return ()
    need = next_standard_rating(amps * float(load.m_as("kW")) / cap_kw)
    if need is None or need <= amps:
        return ()
    return (
        Change(
            f"{need} A",
            f"feed {feed.id} current_rating {amps:g} A -> {need} A (the next standard rating, "
            f"NEC 240.6(A)) to carry {fmt(load)}",
            path=(*feed.path, "current_rating"),
        ),
    )


def next_ids(base: str, taken: set[str], count: int) -> list[str]:
    """`count` ids after `base` that `taken` does not hold: its trailing number counted on
    (cdu-2 -> cdu-3, cdu-09 -> cdu-10), else `-2`, `-3` appended (cdu-a -> cdu-a-2)."""
    import re

    match = re.fullmatch(r"(.*?)(\d+)", base)
    stem, width, n = (
        (match.group(1), len(match.group(2)), int(match.group(2))) if match else (f"{base}-", 1, 1)
    )
    out: list[str] = []
    while len(out) < count:
        n += 1
        candidate = f"{stem}{n:0{width}d}"
        if candidate not in taken:
            out.append(candidate)
    return out


def entry_copies_change(
    entry: Any, list_path: tuple[str | int, ...], ids: list[str], summary: str
) -> Change:
    """Append copies of model `entry` to the list at `list_path`, one per id in `ids`, with the
    properties the design gave it (not its defaults), each a one-line flow mapping. Unsafe."""
    import yaml

    values = entry.model_dump(mode="json", exclude_unset=True, by_alias=True)
    items = []
    for new in ids:
        data = {"id": new, **{k: v for k, v in values.items() if k != "id"}}
        text = yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=10**6)
        items.append(text.strip())
    return Change("\n".join(items), summary, path=(*list_path, "+"))
