"""Policy files: read, checked and compiled, each problem at the policy file's line and column.

A policy file is YAML holding `policies:`, a list of policies. Each policy has `id` (a team's
own family of capital letters and three digits, `ACME001`; no built-in family, no id of another
rule), `name` (kebab-case), `severity`, `for` (an element kind, dclint.policy.elements.KINDS),
optional `where` (which elements), `require` (what each must satisfy), and `message`, `doc`,
`fix`, `examples`. Conditions are data, never code: a field path (`it_load`,
`feeds.panel.path`), an aggregate (`count(feeds)`, `distinct(feeds.panel.path)`,
`sum(racks.it_load) where hall == B`) and bounds (`min`, `max`, `in`, `equals`, `present`,
`absent`), combined with `all`, `any` and `not`. Every field and value is typed against the
kinds' fields when the file is read: an unknown kind or field is an error with "did you mean",
a power compared with a length is an error at the value, a unit dclint cannot read is the
error a design gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dclint.errors import ConfigError, Problem
from dclint.model.source import Path, Source
from dclint.policy.elements import KINDS, FieldType, section_fields

__all__ = [
    "AllOf",
    "AnyOf",
    "Bound",
    "Not",
    "Policy",
    "Ref",
    "Test",
    "read_policies",
]

MAX_POLICY_BYTES = 1024 * 1024  # a policy file larger than this is refused
MAX_POLICIES = 1000  # policies in one file
MAX_DEPTH = 16  # all/any/not nested deeper is refused
MAX_IN = 256  # values of one `in` list
SEVERITIES = ("error", "warning", "info")
POLICY_KEYS = (
    "id",
    "name",
    "severity",
    "for",
    "where",
    "require",
    "message",
    "doc",
    "fix",
    "examples",
    "tags",
)
OPS = ("min", "max", "in", "equals", "not_equals")
WORDS = ("present", "absent")
COMBINATORS = ("all", "any", "not")
AGGREGATES = ("count", "distinct", "sum", "min", "max")
_ID = re.compile(r"^([A-Z]{2,5})(\d{3})$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FIELD = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_AGG = re.compile(r"^\s*(\w+)\(\s*([^()]*?)\s*\)\s*(?:where\s+(.+?))?\s*$")
_CLAUSE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)\}")
_RATIO = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*:\s*(\d+(?:\.\d*)?)\s*$")
_CLAUSE_OPS = {
    "==": "equals",
    "!=": "not_equals",
    "<=": "max",
    ">=": "min",
    "<": "below",
    ">": "above",
}


@dataclass(frozen=True)
class Amount:
    """A quantity a policy compares with: its magnitude in the unit the policy wrote."""

    magnitude: float
    unit: str  # as dclint.units.unit_text writes it: a string converts fast (dclint._fastq)

    def quantity(self) -> Any:
        from dclint.units import Q_

        return Q_(self.magnitude, self.unit)


@dataclass(frozen=True)
class Ref:
    """A field path from an element: `it_load`, `feeds.panel.path`, `checkpoint.interval`."""

    text: str
    steps: tuple[str, ...]
    kinds: tuple[str, ...]  # the element kind (or "" in a section) each step is read from
    type: FieldType  # of the last step
    many: bool  # passes through a list of elements: several values
    split: int  # index of the first step giving a list of elements (-1: none)
    # how each step is read (element, context) -> value, and whether it gives a list of
    # elements: looked up once here, not at each element judged
    readers: tuple[Any, ...] = field(default=(), compare=False)
    lists: tuple[bool, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Aggregate:
    fn: str
    ref: Ref
    where: Any  # a condition on the elements of the ref's first list (None: every one)
    type: FieldType  # of the result
    text: str


@dataclass(frozen=True)
class Bound:
    op: str  # min, max, below, above, in, equals, not_equals, present, absent
    value: Any  # a float (in the term's unit), text, bool, or a tuple of them for `in`
    shown: str  # as the policy wrote it
    line: int
    column: int


@dataclass(frozen=True)
class Test:
    term: Ref | Aggregate
    bounds: tuple[Bound, ...]
    line: int
    column: int


@dataclass(frozen=True)
class AllOf:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class AnyOf:
    items: tuple[Any, ...]
    line: int
    column: int


@dataclass(frozen=True)
class Not:
    item: Any
    line: int
    column: int


@dataclass(frozen=True)
class Example:
    outcome: str  # "pass" or "fail"
    index: int
    data: Any  # an inline design mapping, or None
    path: str | None  # a design file (resolved), or None
    line: int
    column: int

    @property
    def label(self) -> str:
        return f"{self.outcome}[{self.index}]"


@dataclass(frozen=True)
class Policy:
    id: str
    name: str
    severity: str
    kind: str
    where: Any
    require: Any
    message: str
    doc: str
    fix: str
    tags: tuple[str, ...]
    file: str
    line: int
    column: int
    examples: tuple[Example, ...] = ()
    placeholders: dict[str, Ref] = field(default_factory=dict, compare=False)

    @property
    def where_text(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class _Reader:
    """Reads one file's policies, collecting every problem at its line and column."""

    def __init__(
        self, file: str, source: Source, taken: dict[str, str], families: dict[str, str]
    ) -> None:
        self.file, self.source, self.taken, self.families = file, source, taken, families
        self.problems: list[Problem] = []

    def at(self, path: Path, key: bool = False) -> tuple[int, int]:
        pos = self.source.locate(path, key=key)
        return pos.line, pos.column

    def problem(self, path: Path, message: str, key: bool = False) -> None:
        line, col = self.at(path, key)
        self.problems.append(Problem(self.file, line, col, message))

    # -- the file and each policy ----------------------------------------------------------

    def read(self, data: Any) -> list[Policy]:
        if not isinstance(data, dict) or "policies" not in data:
            self.problem((), "a policy file is a mapping with `policies:`, a list of policies")
            return []
        for key in data:
            if key != "policies":
                self.problem((key,), f"unknown key '{key}' (a policy file holds `policies:`)", True)
        items = data["policies"]
        if not isinstance(items, list) or not items:
            self.problem(("policies",), "`policies` must be a non-empty list of policies")
            return []
        if len(items) > MAX_POLICIES:
            self.problem(("policies",), f"more than {MAX_POLICIES} policies in one file")
            return []
        out = []
        for i, item in enumerate(items):
            policy = self.policy(("policies", i), item)
            if policy is not None:
                out.append(policy)
        return out

    def policy(self, path: Path, item: Any) -> Policy | None:
        if not isinstance(item, dict):
            self.problem(path, "a policy is a mapping (id, name, for, require, ...)")
            return None
        before = len(self.problems)
        for key in item:
            if key not in POLICY_KEYS:
                from dclint.model.hints import did_you_mean

                hint = did_you_mean(str(key), POLICY_KEYS)
                self.problem((*path, key), f"unknown policy key '{key}'{hint}", True)
        for key in ("id", "name", "for", "require"):
            if key not in item:
                self.problem(path, f"policy is missing `{key}`")
        if len(self.problems) > before:
            return None
        pid = self.policy_id((*path, "id"), item["id"])
        name = self.text((*path, "name"), item["name"], "name")
        if name and not _NAME.match(name):
            self.problem(
                (*path, "name"), f"name '{name}' must be kebab-case, e.g. hall-b-rack-power"
            )
        severity = item.get("severity", "error")
        if severity not in SEVERITIES:
            self.problem((*path, "severity"), f"severity must be one of {', '.join(SEVERITIES)}")
        kind = self.kind((*path, "for"), item["for"])
        texts = {k: self.text((*path, k), item.get(k, ""), k) for k in ("message", "doc", "fix")}
        tags = item.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            self.problem((*path, "tags"), "tags must be a list of words")
            tags = []
        if kind is None or pid is None:
            return None
        where = None
        if "where" in item:
            where = self.condition((*path, "where"), item["where"], kind, 0)
        require = self.condition((*path, "require"), item["require"], kind, 0)
        placeholders = self.placeholders((*path, "message"), texts["message"], kind)
        examples = self.examples((*path, "examples"), item.get("examples"))
        if len(self.problems) > before:
            return None
        line, col = self.at((*path, "id"))
        return Policy(
            pid,
            name,
            severity,
            kind,
            where,
            require,
            texts["message"],
            texts["doc"],
            texts["fix"],
            ("policy", *tags),
            self.file,
            line,
            col,
            examples,
            placeholders,
        )

    def policy_id(self, path: Path, value: Any) -> str | None:
        if not isinstance(value, str) or not _ID.match(value):
            self.problem(
                path,
                f"policy id {value!r} must be your team's family of 2 to 5 "
                "capital letters and three digits, e.g. ACME001",
            )
            return None
        family = _ID.match(value).group(1)  # type: ignore[union-attr]
        if family in self.families:
            self.problem(
                path,
                f"policy id {value}: the family {family} is {self.families[family]}"
                "; give your policies a family of your own, e.g. ACME001",
            )
            return None
        if value in self.taken:
            self.problem(path, f"policy id {value} is taken: {self.taken[value]}")
            return None
        line, col = self.at(path)
        self.taken[value] = f"by the policy at {self.file}:{line}:{col}"
        return value

    def text(self, path: Path, value: Any, key: str) -> str:
        if not isinstance(value, str) or len(value) > 10_000:
            self.problem(path, f"`{key}` must be text (10,000 characters at most)")
            return ""
        return value

    def kind(self, path: Path, value: Any) -> str | None:
        if isinstance(value, str) and value in KINDS:
            return value
        plural = {k.singular: k.name for k in KINDS.values()}
        if isinstance(value, str) and value in plural:
            return plural[value]
        from dclint.model.hints import did_you_mean

        hint = did_you_mean(str(value), KINDS) if isinstance(value, str) else ""
        self.problem(path, f"unknown element kind '{value}'{hint} (kinds: {', '.join(KINDS)})")
        return None

    # -- conditions --------------------------------------------------------------------------

    def condition(self, path: Path, value: Any, kind: str, depth: int) -> Any:
        """A mapping of terms to bounds (all must hold), a list of such (all), or
        `all`/`any`/`not` blocks."""
        if depth > MAX_DEPTH:
            self.problem(path, f"conditions nested deeper than {MAX_DEPTH} levels")
            return AllOf(())
        if isinstance(value, list) and not value:
            self.problem(path, "an empty list of conditions: write at least one")
            return AllOf(())
        if isinstance(value, list):
            return AllOf(
                tuple(self.condition((*path, i), v, kind, depth + 1) for i, v in enumerate(value))
            )
        if not isinstance(value, dict) or not value:
            self.problem(
                path, "expected a mapping of fields to conditions, e.g. `it_load: {max: 60 kW}`"
            )
            return AllOf(())
        items: list[Any] = []
        for key, spec in value.items():
            at = (*path, key)
            if key in ("all", "any"):
                if not isinstance(spec, list) or not spec:
                    self.problem(at, f"`{key}` takes a list of conditions")
                    continue
                parts = tuple(
                    self.condition((*at, i), v, kind, depth + 1) for i, v in enumerate(spec)
                )
                line, col = self.at(at, True)
                items.append(AllOf(parts) if key == "all" else AnyOf(parts, line, col))
            elif key == "not":
                line, col = self.at(at, True)
                items.append(Not(self.condition(at, spec, kind, depth + 1), line, col))
            else:
                test = self.test(at, str(key), spec, kind)
                if test is not None:
                    items.append(test)
        return items[0] if len(items) == 1 else AllOf(tuple(items))

    def test(self, path: Path, key: str, spec: Any, kind: str) -> Test | None:
        term = self.term(path, key, kind)
        if term is None:
            return None
        line, col = self.at(path, True)
        bounds = self.bounds(path, spec, term.type, term.text if isinstance(term, Ref) else key)
        if not bounds:
            return None
        if isinstance(term, Aggregate) and any(b.op in WORDS for b in bounds):
            self.problem(path, f"{key} always has a value: present and absent apply to fields")
            return None
        return Test(term, tuple(bounds), line, col)

    def term(self, path: Path, key: str, kind: str) -> Ref | Aggregate | None:
        match = _AGG.match(key)
        if match:
            return self.aggregate(path, match, kind, key)
        return self.ref(path, key, kind)

    def aggregate(self, path: Path, match: re.Match[str], kind: str, key: str) -> Aggregate | None:
        fn, inner, clauses = match.group(1), match.group(2), match.group(3)
        if fn not in AGGREGATES:
            from dclint.model.hints import did_you_mean

            hint = did_you_mean(fn, AGGREGATES)
            self.problem(
                path, f"unknown function '{fn}'{hint} (functions: {', '.join(AGGREGATES)})", True
            )
            return None
        ref = self.ref(path, inner, kind)
        if ref is None:
            return None
        if ref.split < 0:
            self.problem(
                path,
                f"{fn}() takes a list, such as racks or feeds.panel: "
                f"'{inner}' is {ref.type.describe()}",
                True,
            )
            return None
        if fn in ("sum", "min", "max") and ref.type.kind not in ("quantity", "number", "ratio"):
            self.problem(
                path,
                f"{fn}() adds up numbers or quantities: '{inner}' is {ref.type.describe()}",
                True,
            )
            return None
        where = None
        if clauses:
            target = ref.kinds[ref.split + 1] if ref.split + 1 < len(ref.kinds) else ref.type.target
            where = self.clauses(path, clauses, target)
        result = ref.type if fn in ("sum", "min", "max") else FieldType("number")
        return Aggregate(fn, ref, where, result, key)

    def clauses(self, path: Path, text: str, kind: str) -> Any:
        """`hall == B and status != planned`: each a field of the listed elements."""
        tests = []
        for part in re.split(r"\s+and\s+", text.strip()):
            match = _CLAUSE.match(part)
            if not match:
                self.problem(
                    path,
                    f"cannot read the condition '{part}': write `field == value` "
                    "(==, !=, <, <=, >, >=), clauses joined by `and`",
                    True,
                )
                continue
            name, op, raw = match.groups()
            ref = self.ref(path, name, kind)
            if ref is None:
                continue
            value = _scalar(raw.strip())
            bound = self.bound(path, _CLAUSE_OPS[op], value, ref.type, name, True)
            if bound is not None:
                line, col = self.at(path, True)
                tests.append(Test(ref, (bound,), line, col))
        return tests[0] if len(tests) == 1 else AllOf(tuple(tests))

    def ref(self, path: Path, text: str, kind: str) -> Ref | None:
        if not _FIELD.match(text or ""):
            self.problem(
                path,
                f"'{text}' is not a field: write a field name, a dotted path "
                "(feeds.panel.path) or an aggregate (count(feeds))",
                True,
            )
            return None
        steps = text.split(".")
        if (
            steps[0] == KINDS[kind].singular
            and steps[0] not in KINDS[kind].fields
            and len(steps) > 1
        ):
            steps = steps[1:]  # `workload.checkpoint` on a workload
        kinds: list[str] = []
        current_kind: str = kind
        section: Any = None
        ftype = FieldType("element", target=kind)
        many, split = False, -1
        for i, step in enumerate(steps):
            if section is not None:
                table = section_fields(section)
                known: Any = table
                found = table.get(step)
                ftype = found[0] if found else ftype
                kinds.append("")
            else:
                fields = KINDS[current_kind].fields
                known = fields
                spec = fields.get(step)
                found = (spec.type, spec.doc) if spec else None
                kinds.append(current_kind)
                if spec is not None:
                    ftype = spec.type
            if found is None:
                from dclint.model.hints import did_you_mean

                where = (
                    f"{KINDS[current_kind].singular}"
                    if section is None
                    else f"{'.'.join(steps[:i])}"
                )
                hint = did_you_mean(step, known)
                self.problem(
                    path,
                    f"unknown field '{step}' of {where}{hint} (fields: {', '.join(sorted(known))})",
                    True,
                )
                return None
            if i < len(steps) - 1:
                if ftype.kind in ("element", "elements"):
                    if ftype.kind == "elements" and split < 0:
                        split = i
                    many = many or ftype.kind == "elements"
                    current_kind, section = ftype.target, None
                elif ftype.kind == "section":
                    section = ftype.section
                else:
                    self.problem(
                        path,
                        f"'{'.'.join(steps[: i + 1])}' is {ftype.describe()}: it "
                        f"has no field '{steps[i + 1]}'",
                        True,
                    )
                    return None
            elif ftype.kind == "elements" and split < 0:
                split = i
        readers, lists = [], []
        for step, on in zip(steps, kinds, strict=True):
            spec = KINDS[on].fields[step] if on else None
            readers.append(spec.get if spec is not None else _attribute(step))
            lists.append(spec is not None and spec.type.kind == "elements")
        return Ref(
            text, tuple(steps), tuple(kinds), ftype, many, split, tuple(readers), tuple(lists)
        )

    # -- bounds ---------------------------------------------------------------------------------

    def bounds(self, path: Path, spec: Any, ftype: FieldType, name: str) -> list[Bound]:
        if isinstance(spec, str) and spec in WORDS:
            line, col = self.at(path)
            return [Bound(spec, None, spec, line, col)]
        if not isinstance(spec, dict):
            if isinstance(spec, (str, int, float, bool)):  # `hall: B` means equals
                bound = self.bound(path, "equals", spec, ftype, name)
                return [] if bound is None else [bound]
            self.problem(
                path,
                f"expected bounds for {name}: a mapping of {', '.join(OPS)}, a "
                "value, or present / absent",
            )
            return []
        out = []
        for op, value in spec.items():
            if op not in OPS:
                from dclint.model.hints import did_you_mean

                hint = did_you_mean(str(op), OPS)
                self.problem(
                    (*path, op),
                    f"unknown bound '{op}'{hint} (bounds: "
                    f"{', '.join(OPS)}; or write present / absent)",
                    True,
                )
                continue
            bound = self.bound((*path, op), op, value, ftype, name)
            if bound is not None:
                out.append(bound)
        return out

    def bound(
        self, path: Path, op: str, value: Any, ftype: FieldType, name: str, key: bool = False
    ) -> Bound | None:
        line, col = self.at(path, key)
        before = len(self.problems)
        if op == "in":
            if not isinstance(value, list) or not value or len(value) > MAX_IN:
                self.problem(path, f"`in` takes a list of 1 to {MAX_IN} values", key)
                return None
            values = tuple(
                self.typed(path if key else (*path, i), v, ftype, name, op, key)
                for i, v in enumerate(value)
            )
            shown = ", ".join(str(v) for v in value)
            return None if len(self.problems) > before else Bound(op, values, shown, line, col)
        if op in ("min", "max", "below", "above") and ftype.kind not in (
            "quantity",
            "number",
            "ratio",
        ):
            self.problem(
                path,
                f"{name} is {ftype.describe()}: `{op}` compares numbers and "
                "quantities; use equals or in",
                key,
            )
            return None
        typed = self.typed(path, value, ftype, name, op, key)
        shown = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return None if len(self.problems) > before else Bound(op, typed, shown, line, col)

    def typed(self, path: Path, value: Any, ftype: FieldType, name: str, op: str, key: bool) -> Any:
        """`value` as the comparison reads it: a float in the field's unit, text, a flag."""
        kind = ftype.kind
        if kind == "quantity":
            return self.quantity(path, value, ftype, name, key)
        if kind == "ratio":
            if isinstance(value, str) and (m := _RATIO.match(value)) and float(m.group(2)) > 0:
                return float(m.group(1)) / float(m.group(2))
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            self.problem(
                path, f"{name} is a ratio: write it as '2:1' or a number, got {value!r}", key
            )
            return None
        if kind == "number":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                if ftype.choices and value not in ftype.choices:
                    self.problem(
                        path,
                        f"{name} is one of {', '.join(map(str, ftype.choices))}, got {value!r}",
                        key,
                    )
                return float(value)
            hint = ""
            if isinstance(value, str):
                try:
                    from dclint.units import parse_quantity

                    q = parse_quantity(value)
                    if not q.dimensionless:
                        hint = f": '{value}' is a quantity with a unit, {name} is a plain count"
                except ValueError:
                    pass
            self.problem(path, f"{name} is a number, got {value!r}{hint}", key)
            return None
        if kind == "bool":
            if isinstance(value, bool):
                return value
            self.problem(path, f"{name} is true or false, got {value!r}", key)
            return None
        if kind in ("text", "element", "any"):
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                self.problem(path, f"{name} is {ftype.describe()}: compare it with text", key)
                return None
            text = str(value)
            if ftype.choices and text not in ftype.choices:
                from dclint.model.hints import did_you_mean

                hint = did_you_mean(text, map(str, ftype.choices))
                self.problem(
                    path,
                    f"{name} is one of {', '.join(map(str, ftype.choices))}, got '{text}'{hint}",
                    key,
                )
            return text
        self.problem(
            path,
            f"{name} is {ftype.describe()}: it takes present or absent, or an "
            f"aggregate such as count({name})",
            key,
        )
        return None

    def quantity(self, path: Path, value: Any, ftype: FieldType, name: str, key: bool) -> Any:
        from dclint.units import QuantityError, dimension_of, parse_quantity, unit_text

        dim = ftype.dim
        what = dim.kind if dim is not None else "share"
        example = dim.example if dim is not None else "40%"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if dim is None:
                return float(value)
            self.problem(
                path,
                f"{what} needs a unit: write '{value} "
                f"{example.split(' ', 1)[1]}' or similar (e.g. '{example}')",
                key,
            )
            return None
        if not isinstance(value, str):
            self.problem(path, f"expected {what} as a string with a unit, e.g. '{example}'", key)
            return None
        try:
            q = parse_quantity(value)
        except QuantityError as exc:  # the error a design gets for the same text
            self.problem(path, f"{exc}; expected {what}, e.g. '{example}'", key)
            return None
        unit = ftype.unit
        if dim is None:
            if not q.dimensionless:
                self.problem(
                    path,
                    f"{name} is a share (e.g. 40% or 0.4); '{value}' is {_dimension_name(q)}",
                    key,
                )
                return None
            return float(q.m_as(""))
        if getattr(dim, "currency", False):
            wanted = dimension_of(unit)
            if q.dimensionality != wanted:
                self.problem(
                    path,
                    f"{name} is {what} (e.g. '{example}'); '{value}' is "
                    f"{_dimension_name(q)}: they cannot be compared",
                    key,
                )
                return None
            return Amount(float(q.magnitude), unit_text(q.units))
        if q.dimensionality != dimension_of(unit):
            alternative = _alternative_unit(dim, q)
            if alternative is None:
                self.problem(
                    path,
                    f"{name} is a {what} field (e.g. '{example}'); '{value}' is "
                    f"{_dimension_name(q)}: they cannot be compared",
                    key,
                )
                return None
        return Amount(float(q.magnitude), unit_text(q.units))  # in the unit the policy wrote

    def placeholders(self, path: Path, message: str, kind: str) -> dict[str, Ref]:
        out = {}
        for name in _PLACEHOLDER.findall(message):
            if name in ("value", "limit", "field", "kind"):
                continue
            ref = self.ref(path, name, kind)
            if ref is not None:
                out[name] = ref
        return out

    def examples(self, path: Path, value: Any) -> tuple[Example, ...]:
        if value is None:
            return ()
        if not isinstance(value, dict) or set(value) - {"pass", "fail"}:
            self.problem(
                path,
                "examples is a mapping of `pass` and `fail`, each a list of "
                "design snippets or design files",
            )
            return ()
        out = []
        for outcome in ("pass", "fail"):
            items = value.get(outcome, [])
            if not isinstance(items, list):
                self.problem((*path, outcome), f"examples.{outcome} must be a list")
                continue
            for i, item in enumerate(items):
                line, col = self.at((*path, outcome, i))
                if isinstance(item, dict):
                    out.append(Example(outcome, i, item, None, line, col))
                elif isinstance(item, str) and item.strip():
                    out.append(Example(outcome, i, None, item, line, col))
                else:
                    self.problem(
                        (*path, outcome, i),
                        "an example is a design snippet (a mapping) or the path of a design file",
                    )
        return tuple(out)


def _attribute(name: str) -> Any:
    """A reader of a nested section's field (a workload's `checkpoint.interval`)."""
    return lambda x, ctx: getattr(x, name, None)


def _alternative_unit(dim: Any, q: Any) -> str | None:
    """A rating field that takes power or apparent power (`1.5 MW` or `2500 kVA`): the unit
    the value is compared in where it is apparent power."""
    from dclint.units import dimension_of

    if dim.kind == "power or apparent power" and q.dimensionality == dimension_of("kVA"):
        return "kVA"
    return None


_DIMENSIONS = (
    ("kW", "a power"),
    ("m", "a length"),
    ("V", "a voltage"),
    ("A", "a current"),
    ("kWh", "an energy"),
    ("L/min", "a volume flow"),
    ("s", "a duration"),
    ("B", "a data size"),
    ("Gb/s", "a bandwidth"),
    ("kg", "a mass"),
    ("m^2", "an area"),
    ("kg/m^2", "a floor load"),
    ("K", "a temperature"),
    ("TFLOPS", "a compute rate"),
    ("kVA", "an apparent power"),
)


def _dimension_name(q: Any) -> str:
    from dclint.units import dimension_of

    if q.dimensionless:
        return "a plain number"
    for unit, name in _DIMENSIONS:
        try:
            if q.dimensionality == dimension_of(unit):
                return name
        except Exception:
            continue
    return f"in {q.units}"


def _scalar(text: str) -> Any:
    """A value written in a `where` clause: quoted text, a number, true/false, or text."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_policies(
    file: str,
    text: str,
    taken: dict[str, str] | None = None,
    families: dict[str, str] | None = None,
) -> list[Policy]:
    """The policies of one file's text; ConfigError carrying every problem, each located.
    `taken` maps ids already used (another policy's, a rule's) to who uses them, `families`
    the rule families a policy may not take (PWR: dclint's) to whose they are."""
    from dclint.loader.yamlsafe import EmptyDocument, YamlError, read_yaml

    try:
        data, source = read_yaml(file, text)
    except EmptyDocument:
        raise ConfigError(f"{file}:1:1: empty policy file: it holds no `policies:`") from None
    except YamlError as exc:
        raise ConfigError(str(exc.problems[0]), exc.problems) from None
    source.values  # noqa: B018 - every position in one pass (each locate would re-read the text)
    reader = _Reader(file, source, {} if taken is None else taken, families or {})
    policies = reader.read(data)
    if reader.problems:
        problems = sorted(reader.problems)
        raise ConfigError(str(problems[0]), problems)
    return policies
