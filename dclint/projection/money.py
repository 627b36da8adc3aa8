"""Currency conversion through the site's declared exchange rates only (never a silent 1:1)."""

from __future__ import annotations

from dclint.errors import DclintError
from dclint.units import Q_, Quantity

__all__ = ["CurrencyError", "convert", "currency_of", "sum_amounts"]


class CurrencyError(DclintError):
    """An amount in a currency the site declares no exchange rate for."""


def currency_of(q: Quantity) -> str | None:
    """The currency code of an amount or price (``USD`` for ``30000 USD`` or ``0.1 USD/kWh``)."""
    for dim in q.dimensionality:
        if dim.startswith("[currency_"):
            return str(dim)[len("[currency_") : -1]
    return None


def convert(q: Quantity, currency: str, rates: dict[str, Quantity]) -> Quantity:
    """`q` (an amount) in `currency`. `rates` maps a code to the value of one unit of it,
    e.g. ``{"USD": 7.2 CNY}``; the inverse rate is used when only that is declared."""
    source = currency_of(q)
    if source is None:
        raise CurrencyError(f"{q} is not an amount of money")
    if source == currency:
        return q.to(currency)
    amount = q.m_as(source)
    direct = rates.get(source)
    if direct is not None and currency_of(direct) == currency:
        return Q_(amount * direct.m_as(currency), currency)
    inverse = rates.get(currency)
    if inverse is not None and currency_of(inverse) == source:
        return Q_(amount / inverse.m_as(source), currency)
    raise CurrencyError(
        f"no exchange rate from {source} to {currency}: declare site.exchange_rates, "
        f"e.g. {{{source}: '<value> {currency}'}}"
    )


def sum_amounts(amounts: list[Quantity], currency: str, rates: dict[str, Quantity]) -> Quantity:
    """The sum of `amounts` (one at least): in their currency where they share one, else in
    `currency` through `rates` (CurrencyError where a rate is missing)."""
    if len({currency_of(a) for a in amounts}) > 1:
        amounts = [convert(a, currency, rates) for a in amounts]
    out = amounts[0]
    for a in amounts[1:]:
        out = out + a
    return out
