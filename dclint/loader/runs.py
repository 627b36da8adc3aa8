"""Measured training steps for `dclint calibrate`: a CSV of runs, or training logs.

CSV: a header row, then one run a row. `step_time` (with its unit: `2.41 s`, `2410 ms`) is
required; the other columns change the design's workload for that run and default to what it
declares: workload, gpus, tp, pp, cp, ep, vpp, dp, micro_batch, global_batch, sequence_length
(whole numbers), recompute (none, selective, full), name (a label). `#` starts a comment line.

Logs: Megatron-LM's iteration lines (`... | elapsed time per iteration (ms): 2410.3 | ...
global batch size:   512 | ...`) or NeMo's (`train_step_timing in s=2.41`). A log is one
run: the median of its logged step times after the first (the first interval holds the
warm-up), with the layout Megatron-LM prints in its `arguments` block when the log holds it
(`tensor_model_parallel_size ..... 8`), else the workload's.

Every problem is one ConfigError `file:line:col: what is wrong`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from statistics import median

from dclint.errors import ConfigError

__all__ = ["COLUMNS", "MAX_RUNS", "MAX_RUNS_BYTES", "Measured", "read_runs"]

MAX_RUNS_BYTES = 64 * 1024 * 1024  # a long training log
MAX_RUNS = 10_000  # runs a calibration fits (each is a prediction per fit iteration)
INTS = (
    "gpus",
    "tp",
    "pp",
    "cp",
    "ep",
    "vpp",
    "dp",
    "micro_batch",
    "global_batch",
    "sequence_length",
)
COLUMNS = ("name", "workload", *INTS, "recompute", "step_time")
_RECOMPUTE = ("none", "selective", "full")
# Megatron-LM's printed arguments -> the CSV's columns
_ARGUMENTS = {
    "world_size": "gpus",
    "tensor_model_parallel_size": "tp",
    "pipeline_model_parallel_size": "pp",
    "context_parallel_size": "cp",
    "expert_model_parallel_size": "ep",
    "virtual_pipeline_model_parallel_size": "vpp",
    "micro_batch_size": "micro_batch",
    "global_batch_size": "global_batch",
    "seq_length": "sequence_length",
}
_ARG_LINE = re.compile(r"^\s*([a-z_]+) \.+ (\S+)\s*$")
# a number, or a non-finite one (nan, inf: a step a logger could not time), which is an error
# at its line rather than a line silently not read
_NUMBER = r"((?i:[+-]?(?:nan|inf(?:inity)?)\b)|[0-9.eE+-]+)"
_MEGATRON = re.compile(r"elapsed time per iteration \(ms\):\s*" + _NUMBER)
_BATCH = re.compile(r"global batch size:\s*(\d+)")
_NEMO = re.compile(r"train_step_timing in s\s*[=:]\s*" + _NUMBER)


@dataclass(frozen=True)
class Measured:
    """One measured run: where it was read, the workload values it sets, seconds a step."""

    where: str  # file:line
    label: str
    values: dict[str, int | str] = field(default_factory=dict)
    step_time: float = 0.0  # seconds


def read_runs(path: str) -> list[Measured]:
    """The runs of a CSV (`.csv`) or a training log (anything else)."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_RUNS_BYTES, "runs file")
    except FileRejected as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}:1: not valid UTF-8") from None
    if path.lower().endswith(".csv"):
        return _csv(path, text)
    return [_log(path, text)]


def _cells(line: str) -> list[tuple[int, str]]:
    """(1-based column, text) of each comma-separated cell; double quotes group a cell."""
    out: list[tuple[int, str]] = []
    i, n = 0, len(line)
    while True:
        start = i
        if i < n and line[i] == '"':
            i += 1
            buf = []
            while i < n:
                if line[i] == '"' and i + 1 < n and line[i + 1] == '"':
                    buf.append('"')
                    i += 2
                elif line[i] == '"':
                    i += 1
                    break
                else:
                    buf.append(line[i])
                    i += 1
            cell = "".join(buf)
            while i < n and line[i] != ",":
                i += 1
        else:
            j = line.find(",", i)
            j = n if j < 0 else j
            cell, i = line[i:j], j
        out.append((start + 1, cell.strip()))
        if i >= n:
            return out
        i += 1  # the comma


def _csv(path: str, text: str) -> list[Measured]:
    header: list[tuple[int, str]] | None = None
    runs: list[Measured] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = _cells(line)
        if header is None:
            for col, name in cells:
                if name.lower() not in COLUMNS:
                    raise ConfigError(
                        f"{path}:{number}:{col}: unknown column '{name[:40]}' (known: "
                        f"{', '.join(COLUMNS)})"
                    )
            names = [n.lower() for _, n in cells]
            if "step_time" not in names:
                raise ConfigError(f"{path}:{number}:1: no step_time column (e.g. '2.41 s')")
            dup = next((n for n in names if names.count(n) > 1), None)
            if dup is not None:
                raise ConfigError(f"{path}:{number}:1: column '{dup}' given twice")
            header = [(c, n.lower()) for c, n in cells]
            continue
        if len(cells) != len(header):
            raise ConfigError(
                f"{path}:{number}:1: {len(cells)} cells, the header has {len(header)}"
            )
        if len(runs) >= MAX_RUNS:
            raise ConfigError(f"{path}:{number}:1: more than {MAX_RUNS:,} runs")
        runs.append(_row(path, number, header, cells))
    if not runs:
        raise ConfigError(f"{path}:1:1: no runs (a header row, then one run a row)")
    return runs


def _row(
    path: str, number: int, header: list[tuple[int, str]], cells: list[tuple[int, str]]
) -> Measured:
    values: dict[str, int | str] = {}
    seconds = 0.0
    label = ""
    for (_, name), (col, cell) in zip(header, cells, strict=True):
        at = f"{path}:{number}:{col}"
        if not cell:
            if name == "step_time":
                raise ConfigError(f"{at}: step_time is empty; write the measured step, e.g. 2.41 s")
            continue
        if name == "step_time":
            seconds = _seconds(cell, at)
        elif name in INTS:
            if not re.fullmatch(r"\d{1,9}", cell) or int(cell) < 1:
                raise ConfigError(f"{at}: {name} '{cell[:40]}' is not a whole number of 1 or more")
            values[name] = int(cell)
        elif name == "recompute":
            if cell not in _RECOMPUTE:
                raise ConfigError(f"{at}: recompute '{cell[:40]}': one of {', '.join(_RECOMPUTE)}")
            values[name] = cell
        elif name == "workload":
            values[name] = cell[:200]
        else:
            label = cell[:80]
    return Measured(f"{path}:{number}", label or f"{path}:{number}", values, seconds)


def _seconds(cell: str, at: str) -> float:
    from dclint.units import QuantityError, parse_quantity

    try:
        q = parse_quantity(cell)
    except QuantityError as exc:
        raise ConfigError(f"{at}: step_time: {exc}; e.g. '2.41 s'") from None
    if q.dimensionless:
        raise ConfigError(f"{at}: step_time '{cell[:40]}' needs a unit: write '{cell} s' or ms")
    try:
        seconds = float(q.m_as("s"))
    except Exception:
        raise ConfigError(
            f"{at}: step_time '{cell[:40]}' is not a duration; e.g. '2.41 s'"
        ) from None
    if not 1e-6 <= seconds <= 86400:
        raise ConfigError(f"{at}: step_time '{cell[:40]}' is outside 1 us - 1 day")
    return seconds


def _log(path: str, text: str) -> Measured:
    times: list[tuple[int, float]] = []
    values: dict[str, int | str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        arg = _ARG_LINE.match(line)
        if arg and arg.group(1) in _ARGUMENTS and re.fullmatch(r"\d{1,9}", arg.group(2)):
            if int(arg.group(2)) >= 1:
                values[_ARGUMENTS[arg.group(1)]] = int(arg.group(2))
            continue
        found = _MEGATRON.search(line)
        scale = 1e-3
        if found is None:
            found, scale = _NEMO.search(line), 1.0
        if found is None:
            continue
        try:
            seconds = float(found.group(1)) * scale
            why = "is outside 1 us - 1 day" if math.isfinite(seconds) else "is not a finite number"
        except ValueError:
            seconds, why = -1.0, "is unreadable"
        if not 1e-6 <= seconds <= 86400:
            col = found.start(1) + 1
            raise ConfigError(
                f"{path}:{number}:{col}: step time '{found.group(1)[:40]}' {why}: every logged "
                "step is read, so remove or fix the line"
            )
        batch = _BATCH.search(line)
        if batch is not None:
            values["global_batch"] = int(batch.group(1))
        times.append((number, seconds))
    if not times:
        raise ConfigError(
            f"{path}:1:1: no step times: expected Megatron-LM's 'elapsed time per iteration "
            "(ms): ...' or NeMo's 'train_step_timing in s=...' lines (a CSV must end in .csv)"
        )
    kept = times[1:] if len(times) > 1 else times  # the first interval holds the warm-up
    first = kept[0][0]
    label = f"{path} ({len(kept)} logged steps)"
    return Measured(f"{path}:{first}", label, values, median(t for _, t in kept))
