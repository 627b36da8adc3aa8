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


def test_the_rule_api_reference_is_generated_and_in_sync(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/rule-api.md is `dclint schema --api-doc`: every exported name in its facet, and
    the fields a rule reads (a rack's `feeds`, found here and not in the model code)."""
    import dclint.api
    from dclint.cli import main

    assert main(["schema", "--api-doc"]) == 0
    text = capsys.readouterr().out
    assert text == (ROOT / "docs" / "rule-api.md").read_text(encoding="utf-8"), (
        "docs/rule-api.md is stale: run `dclint schema --api-doc > docs/rule-api.md`"
    )
    rows = [
        line.split(" | ")[0].strip("| `") for line in text.splitlines() if line.startswith("| `")
    ]
    assert set(dclint.api.__all__) <= set(rows)
    assert "| `feeds` | `list[FeedItem]` |  |" in text.split("### `Rack`")[1].split("###")[0]
    assert "| `Power` | value type | a quantity of power, written like `120 kW` |" in text
    assert [h for h in text.splitlines() if h.startswith("## ")] == [
        "## Rule surface",
        "## Design and topology",
        "## Facts",
        "## Calculators (provisional)",
        "## Layout predicates",
        "## What a rule reads",
    ]
