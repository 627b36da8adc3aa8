"""The command line's parser is built once a process for each command and reused by main()."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from dclint.cli import COMMANDS, build_parser, main

SAMPLE = str(ROOT / "sample_designs" / "h100-40node.yaml")


def _parsed(argv: list[str]) -> dict[str, object]:
    args, _ = build_parser(argv[0]).parse_known_args(argv)
    return {k: v for k, v in vars(args).items() if k != "subparsers"}


def test_each_command_has_one_parser_a_process() -> None:
    for command in COMMANDS:
        assert build_parser(command) is build_parser(command), command
    assert build_parser(None) is build_parser("no-such-command")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--today", "2026-12-02", "--format", "json", SAMPLE],
        ["check", "--today", "2026-12-02", "--select", "PWR", "--ignore", "PWR002", SAMPLE],
        ["cost", "--today", "2026-12-02", SAMPLE],
        ["explain", "PAR005"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_a_run_leaves_its_commands_defaults_as_they_were(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A parse hands its namespace the parser's default objects (a list default itself): a
    command that changed one would change every later run of the process."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DCLINT_NO_CACHE", "1")
    before = repr(_parsed(argv))
    first = main(argv), capsys.readouterr()
    assert repr(_parsed(argv)) == before
    assert (main(argv), capsys.readouterr()) == first
