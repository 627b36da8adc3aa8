"""The published rule API as a plug-in author meets it: `Rack.field_path` names where a rack's
field was written, and refuses a name that is no rack field (it used to fall back to the
rack's entry, the wrong line, for a misspelt name)."""

from __future__ import annotations

import pytest

from conftest import ROOT
from dclint.api import Rack, topology_of
from dclint.loader import load

SAMPLE = ROOT / "sample_designs" / "h100-40node.yaml"


def _rack() -> Rack:
    return topology_of(load(str(SAMPLE))).racks[0]


def test_field_path_names_where_each_field_was_written() -> None:
    rack = _rack()
    assert rack.id == "h01"
    assert rack.path == ("racks", 0)
    assert rack.field_path("feeds") == ("racks", 0, "feeds")  # the entry's own field
    # from its rack type: the platform, and the load the platform's power x nodes gives
    assert rack.field_path("platform") == ("rack_types", "hgx4", "platform")
    assert rack.field_path("nodes") == ("rack_types", "hgx4", "nodes")
    assert rack.field_path("it_load") == ("rack_types", "hgx4", "platform")
    assert rack.field_path("coolant_flow") == ("racks", 0)  # nobody wrote it: the entry


@pytest.mark.parametrize("name", ["feed", "itload", "gpus"])
def test_field_path_refuses_a_name_that_is_no_rack_field(name: str) -> None:
    with pytest.raises(ValueError, match=rf"^Rack.field_path\('{name}'\): no such rack field"):
        _rack().field_path(name)
