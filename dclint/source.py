"""Where each value of a design came from: a side table from design path to file, line, column."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Path", "Position", "Source"]

Path = tuple[str | int, ...]


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    file: str
    line: int
    column: int


@dataclass
class Source:
    """The text of one design file and the position of every node in it."""

    file: str
    text: str
    values: dict[Path, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)
    # values that came from elsewhere (an included file, a --set override): path -> file name
    files: dict[Path, str] = field(default_factory=dict)
    # the text of every other file that contributed values (for their suppression comments)
    texts: dict[str, str] = field(default_factory=dict)

    def locate(self, path: Path, *, key: bool = False) -> Position:
        """Position of `path` (its key if `key`), or of its nearest ancestor that was written."""
        table = self.keys if key else self.values
        probe = tuple(path)
        while probe:
            hit = table.get(probe)
            if hit is None and table is self.keys:
                hit = self.values.get(probe)
            if hit is not None:
                return Position(self.files.get(probe, self.file), hit[0], hit[1])
            probe = probe[:-1]
        hit = self.values.get((), (1, 1))
        return Position(self.file, hit[0], hit[1])


def format_path(path: Path) -> str:
    """``("racks", 3, "it_load")`` -> ``racks[3].it_load``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
