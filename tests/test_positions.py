"""Positions are read lazily: none while a clean design is checked, one pass for a batch of
findings, and the same answers as reading every position up front."""

from __future__ import annotations

from pathlib import Path

import dclint
from dclint.engine.runner import Engine
from dclint.loader.yamlsafe import read_yaml
from dclint.model.source import Position

TEXT = """\
name: t
racks:
  - id: r01
    feeds: [a, b]
  - id: r02
    "quoted key": 1
fabric:
  links:
    - {a: r01, b: leaf, speed: 400 Gb/s}
"""


def _counting(text: str) -> tuple[object, list[object]]:
    _, source = read_yaml("d.yaml", text)
    calls: list[object] = []
    reread = source.reread
    assert reread is not None

    def counted(src, want):  # type: ignore[no-untyped-def]
        calls.append(None if want is None else sorted(map(str, want)))
        reread(src, want)

    source.reread = counted
    return source, calls


def test_nothing_is_recorded_until_a_position_is_asked_for() -> None:
    source, calls = _counting(TEXT)
    assert source.tables() == ({}, {})  # type: ignore[attr-defined]
    assert calls == []


def test_a_batch_is_read_in_one_pass_and_matches_the_full_table() -> None:
    lazy, calls = _counting(TEXT)
    wanted = [("racks", 1, "quoted key"), ("fabric", "links", 0, "speed"), ("racks", 0, "feeds", 1)]
    lazy.prefetch(wanted)  # type: ignore[attr-defined]
    assert len(calls) == 1
    _, full = read_yaml("d.yaml", TEXT)
    for path in wanted:
        for key in (False, True):
            assert lazy.locate(path, key=key) == full.locate(path, key=key)  # type: ignore[attr-defined]
    assert len(calls) == 1  # locating what was fetched reads nothing again
    assert full.locate(("racks", 1, "quoted key"), key=True) == Position("d.yaml", 6, 5)
    assert full.locate(("fabric", "links", 0, "speed")) == Position("d.yaml", 9, 32)
    assert full.locate(("racks", 0, "feeds", 1)) == Position("d.yaml", 4, 16)
    # a path that was never written falls back to its nearest written ancestor
    assert full.locate(("racks", 0, "it_load")) == Position("d.yaml", 3, 5)
    assert len(full.values) == 17 and len(full.keys) == 11


def test_a_reread_finds_what_the_first_read_would_have_recorded() -> None:
    """Re-reads keep no data (lists hold Nones); paths through aliased keys still match."""
    from dclint.loader import yamlsafe
    from dclint.loader.builder import Builder
    from dclint.model.source import Source

    text = TEXT + "anchors:\n  - &k r01\n  - {*k : [1, {x: *k}], y: 2}\n"
    built = Source("d.yaml", text)
    parser = yamlsafe._Parser(text)
    Builder(built, None).run(parser)  # the data and every position, in one read
    parser.dispose()
    want = set(built.tables()[0]) | set(built.tables()[1])  # type: ignore[attr-defined]
    assert ("anchors", 1, "r01", 1, "x") in want
    lazy, calls = _counting(text)
    lazy.prefetch(want)  # type: ignore[attr-defined]
    assert lazy.tables() == built.tables()  # type: ignore[attr-defined]
    assert len(calls) == 1


def test_equal_scalars_are_one_object() -> None:
    data, _ = read_yaml("d.yaml", "a: [r01, r01, '400 Gb/s']\nb: {r01: 400 Gb/s}\n")
    assert data["a"][0] is data["a"][1]
    assert data["a"][2] is data["b"]["r01"]  # quoted or plain, the same text
    assert next(iter(data["b"])) is data["a"][0]  # keys too


def test_a_check_with_findings_reads_positions_once(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    design = tmp_path / "d.yaml"
    design.write_text(Path("sample_designs/broken-rack-130kw.yaml").read_text(encoding="utf-8"))
    passes: list[object] = []
    from dclint.loader import yamlsafe

    real = yamlsafe._reread

    def counted(source, want):  # type: ignore[no-untyped-def]
        passes.append(want)
        real(source, want)

    monkeypatch.setattr(yamlsafe, "_reread", counted)
    result = Engine().check_file(str(design))
    assert {f.rule for f in result.findings} == {"PWR001"}
    assert len(passes) == 1 and passes[0] is not None


def test_record_fields_are_strict_and_report_unknown_keys() -> None:
    text = (
        "name: t\nfabrics:\n  - id: f\n    kind: compute\n    switches:\n"
        "      - {id: s1, model: qm9700, tier: leaf, colour: red}\n      - [x]\n"
        "    links:\n      - {a: s1, b: s1, count: '4', sped: 400 Gb/s}\n"
    )
    try:
        dclint.load_text(text, "d.yaml")
    except dclint.LoadError as exc:
        got = [str(p) for p in exc.problems]
    assert got == [
        "d.yaml:6:45: unknown key 'colour' in fabrics[0].switches[0]",
        "d.yaml:7:9: fabrics[0].switches[1]: expected a mapping, got a list",
        "d.yaml:9:9: missing required key 'speed' in fabrics[0].links[0]",
        "d.yaml:9:31: fabrics[0].links[0].count: expected a number, got '4'"
        " (quoted, so it is text: write it without quotes)",
        "d.yaml:9:36: unknown key 'sped' in fabrics[0].links[0]; did you mean 'speed'?",
    ]


def test_a_reread_stops_once_every_wanted_path_is_found(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dclint.loader import yamlsafe

    text = "name: t\nracks:\n" + "".join(f"  - {{id: r{i:05}, type: a}}\n" for i in range(4000))
    read: list[int] = []
    real = yamlsafe._Chunks.read

    def counted(self, size=-1):  # type: ignore[no-untyped-def]
        chunk = real(self, size)
        read.append(len(chunk))
        return chunk

    monkeypatch.setattr(yamlsafe._Chunks, "read", counted)
    _, source = read_yaml("d.yaml", text)
    assert sum(read) == len(text)
    read.clear()
    assert source.locate(("racks", 2, "type")) == Position("d.yaml", 5, 24)
    assert 0 < sum(read) <= 16384 < len(text) // 4  # one chunk of the text, not all of it
    read.clear()
    assert source.locate(("racks", 3999, "id"), key=True) == Position("d.yaml", 4002, 6)
    assert sum(read) == len(text)


def test_a_reread_passes_over_subtrees_no_wanted_path_is_in() -> None:
    text = "a:\n  - &k r01\n  - [1, {y: 2}]\nb:\n  *k : {x: 1}\n"
    lazy, calls = _counting(text)
    assert lazy.locate(("b", "r01", "x")) == Position("d.yaml", 5, 12)  # type: ignore[attr-defined]
    assert lazy.locate(("b", "r01"), key=True) == Position("d.yaml", 5, 3)  # type: ignore[attr-defined]
    assert lazy.tables()[0] == {
        (): (1, 1),
        ("b",): (5, 3),
        ("b", "r01"): (5, 8),
        ("b", "r01", "x"): (5, 12),
    }  # type: ignore[attr-defined]
    assert len(calls) == 1  # the anchor inside the passed-over list was still read
