"""Where each value of a design came from: a side table from design path to file, line, column.

Positions are only needed where something is reported, and a table of every node of a 100,000-GPU
design would cost 30 times the file's size. So a Source read from YAML starts without one: it
keeps the text and a way to read it again (`reread`), and `locate` or `prefetch` record just the
paths asked for, in one pass for a whole batch. `values` and `keys` read every position once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["Path", "Position", "Source"]

Path = tuple[str | int, ...]
# reads the positions of the given paths (None: of every node) into the Source's tables
Reread = Callable[["Source", "set[Path] | None"], None]


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    file: str
    line: int
    column: int


@dataclass
class Source:
    """The text of one design file and the position of its nodes."""

    file: str
    text: str
    # values that came from elsewhere (an included file, a --set override): path -> file name
    files: dict[Path, str] = field(default_factory=dict)
    # the text of every other file that contributed values (for their suppression comments)
    texts: dict[str, str] = field(default_factory=dict)
    # values a flag (--set, --sweep) replaced: path -> (where the design wrote that value or its
    # nearest ancestor, the flag as typed), so a finding about it lands on the design's line
    origins: dict[Path, tuple[Position, str]] = field(default_factory=dict)
    reread: Reread | None = field(default=None, repr=False, compare=False)
    _values: dict[Path, tuple[int, int]] = field(default_factory=dict, repr=False)
    _keys: dict[Path, tuple[int, int]] = field(default_factory=dict, repr=False)
    _known: set[Path] = field(default_factory=set, repr=False)  # paths read so far (lazy only)

    @property
    def values(self) -> dict[Path, tuple[int, int]]:
        """Position of every node's value, by design path (reads them all on first use)."""
        self._complete()
        return self._values

    @property
    def keys(self) -> dict[Path, tuple[int, int]]:
        """Position of every mapping key, by the path of its value."""
        self._complete()
        return self._keys

    def _complete(self) -> None:
        if self.reread is not None:
            self._values.clear()
            self._keys.clear()
            self.reread(self, None)
            self.reread = None
            self._known.clear()

    def tables(self) -> tuple[dict[Path, tuple[int, int]], dict[Path, tuple[int, int]]]:
        """The value and key tables as they stand, for the reader that fills them."""
        return self._values, self._keys

    def prefetch(self, paths: Iterable[Path]) -> None:
        """Read the positions of `paths` and their ancestors in one pass (a lazy Source)."""
        if self.reread is None:
            return
        wanted = {p[:i] for p in map(tuple, paths) for i in range(len(p) + 1)}
        if not wanted <= self._known:  # ancestors read before stay wanted: the reader walks them
            self.reread(self, wanted)
            self._known |= wanted

    def locate(self, path: Path, *, key: bool = False) -> Position:
        """Position of `path` (its key if `key`), or of its nearest ancestor that was written."""
        probe = tuple(path)
        self.prefetch([probe])
        table = self._keys if key else self._values
        while probe:
            hit = table.get(probe)
            if hit is None and key:
                hit = self._values.get(probe)
            if hit is not None:
                return Position(self.files.get(probe, self.file), hit[0], hit[1])
            probe = probe[:-1]
        hit = self._values.get((), (1, 1))
        return Position(self.file, hit[0], hit[1])

    def override_origin(self, path: Path, at: Position) -> tuple[Position, str] | None:
        """If `at` (the position of `path`) is a flag's value, the design position the flag
        replaced and the flag as typed; else None."""
        if not self.origins or at.file == self.file:
            return None
        probe = tuple(path)
        while probe:
            hit = self.origins.get(probe)
            if hit is not None:
                return hit
            probe = probe[:-1]
        return None


def format_path(path: Path) -> str:
    """``("racks", 3, "it_load")`` -> ``racks[3].it_load``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
