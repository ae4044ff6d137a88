"""Bot decisions and hints off the event loop: a pool of worker processes with a bounded queue.

A hard Tile Rummy decision or hint runs the solver for up to tens of milliseconds of compiled
code that holds the interpreter's lock: on the event loop, or on a thread, every other game
would wait for it. So it runs in a worker process (:mod:`gameshack.worker` says what crosses
over: plain data, never a live object; and ends a worker whose server process died).

The pool needs no setting. Workers: one per CPU this process may use, less the one the event
loop runs on; at least 1, at most 4. The queue is bounded: at most ``4 ×`` the workers' count
of jobs are in the pool at once (running or waiting). When it is full, :meth:`Pool.run` with
``wait=False`` (a hint, which a person can ask again) raises :class:`Busy` at once, and with
``wait=True`` (a bot's step, which must happen) waits its turn for a free place — so work never
piles up faster than the workers do it, and every game's bot moves in turn.

Workers start on the first job (a service that runs no bot starts none), by ``spawn``: a fresh
interpreter, safe beside the store's threads. A pool whose worker died (killed, out of memory)
is replaced and the job run once more: a job is a pure function of its arguments.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from gameshack.worker import start

__all__ = ["Busy", "Pool", "default_workers"]

T = TypeVar("T")

MAX_WORKERS = 4
QUEUE_PER_WORKER = 4


class Busy(Exception):
    """The pool's queue is full; ask again in a moment."""


def default_workers() -> int:
    """One worker per usable CPU but the event loop's; at least 1, at most ``MAX_WORKERS``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cpus - 1))


class Pool:
    """Runs picklable functions in worker processes; see the module docstring."""

    def __init__(self, workers: int | None = None, limit: int | None = None) -> None:
        self.workers = workers or default_workers()
        self.limit = limit or QUEUE_PER_WORKER * self.workers
        self._slots = asyncio.Semaphore(self.limit)
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=start
            )
        return self._executor

    async def run(self, fn: Callable[..., T], /, *args: Any, wait: bool) -> T:
        """``fn(*args)`` in a worker. Not ``wait``: raise :class:`Busy` if the queue is full."""
        if not wait and self._slots.locked():
            raise Busy()
        try:
            return await self._submit(fn, args)
        except BrokenProcessPool:
            return await self._submit(fn, args)  # on a new pool

    async def _submit(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        await self._slots.acquire()
        loop = asyncio.get_running_loop()

        def release(_: Future[Any]) -> None:  # on the pool's thread, once the job is done
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(self._slots.release)

        executor = self._pool()
        try:
            job = executor.submit(fn, *args)
        except BaseException as exc:
            self._slots.release()
            if isinstance(exc, BrokenProcessPool):
                self._drop(executor)
            raise
        # The place is held until the job is done, even if the caller stops waiting: a
        # worker still busy with it is not free.
        job.add_done_callback(release)
        try:
            return await asyncio.wrap_future(job)
        except BrokenProcessPool:
            self._drop(executor)
            raise

    def warm(self) -> None:
        """Start the workers now rather than on the first job: a process that may have to take
        over another's bot turns must not pay their start-up (seconds) when one is overdue."""
        executor = self._pool()
        for _ in range(self.workers):  # a spawning pool starts one worker per waiting job
            executor.submit(int)

    def _drop(self, executor: ProcessPoolExecutor) -> None:
        """Forget a broken pool (once, however many of its jobs failed)."""
        if self._executor is executor:
            self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (a job in progress finishes in its worker; its answer is dropped)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
