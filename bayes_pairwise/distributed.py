"""Independent work on a ``dask.distributed`` cluster, or in this process (issue 27).

SBC simulations, per-judge leaderboards and strategy sweeps are sets of independent tasks. Each
task carries its own seed (derived from the caller's seed and the task's index, never from the
order in which tasks run), so the results are the same whichever scheduler runs them: in this
process one after the other, on a ``LocalCluster`` of the laptop's cores, or on a cluster joined
by address. One function, :func:`run_tasks`, runs them all; :func:`scheduler_client` turns the
CLI's ``--scheduler`` (``local`` or ``tcp://HOST:PORT``) into a client.

Dask is an optional dependency (``pip install 'bayes-pairwise[dask]'``); without a client nothing
here imports it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["local_cluster_client", "run_tasks", "scheduler_client"]

INSTALL_HINT = "pip install 'bayes-pairwise[dask]' (dask[distributed])"


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"running on a Dask cluster needs dask.distributed: {INSTALL_HINT}"
        ) from exc
    return distributed


async def _close_nannies(nannies: list[Any]) -> None:
    """Close each nanny at once: its worker gets 0.4 s to stop, then is killed; no restart."""
    import asyncio

    await asyncio.gather(
        *(n.close(timeout=0.5) for n in nannies if hasattr(n, "close")), return_exceptions=True
    )


@contextlib.contextmanager
def local_cluster_client(n_workers: int = 2, *, processes: bool = True) -> Iterator[Any]:
    """A ``LocalCluster`` of ``n_workers`` single-threaded workers and its client (closed after).

    Parameters
    ----------
    n_workers : int
        Worker processes (threads with ``processes=False``), one task each at a time.
    processes : bool
        Separate processes (default: NUTS fits hold the GIL) or threads of this process.

    Yields
    ------
    distributed.Client
    """
    import multiprocessing

    distributed = _distributed()
    before = set(multiprocessing.active_children())
    cluster = client = None
    try:
        cluster = distributed.LocalCluster(
            n_workers=int(n_workers),
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
            silence_logs=logging.ERROR,  # not the nanny's notes on stopping its workers
        )
        client = distributed.Client(cluster)
        yield client
    except BaseException:
        # Ctrl-C, SIGTERM or an error, also while the cluster starts: end the workers now (a
        # graceful close waits for their running fits), then close the rest without waiting.
        # The nannies close first: a nanny whose worker is killed under it starts a new one,
        # and closing the cluster (here or at exit) then waits for that worker's start.
        if cluster is not None:
            with contextlib.suppress(BaseException):
                cluster.sync(_close_nannies, list(cluster.workers.values()), callback_timeout=3)
        for proc in set(multiprocessing.active_children()) - before:
            with contextlib.suppress(Exception):
                proc.kill()
        for part in (client, cluster):
            if part is not None:
                with contextlib.suppress(Exception):
                    part.close(timeout=1)
        raise
    client.close()
    cluster.close()


@contextlib.contextmanager
def scheduler_client(scheduler: str | None, *, n_workers: int = 2) -> Iterator[Any]:
    """The client the CLI's ``--scheduler`` names: ``None`` → None (run in this process).

    Parameters
    ----------
    scheduler : str or None
        ``"local"``: start a ``LocalCluster`` of ``n_workers`` processes for the duration;
        ``"tcp://HOST:PORT"`` (or any address ``distributed.Client`` accepts): join that
        cluster's scheduler; ``None``: no client.
    n_workers : int
        Workers of a local cluster.

    Yields
    ------
    distributed.Client or None

    Examples
    --------
    >>> with scheduler_client(None) as client:
    ...     print(client)
    None
    """
    if scheduler is None:
        yield None
        return
    if scheduler == "local":
        with local_cluster_client(n_workers) as client:
            yield client
        return
    distributed = _distributed()
    with distributed.Client(scheduler) as client:
        yield client


def run_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple[Any, ...]],
    *,
    client: Any = None,
    on_done: Callable[[int, Any], None] | None = None,
    return_exceptions: bool = False,
) -> list[Any]:
    """Run ``fn(*args)`` for each ``args`` in ``tasks``; results in the order of ``tasks``.

    Parameters
    ----------
    fn : callable
        A module-level function (it travels to the workers by pickle). Everything random in
        it must come from its arguments (a seed per task), so that the results do not depend
        on where or in which order the tasks run.
    tasks : sequence of tuple
        The arguments of each call.
    client : distributed.Client, optional
        Submit the tasks to this client's cluster and gather them as they finish; ``None``:
        run them here, one after the other.
    on_done : callable, optional
        ``on_done(index, result)`` as each task finishes (in completion order on a cluster):
        progress lines, a results file.
    return_exceptions : bool
        A task that raises gives its exception as its result (and to ``on_done``) instead of
        stopping the run.

    Returns
    -------
    list
        ``fn(*tasks[i])`` at position i.

    Examples
    --------
    >>> run_tasks(pow, [(2, 3), (3, 2)])
    [8, 9]
    """
    results: list[Any] = [None] * len(tasks)
    if client is None:
        for i, args in enumerate(tasks):
            try:
                res = fn(*args)
            except Exception as exc:
                if not return_exceptions:
                    raise
                res = exc
            results[i] = res
            if on_done is not None:
                on_done(i, res)
        return results
    distributed = _distributed()
    futures = [client.submit(fn, *args, pure=False) for args in tasks]
    where = {fut.key: i for i, fut in enumerate(futures)}
    try:
        for fut in distributed.as_completed(futures):
            i = where[fut.key]
            try:
                res = fut.result()
            except Exception as exc:
                if not return_exceptions:
                    raise
                res = exc
            results[i] = res
            if on_done is not None:
                on_done(i, res)
    finally:
        client.cancel(futures)
    return results
