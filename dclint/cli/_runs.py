"""Run records, the results cache's fast path: a repeat of a `dclint check` command line, in
the same working directory on the same day, with every design, included file, config and
searched directory unchanged, prints the report the first run printed and exits with its code.
The replay imports os, sys, json, hashlib and dclint's file reader only (no argparse, no engine,
no presenter), so that a cached repeat costs little more than the interpreter's start.

A record is written by a check that used the results cache (dclint.cli._cache; never with
--no-cache or the options that bypass it) and printed its report (any format) on standard
output, nothing on standard error, exit code 0 or 1, with no rules directory (--rules-dir, a
--config's rules-dir), no site policies and no calibration profile in effect. It lives in the
results cache folder of the working directory (beside the config that governs it, else at its
repository root; none: no record), one JSON file a record, `run-<key>.json`, the key a hash of
the record format, dclint's version and files (dclint.cli._cache's run key has them too), the
installed distributions, the Python, the working directory, the date, the whole command line,
NO_COLOR, FORCE_COLOR and whether standard output is a terminal. It holds the config of each
design (found, or given with --config) and the SHA-256 of the text of every design, every file
it includes and every config; a replay finds each design's config again and compares every
digest. Configs are hashed before the check reads them and again after it, and a record is
made only when both agree (the check read what was hashed).

A directory on the command line (`dclint check .`) is searched as dclint.engine.files searches
it; the record keeps each directory the search entered, by inode, modification and change
time (a file added, removed or renamed in it changes them), and the digest of every YAML file
the search met, designs or not (an edit can make a file a design). A replay stats those
directories instead of searching them again. Their times are taken before the check and again
after it, and a directory modified less than RACY_NS before the check is not recorded (a
file added within the file system's timestamp granularity would not change its time). A
Markdown or HTML report prints each design's git commit: its record keeps them, and a replay
asks git again (two calls a folder).

At most MAX_RUNS records are kept: the oldest are removed when one is written.

A record is untrusted input, as a cache file is: read only from a trusted cache folder, as a
regular file of the user's within MAX_RUN_BYTES, not through a symlink, its seal checked
(dclint.cli._seal), parsed as JSON, its shape checked; anything else is no record.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time

from dclint._version import __version__
from dclint.cli._seal import open_sealed, seal, trusted_folder
from dclint.loader.configfile import find_config
from dclint.loader.readfile import FileRejected, read_regular

TYPE_CHECKING = False  # as typing's, without importing typing
if TYPE_CHECKING:
    from typing import Any

try:  # CPython's own SHA-256: hashlib loads OpenSSL first (milliseconds of every replay)
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]  # Python 3.11
except ImportError:  # pragma: no cover - another Python
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found]  # 3.12 on
    except ImportError:
        from hashlib import sha256 as _sha256

__all__ = ["Snapshot", "cache_folder", "code", "distributions", "replay", "text_digest"]

SCHEMA = 1
DIRECTORY = ".dclint_cache"
ENV = "DCLINT_NO_CACHE"  # set (to anything but "" or "0"): no cache, as --no-cache
PREFIX = "run-"
MAX_RUNS = 64
MAX_RUN_BYTES = 64 * 1024 * 1024
MAX_INPUT_BYTES = 64 * 1024 * 1024  # a larger design, include or config is not cached
_BOM = b"\xef\xbb\xbf"
STALE_SECONDS = 14 * 86_400  # another key's file untouched this long is removed on a write
_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by dclint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_LARGE = 1 << 20  # bytes past which hashlib (OpenSSL) is worth its import
# a searched directory modified this recently when a check starts is not recorded: FAT's 2 s
# timestamps, and the kernel's coarse clock (a few ms) elsewhere
RACY_NS = 2_000_000_000


def disabled() -> bool:
    """DCLINT_NO_CACHE is set: neither the results cache nor its records."""
    return os.environ.get(ENV, "") not in ("", "0")


def digest(data: bytes) -> str:
    """SHA-256, hex: OpenSSL's for large data (some 5 times faster), else CPython's own."""
    if len(data) > _LARGE:
        import hashlib

        return hashlib.sha256(data).hexdigest()
    return str(_sha256(data).hexdigest())


def text_digest(path: str) -> str | None:
    """The SHA-256 of a file's text as the loader reads it (a UTF-8 BOM dropped); None when
    it is not a readable regular file within MAX_INPUT_BYTES."""
    try:
        raw = read_regular(path, MAX_INPUT_BYTES)
    except (FileRejected, ValueError, OSError):  # ValueError: a NUL in a hostile name
        return None
    return digest(raw[3:] if raw.startswith(_BOM) else raw)


def tree_stats(folder: str, suffixes: tuple[str, ...] | None = None) -> list[Any]:
    """(relative path, size, mtime) of the files under `folder`, __pycache__ left out; as
    os.walk lists them (sorted, a directory's files before its subdirectories, symbolic links
    to directories not followed), in one os.scandir a directory."""
    out: list[Any] = []

    def walk(top: str, prefix: str) -> None:
        try:
            with os.scandir(top) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            return
        subdirs = []
        for e in entries:
            try:
                is_dir = e.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if e.name != "__pycache__" and not e.is_symlink():
                    subdirs.append(e)
                continue
            if suffixes is not None and not e.name.endswith(suffixes):
                continue
            with contextlib.suppress(OSError):
                info = e.stat()
                out.append([prefix + e.name, info.st_size, info.st_mtime_ns])
        for d in subdirs:
            walk(d.path, f"{prefix}{d.name}{os.sep}")

    walk(folder, "")
    return out


def distributions() -> list[str]:
    """Every installed distribution's metadata directory name (name and version) on sys.path."""
    out = []
    for entry in sys.path:
        with contextlib.suppress(OSError):
            out += sorted(
                n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info"))
            )
    return out


_CODE: list[Any] = []  # code()'s answer, once a process


def code() -> list[Any]:
    """dclint's own files and the built-in rules', by size and modification time: listed once
    a process (some 540 files, 4 ms; a check asks twice, for its results cache's key and its
    run record's). A process keeps its first listing, as it keeps the modules it imported."""
    if not _CODE:
        _CODE.append(_code())
    return list(_CODE[0])  # a caller's list: the kept one stays as listed


def _code() -> list[Any]:
    import importlib.util

    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    out: list[Any] = [tree_stats(package)]
    spec = importlib.util.find_spec("dclint.rules")
    if spec is not None and spec.submodule_search_locations:
        out += [tree_stats(str(p)) for p in spec.submodule_search_locations]
    else:  # a source checkout run from its directory: the pack beside the package
        out.append(tree_stats(os.path.join(os.path.dirname(package), "rules")))
    return out


def cache_folder() -> str | None:
    """The results cache folder of the working directory: beside the config that governs it,
    else at its repository root (the nearest directory holding `.git`); None without either."""
    try:
        start = os.path.realpath(os.getcwd())
    except OSError:
        return None
    config = find_config(start)
    if config is not None:
        return os.path.join(os.path.dirname(config), DIRECTORY)
    directory = start
    while not os.path.lexists(os.path.join(directory, ".git")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    return os.path.join(directory, DIRECTORY)


def _config_of(file: str, found: dict[str, str | None]) -> str | None:
    """The config a design file's directory finds (as dclint.engine.config does)."""
    directory = os.path.dirname(os.path.realpath(file))
    if directory not in found:
        found[directory] = find_config(directory)
    return found[directory]


def run_key(argv: list[str], day: str) -> str:
    """The key of a command line's record (see the module doc)."""
    stdout = sys.stdout
    try:
        terminal = bool(stdout is not None and stdout.isatty())
    except (AttributeError, ValueError, OSError):
        terminal = False
    parts = {
        "schema": SCHEMA,
        "version": __version__,
        "python": sys.version,
        "prefix": sys.prefix,
        "code": code(),
        "distributions": distributions(),
        "cwd": os.getcwd(),
        "today": day,
        "argv": argv,
        "env": [bool(os.environ.get(v)) for v in ("NO_COLOR", "FORCE_COLOR")],
        "terminal": terminal,
    }
    return digest(json.dumps(parts, sort_keys=True).encode())


def _today() -> str:
    return time.strftime("%Y-%m-%d")


def _pairs(value: Any) -> list[tuple[str, str]]:
    if not isinstance(value, list):
        raise ValueError("pairs")
    out = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError("pair")
        if not all(isinstance(x, str) for x in pair):
            raise ValueError("pair")
        out.append((pair[0], pair[1]))
    return out


def _dirs(value: Any) -> list[tuple[str, int, int, int]]:
    if not isinstance(value, list):
        raise ValueError("dirs")
    out = []
    for row in value:
        if not isinstance(row, list) or len(row) != 4 or not isinstance(row[0], str):
            raise ValueError("dir")
        if not all(type(x) is int for x in row[1:]):
            raise ValueError("dir")
        out.append((row[0], row[1], row[2], row[3]))
    return out


def _times(directory: str) -> list[int] | None:
    """A directory's inode, modification and change times (ns); None if it is none."""
    try:
        info = os.stat(directory)
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    return [info.st_ino, info.st_mtime_ns, info.st_ctime_ns]


def replay(argv: list[str]) -> int | None:
    """Print the recorded report of `dclint argv` and return its exit code, when a record of
    this command line holds and nothing it depends on changed; None (run the command) else."""
    if disabled() or "--no-cache" in argv:  # no record is made with the cache off
        return None
    try:
        folder = cache_folder()
        if folder is None or not os.path.isdir(folder):
            return None
        if not trusted_folder(folder):
            return None
        key = run_key(argv, _today())
        path = os.path.join(folder, f"{PREFIX}{key[:32]}.json")
        text = open_sealed(path, MAX_RUN_BYTES, key)
        if text is None:
            return None
        data = json.loads(text)
    except (ValueError, OSError, RecursionError):
        return None
    try:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("key") != key:
            return None
        out, exit_code, given = data.get("out"), data.get("code"), data.get("given")
        if not isinstance(out, str) or exit_code not in (0, 1) or type(exit_code) is not int:
            return None
        if given is not None and not isinstance(given, str):
            return None
        designs = _pairs(data.get("designs"))  # (design, its config or "")
        digests = _pairs(data.get("digests"))  # (file, SHA-256) of every file read
        dirs = _dirs(data.get("dirs", []))  # (directory, inode, mtime, ctime) searched
        commits = data.get("commits")  # Markdown, HTML: each design's git commit, as printed
        if commits is not None and not isinstance(commits, dict):
            return None
    except ValueError:
        return None
    if not designs:
        return None
    for directory, *times in dirs:
        if _times(directory) != times:
            return None
    found: dict[str, str | None] = {}
    for file, config in designs:
        if given is None and (_config_of(file, found) or "") != config:
            return None
    for file, expected in digests:
        if text_digest(file) != expected:
            return None
    if commits is not None:
        from dclint.report.commits import commits as now

        if now(list(commits)) != commits:
            return None
    if out:
        sys.stdout.write(out)
    return exit_code


class Snapshot:
    """What a check's record depends on, taken before the check reads anything: the date, each
    design's config (found, or given with --config) with its digest, and for a directory each
    directory searched (its times) and each YAML file met (its digest). None of it (no record)
    when a path is neither a regular file nor a directory, a directory cannot be searched or
    was modified just now, or the working directory has no cache folder."""

    def __init__(self, paths: list[str], given: str | None) -> None:
        self.day = _today()
        self.given = given
        self.folder = cache_folder()
        self.configs: dict[str, str | None] = {}  # design -> its config file
        self.digests: dict[str, str | None] = {}  # config file -> its digest before the check
        self.dirs: list[list[Any]] = []  # [directory, inode, mtime, ctime] of each searched
        self.listed: dict[str, str | None] = {}  # YAML file met there -> its digest
        self.usable = self.folder is not None
        self._found: dict[str, str | None] = {}  # directory -> its config
        if not self.usable:  # no cache folder: nothing is recorded, nothing to read
            return
        started = time.time_ns()
        for file in paths:
            try:
                regular = os.path.isfile(file)
                directory = not regular and os.path.isdir(file)
            except ValueError:  # a NUL in the name
                regular = directory = False
            if directory and self._search(file, started):
                continue
            if not regular:
                self.usable = False
                return
            self.configs[file] = self._config(file)
        for file in self.listed:
            self.listed[file] = text_digest(file)

    def _config(self, file: str) -> str | None:
        """The config of a design file, hashed (now, before the check reads it)."""
        config = self.given if self.given is not None else _config_of(file, self._found)
        if config is not None and config not in self.digests:
            self.digests[config] = text_digest(config)
        return config

    def _search(self, root: str, started: int) -> bool:
        """Each directory under `root` that dclint.engine.files searches, timed before it is
        listed, and the YAML files it holds; False when one cannot be listed or was modified
        less than RACY_NS before `started`."""
        from pathlib import Path

        from dclint.engine.files import SKIP_DIRS, SUFFIXES

        stack = [str(Path(root))]  # spelled as the search spells it ("./x" is "x")
        while stack:
            directory = stack.pop()
            times = _times(directory)
            if times is None or times[1] > started - RACY_NS:
                return False
            self.dirs.append([directory, *times])
            try:
                with os.scandir(directory) as listing:
                    entries = list(listing)
            except OSError:
                return False
            for e in entries:
                if e.name.startswith("."):
                    continue
                try:
                    is_dir = e.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:  # as os.walk(followlinks=False): a linked directory is not searched
                    if e.name not in SKIP_DIRS and not e.is_symlink():
                        stack.append(os.path.join(directory, e.name))
                elif e.name.endswith(SUFFIXES):
                    path = os.path.join(directory, e.name)
                    self.listed[path] = None
                    self._config(path)  # the config it would be checked with
        return True

    def record(
        self,
        argv: list[str],
        inputs: dict[str, list[tuple[str, str]]],
        configs: dict[str, str | None],
        out: str,
        exit_code: int,
        commits: bool = False,
    ) -> None:
        """Write the record of a run: `inputs` the (file, digest) pairs each design was checked
        from, `configs` the config each was checked with (Config.file), with `commits` each
        design's git commit (a Markdown or HTML report prints them); nothing is written when a
        config is not the one found before the check, a file or directory changed during it,
        or a design is neither named nor met in a directory searched."""
        if not self.usable or self.folder is None or exit_code not in (0, 1):
            return
        expected = dict(self.configs)
        for file in inputs:
            if file not in expected:
                if file not in self.listed:
                    return
                expected[file] = self._config(file)
        if set(inputs) != set(expected) or configs != expected:
            return
        for config, before in self.digests.items():
            if before is None or text_digest(config) != before:
                return
        listed = dict(self.listed)
        for name, digest in (pair for pairs in inputs.values() for pair in pairs):
            if listed.get(name, digest) != digest:  # read otherwise than before the check
                return
        if any(d is None for d in listed.values()):
            return
        for directory, *times in self.dirs:
            if _times(directory) != times:
                return
        digests = [[c, d] for c, d in self.digests.items()]
        digests += [[name, d] for name, d in listed.items()]
        for pairs in inputs.values():
            digests += [[name, d] for name, d in pairs if name not in listed]
        key = run_key(argv, self.day)
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "version": __version__,
            "key": key,
            "given": self.given,
            "designs": [[f, c or ""] for f, c in expected.items()],
            "digests": digests,
            "dirs": self.dirs,
            "out": out,
            "code": exit_code,
        }
        if commits:
            from dclint.report.commits import commits as of

            data["commits"] = of(list(expected))
        text = json.dumps(data, separators=(",", ":"))
        if len(text) > MAX_RUN_BYTES:
            return
        with contextlib.suppress(OSError):
            if write(self.folder, f"{PREFIX}{key[:32]}.json", text, key):
                _prune(self.folder)


def write(folder: str | os.PathLike[str], name: str, text: str, context: str) -> bool:
    """`text`, sealed for `context` (dclint.cli._seal), into folder/name through a temporary
    file and a rename; the folder made (mode 0700) with its .gitignore and CACHEDIR.TAG.
    Nothing is written (False) into a folder that is not trusted (a symlink, someone else's,
    tracked by git) or without the user's secret."""
    folder = os.fspath(folder)
    if not trusted_folder(folder):
        return False
    sealed = seal(text, context)
    if sealed is None:
        return False
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        os.mkdir(folder, 0o700)
        info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        return False
    for marker, content in ((".gitignore", "*\n"), ("CACHEDIR.TAG", _TAG)):
        path = os.path.join(folder, marker)
        if not os.path.lexists(path):
            with contextlib.suppress(FileExistsError):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(content)
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(sealed)
        os.replace(tmp, os.path.join(folder, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for e in entries:  # other keys' files nobody has written for a while
            mine = e.name.endswith(".json") and e.is_file(follow_symlinks=False)
            if mine and e.name != name and now - e.stat().st_mtime > STALE_SECONDS:
                os.unlink(e.path)
    return True


def _prune(folder: str) -> None:
    """Keep the MAX_RUNS records written last."""
    runs = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.name.startswith(PREFIX) and e.name.endswith(".json"):
                with contextlib.suppress(OSError):
                    runs.append((e.stat(follow_symlinks=False).st_mtime_ns, e.path))
    for _, path in sorted(runs)[:-MAX_RUNS]:
        with contextlib.suppress(OSError):
            os.unlink(path)
