"""How the rules of several families word the same thing: a list of ids cut short (CLG011's
racks that lose cooling, NET004's cut-off racks and nodes, PWR013's racks that lose power)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["first_ids"]


def first_ids(ids: Sequence[str]) -> str:
    """'r1, r2, r3, r4 and 6 more': the first four ids and how many more there are."""
    return ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
