"""Read a design file into a validated Design, or raise LoadError with every problem found."""

from __future__ import annotations

import os
from typing import Any

from pydantic import ValidationError

from dclint.errors import LoadError, Problem
from dclint.loader.compose import COMPOSE_KEYS, compose
from dclint.loader.refs import check_refs
from dclint.loader.yamlsafe import YamlError, decode, read_yaml
from dclint.model.budget import MAX_IDS, over_budget, too_many_items
from dclint.model.design import Design
from dclint.model.hints import did_you_mean
from dclint.model.resolve import resolve
from dclint.model.software import MOVED_KEYS
from dclint.model.source import Source, format_path
from dclint.model.types import fields_of

__all__ = ["load", "load_text"]

MAX_ERRORS = 100  # errors reported a design, as compilers stop after a screenful


def load(
    path: str | os.PathLike[str],
    *,
    display: str | None = None,
    overrides: tuple[Any, ...] = (),
    max_ids: int | None = None,
) -> Design:
    """Load and validate the design at `path`; raises LoadError (with positions) if it is not.
    `overrides` (dclint.loader.overrides.Override, from --set) are applied before validation;
    `max_ids` bounds the ids it may name (dclint.model.budget; None: the default)."""
    name = display if display is not None else os.fspath(path)
    return load_text(read_text(path, name), name, overrides=overrides, max_ids=max_ids)


def read_text(path: str | os.PathLike[str], name: str) -> str:
    """A design file's text, decoded and size-checked; LoadError if it cannot be read (a
    directory, FIFO or device is refused without reading it)."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, _limit())
    except FileRejected as exc:
        raise LoadError([Problem(name, 1, 1, str(exc))]) from None
    try:
        return decode(name, raw)
    except YamlError as exc:
        raise LoadError(exc.problems) from None


def _read_part(name: str) -> tuple[Any, Source]:
    """Read an included file (for composition) into data and positions."""
    try:
        return read_yaml(name, read_text(name, name))
    except YamlError as exc:
        raise LoadError(exc.problems) from None


def _limit() -> int:
    from dclint.loader import yamlsafe

    return yamlsafe.MAX_BYTES


def load_text(
    text: str,
    file: str = "<string>",
    *,
    overrides: tuple[Any, ...] = (),
    max_ids: int | None = None,
    read_part: Any = None,
) -> Design:
    """Load a design from YAML text; `file` is the name positions are reported against.
    `read_part` reads an included file (name -> (data, Source)); by default from disk, an
    editor passes one that prefers its unsaved buffers."""
    try:
        return _load_text(text, file, overrides, max_ids, read_part)
    except LoadError as exc:
        if overrides:  # a problem at a flag's position (--set:1:N) spells the flag out
            raise LoadError([_name_flag(p, overrides) for p in exc.problems]) from None
        raise


def _name_flag(problem: Problem, overrides: tuple[Any, ...]) -> Problem:
    """`--set:1:2: site.pue: input should be ...` -> `... (value set by --set site.pue=0.5)`,
    unless the message already names the flag (a --sweep's row names its value)."""
    for ov in overrides:
        if (problem.file, problem.line, problem.column) == ("--set", 1, ov.index):
            if ov.flag in problem.message:
                return problem
            message = f"{problem.message} (value set by {ov.flag})"
            return Problem(problem.file, problem.line, problem.column, message)
    return problem


def _load_text(
    text: str, file: str, overrides: tuple[Any, ...], max_ids: int | None, read_part: Any
) -> Design:
    try:
        data, source = read_yaml(file, text)
    except YamlError as exc:
        raise LoadError(exc.problems) from None
    if isinstance(data, dict) and any(key in data for key in COMPOSE_KEYS):
        data, source = compose(file, data, source, read_part or _read_part)
    if not isinstance(data, dict):
        raise LoadError(
            [
                Problem(
                    file,
                    1,
                    1,
                    "a design must be a YAML mapping of sections (name, site, power, racks, ...)",
                )
            ]
        )
    if overrides:
        from dclint.loader.overrides import apply_overrides

        data = apply_overrides(data, source, overrides)
    limit = MAX_IDS if max_ids is None else max_ids
    crowded = too_many_items(data, limit)
    if crowded is not None:
        raise LoadError([_at(source, crowded.path, crowded.message)])
    try:
        design = Design.model_validate(data)
    except ValidationError as exc:
        raise LoadError(_problems(exc, data, source)) from None
    del data  # the plain tree: the models hold what is needed, and resolving builds more
    design._source = source
    over = over_budget(design, limit)
    if over is not None:
        raise LoadError([_at(source, over.path, over.message)])
    topology, errors = resolve(design)
    if not errors:  # the other references, once racks and the catalog are known
        errors = check_refs(design, topology)
    if errors:
        shown = errors[: MAX_ERRORS + 1]
        source.prefetch(tuple(e.path) for e in shown)
        problems = [_at(source, e.path, e.message, key=e.key) for e in shown]
        raise LoadError(_capped(problems, len(errors)))
    design._resolved = topology  # what topology_of() returns from now on
    return design


def _at(source: Source, path: Any, message: str, *, key: bool = False) -> Problem:
    pos = source.locate(tuple(path), key=key)
    return Problem(pos.file, pos.line, pos.column, message)


def _capped(problems: list[Problem], total: int) -> list[Problem]:
    """The first MAX_ERRORS problems (in file order) of a design with `total`, and, if there
    are more, one line counting the rest, at the first of them."""
    problems = sorted(problems)
    kept = problems[:MAX_ERRORS]
    rest = total - len(kept)
    if rest <= 0:
        return kept
    at = problems[len(kept)] if len(problems) > len(kept) else kept[-1]
    message = f"... and {rest:,} more errors (dclint reports the first {MAX_ERRORS} of a design)"
    return [*kept, Problem(at.file, at.line, at.column, message)]


def _problems(exc: ValidationError, data: dict[str, Any], source: Source) -> list[Problem]:
    from dclint.model.value_messages import value_message  # a design that does not load

    out: dict[tuple[int, int, str], Problem] = {}
    every = exc.errors(include_url=False)
    errors = every[: MAX_ERRORS + 1]  # locating an error costs; the rest are only counted
    source.prefetch(tuple(err["loc"]) for err in errors)
    for err in errors:
        loc = tuple(err["loc"])
        kind, where = err["type"], format_path(loc)
        if kind in ("extra_forbidden", "unexpected_keyword_argument"):  # a model; a record
            known = _known_fields(loc[:-1])
            msg = f"unknown key '{loc[-1]}' in {format_path(loc[:-1]) or 'the design'}"
            moved = MOVED_KEYS.get(str(loc[-1]))
            msg += f"; it is now {moved}" if moved else did_you_mean(str(loc[-1]), known)
            problem = _at(source, loc, msg, key=True)
        elif kind == "missing":
            parent = format_path(loc[:-1]) or "the design"
            problem = _at(
                source, loc[:-1], f"missing required key '{loc[-1]}' in {parent}", key=True
            )
        else:
            problem = _at(source, loc, f"{where}: {value_message(err)}")
        out.setdefault((problem.line, problem.column, problem.message), problem)
    return _capped(list(out.values()), len(out) + len(every) - len(errors))


def _known_fields(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model at `loc`, for did-you-mean hints."""
    model: Any = Design
    for part in loc:
        if isinstance(part, int):
            continue
        field = fields_of(model).get(part)
        if field is None:
            return []
        model = _model_of(field.annotation)
        if model is None:
            return []
    return list(fields_of(model))


def _model_of(annotation: Any) -> Any:
    from typing import get_args

    if fields_of(annotation):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
