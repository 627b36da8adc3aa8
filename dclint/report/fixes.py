"""A finding's fix as a document says it: words, and the design change as YAML. The `--set`
flags and `dclint ...` command lines a rule's fix text carries are for the command line
(`check`'s text output); a review or a Markdown/HTML report says the change instead: the same
change `--fix` and `plan --apply` write (the finding's `changes`)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["fix_words", "fix_yaml"]

_SET = re.compile(r"\s*\(\s*--set\b[^)]*\)")  # '(--set ... --set ...)' after a verb
_SET_TAIL = re.compile(r"\s*--set\b.*$")
_COMMAND = re.compile(r"[;,]?\s*`dclint [^`]*`[^;.]*")  # '; `dclint plan ...` lists the others'
_FLAG = re.compile(r"\bpass --[a-z-]+ to run it, or name the config with --config")


def fix_words(f: Any) -> str:
    """The fix in words, without command-line flags or commands; where the rule writes a
    design change (`changes`), the words say it follows."""
    text = str(getattr(f, "fix", "") or "")
    had_flags = "--set" in text
    text = _SET.sub("", text)
    text = _SET_TAIL.sub("", text)
    text = _COMMAND.sub("", text)
    text = _FLAG.sub("turn the layout search on for this design", text)
    text = re.sub(r"\s{2,}", " ", text).strip().rstrip(";,")
    if had_flags and _changes(f):
        text += ": the design change below"
    return text


def _changes(f: Any) -> list[Any]:
    return [c for c in getattr(f, "changes", ()) or () if getattr(c, "path", None) and not c.line]


def fix_yaml(f: Any) -> str:
    """The design change that makes the fix, as YAML to write into the design ('' when the
    rule offers none): one block, keys nested by their design path, a list item marked with
    its index (and the finding's subject) in a comment."""
    changes = _changes(f)
    if not changes:
        return ""
    lines: list[str] = []
    prefix: list[Any] = []
    # the subject names the list item only where every change is to that one element
    one = all(tuple(c.path[:-1]) == tuple(changes[0].path[:-1]) for c in changes)
    subject = str(getattr(f, "subject", "") or "") if one else ""
    for change in changes:
        path = list(change.path)
        common = 0
        while common < min(len(prefix), len(path) - 1) and prefix[common] == path[common]:
            common += 1
        indent = _indent(path[:common])
        for depth in range(common, len(path) - 1):
            key = path[depth]
            if isinstance(key, int):
                note = f" {subject}" if subject and depth == len(path) - 2 else ""
                lines.append(f"{indent}- # [{key}]{note}")
            else:
                lines.append(f"{indent}{key}:")
            indent = _indent(path[: depth + 1])
        lines.append(f"{indent}{path[-1]}: {change.value}")
        prefix = path[:-1]
    return "\n".join(lines) + "\n"


def _indent(path: list[Any]) -> str:
    """The indentation of a key under `path`: two spaces a level, a list item's `- ` counting
    as its level."""
    return "  " * len(path)
