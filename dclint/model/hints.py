"""Did-you-mean hints for unknown names, kept cheap however many names are unknown.

difflib compares a name with every candidate (tens of milliseconds over thousands of similar
ids), so a design with thousands of unknown references took minutes. A hint is computed only
for the first HINTS_PER_DESIGN unknown names of a design, and over at most MAX_CANDIDATES
candidates (when there are more, over the 2 x NEIGHBOURS that sort next to the name).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["HINTS_PER_DESIGN", "MAX_CANDIDATES", "Hints", "did_you_mean"]

HINTS_PER_DESIGN = 20
MAX_CANDIDATES = 1000
NEIGHBOURS = 100


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` for the closest known name, or "" if none is close enough."""
    import difflib  # only when a name is unknown: not on every check's start

    names = list(known)
    if len(names) > MAX_CANDIDATES:
        # the names that sort next to it share the longest prefixes with it: where a typo in
        # an id from a range (`feed-0007x`, `r0l3`) most often leaves it
        names.sort()
        at = bisect.bisect_left(names, name)
        names = names[max(0, at - NEIGHBOURS) : at + NEIGHBOURS]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


class Hints:
    """did_you_mean for one design: no hint after the first `limit` unknown names."""

    def __init__(self, limit: int = HINTS_PER_DESIGN) -> None:
        self.left = limit

    def __call__(self, name: str, known: Iterable[str]) -> str:
        if self.left <= 0:
            return ""
        self.left -= 1
        return did_you_mean(name, known)
