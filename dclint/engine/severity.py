"""How serious a finding is: the one vocabulary that rules, findings and the config share."""

from __future__ import annotations

from typing import Literal

__all__ = ["SEVERITIES", "Severity"]

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
