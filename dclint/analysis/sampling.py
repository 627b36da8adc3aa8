"""Which points of a grid too large to enumerate to evaluate: a Latin-hypercube sample, and the
neighbours of the Pareto front to refine it.

A grid is the product of some value lists (the last varying fastest); a point is a tuple of
value positions, and its flat index is its row-major number, the same as the full grid's order.
The Latin hypercube (McKay, Beckman and Conover 1979) draws n points so that each list's values
are used as evenly as n allows: every value of a list with k <= n values is drawn at least
floor(n / k) times, which random draws do not promise. A seeded generator makes a sample
repeatable.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

__all__ = ["flat", "latin_hypercube", "neighbours", "position"]


def flat(pos: Sequence[int], shape: Sequence[int]) -> int:
    index = 0
    for p, k in zip(pos, shape, strict=True):
        index = index * k + p
    return index


def position(index: int, shape: Sequence[int]) -> tuple[int, ...]:
    out = []
    for k in reversed(shape):
        index, p = divmod(index, k)
        out.append(p)
    return tuple(reversed(out))


def latin_hypercube(shape: Sequence[int], n: int, seed: int = 0) -> list[int]:
    """Flat indices of up to `n` distinct points, stratified on every axis, sorted."""
    total = 1
    for k in shape:
        total *= k
    if n >= total:
        return list(range(total))
    rng = random.Random(seed)
    columns = []
    for k in shape:
        strata = [(i * k) // n for i in range(n)]  # value positions, each k-th of the draws
        rng.shuffle(strata)
        columns.append(strata)
    chosen = {flat(pos, shape) for pos in zip(*columns, strict=True)}
    while len(chosen) < n:  # duplicate combinations: top up with fresh random points
        chosen.add(rng.randrange(total))
    return sorted(chosen)


def neighbours(indices: Iterable[int], shape: Sequence[int]) -> set[int]:
    """The points one value away on one axis from any of `indices`."""
    out: set[int] = set()
    for index in indices:
        pos = position(index, shape)
        for axis, k in enumerate(shape):
            for step in (-1, 1):
                p = pos[axis] + step
                if 0 <= p < k:
                    out.add(flat((*pos[:axis], p, *pos[axis + 1 :]), shape))
    return out
