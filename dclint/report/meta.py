"""The review's provenance: date, dclint version, configuration in effect, the design files'
git commit and the command line, so a printed review can be traced to what produced it."""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Sequence
from datetime import date
from typing import Any, Protocol

from dclint._version import __version__
from dclint.analysis.assess.assessment import Assessment
from dclint.report.commits import commits as git_commits
from dclint.report.values import share, show
from dclint.report.view import View

__all__ = ["metadata", "provenance"]


class Reviewed(Protocol):
    """What the run details read of a reviewed design (dclint.report.review.Review is one)."""

    @property
    def file(self) -> str: ...

    @property
    def provenance(self) -> tuple[str, str]: ...


def _changed_options(a: Assessment, defaults: dict[str, dict[str, Any]]) -> list[str]:
    rules = a.rules
    out = []
    for rid, values in sorted(a.options.items()):
        for name, value in values.items():
            default = defaults.get(rid, {}).get(name)
            if show(value) != show(default):
                opt = getattr(rules.get(rid), "options", {}).get(name)
                text = share(value) if opt is not None and opt.kind == "share" else show(value)
                out.append(f"{rid}.{name} = {text} (default {show(default)})")
    return out


def _config(a: Assessment) -> str:
    config = a.config
    if config.file is None:
        return "no config file (dclint defaults)"
    out = config.file
    if tuple(config.select) != ("ALL",):
        out += f"; select {','.join(config.select)}"
    if config.ignore:
        out += f"; ignore {','.join(config.ignore)}"
    for key in ("extend_select", "extend_ignore"):
        if getattr(config, key):
            out += f"; {key.replace('_', '-')} {','.join(getattr(config, key))}"
    return str(out)


@functools.lru_cache(maxsize=1)
def _defaults() -> dict[str, dict[str, Any]]:
    """The built-in rules' options at their defaults, worked out once (read, never changed)."""
    from dclint.engine.config import default_options

    return default_options()


def provenance(a: Assessment) -> tuple[str, str]:
    """A design's configuration in effect and the options that differ from their defaults
    ("none" when none does), as the run details print them."""
    return _config(a), "; ".join(_changed_options(a, _defaults())) or "none"


def metadata(items: Sequence[Reviewed], view: View) -> list[tuple[str, str]]:
    """(item, value) rows: one a run, and one a design file where configs or commits differ."""
    today = view.today or date.today().isoformat()
    argv = view.argv
    command = "dclint " + shlex.join(argv if argv is not None else sys.argv[1:])
    rows = [("Date", str(today)), ("dclint version", __version__), ("Command line", command)]
    files = [r.file for r in items]
    configs: dict[str, str] = {}
    changed: dict[str, str] = {}
    for r in items:
        configs[r.file], changed[r.file] = r.provenance
    commits = git_commits(files)
    for label, per_file in (
        ("Configuration", configs),
        ("Options differing from defaults", changed),
        ("Git commit", commits),
    ):
        values = set(per_file.values())
        if values == {""}:
            continue  # not in a repository: say nothing
        if len(values) == 1:
            rows.append((label, values.pop()))
        else:
            rows += [(f"{label} ({f})", v or "-") for f, v in per_file.items()]
    return rows
