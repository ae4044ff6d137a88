"""The match pipeline: parse -> authorize the seat -> check the version -> apply in the engine
-> commit -> acknowledge -> publish. Humans, bots and the end of a grace window all go through
:meth:`Match.apply`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gameshack import metrics
from gameshack.protocol import (
    Act,
)
from gameshack.rules.common import IllegalAction, Outcome
from gameshack.service.fanout import Conn
from gameshack.service.ports import (
    ActionRow,
    RecordRow,
)
from gameshack.service.room import (
    Room,
    ServiceError,
    draft,
    swap,
)

if TYPE_CHECKING:
    from gameshack.service.runner import GameService

# At most this many versions between two stored states: a load replays no more actions than
# this (a Tile Rummy turn may rearrange the table many times before anyone sees it).
SNAPSHOT_EVERY = 32


class Match:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc

    async def act(self, room: Room, conn: Conn, msg: Act) -> None:
        row = room.row
        seat = conn.seat
        if row.status == "ended":
            raise ServiceError("ended", "This game was left; it is frozen.")
        if row.status == "waiting":
            raise ServiceError("not_started", "The game has not started yet.")
        if row.status == "finished":
            raise ServiceError("finished", "This game is over.")
        if room.kind.server_only(msg.action):
            raise ServiceError("server_only", "Only the server can do that.")
        try:
            action = room.kind.engine.parse_action(msg.action)
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None
        if msg.v != room.view_v.get(seat):
            self.svc.frames.stale(room, conn, msg.id)
            return
        if seat not in room.kind.engine.to_act(room.state):
            raise ServiceError("not_your_turn", "It is not your turn.")
        try:
            await self.apply(room, seat, action, ack=(conn, msg.id))
        except IllegalAction as exc:
            raise ServiceError(exc.code, exc.message) from None

    async def apply(
        self,
        room: Room,
        seat: int,
        action: Any,
        *,
        ack: tuple[Conn, str | None] | None = None,
        memory: dict[str, Any] | None = None,
    ) -> None:
        """Apply, persist, acknowledge, broadcast. Caller holds the lock. Raises IllegalAction,
        or NotSaved with the room unchanged.

        ``public_at`` moves only when the content of some other seat changed: a private turn
        (Rummy draws, melds, undos, a discard in its grace window; Tile Rummy arrangements)
        leaves it, and every other seat's ``v``, as they were."""
        engine = room.kind.engine
        new_state = engine.apply(room.state, seat, action)
        now = self.svc.clock()
        self.svc.frames.baseline(room)
        new = draft(room, new_state)
        row = new.row
        expect = row.version
        row.version += 1
        row.updated_at = now
        if room.kind.pending_discard(new_state):
            if row.grace_deadline is None:
                bot = row.seats[seat].bot is not None
                row.grace_deadline = now + (
                    self.svc.settings.bot_delay if bot else self.svc.settings.grace_seconds
                )
                row.grace_seat = seat
        else:
            row.grace_deadline = None
            row.grace_seat = None
        records = self.records(new, new_state, now)
        contents = self.svc.frames.contents(new, new_state, acting=seat)
        public = any(contents[s][0] != room.view_key.get(s) for s in contents if s != seat)
        if public:
            row.public_at = now
        # The state is stored when others see the change (and so whose turn it is stays that
        # of the stored state), when the match ends, and every ``SNAPSHOT_EVERY`` versions;
        # a private move is stored as its action alone (``peers.restore`` replays it).
        stored = public or row.status != "active" or row.version - row.state_v >= SNAPSHOT_EVERY
        if stored:
            row.state = engine.state_to_dict(new_state)
            row.state_v = row.version
        self.svc.turnclock.after_change(new, new_state, public=public)
        self.svc.timers.set_due(new, new_state)
        dirty_seats = []
        if memory is not None:
            row.seats[seat].memory = memory
            dirty_seats.append(seat)
        await self.svc.write(
            self.svc.store.save_game(
                row,
                seats=dirty_seats,
                action=ActionRow(row.code, row.version, seat, str(action), now),
                records=records,
                expect_version=expect,
                state=stored,
            )
        )
        swap(room, new)
        metrics.ACTIONS.labels(row.kind).inc()
        room.backoff = 0.0
        room.last_active = self.svc.clock()  # activity counts when it ends (the commit took time)
        changed = self.svc.frames.take(room, contents)
        if ack is not None:
            conn, msg_id = ack
            self.svc.frames.send(room, conn, self.svc.frames.ack(room, seat, msg_id))
        self.svc.frames.publish(room, contents, changed)
        self.svc.timers.schedule(room)
        await self.svc.peers.announce(room)

    def records(self, room: Room, state: Any, now: float) -> list[RecordRow]:
        """Stats records for the hand/round (and the match) that ended with this action: the
        engine's outcomes as they are. Who won is the engine's to say (``Outcome.winners``);
        the stats read it from here (``accounts.stats.match_result``) and never re-derive it."""
        row, k = room.row, room.kind
        finished = k.hands_finished(state)

        def record(scope: str, outcome: Outcome) -> RecordRow:
            seats = row.seats
            return RecordRow(
                row.code,
                row.kind,
                scope,
                finished,
                [s.name for s in seats],
                [s.emoji for s in seats],
                [s.bot is not None for s in seats],
                list(outcome.scores),
                list(outcome.winners),
                outcome.reason.value,
                row.created_at,
                now,
                row.practice,
            )

        out: list[RecordRow] = []
        if finished > row.hands_recorded:
            hand = k.hand_outcome(state)
            if hand is not None:
                out.append(record("hand", hand))
            row.hands_recorded = finished
        match = k.match_outcome(state)
        if match is not None and row.status == "active":
            row.status = "finished"
            out.append(record("match", match))
        return out
