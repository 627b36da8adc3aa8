"""The mapping file (`dclint-import.yaml`): which dclint platform or switch each DCIM device
type is, the fabric tier of each device role, the panel ratings a DCIM does not hold, and for
spreadsheets which sheet and columns hold what. Its JSON Schema is generated from this model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from dclint.errors import ConfigError
from dclint.model.types import Bandwidth, Current, Id, Power, Strict, Voltage

__all__ = [
    "MAPPING_SCHEMA_ID",
    "DeviceTypeMap",
    "FabricMap",
    "Mapping",
    "PanelMap",
    "load_mapping",
    "mapping_schema_text",
]

MAPPING_SCHEMA_ID = "urn:dclint:schema:import-mapping:1"
DEFAULT_MAPPING = "dclint-import.yaml"
# a sheet's name (Excel forbids / \ : in one) or a csv's stem beside the file imported
SHEET_NAME = r"^[^/\\:\x00-\x1f\x7f]+$"

Kind = Literal["gpu_node", "switch", "storage", "cdu", "other", "ignore"]
StatusUse = Literal["active", "planned", "offline", "skip"]
# dclint's documented default: everything that is or will be in the room is load (a node in
# repair comes back and its rack and feeds must carry it); what is being removed is not
DEFAULT_STATUS: dict[str, StatusUse] = {
    "active": "active",
    "connected": "active",
    "available": "active",
    "planned": "planned",
    "staged": "planned",
    "provisioning": "planned",
    "reserved": "planned",
    "offline": "offline",
    "failed": "offline",
    "inventory": "skip",  # in stock, not in a rack
    "decommissioning": "skip",
}


class DeviceTypeMap(Strict):
    """What devices of one type are to dclint."""

    kind: Kind = Field(
        description="gpu_node (a rack's nodes, by `platform`), switch (a fabric switch, by "
        "`switch`), storage, cdu or other (their draw is the rack's extra load), ignore"
    )
    platform: str | None = Field(
        None, description="gpu_node: the platform catalog key, e.g. dgx-h100"
    )
    switch: str | None = Field(None, description="switch: the switch catalog key, e.g. qm9700")
    power: Power | None = Field(
        None, description="Draw of one device, when the DCIM holds none or holds it wrong"
    )


class PanelMap(Strict):
    """What a DCIM does not hold about a panel (NetBox has no panel rating: netbox#5976)."""

    voltage: Voltage | None = Field(
        None, description="Panel voltage (default: its feeds' voltage, when they agree)"
    )
    current_rating: Current = Field(description="Main breaker or bus rating")
    fed_by: Id | None = Field(None, description="The panel upstream, by its dclint id")


class FabricMap(Strict):
    """The explicit fabric built from cables between device interfaces."""

    id: Id = Field("compute", description="The fabric's id in the design")
    kind: Literal["compute", "storage", "frontend"] = Field(
        "compute", description="The fabric's kind"
    )
    link_speed: Bandwidth | None = Field(
        None, description="Speed of a link whose interfaces name none"
    )


class _Table(Strict):
    """Where one table sits: its sheet (xlsx) or file stem (csv), its header row, and the
    header of each column dclint reads. A header may carry the column's unit, `Power (kW)`."""

    sheet: str | None = Field(
        None,
        description="xlsx: the sheet's name; csv: the file's name without .csv beside FILE "
        "(default: FILE itself); a name, never a path: no / \\ : or control characters",
        pattern=SHEET_NAME,
        max_length=255,
    )
    header_row: int = Field(1, ge=1, le=1000, description="The row holding the headers")
    decimal: Literal[".", ","] = Field(
        ".", description="The decimal mark of numbers written as text ('40,8' needs ',')"
    )
    units: dict[str, str] = Field(
        default_factory=dict,
        description="A quantity column's header -> the header of the column holding each "
        "row's unit, e.g. {Design load: Unit}",
    )
    skip_rows: list[int] = Field(
        default_factory=list, description="Rows (as the sheet numbers them) not read"
    )
    stop_at: str | None = Field(
        None,
        description="A cell text that ends the table (e.g. 'Notes'): its row and every row "
        "after it are not read (total rows and footers after a blank row are recognised "
        "without it)",
    )

    @field_validator("sheet", mode="before")
    @classmethod
    def _a_name_not_a_path(cls, value: Any) -> Any:
        # a csv is read from FILE's folder by this name: a path here would reach any file
        if isinstance(value, str) and re.search(r"[/\\:\x00-\x1f\x7f]", value):
            raise ValueError(
                "a sheet's name, or a csv's name (without .csv) beside the file imported; "
                "a path (/, \\, :) is refused: a mapping reads nothing outside that folder"
            )
        return value


class Column(Strict):
    """A column by its header, with the unit its bare numbers are in."""

    column: str = Field(description="The column's header")
    unit: str | None = Field(None, description="The unit of its bare numbers, e.g. kW")


class PanelColumns(Strict):
    id: str = Field(description="Header of the panel's name")
    voltage: str | Column | None = Field(None, description="Header of its voltage")
    current_rating: str | Column | None = Field(None, description="Header of its rating (A)")
    path: str | None = Field(None, description="Header of its power path (A/B)")


class FeedColumns(Strict):
    id: str = Field(description="Header of the feed's name")
    panel: str | None = Field(None, description="Header of the panel it hangs on")
    rack: str | None = Field(None, description="Header of the rack it feeds")
    voltage: str | Column = Field(description="Header of its voltage")
    current_rating: str | Column = Field(description="Header of its breaker rating")
    phases: str | None = Field(None, description="Header of its phase count (1 or 3)")
    path: str | None = Field(None, description="Header of its power path (A/B)")
    max_utilisation: str | None = Field(None, description="Header of its max utilisation")


class RackColumns(Strict):
    id: str = Field(description="Header of the rack's name")
    platform: str | None = Field(None, description="Header of its platform catalog key")
    nodes: str | None = Field(None, description="Header of its node count")
    it_load: str | Column | None = Field(None, description="Header of its IT load")
    row: str | None = Field(None, description="Header of its row")


class DeviceColumns(Strict):
    name: str = Field(description="Header of the device's name")
    rack: str = Field(description="Header of the rack it sits in")
    type: str = Field(description="Header of its model (a key of device_types)")
    role: str | None = Field(None, description="Header of its role (a key of roles)")
    power: str | Column | None = Field(None, description="Header of its power draw")


class PanelTable(_Table):
    columns: PanelColumns = Field(description="Headers of the columns read")


class FeedTable(_Table):
    columns: FeedColumns = Field(description="Headers of the columns read")


class RackTable(_Table):
    columns: RackColumns = Field(description="Headers of the columns read")


class DeviceTable(_Table):
    columns: DeviceColumns = Field(description="Headers of the columns read")


class SheetsMap(Strict):
    """csv/xlsx: which sheet and columns hold each table (any may be left out)."""

    panels: PanelTable | None = Field(None, description="The panels' table")
    feeds: FeedTable | None = Field(None, description="The feeds' table")
    racks: RackTable | None = Field(None, description="The racks' table")
    devices: DeviceTable | None = Field(None, description="The devices' table")


class Mapping(Strict):
    """`dclint-import.yaml`: how a DCIM's or a spreadsheet's objects become a dclint design."""

    name: Id | None = Field(None, description="The design's name (default: the site's)")
    site: str | None = Field(
        None, description="The site (NetBox) or location (Nautobot) to import, by name or slug"
    )
    device_types: dict[str, DeviceTypeMap] = Field(
        default_factory=dict,
        description="Device type (NetBox slug, Nautobot or sheet model) -> what it is",
    )
    roles: dict[str, str] = Field(
        default_factory=dict,
        description="Device role (slug or name) -> fabric tier of the switches holding it",
    )
    panels: dict[str, PanelMap] = Field(
        default_factory=dict,
        description="Panel name -> its rating; the key '*' applies to every panel not named",
    )
    power_draw: Literal["catalog", "allocated", "maximum"] = Field(
        "catalog",
        description="GPU nodes draw their platform's catalog power (catalog), or the DCIM's "
        "allocated or maximum draw of their power ports",
    )
    fabric: FabricMap = Field(default_factory=FabricMap, description="The fabric built")
    status: dict[str, StatusUse] = Field(
        default_factory=lambda: dict(DEFAULT_STATUS),
        description="DCIM status (of a rack, device or feed) -> how the import counts it: "
        "active, planned (counted, marked planned), offline (counted: a node in repair comes "
        "back; marked offline_nodes) or skip (not imported, on the ledger). Default: active, "
        "connected, available -> active; planned, staged, provisioning, reserved -> planned; "
        "offline, failed -> offline; inventory, decommissioning -> skip. A status not listed "
        "is skipped",
    )
    rows: Literal["group", "location", "facility_id", "none"] = Field(
        "group",
        description="Where a rack's row comes from: group (Nautobot's rack_group, else the "
        "rack's own location when it sits below the imported one, NetBox 4's rack-group "
        "equivalent), location, facility_id (a floor-grid cell), none",
    )
    node_count: Literal["both", "racks", "devices"] = Field(
        "both",
        description="Spreadsheets: a rack's node count column and its device rows count the "
        "same nodes. both: they must agree (else an error at both cells); racks or devices: "
        "that source wins and the ledger says so",
    )
    rack_platforms: dict[str, Id | None] = Field(
        default_factory=dict,
        description="A value of the racks' platform column -> the platform catalog key, or "
        "null for a rack without GPU nodes (network, storage)",
    )
    sheets: SheetsMap | None = Field(
        None, description="csv/xlsx: which sheet and columns hold racks, feeds, panels, devices"
    )


def mapping_schema() -> dict[str, Any]:
    """The mapping file's JSON Schema, its quantities described as the design schema's are."""
    from dclint.model.schema import _describe

    schema = Mapping.model_json_schema(mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": MAPPING_SCHEMA_ID,
    }
    out.update(schema)
    for model, node in [("Mapping", out), *out.get("$defs", {}).items()]:
        for name, prop in node.get("properties", {}).items():
            _describe(model, name, prop)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            _describe(model, "*", extra)
    return out


def mapping_schema_text() -> str:
    return json.dumps(mapping_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def load_mapping(path: str | None) -> tuple[Mapping, str | None]:
    """The mapping file named, else `dclint-import.yaml` here if it exists, else an empty one."""
    if path is None:
        if not Path(DEFAULT_MAPPING).is_file():
            return Mapping(), None
        path = DEFAULT_MAPPING
    from dclint.loader.readfile import FileRejected, read_regular
    from dclint.loader.yamlsafe import MAX_BYTES, YamlError, decode, read_yaml

    try:
        data, source = read_yaml(path, decode(path, read_regular(path, MAX_BYTES, "mapping")))
    except FileRejected as exc:
        raise ConfigError(f"--map {path}: {exc}") from None
    except YamlError as exc:
        raise ConfigError(str(exc.problems[0])) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1:1: a mapping file is a mapping of keys to values")
    try:
        return Mapping.model_validate(data, strict=False), path
    except ValidationError as exc:
        from dclint.model.value_messages import value_message

        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line, col = source.values.get(loc, source.keys.get(loc, (1, 1)))
            where = ".".join(str(p) for p in loc)
            # as a design's values are said ('expected a mapping, got a list'), not pydantic's
            # words ('Input should be a valid dictionary or instance of SheetsMap')
            if err["type"] == "missing":  # at the table that lacks it, as a design's
                parent = loc[:-1]
                line, col = source.values.get(parent, source.keys.get(parent, (1, 1)))
                inside = ".".join(str(p) for p in parent) or "the mapping file"
                problems.append(
                    f"{path}:{line}:{col}: missing required key '{loc[-1]}' in {inside}"
                )
                continue
            if err["type"] == "extra_forbidden":  # as a design's: the key, and what it meant
                line, col = source.keys.get(loc, (line, col))
                problems.append(f"{path}:{line}:{col}: unknown key '{loc[-1]}'{_meant(loc)}")
                continue
            said = (  # a validator's own sentence, as engine.options says it
                str(err["msg"]).removeprefix("Value error, ")
                if err["type"] == "value_error"
                else value_message(err)
            )
            problems.append(f"{path}:{line}:{col}: {where}: {said}")
        raise ConfigError(problems[0], problems=[]) from None


def _meant(loc: tuple[Any, ...]) -> str:
    """' in sheets.racks; did you mean 'columns'?': where an unknown key is, and the key of
    the mapping file's model there it is closest to."""
    from dclint.model.hints import did_you_mean

    model: Any = Mapping
    for part in loc[:-1]:
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            model = None
            break
        model = _model_of(field.annotation)
    where = ".".join(str(p) for p in loc[:-1])
    known = list(getattr(model, "model_fields", {})) if model is not None else []
    return (f" in {where}" if where else " in the mapping file") + (
        did_you_mean(str(loc[-1]), known) if known else ""
    )


def _model_of(annotation: Any) -> Any:
    """The pydantic model an annotation holds (`SheetsMap | None` -> SheetsMap), else None."""
    import typing

    for candidate in (annotation, *typing.get_args(annotation)):
        if hasattr(candidate, "model_fields"):
            return candidate
    return None
