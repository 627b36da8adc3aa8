"""Safe YAML reading: plain data plus a position for every node, and none of YAML's traps.

No tags beyond the core ones, no aliases of mappings or sequences (alias bombs), no merge keys,
duplicate keys are errors, and plain scalars follow a strict core schema (dclint.loader.scalars):
`no`, `on`, `1:30` and `010` stay strings rather than turning into booleans, sexagesimal or
octal numbers. Quoted scalars are always strings. libyaml parses; dclint.loader.builder builds.
"""

from __future__ import annotations

from typing import Any

import yaml

from dclint.errors import Problem
from dclint.loader.builder import MAX_DEPTH, Builder, Stop
from dclint.model.source import Path, Source

__all__ = ["MAX_BYTES", "MAX_DEPTH", "EmptyDocument", "YamlError", "decode", "read_yaml"]

MAX_BYTES = 10 * 1024 * 1024

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
    yet: it reads the text again for the positions it is asked for (see dclint.model.source)."""
    source = Source(file, text)
    builder = Builder(source, set())
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
    except Stop:
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
        Builder(source, want, build=False).run(parser)
    except Stop:  # every wanted path found: the rest of the text need not be read
        pass
    finally:
        parser.dispose()


def _line_col(text: str, index: int) -> tuple[int, int]:
    index = max(0, min(index, len(text)))
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1
