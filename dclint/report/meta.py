"""The review's provenance: date, dclint version, configuration in effect, the design files'
git commit and the command line, so a printed review can be traced to what produced it."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from datetime import date
from typing import Any

from dclint._version import __version__
from dclint.analysis.assess.assessment import Assessment
from dclint.report.commits import commits as git_commits
from dclint.report.values import share, show
from dclint.report.view import View

__all__ = ["metadata"]


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


def metadata(items: Sequence[Assessment], view: View) -> list[tuple[str, str]]:
    """(item, value) rows: one a run, and one a design file where configs or commits differ."""
    from dclint.engine.config import default_options

    today = view.today or date.today().isoformat()
    argv = view.argv
    command = "dclint " + shlex.join(argv if argv is not None else sys.argv[1:])
    rows = [("Date", str(today)), ("dclint version", __version__), ("Command line", command)]
    defaults = default_options()
    files = [a.file for a in items]
    configs = {a.file: _config(a) for a in items}
    changed = {a.file: "; ".join(_changed_options(a, defaults)) or "none" for a in items}
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
