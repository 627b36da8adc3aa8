"""Where imported elements came from: a design's `origins` (written by `dclint import`) maps
an element id to its source object, so a finding on the element can name the object to fix
in the source of truth (a NetBox rack, a spreadsheet cell). A key may be an id range, and its
value may hold ranges of the same length that run in step with it:
`gpu-r[01-08]: NetBox rack [1-8] <https://netbox/dcim/racks/[1-8]/>`."""

from __future__ import annotations

import re

from dclint.model.ranges import RangeError, expand

__all__ = ["origin_table"]

_RANGE = re.compile(r"\[(\d+)-(\d+)\]")


def origin_table(origins: dict[str, str]) -> dict[str, str]:
    """Each element id -> its source; a value's ranges expand in step with its key's."""
    table: dict[str, str] = {}
    for key, value in origins.items():
        try:
            ids = [i for i, _ in expand(key)]
        except RangeError:
            continue
        ranges = list(_RANGE.finditer(value))
        steps = [
            (m, int(m.group(1)), len(m.group(1)) if m.group(1).startswith("0") else 0)
            for m in ranges
            if int(m.group(2)) - int(m.group(1)) + 1 == len(ids)
        ]
        if len(ids) == 1 or not steps:
            for i in ids:
                table[i] = value
            continue
        for k, ident in enumerate(ids):
            text, last = [], 0
            for m, start, width in steps:
                text.append(value[last : m.start()])
                text.append(str(start + k).zfill(width))
                last = m.end()
            text.append(value[last:])
            table[ident] = "".join(text)
    return table
