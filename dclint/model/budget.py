"""The id budget: how many ids a design may name through ranges and counts, checked up front.

A 2 KB file of 30 rack groups `r[1-100000]` named three million racks (31 s, 1.6 GB). Before
anything is expanded, the ids every pattern names are summed (racks, counted once more for each
feed a rack names, feeds, switches, and the ranges that refer to racks and switches) against a
limit, `max-ids` in the config (a config found by search may lower it, only one named with
--config may raise it: a repository's file could otherwise make a check run for minutes). Its
default is dclint's own: a little over twice the 91,224 ids
of the benchmark's explicit 100,000-GPU GB200 NVL72 design (bench/generate.py), and about
two seconds of checking at the most.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.model.ranges import RangeError, size
from dclint.model.source import Path
from dclint.model.topology import RefError

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["MAX_IDS", "over_budget", "too_many_items"]

MAX_IDS = 200_000


def _sized(pattern: str) -> int:
    if "[" not in pattern:  # a plain id (most of an explicit design): no regex
        return 1
    try:
        return size(pattern)
    except RangeError:  # reported where the pattern is expanded
        return 0


def _patterns(design: Design) -> Iterator[tuple[int, Path]]:
    """(ids named, where) for every pattern the design expands."""
    for i, group in enumerate(design.racks):
        named = group.count or _sized(group.id)
        where = "count" if group.count else "id"  # what names them: a count, or the range
        yield named * (1 + len(group.feeds)), ("racks", i, where)
    for i, feed in enumerate(design.power.feeds):
        yield _sized(feed.id), ("power", "feeds", i, "id")
    for i, loop in enumerate(design.cooling.loops):
        for j, ref in enumerate(loop.racks):
            yield _sized(ref), ("cooling", "loops", i, "racks", j)
    for f, fabric in enumerate(design.fabrics):
        base: Path = ("fabrics", f)
        for s, switch in enumerate(fabric.switches):
            yield _sized(switch.id), (*base, "switches", s, "id")
        for j, ref in enumerate(fabric.racks or ()):
            yield _sized(ref), (*base, "racks", j)
        for k, link in enumerate(fabric.links):
            yield _sized(link.a) + _sized(link.b), (*base, "links", k)
        for rail, leaves in (fabric.rails or {}).items():
            for j, ref in enumerate(leaves):
                yield _sized(ref), (*base, "rails", rail, j)


def _count(design: Design) -> int:
    """The ids every pattern names, summed without building paths (_patterns' totals): a few
    milliseconds on an explicit 100,000-GPU design, where most ids are plain."""
    total = sum((g.count or _sized(g.id)) * (1 + len(g.feeds)) for g in design.racks)
    total += sum(_sized(f.id) for f in design.power.feeds)
    total += sum(_sized(r) for loop in design.cooling.loops for r in loop.racks)
    for fabric in design.fabrics:
        total += sum(_sized(s.id) for s in fabric.switches)
        total += sum(_sized(r) for r in fabric.racks or ())
        ends = [end for link in fabric.links for end in (link.a, link.b) if "[" in end]
        total += 2 * len(fabric.links) + sum(_sized(end) - 1 for end in ends)
        total += sum(_sized(r) for leaves in (fabric.rails or {}).values() for r in leaves)
    return total


def over_budget(design: Design, limit: int = MAX_IDS) -> RefError | None:
    """An error at the pattern that takes the design past `limit` ids, or None."""
    if _count(design) <= limit:
        return None
    path = _past(_patterns(design), limit)
    if path is None:
        return None
    return RefError(
        path,
        f"the design names more than {limit:,} ids through its ranges and counts "
        f"(racks, feeds, switches and the references to them); split it, or raise "
        f"`max-ids` in a config named with --config (dclint's own default: {MAX_IDS:,}; a "
        "config found by search may only lower it)",
    )


def _past(counts: Iterator[tuple[int, Path]], limit: int) -> Path | None:
    """Where the running total of `counts` first passes `limit`, or None."""
    total = 0
    for n, path in counts:
        total += n
        if total > limit:
            return path
    return None


def _lists(data: Any) -> Iterator[tuple[int, Path]]:
    """(items, where) for each list of the raw data that holds one id or more an item."""

    def seq(node: Any, *keys: str) -> list[Any]:
        for key in keys:
            node = node.get(key) if type(node) is dict else None
        return node if type(node) is list else []

    racks = seq(data, "racks")
    yield len(racks), ("racks",)
    for i, rack in enumerate(racks):
        yield len(seq(rack, "feeds")), ("racks", i, "feeds")
    for section, key in (("power", "panels"), ("power", "feeds"), ("cooling", "cdus")):
        yield len(seq(data, section, key)), (section, key)
    loops = seq(data, "cooling", "loops")
    yield len(loops), ("cooling", "loops")
    for i, loop in enumerate(loops):
        yield len(seq(loop, "racks")), ("cooling", "loops", i, "racks")
    for f, fabric in enumerate(seq(data, "fabrics")):
        for key in ("racks", "tiers", "endpoints", "switches", "links"):
            yield len(seq(fabric, key)), ("fabrics", f, key)


def too_many_items(data: Any, limit: int = MAX_IDS) -> RefError | None:
    """Checked before validation, which takes seconds and gigabytes over a million invalid
    items: an error at the list that takes the design past `limit` items, or None."""
    path = _past(_lists(data), limit)
    if path is None:
        return None
    return RefError(
        path,
        f"the design's lists hold more than {limit:,} items, past what it may name "
        f"(`max-ids` in the config; dclint's own default: {MAX_IDS:,})",
    )
