"""Turn the fixes findings offer (engine.rule.Change) into text edits of the files that wrote
the values, and apply them: `check --fix`, `--unsafe-fixes`, `--diff`, `--add-suppressions`.

A change at a design path is made where that value is written: the design file, or the
fragment it came from (only with `fix_includes`: a fix never writes outside the file checked
unless asked). The edit replaces the YAML node's text, so comments, order, quoting and
ranges elsewhere stay as written; a key the design does not write is added to its mapping.
An edited file must still parse, or it is left untouched and the fix reported as skipped.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dclint.fix import files
from dclint.fix.files import Kept
from dclint.fix.text import Edit, apply, suppression_edit

__all__ = ["FixPlan", "change_edit", "plan_fixes", "plan_suppressions", "read_for_fix"]


@dataclass
class FixPlan:
    """The edits by file, a line per fix applied, and the fixes that were left (and why)."""

    edits: dict[str, list[Edit]] = field(default_factory=dict)
    done: list[str] = field(default_factory=list)
    done_in: list[str] = field(default_factory=list)  # the file each `done` line's fix edits
    skipped: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # as read for editing (LF, no BOM)
    kept: dict[str, Kept] = field(default_factory=dict)  # each file as read (dclint.fix.files)
    refused: set[str] = field(default_factory=set)  # files no fix may edit (said in skipped)
    hidden: int = 0  # unsafe fixes left out (no --unsafe-fixes)

    def fixed(self, name: str, line: str) -> None:
        """Note a fix planned in file `name`, said as `line` once the file is written."""
        self.done.append(line)
        self.done_in.append(name)

    def done_lines(self, written: set[str]) -> list[str]:
        """The `done` lines of the fixes in files that were written (and read back)."""
        return [line for line, name in zip(self.done, self.done_in, strict=True) if name in written]

    def new_texts(self) -> dict[str, str]:
        """Each edited file's new text (files whose edits would break the YAML left out)."""
        import tomllib

        import yaml

        out = {}
        for name, edits in self.edits.items():
            new = apply(self.texts[name], edits)
            toml = name.endswith(".toml")  # a pyproject.toml's [tool.dclint]
            try:
                tomllib.loads(new) if toml else yaml.compose(new, Loader=yaml.SafeLoader)
            except (yaml.YAMLError, tomllib.TOMLDecodeError):
                kind = "TOML" if toml else "YAML"
                self.skipped.append(f"{name}: the fixes would not leave valid {kind}; not applied")
                continue
            out[name] = new
        return out

    def diff(self) -> str:
        chunks: list[str] = []
        for name, new in sorted(self.new_texts().items()):
            chunks.extend(
                difflib.unified_diff(
                    self.texts[name].splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"a/{name}",
                    f"b/{name}",
                )
            )
        return "".join(chunks)


def read_for_fix(plan: FixPlan, name: str, checked: str | None = None) -> str | None:
    """The text of file `name` for editing (read once; dclint.fix.files), or None when no fix
    may edit it: unreadable, of mixed line endings, or (`checked`: the text the check read)
    changed since the check read it. A refusal is said once in `plan.skipped`."""
    if name in plan.refused:
        return None
    if name not in plan.texts:
        try:
            kept = files.read(name)
        except (OSError, UnicodeDecodeError):
            return None
        except files.NotKept as exc:
            plan.refused.add(name)
            plan.skipped.append(f"{name}: {exc}; its fixes were not applied")
            return None
        plan.kept[name], plan.texts[name] = kept, kept.text
    if checked is not None and not files.same_text(plan.kept[name], checked):
        plan.refused.add(name)
        plan.skipped.append(f"{name}: it changed since it was checked; its fixes were not applied")
        return None
    return plan.texts[name]


def _checked(source: Any, name: str) -> str | None:
    """The text the check read of file `name` (the design or a file it includes)."""
    if source is None:
        return None
    if name == source.file:
        return str(source.text)
    text = source.texts.get(name)
    return text if isinstance(text, str) else None


_text = read_for_fix


def _node_starting_at(text: str, line: int, column: int) -> tuple[Any, Any] | None:
    """(parent node, node) of the YAML node whose value starts at 0-based (line, column)."""
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    stack: list[tuple[Any, Any]] = [(None, root)]
    while stack:
        parent, node = stack.pop()
        if node is None:
            continue
        if node.start_mark.line == line and node.start_mark.column == column and parent is not None:
            return parent, node
        if isinstance(node, yaml.MappingNode):
            stack.extend((node, v) for _, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((node, v) for v in node.value)
    return None


def _edit_for(source: Any, change: Any, finding: Any) -> tuple[str, Edit] | str:
    """The file and edit that make `change`, or why it cannot be made."""
    if change.path is None:
        if change.column == 0:  # the whole line
            return finding.file, Edit(change.line - 1, 0, change.line, 0, "")
        return finding.file, Edit(
            change.line - 1, change.column - 1, change.line - 1, change.end - 1, change.value
        )
    path = tuple(change.path)
    values = source.values
    if path in values:
        line, column = values[path]
        name = source.files.get(path, source.file)
        return name, Edit(line - 1, column - 1, line - 1, column - 1, "\0" + change.value)
    parent = path[:-1]
    if path[-1] == "+" and parent in values:  # new items at the end of the list
        line, column = values[parent]
        name = source.files.get(parent, source.file)
        return name, Edit(line - 1, column - 1, line - 1, column - 1, "\2" + change.value)
    if parent not in values or not isinstance(path[-1], str) or path[-1] == "+":
        return f"{'.'.join(map(str, path))} is not written in the design"
    line, column = values[parent]
    name = source.files.get(parent, source.file)
    return name, Edit(line - 1, column - 1, line - 1, column - 1, f"\1{path[-1]}\0{change.value}")


def _resolve(text: str, edit: Edit) -> Edit | None:
    """Replace the markers of `_edit_for` with the node's real span (or the inserted line)."""
    found = _node_starting_at(text, edit.start_line, edit.start_char)
    if found is None:
        return None
    _, node = found
    if edit.text.startswith("\0"):
        end = node.end_mark
        return Edit(
            node.start_mark.line, node.start_mark.column, end.line, end.column, edit.text[1:]
        )
    import yaml

    if edit.text.startswith("\2"):
        return _append(text, node, edit.text[1:].split("\n"))
    key, value = edit.text[1:].split("\0", 1)

    if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
        return None
    first_key = node.value[0][0]
    indent = first_key.start_mark.column
    last_value = node.value[-1][1]
    end = last_value.end_mark
    at = end.line if end.column == 0 else end.line + 1
    lines = text.splitlines(keepends=True)
    while at > first_key.start_mark.line + 1 and not lines[at - 1].strip():
        at -= 1  # above the blank lines that end the mapping, not below them
    prefix = "\n" if at >= len(lines) and lines and not lines[-1].endswith("\n") else ""
    return Edit(at, 0, at, 0, f"{prefix}{' ' * indent}{key}: {value}\n")


def _append(text: str, node: Any, items: list[str]) -> Edit | None:
    """Add `items` (flow-style YAML, one line each) at the end of sequence `node`: a line
    `- item` each below the last item of a block sequence, at its dash's column; `, item`
    before the `]` of a flow one."""
    import yaml

    if not isinstance(node, yaml.SequenceNode):
        return None
    if node.flow_style:
        end = node.end_mark  # just past the closing bracket
        joined = (", " if node.value else "") + ", ".join(items)
        return Edit(end.line, end.column - 1, end.line, end.column - 1, joined)
    if not node.value:
        return None
    leaf = node.value[-1]  # the last item's last value written inline (a block's end mark
    while isinstance(leaf, (yaml.MappingNode, yaml.SequenceNode)) and not leaf.flow_style:
        if not leaf.value:  # lies past the comments that follow it)
            break
        last = leaf.value[-1]
        leaf = last[1] if isinstance(leaf, yaml.MappingNode) else last
    end = leaf.end_mark
    at = end.line if end.column == 0 else end.line + 1
    lines = text.splitlines(keepends=True)
    prefix = "\n" if at >= len(lines) and lines and not lines[-1].endswith("\n") else ""
    dash = " " * node.start_mark.column
    return Edit(at, 0, at, 0, prefix + "".join(f"{dash}- {item}\n" for item in items))


def change_edit(source: Any, finding: Any, change: Any, text_of: Any) -> tuple[str, Edit] | str:
    """The file and edit that make one fix (`change`, offered by `finding`) in the text
    `text_of(file)` gives (an editor's unsaved buffer), or why it cannot be made."""
    got = _edit_for(source, change, finding)
    if isinstance(got, str):
        return got
    name, edit = got
    if edit.text[:1] in ("\0", "\1", "\2"):
        text = text_of(name)
        resolved = None if text is None else _resolve(text, edit)
        if resolved is None:
            return "cannot edit that value"
        edit = resolved
    return name, edit


def plan_fixes(result: Any, *, unsafe: bool = False, fix_includes: bool = False) -> FixPlan:
    """The edits every finding's fixes make (safe ones; unsafe too with `unsafe`)."""
    plan = FixPlan()
    taken: set[tuple[str, int, int, str]] = set()
    claimed: dict[str, list[tuple[Edit, str]]] = {}  # each file's replacements, by whose fix
    hidden: set[int] = set()
    for d in result.designs:
        design = d.design
        if design is None or design.source is None:
            continue
        source = design.source
        for f in d.findings:
            for change in f.changes:
                if not change.safe and not unsafe:
                    if id(f) not in hidden:  # a fix a finding, however many edits it makes
                        hidden.add(id(f))
                        plan.hidden += 1
                    continue
                got = _edit_for(source, change, f)
                if isinstance(got, str):
                    plan.skipped.append(f"{f.file}:{f.line}: {f.rule}: {got}")
                    continue
                name, edit = got
                if not _same_file(name, d.file) and not fix_includes:
                    plan.skipped.append(
                        f"{f.file}:{f.line}: {f.rule}: the value is written in {name} "
                        "(an included file): fix it there, or run with --fix-includes"
                    )
                    continue
                text = _text(plan, name, _checked(source, name))
                if text is None:
                    continue
                if edit.text[:1] in ("\0", "\1", "\2"):
                    resolved = _resolve(text, edit)
                    if resolved is None:
                        plan.skipped.append(f"{f.file}:{f.line}: {f.rule}: cannot edit that value")
                        continue
                    edit = resolved
                spot: tuple[str, int, int, str] = (name, edit.start_line, edit.start_char, "")
                insertion = (edit.start_line, edit.start_char) == (edit.end_line, edit.end_char)
                if insertion:  # insertions at one place all go in, in the findings' order
                    spot = (*spot[:3], edit.text)
                if spot in taken and _same(claimed.get(name, []), edit):
                    continue  # one range entry fixed once for all of its racks
                other = _collision(claimed.get(name, []), edit)
                if other is not None:  # two fixes of one text: the first stays, said so
                    plan.skipped.append(
                        f"{f.file}:{f.line}: {f.rule}: it would rewrite the text {other}'s fix "
                        f"rewrites (line {edit.start_line + 1}); run --fix again"
                    )
                    continue
                taken.add(spot)
                if not insertion:
                    claimed.setdefault(name, []).append((edit, f.rule))
                edits = plan.edits.setdefault(name, [])
                here = _span(edit)
                at = next((i for i, e in enumerate(edits) if insertion and _span(e) == here), -1)
                if at < 0:
                    edits.append(edit)
                else:
                    edits[at] = Edit(*here, edits[at].text + edit.text)
                plan.fixed(name, f"{f.file}:{f.line}: {f.rule} fixed: {change.summary}")
    return plan


def plan_suppressions(result: Any, reason: str, *, fix_includes: bool = False) -> FixPlan:
    """A reasoned suppression for every current finding (DCL findings and load errors left)."""
    plan = FixPlan()
    by_line: dict[tuple[str, int], list[str]] = {}
    checked: dict[str, str | None] = {}  # each file's text as the check read it
    for d in result.designs:
        source = getattr(d.design, "source", None)
        for f in d.findings:
            if f.rule.startswith("DCL") or "rule-failure" in f.tags:
                continue
            if not _same_file(f.file, d.file) and not fix_includes:
                plan.skipped.append(
                    f"{f.file}:{f.line}: {f.rule}: in an included file (--fix-includes)"
                )
                continue
            checked.setdefault(f.file, _checked(source, f.file))
            rules = by_line.setdefault((f.file, f.line), [])
            if f.rule not in rules:
                rules.append(f.rule)
    new: dict[str, str] = {}
    for (name, line), rules in sorted(by_line.items()):
        if name not in new:
            text = _text(plan, name, checked.get(name))
            if text is None:
                continue
            new[name] = text
        for rule in rules:  # one comment a line, naming each rule found there
            new[name] = apply(new[name], [suppression_edit(new[name], line - 1, rule, reason)])
            plan.fixed(name, f"{name}:{line}: {rule} suppressed: {reason}")
    for name, text in new.items():  # one whole-file edit each, against the text on disk
        old = plan.texts[name]
        plan.edits[name] = [Edit(0, 0, len(old.splitlines(keepends=True)) + 1, 0, text)]
    return plan


def _same(claimed: list[tuple[Edit, str]], edit: Edit) -> bool:
    """Whether `edit` is a replacement already claimed (the same span, the same text): an
    insertion, or a second finding's copy of one fix."""
    starts = (edit.start_line, edit.start_char) == (edit.end_line, edit.end_char)
    return starts or any(e == edit for e, _ in claimed)


def _collision(claimed: list[tuple[Edit, str]], edit: Edit) -> str | None:
    """The rule whose claimed replacement `edit` overlaps (a different edit of the same text,
    or an insertion inside it), or None."""
    start, end = (edit.start_line, edit.start_char), (edit.end_line, edit.end_char)
    for e, rule in claimed:
        first, last = (e.start_line, e.start_char), (e.end_line, e.end_char)
        if e == edit:
            continue
        if start == end:  # an insertion: inside a replaced span, not at its edges
            if first < start < last:
                return rule
        elif start < last and first < end:
            return rule
    return None


def _span(e: Edit) -> tuple[int, int, int, int]:
    return (e.start_line, e.start_char, e.end_line, e.end_char)


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return a == b
