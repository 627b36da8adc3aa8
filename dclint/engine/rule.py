"""The rule API: what a rule declares (id, name, severity, tags, options) and what it yields."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from dclint.engine.severity import SEVERITIES, Severity

if TYPE_CHECKING:
    from dclint.engine.findings import Finding
    from dclint.model.design import Design
    from dclint.model.source import Path
    from dclint.units import Quantity

__all__ = [
    "SEVERITIES",
    "Change",
    "Context",
    "Option",
    "Remedy",
    "Rule",
    "Severity",
    "Violation",
    "rule",
]


@dataclass(frozen=True)
class Option:
    """A rule option: its default as written in config (``"120 kW"``) and its type.

    `type` is what config values are read as: a quantity type of `dclint.api` (``Power``,
    ``Bandwidth``, ``Duration``, ``Temperature``, ``TemperatureDelta``, ``Flow``,
    ``Information``, ``Mass``, ``Area``, ``Share``), ``Ratio`` (``2:1``), ``float``,
    ``Positive`` (a float above 0), ``int``, ``Count`` (an int from 1), ``bool``, ``str``, or
    ``dict[str, T]`` / ``list[T]`` of one of them (e.g. per-platform limits). The name of a
    kind (``"power"``, ``"dict:ratio"``) is still read, for plug-ins written before types. A
    `costly` option turns on work that can run for minutes (a
    search): a config found by search may not turn it on, only one named with --config or a
    flag of the command (the engine withholds it, and the rule's context says so).
    """

    default: Any
    type: Any
    help: str
    costly: bool = False

    @property
    def kind(self) -> str:
        """The type's name, as `explain` and the docs print it: ``power``, ``dict:ratio``."""
        from dclint.engine.options import kind_name

        return kind_name(self.type)


@dataclass(frozen=True)
class Change:
    """A fix a rule offers with its violation (as ruff's rules build their own `Fix`).

    Set the value written at design `path` to `value` (YAML text; a key the design does not
    write yet is added to its mapping), or, with `line`, replace columns [column, end) of that
    line of the finding's file (a comment). `safe` fixes keep the design's meaning (a stale
    suppression); the others change the design and apply only with --unsafe-fixes. `summary`
    says in one line what the fix changes.
    """

    value: str
    summary: str
    path: Path | None = None
    line: int = 0
    column: int = 0
    end: int = 0
    safe: bool = False


@dataclass(frozen=True)
class Violation:
    """What a rule reports: the design path at fault, in the rule's words, with numbers.

    `measured` and `limit` are Quantities (or plain numbers for ratios and counts); the engine
    adds the file, line, column, rule id and severity. `severity` overrides the rule's default
    where one rule has two levels (PWR005: warning over 10%, error over 20%).
    """

    path: Path
    message: str
    subject: str = ""
    measured: Quantity | float | str | None = None
    limit: Quantity | float | str | None = None
    fix: str = ""
    severity: Severity | None = None
    key: bool = False
    changes: tuple[Change, ...] = ()
    refs: tuple[str, ...] = ()  # other objects the finding is about (a storage finding's workload)


@dataclass(frozen=True)
class Remedy:
    """What fixing a finding does to one workload's projected run (`Rule.remedy`): its running
    time (compute and communication) is scaled by `running`, each checkpoint save's time by
    `checkpoint` (the saves, one an interval of running time, follow `running`); 1.0 leaves a
    part as it is. Failures keep their share of the run. A fix that changes the failures too
    (a checkpoint interval) gives `wall`: the whole wall time scaled. A limit the projection
    does not model gives `slowed`: the run as it is over its projected running time. A fix
    that saves the run nothing says why in `note` (the finding's `impact_note`)."""

    running: float = 1.0
    checkpoint: float = 1.0
    wall: float | None = None
    # the same fix under another assumption the design leaves open (NET001: jobs spread over the
    # switch groups where no placement is stated): the run's running time under it over the
    # running time as projected, and the fix's scale of it; `label` and `other` name the two
    alternative: tuple[float, float] | None = None
    label: str = ""
    other: str = ""
    # the run as it is takes `slowed` times its projected running time, a limit the projection
    # does not model (STO001: reads below the demand idle the GPUs); `running` stays the fixed
    # run's scale of the projected running time
    slowed: float = 1.0
    # why fixing the finding saves this run no time, where it saves none (NET001: the run's
    # collectives stay under the tier's switch groups; STO001: the reads meet the demand): the
    # finding says so (`Finding.impact_note`) instead of carrying a silent null
    note: str = ""


@dataclass
class Context:
    """What a rule may read besides the design: its options (parsed) and the run's date."""

    options: dict[str, Any]
    today: date = field(default_factory=date.today)
    # every rule's typed options in effect, by rule id: a rule that must agree with another
    # rule's accepted limits reads them here (NET005 reads NET001's accepted ratios)
    peers: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the rule's costly options a config found by search turned on and the engine did not:
    # option name -> where it was set (`file:line:col`), for the rule to say so
    withheld: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.options[name]

    def peer(self, rule_id: str) -> dict[str, Any]:
        """Another rule's typed options in effect (the engine passes every rule's)."""
        return self.peers[rule_id]


class Rule:
    """Base class of every rule. Subclass it in a module whose docstring is the rule's doc.

    The docstring has the sections ``What it does``, ``Why it matters``, ``Example``, ``Fix``.
    A rule declares its id and name, and whatever of its metadata differs from the defaults
    below (or from its family base class's), with the `rule` decorator:
    ``@rule("XHS001", "rack-over-house-limit", severity="warning")``; or as class
    attributes (``id = "XHS001"``, ``name = ...``), the form plug-ins were first written in.
    Its `options`, `shares` and `moved` are class attributes in either form.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = "error"
    tags: ClassVar[tuple[str, ...]] = ()
    options: ClassVar[dict[str, Option]] = {}
    origin: ClassVar[str] = ""  # where it was discovered, filled by the registry
    # what the design must declare for the rule to apply (dclint.engine.applies.NEEDS)
    needs: ClassVar[tuple[str, ...]] = ()
    # the settings this rule owns that code outside the rules reads by concept (the summary,
    # `capacity`, `init`, `plan`, the review): concept -> option name, or "*" for all its
    # options (dclint.engine.shared.Shared names the concepts)
    shares: ClassVar[dict[str, str]] = {}
    # what a finding risks, for a review's ranking: a key of dclint.engine.coverage.CONSEQUENCES
    # ("single-failure", "over-rating", "cannot-run", "capacity", "performance", "meta")
    consequence: ClassVar[str] = ""
    # the review topics the rule checks: keys of dclint.engine.coverage.TOPICS (the review's
    # coverage map and `dclint rules --coverage` are built from them)
    covers: ClassVar[tuple[str, ...]] = ()
    # options the rule once had and gave to another: option -> the rule id that has it now (a
    # config that still sets one is told where it went)
    moved: ClassVar[dict[str, str]] = {}

    def check(self, design: Design, ctx: Context) -> Iterable[Violation]:
        raise NotImplementedError

    @classmethod
    def config_problems(cls, design: Design, options: dict[str, Any]) -> Iterable[tuple[str, str]]:
        """(option name, problem) for each option value that names something the design does
        not have (a per-tier limit for no tier). The engine raises a ConfigError at the
        option's config line: the run stops with exit code 2, as for an unknown option."""
        return ()

    @classmethod
    def inapplicable(cls, design: Design, options: dict[str, Any] | None = None) -> str:
        """Why the rule cannot apply to `design` under its typed `options` ('' when it can): a
        need it lacks. A rule whose options can switch it off says so in an override."""
        from dclint.engine.applies import missing

        return missing(design, cls.needs)

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Any, options: dict[str, Any]
    ) -> Remedy | None:
        """What fixing `finding` does to `projection` (a `dclint.projection.Projection`: one
        workload's run) under this rule's typed `options`: the rule's own "what if fixed",
        as a ruff rule builds its own fix. None when the fix does not touch that run, or
        cannot be priced. The base class prices nothing; `priced()` says whether a rule
        overrides this."""
        return None

    @classmethod
    def priced(cls) -> bool:
        """Whether the rule says what its findings cost (overrides `remedy`)."""
        return cls.remedy.__func__ is not Rule.remedy.__func__  # type: ignore[attr-defined]

    @classmethod
    def doc(cls) -> str:
        module = inspect.getmodule(cls)
        return _cleaned((module.__doc__ if module is not None else None) or cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The doc's first paragraph, its wrapped lines joined (a summary wrapped at the
        docstring's width is one sentence, not its first line)."""
        doc = cls.doc().strip()
        return " ".join(doc.split("\n\n", 1)[0].split()) if doc else cls.name


R = TypeVar("R", bound=Rule)


def rule(
    id: str,
    name: str,
    *,
    severity: Severity | None = None,
    tags: tuple[str, ...] | None = None,
    consequence: str | None = None,
    covers: tuple[str, ...] | None = None,
    needs: tuple[str, ...] | None = None,
) -> Callable[[type[R]], type[R]]:
    """Declare the decorated `Rule` subclass a rule: its `id` and kebab-case `name`, and
    whatever differs from what it inherits (`Rule`'s defaults: severity "error", no tags, no
    consequence, covers and needs nothing; or its family base class's): a keyword left out
    (None) is inherited. It sets the class attributes the older form writes in the class body,
    so the registry checks both forms alike; a name given both ways is a TypeError.
    """
    given = {
        key: value
        for key, value in (
            ("id", id),
            ("name", name),
            ("severity", severity),
            ("tags", tags),
            ("consequence", consequence),
            ("covers", covers),
            ("needs", needs),
        )
        if value is not None
    }

    def declare(cls: type[R]) -> type[R]:
        if not (isinstance(cls, type) and issubclass(cls, Rule)):
            raise TypeError(f"@rule({id!r}, ...) declares a Rule subclass, not {cls!r}")
        twice = [key for key in given if key in vars(cls)]
        if twice:
            raise TypeError(
                f"rule {id}: {', '.join(twice)} declared both by @rule and in the class body"
            )
        for key, value in given.items():
            setattr(cls, key, value)
        return cls

    return declare


@functools.lru_cache(maxsize=1024)
def _cleaned(text: str) -> str:
    """inspect.cleandoc, once a text: a report asks a rule's doc for each finding it shows."""
    return inspect.cleandoc(text)


def each(items: Iterable[Violation | None]) -> Iterator[Violation]:
    for item in items:
        if item is not None:
            yield item
