"""The server's own moves: a grace window's end and the bots' steps.

A game has at most one timer. Its due time is stored with each commit (``games.due_at``), so
that with several processes the one that committed holds the timer and any other takes it over
once it is overdue (:meth:`Timers.claim`). A timer's failed commit is retried with a bounded
back-off until it lands."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import TYPE_CHECKING, Any

from gameshack import metrics
from gameshack.rules.common import IllegalAction, derive_seed
from gameshack.service.room import (
    LEASE,
    OVERDUE,
    PRESENCE_EVERY,
    RETRY_FIRST,
    RETRY_MAX,
    NotSaved,
    Room,
    ServiceError,
    Stale,
    Unconfirmed,
    log,
)
from gameshack.worker import decide_from_state

if TYPE_CHECKING:
    from gameshack.service.runner import GameService


OPENING_STEPS = 6  # bot delays before a match's first move (the first-deal result is up)


class Timers:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc

    async def claim(self) -> None:
        """Take over the timers overdue by ``OVERDUE`` seconds (their process died or is
        stuck): lease them in the database (two processes never claim one game at once) and
        arm them here from the stored game. A game whose timer already runs here is left to
        it. Every ``PRESENCE_EVERY`` seconds, also re-read who is online elsewhere."""
        now = self.svc.clock()
        codes = await self.svc.store.claim_overdue(
            due_before=now - OVERDUE, now=now, owner=self.svc.bus.process, until=now + LEASE
        )
        for code in codes:
            room = self.svc.rooms.get(code)
            if room is not None and room.timer is not None and not room.timer.done():
                continue
            with contextlib.suppress(ServiceError):
                async with self.svc.locked(code) as room:
                    await self.svc.peers.refresh(room)
                    log.info(
                        "took over the timer of %s (due %.1f s ago)",
                        code,
                        now - (room.row.due_at or now),
                    )
                    self.schedule(room)
        if now - self.svc.peers._presence_at >= PRESENCE_EVERY:
            self.svc.peers._presence_at = now
            for room in list(self.svc.rooms.values()):
                if not room.retired and any(True for _ in self.svc.fanout.conns(room.row.code)):
                    async with room.lock:
                        await self.svc.peers.presence_changed(room)

    def schedule(self, room: Room, *, after: float = 0.0) -> None:
        """Arm the one timer a game may have: the grace window's end, or the next bot step
        (not before ``after`` seconds: a retry after a failed commit)."""
        if room.timer is not None and room.timer is not asyncio.current_task():
            room.timer.cancel()
        room.timer = None
        row = room.row
        if self.svc.closing or room.retired or row.status != "active" or room.state is None:
            return
        clock_due = self.svc.turnclock.due(room)  # the turn timer's, unless a window ends first
        if clock_due is not None and (row.grace_deadline is None or clock_due < row.grace_deadline):
            delay = max(0.0, after, clock_due - self.svc.clock())
            room.timer = asyncio.get_running_loop().create_task(
                self.svc.turnclock.expire(room, row.version, delay)
            )
            return
        if row.grace_deadline is not None:
            delay = max(0.0, after, row.grace_deadline - self.svc.clock())
            room.timer = asyncio.get_running_loop().create_task(
                self.grace_end(room, row.version, delay)
            )
            return
        seat = self.bot_to_act(room)
        if seat is not None:
            # Not after its stored due time: a step taken over from another process is overdue
            # already, and waits no further bot delay.
            due = self.bot_wait(room, room.state)
            if row.due_at is not None:
                due = min(due, max(0.0, row.due_at - self.svc.clock()))
            room.timer = asyncio.get_running_loop().create_task(
                self.bot_step(room, seat, row.version, max(after, due))
            )

    def retry(self, room: Room, what: str) -> None:
        """A timer's commit failed (logged where it failed): try again after a back-off that
        doubles from ``RETRY_FIRST`` to ``RETRY_MAX`` seconds, until it lands."""
        room.backoff = min(RETRY_MAX, room.backoff * 2) if room.backoff else RETRY_FIRST
        log.warning("%s in %s not saved; retrying in %.1f s", what, room.row.code, room.backoff)
        self.schedule(room, after=room.backoff)

    def set_due(self, room: Room, state: Any) -> None:
        """When the server must act on the game by itself after this change (stored with it,
        so that any process can take the timer over): the grace window's end, else a bot's
        next step, else never."""
        row = room.row
        if row.status != "active" or state is None:
            row.due_at = None
        elif row.grace_deadline is not None:
            row.due_at = row.grace_deadline
        elif self.bot_to_act(room, state) is not None:
            row.due_at = self.svc.clock() + self.bot_wait(room, state)
        else:
            row.due_at = None
        clock_due = self.svc.turnclock.due(room)  # the turn timer's, if it is sooner
        if clock_due is not None and (row.due_at is None or clock_due < row.due_at):
            row.due_at = clock_due

    def bot_wait(self, room: Room, state: Any) -> float:
        """How long a bot waits before its step: one bot delay, so each step can be followed;
        ``OPENING_STEPS`` of them before the match's first move, while who starts and why (a
        first-deal draw) is on screen (the client shows that for six seconds)."""
        delay = self.svc.settings.bot_delay
        return delay * OPENING_STEPS if room.kind.engine.opening(state) else delay

    def bot_to_act(self, room: Room, state: Any = None) -> int | None:
        state = room.state if state is None else state
        to_act = room.kind.engine.to_act(state)
        humans_waited_on = any(room.row.seats[s].bot is None for s in to_act)
        # "Next hand/round" is the humans' call while one of them may still press it, so a
        # player gets to look at the result first.
        if humans_waited_on and room.kind.only_next(state):
            return None
        for s in sorted(to_act):
            if room.row.seats[s].bot is not None:
                return int(s)
        return None

    async def grace_end(self, room: Room, version: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.grace_deadline is None or row.status != "active":
                self.schedule(room)
                return
            engine = room.kind.engine
            seat = row.grace_seat if row.grace_seat is not None else min(engine.to_act(room.state))
            metrics.TIMER_LAG_SECONDS.observe(max(0.0, self.svc.clock() - row.grace_deadline))
            try:
                assert engine.grace_action is not None
                await self.svc.match.apply(room, seat, engine.parse_action(engine.grace_action))
            except Stale:  # another process ended the window first
                await self.svc.peers.refresh(room)
            except IllegalAction:
                log.exception("commit refused in %s", row.code)
                row.grace_deadline = None
                self.schedule(room)
            except Unconfirmed:
                self.svc.forget(room)  # the database knows; the next use reloads from it
            except Exception:  # NotSaved (or a bug): the window must still close, later
                self.retry(room, "the end of a grace window")

    async def bot_step(self, room: Room, seat: int, version: int, delay: float) -> None:
        """The bot at ``seat`` moves, if the game is still at ``version``.

        It thinks in the worker pool on a snapshot (the saved state at ``version``, outside the
        lock: other games and this one's sockets carry on meanwhile), then its action is
        applied under the lock only if the game is still at that version; if it moved, the
        timer is re-armed and the bot thinks again on the game as it is now. While it thinks
        the room keeps this timer, so no sweep drops it."""
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            await asyncio.sleep(0)
        async with room.lock:
            row = room.row
            if row.version != version or row.status != "active":
                room.timer = None
                self.schedule(room)
                return
            if row.due_at is not None:
                metrics.TIMER_LAG_SECONDS.observe(max(0.0, self.svc.clock() - row.due_at))
            job = (
                row.kind,
                row.seats[seat].bot or "medium",
                room.kind.engine.state_to_dict(room.state),
                seat,
                row.seats[seat].memory,
                derive_seed(row.seed, "bot", seat, row.version),
            )
        thought: tuple[str, dict[str, Any]] | Exception
        try:
            thought = await self.svc.compute.run(decide_from_state, *job, wait=True)
        except Exception as exc:  # a bot bug, or the pool failed twice
            thought = exc
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.status != "active" or room.retired:
                self.schedule(room)
                return
            engine = room.kind.engine
            action: Any = None
            try:
                if isinstance(thought, Exception):
                    raise thought
                text, memory = thought
                action = engine.parse_action(text)
                await self.svc.match.apply(room, seat, action, memory=memory)
                return
            except Stale:  # another process moved the game (it holds the timer now)
                await self.svc.peers.refresh(room)
                return
            except Unconfirmed:
                self.svc.forget(room)
                return
            except NotSaved:
                self.retry(room, "a bot's move")
                return
            except Exception as exc:  # a bot bug must not stall the game
                self.svc.bot_errors += 1
                log.warning("bot %s in %s failed on %r: %r", seat, row.code, action, exc)
            # Fall back to a random legal action so the game goes on.
            rng = random.Random(derive_seed(row.seed, "bot", seat, row.version, "fallback"))
            legal = [
                a
                for a in engine.legal_actions(room.state, seat)
                if not room.kind.server_only(str(a))
            ]
            try:
                if legal:
                    await self.svc.match.apply(room, seat, rng.choice(legal))
            except Stale:
                await self.svc.peers.refresh(room)
            except NotSaved:
                self.retry(room, "a bot's move")
            except Exception:
                # Logged, not retried in a loop; the next change to the game re-arms the bot.
                log.exception("bot %s in %s: fallback failed too", seat, row.code)
