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

__all__ = ["RayExecutor", "executor_for", "local_pool"]


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
            except OSError as exc:
                raise ConfigError(f"--executor {spec}: cannot reach the scheduler: {exc}") from None
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
            if spec == "ray":
                ray.init(num_cpus=max(1, jobs), include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=spec, log_to_driver=False)
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
