"""Replays of finished matches, from the stored seed and action log (issue 33).

A match replays exactly: ``new_match(config(seats, target), seed)`` and then each logged action
(docs/architecture.md). The replay is worked out once per match in the service's pool of worker
processes (:func:`gameshack.worker.replay_from_log`: never on the event loop) and kept, encoded,
compressed, in a cache bounded by bytes; every later request for it is a slice of that cache. So a thousand
requests cost one computation, and the cost of many different replays is bounded three ways:
one computation per match at a time (the others wait for it), a rate of computations per
address (``MISSES``), and the pool's own bound (full: ``busy``, try again in a second).

Who may see what (docs/decisions.md, 2026-12-05): anyone with the game's code, as anyone with
the code may look the game up or join it — but only once the match is over (``finished``, or
``ended`` by a player leaving after it started). A match still being played has no replay at
all, not even its public steps: its log holds the private turn in progress. Once it is over
nothing is secret any more, so each step has the public view (what everyone saw then) and the
full view (every hand or rack, the turn in progress).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from gameshack.service.compute import Busy
from gameshack.service.room import ServiceError
from gameshack.throttle import Limited, Rate
from gameshack.worker import WorkerError, replay_from_log

if TYPE_CHECKING:
    from gameshack.service.runner import GameService

__all__ = ["CHUNK", "MISSES", "Replay", "Replays"]

CHUNK = 32  # views per page of a replay
BUDGET = 32 * 1024 * 1024  # bytes of compressed views kept for all replays together
MISSES = Rate(30, 60)  # replays worked out (not found in the cache) per address
OVER = ("finished", "ended")


@dataclass(frozen=True)
class Replay:
    code: str
    meta: bytes  # the JSON answer of GET /api/replay/{code}
    count: int  # views: the deal (step 0), then one after each action
    public: list[bytes]  # pages of CHUNK public views, each a gzip-compressed JSON array
    full: list[bytes]  # and of the full views
    size: int

    def page(self, number: int, full: bool) -> bytes:
        """Page ``number`` (views ``number * CHUNK`` onwards), gzip-compressed JSON."""
        pages = self.full if full else self.public
        if not 0 <= number < len(pages):
            raise ServiceError("bad_page", f"There is no page {number} in this replay.", 422)
        return pages[number]


class Replays:
    """The replays one service hands out; see the module docstring."""

    def __init__(self, svc: GameService, budget: int = BUDGET) -> None:
        self.svc = svc
        self.budget = budget
        self.cache: OrderedDict[str, Replay] = OrderedDict()
        self.used = 0
        self.computed = 0  # replays worked out in the pool (the tests count them)
        self._pending: dict[str, asyncio.Future[Replay]] = {}

    async def get(self, code: str, address: str) -> Replay:
        code = code.upper()
        found = self.cache.get(code)
        if found is not None:
            self.cache.move_to_end(code)
            return found
        if code not in self._pending:
            await self._limit(address)
            # Counting may have waited (on Redis): another request may have begun it meanwhile.
            found = self.cache.get(code)
            if found is not None:
                return found
        pending = self._pending.get(code)
        if pending is None:
            pending = asyncio.ensure_future(self._work_out(code, address))
            self._pending[code] = pending
            pending.add_done_callback(lambda done: self._settled(code, done))
        return await asyncio.shield(pending)

    def _settled(self, code: str, done: asyncio.Future[Replay]) -> None:
        self._pending.pop(code, None)
        if not done.cancelled():
            done.exception()  # retrieved: every waiter may have gone (a closed connection)

    async def _limit(self, address: str) -> None:
        try:
            await self.svc.throttle.hit("replay", address, MISSES)
        except Limited as exc:
            raise ServiceError(
                "too_many_replays",
                f"Too many replays opened; try again in {exc.retry_after} s.",
                429,
                exc.retry_after,
            ) from None

    async def _lookup(self, code: str, address: str) -> Any:
        """The stored game, within the address's rate of failed lookups (as the lobby's)."""
        per_minute = self.svc.settings.lookups_per_minute
        lookups = Rate(per_minute, 60) if per_minute else None
        if lookups is not None:
            try:
                await self.svc.throttle.check("lookup", address, lookups)
            except Limited as exc:
                raise ServiceError(
                    "too_many_lookups",
                    f"Too many game codes looked up; try again in {exc.retry_after} s.",
                    429,
                    exc.retry_after,
                ) from None
        row = await self.svc.store.load_game(code) if len(code) <= 8 else None
        if row is None:
            if lookups is not None:
                with contextlib.suppress(Limited):
                    await self.svc.throttle.hit("lookup", address, lookups)
            raise ServiceError("not_found", "There is no game with that code.", 404)
        return row

    async def _work_out(self, code: str, address: str) -> Replay:
        row = await self._lookup(code, address)
        if row.status not in OVER:
            raise ServiceError(
                "not_finished",
                "This match is still being played: its replay opens when it is over.",
                409,
            )
        log = [(a.seat, a.action) for a in await self.svc.store.actions(row.code)]
        try:
            out = await self.svc.compute.run(
                replay_from_log,
                row.kind,
                row.capacity,
                row.target,
                row.seed,
                log,
                CHUNK,
                wait=False,
            )
        except Busy:
            raise ServiceError(
                "busy", "The server is busy; try again in a moment.", 503, 1
            ) from None
        except WorkerError as exc:
            raise ServiceError(
                "replay_failed", f"This match cannot be replayed ({exc}).", 500
            ) from None
        if not out["started"]:
            raise ServiceError(
                "not_started", "This game never started: there is nothing to replay.", 409
            )
        self.computed += 1
        public, full = out["public"], out["full"]
        meta = orjson.dumps(
            {
                "code": row.code,
                "game": row.kind,
                "status": row.status,
                "players": [
                    {"seat": s.seat, "name": s.name, "emoji": s.emoji, "bot": s.bot is not None}
                    for s in row.seats
                ],
                "steps": out["steps"],
                "count": out["count"],
                "chunk": CHUNK,
                "full": True,  # every hand may be shown: the match is over
            }
        )
        size = len(meta) + sum(map(len, public)) + sum(map(len, full))
        replay = Replay(row.code, meta, out["count"], public, full, size)
        self._keep(replay)
        return replay

    def _keep(self, replay: Replay) -> None:
        if replay.size > self.budget:
            return  # served, not kept (a match this long is worked out again when asked)
        self.cache[replay.code] = replay
        self.used += replay.size
        while self.used > self.budget:
            _, old = self.cache.popitem(last=False)
            self.used -= old.size
