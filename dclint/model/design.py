"""The design: one YAML file's content as a validated model."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, PrivateAttr

from dclint.model.cooling import Cooling
from dclint.model.cost import CostInputs
from dclint.model.fabric import Fabric
from dclint.model.power_chain import PowerSection
from dclint.model.racks import RackGroup, RackType
from dclint.model.site import Site
from dclint.model.storage import StorageSection
from dclint.model.types import Id, Strict, empty_list
from dclint.model.workload import Workload

if TYPE_CHECKING:
    from dclint.model.calibration import Calibration
    from dclint.model.source import Source

__all__ = ["Design"]


class Design(Strict):
    """A datacenter design: its site, power, racks, cooling, fabrics, storage, workloads and
    cost inputs."""

    # `dclint.model.resolve.topology_of(design)` gives its expanded racks, feeds and
    # references: the design itself knows nothing of them (no model circle)

    extends: str | list[str] | None = Field(
        None, description="Base design(s) this one overrides, by relative path"
    )
    include: list[str] | None = Field(
        None, description="Fragments merged in (site profiles, rack type libraries)"
    )
    name: str = Field(max_length=200)
    description: str | None = Field(None, max_length=5000)
    # A section the design leaves out is its model's defaults, made by `model_construct` (the
    # same instance, field for field): calling the class would build and run that model's own
    # validator, which validating the design does not otherwise need (a section has no
    # validator of its own to skip; tests/test_model_defaults.py compares them)
    site: Site = Field(default_factory=Site.model_construct)
    power: PowerSection = Field(default_factory=PowerSection.model_construct)
    rack_types: dict[str, RackType] = Field(default_factory=dict)
    racks: list[RackGroup] = Field(default_factory=empty_list)
    cooling: Cooling = Field(default_factory=Cooling.model_construct)
    fabrics: list[Fabric] = Field(default_factory=empty_list)
    storage: StorageSection = Field(default_factory=StorageSection.model_construct)
    workloads: list[Workload] = Field(default_factory=empty_list)
    cost: CostInputs = Field(default_factory=CostInputs.model_construct)
    catalog: dict[str, dict[str, dict[str, Any]]] = Field(
        default_factory=dict,
        description="Catalog additions and overrides: {gpus|platforms|switches|nics: {key: {...}}}",
    )
    origins: dict[Id, Annotated[str, Field(max_length=1000, pattern=r"^[^\x00-\x1f\x7f]*$")]] = (
        Field(
            default_factory=dict,
            description="Where imported elements came from (written by `dclint import`): "
            "element id (or id range) -> its source object, named with the findings on it",
        )
    )
    _source: "Source | None" = PrivateAttr(default=None)
    # what the resolver made of this design (`resolve.topology_of`), kept with it: the layer
    # above owns the type, so that the model imports nothing of it
    _resolved: Any = PrivateAttr(default=None)
    _calibration: "Calibration | None" = PrivateAttr(default=None)

    @property
    def calibration(self) -> "Calibration | None":
        """The calibration profile the config names (`calibration:`), if any: the step model
        applies its constants to the GPUs it holds (set by whoever read the config)."""
        return self._calibration

    def calibrate(self, profile: "Calibration | None") -> None:
        """Apply `profile` to this design's predictions (None: the model's own constants)."""
        self._calibration = profile

    @property
    def source(self) -> "Source | None":
        """Where the design was read from, with the position of every value (None if built)."""
        return self._source
