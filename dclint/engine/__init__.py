"""The rule engine: rule API, discovery, configuration, suppressions and the run itself."""

from dclint.engine.rule import Context, Option, Rule, Severity, Violation

__all__ = ["Context", "Option", "Rule", "Severity", "Violation"]
