"""What makes the results cache (dclint.cli._cache) and its run records (dclint.cli._runs)
unable to lie: a cache folder is used only when it is this user's own, and a cache file is
believed only when it carries a keyed digest that only this user's dclint can make.

- **The folder.** `.dclint_cache` is used (read or written) only when it is a real directory,
  not a symbolic link, owned by the user running dclint, not writable by others, and not
  tracked by git (no path of the repository's index lies under it: a folder committed to the
  repository is someone else's data).
- **The file.** Opened with O_NOFOLLOW (a symlink is no file), never blocking; it must be a
  regular file owned by the user, within its size limit.
- **The seal.** Every cache file starts with a line `dclint-seal <HMAC-SHA256>`, the HMAC of
  the file's key (the run key: dclint's version, files and options) and its text, keyed by a
  per-user secret of 32 random bytes kept outside every repository, in
  `$XDG_CACHE_HOME/dclint/results-key` (else `~/.cache/dclint/results-key`), a file of mode
  0600 in a folder of mode 0700, both the user's. Each stored design carries the SHA-256 of
  its text, of every file it includes and of its resolved configuration, inside the sealed
  text: an entry edited, planted or copied from another key is a miss, never a verdict. Where
  the secret cannot be read or made, there is no cache.

Only os and CPython's own SHA-256 are imported (the replay's budget)."""

from __future__ import annotations

import contextlib
import os
import stat

try:  # CPython's own SHA-256: hashlib loads OpenSSL first (milliseconds of every replay)
    from _sha256 import sha256 as _sha256  # type: ignore[import-not-found]  # Python 3.11
except ImportError:  # pragma: no cover - another Python
    try:
        from _sha2 import sha256 as _sha256  # type: ignore[import-not-found]  # 3.12 on
    except ImportError:
        from hashlib import sha256 as _sha256

__all__ = ["SEAL", "open_sealed", "seal", "secret", "tracked", "trusted_folder"]

SEAL = b"dclint-seal "
SECRET_NAME = "results-key"
SECRET_BYTES = 32
MAX_INDEX_BYTES = 256 * 1024 * 1024  # a larger git index: the folder is taken as tracked
_uid = getattr(os, "geteuid", None)
_secrets: dict[str, bytes] = {}  # by path: read once a process


def _secret_folder() -> str | None:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "dclint")


def _owned(info: os.stat_result) -> bool:
    return _uid is None or info.st_uid == _uid()


def _read_secret(path: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _owned(info) or info.st_mode & 0o077:
            return None
        data = os.read(fd, SECRET_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == SECRET_BYTES else None


def secret(create: bool = False) -> bytes | None:
    """This user's cache secret; with `create`, made when there is none (32 bytes of
    os.urandom, written to a private temporary file and linked into place, so two runs never
    see half a secret). None when it cannot be read or made: no cache."""
    folder = _secret_folder()
    if folder is None:
        return None
    path = os.path.join(folder, SECRET_NAME)
    found = _secrets.get(path) or _read_secret(path)
    if found is None and create and not os.path.lexists(path):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            info = os.lstat(folder)
            if not stat.S_ISDIR(info.st_mode) or not _owned(info) or info.st_mode & 0o022:
                return None
            tmp = os.path.join(folder, f".{SECRET_NAME}.{os.getpid()}.{os.urandom(6).hex()}")
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(tmp, flags, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(os.urandom(SECRET_BYTES))
                with contextlib.suppress(FileExistsError):  # another run's secret stays
                    os.link(tmp, path)
            finally:
                os.unlink(tmp)
        except OSError:
            return None
        found = _read_secret(path)
    if found is not None:
        _secrets[path] = found
    return found


def _hmac(key: bytes, data: bytes) -> str:
    """HMAC-SHA256 (RFC 2104) with CPython's own SHA-256 (hmac imports OpenSSL)."""
    block = key.ljust(64, b"\0")
    inner = _sha256(bytes(b ^ 0x36 for b in block) + data).digest()
    return str(_sha256(bytes(b ^ 0x5C for b in block) + inner).hexdigest())


def seal(text: str, context: str) -> str | None:
    """`text` with its seal line first (see the module doc); None without a secret."""
    key = secret(create=True)
    if key is None:
        return None
    body = text.encode("utf-8")
    mac = _hmac(key, context.encode("utf-8") + b"\n" + body)
    return f"{SEAL.decode()}{mac}\n{text}"


def unseal(data: bytes, context: str) -> bytes | None:
    """The text of a sealed file whose seal is this user's for `context`; None otherwise."""
    key = secret()
    if key is None or not data.startswith(SEAL):
        return None
    end = data.find(b"\n")
    if end < 0:
        return None
    body = data[end + 1 :]
    expected = _hmac(key, context.encode("utf-8") + b"\n" + body).encode()
    from _operator import _compare_digest  # hmac.compare_digest, without hmac (OpenSSL)

    return body if _compare_digest(data[len(SEAL) : end], expected) else None


def open_sealed(path: str, limit: int, context: str) -> bytes | None:
    """The sealed text of the cache file `path`, when it is a regular file of this user's (not
    a symlink), within `limit` bytes, and its seal holds; None otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _owned(info) or info.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None
    except OSError:
        return None
    finally:
        os.close(fd)
    return unseal(b"".join(chunks), context)


def trusted_folder(folder: str) -> bool:
    """Whether the cache folder may be read and written: a real directory (not a symlink) of
    this user's, not writable by others, not tracked by git. A folder that does not exist yet is
    trusted when its repository would not track it (it is made by the user's own run)."""
    folder = os.path.abspath(folder)
    try:
        info = os.lstat(folder)
        ok = stat.S_ISDIR(info.st_mode) and _owned(info) and not info.st_mode & 0o002
    except FileNotFoundError:
        ok = True
    except (OSError, ValueError):
        ok = False
    return ok and not tracked(folder)


def _git_dir(root: str) -> str | None:
    """The git directory of the work tree at `root` (`.git`, or where a `.git` file points)."""
    dotgit = os.path.join(root, ".git")
    if os.path.isdir(dotgit):
        return dotgit
    try:
        with open(dotgit, "rb") as handle:
            line = handle.read(4096).split(b"\n", 1)[0].strip()
    except OSError:
        return None
    if not line.startswith(b"gitdir:"):
        return None
    where = os.fsdecode(line[len(b"gitdir:") :].strip())
    return os.path.normpath(os.path.join(root, where))


def _hash_length(git_dir: str) -> int:
    """20 (SHA-1) or 32 (a repository of `objectformat = sha256`)."""
    common = git_dir
    try:  # a linked work tree: its config is in the common git directory
        with open(os.path.join(git_dir, "commondir"), "rb") as handle:
            pointer = os.fsdecode(handle.read(4096).strip())
        common = os.path.normpath(os.path.join(git_dir, pointer))
    except OSError:
        pass
    try:
        with open(os.path.join(common, "config"), "rb") as handle:
            config = handle.read(1 << 20).lower().replace(b" ", b"").replace(b"\t", b"")
    except OSError:
        return 20
    return 32 if b"objectformat=sha256" in config else 20


def index_paths(data: bytes, hash_length: int = 20) -> list[bytes]:
    """The paths of a git index file (versions 2, 3 and 4; gitformat-index(5)); ValueError
    for anything else."""
    if data[:4] != b"DIRC" or len(data) < 12:
        raise ValueError("not a git index")
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        raise ValueError(f"git index version {version}")
    fixed = 40 + hash_length  # times, dev, ino, mode, uid, gid, size, object name
    out: list[bytes] = []
    pos, previous = 12, b""
    for _ in range(count):
        start = pos
        flags = int.from_bytes(data[pos + fixed : pos + fixed + 2], "big")
        pos += fixed + 2
        if version >= 3 and flags & 0x4000:
            pos += 2
        if version == 4:
            byte = data[pos]
            pos += 1
            strip = byte & 127
            while byte & 128:
                byte = data[pos]
                pos += 1
                strip = ((strip + 1) << 7) | (byte & 127)
            end = data.index(b"\0", pos)
            if strip > len(previous):
                raise ValueError("git index path")
            path = previous[: len(previous) - strip] + data[pos:end]
            pos = end + 1
        else:
            end = data.index(b"\0", pos)
            path = data[pos:end]
            pos = start + ((end - start) // 8 + 1) * 8
        if pos > len(data):
            raise ValueError("git index truncated")
        out.append(path)
        previous = path
    return out


def tracked(folder: str) -> bool:
    """Whether git tracks a file under `folder` in the repository around it (its index; a
    split or sparse index's other part is not read). An index that cannot be read or parsed
    counts as tracking it: no cache rather than a cache someone committed."""
    root = os.path.dirname(folder)
    while not os.path.lexists(os.path.join(root, ".git")):
        parent = os.path.dirname(root)
        if parent == root:
            return False
        root = parent
    git_dir = _git_dir(root)
    if git_dir is None:
        return False  # not a work tree git describes: nothing tracks it
    index = os.path.join(git_dir, "index")
    try:
        info = os.stat(index)
    except FileNotFoundError:
        return False  # nothing added yet
    except OSError:
        return True
    if info.st_size > MAX_INDEX_BYTES:
        return True
    prefix = os.path.relpath(folder, root).replace(os.sep, "/").encode() + b"/"
    stamp = (index, info.st_mtime_ns, info.st_size, info.st_ino, prefix)
    known = _tracked.get(stamp)
    if known is None:  # an index is read once a run, however many cache folders it has
        known = _tracked[stamp] = _index_tracks(index, git_dir, prefix)
    return known


_tracked: dict[tuple[str, int, int, int, bytes], bool] = {}


def _index_tracks(index: str, git_dir: str, prefix: bytes) -> bool:
    try:
        with open(index, "rb") as handle:
            data = handle.read(MAX_INDEX_BYTES + 1)
        version = int.from_bytes(data[4:8], "big")
        if version in (2, 3) and prefix not in data:
            return False  # paths stand whole in these versions: not there, not tracked
        paths = index_paths(data, _hash_length(git_dir))
    except (OSError, ValueError, IndexError):
        return True
    return any(p.startswith(prefix) for p in paths)
