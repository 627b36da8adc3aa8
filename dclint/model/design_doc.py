"""docs/design-format.md, the reference of the design format, generated from the pydantic
models (through the design's JSON Schema, dclint.model.schema, which they generate): one
section of the document a section of a design (site, power, racks, cooling, fabrics, storage,
workloads, cost), each with a table a model (field, type, unit, default, description) and an
example cut from EXAMPLE, a whole design that checks clean. `dclint schema --doc` prints it,
and tests/test_design_doc.py fails when the checked-in file differs."""

from __future__ import annotations

import re
from typing import Any

from dclint.model.schema_docs import yaml_literal

__all__ = ["EXAMPLE", "SECTIONS", "design_doc", "example_of"]

# (title, the design keys the section covers, what it is for)
SECTIONS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Site", ("site",), "the utility, PUE, prices and currency, halls and rows"),
    ("Power", ("power",), "panels, switchboards, busways, UPS systems, transformers and feeds"),
    ("Racks", ("rack_types", "racks"), "rack templates and the racks that use them"),
    ("Cooling", ("cooling",), "CDUs, the liquid loops they serve, and air handling"),
    ("Fabrics", ("fabrics",), "compute, storage and management networks"),
    ("Storage", ("storage",), "storage tiers: node-local, parallel file systems, objects"),
    ("Workloads", ("workloads",), "training runs projected on the design"),
    ("Cost", ("cost",), "prices for the cost of ownership"),
)

# One GB200 NVL72 SuperPOD scalable unit (sample_designs/gb200-superpod-su.yaml): every section
# of a design, checking clean; each section's example is cut from it.
EXAMPLE = """\
name: gb200-superpod-su
description: One scalable unit of a GB200 NVL72 SuperPOD, liquid cooled, 2N power.
site:
  utility_capacity: 1.5 MW
  pue: 1.15
  electricity_price: 0.8 CNY/kWh
  currency: CNY
  exchange_rates:
    USD: 7.2 CNY
  ashrae_class: W27   # facility water up to 27 degC + 5 K CDU approach = 32 degC secondary
power:
  panels:
    - {id: busway-a, kind: busway, voltage: 415 V, current_rating: 2000 A, path: A}
    - {id: busway-b, kind: busway, voltage: 415 V, current_rating: 2000 A, path: B}
  feeds:
    - {id: 'tap-a[1-8]', panel: busway-a, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: 'tap-b[1-8]', panel: busway-b, voltage: 415 V, current_rating: 250 A, path: B}
rack_types:
  nvl72:
    platform: gb200-nvl72
    it_load: 120 kW
    liquid_cooling_capacity: 120 kW
    coolant_flow: 150 L/min
racks:
  - id: su1-r[1-8]          # eight racks, su1-r1 ... su1-r8
    type: nvl72
    feeds: [tap-a$n, tap-b$n] # $n is the rack's number in its range
cooling:
  cdus:
    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min, approach: 5 K, redundancy_group: row-1}
    - {id: cdu-2, capacity: 2000 kW, max_flow: 2125 L/min, approach: 5 K, redundancy_group: row-1}
  loops:
    - id: loop-1
      cdu: cdu-1
      coolant: water
      supply_temperature: 32 degC
      return_temperature: 42 degC
      racks: ['su1-r[1-8]']
fabrics:
  - id: compute
    kind: compute
    nics_per_gpu: 1
    rail_optimised: true
    tiers:
      - {name: leaf, switch: qm9700, count: 18, downlinks: 32, uplinks: 32}
      - {name: spine, switch: qm9700, count: 9, downlinks: 64}
    cabling: {optics: aoc, burn_in: 48 h, symbol_error_alert: 1e-6}
storage:
  tiers:
    - id: nvme-cache
      kind: node_local
      capacity: 4 TB
      per_node_read_bandwidth: 50 GB/s
      nodes: 144
    - id: weka
      kind: parallel_fs
      capacity: 1 PB
      read_bandwidth: 400 GB/s
      write_bandwidth: 200 GB/s
      feeds_training: true
    - id: s3
      kind: object
      capacity: 10 PB
      read_bandwidth: 100 GB/s
      write_bandwidth: 100 GB/s
      checkpoints: true
workloads:
  - id: llama-70b-pretrain
    model:
      parameters: 70.6e9
      layers: 80
      hidden_size: 8192
      attention_heads: 64
      query_groups: 8
      ffn_hidden_size: 28672
      vocab_size: 128256
      swiglu: true
    tokens: 15e12
    sequence_length: 8192
    global_batch: 1152
    micro_batch: 1
    precision: bf16
    parallel: {tp: 8, pp: 4, cp: 1}
    gpus: 576
    data_read_rate: 20 GB/s
    mfu: 40%
    checkpoint: {interval: 1 h, tier: weka}
cost:
  gpu_price: 45000 USD
  depreciation: 3 year
  software_per_gpu_year: 4500 USD
"""


def example_of(keys: tuple[str, ...]) -> str:
    """The top-level blocks of EXAMPLE for `keys`, as written (comments kept)."""
    out: list[str] = []
    keep = False
    for line in EXAMPLE.splitlines():
        if line and not line[0].isspace():
            keep = line.split(":", 1)[0] in keys
        if keep:
            out.append(line)
    return "\n".join(out) + "\n"


def _ref(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return str(ref).rsplit("/", 1)[-1] if ref else None


def _options(prop: dict[str, Any]) -> list[dict[str, Any]]:
    return [o for o in prop.get("anyOf", [prop]) if isinstance(o, dict) and o.get("type") != "null"]


def _type(prop: dict[str, Any], models: list[str]) -> str:
    """A property's type as the reference prints it, noting the models it leads to."""
    shown = []
    for option in _options(prop):
        name = _ref(option)
        if name:
            models.append(name)
            shown.append(f"[{name}](#{name.lower()}-model)")
        elif "examples" in option:
            shown.append("quantity")
        elif "enum" in option:
            shown.append(", ".join(f"`{yaml_literal(v)}`" for v in option["enum"]))
        elif "const" in option:
            shown.append(f"`{option['const']}`")
        elif option.get("type") == "array":
            shown.append(f"list of {_type(option.get('items', {}), models)}")
        elif option.get("type") == "object" and isinstance(
            option.get("additionalProperties"), dict
        ):
            shown.append(f"map of {_type(option['additionalProperties'], models)}")
        elif "type" in option:
            kind = option["type"]
            shown.append(" or ".join(kind) if isinstance(kind, list) else str(kind))
        else:
            shown.append("text or number")
    return " or ".join(dict.fromkeys(shown)) or "any"


def _unit(prop: dict[str, Any]) -> str:
    """The dimension and units of a quantity ('power (W, kW, MW)'), 'share' or '-'."""
    from dclint.model.schema import _SHARE, KINDS

    for option in _options(prop):
        if "examples" in option:
            unit = str(option["examples"][0]).split(" ", 1)[1]
            kind, units = KINDS.get(unit, ("quantity", unit))
            return f"{kind} ({units})"
        if option.get("description") == _SHARE:
            return "share (80% or 0.8)"
    for option in _options(prop):
        if option.get("type") == "array":
            return _unit(option.get("items", {}))
        if isinstance(option.get("additionalProperties"), dict):
            return _unit(option["additionalProperties"])
    return "-"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _description(prop: dict[str, Any]) -> str:
    """The description without the unit sentence the schema appends (the unit column has it)."""
    text = str(prop.get("description", ""))
    return re.sub(r";\s*(?:[\w ()/-]+ with its unit \(|a share: ).*$", "", text) or text


def _default(prop: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in prop or prop["default"] is None:
        return "-"
    value = prop["default"]
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if value in ({}, []):
        return "empty"
    return f"`{value}`"


def _table(name: str, node: dict[str, Any], models: list[str]) -> list[str]:
    lines = [f"#### {name} (model)", ""]
    if node.get("description"):
        lines += [_cell(node["description"]), ""]
    lines += ["| field | type | unit | default | description |", "|---|---|---|---|---|"]
    required = set(node.get("required", []))
    for field, prop in node.get("properties", {}).items():
        row = [
            f"`{field}`",
            _type(prop, models),
            _unit(prop),
            _default(prop, field in required),
            _description(prop),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return [*lines, ""]


def design_doc() -> str:
    """The whole reference, as checked in at docs/design-format.md."""
    from dclint.model.schema import design_schema

    schema = design_schema()
    defs: dict[str, Any] = schema["$defs"]
    top = schema["properties"]
    out = [
        "# The design format",
        "",
        "<!-- Generated by `dclint schema --doc > docs/design-format.md` from the design models "
        "(dclint/model/): do not edit by hand; tests/test_design_doc.py fails when it drifts. -->",
        "",
        "A design is one YAML file (or several, through `include:` and `extends:`). Every "
        "physical or money value is text with its unit (`120 kW`, `415 V`, `150 L/min`); the "
        "unit column says which dimension a field takes and the units written most often, and "
        "any unit of that dimension is read. A share is `80%` or `0.8`. Ids take ranges "
        "(`r[01-08]`). The JSON Schema, `schemas/design.schema.json`, holds the same fields "
        "for editors.",
        "",
        "## Top level",
        "",
        "| key | description |",
        "|---|---|",
    ]
    for key, prop in top.items():
        out.append(f"| `{key}` | {_cell(prop.get('description', ''))} |")
    out.append("")
    done: set[str] = {"Design"}
    for title, keys, about in SECTIONS:
        out += [f"## {title}", "", f"{_cell(about[:1].upper() + about[1:])}.", ""]
        queue: list[str] = []
        for key in keys:
            prop = top[key]
            out.append(f"- `{key}`: {_type(prop, queue)}. {_cell(prop.get('description', ''))}")
        out += ["", "Example:", "", "```yaml", example_of(keys).rstrip("\n"), "```", ""]
        while queue:
            name = queue.pop(0)
            if name in done or name not in defs:
                continue
            done.add(name)
            found: list[str] = []
            out += _table(name, defs[name], found)
            queue += found
    rest = [name for name in defs if name not in done]
    if rest:
        out += ["## Other models", ""]
        for name in rest:
            out += _table(name, defs[name], [])
    return "\n".join(out).rstrip("\n") + "\n"
