"""Many ids written short, as a design writes them: tap-a1 ... tap-a8 -> 'tap-a[1-8]'."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["compact"]

_TAIL = re.compile(r"^(.*?)(\d+)$")


def compact(ids: Sequence[str], most: int = 4) -> str:
    """Ids with a common stem and numbered tails as ranges (`r[01-03,07]`), in first-seen order;
    beyond `most` groups, '... and N more'."""
    stems: dict[tuple[str], list[str]] = {}
    order: list[tuple[str] | str] = []
    for i in ids:
        m = _TAIL.match(i)
        if m is None:
            order.append(i)
            continue
        key = (m.group(1),)
        if key not in stems:
            stems[key] = []
            order.append(key)
        stems[key].append(m.group(2))
    parts = [item if isinstance(item, str) else _stem(item[0], stems[item]) for item in order]
    if len(parts) > most:
        return ", ".join(parts[:most]) + f" and {len(parts) - most} more"
    return ", ".join(parts)


def _stem(stem: str, numbers: list[str]) -> str:
    if len(numbers) == 1:
        return stem + numbers[0]
    values = sorted(set(numbers), key=int)
    runs: list[list[str]] = [[values[0]]]
    for n in values[1:]:
        if int(n) == int(runs[-1][-1]) + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    inner = ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
    return f"{stem}[{inner}]"
