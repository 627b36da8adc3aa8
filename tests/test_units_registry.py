"""dclint.units builds its registry from units.txt without pint's file parser machinery (issue
30, cold speed): the definitions must be exactly those pint's own parser reads from the file."""

from __future__ import annotations

from importlib import resources

from dclint._fastq import Registry
from dclint.units import _plain_definitions, ureg


def _pint_registry() -> Registry:
    path = resources.files("dclint") / "data" / "units.txt"
    with resources.as_file(path) as real_path:
        return Registry(str(real_path), autoconvert_offset_to_baseunit=False, cache_folder=None)


def test_the_registry_holds_what_pints_parser_reads() -> None:
    reference = _pint_registry()
    assert _plain_definitions(
        (resources.files("dclint") / "data" / "units.txt").read_text("utf-8"), reference
    )
    for table in ("_prefixes", "_dimensions", "_base_units"):
        assert getattr(ureg, table) == getattr(reference, table), table
    # pint adds each prefixed unit it parses to its unit table: compare what both define
    assert {k: ureg._units[k] for k in reference._units} == dict(reference._units)
    assert ureg._units_casei.keys() >= reference._units_casei.keys()
    celsius = "degree_Celsius = kelvin; offset: 273.15 = °C = degC = celsius"
    assert ureg._units["degree_Celsius"].raw == celsius
    assert ureg._units["meter"].start_line == reference._units["meter"].start_line


def test_a_line_the_plain_reader_does_not_know_falls_back_to_pint() -> None:
    text = "@defaults\n    system = mks\n@end\nmeter = [length] = m\n"
    assert _plain_definitions(text, _pint_registry()) is None
    assert _plain_definitions("meter = [length] = m\n!!! nonsense\n", _pint_registry()) is None
