"""Calibration profiles (`dclint calibrate` writes them, a config's `calibration:` names them):
read into dclint.model.calibration.Calibration, located errors; and their text.

A profile:

    gpus:
      h100-sxm:
        compute: 0.9123      # x the model's matmul, attention and HBM rates
        network: 0.7512      # x its NVLink and network bandwidths
        overhead: 31.2 ms    # added to every step
        runs: 8
        fit_error: 1.23 %
        holdout_error: 2.05 %
        fitted_from: runs.csv
"""

from __future__ import annotations

import math
import os
from functools import lru_cache
from typing import Any

from dclint.errors import ConfigError
from dclint.model.calibration import BOUNDS, Calibration, GpuCalibration

__all__ = ["MAX_PROFILE_BYTES", "profile_text", "read_calibration"]

MAX_PROFILE_BYTES = 1024 * 1024
_KEYS = ("compute", "network", "overhead", "runs", "fit_error", "holdout_error", "fitted_from")


def read_calibration(path: str, named_at: str | None = None) -> Calibration:
    """The profile at `path` (named at `named_at`, a config's `file:line:col`); ConfigError
    `file:line:col: what is wrong` when it is not one."""
    try:
        stamp = os.stat(path)
    except OSError as exc:
        where = f"{named_at}: " if named_at else ""
        raise ConfigError(
            f"{where}cannot read calibration profile {path}: {exc.strerror}"
        ) from None
    return _read(os.path.abspath(path), path, stamp.st_mtime_ns, stamp.st_size)


@lru_cache(maxsize=16)
def _read(absolute: str, shown: str, mtime: int, size: int) -> Calibration:
    from dclint.loader.readfile import FileRejected, read_regular
    from dclint.loader.yamlsafe import EmptyDocument, YamlError, read_yaml

    try:
        text = read_regular(absolute, MAX_PROFILE_BYTES, "calibration profile").decode("utf-8")
    except FileRejected as exc:
        raise ConfigError(f"{shown}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: cannot read calibration profile: not valid UTF-8") from None
    try:
        data, source = read_yaml(shown, text)
    except EmptyDocument:
        raise ConfigError(f"{shown}:1:1: empty calibration profile (expected 'gpus:')") from None
    except YamlError as exc:
        raise ConfigError(str(exc.problems[0])) from None

    def at(*path: str | int, key: bool = False) -> str:
        pos = source.locate(tuple(path), key=key)
        return f"{shown}:{pos.line}:{pos.column}"

    if not isinstance(data, dict) or set(data) != {"gpus"} or not isinstance(data["gpus"], dict):
        raise ConfigError(f"{at()}: a calibration profile is a mapping 'gpus:' of GPU -> constants")
    gpus: dict[str, GpuCalibration] = {}
    for gpu, entry in data["gpus"].items():
        if not isinstance(entry, dict):
            raise ConfigError(f"{at('gpus', gpu)}: expected compute, network and overhead")
        gpus[str(gpu)] = _entry(entry, lambda *k, g=gpu, **kw: at("gpus", g, *k, **kw))
    return Calibration(shown, gpus)


def _entry(entry: dict[str, Any], at: Any) -> GpuCalibration:
    from dclint.units import QuantityError, parse_quantity

    for key in entry:
        if key not in _KEYS:
            raise ConfigError(
                f"{at(key, key=True)}: unknown key '{key}' (known: {', '.join(_KEYS)})"
            )
    values: dict[str, Any] = {}
    for key in ("compute", "network"):
        value = entry.get(key, 1.0)
        low, high = BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{at(key)}: {key} is a factor, e.g. 0.9")
        if not low <= value <= high:
            raise ConfigError(f"{at(key)}: {key} {value} is outside {low:g}-{high:g}")
        values[key] = float(value)
    overhead = entry.get("overhead", "0 s")
    try:
        if not isinstance(overhead, str):
            raise QuantityError(f"overhead needs a unit: write '{overhead} s' or similar")
        q = parse_quantity(overhead)
        seconds = q.m_as("s")
    except QuantityError as exc:
        raise ConfigError(f"{at('overhead')}: {exc}; e.g. '31 ms'") from None
    except Exception:  # pint: not a duration
        raise ConfigError(f"{at('overhead')}: overhead is a duration, e.g. '31 ms'") from None
    low, high = BOUNDS["overhead"]
    if not (math.isfinite(seconds) and low <= seconds <= high):
        raise ConfigError(f"{at('overhead')}: overhead {overhead} is outside {low:g}-{high:g} s")
    values["overhead"] = seconds
    runs = entry.get("runs", 0)
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 0:
        raise ConfigError(f"{at('runs')}: runs is a count of measured runs")
    values["runs"] = runs
    for key in ("fit_error", "holdout_error"):
        if key in entry:
            try:
                q = parse_quantity(str(entry[key]))
                values[key] = q.m_as("")
            except Exception:
                raise ConfigError(f"{at(key)}: {key} is a percentage, e.g. '2.1 %'") from None
    values["fitted_from"] = str(entry.get("fitted_from", ""))[:500]
    return GpuCalibration(**values)


def profile_text(profile: Calibration) -> str:
    """The profile as the YAML `read_calibration` reads back."""
    lines = [
        "# dclint calibration profile: constants fitted by `dclint calibrate` to measured steps.",
        "# Name it in .dclint.yaml as `calibration: <this file>`; only the GPUs below change.",
        "gpus:",
    ]
    for gpu, c in profile.gpus.items():
        lines += [
            f"  {gpu}:",
            f"    compute: {c.compute:.6g}  # x the model's matmul, attention and HBM rates",
            f"    network: {c.network:.6g}  # x its NVLink and network bandwidths",
            f"    overhead: {c.overhead * 1e3:.6g} ms  # added to every step",
            f"    runs: {c.runs}",
        ]
        if c.fit_error is not None:
            lines.append(f"    fit_error: {100 * c.fit_error:.4g} %")
        if c.holdout_error is not None:
            lines.append(f"    holdout_error: {100 * c.holdout_error:.4g} %")
        if c.fitted_from:
            lines.append(f"    fitted_from: {_quoted(c.fitted_from)}")
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    import json

    return json.dumps(text)  # a JSON string is a YAML string
