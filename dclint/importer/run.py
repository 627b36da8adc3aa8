"""One import: read the source (a server, a dump, a sheet), build the fragment, write its text;
every problem found is gathered before the import fails."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dclint.errors import ConfigError
from dclint.importer.inventory import ImportProblem, Inventory

__all__ = ["MAX_DUMP_BYTES", "ImportFailed", "ImportResult", "run_import"]

MAX_DUMP_BYTES = 2 << 30  # a 1,000-rack site's REST dump is ~20 MB


class ImportFailed(Exception):
    def __init__(self, problems: list[Any]) -> None:
        super().__init__(str(problems[0]) if problems else "import failed")
        self.problems = problems


@dataclass
class ImportResult:
    text: str
    report: list[str] = field(default_factory=list)  # what was left out, for stderr
    dump: str | None = None  # what a server answered, for --save-dump
    ledger: list[str] = field(default_factory=list)  # the kinds left incomplete, for stderr
    book: Any = None  # the Ledger, for --ledger FILE
    hints: list[str] = field(default_factory=list)  # what to do about the ledger's lines

    def ledger_json(self) -> str:
        """The whole ledger as JSON (built only when asked for: a large site's is big)."""
        if self.book is None:
            return "{}\n"
        return json.dumps(self.book.as_json(), indent=1, sort_keys=True) + "\n"


KINDS = {"netbox": "NetBox", "nautobot": "Nautobot"}


def read_dump_file(path: str) -> Any:
    """A dump file: JSON, or YAML (read safely) when it is not JSON."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_DUMP_BYTES, "dump")
    except FileRejected as exc:
        raise ConfigError(f"--from-file {path}: {exc}") from None
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise ConfigError(f"--from-file {path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        if raw.lstrip()[:1] in (b"{", b"["):
            raise ConfigError(
                f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}"
            ) from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number; 100,000 levels
        what = "nested too deep" if isinstance(exc, RecursionError) else str(exc).split(":")[0]
        raise ConfigError(f"--from-file {path}: not a dump dclint reads ({what})") from None
    from dclint.loader.yamlsafe import YamlError, decode, read_yaml

    try:
        data, _ = read_yaml(path, decode(path, raw))
    except YamlError as exc:
        raise ConfigError(str(exc.problems[0])) from None
    return data


def run_import(
    *,
    source: str,
    location: str | None,
    dump: str | None,
    mapping: str | None,
    site: str | None,
    token_env: str | None,
    command: str,
) -> ImportResult:
    from dclint.importer.build import build
    from dclint.importer.emit import emit
    from dclint.importer.mapping import load_mapping

    the_map, _ = load_mapping(mapping)
    site = site or the_map.site
    saved: str | None = None
    if source in KINDS:
        inv, saved = _read_dcim(source, location, dump, site, token_env, the_map)
    else:
        if location is None:
            raise ConfigError(f"import {source}: name the file to read")
        from dclint.importer.sheets import read_sheet

        inv = read_sheet(location, source, the_map)
    from dclint.importer.validate import check_inventory, check_loads

    inv.problems.extend(check_inventory(inv))  # names, duplicates, numbers: at the source
    frag = build(inv, the_map)
    if frag.problems:
        raise ImportFailed(list(dict.fromkeys(frag.problems)))  # in reading order, each once
    report = [str(w) for w in inv.warnings]
    report += [f"not imported: {note}" for note in frag.notes]
    hints = []
    if frag.unmapped:  # counted once, in the ledger's device line; here only what to do
        types = sorted(frag.unmapped)
        hints.append(
            f"name device type{'s' if len(types) > 1 else ''} {', '.join(types)} in the "
            "mapping file's device_types to import the devices the ledger counts as unmapped"
        )
    text = emit(frag, command)
    unloadable, warnings = check_loads(text, location or dump or source)  # the last guard
    if unloadable:
        raise ImportFailed(list(dict.fromkeys(unloadable)))
    left_out = frag.ledger.lines(incomplete=True)
    return ImportResult(text, report + warnings, saved, left_out, frag.ledger, hints)


def _read_dcim(
    source: str,
    location: str | None,
    dump: str | None,
    site: str | None,
    token_env: str | None,
    mapping: Any = None,
) -> tuple[Inventory, str | None]:
    from dclint.importer.dcim import read_dump

    kind = KINDS[source]
    saved = None
    if dump is not None:
        if location is not None:
            raise ConfigError(f"import {source}: give a URL or --from-file, not both")
        data = read_dump_file(dump)
    else:
        if location is None:
            raise ConfigError(f"import {source}: give the server's URL, or --from-file DUMP")
        from dclint.importer.client import fetch_dump

        data = fetch_dump(source, location, token_env or "")
        saved = json.dumps(data, indent=1, sort_keys=True) + "\n"
    try:
        inv = read_dump(data, kind, location or "", site, mapping)
    except ValueError as exc:
        where = dump or location or source
        raise ImportFailed([ImportProblem(where, str(exc))]) from None
    return inv, saved
