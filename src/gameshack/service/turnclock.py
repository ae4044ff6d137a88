"""The fair turn timer (optional, per game; issue 33).

A game created with ``turn_seconds`` gives each human turn that many seconds. The clock is
stored with the game (``games.turn_clock``, JSON) and committed with each change, so it survives
a restart and another process can take it over like any timer (``games.due_at`` is the earliest
of the grace window, the bot step and the clock). When it runs out the server applies the
engine's penalty (``engine.timeout_action``) as the seat, action by action, through the match
pipeline like any move.

- It runs only while one human seat has a turn in progress (never during a first-deal draw,
  between hands, or for a bot) and restarts only when the turn changes hands or something
  public happens: a private step (a draw, a meld, an undo, a tile moved) leaves it as it was,
  so it tells the others nothing but that the turn is running.
- It pauses while the seat to move is offline and resumes when it is back; the pauses of one
  turn may add up to one more turn's time (the allowance), after which the penalty applies
  anyway: a dropped connection cannot stall a game.

The stored clock: ``{"s": seconds}`` between turns; during a turn also ``seat``, ``allow``
(pause time left, seconds), and either ``deadline`` (epoch seconds, running) or ``left`` and
``off_at`` (remaining seconds, paused since)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from gameshack import metrics
from gameshack.rules.common import IllegalAction
from gameshack.service.room import (
    NotSaved,
    Room,
    ServiceError,
    Stale,
    Unconfirmed,
    draft,
    log,
    swap,
)

if TYPE_CHECKING:
    from gameshack.service.runner import GameService

__all__ = ["CHOICES", "TEST_MAX", "TurnClock", "check_seconds"]

CHOICES = (30, 60, 120)  # what New Game offers (seconds per turn); None: no timer
TEST_MAX = 600  # with the test switch (GAMESHACK_ALLOW_SEED) any 1..600 is accepted
OPENING_EXTRA = 6.0  # the first turn: who starts and why is on screen for six seconds (at
# most one turn's time more)
EARLY = 0.05  # a timer may wake this much before its due time (the loop's clock)


def check_seconds(value: int | None, *, testing: bool) -> int | None:
    """The turn time a creator asked for, or a clear error."""
    if value is None or value == 0:
        return None
    if value in CHOICES or (testing and isinstance(value, int) and 1 <= value <= TEST_MAX):
        return int(value)
    raise ServiceError(
        "bad_turn_seconds", "The turn timer must be off, 30 seconds, 1 minute or 2 minutes."
    )


def due(clock: dict[str, Any] | None) -> float | None:
    """When the server must act on this clock: the deadline, or the end of the allowance."""
    if not clock or "seat" not in clock:
        return None
    if clock.get("deadline") is not None:
        return float(clock["deadline"])
    return float(clock["off_at"]) + float(clock["allow"])


def public(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """What every seat is shown (the ``clock`` of a ``room``): the same for all, and a
    function of the stored clock only (never of the time it is sent)."""
    if not clock:
        return None
    out: dict[str, Any] = {"seconds": clock["s"], "seat": clock.get("seat")}
    if clock.get("deadline") is not None:
        out["deadline"] = int(clock["deadline"] * 1000)
    elif "seat" in clock:
        out["paused"] = True
        out["left_ms"] = int(clock["left"] * 1000)
        out["until"] = int((clock["off_at"] + clock["allow"]) * 1000)  # the allowance's end
    return out


class TurnClock:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc

    def seat(self, room: Room, state: Any) -> int | None:
        """The seat whose turn is clocked in ``state``: the one human seat with a turn in
        progress (the engine has a penalty for it), else None."""
        row = room.row
        if row.status != "active" or state is None:
            return None
        engine = room.kind.engine
        to_act = engine.to_act(state)
        if len(to_act) != 1:
            return None
        (seat,) = to_act
        if row.seats[seat].bot is not None or not engine.timeout_action(state, seat):
            return None
        return int(seat)

    def after_change(self, room: Room, state: Any, *, public: bool) -> None:
        """Set the draft ``room``'s clock for ``state``, the game after a change (``public``:
        a change some other seat could see). Called before :meth:`Timers.set_due`."""
        row = room.row
        clock = row.turn_clock
        if not clock:
            return
        seat = self.seat(room, state)
        if seat is None:
            row.turn_clock = {"s": clock["s"]}
            return
        if not public and clock.get("seat") == seat:
            return  # the same turn goes on: a private step moves nothing
        now = self.svc.clock()
        s = float(clock["s"])
        length = s + (min(OPENING_EXTRA, s) if room.kind.engine.opening(state) else 0.0)
        new: dict[str, Any] = {"s": clock["s"], "seat": seat, "allow": s}
        if seat in room.online:
            new["deadline"] = now + length
        else:
            new.update(left=length, off_at=now)
        row.turn_clock = new

    def due(self, room: Room) -> float | None:
        return due(room.row.turn_clock)

    async def presence(self, room: Room, before: set[int]) -> None:
        """Who is online changed (caller holds the lock): pause the clock when the seat to move
        went offline, resume it when it is back. Stored without a new version (nothing in the
        game changed); a failed write leaves the clock as it was (it runs on)."""
        row = room.row
        clock = row.turn_clock
        if not clock or "seat" not in clock or row.status != "active":
            return
        seat = clock["seat"]
        now = self.svc.clock()
        new = dict(clock)
        if clock.get("deadline") is not None and seat in before and seat not in room.online:
            new.update(deadline=None, left=max(0.0, clock["deadline"] - now), off_at=now)
        elif clock.get("deadline") is None and seat in room.online:
            allow = max(0.0, clock["allow"] - (now - clock["off_at"]))
            new.update(deadline=now + clock["left"], left=None, off_at=None, allow=allow)
        else:
            return
        changed = draft(room)
        changed.row.turn_clock = new
        self.svc.timers.set_due(changed, room.state)
        try:
            await self.svc.write(self.svc.store.save_game(changed.row, expect_version=row.version))
        except (NotSaved, Stale) as exc:
            log.warning("turn clock of %s not saved: %r", row.code, exc)
            return
        swap(room, changed)
        self.svc.timers.schedule(room)

    async def expire(self, room: Room, version: int, delay: float) -> None:
        """The clock's timer: when it has run out, apply the engine's penalty as the seat."""
        await asyncio.sleep(delay)
        async with room.lock:
            room.timer = None
            row = room.row
            if row.version != version or row.status != "active" or room.retired:
                self.svc.timers.schedule(room)
                return
            if self.svc.multi:  # another process may have paused it (stored, same version)
                stored = await self.svc.store.load_game(row.code)
                if stored is not None and stored.version == row.version:
                    row.turn_clock = stored.turn_clock
            at = due(row.turn_clock)
            if at is None or at > self.svc.clock() + EARLY:
                self.svc.timers.schedule(room)
                return
            assert row.turn_clock is not None
            seat = int(row.turn_clock["seat"])
            metrics.TIMER_LAG_SECONDS.observe(max(0.0, self.svc.clock() - at))
            engine = room.kind.engine
            actions = engine.timeout_action(room.state, seat)
            log.info("turn time ran out for seat %s in %s: %s", seat, row.code, actions)
            for text in actions:
                try:
                    await self.svc.match.apply(room, seat, engine.parse_action(text))
                except Stale:  # another process moved the game (it holds the timer now)
                    await self.svc.peers.refresh(room)
                    return
                except IllegalAction:  # a bug: the game must not stall on it
                    log.exception("turn penalty %r refused in %s", text, row.code)
                    room.row.turn_clock = {"s": row.turn_clock["s"]}
                    return
                except Unconfirmed:
                    self.svc.forget(room)
                    return
                except Exception:  # NotSaved: the rest of the penalty, later
                    self.svc.timers.retry(room, "a turn penalty")
                    return
