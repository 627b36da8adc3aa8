"""Judge a design's elements against a compiled policy (dclint.policy.format).

Nothing here evaluates text as code: a policy is a tree of tests read once, and judging it walks
the design's elements (dclint.policy.elements) a bounded number of times: each test reads one
field path from each element, and an aggregate walks the lists it names once. A value a design
does not declare satisfies every bound but `present` (write `present` to require it); in a
`where` filter it matches nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dclint.engine.rule import Violation
from dclint.model.source import Path
from dclint.policy.elements import KINDS, Context, Element, FieldType
from dclint.policy.format import (
    Aggregate,
    AllOf,
    Amount,
    AnyOf,
    Bound,
    Not,
    Policy,
    Ref,
    Test,
)

__all__ = ["Failure", "judge"]

_REL = 1e-9  # relative tolerance of comparisons: 60 kW read as 60.000000001 kW is 60 kW


@dataclass(frozen=True)
class Failure:
    """Why an element fails: the test and bound that did not hold and the value measured."""

    test: Test | None
    bound: Bound | None
    measured: Any
    text: str  # the words of a block that failed as a whole (any, not)
    path: Path


def judge(policy: Policy, ctx: Context) -> Iterator[Violation]:
    """A violation for each element of the policy's kind that its `where` selects and its
    `require` rejects."""
    singular = KINDS[policy.kind].singular
    for element in ctx.of(policy.kind):
        if policy.where is not None and holds(policy.where, element, ctx) is not True:
            continue
        failed = failure(policy.require, element, ctx)
        if failed is not None:
            yield _violation(policy, singular, element, failed, ctx)


# ---------------------------------------------------------------------------------------------
# Reading terms


def values(element: Element, ref: Ref, ctx: Context, where: Any = None) -> list[Any]:
    """Every value `ref` reaches from `element` (lists of elements flattened, absent values
    dropped); `where` keeps only the elements of its first list that satisfy it."""
    current: list[Any] = [element]
    split = ref.split
    for i, (read, is_list) in enumerate(zip(ref.readers, ref.lists, strict=True)):
        found: list[Any] = []
        for x in current:
            value = read(x, ctx)
            if value is None:
                continue
            if is_list and isinstance(value, list):
                found.extend(v for v in value if v is not None)
            else:
                found.append(value)
        if i == split and where is not None:
            found = [x for x in found if holds(where, x, ctx) is True]
        current = found
    return current


def measure(term: Ref | Aggregate, element: Element, ctx: Context) -> Any:
    """A Ref's value (a list where it passes through a list of elements), an aggregate's."""
    if type(term) is Ref:
        if term.many:
            return values(element, term, ctx)
        value: Any = element
        for read in term.readers:
            value = read(value, ctx)
            if value is None:
                return None
        return value
    assert isinstance(term, Aggregate)
    found = values(element, term.ref, ctx, term.where)
    if term.fn == "count":
        return len(found)
    if term.fn == "distinct":
        return len({_key(v) for v in found})
    return _total(term.fn, found, term.type)


def _key(value: Any) -> Any:
    if isinstance(value, Element):
        return (value.kind, value.id)
    if hasattr(value, "to_base_units"):
        return round(float(value.to_base_units().magnitude), 9)
    return value


def _total(fn: str, found: list[Any], ftype: FieldType) -> Any:
    if ftype.kind == "quantity" and ftype.dim is not None:
        from dclint.units import Q_

        unit = ftype.unit
        numbers = []
        for v in found:
            try:
                numbers.append(float(v.m_as(unit)))
            except Exception:
                continue
        if fn == "sum":
            return Q_(math.fsum(numbers), unit)
        return Q_((min if fn == "min" else max)(numbers), unit) if numbers else None
    read = [_number(v) for v in found]
    numbers = [n for n in read if n is not None]
    if fn == "sum":
        return math.fsum(numbers)
    return (min if fn == "min" else max)(numbers) if numbers else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if hasattr(value, "m_as"):
        try:
            return float(value.m_as(""))
        except Exception:
            return None
    return None


# ---------------------------------------------------------------------------------------------
# Judging


def bound_holds(bound: Bound, value: Any, ftype: FieldType) -> bool | None:
    """Whether `value` satisfies `bound`; None where the value is absent or not comparable."""
    if bound.op in ("present", "absent"):
        there = value is not None and not (isinstance(value, (list, tuple, dict)) and not value)
        return there if bound.op == "present" else not there
    if value is None:
        return None
    if bound.op == "in":
        results = [_compare("equals", _comparable(value, b, ftype), b) for b in bound.value]
        if any(r is True for r in results):
            return True
        return None if all(r is None for r in results) else False
    return _compare(bound.op, _comparable(value, bound.value, ftype), bound.value)


def _comparable(value: Any, limit: Any, ftype: FieldType) -> Any:
    if isinstance(limit, Amount):  # compared in the unit the policy wrote
        try:
            return float(value.m_as(limit.unit))
        except Exception:
            return None
    if isinstance(limit, bool):
        return value if isinstance(value, bool) else None
    if isinstance(limit, float):
        return _number(value)
    if isinstance(value, Element):
        return value.id
    return str(value)


def _compare(op: str, value: Any, limit: Any) -> bool | None:
    if value is None:
        return None
    if isinstance(limit, Amount):
        limit = limit.magnitude
    if isinstance(limit, float):
        slack = _REL * max(abs(limit), abs(value))
        if op == "min":
            return bool(value >= limit - slack)
        if op == "max":
            return bool(value <= limit + slack)
        if op == "below":
            return bool(value < limit - slack)
        if op == "above":
            return bool(value > limit + slack)
        same = abs(value - limit) <= slack
        return same if op == "equals" else not same
    if op == "equals":
        return bool(value == limit)
    if op == "not_equals":
        return bool(value != limit)
    return None


def _test(test: Test, element: Element, ctx: Context) -> tuple[bool | None, Any, Bound | None]:
    """(result, the value that decided it, the bound that failed)."""
    measured = measure(test.term, element, ctx)
    ftype = test.term.type
    many = isinstance(test.term, Ref) and test.term.many
    result: bool | None = True
    for bound in test.bounds:
        if many and bound.op not in ("present", "absent"):
            for value in measured:
                r = bound_holds(bound, value, ftype)
                if r is False:
                    return False, value, bound
                if r is None:
                    result = None
            continue
        r = bound_holds(bound, measured, ftype)
        if r is False:
            return False, measured, bound
        if r is None:
            result = None
    return result, measured, None


def holds(cond: Any, element: Any, ctx: Context) -> bool | None:
    """Whether `element` satisfies `cond`: True, False, or None where a value it needs is
    absent (a `where` filter then does not select the element)."""
    if isinstance(cond, Test):
        return _test(cond, element, ctx)[0]
    if isinstance(cond, AllOf):
        results = [holds(c, element, ctx) for c in cond.items]
        if any(r is False for r in results):
            return False
        return None if any(r is None for r in results) else True
    if isinstance(cond, AnyOf):
        results = [holds(c, element, ctx) for c in cond.items]
        if any(r is True for r in results):
            return True
        return None if any(r is None for r in results) else False
    if isinstance(cond, Not):
        r = holds(cond.item, element, ctx)
        return None if r is None else not r
    raise TypeError(f"not a condition: {cond!r}")


def failure(cond: Any, element: Element, ctx: Context) -> Failure | None:
    """Why `element` fails `cond` as a requirement (None: it passes; an absent value passes)."""
    if isinstance(cond, Test):
        result, measured, bound = _test(cond, element, ctx)
        if result is not False:
            return None
        return Failure(cond, bound, measured, "", _location(cond.term, element))
    if isinstance(cond, AllOf):
        for item in cond.items:
            found = failure(item, element, ctx)
            if found is not None:
                return found
        return None
    if isinstance(cond, AnyOf):
        if any(holds(c, element, ctx) is not False for c in cond.items):
            return None
        text = "none of its alternatives holds: " + "; ".join(describe(c) for c in cond.items)
        return Failure(None, None, None, text, element.path)
    if isinstance(cond, Not):
        if holds(cond.item, element, ctx) is not True:
            return None
        return Failure(None, None, None, f"it must not have {describe(cond.item)}", element.path)
    raise TypeError(f"not a condition: {cond!r}")


def _location(term: Ref | Aggregate, element: Element) -> Path:
    ref = term if isinstance(term, Ref) else term.ref
    kind = ref.kinds[0]
    spec = KINDS[kind].fields.get(ref.steps[0]) if kind else None
    if spec is not None and spec.at is not None:
        return spec.at(element)
    return element.path


# ---------------------------------------------------------------------------------------------
# Words


_RELATION = {
    "max": "is above the maximum",
    "min": "is below the minimum",
    "below": "is not below",
    "above": "is not above",
    "in": "is not one of",
    "equals": "is not",
    "not_equals": "must not be",
    "present": "is not declared",
    "absent": "is declared",
}


_SAID = {
    "max": "at most",
    "min": "at least",
    "below": "below",
    "above": "above",
    "in": "one of",
    "equals": "=",
    "not_equals": "!=",
}


def describe(cond: Any) -> str:
    """A condition in words, as the policy wrote it: `status = planned`."""
    if isinstance(cond, Test):
        return ", ".join(
            f"{cond.term.text} {'declared' if b.op == 'present' else 'not declared'}"
            if b.op in ("present", "absent")
            else f"{cond.term.text} {_SAID[b.op]} {b.shown}"
            for b in cond.bounds
        )
    if isinstance(cond, AllOf):
        return " and ".join(describe(c) for c in cond.items)
    if isinstance(cond, AnyOf):
        return "(" + " or ".join(describe(c) for c in cond.items) + ")"
    if isinstance(cond, Not):
        return f"not ({describe(cond.item)})"
    return str(cond)


def shown(value: Any, ftype: FieldType | None = None) -> Any:
    """A measured value as a finding carries it: a Quantity, a number, or text."""
    if isinstance(value, Element):
        return value.id
    if ftype is not None and ftype.kind == "ratio" and isinstance(value, (int, float)):
        return f"{value:.2f}:1"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)) or hasattr(value, "magnitude") or value is None:
        return value
    return str(value)


def _limit(bound: Bound, ftype: FieldType) -> Any:
    if bound.op in ("present", "absent"):
        return None
    if isinstance(bound.value, Amount):
        return bound.value.quantity()
    if ftype.kind == "ratio" and isinstance(bound.value, float):
        return f"{bound.value:g}:1"
    return bound.shown


def _words(f: Failure) -> str:
    if f.test is None or f.bound is None:
        return f.text
    from dclint.engine.findings import value_text

    ftype = f.test.term.type
    name = f.test.term.text
    if f.bound.op in ("present", "absent"):
        return f"{name} {_RELATION[f.bound.op]}"
    value = shown(f.measured, ftype)
    if isinstance(f.bound.value, Amount) and hasattr(value, "to"):
        value = _in_unit(value, f.bound.value.unit)
    measured = value_text(value)
    return f"{name} {measured} {_RELATION[f.bound.op]} {value_text(_limit(f.bound, ftype))}"


def _violation(
    policy: Policy, singular: str, element: Element, f: Failure, ctx: Context
) -> Violation:
    measured = limit = None
    if f.test is not None and f.bound is not None:
        ftype = f.test.term.type
        measured = shown(f.measured, ftype) if f.bound.op not in ("present",) else None
        limit = _limit(f.bound, ftype)
        if isinstance(f.bound.value, Amount) and hasattr(measured, "to"):
            measured = _in_unit(measured, f.bound.value.unit)
    if policy.message:
        message = render(policy, element, f, measured, limit, ctx)
    else:
        message = f"{singular} {element.id}: {_words(f)}"
    return Violation(
        f.path,
        message,
        subject=element.id,
        measured=measured,
        limit=limit,
        fix=policy.fix,
    )


def _in_unit(value: Any, unit: str) -> Any:
    """A measured quantity in the unit the policy wrote its limit in (1.32 MW against 1.2 MW)."""
    try:
        return value.to(unit)
    except Exception:
        return value


def render(
    policy: Policy, element: Element, f: Failure, measured: Any, limit: Any, ctx: Context
) -> str:
    """The policy's message with its placeholders filled: {id}, {kind}, {field}, {value},
    {limit} and any field of the element ({hall}, {feeds.panel.path}). Placeholders are
    replaced by name; no other text is interpreted."""
    from dclint.engine.findings import value_text
    from dclint.policy.format import _PLACEHOLDER

    fixed = {
        "id": element.id,
        "kind": KINDS[policy.kind].singular,
        "field": f.test.term.text if f.test is not None else "",
        "value": value_text(measured) or "",
        "limit": value_text(limit) or "",
    }

    def one(match: Any) -> str:
        name = match.group(1)
        if name in fixed:
            return str(fixed[name])
        ref = policy.placeholders.get(name)
        if ref is None:
            return str(match.group(0))
        value = measure(ref, element, ctx)
        if isinstance(value, list):
            return ", ".join(str(value_text(shown(v, ref.type))) for v in value)
        return str(value_text(shown(value, ref.type)) or "-")

    return _PLACEHOLDER.sub(one, policy.message)
