"""Text from a design, a file name, a config or the command line, made safe for where it is
written. Every presenter (and every importer) escapes free text through these helpers, so one
rule holds everywhere:

- `printable`: control characters (C0, DEL, C1, line and paragraph separators) and the
  characters that reorder or hide text (bidirectional embeddings, overrides and isolates,
  zero-width characters, the Arabic letter mark: the "Trojan Source" set, CVE-2021-42574) are
  written as escapes (`\\x1b`, `\\u202e`): nothing from a design can move a terminal's cursor,
  colour a log, or make text read differently from what it is;
- `plain_line`: as printable, and a line that would start with `::` (a GitHub Actions workflow
  command) or `##[` (an Azure Pipelines one) has its first character escaped;
- `html_text`: as printable, then HTML-escaped, quotes included (text and attribute values);
- `mermaid_label`: a label inside a quoted Mermaid node or edge label, every character outside
  a small safe set written as a Mermaid entity code (`#35;` for `#`, so a label cannot carry
  entity codes of its own such as `#60;`);
- `markdown_text`: as printable, on one line, Markdown's punctuation backslash-escaped;
- `output_text`: the last guard on a whole report before it is written (text, Markdown, HTML,
  XML: no raw unsafe character, no line that is a CI command; JSON: the same characters as
  `\\uXXXX` escapes, so the JSON stays valid and equal);
- `UNSAFE`: the characters `printable` escapes, for a loader that refuses them outright.

A file name that is not UTF-8 reaches Python with lone surrogates (`\\udcff`, PEP 383); they are
unsafe too, so it is written escaped and every output stays valid UTF-8.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

__all__ = [
    "HTML_CSP",
    "UNSAFE",
    "UNSAFE_IN_LINE",
    "describe_unsafe",
    "finite_data",
    "finite_json",
    "html_text",
    "markdown_code",
    "markdown_text",
    "mermaid_label",
    "output_text",
    "plain_line",
    "plain_lines",
    "printable",
]

# C0 and C1 controls, DEL, NEL, LS/PS; the bidirectional controls (LRE RLE PDF LRO RLO, LRI RLI
# FSI PDI, ALM, LRM RLM); zero-width space, non-joiner, joiner; word joiner and the invisible
# operators; the zero-width no-break space (BOM) inside text
_INVISIBLE = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff"
# the characters `printable` escapes (UNSAFE, below) but tab and line feed, which a multi-line
# description may hold
UNSAFE_IN_LINE = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029{_INVISIBLE}]")
_UNSAFE_IN_TEXT = UNSAFE_IN_LINE  # in a whole report: all but its own line feeds and tabs
_COMMAND = re.compile(r"^(\s*)(::|##\[)", re.MULTILINE)
# Patterns compiled on first use (module attributes all the same, through __getattr__): a
# clean check's report escapes nothing, and compiling them (UNSAFE's character class is long)
# was about 0.3% of its cold run
_LAZY = {
    "UNSAFE": f"[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029{_INVISIBLE}]",
    "_COLOUR_OR_UNSAFE": f"(\\x1b\\[[0-9;]*m)|{UNSAFE_IN_LINE.pattern}",
    "_MARKDOWN_SPECIAL": r"([\\`*_\[\]<>|#~!&])",
    # `:` is not safe: Mermaid's encodeEntities first strips the last `;` of any line matching
    # `style.*:\S*#.*;` or `classDef.*:\S*#.*;`, which would cut our own entity code short (a
    # label "style x:#" would show "#35") unless no `:` is written in a label
    "_MERMAID_SAFE": r"[^A-Za-z0-9 _.,;/+=@%()'-]",
}
if TYPE_CHECKING:
    UNSAFE: re.Pattern[str]


def _compiled(name: str) -> re.Pattern[str]:
    """The pattern `name` of `_LAZY`, compiled once."""
    pattern: re.Pattern[str] | None = globals().get(name)
    if pattern is None:
        pattern = globals()[name] = re.compile(_LAZY[name])
    return pattern


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return _compiled(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _escape_one(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def printable(text: str) -> str:
    """`text` with every control, bidirectional or invisible character written as an escape
    (`\\x1b`, `\\n`, `\\u202e`)."""
    unsafe = _compiled("UNSAFE")
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(_escape_one, text)


def describe_unsafe(char: str) -> str:
    """How a refused character is named in an error: its code point (U+202E)."""
    return f"U+{ord(char):04X}"


def _uncommand(match: re.Match[str]) -> str:
    lead, marker = match.group(1), match.group(2)
    return lead + f"\\x{ord(marker[0]):02x}" + marker[1:]


def plain_line(text: str) -> str:
    """One line of plain output (terminal, CI log): printable, and never a CI workflow command
    (`::error::...` at a line's start, after blanks, is GitHub's syntax; `##[` Azure's)."""
    return _COMMAND.sub(_uncommand, printable(text))


def plain_lines(text: str) -> str:
    """A whole plain-text output whose newlines are dclint's own: no line of it starts a CI
    workflow command. Free text inside it must already have been through `printable`."""
    return _COMMAND.sub(_uncommand, text)


def html_text(text: str) -> str:
    """Safe in HTML or SVG text and in a quoted attribute value."""
    from html import escape  # html.entities' tables: only for HTML

    return escape(printable(text), quote=True)


def _mermaid_entity(match: re.Match[str]) -> str:
    return f"#{ord(match.group())};"


def mermaid_label(text: str) -> str:
    """Safe inside a quoted Mermaid label (`n1["..."]`, `-->|...|`): every character but
    letters, digits, blanks and plain punctuation is a Mermaid entity code, `#` and `:`
    included, so quotes, brackets, pipes, backticks, `<`, and entity codes written in the text
    (`#35;`, `#60;`) stay text, and Mermaid's style/classDef clean-up finds no line to cut."""
    return _compiled("_MERMAID_SAFE").sub(_mermaid_entity, printable(text).strip())


def markdown_text(text: object) -> str:
    """Safe in a Markdown paragraph, heading or table cell: one line, printable, and Markdown's
    punctuation (`<`, `|`, `` ` ``, `[`...) backslash-escaped, so no HTML, link or cell break."""
    return _compiled("_MARKDOWN_SPECIAL").sub(r"\\\1", printable(" ".join(str(text).split())))


def markdown_code(text: object) -> str:
    """A Markdown code span of `text` (printable, one line): fenced with one backtick more than
    the longest run of backticks inside it, so nothing in it ends the span early; nothing in a
    code span is read as HTML or Markdown."""
    body = printable(" ".join(str(text).split()))
    runs = re.findall(r"`+", body)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    # a lone surrogate (a file name that is not UTF-8) as text, since JSON readers refuse one
    return f"\\\\u{code:04x}" if 0xD800 <= code <= 0xDFFF else f"\\u{code:04x}"


def _escape_but_colour(match: re.Match[str]) -> str:
    return match.group(1) or _escape_one(match)


def output_text(text: str, fmt: str, *, colour: bool = False) -> str:
    """A whole report just before it is written. `json`/`sarif`/`gitlab`: each unsafe character
    left (json.dumps with ensure_ascii=False keeps C1, bidirectional and invisible characters)
    as a JSON escape. `github`: workflow commands are the format; unsafe characters escaped. Any
    other format: unsafe characters escaped and no line starts a CI command. `colour`: the
    report's own colour codes (SGR, `ESC[...m`; free text in it was escaped) are kept."""
    if fmt in ("json", "sarif", "gitlab"):
        return _UNSAFE_IN_TEXT.sub(_json_escape, text) if _UNSAFE_IN_TEXT.search(text) else text
    if _UNSAFE_IN_TEXT.search(text) is not None:
        if colour:
            text = _compiled("_COLOUR_OR_UNSAFE").sub(_escape_but_colour, text)
        else:
            text = _UNSAFE_IN_TEXT.sub(_escape_one, text)
    return text if fmt == "github" else plain_lines(text)


# an HTML report's Content-Security-Policy: no script, font or image may come from elsewhere,
# so a page works offline and in mail, and markup that escaped its place could not run
HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def finite_data(value: Any) -> Any:
    """`value` (JSON-like data) with each number that is not finite (NaN, infinity) as None:
    what `json.dumps(..., allow_nan=False)` may take."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_data(v) for v in value]
    return value


def finite_json(data: Any) -> str:
    """`data` as indented JSON, a number that is not finite (NaN, infinity) written as null:
    JSON has no such numbers, and `NaN`/`Infinity` break every strict reader."""
    return json.dumps(finite_data(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
