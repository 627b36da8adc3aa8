"""DCL005 reads the items of lists and tables of quantities (flow and block style), two fixes of
one text are never both applied silently, and `check --watch` clears the terminal between runs.
Each test failed before its fix (the watch one pins what already worked)."""

from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path

import pytest

from dclint.cli import main

DESIGN = """\
name: t
site: {utility_capacity: 1.5 MW, currency: CNY, exchange_rates: {USD: 7.2CNY}}
racks:
  - {id: r01, type: a, it_load: 100 kW}
rack_types: {a: {platform: gb200-nvl72, it_load: 120 kW, coolant_flow: 150 L/min}}
catalog:
  switches:
    qm9700: {split_speeds: [400Gbps, '200 Gbps']}
    q3400:
      split_speeds:
        - 400Gbps  # 400 Gbps in the datasheet
        - 200 Gb/s
  gpus:
    b200:
      dense_flops:
        bf16: 2250TFLOPS
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check", "--today", "2026-12-05", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_items_of_lists_and_tables_of_quantities_are_read(work, capsys) -> None:
    (work / "d.yaml").write_text(DESIGN)
    code, out, err = _check("--select", "DCL005", "d.yaml", capsys=capsys)
    assert out.splitlines() == [
        "d.yaml:2:71: DCL005 [info] exchange_rates.USD is written '7.2CNY'; dclint writes it "
        "'7.2 CNY'",
        "d.yaml:8:29: DCL005 [info] split_speeds[0] is written '400Gbps'; dclint writes it "
        "'400 Gb/s' [2 subjects: line [8,11]]",
        "d.yaml:8:39: DCL005 [info] split_speeds[1] is written '200 Gbps'; dclint writes it "
        "'200 Gb/s'",
        "d.yaml:16:15: DCL005 [info] dense_flops.bf16 is written '2250TFLOPS'; dclint writes it "
        "'2250 TFLOPS'",
        "Found 5 infos in 1 design.",
    ]
    assert (code, err) == (0, "")


def test_their_fixes_replace_the_items_text_only(work, capsys) -> None:
    (work / "d.yaml").write_text(DESIGN)
    code, _, err = _check("--select", "DCL005", "--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == (
        DESIGN.replace("7.2CNY", "7.2 CNY")
        .replace("[400Gbps, '200 Gbps']", "[400 Gb/s, '200 Gb/s']")
        .replace("- 400Gbps  #", "- 400 Gb/s  #")
        .replace("2250TFLOPS", "2250 TFLOPS")
    )
    assert (code, err) == (0, "")


RESPELL = '''\
"""A test rule that offers another text for DCL005's value: two fixes of one span."""

from dclint.engine.rule import Change, Rule, Violation


class Rewrites(Rule):
    id = "TST902"
    name = "rewrites-the-load"
    severity = "warning"
    tags = ("test",)

    def check(self, design, ctx):
        yield Violation(
            ("racks", 0, "it_load"),
            "rack r01's load is rewritten",
            subject="r01",
            changes=(Change("90 kW", "set it_load to 90 kW", ("racks", 0, "it_load"), safe=True),),
        )
'''


def test_two_fixes_of_one_text_the_second_is_skipped_and_said(work, capsys) -> None:
    """Before: the first fix at a span won and the second vanished without a word."""
    (work / "plugins").mkdir()
    (work / "plugins" / "tst902_rewrites.py").write_text(RESPELL)
    (work / "d.yaml").write_text("name: t\nracks:\n  - {id: r01, it_load: 100kW}\n")
    argv = ("--rules-dir", "plugins", "--select", "DCL005,TST902", "--fix", "d.yaml")
    code, out, err = _check(*argv, capsys=capsys)
    # the findings in file order, DCL005's first: its respelling is made, TST902's is not
    assert (work / "d.yaml").read_text() == "name: t\nracks:\n  - {id: r01, it_load: 100 kW}\n"
    assert out.splitlines() == [
        "d.yaml:3: DCL005 fixed: respelled 100kW as 100 kW",
        "d.yaml:3:24: TST902 [warning] rack r01's load is rewritten",
        "Found 1 warning in 1 design.",
    ]
    assert err.splitlines() == [
        "dclint: not fixed: d.yaml:3: TST902: it would rewrite the text DCL005's fix rewrites "
        "(line 3); run --fix again"
    ]
    assert code == 0  # a warning: the exit code fails on errors


def test_the_same_fix_offered_twice_is_made_once(work, capsys) -> None:
    """A range entry's value, respelled for each of its racks, is one edit, not a collision."""
    (work / "d.yaml").write_text("name: t\nracks:\n  - {id: 'r[1-3]', it_load: 100kW}\n")
    code, out, err = _check("--select", "DCL005", "--fix", "d.yaml", capsys=capsys)
    assert out.splitlines()[-1] == "All checks passed: 1 design, no findings."
    assert (work / "d.yaml").read_text() == (
        "name: t\nracks:\n  - {id: 'r[1-3]', it_load: 100 kW}\n"
    )
    assert (code, err) == (0, "")


@pytest.mark.parametrize(("tty", "clear"), [(True, "\033[2J\033[H"), (False, "")])
def test_watch_clears_the_screen_before_each_run(
    tty: bool, clear: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On a terminal each run starts on an erased screen, cursor home (ED 2, CUP); piped, the
    output has no escape sequences."""
    from dclint.cli.watch import watch

    def changes(*roots: str, **_: object):  # one batch of changes, then Ctrl-C
        yield {(2, "d.yaml")}
        raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "watchfiles", types.SimpleNamespace(watch=changes))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    runs: list[int] = []

    def check(args: argparse.Namespace) -> int:
        runs.append(1)
        print(f"run {len(runs)}")
        return 0

    args = argparse.Namespace(paths=[], output=None, config=None)
    assert watch(args, check) == 0
    out, err = capsys.readouterr()
    assert out == f"{clear}run 1\n{clear}run 2\n"
    assert err.splitlines() == [
        "dclint: watching for changes (Ctrl-C to stop)",
        "dclint: watching for changes (Ctrl-C to stop)",
        "dclint: stopped watching",
    ]
