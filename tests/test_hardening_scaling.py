"""Issue 27 item 7: work that was quadratic in its input is linear. A `--set` path of 20,000
parts (its parsing, the walk down the design, the id lookup through every prefix); the diagram
writers with 20,000 rack groups (Mermaid's widest layer, each edge looked up in a list, layers
scanned once each); the pre-commit hook reads no file past the loader's size limit.

The diagram tests count the comparisons they make (a counting key and layer); the `--set` tests
compare the time of a path four times as long, with a generous bound (linear work takes four
times as long, quadratic sixteen), so neither depends on the machine's speed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from _hardening import LIMIT_S, dclint

from dclint.analysis.diagrams import Graph, Node, grouped
from dclint.cli import main
from dclint.cli.precommit import main as hook
from dclint.errors import LoadError
from dclint.loader.load import load_text
from dclint.loader.overrides import parse_overrides
from dclint.report.drawing import mermaid, svg

DESIGN = "name: t\nracks:\n  - {id: r01, it_load: 10 kW, row: a}\n  - {id: r02, it_load: 10 kW}\n"
PATHS: dict[str, Callable[[int], str]] = {
    "a mapping path": lambda n: ".".join(["site", *["a"] * n]),
    "an id path": lambda n: ".".join(["racks", *["r01"] * n]),
    "an index path": lambda n: "racks" + "[0]" * n,
    "an unknown id": lambda n: ".".join(["racks", *["x"] * n]),
}


def _load_error(path: str) -> list[str]:
    try:
        load_text(DESIGN, "d.yaml", overrides=parse_overrides([f"{path}=1"]))
    except LoadError as exc:
        return [p.message for p in exc.problems]
    raise AssertionError("the path loaded")


def _best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


@pytest.mark.parametrize("shape", sorted(PATHS))
def test_a_set_path_four_times_as_long_takes_about_four_times_as_long(shape: str) -> None:
    short, long = PATHS[shape](2_000), PATHS[shape](8_000)
    assert len(_load_error(long)) == 1
    small = _best_of(3, lambda: _load_error(short))
    large = _best_of(3, lambda: _load_error(long))
    assert large < 8 * small + 0.05, (small, large)  # quadratic: 16 x small


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ("a mapping path", "the path is deeper than the 64 levels a design may nest"),
        ("an id path", "the path is deeper than the 64 levels a design may nest"),
        ("an index path", "racks[0].0 has 0 items, no index 0"),
        ("an unknown id", "no item with id 'x' in racks (ids: r01, r02)"),
    ],
)
def test_a_set_path_of_20000_parts_is_one_short_error_line(
    shape: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(DESIGN, encoding="utf-8")
    text = f"{PATHS[shape](20_000)}=1"
    assert main(["check", str(design), "--set", text]) == 2
    shown = f"{text[:80]}...{text[-37:]}"  # the flag cut short in the middle
    assert capsys.readouterr().out.splitlines() == [
        f"--set:1:1: error: --set {shown}: {message}",
        "Found 1 load error in 1 design.",
    ]


class _Counted(str):
    """A node key that counts the comparisons made with it."""

    made = 0

    def __eq__(self, other: object) -> bool:
        _Counted.made += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


class _Layer(int):
    made = 0

    def __eq__(self, other: object) -> bool:
        _Layer.made += 1
        return int.__eq__(self, other)

    __hash__ = int.__hash__


def _wide(n: int) -> Graph:
    """A feed box above `n` rack groups, each with its own load: nothing to group."""
    g = Graph("power")
    g.add(Node(_Counted("feeds:p"), "feeds", "f", _Layer(1), 0.5))
    for i in range(n):
        key = _Counted(f"racks:g{i}")
        g.add(Node(key, f"r{i}", f"{i} kW", _Layer(2), 0.1))
        g.link(_Counted("feeds:p"), key)
        g.link(_Counted("feeds:p"), key)  # linked twice: drawn once
    return g


@pytest.mark.parametrize("n", [500, 2_000])
def test_the_diagram_writers_compare_each_key_and_layer_a_bounded_number_of_times(n: int) -> None:
    _Counted.made = _Layer.made = 0
    g = _wide(n)
    assert len(g.edges) == n
    drawn = [mermaid(grouped(g)), svg(g, "t", "x")]
    assert drawn[0].count(" --> ") == n
    assert drawn[1].count('class="node') == n + 1
    assert _Counted.made < 20 * n, _Counted.made  # a list scan an edge: n * n / 2
    assert _Layer.made < 20 * n, _Layer.made  # a scan of the nodes a node: n * n


def test_the_hook_reads_no_file_past_the_size_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("big.yaml", "other.yml"):  # sparse: 50 MB on no disk
        with open(name, "wb") as handle:
            handle.truncate(50 * 1024 * 1024)
    Path("ok.yaml").write_text(DESIGN, encoding="utf-8")
    read = [0]
    real = os.read

    def counted(fd: int, n: int) -> bytes:
        data = real(fd, n)
        read[0] += len(data)
        return data

    monkeypatch.setattr(os, "read", counted)
    assert hook(["big.yaml", "ok.yaml"]) == 2
    assert capsys.readouterr().out.splitlines() == [
        "big.yaml:1:1: error: file is over the 10,485,760-byte limit for a design",
        "Found 1 load error in 2 designs.",
    ]
    assert read[0] < 1024 * 1024, read[0]


@pytest.mark.integration  # wall-clock bound
def test_a_set_path_of_20000_parts_answers_at_once(tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(DESIGN, encoding="utf-8")
    proc, seconds = dclint(
        "check", "d.yaml", "--set", f"{PATHS['an id path'](20_000)}=1", cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert seconds < LIMIT_S


@pytest.mark.integration  # wall-clock bound
def test_markdown_of_20000_rack_groups_takes_about_as_long_as_text(tmp_path: Path) -> None:
    feeds = "  - {id: a, voltage: 415 V, current_rating: 100 A, path: A}\n"
    lines = ["name: g", "power:", "  feeds:", feeds.rstrip("\n").replace("  -", "    -"), "racks:"]
    lines += [
        f"  - {{id: r{i:05d}, it_load: {10 + i / 10_000:.4f} kW, row: row{i:05d}, feeds: [a]}}"
        for i in range(20_000)
    ]
    (tmp_path / "g.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    took = {}
    for fmt in ("text", "markdown"):
        proc, took[fmt] = dclint("check", "g.yaml", "--format", fmt, cwd=tmp_path, timeout=300)
        assert proc.returncode == 1, proc.stderr
    assert took["markdown"] < 1.5 * took["text"] + 2, took  # it was 6 x text
