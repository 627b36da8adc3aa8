"""SARIF 2.1.0 output: the rules as reportingDescriptors, findings and load errors as results.

Load errors are results of the pseudo-rule DCL000 `design-load-error` (level error), so code
scanning shows them at their line like any finding; notifications are shown by few viewers.
Artifact URIs are relative to the working directory, under the uriBaseId %SRCROOT%.

One defect on many objects is one result, as in text and GitHub output: the first finding's
place is the location, every other object's place a related location, and `properties.count`
how many objects share the defect. A defect in a file several designs read (a rack library
three halls include) is one result at that file's line; `properties.designs` names the designs
it affects and each of their files is a related location. A rule's help is its one-line
summary (`dclint explain` prints the whole doc); `helpUri` is the rule's published
documentation where the rule declares one (`docs_url`, https only), and is omitted otherwise:
never a path on the machine that ran the check.
Suppressed and baselined findings are results with `suppressions[]` and a justification
(SARIF 2.1.0 section 3.27.23), so code scanning lists them as dismissed, not as absent.
`executionSuccessful` is false when the run exits 2 (a load error or a rule that failed).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from dclint._version import __version__
from dclint.engine.baseline import fingerprint, relative_file
from dclint.engine.findings import Waiver
from dclint.engine.rollup import Defect, Rollup, defects
from dclint.errors import LOAD_ERROR_ID, Problem
from dclint.escaping import finite_json
from dclint.report.text import finding_message

if TYPE_CHECKING:
    from dclint.analysis.assess.assessment import RunAssessment
    from dclint.report.view import View

__all__ = ["FINGERPRINT_KEY", "LOAD_ERROR_ID", "as_data", "render"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "dclint/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
BASE = "%SRCROOT%"


def _what_it_does(doc: str) -> str:
    part = doc.split("## What it does", 1)[-1].split("\n##", 1)[0]
    return " ".join(part.split())


def _help_uri(cls: Any) -> str | None:
    """The rule's published documentation (its `docs_url`, an https URL), or None: a local
    file URI would name a path on the machine that ran the check, useless to a reader."""
    url = getattr(cls, "docs_url", None)
    return url if isinstance(url, str) and url.startswith("https://") else None


def _descriptor(cls: Any) -> dict[str, Any]:
    doc = cls.doc()
    what = _what_it_does(doc) or cls.summary()
    short = f"{cls.summary()} Why, an example and the fix: `dclint explain {cls.id}`."
    descriptor: dict[str, Any] = {
        "id": cls.id,
        "name": cls.name,
        "shortDescription": {"text": cls.summary()},
        "fullDescription": {"text": what},
        "help": {"text": short, "markdown": short},
        "defaultConfiguration": {"level": LEVELS[cls.severity]},
        "properties": {"tags": list(cls.tags)},
    }
    uri = _help_uri(cls)
    if uri:
        descriptor["helpUri"] = uri
    return descriptor


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
        # a name that is not UTF-8 (surrogate escapes) as its own bytes, percent-encoded
        artifact = {"uri": quote(rel, errors="surrogateescape"), "uriBaseId": BASE}
    return {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": max(line, 1), "startColumn": max(column, 1)},
        }
    }


def _result(
    group: Rollup, index: int, defect: Defect | None = None, files: tuple[str, ...] = ()
) -> dict[str, Any]:
    """One result; `defect` with the `files` of the run's designs names the designs a defect
    in a shared file affects (a related location each)."""
    f = group.first
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
            ("measured", f.measured_text),
            ("limit", f.limit_text),
            ("fix", f.fix),
            ("origin", f.origin),
        )
        if v
    }
    for name in ("measured", "limit"):
        number, unit = f.numbers(name)
        if number is not None:  # the number and its unit beside the text
            props[f"{name}Value"], props[f"{name}Unit"] = number, unit
    # the text output's words; the numbers for tools beside them
    message = finding_message(f, group, defect)
    if f.impact is not None:
        props["impact"] = f.impact.as_dict()
    elif f.impact_note:  # why it has no price, as JSON's `impact_note` says
        props["impactNote"] = f.impact_note
        if f.impact_under_floor is not None:  # its figures, as JSON's `impact_under_floor`
            props["impactUnderFloor"] = f.impact_under_floor.as_dict()
    out: dict[str, Any] = {"ruleId": f.rule, "ruleIndex": index, "level": LEVELS[f.severity]}
    if group.count > 1:
        props["count"] = group.count
        props["subjects"] = group.subjects
        out["relatedLocations"] = [
            {
                **_location(other.file, other.line, other.column),
                "id": i,
                "message": {"text": other.subject or other.path or other.rule},
            }
            for i, other in enumerate(group.findings[1:], start=1)
        ]
    if defect is not None and defect.shared:
        props["designs"] = list(defect.designs)
        related = out.setdefault("relatedLocations", [])
        start = len(related) + 1
        related += [
            {
                **_location(files[j], 1, 1),
                "id": start + k,
                "message": {"text": f"design {name} reads it"},
            }
            for k, ((j, _), name) in enumerate(zip(defect.members, defect.designs, strict=True))
        ]
    out.update(
        {
            "message": {"text": message},
            "locations": [location],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
            "properties": props,
        }
    )
    return out


def _waived(w: Waiver, index: int) -> dict[str, Any]:
    """A suppressed or baselined finding: a result carrying its suppression."""
    out = _result(Rollup((w.finding,), ""), index)
    suppression: dict[str, Any] = {
        "kind": "inSource" if w.kind == "inline" else "external",
        "status": "accepted",
        "justification": w.reason or "(no reason recorded)",
    }
    if w.where:
        file, _, line = w.where.rpartition(":")
        if file and line.isdigit():
            suppression["location"] = _location(file, int(line), 1)
    out["suppressions"] = [suppression]
    if w.until is not None:
        out["properties"]["waiverExpires"] = w.until.isoformat()
    if w.by:
        out["properties"]["waivedBy"] = w.by
    if w.on is not None:
        out["properties"]["waivedOn"] = w.on.isoformat()
    return out


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


def as_data(run: RunAssessment) -> dict[str, Any]:
    result = run.result
    descriptors = [_descriptor(cls) for cls in run.rules.values()]
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    waived = [w.finding for d in result.designs for w in d.waivers]
    for f in [*result.findings, *waived]:  # a rule the table lacks still needs a descriptor
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
    found: dict[int, list[Defect]] = {}
    for x in defects(result):
        found.setdefault(x.design, []).append(x)
    files = tuple(d.file for d in result.designs)
    for i, design in enumerate(result.designs):
        results += [_load_result(e, index[LOAD_ERROR_ID]) for e in design.errors]
        results += [_result(x.group, index[x.first.rule], x, files) for x in found.get(i, [])]
        results += [_waived(w, index[w.finding.rule]) for w in design.waivers]
    driver = {
        "name": "dclint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": descriptors,
    }
    sarif_run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {BASE: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": not result.errors and result.rule_failures == 0}],
        "results": results,
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [sarif_run]}


def render(run: RunAssessment, view: View) -> str:
    return finite_json(as_data(run))
