"""Where each key of `[tool.dclint]` sits in a pyproject.toml, for config error messages.

tomllib gives no positions, so this scans the text once, linearly and without regular
expressions (a backtracking pattern took minutes on a line of `[` and spaces).
"""

from __future__ import annotations

__all__ = ["toml_positions"]


def toml_positions(text: str) -> dict[str, tuple[int, int]]:
    """Line and column of each key in [tool.dclint] and its sub-tables (inline ones too). One
    linear scan, no regex: lines inside multi-line strings are skipped, not read as keys."""
    out: dict[str, tuple[int, int]] = {}
    table: str | None = None
    fence: str | None = None  # the delimiter of a multi-line string still open
    for number, line in enumerate(text.splitlines(), start=1):
        if fence is not None:
            if line.count(fence) % 2:
                fence = None
            continue
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("["):
            inner = stripped.lstrip("[")
            name = inner.split("]", 1)[0].strip().replace('"', "")
            ours = name.startswith("tool.dclint")
            table = name.removeprefix("tool.dclint").lstrip(".") if ours else None
            if table:
                at = indent + len(stripped) - len(inner.lstrip())
                out.setdefault(table, (number, at + 1))
            continue
        fence = next((f for f in ('"""', "'''") if line.count(f) % 2), None)
        keys = _keys(stripped)
        if table is None or not keys or keys[0][1] != 0:
            continue
        own = f"{table}.{keys[0][0]}" if table else keys[0][0]
        out.setdefault(own, (number, indent + 1))
        for key, column in keys[1:]:
            out.setdefault(f"{own}.{key}", (number, indent + column + 1))
    return out


def _keys(line: str) -> list[tuple[str, int]]:
    """Each `key =` on a TOML line outside strings, with its 0-based column, in one pass."""
    out: list[tuple[str, int]] = []
    token: tuple[str, int] | None = None  # the last word or string, if nothing but spaces since
    i, n = 0, len(line)
    while i < n:
        char = line[i]
        if char in "\"'":
            end = line.find(char, i + 1)
            while char == '"' and end > 0 and line[end - 1] == "\\":
                end = line.find(char, end + 1)
            if end < 0:
                break
            token, i = (line[i + 1 : end], i), end + 1
            continue
        if char.isalnum() or char in "_-":
            end = i + 1
            while end < n and (line[end].isalnum() or line[end] in "_-"):
                end += 1
            token, i = (line[i:end], i), end
            continue
        if char == "#":
            break
        if char == "=" and token is not None:
            out.append(token)
        if not char.isspace():
            token = None
        i += 1
    return out
