"""The builder behind dclint.loader.yamlsafe: plain data and node positions from parser events.

The document is built from parser events with an explicit stack, so no nesting depth can
exhaust Python's recursion limit. Aliases of mappings or sequences (alias bombs), merge keys,
tags beyond the core ones and duplicate keys are problems. On a re-read (`build=False`) it
records only the positions it is asked for, and stops once it has them all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from yaml import events as ev

from dclint.errors import Problem
from dclint.escaping import UNSAFE_IN_LINE, describe_unsafe
from dclint.loader.scalars import CORE, SCALAR_TAGS, plain, tagged
from dclint.model.source import Path, Source

__all__ = ["MAX_DEPTH", "MAX_NODES", "MAX_PROBLEMS", "Builder", "Stop"]

MAX_DEPTH = 64
MAX_NODES = 2_000_000
MAX_PROBLEMS = 100  # stop collecting after this many: a hostile file must not flood the terminal
_BAD_KEY = "\x00bad key"  # path part under which the value of an unusable key is built
# the tags a key, a mapping and a sequence may carry: none, the non-specific "!", or the core one
_STR_TAGS = (None, "!", CORE + "str")
_MAP_TAGS = (None, "!", CORE + "map")
_SEQ_TAGS = (None, "!", CORE + "seq")
_UNPLACED: Path = ("\x00unplaced",)  # a scalar value whose path nobody asked for
# the keys whose text may run over lines (a tab or line feed in it); any other key or value is
# one line, as it is printed in one line of a report
MULTILINE_KEYS = frozenset({"description"})


class Stop(Exception):
    """Raised inside the builder once reading on is pointless: a node or problem limit is met,
    or a re-read has found every position it wants."""


@dataclass(slots=True)
class Frame:
    """An open mapping or sequence. For a mapping, `key` is the key whose value comes next."""

    path: Path
    value: dict[str, Any] | list[Any]
    is_list: bool
    key: str | None = None
    bad_key: bool = False  # the pending key was unusable: build its value, then drop it
    key_done: bool = False
    seen: set[str] = field(default_factory=set)


class Builder:
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
        self.stack: list[Frame] = []
        # anchor -> (value, text as written) of a scalar, or the Frame of a collection
        self.anchors: dict[str, tuple[Any, str] | Frame] = {}
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
            raise Stop

    def run(self, parser: Any) -> None:
        self.parser = parser
        # dispatch on the event's exact class: half a million events in an explicit design
        handle = {
            ev.ScalarEvent: self.scalar,
            ev.MappingStartEvent: self.collection,
            ev.SequenceStartEvent: self.collection,
            ev.MappingEndEvent: self.end,
            ev.SequenceEndEvent: self.end,
            ev.AliasEvent: self.alias,
        }
        get = parser.get_event
        while (event := get()) is not None:  # None once the stream has ended
            if self.skip:
                self.skipping(event)
            elif (handler := handle.get(type(event))) is not None:
                handler(event)
            elif type(event) is ev.DocumentStartEvent and self.done:
                self.fail(
                    event.start_mark,
                    "YAML syntax error: expected a single document, but found another document",
                )
                return

    def skipping(self, event: Any) -> None:
        """Inside a collection used as a key: count its depth until it ends. The mapping then
        waits for that key's value, which is built and dropped (the key is marked bad)."""
        if isinstance(event, ev.CollectionStartEvent):
            self.skip += 1
        elif isinstance(event, ev.CollectionEndEvent):
            self.skip -= 1

    def end(self, event: Any) -> None:
        self.attach(self.stack.pop().value)

    def place(self, event: Any, *, needed: bool = True) -> Path | None:
        """The path of the node `event` starts; None when it is a mapping key. A scalar's path
        is `needed` only for its position: otherwise it is _UNPLACED, and no tuple is built."""
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(event.start_mark, f"document has more than {MAX_NODES:,} nodes")
            raise Stop
        if not self.stack:
            path: Path = ()
        else:
            top = self.stack[-1]
            if top.is_list:
                if not needed:
                    return _UNPLACED
                path = (*top.path, len(top.value))
            elif not top.key_done:
                return None
            elif not needed:
                return _UNPLACED
            else:
                path = (*top.path, _BAD_KEY if top.bad_key else top.key or "")
        if self.record and (self.want is None or path in self.want):
            mark = event.start_mark
            self.values[path] = (mark.line + 1, mark.column + 1)
            self.left -= 1
            if not self.left:  # a key comes before its value: both are recorded
                raise Stop
        return path

    def alias(self, event: Any) -> None:
        path = self.place(event, needed=self.record)
        if event.anchor not in self.anchors:
            self.fail(
                event.start_mark, f"YAML syntax error: found undefined alias '{event.anchor}'"
            )
            value, text = None, None
        elif isinstance(self.anchors[event.anchor], Frame):
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

    def scalar(self, event: Any) -> None:
        path = self.place(event, needed=self.record)
        if path is None:  # a key: its text as written, whatever it looks like
            if event.tag not in _STR_TAGS:
                self.fail(event.start_mark, f"tag '{event.tag}' is not allowed on a key")
            if event.anchor is not None:
                self.anchors[event.anchor] = (event.value, event.value)
            self.key(
                event,
                self.strings.get(event.value) or self.string(event, event.value, multiline=False),
            )
            return
        if not self.build:  # a re-read: the text was typed and checked the first time
            if event.anchor is not None:  # an alias of it may be a key, which a path needs
                self.anchors[event.anchor] = (None, event.value)
            self.attach(None)
            return
        value = self.convert(event)
        if type(value) is str:
            top = self.stack[-1] if self.stack else None
            value = self.string(
                event, value, multiline=top is not None and top.key in MULTILINE_KEYS
            )
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, event.value)
        self.attach(value)

    def string(self, event: Any, text: str, *, multiline: bool) -> str:
        """The one stored copy of a key's or a string value's text (`self.strings` holds the
        texts fit for any field). Text that could write terminal escapes or CI commands into a
        log, or read differently from what it is (a control, bidirectional or invisible
        character: dclint.escaping), is a problem; so is a tab or line break outside a
        multi-line field."""
        known = self.strings.get(text)
        if known is not None:
            return known
        if (bad := UNSAFE_IN_LINE.search(text)) is not None:
            self.fail(
                event.start_mark,
                f"character {describe_unsafe(bad.group())} is not allowed in a design "
                "(a control, bidirectional or invisible character)",
            )
            return text
        if "\n" not in text and "\t" not in text:
            self.strings[text] = text
            return text
        if not multiline:
            self.fail(
                event.start_mark, "a line break or tab is not allowed here (only in a description)"
            )
        return text

    def convert(self, event: Any) -> Any:
        tag = event.tag
        if tag is None:
            if not event.implicit[0]:
                return event.value
            text = event.value
            try:
                return self.plain[text]
            except KeyError:
                value = self.plain[text] = plain(text)
                return value
        if tag in _STR_TAGS:  # None was handled above
            return event.value
        if tag not in SCALAR_TAGS:
            self.fail(
                event.start_mark, f"tag '{tag}' is not allowed in a design (only plain YAML data)"
            )
            return None
        value, problem = tagged(tag, event.value)
        if problem is not None:
            self.fail(event.start_mark, problem)
        return value

    def collection(self, event: Any) -> None:
        path = self.place(event)
        is_map = type(event) is ev.MappingStartEvent
        tag = event.tag
        if tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
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
            raise Stop
        if not self.build and self.want is not None and path not in self.want:
            self.pass_over()  # `want` holds every ancestor of a wanted path: none is in here
            return
        frame = Frame(path, {} if is_map else [], not is_map)
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
        if top.is_list:
            top.value.append(value)  # type: ignore[union-attr]
            return
        if not top.bad_key and top.key is not None:
            top.value[top.key] = value  # type: ignore[call-overload]
        top.key, top.key_done, top.bad_key = None, False, False
