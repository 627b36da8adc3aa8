"""JUnit XML output: a testsuite per design, a testcase per rule, failed with its findings, or
skipped when the rule cannot apply to the design (no budget for CST001, no CDUs or loops for the
cooling rules: `Rule.needs`), so a pass means the rule looked and found nothing."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from dclint.analysis.assess.assessment import Assessment, RunAssessment
from dclint.engine.findings import Finding
from dclint.report.text import finding_line, finding_message
from dclint.report.view import View

__all__ = ["LOAD_CASE", "reasons", "render"]

LOAD_CASE = "load"
# characters XML 1.0 cannot carry at all, even escaped
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID.sub("\ufffd", text)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    node = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items()})
    if text is not None:
        node.text = _clean(text)
    return node


def _suite(root: ET.Element, a: Assessment) -> None:
    d, rules = a.result, a.rules
    suite = _sub(root, "testsuite", name=d.name or d.file, file=d.file)
    by_rule: dict[str, list[Finding]] = {}
    for f in d.findings:
        by_rule.setdefault(f.rule, []).append(f)
    ids = [rid for rid in rules if a.selected(rid)]
    ids += sorted(set(by_rule) - set(ids))
    failures = errors = skipped = 0
    classname = d.name or d.file
    if d.errors:
        errors = 1
        case = _sub(suite, "testcase", name=LOAD_CASE, classname=classname, file=d.file)
        _sub(
            case,
            "error",
            "\n".join(str(e) for e in d.errors),
            message=d.errors[0].message,
            type="load-error",
        )
    for rid in ids:
        cls = rules.get(rid)
        name = f"{rid} {cls.name if cls else by_rule[rid][0].name}"
        case = _sub(suite, "testcase", name=name, classname=classname, file=d.file)
        found = by_rule.get(rid, [])
        why = a.inapplicable(rid) if not found else ""
        if d.errors:
            skipped += 1
            _sub(case, "skipped", message="the design did not load")
        elif why:
            skipped += 1
            _sub(case, "skipped", message=f"does not apply: {why}")
        elif found:
            failures += 1
            first = found[0]
            words = finding_message(first)  # the text output's words
            message = words if len(found) == 1 else f"{len(found)} findings; first: {words}"
            _sub(
                case,
                "failure",
                "\n".join(finding_line(f) for f in found),
                message=message,
                type=first.severity,
            )
    suite.set("tests", str(len(ids) + (1 if d.errors else 0)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))


def reasons(a: Assessment) -> dict[str, str]:
    """Why each rule the design runs that found nothing does not apply to it (rule id ->
    the reason, for those that do not): what the report reads of the design beyond its
    findings, for the results cache to keep."""
    found = {f.rule for f in a.result.findings}
    out = {}
    for rid in a.rules:
        if a.selected(rid) and rid not in found:
            why = a.inapplicable(rid)
            if why:
                out[rid] = why
    return out


def render(run: RunAssessment, view: View) -> str:
    root = ET.Element("testsuites", {"name": "dclint"})
    for a in run.designs:
        _suite(root, a)
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
