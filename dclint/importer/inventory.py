"""What an import reads, whatever the source: sites, panels, feeds, racks, devices and cables,
each with the object it came from. Readers fill it; the design builder reads it."""

from __future__ import annotations

from dataclasses import dataclass, field

from dclint.importer.ledger import Ledger

__all__ = [
    "CableRec",
    "DeviceRec",
    "DeviceTypeRec",
    "FeedRec",
    "ImportProblem",
    "Inventory",
    "PanelRec",
    "RackRec",
]


@dataclass(frozen=True, slots=True)
class PanelRec:
    name: str
    origin: str
    path: str | None = None  # Nautobot's power_path (a/b)
    voltage: float | None = None  # V, a sheet may give it; DCIMs do not
    current_rating: float | None = None  # A


@dataclass(frozen=True, slots=True)
class FeedRec:
    name: str
    origin: str
    panel: str | None
    rack: str | None
    voltage: float  # V
    amperage: float  # A
    phases: int  # 1 or 3
    max_utilization: float | None  # percent
    path: str | None  # A or B
    status: str
    supply: str = "ac"


@dataclass(frozen=True, slots=True)
class RackRec:
    name: str
    origin: str
    status: str = "active"
    row: str | None = None
    platform: str | None = None  # a sheet may name them; a DCIM's come from its devices
    nodes: int | None = None
    it_load: float | None = None  # W
    nodes_at: str | None = None  # a sheet's cells of the node count, the load, the platform
    load_at: str | None = None
    platform_at: str | None = None
    offline_nodes: int = 0  # nodes the source marks offline/failed: counted, and marked


@dataclass(frozen=True, slots=True)
class DeviceTypeRec:
    key: str  # the key a mapping names it by: NetBox slug, Nautobot model
    model: str
    allocated_draw: float | None = None  # W, summed over its power ports
    maximum_draw: float | None = None  # W, summed over its power ports
    ports: int = 0  # power ports (PSUs): more than one are redundant
    largest_maximum: float | None = None  # W, the largest one port's maximum draw


@dataclass(frozen=True, slots=True)
class DeviceRec:
    name: str
    origin: str
    device_type: str  # DeviceTypeRec.key
    rack: str | None
    role: str | None
    status: str = "active"
    power: float | None = None  # W, a sheet's own figure for this device


@dataclass(frozen=True, slots=True)
class CableRec:
    origin: str
    a: str  # device name
    b: str
    speed: float | None  # Gb/s, from the interface type or speed


@dataclass(frozen=True, slots=True, order=True)
class ImportProblem:
    """A value the import cannot take, where it is (a sheet cell, a DCIM object)."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Inventory:
    source: str  # "NetBox", "Nautobot", "spreadsheet"
    site: str | None = None
    site_origin: str | None = None
    panels: list[PanelRec] = field(default_factory=list)
    feeds: list[FeedRec] = field(default_factory=list)
    racks: list[RackRec] = field(default_factory=list)
    device_types: dict[str, DeviceTypeRec] = field(default_factory=dict)
    devices: list[DeviceRec] = field(default_factory=list)
    cables: list[CableRec] = field(default_factory=list)
    fed_by: dict[str, str] = field(default_factory=dict)  # panel -> the panel feeding it
    upstream: dict[str, str] = field(default_factory=dict)  # outside panel -> what it feeds
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    problems: list[ImportProblem] = field(default_factory=list)
    warnings: list[ImportProblem] = field(default_factory=list)
    ledger: Ledger = field(default_factory=Ledger)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
