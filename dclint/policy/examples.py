"""Policies tested like code: each policy's `examples` (inline design snippets or design files)
run against it alone; a `pass` example must give no finding, a `fail` example at least one."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dclint.errors import ConfigError, LoadError
from dclint.policy.format import Example, Policy

__all__ = ["Outcome", "run_examples"]


@dataclass(frozen=True)
class Outcome:
    policy: Policy
    example: Example
    ok: bool
    detail: str  # what went wrong, or what it found

    @property
    def where(self) -> str:
        return f"{self.policy.file}:{self.example.line}:{self.example.column}"


def _design_text(policy: Policy, example: Example, confined: bool) -> tuple[str, str]:
    """(file name, text) of an example's design."""
    if example.data is not None:
        import yaml

        data = dict(example.data)
        data.setdefault("name", f"{policy.id.lower()}-{example.outcome}-{example.index}")
        label = f"{policy.file}:{example.line} ({policy.id} example {example.label})"
        return label, yaml.safe_dump(data, sort_keys=False)
    assert example.path is not None
    base = Path(policy.file).parent
    file = example.path if os.path.isabs(example.path) else str(base / example.path)
    if confined:
        from dclint.policy import repository_root

        root = repository_root(base)
        real = Path(file).resolve()
        if root not in real.parents:
            raise ConfigError(
                f"{policy.file}:{example.line}:{example.column}: example '{example.path}' is "
                f"outside the repository root {root}"
            )
    from dclint.loader.load import read_text

    return file, read_text(file, file)


def run_examples(policies: list[Policy], confined: bool = True) -> list[Outcome]:
    """The outcome of every example of every policy, in order."""
    from dclint.loader.load import load_text
    from dclint.policy.elements import context_for
    from dclint.policy.evaluate import judge

    out = []
    for policy in policies:
        for example in policy.examples:
            try:
                file, text = _design_text(policy, example, confined)
                design = load_text(text, file)
            except (LoadError, ConfigError) as exc:
                problems = getattr(exc, "problems", None)
                why = str(problems[0]) if problems else str(exc)
                out.append(Outcome(policy, example, False, f"its design does not load: {why}"))
                continue
            found = list(judge(policy, context_for(design)))
            if example.outcome == "pass":
                ok = not found
                detail = "" if ok else f"it should pass, but: {found[0].message}"
            else:
                ok = bool(found)
                detail = found[0].message if ok else "it should fail, but the policy found nothing"
            out.append(Outcome(policy, example, ok, detail))
    return out
