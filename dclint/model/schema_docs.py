"""Descriptions for the JSON Schema's properties that the models leave undescribed: what each
holds and, for plain numbers, that they carry no unit (quantities describe their own units)."""

from __future__ import annotations

from typing import Any

__all__ = ["DESCRIPTIONS", "describe", "yaml_literal"]

_ID = "Unique id (letters, digits and _ . : - $ [ ]); a range such as r[01-08] writes many"
DESCRIPTIONS: dict[str, str] = {
    "Design.name": "Name of the design, shown in reports",
    "Design.description": "Free text about the design",
    "Design.site": "The site: utility capacity, PUE, electricity price, currency",
    "Design.power": "Power distribution: panels, switchboards, busways and feeds",
    "Design.rack_types": "Rack templates by key; a rack names one with `type`",
    "Design.racks": "Racks, one at a time or as id ranges and counts",
    "Design.cooling": "Cooling: CDUs and the liquid loops they serve",
    "Design.fabrics": "Networks: compute, storage and management fabrics",
    "Design.storage": "Storage tiers",
    "Design.workloads": "Training workloads to project on the design",
    "Design.cost": "Prices for the cost of ownership",
    "Cooling.cdus": "Coolant distribution units",
    "Cooling.loops": "Liquid loops, each served by one CDU",
    "Checkpoint.retained": "Checkpoints kept at once, a whole number (no unit)",
    "Endpoint.role": "What the endpoint is: one of the listed roles",
    "Fabric.kind": "compute, storage or management",
    "Fabric.nics_per_gpu": "Fabric NICs per GPU, a number (no unit)",
    "Fabric.rail_optimised": "NICs of the same index in every node share a leaf (a rail)",
    "Fabric.tiers": "Switch tiers from the leaves up, counted",
    "Fabric.switches": "Switches written one by one (an explicit fabric)",
    "Fabric.links": "Links written one by one (an explicit fabric)",
    "Fabric.cabling": "Optics, burn-in and error thresholds of the fabric's cables",
    "Feed.panel": "Id of the panel, switchboard or busway the feed comes from",
    "Panel.fed_by": "Id of the panel upstream; none: fed from the utility",
    "Panel.kind": "panel, busway, switchboard or ups",
    "Link.a": "Id of the switch, rack or endpoint node at one end",
    "Link.b": "Id of the switch, rack or endpoint node at the other end",
    "Link.count": "Parallel links between the two ends, a whole number (no unit)",
    "Link.cable": "Cable type, e.g. aoc, dac or transceiver",
    "Loop.cdu": "Id of the CDU that serves the loop",
    "Loop.coolant": "water or pg25 (25% propylene glycol)",
    "ModelSpec.layers": "Transformer layers, a whole number (no unit)",
    "ModelSpec.hidden_size": "Hidden (model) dimension, a whole number (no unit)",
    "ModelSpec.attention_heads": "Attention heads, a whole number (no unit)",
    "ModelSpec.query_groups": "Key-value heads (grouped-query attention), a whole number",
    "ModelSpec.ffn_hidden_size": "Feed-forward hidden dimension, a whole number (no unit)",
    "ModelSpec.vocab_size": "Vocabulary size in tokens, a whole number (no unit)",
    "ModelSpec.experts": "Experts per MoE layer, a whole number (none: a dense model)",
    "ModelSpec.top_k": "Experts each token is routed to, a whole number (no unit)",
    "ModelSpec.swiglu": "Feed-forward uses SwiGLU (three weight matrices, not two)",
    "Parallel.tp": "Tensor-parallel size, a whole number (no unit)",
    "Parallel.pp": "Pipeline-parallel size, a whole number (no unit)",
    "Parallel.cp": "Context-parallel size, a whole number (no unit)",
    "Parallel.ep": "Expert-parallel size, a whole number (no unit)",
    "Parallel.vpp": "Virtual pipeline stages per rank (interleaving), a whole number",
    "Parallel.distributed_optimizer": "Optimizer state sharded over data-parallel ranks",
    "PowerSection.panels": "Panels, switchboards and busways",
    "PowerSection.feeds": "Feeds (circuits) to racks",
    "RackGroup.count": "Number of racks the entry writes (ids numbered from 1)",
    "RackGroup.row": "Row (or hall position) the racks stand in; reports group racks by it",
    "RackType.description": "Free text about the rack type",
    "Site.name": "Name of the site or hall",
    "Site.uptime_tier": "Uptime Institute tier the site is built to (I to IV)",
    "StorageSection.tiers": "Storage tiers, from node-local to object storage",
    "StorageTier.kind": "node_local, parallel_fs or object",
    "StorageTier.nodes": "Nodes the per-node bandwidths apply to, a whole number (no unit)",
    "Switch.model": "Switch model, a key of dclint's switch catalog (e.g. qm9700)",
    "Switch.tier": "Name of the tier the switch belongs to",
    "Tier.name": "Name of the tier, e.g. leaf, spine, core",
    "Tier.count": "Switches in the tier, a whole number (no unit)",
    "Workload.model": "The model trained: size and shape",
    "Workload.tokens": "Tokens trained on, a number (no unit), e.g. 15e12",
    "Workload.sequence_length": "Tokens per sequence, a whole number (no unit)",
    "Workload.micro_batch": "Sequences per micro-batch, a whole number (no unit)",
    "Workload.precision": "Number format of the matrix maths, e.g. bf16 or fp8",
    "Workload.parallel": "Parallel layout: tensor, pipeline, context, expert sizes",
    "Workload.gpus": "GPUs the workload runs on, a whole number (none: every GPU)",
    "Workload.checkpoint": "Checkpoint size, interval and retention",
    "Workload.recompute": "Activation recomputation: none, selective or full",
    "Workload.power_basis": "Load the energy figure assumes: design IT load or peak",
}


def describe(model: str, name: str, prop: dict[str, Any]) -> str:
    """The description of a property the model left undescribed: from the table, else from
    its shape (an id, an enumeration, a plain number, a flag, a list)."""
    known = DESCRIPTIONS.get(f"{model}.{name}")
    if known:
        return known
    title = str(prop.get("title") or name.replace("_", " ")).capitalize()
    options = [prop, *prop.get("anyOf", [])]
    kinds = {o.get("type") for o in options if isinstance(o, dict)}
    enum = next((o["enum"] for o in options if isinstance(o, dict) and "enum" in o), None)
    if name == "id":
        return _ID
    if enum is not None:
        return f"{title}: one of {', '.join(map(yaml_literal, enum))}"
    if "integer" in kinds:
        return f"{title}, a whole number (no unit)"
    if "number" in kinds:
        return f"{title}, a number (no unit)"
    if "boolean" in kinds:
        return f"{title}: true or false"
    if "array" in kinds:
        return f"List of {title.lower()}"
    if "string" in kinds:
        return f"{title} (text)"
    return title


def yaml_literal(value: object) -> str:
    """A schema choice as a design writes it: `true`, not Python's `True`."""
    return str(value).lower() if isinstance(value, bool) else str(value)
