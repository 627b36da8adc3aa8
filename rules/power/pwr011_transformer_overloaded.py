"""Transformer loaded beyond its nameplate rating.

## What it does
For every transformer in `power.transformers`, adds up the load below it: the racks fed through
the panels and elements below it, at their peak (catalog `max_power`; `power_capped` racks and
panels, or `design_load = true`, at the design IT load), each rack's load shared by its live
feeds, in normal running and in every single failure it survives (`dclint failures`: the most it
then carries counts, and the message names that failure), plus the losses of the UPS systems
below it (a UPS draws its output / efficiency), and the loads besides the racks below it: the
fabrics' switches and endpoints and the storage nodes (on their `fed_by`, else an equal share a
rack of the racks they serve, on each rack's UPS or transformer) and CDU pumps with a `fed_by`;
the message gives the sum and says where the default share was used.
Flags the transformer when that load exceeds its rating: a rating in kVA carries the load's
power factor (`power_factor`, default 0.95) in kW, and the message gives both. Exactly at the
rating passes.

## Why it matters
Transformers are rated in kVA at a stated ambient (IEC 60076-1, IEEE C57.12.00): the kW they
carry depends on the load's power factor, and a UPS in front of the racks draws its losses on
top (3-6% for double conversion, makers' datasheets). AI training holds the load flat at its
peak for days: there is no diversity and no cool night to rely on, so the nameplate is the
limit (IEC 60076-7 loading guides allow overload only with a known thermal history).

Sources: IEC 60076-1; IEEE C57.12.00; IEC 60076-7.

## Example
```yaml
power:
  transformers:
    - {id: tx-1, rating: 1000 kVA}   # PWR011: 1,056 kW of racks at PF 0.95 need 1,112 kVA
```

## Fix
Use a larger transformer, split the load over two, or cap the racks' power.
`PWR011 = { design_load = true }` loads transformers with the design IT load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Transformer, Violation, is_apparent, rule, ups_below
from dclint.units import Q_, fmt

from ._shared import PowerRule, chain_elements, design_load


@rule("PWR011", "transformer-overloaded", consequence="over-rating", covers=("tia942.electrical",))
class TransformerOverloaded(PowerRule):
    options = {
        "design_load": design_load("transformers"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for e in chain_elements(design, ctx, Transformer):
            if not e.over:
                continue
            cid, model, load = e.id, e.item.model, e.load
            ups = ups_below(e.item)
            losses = f", and the losses of UPS {', '.join(u.id for u in ups)} below" if ups else ""
            measured, limit = Q_(load.load_kw, "kW"), Q_(load.capacity_kw, "kW")
            extra = ""
            if is_apparent(model.rating):
                measured = Q_(load.load_kw / model.power_factor, "kVA")
                limit = model.rating.to("kVA")
                extra = f" = {fmt(measured)} at PF {model.power_factor:g}"
            yield Violation(
                (*e.item.path, "rating"),
                f"transformer {cid} carries {fmt(Q_(load.load_kw, 'kW'))}{extra} ("
                + (f"{load.includes}; " if load.includes else "")
                + f"{e.carried()}{losses}), above its nameplate rating",
                subject=cid,
                measured=measured,
                limit=limit,
                fix="use a larger transformer, split the load over two, or cap the racks' power",
            )
