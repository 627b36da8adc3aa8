"""The what-if grid runner `check --sweep` and `plan --vary` share: every combination of the
values given for some design paths (the last path varying fastest), each point evaluated on
the design with those values applied after any --set, in batches finished in order, on an
executor when one is given. It never changes the engine it is given: a point checks with its
own copy."""

from __future__ import annotations

import copy
import itertools
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from typing import TypeVar

from dclint.engine.runner import Engine
from dclint.errors import DclintError
from dclint.loader.overrides import Override, parse_override

__all__ = ["Point", "WorkerDied", "engine_at", "overrides_at", "points", "run_batches"]

# what an executor raises when a worker ended under a task (killed, out of memory, a crash in
# native code): concurrent.futures' BrokenExecutor (BrokenProcessPool), Ray's and Dask's, by
# name (neither is imported unless asked for)
_DEATHS = {"BrokenExecutor", "WorkerCrashedError", "NodeDiedError", "KilledWorker"}


class WorkerDied(DclintError):
    """A worker ended while it evaluated `items` (the items of one task): the caller names
    them and says what was kept."""

    def __init__(self, items: list[object], cause: BaseException, message: str = "") -> None:
        self.items = items
        self.cause = cause
        super().__init__(
            message or f"a grid worker died ({type(cause).__name__}) evaluating {items!r}"
        )


def worker_died(exc: BaseException) -> bool:
    """Whether `exc` says an executor's worker ended under its task."""
    return any(k.__name__ in _DEATHS for k in type(exc).__mro__)


T = TypeVar("T")
A = TypeVar("A")
Item = TypeVar("Item")
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


def _ask_many(ask: Callable[[A], T], inputs: list[A]) -> list[T]:
    """`ask` for several inputs: one task, one round trip."""
    return [ask(x) for x in inputs]


BATCH, AHEAD, CHUNK = 32, 2, 8  # points a batch; batches asked ahead; points a task


def run_batches(
    items: Sequence[Item],
    prepare: Callable[[Item], A],
    ask: Callable[[A], T],
    finish: Callable[[list[Item], list[T]], None],
    pool: Executor | None = None,
) -> None:
    """The one grid runner: `ask` at each item's input (`prepare(item)`, made here), and
    `finish(batch, answers)` here for each batch of BATCH items, in order. Without a pool the
    items are asked here, one by one. On an executor (`ask` then picklable: a module-level
    function or a partial of one) the batches overlap: while this process finishes a batch,
    the workers already ask the next AHEAD batches, CHUNK items a task (one round trip for
    several items), so they never wait on this process. The engine a point checks with is its
    own copy (`engine_at`): nothing here changes the engine a grid was given."""
    batches = [list(items[start : start + BATCH]) for start in range(0, len(items), BATCH)]
    if pool is None:
        for batch in batches:
            finish(batch, [ask(prepare(item)) for item in batch])
        return

    def launch(batch: list[Item]) -> tuple[list[Item], list[Future[list[T]]]]:
        inputs = [prepare(item) for item in batch]
        chunks = [inputs[j : j + CHUNK] for j in range(0, len(inputs), CHUNK)]
        return batch, [pool.submit(_ask_many, ask, c) for c in chunks]

    def results(batch: list[Item], futures: list[Future[list[T]]]) -> list[T]:
        answers: list[T] = []
        for j, future in enumerate(futures):
            try:
                answers += future.result()
            except Exception as exc:
                if worker_died(exc):  # the items of that task, for the caller to name
                    raise WorkerDied(list(batch[j * CHUNK : (j + 1) * CHUNK]), exc) from None
                raise
        return answers

    pending = iter(batches)
    flight = deque(launch(b) for b in itertools.islice(pending, AHEAD + 1))
    while flight:
        batch, futures = flight.popleft()
        answers = results(batch, futures)
        following = next(pending, None)  # keep the workers fed while this batch finishes
        if following is not None:
            flight.append(launch(following))
        finish(batch, answers)
