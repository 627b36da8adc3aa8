"""The training step's parts as the step-time model gives them (projection `step_breakdown`)."""

from __future__ import annotations

from typing import Any

from dclint.units import Quantity

__all__ = ["STEP_PARTS", "step_parts"]

STEP_PARTS = ("compute", "recompute", "tp", "pp_bubble", "pp_p2p", "dp", "cp", "ep")
_STEP_NAMES = {
    "compute": "compute",
    "recompute": "recompute",
    "tp": "tensor-parallel comm.",
    "pp_bubble": "pipeline bubble",
    "pp_p2p": "pipeline sends",
    "dp": "data-parallel comm.",
    "cp": "context-parallel comm.",
    "ep": "expert all-to-all",
}


def _seconds(value: Any) -> float:
    if isinstance(value, Quantity):
        return float(value.m_as("s"))
    return float(value) if isinstance(value, (int, float)) else 0.0


def step_parts(p: dict[str, Any]) -> list[tuple[str, float]]:
    """(name, seconds) of each part of a projection's step that takes time; [] when the
    projection has no step breakdown (a build without the step-time model)."""
    parts = p.get("step_breakdown")
    if not isinstance(parts, dict):
        return []
    keys = [k for k in STEP_PARTS if k in parts] + [k for k in parts if k not in STEP_PARTS]
    named = [(_STEP_NAMES.get(str(k), str(k)), _seconds(parts[k])) for k in keys]
    return [(name, value) for name, value in named if value > 0]  # no empty parts
