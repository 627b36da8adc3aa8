"""Compute fabric tier with more downlink than uplink bandwidth (oversubscribed).

## What it does
In each fabric of kind `compute` (the GPU back-end), computes every tier's downlink and uplink
bandwidth and flags a tier whose downlink:uplink ratio exceeds the limit (default 1:1,
non-blocking). Ratios are always written down:up. Each side is the capacity that binds:
in the counted form (`tiers`) a tier's uplinks are the tier above's downlinks, so a side is
the smaller of what the two tiers declare (16 leaves x 32 uplinks under 4 spines x 32
downlinks is 128 links up, not 512: 4:1), and the first tier's downlinks are at most the
ports its endpoints take (GPU NICs, and the `endpoints`: storage, management, gateways).
The first tier is measured on its fullest switch, not its average: E endpoint ports on n
leaves of d downlinks put at least min(d, ceil(E / n)) ports on one leaf, so 1,020 ports on
32 leaves of 32 downlinks and 16 uplinks run 32:16 = 2.00:1 on a full leaf, though the tier
averages 1,020:512 = 1.99:1. In the explicit form (`switches`, `links`) each side is the sum
of its links; links to endpoint nodes (`endpoints` with an `id`: storage, management,
gateways) are downlinks of the leaf they land on. A tier count that does not reconcile is
NET008's finding; this rule measures what such a fabric can carry. Top tiers (no uplinks)
are not checked.

Options: `limit` (default 1:1, dclint's own default for a non-blocking fabric) and
`tier_limits`, per-tier limits keyed `fabric-id.tier-name`. A ratio is written as dclint
prints it, `"2:1"`, or as `2/1`, `2.0:1` or the number 2.0; `dclint check --fix` respells the
text forms as `2:1`. A `tier_limits` key must name a
checked tier of the design (a compute fabric's tier that has uplinks): a key that names no
tier, or a top tier, stops the run with a configuration error (exit code 2) listing the
valid keys, as an unknown option does. Keys are checked against each design the config
applies to; designs with other fabrics take their own config file.

## Why it matters
Oversubscription divides the bandwidth a GPU has for traffic that leaves its leaf: at 2:1,
when every GPU sends at once (an all-reduce across leaves), each gets half its NIC rate, and
the step waits on the slowest link. NVIDIA's DGX SuperPOD reference architectures (H100 and
GB200) build the compute fabric as a non-blocking (1:1) rail-optimised fat tree. Some designs
oversubscribe deliberately between pods: Meta's Llama 3 cluster ("The Llama 3 Herd of
Models", 2024) is full bisection within 3,072-GPU pods and 7:1 at the aggregation layer above
them. Set a per-tier limit for such a tier.

What it costs depends on where the jobs land: the finding's price (`impact`) is the step-time
model's run with every tier at 1:1 against the run as it is, under the fabric's `placement`.
Packed in rank order under the switch groups, a data-parallel ring leaves its group a few
times and a 2:1 tier may cost nothing; spread over the groups, most hops cross it. A fabric
that states no placement is priced as a range, packed to spread, both ends in the finding
(docs/performance-model.md, *Oversubscription by collective*). A run declared with its
measured `mfu` is priced the same way: the model's steps with and without the
oversubscription scale the run's time. Where the step is the same at 1:1 (what the run's
collectives send across the tier fits its uplinks: a rail-optimised fabric keeps each rail's
traffic under its leaves), the finding says it costs the run no training time, and why
(`impact_note`).

Sources: NVIDIA DGX SuperPOD reference architectures (H100, GB200); Meta, "The Llama 3 Herd of
Models", 2024.

## Example
```yaml
tiers:
  - name: leaf
    switch: qm9700
    count: 2
    downlinks: 32
    uplinks: 16     # NET001: 2.00:1
```

## Fix
Add uplinks (or spine switches) until each tier is 1:1, or accept a deliberate ratio for a
tier that has uplinks. In a three-tier fabric (leaf, spine, core) the spine's uplinks join
the pods: `NET001 = { tier_limits = { "compute.spine" = "7:1" } }`.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Change,
    Context,
    CurrencyError,
    Design,
    Option,
    Ratio,
    Remedy,
    TierBandwidth,
    Violation,
    placement_open,
    rule,
    spread_design,
    step_ratio,
    sum_amounts,
    tier_bandwidths,
    topology_of,
)
from dclint.units import fmt

from ._shared import FabricRule, compute_fabrics

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


def _uplinks_needed(
    design: Design, index: int, tier: TierBandwidth, ratio: float, limit: float
) -> tuple[int, int, int | None] | None:
    """Counted form: (tier position, uplinks a switch needs, switches the tier above needs,
    None when it has enough ports) for the tier to meet `limit`; None for explicit links."""
    if len(tier.path) < 4 or tier.path[2] != "tiers" or not isinstance(tier.path[3], int):
        return None
    t = tier.path[3]
    tiers = design.fabrics[index].tiers
    now = tiers[t].uplinks
    if now <= 0 or ratio <= 0:
        return None
    need = math.ceil(now * ratio / limit - 1e-9)
    above = None
    if t + 1 < len(tiers) and tiers[t + 1].downlinks:
        wanted = math.ceil(tiers[t].count * need / tiers[t + 1].downlinks)
        if wanted > tiers[t + 1].count:
            above = wanted
    return t, need, above


def _ports(design: Design, switch: str) -> int | None:
    model = topology_of(design).catalog.switches.get(switch)
    return model.ports if model is not None else None


def _fix_text(design: Design, index: int, tier: TierBandwidth, ratio: float, limit: float) -> str:
    got = _uplinks_needed(design, index, tier, ratio, limit)
    if got is None:
        return f"add uplinks or spine switches until the tier is {limit:g}:1"
    t, need, above = got
    tiers = design.fabrics[index].tiers
    ports = _ports(design, tiers[t].switch)
    if ports is not None and tiers[t].downlinks + need > ports:
        return (
            f"each {tier.name} switch needs {need} uplinks for {limit:g}:1, more than its "
            f"{ports} ports leave beside {tiers[t].downlinks} downlinks: add {tier.name} "
            f"switches so each takes fewer endpoints, or accept the ratio in tier_limits"
        )
    text = f"give each {tier.name} switch {need} uplinks (now {tiers[t].uplinks})"
    if above is not None:
        text += f" and the {tiers[t + 1].name} tier {above} switches (now {tiers[t + 1].count})"
    links = tiers[t].count * (need - tiers[t].uplinks)
    switches = above - tiers[t + 1].count if above is not None else 0
    return text + f" to meet {limit:g}:1" + _capex(design, links, switches)


def _capex(design: Design, links: int, switches: int) -> str:
    """What the added links and switches cost at the design's `cost.link_price` and
    `cost.switch_price` (the prices network capex counts, dclint.projection.network_capex),
    summed in the site's currency where their currencies differ; "" where neither is
    declared.
    Transceivers (`transceiver_price`) are not counted."""
    cost = design.cost
    items = [
        (n, price, what)
        for n, price, what in (
            (links, cost.link_price, "links"),
            (switches, cost.switch_price, "switches"),
        )
        if price is not None and n > 0
    ]
    if not items:
        return ""
    parts = " + ".join(f"{n:,} {what} x {fmt(price)}" for n, price, what in items)
    total = ""
    if len(items) > 1:  # summed in the site's currency where theirs differ
        site = design.site
        with contextlib.suppress(CurrencyError):  # no rate between them: the parts as declared
            amounts = [price * n for n, price, _ in items]
            total = f" = {fmt(sum_amounts(amounts, site.currency, site.exchange_rates))}"
    optics = ", transceivers not counted" if cost.transceiver_price is not None else ""
    return f" (capital cost {parts}{total}{optics})"


def _more_uplinks(
    design: Design, index: int, tier: TierBandwidth, ratio: float, limit: float
) -> tuple[Change, ...]:
    """The unsafe fix: the counts `_fix_text` names, written into the tiers."""
    got = _uplinks_needed(design, index, tier, ratio, limit)
    if got is None:
        return ()
    t, need, above = got
    tiers = design.fabrics[index].tiers
    ports = _ports(design, tiers[t].switch)
    if ports is not None and tiers[t].downlinks + need > ports:
        return ()  # no count fixes it: the fix text says what to do instead
    base = ("fabrics", index, "tiers")
    out = [
        Change(
            str(need),
            f"tier {tier.name} uplinks {tiers[t].uplinks} -> {need} a switch for {limit:g}:1",
            path=(*base, t, "uplinks"),
        )
    ]
    if above is not None:
        out.append(
            Change(
                str(above),
                f"tier {tiers[t + 1].name} count {tiers[t + 1].count} -> {above} switches to "
                f"take the uplinks",
                path=(*base, t + 1, "count"),
            )
        )
    return tuple(out)


@rule("NET001", "fabric-oversubscribed", consequence="performance")
class FabricOversubscribed(FabricRule):
    shares = {
        "oversubscription_limit": "limit",
        "tier_oversubscription_limits": "tier_limits",
    }
    options = {
        "limit": Option(1.0, Ratio, "Highest downlink:uplink ratio of a compute-fabric tier"),
        "tier_limits": Option({}, dict[str, Ratio], "Limits by 'fabric-id.tier-name'"),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Every tier at 1:1: the step-time model's step without the oversubscription over the
        step as it is scales the run. Where a compute fabric states no `placement`, the price
        is a range: jobs packed under the switch groups (the step model's default) to jobs
        spread over them, each end's step at 1:1 over its step as it is."""
        ratio = step_ratio(design, projection, nonblocking=True)
        if ratio is None:
            return None
        if not placement_open(design):
            return Remedy(running=ratio, note=_costs_nothing(design, ratio == 1.0, ""))
        spread = spread_design(design)
        base = step_ratio(spread, projection)
        fixed = step_ratio(spread, projection, nonblocking=True)
        if base is None or fixed is None:
            return Remedy(running=ratio, note=_costs_nothing(design, ratio == 1.0, ""))
        if ratio == 1.0 and base == 1.0 and fixed == 1.0:
            how = "jobs packed or spread over the switch groups"
            return Remedy(note=_costs_nothing(design, True, how))
        return Remedy(
            running=ratio,
            alternative=(base, fixed / base),
            label="jobs packed under the switch groups",
            other="spread over them; the fabric states no placement",
        )

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for fabric_index, fabric in compute_fabrics(design):
            for tier in tier_bandwidths(design, fabric_index):
                if tier.up is None or tier.up.magnitude == 0:
                    continue
                limit = ctx["tier_limits"].get(f"{fabric.id}.{tier.name}", ctx["limit"])
                ratio = tier.ratio or 0.0
                if ratio > limit * (1 + 1e-9):
                    bound = f" ({tier.note})" if tier.note else ""
                    yield Violation(
                        tier.path,
                        f"fabric {fabric.id} tier {tier.name} is oversubscribed "
                        f"{ratio:.2f}:1 (down:up){_fullest(tier)}, {fmt(tier.down, 'Tb/s')} "
                        f"down vs {fmt(tier.up, 'Tb/s')} up{bound}",
                        subject=f"{fabric.id}.{tier.name}",
                        measured=f"{ratio:.2f}:1",
                        limit=f"{limit:g}:1",
                        fix=_fix_text(design, fabric_index, tier, ratio, limit),
                        changes=_more_uplinks(design, fabric_index, tier, ratio, limit),
                    )

    @classmethod
    def config_problems(cls, design: Design, options: dict[str, Any]) -> Iterator[tuple[str, str]]:
        if not options["tier_limits"]:
            return
        checked: list[str] = []
        top: list[str] = []
        for index, fabric in compute_fabrics(design):
            for tier in tier_bandwidths(design, index):
                key = f"{fabric.id}.{tier.name}"
                (checked if tier.up is not None else top).append(key)
        valid = f"valid keys: {', '.join(checked) or 'none'}"
        for key in options["tier_limits"]:
            if key in checked:
                continue
            if key in top:
                yield (
                    "tier_limits",
                    f"'{key}' names a top tier (no uplinks, never checked); {valid}",
                )
            else:
                yield "tier_limits", f"'{key}' names no tier of a compute fabric; {valid}"


def _costs_nothing(design: Design, same: bool, placed: str) -> str:
    """Why the fix saves the run no time, where the step-time model's step is the same with
    every tier at 1:1 (`same`): what the run's collectives send across the oversubscribed tier
    fits its uplinks where the jobs are placed (`placed`: both ends where the fabric states no
    placement): none of it crosses (a rail-optimised fabric keeps each rail's traffic under its
    leaves), or a share the tier carries at its ratio (a ring packed under the switch groups
    leaves its group on a few hops)."""
    if not same:
        return ""
    rails = any(f.kind == "compute" and f.rail_optimised for f in design.fabrics)
    why = (
        "; rail-optimised, NVLink carries each GPU's traffic to its rail's leaves" if rails else ""
    )
    return (
        "costs the declared run no training time: the step-time model's step is the same at "
        "1:1 (what its collectives send across the oversubscribed tier fits its uplinks, "
        f"{placed or 'as placed'}){why}"
    )


def _fullest(tier: TierBandwidth) -> str:
    """The fullest switch's figures, when they are worse than the tier's average."""
    if tier.fullest is None or tier.up is None or tier.ratio == float(tier.down / tier.up):
        return ""
    up = tier.up / tier.switches
    return (
        f" on its fullest switch, {fmt(tier.fullest, 'Tb/s')} down vs {fmt(up, 'Tb/s')} up; "
        f"the tier averages {float(tier.down / tier.up):.2f}:1"
    )
