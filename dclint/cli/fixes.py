"""`check --fix`, `--unsafe-fixes`, `--diff`, `--fix-includes` and `--add-suppressions REASON`:
mend what the findings offer to mend, as ruff does, then report what is left."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_arguments", "fixing", "run_fixes"]


def add_arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument("--fix", action="store_true", help="apply the safe fixes, then report")
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix or --diff, also the fixes that change the design (ratings, counts, "
        "the best layout)",
    )
    check.add_argument(
        "--diff", action="store_true", help="print the fixes as a unified diff; write nothing"
    )
    check.add_argument(
        "--fix-includes",
        action="store_true",
        help="let fixes edit the included files (fragments) a value is written in",
    )
    check.add_argument(
        "--add-suppressions",
        metavar="REASON",
        help="add a suppression with REASON for every current finding (adopting dclint)",
    )


def fixing(args: argparse.Namespace) -> bool:
    return bool(
        getattr(args, "fix", False)
        or getattr(args, "diff", False)
        or getattr(args, "add_suppressions", None)
    )


def run_fixes(args: argparse.Namespace, result: Any, engine: Any = None) -> int | None:
    """Apply (or, with --diff, print) the fixes. Returns the exit code for --diff (1 when
    there is something to fix, as ruff), else None: the caller checks again and reports.
    `engine` (the one that checked) names the configs it found, whose ignored `rules-dir` a
    safe fix removes, and the configs whose ratio options a safe fix respells `N:1`."""
    from dclint.cli._output import write_atomic
    from dclint.errors import ConfigError
    from dclint.fix import files
    from dclint.fix.apply import plan_fixes, plan_suppressions, read_for_fix

    reason = getattr(args, "add_suppressions", None)
    if reason is not None:
        reason = " ".join(str(reason).split())
        if not reason:
            raise ConfigError("--add-suppressions needs a reason, e.g. 'accepted at adoption'")
        plan = plan_suppressions(result, reason, fix_includes=args.fix_includes)
    else:
        plan = plan_fixes(result, unsafe=args.unsafe_fixes, fix_includes=args.fix_includes)
        if engine is not None:
            from dclint.fix.config import ratio_respellings, rules_dir_removals

            configs = [*engine.found_configs(), engine.config]
            found = rules_dir_removals(engine.found_configs())
            for name, edit, done in found + ratio_respellings(configs, engine.rules):
                if read_for_fix(plan, name) is not None:
                    plan.edits.setdefault(name, []).append(edit)
                    plan.fixed(name, done)
    # what was fixed is said before a text report; another format is its report alone
    say = sys.stdout if args.format == "text" else None
    if args.diff:
        text = plan.diff()
        sys.stdout.write(text)
        _left(plan)
        return 1 if text else 0
    written = set()
    for name, new in plan.new_texts().items():
        kept = plan.kept[name]

        def replace(path: str, data: bytes) -> None:
            write_atomic(path, data, "--fix", replaces_input=True)

        why = files.write(name, kept, files.encode(kept, new), replace)
        if why is None:
            written.add(name)
        else:
            plan.skipped.append(f"{name}: {why}; its fixes were not applied")
    for line in plan.done_lines(written) if say else ():  # only fixes written and read back
        print(line, file=say)
    _left(plan)
    return None


_INCLUDED = ": in an included file (--fix-includes)"


def _left(plan: Any) -> None:
    """What was not fixed, on stderr: each skipped fix, and a count of the unsafe ones. The
    findings left in included files without --fix-includes are one line (a suppression run
    on a tree whose library many designs include met each of them once a rack and a design),
    naming the places; the report after it lists the findings."""
    included = list(
        dict.fromkeys(x[: -len(_INCLUDED)] for x in plan.skipped if x.endswith(_INCLUDED))
    )
    for line in plan.skipped:
        if not line.endswith(_INCLUDED):
            print(f"dclint: not fixed: {line}", file=sys.stderr)
    if included:
        n = len(included)
        shown = ", ".join(included[:3]) + (f" and {n - 3} more" if n > 3 else "")
        print(
            f"dclint: left {n} place{'s' if n != 1 else ''} in included files as written "
            f"({shown}); --fix-includes edits them",
            file=sys.stderr,
        )
    if plan.hidden:
        n = plan.hidden
        print(
            f"dclint: {n} more fix{'es' if n != 1 else ''} would change the design; "
            f"see {'them' if n != 1 else 'it'} with --diff --unsafe-fixes, apply with --fix "
            "--unsafe-fixes",
            file=sys.stderr,
        )
