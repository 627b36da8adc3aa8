"""SARIF 2.1.0 output: the rules as reportingDescriptors, findings and load errors as results.

Load errors are results of the pseudo-rule DCL000 `design-load-error` (level error), so code
scanning shows them at their line like any finding; notifications are shown by few viewers.
Artifact URIs are relative to the working directory, under the uriBaseId %SRCROOT%.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dclint import __version__
from dclint.engine.baseline import fingerprint, relative_file
from dclint.engine.findings import Finding, RunResult
from dclint.errors import Problem

__all__ = ["FINGERPRINT_KEY", "LOAD_ERROR_ID", "as_data", "render"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LOAD_ERROR_ID = "DCL000"
FINGERPRINT_KEY = "dclint/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
BASE = "%SRCROOT%"


def _what_it_does(doc: str) -> str:
    part = doc.split("## What it does", 1)[-1].split("\n##", 1)[0]
    return " ".join(part.split())


def _descriptor(cls: Any) -> dict[str, Any]:
    doc = cls.doc()
    return {
        "id": cls.id,
        "name": cls.name,
        "shortDescription": {"text": cls.summary()},
        "fullDescription": {"text": _what_it_does(doc) or cls.summary()},
        "help": {"text": doc or cls.summary(), "markdown": doc or cls.summary()},
        "defaultConfiguration": {"level": LEVELS[cls.severity]},
        "properties": {"tags": list(cls.tags)},
    }


LOAD_DESCRIPTOR: dict[str, Any] = {
    "id": LOAD_ERROR_ID,
    "name": "design-load-error",
    "shortDescription": {"text": "Design file that cannot be read or is invalid."},
    "fullDescription": {
        "text": "The design could not be loaded (YAML syntax, schema, units or "
        "references), so no rule ran on it."
    },
    "help": {
        "text": "Fix the problem at the reported line; `dclint schema` prints the design schema.",
        "markdown": "Fix the problem at the reported line; `dclint schema` "
        "prints the design schema.",
    },
    "defaultConfiguration": {"level": "error"},
    "properties": {"tags": ["load"]},
}


def _location(file: str, line: int, column: int) -> dict[str, Any]:
    rel = relative_file(file)
    artifact: dict[str, Any]
    if rel.startswith("../") or rel == "..":  # outside the source root: absolute URI
        artifact = {"uri": Path(file).resolve().as_uri()}
    else:
        artifact = {"uri": quote(rel), "uriBaseId": BASE}
    return {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": max(line, 1), "startColumn": max(column, 1)},
        }
    }


def _result(f: Finding, index: int) -> dict[str, Any]:
    location = _location(f.file, f.line, f.column)
    if f.path or f.subject:
        location["logicalLocations"] = [
            {
                "name": f.subject or f.path,
                "fullyQualifiedName": f.path or f.subject,
                "kind": "object",
            }
        ]
    props: dict[str, Any] = {
        k: v
        for k, v in (
            ("path", f.path),
            ("subject", f.subject),
            ("measured", f.measured),
            ("limit", f.limit),
            ("fix", f.fix),
        )
        if v
    }
    if f.impact is not None:
        props["impact"] = f.impact.as_dict()
    return {
        "ruleId": f.rule,
        "ruleIndex": index,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
        "properties": props,
    }


def _load_result(e: Problem, index: int) -> dict[str, Any]:
    key = f"{LOAD_ERROR_ID}\x1f{relative_file(e.file)}\x1f{e.message}"
    return {
        "ruleId": LOAD_ERROR_ID,
        "ruleIndex": index,
        "level": "error",
        "message": {"text": e.message},
        "locations": [_location(e.file, e.line, e.column)],
        "partialFingerprints": {FINGERPRINT_KEY: hashlib.sha256(key.encode()).hexdigest()[:32]},
    }


def as_data(result: RunResult, settings: dict[str, Any]) -> dict[str, Any]:
    descriptors = [_descriptor(cls) for cls in settings.get("rules", {}).values()]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    for f in result.findings:  # a finding of a rule the table lacks still needs a descriptor
        if f.rule not in index:
            index[f.rule] = len(descriptors)
            descriptors.append(
                {
                    "id": f.rule,
                    "name": f.name,
                    "defaultConfiguration": {"level": LEVELS[f.severity]},
                }
            )
    if result.errors and LOAD_ERROR_ID not in index:
        index[LOAD_ERROR_ID] = len(descriptors)
        descriptors.append(LOAD_DESCRIPTOR)
    results = []
    for design in result.designs:
        results += [_load_result(e, index[LOAD_ERROR_ID]) for e in design.errors]
        results += [_result(f, index[f.rule]) for f in design.findings]
    driver = {
        "name": "dclint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": descriptors,
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {BASE: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": result.rule_failures == 0}],
        "results": results,
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(result: RunResult, settings: dict[str, Any]) -> str:
    return json.dumps(as_data(result, settings), indent=2, ensure_ascii=False) + "\n"
