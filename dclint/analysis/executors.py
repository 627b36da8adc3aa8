"""Where a grid's points run: local processes by default, or any `concurrent.futures.Executor`
(the Python API takes one), or a cluster named on the command line: `dask://HOST:PORT` (a
dask.distributed scheduler, the `dask` extra) or `ray` / `ray://HOST:PORT` (Ray, the `ray`
extra). No scheduler of dclint's own: the executors dispatch, dclint only groups the work.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

from dclint.errors import ConfigError

__all__ = ["RayExecutor", "address", "executor_for", "local_pool"]


class RayExecutor(Executor):
    """Ray tasks behind the `Executor` interface: each submit is a remote task, its future
    the task's ObjectRef as a `concurrent.futures.Future` (Ray's own conversion)."""

    def __init__(self, ray: Any) -> None:
        self._call = ray.remote(_call)  # one remote function; the callable travels pickled

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = self._call.remote(fn, *args, **kwargs).future()
        return future


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run `fn` in a Ray worker (Ray's decorator takes functions, not partials)."""
    return fn(*args, **kwargs)


def address(spec: str) -> tuple[str, int]:
    """The (host, port) of `dask://HOST:PORT` or `ray://HOST:PORT`: a host name (letters,
    digits, hyphens and dots, RFC 1123), an IPv4 address or a bracketed IPv6 one, and a port of
    1-65535; anything else is a ConfigError, before any library sees it."""
    import ipaddress
    import re

    scheme, _, rest = spec.partition("://")
    if scheme not in ("dask", "ray"):
        raise ConfigError(
            f"--executor {spec[:200]!r}: expected dask://HOST:PORT or ray://HOST:PORT"
        )
    usage = f"--executor {spec[:200]!r}: expected {scheme}://HOST:PORT"
    host, colon, port = rest.rpartition(":")
    if not colon or not re.fullmatch(r"[0-9]{1,5}", port) or not 1 <= int(port) <= 65535:
        raise ConfigError(f"{usage}, a port of 1-65535")
    if host.startswith("[") and host.endswith("]"):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise ConfigError(f"{usage}: '{host[:60]}' is not an IPv6 address") from None
        return host, int(port)
    if re.fullmatch(r"[0-9.]+", host):  # digits and dots: an IPv4 address or nothing
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise ConfigError(f"{usage}: '{host[:60]}' is not an IPv4 address") from None
        return host, int(port)
    label = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
    if len(host) > 253 or not re.fullmatch(rf"{label}(\.{label})*\.?", host):
        raise ConfigError(f"{usage}: '{host[:60]}' is not a host name or address")
    return host, int(port)


def local_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` processes that end when the process that started them dies.

    A pool's workers block reading a pipe that each of them also holds open, so when their
    parent is killed outright (SIGKILL, the OOM killer: no handler runs) they never see the pipe
    close and live on as orphans. Each worker watches its parent instead and exits when it is
    gone."""
    return ProcessPoolExecutor(
        max_workers=workers, initializer=_die_with_parent, initargs=(os.getpid(),)
    )


def _die_with_parent(parent: int, every: float = 0.5) -> None:
    """Pool-worker initializer: a daemon thread ends this worker once `parent` is gone (the
    worker is then adopted by another process, so its parent id changes)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="dclint-parent-watch", daemon=True).start()


@contextlib.contextmanager
def executor_for(spec: str | None, jobs: int) -> Iterator[Executor | None]:
    """The executor `spec` names (None: local processes, or this process when `jobs` is 1);
    what it started is stopped when the block ends, also on an error or Ctrl-C."""
    if spec in (None, "", "process", "processes"):
        if jobs <= 1:
            yield None
            return
        pool = local_pool(min(jobs, os.cpu_count() or 1))
        try:
            yield pool
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return
    assert spec is not None
    if "://" in spec:
        address(spec)  # before anything is imported or contacted: one error line
    if spec.startswith("dask://") or spec == "dask":
        try:
            dist: Any = importlib.import_module("distributed")  # typed loosely: no stubs
        except ImportError:
            raise ConfigError(
                "--executor dask needs the dask extra: pip install 'dclint[dask]'"
            ) from None
        if spec == "dask":
            cluster = dist.LocalCluster(
                n_workers=max(1, jobs), threads_per_worker=1, dashboard_address=None
            )
            client = dist.Client(cluster)
        else:
            cluster = None
            try:
                client = dist.Client(spec.removeprefix("dask://"), timeout="10s")
            except (OSError, ValueError, MemoryError, TypeError) as exc:  # e.g. not a scheduler
                raise ConfigError(
                    f"--executor {spec}: cannot reach a Dask scheduler there: "
                    f"{type(exc).__name__}: {str(exc)[:200]}"
                ) from None
        try:
            yield client.get_executor()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return
    if spec == "ray" or spec.startswith("ray://"):
        try:
            import ray
        except ImportError:
            raise ConfigError(
                "--executor ray needs the ray extra: pip install 'dclint[ray]'"
            ) from None
        started = not ray.is_initialized()
        if started:
            try:
                if spec == "ray":  # a private cluster: "local" never joins the one RAY_ADDRESS
                    ray.init(  # or Ray's temp folder (/tmp/ray/ray_current_cluster) records
                        address="local",
                        num_cpus=max(1, jobs),
                        include_dashboard=False,
                        log_to_driver=False,
                    )
                else:
                    ray.init(address=spec, log_to_driver=False)
            except (ConnectionError, OSError, ValueError, RuntimeError) as exc:
                raise ConfigError(
                    f"--executor {spec}: cannot start or reach Ray: {type(exc).__name__}: "
                    f"{str(exc)[:200]}"
                ) from None
        try:
            yield RayExecutor(ray)
        finally:
            if started:
                ray.shutdown()
        return
    raise ConfigError(
        f"--executor {spec}: name 'process', 'dask' (a local cluster), 'dask://HOST:PORT', "
        "'ray' (started here) or 'ray://HOST:PORT'"
    )
