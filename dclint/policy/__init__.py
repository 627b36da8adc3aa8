"""Site policies: a team's own standards, written as YAML data, judged like built-in rules.

A config names policy files (`policies = ["policies/*.yaml"]`, paths and globs from the config's
directory). This package is imported only when a config names policies: a check without any
imports none of it. dclint.policy.format reads and checks the files, dclint.policy.elements
says what a policy can judge, dclint.policy.evaluate judges, dclint.policy.rules turns each
policy into a Rule. docs/policies.md is the reference.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dclint.errors import ConfigError

if TYPE_CHECKING:
    from dclint.engine.rule import Rule
    from dclint.policy.format import Policy

__all__ = ["load_policies", "policy_files", "policy_rules", "repository_root"]

MAX_FILES = 256  # policy files one config may name
MAX_BYTES = 1024 * 1024  # one policy file


def repository_root(start: Path) -> Path:
    """The nearest directory from `start` up that holds `.git`, else `start` itself."""
    start = start.resolve()
    for d in (start, *start.parents):
        if os.path.lexists(d / ".git"):
            return d
    return start


def policy_files(config: Any, confined: bool) -> list[str]:
    """The policy files `config` names, its globs expanded from its directory, in order.
    `confined` (a config found by search): each must lie inside the repository root
    (`repository_root` of the config's directory); one outside is a ConfigError."""
    base = Path(config.root)
    root = repository_root(base) if confined else None
    out: list[str] = []
    for pattern in config.policies:
        where = config.where("policies")
        full = pattern if os.path.isabs(pattern) else str(base / pattern)
        matches = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
        if not matches:
            raise ConfigError(f"{where}: policies: '{pattern}' matches no file")
        for file in (os.path.normpath(os.path.abspath(m)) for m in matches):
            if root is not None:
                real = Path(file).resolve()
                if real != root and root not in real.parents:
                    raise ConfigError(
                        f"{where}: policies: '{pattern}' is outside the repository root {root} "
                        "(a config found by search may name only files inside it; give the "
                        "config with --config to use it)"
                    )
            if file not in out:
                out.append(file)
    if len(out) > MAX_FILES:
        raise ConfigError(f"{config.where('policies')}: more than {MAX_FILES} policy files")
    return out


def _read(file: str) -> str:
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        return read_regular(Path(file), MAX_BYTES, "policy").decode("utf-8")
    except FileRejected as exc:
        raise ConfigError(f"{file}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: cannot read policy file: not valid UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read policy file: {exc.strerror or exc}") from None


def load_policies(files: list[str], rules: dict[str, type[Rule]] | None = None) -> list[Policy]:
    """Every policy of `files`, checked; ids may not take a family of `rules` (the rules
    discovered: dclint's, plug-ins') nor an id another policy took. ConfigError (every
    problem, each at its file:line:col) otherwise."""
    from dclint.policy.format import read_policies

    families: dict[str, str] = {}
    for rid, cls in (rules or {}).items():
        if getattr(cls, "policy", None) is not None:
            continue
        family = rid.rstrip("0123456789")
        families.setdefault(family, f"taken by {rid} ({cls.origin or 'a rule'})")
    taken: dict[str, str] = {}
    out: list[Policy] = []
    for file in files:
        out.extend(read_policies(file, _read(file), taken, families))
    return out


def policy_rules(
    config: Any, rules: dict[str, type[Rule]], confined: bool
) -> dict[str, type[Rule]]:
    """The Rule classes of the policies `config` names, by id (see `policy_files`)."""
    from dclint.policy.rules import rule_of

    policies = load_policies(policy_files(config, confined), rules)
    return {p.id: rule_of(p) for p in policies}
