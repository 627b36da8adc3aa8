"""Composition: a design may `extends:` a base design and `include:` fragments by relative path.

Merge rules, applied in order (each base, then each include, then the file's own values):
mappings merge key by key; lists of objects with an `id` merge by id (an item whose id was
seen before is merged into that item, a new id is appended); any other value, lists included,
is replaced by the later one. Every value keeps the file, line and column that set it, so a
finding on an inherited value points at the file that wrote it.

Paths are relative to the including file, must name `.yaml`/`.yml` files, and must stay
inside the directory tree of the design given (or the working directory): a design cannot
make dclint read arbitrary files. Cycles and missing files are errors at the include's line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from dclint.errors import LoadError, Problem
from dclint.model.source import Path, Source

__all__ = ["COMPOSE_KEYS", "MAX_INCLUDE_DEPTH", "compose"]

COMPOSE_KEYS = ("extends", "include")
MAX_INCLUDE_DEPTH = 16
Reader = Callable[[str], tuple[Any, Source]]


@dataclass
class _Node:
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


class _Composer:
    def __init__(self, read: Reader, roots: list[FsPath]) -> None:
        self.read = read
        self.roots = roots
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
            fail(f"include '{ref}' must be a relative path")
            return None
        target = (FsPath(file).parent / ref).resolve()
        if not any(target.is_relative_to(root) for root in self.roots):
            fail(f"include '{ref}' points outside the design's directory tree")
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
            self.done[name] = self.resolve(target, ref, fail, (*chain, name))
        done = self.done[name]
        if done is not None and len(chain) + done[1] >= MAX_INCLUDE_DEPTH:  # resolved higher up
            fail(f"includes nested deeper than {MAX_INCLUDE_DEPTH} files")
            return None
        return done

    def resolve(
        self, target: FsPath, ref: str, fail: Callable[[str], None], chain: tuple[str, ...]
    ) -> tuple[_Node, int] | None:
        """Read an included file and resolve its own includes, once."""
        display = _display(target)
        try:
            data, source = self.read(display)
        except LoadError as exc:
            if not target.exists():
                fail(f"included file '{ref}' does not exist")
            else:
                self.problems.extend(exc.problems)
            return None
        if not isinstance(data, dict):
            fail(f"included file '{ref}' must be a YAML mapping")
            return None
        return self.tree(display, data, source, chain)


def _display(path: FsPath) -> str:
    try:
        return str(path.relative_to(FsPath.cwd()))
    except ValueError:
        return str(path)


def compose(file: str, data: dict[str, Any], source: Source, read: Reader) -> tuple[Any, Source]:
    """Resolve `extends`/`include` of a design already read; returns merged data and positions."""
    if not any(key in data for key in COMPOSE_KEYS):
        return data, source
    here = FsPath(file).resolve().parent
    composer = _Composer(read, [here, FsPath.cwd().resolve()])
    tree, _ = composer.tree(file, data, source, (str(FsPath(file).resolve()),))
    if composer.problems:
        raise LoadError(composer.problems)
    out = Source(source.file, source.text)
    merged = _flatten(tree, out)
    out.texts = {k: v for k, v in composer.texts.items() if k != source.file}
    return merged, out
