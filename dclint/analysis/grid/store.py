"""Where a what-if grid's points go as they finish: an SQLite file a person can open (`sqlite3
grid.db 'select * from points'`), so an interrupted run resumes without redoing its finished
points and the front and the chart are built from the file, not from memory.

Tables: `meta` (what grid this is: the design's content hash, the setup, the varied paths and
values, dclint's version), `points` (one row a finished point: its flat index in the full grid,
its values, findings, best layout, days and costs as JSON and numbers, and whether it is on
the Pareto front). A store made for another grid is refused, never mixed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from dclint.errors import ConfigError
from dclint.escaping import finite_data

__all__ = ["GridStore"]

SCHEMA = """
create table if not exists meta (key text primary key, value text not null);
create table if not exists points (
    idx integer primary key,
    point text not null,
    days real,
    cost real,
    front integer not null default 0
);
"""


class GridStore:
    """A grid's finished points, by their index in the full grid (row-major, last path
    fastest), in an SQLite file (or in memory with ':memory:')."""

    def __init__(self, path: str, meta: dict[str, Any], point: Callable[..., Any]) -> None:
        """`point` builds a point from its stored fields (the grid's point record)."""
        self.point = point
        try:
            self.db = sqlite3.connect(path)
            self.db.executescript(SCHEMA)
            found = dict(self.db.execute("select key, value from meta"))
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"--store {path}: not a dclint grid store ({exc})") from None
        wanted = {k: json.dumps(v, sort_keys=True) for k, v in meta.items()}
        if found and found != wanted:
            differs = sorted(
                k for k in wanted.keys() | found.keys() if found.get(k) != wanted.get(k)
            )
            raise ConfigError(
                f"--store {path}: made for another grid (differs in {', '.join(differs)}); "
                "use a new store file, or the same design, flags and --vary values"
            )
        if not found:
            self.db.executemany("insert into meta values (?, ?)", sorted(wanted.items()))
            self.db.commit()
        self.path = path

    def done(self) -> set[int]:
        return {row[0] for row in self.db.execute("select idx from points")}

    def put(self, items: list[tuple[int, Any]]) -> None:
        """Record finished points (committed at once: a kill loses no recorded point)."""
        rows = []
        for idx, p in items:
            data = asdict(p)
            data["values"] = list(p.values)
            # no NaN or infinity in the stored JSON (strict readers) or the columns (the front)
            days, cost = finite_data([p.days, p.cost])
            rows.append((idx, json.dumps(finite_data(data), allow_nan=False), days, cost))
        self.db.executemany(
            "insert or replace into points (idx, point, days, cost) values (?, ?, ?, ?)", rows
        )
        self.db.commit()

    def count(self) -> int:
        return int(self.db.execute("select count(*) from points").fetchone()[0])

    def mark_front(self) -> None:
        """Mark the Pareto front of cost against days in one pass over the points sorted by
        cost (the database sorts, not Python): a point is beaten by one at no more cost and no
        more days and less of either; equal points do not beat each other."""
        self.db.execute("update points set front = 0")
        front: list[int] = []
        best_below = float("inf")  # fewest days among points of strictly lower cost
        group: list[tuple[int, float]] = []
        group_cost: float | None = None

        def close() -> None:
            nonlocal best_below
            if not group:
                return
            fewest = min(d for _, d in group)
            front.extend(i for i, d in group if d < best_below and d <= fewest)
            best_below = min(best_below, fewest)

        rows = self.db.execute(
            "select idx, cost, days from points where cost is not null and days is not null "
            "order by cost, days"
        )
        for idx, cost, days in rows:
            if cost != group_cost:
                close()
                group, group_cost = [], cost
            group.append((idx, days))
        close()
        self.db.executemany("update points set front = 1 where idx = ?", [(i,) for i in front])
        self.db.commit()

    def front(self) -> list[int]:
        return [
            r[0] for r in self.db.execute("select idx from points where front = 1 order by idx")
        ]

    def points(self) -> Iterator[tuple[int, Any]]:
        """Every finished point in grid order, read as it is iterated."""
        for idx, text, front in self.db.execute(
            "select idx, point, front from points order by idx"
        ):
            data = json.loads(text)
            data["values"] = tuple(data["values"])
            data["omits"] = tuple(data.get("omits", ()))
            data["pareto"] = bool(front)
            yield idx, self.point(**data)

    def close(self) -> None:
        self.db.close()
