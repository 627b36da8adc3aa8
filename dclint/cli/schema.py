"""`dclint schema [KIND]`: print a JSON Schema: a design's (the default) or a fragment's."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["KINDS", "add_parser", "run"]

# dclint.model.schema.SCHEMAS, the config's, and a site policy file's (dclint.policy)
KINDS = ("design", "fragment", "config", "policy")


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "schema",
        help="print a JSON Schema (design; fragment: a file designs include; config; policy)",
    )
    parser.add_argument(
        "kind",
        nargs="?",
        default="design",
        choices=KINDS,
        help="which schema (default: design); schemas/KIND.schema.json holds each",
    )
    parser.add_argument(
        "--import-mapping",
        action="store_true",
        help="print the JSON Schema of `dclint import`'s mapping file instead",
    )
    parser.add_argument(
        "--doc",
        action="store_true",
        help="print the design format's reference (Markdown) instead: docs/design-format.md",
    )
    parser.add_argument(
        "--api-doc",
        action="store_true",
        help="print the rule API's reference (Markdown) instead: docs/rule-api.md",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    if getattr(args, "doc", False):  # generated from the models, as the schema is
        from dclint.model.design_doc import design_doc

        sys.stdout.write(design_doc())
        return 0
    if getattr(args, "api_doc", False):  # generated from dclint.api, as the design's is
        from dclint.report.api_doc import api_doc

        sys.stdout.write(api_doc())
        return 0
    if getattr(args, "import_mapping", False):
        from dclint.importer.mapping import mapping_schema_text

        sys.stdout.write(mapping_schema_text())
        return 0
    kind = getattr(args, "kind", "design")
    if kind == "config":  # the engine's (its rules' options), not the models'
        from dclint.engine.config_schema import config_schema_text

        sys.stdout.write(config_schema_text())
        return 0
    if kind == "policy":  # generated from the element kinds a policy can judge
        from dclint.policy.reference import policy_schema_text

        sys.stdout.write(policy_schema_text())
        return 0
    from dclint.model.schema import schema_text

    sys.stdout.write(schema_text(kind))
    return 0
