"""A design model section left out is made by its class's `model_construct` (dclint.model.design):
the same instance that validating an empty mapping gives, without building the section's own
validator. Holds for every field whose default factory is a `model_construct`."""

from __future__ import annotations

from typing import Any

import pytest

from dclint.model.design import Design
from dclint.model.types import fields_of


def _constructed_defaults() -> list[tuple[str, Any]]:
    found: dict[str, Any] = {}
    todo: list[Any] = [Design]
    seen: set[Any] = set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for name, info in fields_of(cls).items():
            factory = info.default_factory
            if getattr(factory, "__name__", "") == "model_construct":
                found[f"{cls.__name__}.{name}"] = factory.__self__
            for arg in (*getattr(info.annotation, "__args__", ()), info.annotation):
                if isinstance(arg, type) and fields_of(arg):
                    todo.append(arg)
    return sorted(found.items())


DEFAULTS = _constructed_defaults()


def test_the_sections_are_found() -> None:
    assert [name for name, _ in DEFAULTS] == [
        "Design.cooling",
        "Design.cost",
        "Design.power",
        "Design.site",
        "Design.storage",
        "Workload.parallel",
        "Workload.software",
    ]


@pytest.mark.parametrize(("name", "cls"), DEFAULTS, ids=[n for n, _ in DEFAULTS])
def test_constructed_default_is_the_validated_one(name: str, cls: Any) -> None:
    decorators = cls.__pydantic_decorators__
    assert not decorators.model_validators and not decorators.field_validators, name
    validated, constructed = cls.model_validate({}), cls.model_construct()
    assert constructed == validated
    assert list(constructed.__dict__.items()) == list(validated.__dict__.items())
    assert constructed.model_fields_set == validated.model_fields_set == set()
    assert repr(constructed) == repr(validated)
    assert constructed.model_dump_json() == validated.model_dump_json()
