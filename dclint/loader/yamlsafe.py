"""Safe YAML reading: plain data plus a position for every node, and none of YAML's traps.

No tags beyond the core ones, no aliases of mappings or sequences (alias bombs), no merge keys,
duplicate keys are errors, and plain scalars follow a strict core schema: `no`, `on`, `1:30` and
`010` stay strings rather than turning into booleans, sexagesimal or octal numbers. Quoted
scalars are always strings. The document is built from parser events with an explicit stack, so
no nesting depth can exhaust Python's recursion limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml import events as ev

from dclint.errors import Problem
from dclint.source import Path, Source

__all__ = ["MAX_BYTES", "MAX_DEPTH", "EmptyDocument", "YamlError", "decode", "read_yaml"]

MAX_BYTES = 10 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 2_000_000
MAX_PROBLEMS = 100  # stop collecting after this many: a hostile file must not flood the terminal
_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null")}
_INT_RE = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^[-+]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_BAD_KEY = "\x00bad key"  # path part under which the value of an unusable key is built
# stream and document events: they hold no node
_FRAMING = {ev.StreamStartEvent, ev.StreamEndEvent, ev.DocumentStartEvent, ev.DocumentEndEvent}

try:  # libyaml's parser (yaml.CParser is not exported: it lives in yaml.cyaml), 10x faster
    from yaml.cyaml import CParser as _Parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _Parser(Reader, Scanner, Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            Parser.__init__(self)


class _Chunks:
    """The text as a stream the parser reads 16 KB at a time. Handed a str, libyaml's binding
    first copies all of it as UTF-8 and keeps the copy for the whole read (3.4 MB for a
    100,000-GPU design, at the moment memory peaks)."""

    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def read(self, size: int = -1) -> str:
        end = len(self.text) if size < 0 else self.at + size
        chunk, self.at = self.text[self.at : end], min(end, len(self.text))
        return chunk


class YamlError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems


class EmptyDocument(YamlError):
    """The text holds no YAML document at all (empty, or only comments)."""


class _Stop(Exception):
    """Raised inside the builder once reading on is pointless (node or problem limit)."""


def decode(file: str, raw: bytes) -> str:
    """Bytes to text: UTF-8 (a BOM is dropped), no NUL bytes, within the size limit."""
    if len(raw) > MAX_BYTES:
        message = f"file is over the {MAX_BYTES:,}-byte limit for a design"
        raise YamlError([Problem(file, 1, 1, message)])
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
    """Parse one YAML document into plain data and its Source. The Source records no position
    yet: it reads the text again for the positions it is asked for (see dclint.source)."""
    source = Source(file, text)
    builder = _Builder(source, set())
    parser: Any = None
    try:
        parser = _Parser(_Chunks(text))
        builder.run(parser)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = (exc.problem or exc.context or "invalid YAML").strip()
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and start is not mark:
            # "found unexpected end of stream" says little without where the quote was opened
            message += f" ({exc.context.strip()} at {start.line + 1}:{start.column + 1})"
        if "maximum nesting depth" in message:  # libyaml's own limit (1000), met scanning ahead
            message = f"document nested deeper than {MAX_DEPTH} levels"
            builder.problems.append(Problem(file, line, col, message))
            raise YamlError(builder.problems) from None
        if mark is not None and text[mark.index : mark.index + 1] == "\t":
            message = "a tab character; YAML is indented with spaces"
        builder.problems.append(Problem(file, line, col, f"YAML syntax error: {message}"))
    except yaml.reader.ReaderError as exc:
        line, col = _line_col(text, exc.position)
        builder.problems.append(
            Problem(file, line, col, f"character #x{exc.character:04x} is not allowed in YAML")
        )
    except yaml.YAMLError as exc:
        builder.problems.append(Problem(file, 1, 1, f"YAML error: {exc}"))
    except _Stop:
        pass
    finally:
        if parser is not None:
            parser.dispose()
    if builder.problems:
        raise YamlError(builder.problems)
    if not builder.done:
        raise EmptyDocument([Problem(file, 1, 1, "empty design: the file holds no YAML document")])
    source.reread = _reread
    return builder.root, source


def _reread(source: Source, want: set[Path] | None) -> None:
    """Record the positions of the paths in `want` (None: of every node) from the text, which
    has been read once without a problem."""
    parser = _Parser(_Chunks(source.text))
    try:
        _Builder(source, want, build=False).run(parser)
    except _Stop:  # every wanted path found: the rest of the text need not be read
        pass
    finally:
        parser.dispose()


def _line_col(text: str, index: int) -> tuple[int, int]:
    index = max(0, min(index, len(text)))
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


@dataclass
class _Frame:
    """An open mapping or sequence. For a mapping, `key` is the key whose value comes next."""

    path: Path
    value: dict[str, Any] | list[Any]
    key: str | None = None
    bad_key: bool = False  # the pending key was unusable: build its value, then drop it
    key_done: bool = False
    seen: set[str] = field(default_factory=set)


class _Builder:
    def __init__(self, source: Source, want: set[Path] | None, *, build: bool = True) -> None:
        self.source = source
        self.want = want  # the paths whose positions to record; None: every one
        self.build = build  # False: positions only, the data is not kept (a list holds Nones)
        self.record = want is None or bool(want)
        self.left = len(want) if want else -1  # wanted paths not yet found; at 0, stop
        self.values, self.keys = source.tables()
        # one object per distinct scalar text: an id written 18 times, and every key, is stored
        # once (a third of an explicit design's memory); plain scalars are typed once per text
        self.strings: dict[str, str] = {}
        self.plain: dict[str, Any] = {}
        self.problems: list[Problem] = []
        self.stack: list[_Frame] = []
        # anchor -> (value, text as written) of a scalar, or the _Frame of a collection
        self.anchors: dict[str, tuple[Any, str] | _Frame] = {}
        self.count = 0
        self.skip = 0  # > 0 while inside a collection used as a key (skipped)
        self.root: Any = None
        self.done = False
        self.parser: Any = None

    def fail(self, mark: Any, message: str) -> None:
        self.problems.append(Problem(self.source.file, mark.line + 1, mark.column + 1, message))
        if len(self.problems) >= MAX_PROBLEMS:
            self.problems.append(
                Problem(
                    self.source.file,
                    mark.line + 1,
                    mark.column + 1,
                    f"too many problems; stopped after {MAX_PROBLEMS}",
                )
            )
            raise _Stop

    def run(self, parser: Any) -> None:
        self.parser = parser
        while (event := parser.get_event()) is not None:  # None once the stream has ended
            if type(event) not in _FRAMING:
                self.event(event)
            elif type(event) is ev.DocumentStartEvent and self.done:
                self.fail(
                    event.start_mark,
                    "YAML syntax error: expected a single document, but found another document",
                )
                return

    def event(self, event: Any) -> None:
        if self.skip:
            if isinstance(event, ev.CollectionStartEvent):
                self.skip += 1
            elif isinstance(event, ev.CollectionEndEvent):
                self.skip -= 1
                if not self.skip:
                    self.attach(None)
            return
        if isinstance(event, ev.CollectionEndEvent):
            frame = self.stack.pop()
            self.attach(frame.value)
            return
        path = self.place(event)
        if isinstance(event, ev.AliasEvent):
            self.alias(event, path)
        elif isinstance(event, ev.ScalarEvent):
            self.scalar(event, path)
        else:
            self.collection(event, path)

    def place(self, event: Any) -> Path | None:
        """The path of the node `event` starts; None when it is a mapping key."""
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(event.start_mark, f"document has more than {MAX_NODES:,} nodes")
            raise _Stop
        if not self.stack:
            path: Path = ()
        else:
            top = self.stack[-1]
            if isinstance(top.value, list):
                path = (*top.path, len(top.value))
            elif not top.key_done:
                return None
            else:
                path = (*top.path, _BAD_KEY if top.bad_key else top.key or "")
        if self.record and (self.want is None or path in self.want):
            mark = event.start_mark
            self.values[path] = (mark.line + 1, mark.column + 1)
            self.left -= 1
            if not self.left:  # a key comes before its value: both are recorded
                raise _Stop
        return path

    def alias(self, event: Any, path: Path | None) -> None:
        if event.anchor not in self.anchors:
            self.fail(
                event.start_mark, f"YAML syntax error: found undefined alias '{event.anchor}'"
            )
            value, text = None, None
        elif isinstance(self.anchors[event.anchor], _Frame):
            self.fail(
                event.start_mark,
                "aliases of mappings or sequences are not allowed (alias bomb guard)",
            )
            value, text = None, None
        else:
            value, text = self.anchors[event.anchor]  # type: ignore[misc]
        if path is None:
            self.key(event, text)
        else:
            self.attach(value)

    def scalar(self, event: Any, path: Path | None) -> None:
        if path is None:  # a key: its text as written, whatever it looks like
            if event.tag not in (None, "!", _CORE + "str"):
                self.fail(event.start_mark, f"tag '{event.tag}' is not allowed on a key")
            if event.anchor is not None:
                self.anchors[event.anchor] = (event.value, event.value)
            self.key(event, self.strings.setdefault(event.value, event.value))
            return
        if not self.build:  # a re-read: the text was typed and checked the first time
            if event.anchor is not None:  # an alias of it may be a key, which a path needs
                self.anchors[event.anchor] = (None, event.value)
            self.attach(None)
            return
        value = self.convert(event)
        if type(value) is str:
            value = self.strings.setdefault(value, value)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, event.value)
        self.attach(value)

    def convert(self, event: Any) -> Any:
        tag = event.tag
        if tag is None:
            if not event.implicit[0]:
                return event.value
            text = event.value
            try:
                return self.plain[text]
            except KeyError:
                value = self.plain[text] = _plain(text)
                return value
        if tag in ("!", _CORE + "str"):
            return event.value
        if tag not in _SCALAR_TAGS:
            self.fail(
                event.start_mark, f"tag '{tag}' is not allowed in a design (only plain YAML data)"
            )
            return None
        name = tag[len(_CORE) :]
        value = _plain(event.value)
        wanted = {"int": int, "float": float, "bool": bool, "null": type(None)}[name]
        if name == "float" and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, wanted) or (name == "int" and isinstance(value, bool)):
            self.fail(event.start_mark, f"'{event.value[:40]}' is not a valid !!{name}")
            return None
        return value

    def collection(self, event: Any, path: Path | None) -> None:
        is_map = isinstance(event, ev.MappingStartEvent)
        tag = event.tag
        if tag not in (None, "!", _CORE + ("map" if is_map else "seq")):
            self.fail(
                event.start_mark, f"tag '{tag}' is not allowed in a design (only plain YAML data)"
            )
        if path is None:
            self.fail(event.start_mark, "mapping keys must be plain strings")
            self.key(event, None)
            self.skip = 1
            return
        if len(self.stack) >= MAX_DEPTH:
            # stop here: scanning on through thousands of open brackets is quadratic in PyYAML
            self.fail(event.start_mark, f"document nested deeper than {MAX_DEPTH} levels")
            raise _Stop
        if not self.build and self.want is not None and path not in self.want:
            self.pass_over()  # `want` holds every ancestor of a wanted path: none is in here
            return
        frame = _Frame(path, {} if is_map else [])
        if event.anchor is not None:
            self.anchors[event.anchor] = frame
        self.stack.append(frame)

    def pass_over(self) -> None:
        """Consume the rest of a collection on a re-read, doing nothing per node but keep the
        anchors of scalars (an alias of one may be a key on a wanted path)."""
        depth, parser = 1, self.parser
        while depth:
            event = parser.get_event()
            if isinstance(event, ev.CollectionStartEvent):
                depth += 1
            elif isinstance(event, ev.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, ev.ScalarEvent) and event.anchor is not None:
                self.anchors[event.anchor] = (None, event.value)
        self.attach(None)

    def key(self, event: Any, key: str | None) -> None:
        top = self.stack[-1]
        top.key_done, top.bad_key, top.key = True, key is None, key
        if key is None:
            return
        if key == "<<" and not getattr(event, "style", None):  # plain: None, or "" from libyaml
            self.fail(event.start_mark, "merge keys ('<<') are not supported; write values out")
            top.bad_key = True
        elif key in top.seen:
            self.fail(event.start_mark, f"duplicate key '{key[:80]}'")
            top.bad_key = True
        else:
            top.seen.add(key)
            if self.record:
                path = (*top.path, key)
                if self.want is None or path in self.want:
                    mark = event.start_mark
                    self.keys[path] = (mark.line + 1, mark.column + 1)

    def attach(self, value: Any) -> None:
        if not self.stack:
            self.root, self.done = value, True
            return
        top = self.stack[-1]
        if not self.build:
            value = None  # a re-read needs only each list's length, for the paths
        if isinstance(top.value, list):
            top.value.append(value)
            return
        if not top.bad_key and top.key is not None:
            top.value[top.key] = value
        top.key, top.key_done, top.bad_key = None, False, False


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
