"""The tests run in two tiers, and CI runs both: the README's test command (which `.ci/run`
runs exactly) is the default tier then `pytest -m integration`."""

from __future__ import annotations

import shlex
import tomllib

from conftest import ROOT


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("```sh")
    return lines[start + 1 : start + 3]


def test_the_default_tier_leaves_integration_out() -> None:
    pytest_ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "pytest"
    ]["ini_options"]
    assert any(m.startswith("integration:") for m in pytest_ini["markers"])
    args = shlex.split(pytest_ini["addopts"])
    assert args[args.index("-m") + 1] == "not integration"


def test_ci_runs_the_readme_test_command_with_both_tiers() -> None:
    _, tests = _readme_commands()
    assert tests.endswith(" && pytest && pytest -m integration")
    after_venv = tests.split(" && ", 2)[2]  # the venv is .ci/run's own, outside the checkout
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == after_venv
