"""What the cooling rules share: their family's metadata, the finding of a heat or flow above
what carries it (a CDU's capacity or pumps, a rack's coolant flow, the facility water, the air
handlers, the heat-rejection plant), and the finding of a temperature beyond its limit (a
supply above what the plant or the platforms allow, air leaving a coil too warm, a supply
below what keeps it dry or what its CDU can make)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from dclint.api import DesignPath, Quantity, Rule, Violation

_EPS = 1e-9  # degC: a temperature exactly at its limit passes
_SHARE = 1e-9  # of the limit: a heat or flow exactly at its limit passes


class CoolingRule(Rule):
    """A cooling rule: tagged `cooling`, applies to a design with cooling (CDUs or loops); a
    finding's consequence is `over-rating` (a heat, flow or temperature beyond what carries
    it). A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("cooling",)
    needs: ClassVar[tuple[str, ...]] = ("cooling",)
    consequence: ClassVar[str] = "over-rating"


class CoolingRedundancyRule(CoolingRule):
    """A cooling rule on what survives a failure (a CDU, pump or air handler lost): its
    consequence is `single-failure`."""

    tags: ClassVar[tuple[str, ...]] = ("cooling", "redundancy")
    consequence: ClassVar[str] = "single-failure"


def over(value: Quantity, limit: Quantity) -> bool:
    """Whether a heat or flow is above its limit (exactly at it passes), in the limit's unit."""
    unit = limit.units
    return bool(value.m_as(unit) > limit.m_as(unit) * (1 + _SHARE))


def above(
    at: DesignPath, subject: str, value: Quantity, limit: Quantity, message: str, fix: str
) -> Iterator[Violation]:
    """The finding of a heat or flow `value` above its `limit`, as given; none within it. The
    message is built before the test: a check of every rack tests `over` first."""
    if over(value, limit):
        yield Violation(at, message, subject=subject, measured=value, limit=limit, fix=fix)


def warmer(temperature: Quantity, limit: Quantity) -> bool:
    """Whether a temperature is above an upper limit (exactly at it passes)."""
    return bool(temperature.m_as("degC") > limit.m_as("degC") + _EPS)


def colder(temperature: Quantity, limit: Quantity) -> bool:
    """Whether a temperature is below a lower limit (exactly at it passes)."""
    return bool(temperature.m_as("degC") < limit.m_as("degC") - _EPS)


def too_warm(
    at: DesignPath, subject: str, temperature: Quantity, limit: Quantity, message: str, fix: str
) -> Iterator[Violation]:
    """The finding of `temperature` above its upper `limit`, both in degC; none within it."""
    if warmer(temperature, limit):
        yield _beyond(at, subject, temperature, limit, message, fix)


def too_cold(
    at: DesignPath, subject: str, temperature: Quantity, limit: Quantity, message: str, fix: str
) -> Iterator[Violation]:
    """The finding of `temperature` below its lower `limit`, both in degC; none within it."""
    if colder(temperature, limit):
        yield _beyond(at, subject, temperature, limit, message, fix)


def _beyond(
    at: DesignPath, subject: str, temperature: Quantity, limit: Quantity, message: str, fix: str
) -> Violation:
    return Violation(
        at,
        message,
        subject=subject,
        measured=temperature.to("degC"),
        limit=limit.to("degC"),
        fix=fix,
    )
