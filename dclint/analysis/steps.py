"""The training step's parts as a review shows them: a projection's `step_breakdown`, labelled
from the step model's one table of parts (`dclint.projection.step.records.STEP_PARTS`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dclint.projection.step.records import STEP_PARTS
from dclint.units import Quantity

__all__ = ["STEP_PARTS", "step_parts"]  # STEP_PARTS: for presenters (report/ imports no projection)


def _seconds(value: Any) -> float:
    if isinstance(value, Quantity):
        return float(value.m_as("s"))
    return float(value) if isinstance(value, (int, float)) else 0.0


def step_parts(p: Mapping[str, Any]) -> list[tuple[str, float]]:
    """(label, seconds) of each part of a projection's step that takes time, in the model's
    order; [] when the projection has no step breakdown (no step prediction)."""
    parts = p.get("step_breakdown")
    if not isinstance(parts, dict):
        return []
    keys = [k for k in STEP_PARTS if k in parts] + [k for k in parts if k not in STEP_PARTS]
    named = [(STEP_PARTS.get(str(k), (str(k),))[0], _seconds(parts[k])) for k in keys]
    return [(name, value) for name, value in named if value > 0]  # no empty parts
