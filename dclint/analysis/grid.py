"""The what-if grid runner `check --sweep` and `plan --vary` share: every combination of the
values given for some design paths (the last path varying fastest), each point evaluated on
the design with those values applied after any --set, in order, in parallel processes when
asked. It never changes the engine it is given: a point checks with its own copy."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Sequence
from typing import TypeVar

from dclint.analysis.executors import local_pool
from dclint.engine.runner import Engine
from dclint.loader.overrides import Override, parse_override

__all__ = ["Point", "engine_at", "overrides_at", "points", "run_grid"]

T = TypeVar("T")
Point = tuple[str, ...]  # one value a varied path, in the order the paths were given


def points(varies: Sequence[tuple[str, Sequence[str]]]) -> list[Point]:
    """Every combination of the values, the last path varying fastest."""
    return list(itertools.product(*(values for _, values in varies)))


def overrides_at(paths: Sequence[str], point: Point, flag: str) -> tuple[Override, ...]:
    """The overrides that set each path to its value at `point` (named after `flag`)."""
    return tuple(
        parse_override(f"{p}={v}", i, flag)
        for i, (p, v) in enumerate(zip(paths, point, strict=True), start=1)
    )


def engine_at(engine: Engine, overrides: tuple[Override, ...]) -> Engine:
    """A copy of `engine` that applies `overrides` (in place of its own); the rules,
    configurations and typed options it has resolved are shared, `engine` is unchanged."""
    point = copy.copy(engine)
    point.overrides = overrides
    return point


def run_grid(evaluate: Callable[[Point], T], grid: Sequence[Point], jobs: int = 1) -> list[T]:
    """`evaluate` at each point, results in the grid's order; in up to `jobs` processes
    (`evaluate` must then be picklable: a module-level function or a partial of one)."""
    if jobs <= 1 or len(grid) <= 1:
        return [evaluate(p) for p in grid]
    with local_pool(min(jobs, len(grid))) as pool:
        return list(pool.map(evaluate, grid))
