"""The roll-ups the reports present (one defect on many racks of a type; one defect in a file
several designs read): grouped in dclint.engine.rollup, which the editor server shares."""

from __future__ import annotations

from dclint.engine.rollup import (
    Defect,
    Rollup,
    as_data,
    defect_counts,
    defects,
    defects_data,
    impact_sentence,
    kinds,
    measured_limit,
    roll_up,
)

__all__ = [
    "Defect",
    "Rollup",
    "as_data",
    "defect_counts",
    "defects",
    "defects_data",
    "impact_sentence",
    "kinds",
    "measured_limit",
    "roll_up",
]
