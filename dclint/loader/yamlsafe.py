"""Safe YAML reading: plain data plus a position for every node, and none of YAML's traps.

No tags beyond the core ones, no aliases of mappings or sequences (alias bombs), no merge keys,
duplicate keys are errors, and plain scalars follow a strict core schema: `no`, `on`, `1:30` and
`010` stay strings rather than turning into booleans, sexagesimal or octal numbers.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

from dclint.errors import Problem
from dclint.source import Path, Source

__all__ = ["read_yaml", "MAX_BYTES", "MAX_DEPTH"]

MAX_BYTES = 10 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 2_000_000
_PLAIN = "tag:dclint:plain"
_CORE = "tag:yaml.org,2002:"
_ALLOWED_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq")}
_INT_RE = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^[-+]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}


class _Resolver(BaseResolver):
    DEFAULT_SCALAR_TAG = _PLAIN  # untagged plain scalars: resolved by _plain() below


_Resolver.yaml_implicit_resolvers = {}
_Resolver.yaml_path_resolvers = {}

try:
    _Parser: Any = yaml.CParser
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.composer import Composer
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser, Composer):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)
            Composer.__init__(self)


class _Loader(_Parser, _Resolver):  # type: ignore[misc]
    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        _Resolver.__init__(self)


class YamlError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems


def decode(file: str, raw: bytes) -> str:
    """Bytes to text: UTF-8 (a BOM is dropped), no NUL bytes, within the size limit."""
    if len(raw) > MAX_BYTES:
        raise YamlError([Problem(file, 1, 1, f"file is {len(raw):,} bytes, over the "
                                  f"{MAX_BYTES:,}-byte limit for a design")])
    if b"\x00" in raw:
        raise YamlError([Problem(file, 1, 1, "binary file (contains NUL bytes), not YAML")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise YamlError([Problem(file, line, col, "file is not valid UTF-8")]) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_yaml(file: str, text: str) -> tuple[Any, Source]:
    """Parse one YAML document into plain data and the Source position table."""
    source = Source(file, text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = (exc.problem or exc.context or "invalid YAML").strip()
        raise YamlError([Problem(file, line, col, f"YAML syntax error: {message}")]) from None
    except yaml.YAMLError as exc:
        raise YamlError([Problem(file, 1, 1, f"YAML error: {exc}")]) from None
    finally:
        loader.dispose()
    if node is None:
        raise YamlError([Problem(file, 1, 1, "empty design: the file holds no YAML document")])
    builder = _Builder(source)
    data = builder.build(node, (), 0)
    if builder.problems:
        raise YamlError(builder.problems)
    return data, source


class _Builder:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.seen: set[int] = set()
        self.count = 0

    def fail(self, node: Node, message: str) -> None:
        mark = node.start_mark
        self.problems.append(Problem(self.source.file, mark.line + 1, mark.column + 1, message))

    def build(self, node: Node, path: Path, depth: int) -> Any:
        mark = node.start_mark
        self.source.values[path] = (mark.line + 1, mark.column + 1)
        self.count += 1
        if self.count > MAX_NODES:
            if self.count == MAX_NODES + 1:
                self.fail(node, f"document has more than {MAX_NODES:,} nodes")
            return None
        if node.tag not in _ALLOWED_TAGS and node.tag != _PLAIN:
            self.fail(node, f"tag '{node.tag}' is not allowed in a design (only plain YAML data)")
            return None
        if isinstance(node, ScalarNode):
            return _plain(node.value) if node.tag == _PLAIN else self._tagged(node)
        if id(node) in self.seen:
            line, col = self.source.keys.get(path, (node.start_mark.line + 1, 1))
            self.problems.append(Problem(self.source.file, line, col,
                "aliases of mappings or sequences are not allowed (alias bomb guard)"))
            return None
        self.seen.add(id(node))
        if depth >= MAX_DEPTH:
            self.fail(node, f"document nested deeper than {MAX_DEPTH} levels")
            return None
        if isinstance(node, SequenceNode):
            return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, MappingNode)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.fail(key_node, "mapping keys must be plain strings")
                continue
            key = key_node.value
            if key == "<<" and key_node.style is None:
                self.fail(key_node, "merge keys ('<<') are not supported; write values out")
                continue
            if key in out:
                self.fail(key_node, f"duplicate key '{key}'")
                continue
            kmark = key_node.start_mark
            self.source.keys[(*path, key)] = (kmark.line + 1, kmark.column + 1)
            out[key] = self.build(value_node, (*path, key), depth + 1)
        return out

    def _tagged(self, node: ScalarNode) -> Any:
        tag = node.tag[len(_CORE):]
        if tag == "str":
            return node.value
        value = _plain(node.value)
        wanted = {"int": int, "float": float, "bool": bool, "null": type(None)}[tag]
        if tag == "float" and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, wanted) or (tag == "int" and isinstance(value, bool)):
            self.fail(node, f"'{node.value}' is not a valid !!{tag}")
            return None
        return value


def _plain(text: str) -> Any:
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT_RE.match(text):
        return int(text) if len(text) < 20 else text
    if _FLOAT_RE.match(text):
        return float(text)
    return text
