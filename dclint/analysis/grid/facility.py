"""The facility what-if grid (`dclint plan DESIGN --vary PATH=V1,V2,...`) and its Pareto front.

Each point of the grid (every combination of the --vary values, the last --vary varying
fastest) is the design with those values applied after any --set: its findings, the fastest
valid layout of the workload (`dclint.projection.search.plan`) with its days and run cost
(energy and depreciation), and the design's TCO (`dclint.projection.tco`: the declared and
priced capital items and running costs over the period). The Pareto front is the points no
other point beats on both cost (TCO, or the run cost where no TCO item is priced) and days.

Points that pose the same layout search (the same workload, GPUs, memory and fabric as the
search sees them: `search_design.Question.key`) share one search. Each batch of points is
checked and priced first, then its distinct new searches run, so a point never waits on a
search another worker is repeating. Finished points stream into a store
(dclint.analysis.grid.store: SQLite) that an interrupted run resumes from; the front and the
report are read back from it. Points run in local processes, or on any executor
(dclint.analysis.executors: Dask, Ray); a sample (`sample`) evaluates part of a grid too large
to enumerate, and `refine` adds the neighbours of its front until the front holds.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from dclint.errors import ConfigError
from dclint.units import Q_, Quantity, days_quoted

__all__ = [
    "GridPoint",
    "GridRun",
    "Setup",
    "ask",
    "evaluate",
    "pareto",
    "run_grid",
    "table",
]


@dataclass(frozen=True)
class Setup:
    """What every point needs to rebuild the engine in its own process (all picklable)."""

    file: str
    workload: str | None
    sets: tuple[str, ...] = ()  # --set texts
    config: str | None = None
    rules_dirs: tuple[str, ...] = ()
    cli: dict[str, Any] = field(default_factory=dict)
    today: str | None = None
    by: str = "time"
    isolated: bool = False  # --isolated: no config file, dclint's defaults


@dataclass(frozen=True)
class GridPoint:
    values: tuple[str, ...]
    counts: dict[str, int]
    errors: list[str]
    best: dict[str, Any] | None  # the fastest layout, as `dclint plan --format json` gives it
    days: float | None
    run_cost: float | None
    tco: float | None
    currency: str | None
    note: str = ""
    pareto: bool = False
    # the declared prices its TCO and run cost leave out for want of an exchange rate (the
    # projection's words): such a cost is lower than the point's, not a cost to compare
    omits: tuple[str, ...] = ()

    @property
    def cost(self) -> float | None:
        """The cost the front compares: the TCO, else the run cost; none where they leave a
        declared price out (a point off the front, never on it for being cheaper)."""
        if self.omits:
            return None
        return self.tco if self.tco is not None else self.run_cost


def _engine(setup: Setup, values: tuple[str, ...], paths: list[str]) -> Any:
    """The engine of one point: this process's engine for `setup` (rules discovered, config
    read and options validated once per process, not once per point) applying the point's
    overrides after the --set ones."""
    from dclint.analysis.grid.runner import engine_at, overrides_at

    base, sets = _base_engine(json.dumps(asdict(setup), sort_keys=True))
    return engine_at(base, sets + overrides_at(paths, values, "--vary"))


@functools.lru_cache(maxsize=4)
def _base_engine(key: str) -> tuple[Any, tuple[Any, ...]]:
    """The engine and parsed --set overrides of a setup (given as its JSON: a setup holds a
    dict, so it is not hashable itself); one per setup per process."""
    from datetime import date
    from pathlib import Path

    from dclint.engine.config import Config, load_config
    from dclint.engine.runner import Engine
    from dclint.loader.overrides import parse_override

    setup = Setup(**json.loads(key))
    sets = tuple(parse_override(t, i) for i, t in enumerate(setup.sets, start=1))
    given = Config() if setup.isolated else None
    engine = Engine(
        config=load_config(Path(setup.config)) if setup.config else given,
        rules_dirs=tuple(setup.rules_dirs),
        cli=setup.cli,
        today=date.fromisoformat(setup.today) if setup.today else date.today(),
        overrides=sets,
    )
    return engine, sets


_asked = [0]  # points this process has checked


def _collect() -> None:
    """Free the designs of earlier points now and then. A design and its topology refer to each
    other, so only the cycle collector frees them, and its full passes come further apart as
    the heap grows: a 10,000-point grid held designs by the thousand (7 KiB a point). What this
    process had before its first point is frozen out of those passes, so each one only walks
    the few designs since the last (dclint's own choice of every 32 points: a pass then costs
    well under a millisecond a point)."""
    import gc

    _asked[0] += 1
    if _asked[0] == 2:
        gc.collect()
        gc.freeze()  # the rules, the unit registry, the schemas: alive for the whole run
    elif _asked[0] % 32 == 0:
        gc.collect()


@dataclass(frozen=True)
class Asked:
    """A point checked and priced, its layout search posed but not run (None: no search)."""

    point: GridPoint
    question: Any = None


def ask(setup: Setup, paths: list[str], values: tuple[str, ...]) -> Asked:
    """Check the design with the values applied, price its TCO, pose its layout search."""
    from dclint.projection import tco
    from dclint.projection.search.plan import question

    engine = _engine(setup, values, paths)
    _collect()
    result = engine.check_file(setup.file)
    from dclint.analysis.sweep import point_errors

    by_rule = Counter(f.rule for f in result.findings if "rule-failure" not in f.tags)
    counts = dict(sorted(by_rule.items()))
    errors = point_errors(result)
    design = result.design
    if design is None:
        return Asked(GridPoint(values, counts, errors, None, None, None, None, None, "not loaded"))
    wl = pick_workload(design, setup.workload)
    t = tco(design)
    total = float(t.total.magnitude) if t.items else None
    reserve = engine.shared(engine.config_for(setup.file)).memory_reserve.m_as("")
    asked = question(design, wl, setup.by, reserve=reserve, rank_only=True)  # best is exact
    omits = (
        *(f"TCO: {n}" for n in t.unconverted),
        *(f"run cost: {n}" for n in _run_omits(design, wl)),
    )
    point = GridPoint(values, counts, errors, None, None, None, total, t.currency, omits=omits)
    if isinstance(asked, str):
        return Asked(replace(point, note=asked))
    return Asked(point, asked)


def _run_omits(design: Any, wl: Any) -> tuple[str, ...]:
    """What the declared run's cost (the run cost's basis: its cost a GPU-day) leaves out."""
    from dclint.projection import project_workloads

    try:
        found = project_workloads(design)
    except Exception:  # the run cost is then '-': nothing to qualify
        return ()
    return next((p.unconverted for p in found if p.workload == wl.id), ())


MAX_ANSWERS_KEPT = 64  # dclint's own: a cut answer is one layout, a few kB


@functools.lru_cache(maxsize=MAX_ANSWERS_KEPT)
def answer(key: tuple[Any, ...]) -> Any:
    """The layout search of one key (run in a worker), cut to its best layout: a grid point
    keeps only that, and shipping thousands of timed layouts back from a worker cost more
    than the search saved. A search is a function of its key alone: a process that asks
    again (another grid over the same workload, a resumed one, the server) is answered from
    the last MAX_ANSWERS_KEPT cut answers, a layout each, not searched again."""
    from dataclasses import replace as copy_with

    from dclint.projection.search.layouts import SearchTooLarge, search

    try:
        result = search(*key)
    except SearchTooLarge as exc:  # the point's note, as a search that cannot run
        return str(exc)
    return copy_with(result, valid=result.valid[:1])


def finish(asked: Asked, result: Any) -> GridPoint:
    """The point with its best layout, days and run cost from the search's answer."""
    from dclint.analysis.layouts import as_data

    if asked.question is None:
        return asked.point
    if isinstance(result, str):
        return replace(asked.point, note=result)
    plan = asked.question.answer(result)
    if not plan.result.valid:
        return replace(asked.point, note="no layout fits")
    data = as_data(plan, 1)
    # with the best MFU the calibration runs of its GPU class published: a best layout above
    # it is a ranking, not a duration to expect (the grid says so, as `dclint plan` does)
    best = {**data["layouts"][0], "calibrated_mfu": data["calibrated_mfu"]}
    return replace(asked.point, best=best, days=best["days"], run_cost=best["cost"])


def evaluate(setup: Setup, paths: list[str], values: tuple[str, ...]) -> GridPoint:
    """One point on its own: checked, priced and searched."""
    asked = ask(setup, paths, values)
    return finish(asked, answer(asked.question.key) if asked.question is not None else None)


def pick_workload(design: Any, name: str | None) -> Any:
    """The workload called `name`, or the design's only one; ConfigError otherwise."""
    ids = [w.id for w in design.workloads]
    if name is None:
        if len(ids) == 1:
            return design.workloads[0]
        raise ConfigError(
            f"{design.name}: name the workload with --workload (one of: {', '.join(ids)})"
            if ids
            else f"{design.name}: the design declares no workloads"
        )
    if name not in ids:
        raise ConfigError(
            f"{design.name}: unknown workload '{name}' (workloads: {', '.join(ids) or 'none'})"
        )
    return design.workloads[ids.index(name)]


def pareto(points: list[GridPoint]) -> list[GridPoint]:
    """The points marked: those no other point beats on cost and days (both known)."""
    known = [(p.cost, p.days) for p in points if p.cost is not None and p.days is not None]

    def beaten(cost: float, days: float) -> bool:
        return any(c <= cost and d <= days and (c < cost or d < days) for c, d in known)

    return [
        replace(p, pareto=p.cost is not None and p.days is not None and not beaten(p.cost, p.days))
        for p in points
    ]


@dataclass
class GridRun:
    """A finished (or resumed) grid: its store, and how much of the grid it evaluated."""

    store: Any  # dclint.analysis.grid.store.GridStore
    total: int  # points in the full grid
    searches: int = 0  # layout searches run (distinct keys)

    def points(self) -> list[GridPoint]:
        return [p for _, p in self.store.points()]


@dataclass(frozen=True)
class GridReport:
    """A grid as its report reads it: `points` iterates the points afresh each call (from the
    store, never held whole), `note` says what share a sample evaluated ('' for all)."""

    setup: Setup
    paths: list[str]
    points: Callable[[], Iterator[GridPoint]]
    note: str = ""


def run_grid(
    setup: Setup,
    varies: list[tuple[str, list[str]]],
    jobs: int,
    *,
    store: str | None = None,
    executor: Any = None,
    sample: int | None = None,
    refine: bool = False,
    seed: int = 0,
) -> GridRun:
    """Every point of the grid (or a sample of it), each into the store as it finishes, the
    front marked. `executor`: a `concurrent.futures.Executor`, a name for
    dclint.analysis.executors, or None (local processes when `jobs` > 1)."""
    from dclint.analysis import sampling
    from dclint.analysis.executors import executor_for
    from dclint.analysis.grid import runner as grid
    from dclint.analysis.grid.store import GridStore

    paths = [p for p, _ in varies]
    shape = [len(v) for _, v in varies]
    total = 1
    for k in shape:
        total *= k
    meta = _meta(setup, varies)
    book = GridStore(store or ":memory:", meta, GridPoint)
    wanted = sampling.latin_hypercube(shape, sample, seed) if sample else range(total)
    run = GridRun(book, total)
    searched: dict[Any, Any] = {}  # key -> the search's answer, for this run
    given = executor if executor is not None and not isinstance(executor, str) else None
    try:
        with contextlib.ExitStack() as stack:
            pool = given or stack.enter_context(executor_for(executor, jobs))
            done = book.done()  # read once: a resumed grid of 10,000 points asked it per point
            todo = [i for i in wanted if i not in done]
            _evaluate(setup, varies, paths, shape, todo, pool, book, searched, run)
            rounds = 0
            while refine and sample and rounds < MAX_REFINE_ROUNDS:
                book.mark_front()
                near = sampling.neighbours(book.front(), shape) - book.done()
                if not near:
                    break
                _evaluate(setup, varies, paths, shape, sorted(near), pool, book, searched, run)
                rounds += 1
    except grid.WorkerDied as exc:  # one line naming the point, the points done kept
        message = _death(exc, varies, shape, book, total, store)
        raise grid.WorkerDied(exc.items, exc.cause, message) from None
    book.mark_front()
    return run


def _death(
    exc: Any,
    varies: list[tuple[str, list[str]]],
    shape: list[int],
    book: Any,
    total: int,
    store: str | None,
) -> str:
    """One line: the point whose task a worker died under (and the others sent with it), and
    the points done, kept in the store."""
    from dclint.analysis import sampling

    def named(i: Any) -> str:
        at = sampling.position(int(i), shape)
        pairs = zip(varies, at, strict=True)
        return ", ".join(f"{path}={values[p]}" for (path, values), p in pairs)

    points = [named(i) for i in exc.items]
    where = f"grid point {points[0]}"
    if len(points) == 2:
        where += f" (or {points[1]}, sent with it)"
    elif len(points) > 2:
        where += f" (or one of the {len(points) - 1} other points sent with it)"
    done = book.count()
    kept = (
        f"the {done:,} of {total:,} points done are kept in {store} (--resume {store} goes on)"
        if store
        else f"{done:,} of {total:,} points were done (--store FILE keeps them)"
    )
    return f"a grid worker died ({type(exc.cause).__name__}) evaluating {where}; {kept}"


MAX_REFINE_ROUNDS = 20  # each round evaluates the front's unevaluated neighbours


def _meta(setup: Setup, varies: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """What makes two grids the same: the design's bytes, the setup, the values, the version."""
    import hashlib
    from dataclasses import asdict
    from pathlib import Path

    from dclint._version import __version__

    try:
        digest = hashlib.sha256(Path(setup.file).read_bytes()).hexdigest()
    except OSError:
        digest = ""
    return {"design": digest, "setup": asdict(setup), "vary": varies, "dclint": __version__}


def _evaluate(
    setup: Setup,
    varies: list[tuple[str, list[str]]],
    paths: list[str],
    shape: list[int],
    todo: list[int],
    pool: Any,
    book: Any,
    searched: dict[Any, Any],
    run: GridRun,
) -> None:
    """Evaluate the points `todo` (flat indices) through the grid runner `check --sweep`
    shares (dclint.analysis.grid.runner.run_batches): check and price each point, then per batch run
    its distinct new searches once each and store the finished points. On an executor the
    batches overlap, so the workers never wait on this process."""
    from dclint.analysis import sampling
    from dclint.analysis.grid import runner as grid
    from dclint.analysis.grid.runner import run_batches

    def values_of(i: int) -> tuple[str, ...]:
        return tuple(varies[a][1][p] for a, p in enumerate(sampling.position(i, shape)))

    mapped = map if pool is None else pool.map

    def finished(batch: list[int], asked: list[Asked]) -> None:
        try:
            _search(asked, searched, run, mapped)
        except Exception as exc:  # a worker died under a layout search: the batch's points
            if grid.worker_died(exc):
                raise grid.WorkerDied(list(batch), exc) from None
            raise
        _store(batch, asked, book, searched)

    run_batches(todo, values_of, functools.partial(ask, setup, paths), finished, pool)


def _search(asked: list[Asked], searched: dict[Any, Any], run: GridRun, mapped: Any) -> None:
    """Run the distinct searches of `asked` not run yet (`mapped`: map or an executor's)."""
    keys = list(dict.fromkeys(a.question.key for a in asked if a.question is not None))
    new = [k for k in keys if k not in searched]
    for key, result in zip(new, mapped(answer, new), strict=True):
        searched[key] = result
    run.searches += len(new)


def _store(batch: list[int], asked: list[Asked], book: Any, searched: dict[Any, Any]) -> None:
    """The batch's points finished with their searches' answers, into the store."""
    book.put(
        [
            (i, finish(a, searched[a.question.key] if a.question is not None else None))
            for i, a in zip(batch, asked, strict=True)
        ]
    )
    if len(searched) > MAX_SEARCHES_KEPT:  # keep memory flat on grids of many searches
        for key in list(searched)[: len(searched) - MAX_SEARCHES_KEPT]:
            del searched[key]


MAX_SEARCHES_KEPT = 256


def as_data(setup: Setup, paths: list[str], points: list[GridPoint]) -> dict[str, Any]:
    return {
        "design": setup.file,
        "workload": setup.workload,
        "vary": paths,
        "points": [_point_data(paths, p) for p in points],
    }


def _point_data(paths: list[str], p: GridPoint) -> dict[str, Any]:
    return {
        "values": dict(zip(paths, p.values, strict=True)),
        "findings": sum(p.counts.values()),
        "by_rule": p.counts,
        "errors": p.errors,
        "best": p.best,
        "days": p.days,
        "run_cost": p.run_cost,
        "tco": p.tco,
        "currency": p.currency,
        "note": p.note or None,
        "pareto": p.pareto,
        "cost_omits": list(p.omits),
    }


def _money(value: float | None, currency: str | None) -> str:
    return "-" if value is None else f"{value:,.0f} {currency or ''}".rstrip()


def table(paths: list[str], points: list[GridPoint]) -> tuple[list[str], list[list[str]]]:
    """The grid's header and rows as text cells."""
    return _head(paths), [_row(p) for p in points]


def _head(paths: list[str]) -> list[str]:
    return [*paths, "findings", "rules", "best layout", "days", "run cost", "TCO", "front"]


def _row(p: GridPoint) -> list[str]:
    b = p.best
    layout = (
        f"tp{b['tp']} pp{b['pp']} vpp{b['vpp']} cp{b['cp']} ep{b['ep']} mb{b['micro_batch']}"
        if b
        else p.note or "-"
    )
    rules = ",".join(f"{r}x{n}" for r, n in p.counts.items()) or "-"
    found = "error" if p.errors else str(sum(p.counts.values()))
    days = days_cell(p)
    return [*p.values, found, rules, layout, days, _money(p.run_cost, p.currency),
            _money(p.tco, p.currency), "*" if p.pareto else ""]  # fmt: skip


def days_cell(p: GridPoint) -> str:
    """A point's days as the grid prints them, in its table and its chart: the best layout's,
    with their band ('1.471 d (1.2-1.6 d)', as `dclint plan` and `dclint cost` quote a predicted
    time); '-' without a layout."""
    return "-" if p.days is None else days_quoted(Q_(p.days, "day"), _band(p.best))


def _band(best: dict[str, Any] | None) -> tuple[Quantity, Quantity] | None:
    """The best layout's days' band (`dclint plan`'s JSON `days_band`), None without one (a
    store written before it was kept)."""
    low_high = (best or {}).get("days_band")
    return None if not low_high else (Q_(low_high[0], "day"), Q_(low_high[1], "day"))


def point_name(paths: list[str], values: tuple[str, ...] | list[str]) -> str:
    """A point as its axes and values, `site.pue=1.2, racks[0].it_load=10 kW`: each axis named
    as the user wrote it, as `check --sweep` names its one (`site.pue=1.2: error: ...`)."""
    return ", ".join(f"{path}={value}" for path, value in zip(paths, values, strict=True))


def coverage(evaluated: int, total: int) -> str:
    """What share of the grid a sampled run evaluated ('' when it evaluated all of it)."""
    if evaluated >= total:
        return ""
    return f"evaluated {evaluated:,} of {total:,} points ({evaluated / total:.2%}) of the grid"
