"""The settings that code outside the rules reads: each owned by one rule's option.

The summary, `capacity`, `init`, `plan`, the review and the editor's hover read a rack's power
limit, a feed's headroom, a tier's accepted oversubscription, the storage read demand and the
GPU memory reserve. Each is the option of the rule that checks it (PWR001's `limit`, PWR002's
`headroom`, ...): the rule declares it in `Rule.shares` (concept -> option name), and this module
gathers them by concept, so that nothing outside `rules/` names a rule id and no default is
restated (a configured limit reaches every figure the limit affects).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from dclint.errors import ConfigError

if TYPE_CHECKING:
    from dclint.engine.rule import Rule
    from dclint.units import Quantity

__all__ = ["ALL_OPTIONS", "Shared", "shared_settings"]

ALL_OPTIONS = "*"  # `Rule.shares` value: the concept is the rule's whole typed option mapping


@dataclass(frozen=True)
class Shared:
    """The shared settings in effect for one configuration, by concept."""

    rack_power_limit: Quantity  # a rack's power limit where no platform has its own
    platform_rack_limits: Mapping[str, Quantity]  # a platform's (catalog key) own rack limit
    feed_headroom: Quantity  # spare capacity a feed keeps beyond its load
    feeds_carry_design_load: bool  # feeds sized for the racks' design load, not their peak
    oversubscription_limit: float  # a compute tier's accepted down:up ratio
    tier_oversubscription_limits: Mapping[str, float]  # by 'fabric-id.tier-name'
    storage_read_factor: float  # read bandwidth wanted, as a multiple of the demand
    storage_demand: Mapping[str, Any]  # the options of the storage read-demand model
    memory_reserve: Quantity  # share of GPU memory a layout leaves free (dimensionless)

    def rack_limit(self, platform: str | None) -> Quantity:
        """The rack power limit for a rack of `platform` (its catalog key)."""
        from dclint.calc.power import rack_power_limit

        return rack_power_limit(
            {"limit": self.rack_power_limit, "platform_limits": self.platform_rack_limits},
            platform,
        )

    def tier_limit(self, fabric: str, tier: str) -> float:
        """The accepted oversubscription of `tier` of fabric `fabric`."""
        limits = self.tier_oversubscription_limits
        return float(limits.get(f"{fabric}.{tier}", self.oversubscription_limit))


def shared_settings(
    options: Mapping[str, Mapping[str, Any]], rules: Mapping[str, type[Rule]] | None = None
) -> Shared:
    """The shared settings of the typed `options` (by rule id), read where the `rules` (by id;
    the built-in pack when None) declare them. A concept no rule declares, or two rules
    declare, is a ConfigError naming it."""
    if rules is None:
        from dclint.engine.registry import discover

        rules = discover(())
    values: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for rid, cls in rules.items():
        for concept, option in cls.shares.items():
            if concept in owner:
                raise ConfigError(
                    f"rules {owner[concept]} and {rid} both declare the shared setting {concept}"
                )
            owner[concept] = rid
            typed = options.get(rid, {})
            values[concept] = dict(typed) if option == ALL_OPTIONS else typed.get(option)
    wanted = [f.name for f in fields(Shared)]
    missing = [name for name in wanted if values.get(name) is None]
    if missing:
        raise ConfigError(
            f"no rule declares the shared setting {missing[0]} (Rule.shares); the built-in "
            "pack does: is it on the path?"
        )
    return Shared(**{name: values[name] for name in wanted})
