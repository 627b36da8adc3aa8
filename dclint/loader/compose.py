"""Composition: a design may `extends:` a base design and `include:` fragments by relative path.

Merge rules, applied in order (each base, then each include, then the file's own values):
mappings merge key by key; lists of objects with an `id` merge by id (an item whose id was
seen before is merged into that item, a new id is appended); any other value, lists included,
is replaced by the later one. Every value keeps the file, line and column that set it, so a
finding on an inherited value points at the file that wrote it.

Paths are relative to the including file (wherever dclint is run from), must name
`.yaml`/`.yml` files, and must stay inside the design's repository: the nearest directory above
it holding `.git`, else the nearest holding a dclint config (`.dclint.yaml`, `.dclint.yml`) or a
`pyproject.toml`. A design in no repository may include only from its own directory tree (or
the working directory). So a design cannot make dclint read arbitrary files. Cycles and missing
files are errors at the include's line.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from dclint.errors import LoadError, Problem
from dclint.model.source import Path, Source

__all__ = ["COMPOSE_KEYS", "MAX_INCLUDE_DEPTH", "compose", "repository_root"]

COMPOSE_KEYS = ("extends", "include")
ROOT_MARKERS = ((".git",), (".dclint.yaml", ".dclint.yml", "pyproject.toml"))
MAX_INCLUDE_DEPTH = 16
Reader = Callable[[str], tuple[Any, Source]]


@dataclass
class _Node:
    """A value of a composed design, with the file and position it came from."""

    value: Any  # dict[str, _Node] | list[_Node] | scalar
    file: str
    pos: tuple[int, int]
    key_pos: tuple[int, int] | None = None


def _tree(data: Any, source: Source, path: Path = ()) -> _Node:
    pos = source.values.get(path, (1, 1))
    file = source.files.get(path, source.file)
    if isinstance(data, dict):
        value: Any = {}
        for key, item in data.items():
            node = _tree(item, source, (*path, key))
            node.key_pos = source.keys.get((*path, key))
            value[key] = node
        return _Node(value, file, pos)
    if isinstance(data, list):
        return _Node([_tree(x, source, (*path, i)) for i, x in enumerate(data)], file, pos)
    return _Node(data, file, pos)


def _ident(node: _Node) -> Any:
    if isinstance(node.value, dict) and "id" in node.value:
        return node.value["id"].value
    return None


def _merge(base: _Node, over: _Node) -> _Node:
    if isinstance(base.value, dict) and isinstance(over.value, dict):
        merged = dict(base.value)
        for key, node in over.value.items():
            merged[key] = _merge(merged[key], node) if key in merged else node
        return _Node(merged, over.file, over.pos, over.key_pos)
    if isinstance(base.value, list) and isinstance(over.value, list):
        ids = [_ident(n) for n in (*base.value, *over.value)]
        if ids and all(isinstance(i, str) for i in ids):
            items = list(base.value)
            index = {_ident(n): i for i, n in enumerate(items)}
            for node in over.value:
                at = index.get(_ident(node))
                if at is None:
                    index[_ident(node)] = len(items)
                    items.append(node)
                else:
                    items[at] = _merge(items[at], node)
            return _Node(items, over.file, over.pos, over.key_pos)
    return over


def _flatten(node: _Node, out: Source, path: Path = ()) -> Any:
    out.values[path] = node.pos
    if node.file != out.file:
        out.files[path] = node.file
    if node.key_pos is not None:
        out.keys[path] = node.key_pos
    if isinstance(node.value, dict):
        return {k: _flatten(v, out, (*path, k)) for k, v in node.value.items()}
    if isinstance(node.value, list):
        return [_flatten(v, out, (*path, i)) for i, v in enumerate(node.value)]
    return node.value


def repository_root(start: FsPath) -> tuple[FsPath, str] | None:
    """The repository holding directory `start` (resolved) and the marker naming it: the
    nearest directory holding `.git`, else the nearest holding a config or pyproject.toml."""
    for names in ROOT_MARKERS:
        for directory in (start, *start.parents):
            for name in names:
                if os.path.lexists(directory / name):  # never raises (an unsearchable parent)
                    return directory, name
    return None


class _Composer:
    def __init__(self, read: Reader, roots: list[FsPath], outside: str) -> None:
        self.read = read
        self.roots = roots
        self.outside = outside  # what an include outside the roots is told
        self.problems: list[Problem] = []
        self.texts: dict[str, str] = {}
        # each file is read and resolved once, however many times it is included (a diamond of
        # includes 16 deep would otherwise read the bottom file 3**15 times): its merged tree
        # (never mutated by a merge) and the number of include levels below it, or None if it
        # failed (its problems are already recorded)
        self.done: dict[str, tuple[_Node, int] | None] = {}

    def tree(
        self, file: str, data: Any, source: Source, chain: tuple[str, ...]
    ) -> tuple[_Node, int]:
        """The merged tree of one file and its height: how many levels of includes below it."""
        self.texts[source.file] = source.text
        parts: list[tuple[_Node, int]] = []
        if isinstance(data, dict):
            for key in COMPOSE_KEYS:
                refs = data.pop(key, None)
                if refs is None:
                    continue
                for index, ref in enumerate(refs if isinstance(refs, list) else [refs]):
                    where: Path = (key, index) if isinstance(refs, list) else (key,)
                    part = self.part(file, ref, source.locate(where), chain)
                    if part is not None:
                        parts.append(part)
        own = _tree(data, source)
        if not parts:
            return own, 0
        merged = parts[0][0]
        for node, _ in parts[1:]:
            merged = _merge(merged, node)
        return _merge(merged, own), 1 + max(height for _, height in parts)

    def part(
        self, file: str, ref: Any, pos: Any, chain: tuple[str, ...]
    ) -> tuple[_Node, int] | None:
        def fail(message: str) -> None:
            self.problems.append(Problem(pos.file, pos.line, pos.column, message))

        if not isinstance(ref, str) or not ref.endswith((".yaml", ".yml")):
            fail(f"include must be a relative path to a .yaml file, got {ref!r}")
            return None
        if FsPath(ref).is_absolute():
            fail(f"include '{_shown(ref)}' must be a relative path")
            return None
        target = _resolve(FsPath(file).parent / ref)
        if isinstance(target, str):
            fail(f"include '{_shown(ref)}': {target}")
            return None
        if not any(target.is_relative_to(root) for root in self.roots):
            fail(f"include '{_shown(ref)}' points outside {self.outside}")
            return None
        name = str(target)
        if name in chain:
            cycle = " -> ".join(FsPath(c).name for c in (*chain, name))
            fail(f"include cycle: {cycle}")
            return None
        if len(chain) >= MAX_INCLUDE_DEPTH:
            fail(f"includes nested deeper than {MAX_INCLUDE_DEPTH} files")
            return None
        if name not in self.done:
            self.done[name] = self.resolve(target, ref, fail, (*chain, name), file)
        done = self.done[name]
        if done is not None and len(chain) + done[1] >= MAX_INCLUDE_DEPTH:  # resolved higher up
            fail(f"includes nested deeper than {MAX_INCLUDE_DEPTH} files")
            return None
        return done

    def resolve(
        self,
        target: FsPath,
        ref: str,
        fail: Callable[[str], None],
        chain: tuple[str, ...],
        including: str,
    ) -> tuple[_Node, int] | None:
        """Read an included file and resolve its own includes, once."""
        display = _display(target, including)
        try:
            data, source = self.read(display)
        except LoadError as exc:
            try:
                os.lstat(target)
            except FileNotFoundError:
                fail(f"included file '{_shown(ref)}' does not exist")
            except OSError as err:  # a name too long, a parent that cannot be searched
                fail(f"include '{_shown(ref)}': cannot read file: {err.strerror or err}")
            else:
                self.problems.extend(exc.problems)
            return None
        if not isinstance(data, dict):
            fail(f"included file '{_shown(ref)}' must be a YAML mapping")
            return None
        return self.tree(display, data, source, chain)


def _shown(ref: str) -> str:
    return ref if len(ref) <= 120 else f"{ref[:100]}...{ref[-16:]}"


def _resolve(path: FsPath) -> FsPath | str:
    """`path` resolved, or why it cannot be: a symlink loop, a name too long, a NUL byte."""
    try:
        return path.resolve()
    except RuntimeError:  # pathlib's symlink loop (Python < 3.13)
        return "symbolic link loop"
    except ValueError:
        return "the path holds a NUL byte"
    except OSError as exc:
        return f"cannot resolve the path: {exc.strerror or exc}"


def _display(path: FsPath, including: str) -> str:
    """An included file's name as findings give it: relative to the working directory when the
    including file's is (`../repo/profiles/site.yaml` from a sibling directory), else absolute."""
    if FsPath(including).is_absolute():
        return str(path)
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)


def _bounds(here: FsPath) -> tuple[list[FsPath], str]:
    """The directories includes must stay in, and how an include outside them is told."""
    found = repository_root(here)
    if found is not None:
        root, marker = found
        return [root], (
            f"the repository root {root} (the directory holding {marker}): move the file inside it"
        )
    cwd = FsPath.cwd().resolve()
    return [here, cwd], (
        f"the design's directory tree {here} (no .git, .dclint.yaml or pyproject.toml above "
        "it marks a repository root: put one at the top of the tree)"
    )


def compose(file: str, data: dict[str, Any], source: Source, read: Reader) -> tuple[Any, Source]:
    """Resolve `extends`/`include` of a design already read; returns merged data and positions."""
    if not any(key in data for key in COMPOSE_KEYS):
        return data, source
    here = FsPath(file).resolve().parent
    composer = _Composer(read, *_bounds(here))
    tree, _ = composer.tree(file, data, source, (str(FsPath(file).resolve()),))
    if composer.problems:
        raise LoadError(composer.problems)
    out = Source(source.file, source.text)
    merged = _flatten(tree, out)
    out.texts = {k: v for k, v in composer.texts.items() if k != source.file}
    return merged, out
