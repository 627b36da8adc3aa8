"""Fast paths for the Quantity operations rules run in hot loops: dclint's Quantity class.

They enter through pint's own extension point: a registry subclass names its Quantity class
(`Registry.Quantity = FastQuantity`) and pint derives the registry's bound class from it, so
pint's default registry and its classes are untouched.

Each gives exactly what pint gives (tests/test_fastq.py compares them) and hands every case it
does not cover back to pint: non-string targets, offset units (degC), arrays, contexts.

- Construction: `Q_(102.0, "kW")` builds a pint Unit from the text on every call (~20 us) and
  imports pint's application registry (~12 us). The units a text names never change, so each
  distinct text is parsed once; a plain number with parsed units then needs only what pint's
  constructor would store.
- Conversion: pint's `to`/`m_as` cost ~18 us a call. A linear conversion is one multiplication
  by a factor that depends only on the two units, so the factor is cached.
- Addition and subtraction: pint's `_add_sub` checks registries, logarithmic and offset units
  and dimensionality (~50 us). Two plain numbers in the same multiplicative units just add.
- Scaling by a plain number (`q * 2`, `2 * q`, `q / 2`): pint builds a new units container for
  the same units (so every product missed the conversion cache); the fast path keeps q's.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import pint
from pint.util import UnitsContainer

__all__ = ["FastQuantity", "Registry"]

_PLAIN = (int, float)  # by exact type: bool and numpy scalars take pint's path
_LIMIT = 65536  # entries per cache, a bound for a long-lived process fed endless unit texts
_Pint: Any = pint.UnitRegistry.Quantity  # pint's Quantity class, whose methods these extend
# pint's own methods, for the cases the fast paths hand back (and for tests to compare with)
_pint: dict[str, Any] = {
    "new": _Pint.__new__,
    "to": _Pint.to,  # pint's m_as calls self.to: the conversions fall back to this one
    "add": _Pint.__add__,
    "sub": _Pint.__sub__,
    "iadd": _Pint.__iadd__,
    "isub": _Pint.__isub__,
    "mul": _Pint.__mul__,
    "rmul": _Pint.__rmul__,
    "truediv": _Pint.__truediv__,
}
_UNITS: dict[str, Any] = {}  # unit text -> UnitsContainer
# Conversion factors by the source units' value (a UnitsContainer hashes and compares by its
# units): as many entries as distinct (units, target) pairs, a few hundred in a whole run.
_BY_UNITS: dict[tuple[Any, str], float | None] = {}
# In front of it, the recently seen containers by id (an int hashes in C, a container in
# Python); each entry holds its container, so that id cannot be reused by another object. Every
# product makes a new container, so this one is emptied when full: keeping every one of them
# alive grew a 10,000-point what-if grid by 7 KiB a point, and once full, every new container
# took pint's slow path for the rest of the run.
_RECENT = 4096
_FACTORS: dict[tuple[int, str], tuple[Any, float | None]] = {}
_MULTIPLICATIVE: dict[int, tuple[Any, bool]] = {}


def _new(cls: Any, value: Any, units: Any = None) -> Any:
    if type(units) is str:
        found = _UNITS.get(units)
        if found is None:
            found = cls._REGISTRY.parse_units(units)._units
            if len(_UNITS) < _LIMIT:
                _UNITS[units] = found
        units = found
    if type(units) is UnitsContainer and type(value) in _PLAIN:
        inst = object.__new__(cls)
        inst._magnitude, inst._units = value, units
        return inst
    return _pint["new"](cls, value, units)


def _factor(q: Any, units: str) -> float | None:
    """The factor from q's units to `units`; None for an offset conversion."""
    source = q._units
    try:
        return _FACTORS[id(source), units][1]
    except KeyError:
        pass
    try:
        factor = _BY_UNITS[source, units]
    except KeyError:
        cls, plain_to = type(q), _pint["to"]
        one = plain_to(cls(1.0, source), units).magnitude
        zero = plain_to(cls(0.0, source), units).magnitude
        factor = float(one) if zero == 0 else None
        if len(_BY_UNITS) < _LIMIT:
            _BY_UNITS[source, units] = factor
    if len(_FACTORS) >= _RECENT:
        _FACTORS.clear()
    _FACTORS[id(source), units] = (source, factor)
    return factor


def _m_as(self: Any, units: Any) -> Any:
    factor = _factor(self, units) if type(units) is str else None
    if factor is None or type(self._magnitude) not in _PLAIN:
        return _pint["to"](self, units).magnitude
    return self._magnitude * factor


def _to(self: Any, other: Any = None, *contexts: Any, **ctx_kwargs: Any) -> Any:
    if contexts or ctx_kwargs or type(other) is not str:
        return _pint["to"](self, other, *contexts, **ctx_kwargs)
    factor = _factor(self, other)
    if factor is None or type(self._magnitude) not in _PLAIN:
        return _pint["to"](self, other)
    units = self._REGISTRY.parse_units_as_container(other)
    return _new(type(self), self._magnitude * factor, units)


def _multiplicative(units: Any, q: Any) -> bool:
    try:
        return _MULTIPLICATIVE[id(units)][1]
    except KeyError:
        pass
    ok = not q._get_non_multiplicative_units()  # offset (degC) and logarithmic (dB) units
    if len(_MULTIPLICATIVE) >= _RECENT:  # as _FACTORS: recent containers, emptied when full
        _MULTIPLICATIVE.clear()
    _MULTIPLICATIVE[id(units)] = (units, ok)
    return ok


def _same_plain(self: Any, other: Any) -> bool:
    """Both plain numbers in the same multiplicative units: pint adds the magnitudes and keeps
    the units, and so do the fast paths."""
    return (
        type(other) is type(self)
        and type(self._magnitude) in _PLAIN
        and type(other._magnitude) in _PLAIN
        and (other._units is self._units or other._units == self._units)
        and _multiplicative(self._units, self)
    )


def _arithmetic(op: Callable[[Any, Any], Any], name: str) -> Callable[[Any, Any], Any]:
    """`a + b` (or -, +=, -=) on two plain numbers in the same units, else pint's method."""

    def method(self: Any, other: Any) -> Any:
        if _same_plain(self, other):
            return _new(type(self), op(self._magnitude, other._magnitude), self._units)
        return _pint[name](self, other)

    method.__name__ = f"__{name}__"
    return method


# On a plain number pint's `a += b` also builds a new Quantity, as these do.
_add, _sub = _arithmetic(operator.add, "add"), _arithmetic(operator.sub, "sub")
_iadd, _isub = _arithmetic(operator.add, "iadd"), _arithmetic(operator.sub, "isub")


def _scaling(op: Callable[[Any, Any], Any], name: str) -> Callable[[Any, Any], Any]:
    """`q * n`, `n * q` or `q / n` for a plain number n and multiplicative units: the
    magnitude scales and the units stay, as in pint; anything else is pint's method."""

    def method(self: Any, other: Any) -> Any:
        if (
            type(other) in _PLAIN
            and type(self._magnitude) in _PLAIN
            and _multiplicative(self._units, self)
        ):
            return _new(type(self), op(self._magnitude, other), self._units)
        return _pint[name](self, other)

    method.__name__ = f"__{name}__"
    return method


def _divide(magnitude: Any, n: Any) -> Any:
    """As pint divides: an int magnitude is cast to the registry's non-int type first, and an
    int divisor with it (2**53 + 1 kW / 3 rounds as pint rounds it, 10**400 overflows)."""
    if type(magnitude) is int:
        cast = float  # dclint's registry keeps pint's default non_int_type
        return cast(magnitude) / (cast(n) if type(n) is int else n)
    return magnitude / n


_mul, _truediv = _scaling(operator.mul, "mul"), _scaling(_divide, "truediv")
_rmul = _scaling(lambda magnitude, n: n * magnitude, "rmul")


class FastQuantity(_Pint):  # type: ignore[misc]
    """pint's Quantity with the fast paths above; every case they do not cover is pint's."""

    def __new__(cls, value: Any, units: Any = None) -> Any:
        return _new(cls, value, units)

    to = _to
    m_as = _m_as
    __add__, __sub__, __iadd__, __isub__ = _add, _sub, _iadd, _isub
    __mul__, __rmul__, __truediv__ = _mul, _rmul, _truediv


class Registry(pint.UnitRegistry):
    """A unit registry whose Quantity class is FastQuantity (pint binds a subclass of it to
    each registry)."""

    Quantity = FastQuantity  # type: ignore[assignment]
