"""What the server sends: each seat's view, ``room`` summaries and acks, built from the
committed game and handed to that seat's sockets only.

The only game content that leaves the service is ``engine.view(state, seat).to_dict()`` for the
receiving seat (and a hint computed from that same view), built as the engine's public view
plus that seat's own part (``own_view``) wherever the engine says that is the same thing.
Private turns leave no trace (docs/protocol.md): a seat's view version ``v`` counts the changes
of that seat's own content, and nothing is sent to a seat whose content did not change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gameshack.protocol import (
    error_frame,
)
from gameshack.protocol.outbound import (
    AckFrame,
    Log,
    RoomFrame,
    ViewFrame,
    ascii_fragment,
    dumps,
    log_delta,
)
from gameshack.service import turnclock
from gameshack.service.fanout import Conn
from gameshack.service.room import (
    NO_LOG,
    STALE,
    Content,
    Room,
    digest,
)

if TYPE_CHECKING:
    from gameshack.service.runner import GameService


class Frames:
    def __init__(self, svc: GameService) -> None:
        self.svc = svc
        self._v_high = 0  # the highest view version handed out by this process

    def stale(self, room: Room, conn: Conn, msg_id: str | None) -> None:
        self.send(room, conn, error_frame("stale", STALE, msg_id).encode())
        self.send_view(room, conn)

    def ack(self, room: Room, seat: int, msg_id: str | None) -> str:
        # ``v``: this seat's own view version (never the game's, which counts private turns).
        return AckFrame(msg_id, room.view_v.get(seat)).encode()

    def unread(self, room: Room, seat: int) -> int:
        read = room.row.seats[seat].chat_read
        return sum(1 for cid, s in room.chat if cid > read and s != seat)

    def send(self, room: Room, conn: Conn, frame: str) -> None:
        if self.svc.observer is not None:
            self.svc.observer(room, conn.seat, frame)
        conn.send(frame)

    def players(self, room: Room) -> list[dict[str, Any]]:
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "emoji": s.emoji,
                "bot": s.bot is not None,
                "online": s.bot is not None or s.seat in room.online,
            }
            for s in room.row.seats
        ]

    def to_act(self, room: Room, state: Any = None) -> list[int]:
        state = room.state if state is None else state
        if state is None or room.row.status not in ("active", "finished"):
            return []
        return sorted(room.kind.engine.to_act(state))

    def room_dict(self, room: Room, seat: int) -> dict[str, Any]:
        row = room.row
        return {
            "code": row.code,
            "game": row.kind,
            "status": row.status,
            "seats": row.capacity,
            "you": seat,
            "host": row.host,
            "target": row.target,
            "practice": row.practice,
            "difficulty": row.difficulty,
            "players": self.players(room),
            "to_act": self.to_act(room) if row.status == "active" else [],
            "chat_unread": self.unread(room, seat),
            "ended": row.ended,
            "watchers": self.svc.watch.count(row.code),  # issue 33: spectators, a count
            "clock": turnclock.public(row.turn_clock),
        }

    def content(self, room: Room, seat: int, state: Any) -> Content:
        """The game content for one seat in ``state``, as JSON: the engine's view and its legal
        actions; its grace window (only the discarding seat's); and a digest of all that (with
        the status and whose turn it is), which tells whether the seat's content changed."""
        row = room.row
        legal: list[str] = []
        grace = None
        log = NO_LOG
        if state is None:
            body = ViewFrame.encode_body(None, legal)
        else:
            engine = room.kind.engine
            own = engine.own_view(state, seat)
            view = engine.view(state, seat).to_dict(log=False) if own is None else own
            if row.status == "active":
                legal = room.kind.legal_strings(state, seat, view)
            if own is None:
                log = self.log_of(room, state)
                body = ViewFrame.encode_body(view, legal)
            else:
                public, log = self.public_part(room, state, own)
                body = ViewFrame.splice_body(own, public, legal)
            if row.grace_deadline is not None and row.grace_seat == seat:
                grace = {"deadline": int(row.grace_deadline * 1000)}
        to_act = self.to_act(room, state) if row.status == "active" else []
        key = digest(body, log[0], grace and grace["deadline"], row.status, *to_act)
        return key, body, grace, log

    def public_part(self, room: Room, state: Any, own: dict[str, Any]) -> tuple[str, Log]:
        """``state``'s public view as JSON, without the keys of a seat's own part and without
        its log, and the log: the same for every seat that sees the public table and its own
        things (``own_view``), so they are built once for them all, and again only when the
        public table changed (``public_key``): a turn in progress does not rebuild them."""
        engine = room.kind.engine
        key = engine.public_key(state)
        if room.public and room.public[0][0] == key:
            return room.public[0][1], room.public[0][2]
        public = engine.public_view(state, log=False)
        log = self.log_of(room, state)
        text = dumps({k: v for k, v in public.items() if k not in own})
        room.public[:] = [(key, text, log)]
        return text, log

    def log_of(self, room: Room, state: Any) -> Log:
        """The log of every view of ``state`` as JSON, with its number of events. A move
        extends the log (or leaves it): only the events it added are encoded, and joined to the
        JSON kept from the last time (``room.log_json``); a new hand's log is encoded whole."""
        events = room.kind.engine.log_events(state)
        if room.log_json:
            (known, (text, count)) = room.log_json[0]
            if events is known:
                return text, count
            if count and len(events) > count and events[:count] == known:
                more = dumps([e.to_dict() for e in events[count:]])
                log = (text[:-1] + "," + more[1:], len(events))
                room.log_json[:] = [(events, log)]
                return log
        log = (dumps([e.to_dict() for e in events]), len(events))
        room.log_json[:] = [(events, log)]
        return log

    def contents(self, room: Room, state: Any, acting: int | None = None) -> dict[int, Content]:
        """Every seat's content in ``state``; after a move by ``acting``, only the seats whose
        content may have changed. A move changes what the other seats see only through what
        is public (the engines' views are made so; ``tests/rules/test_view_changes.py``
        checks it by self-play): so when one other seat's content is as it was, so is every
        other seat's, and they are left out (a private turn costs two views, not one a seat)."""
        seats = room.row.seats
        if acting is None or len(seats) <= 2:
            return {s.seat: self.content(room, s.seat, state) for s in seats}
        out = {acting: self.content(room, acting, state)}
        others = [s.seat for s in seats if s.seat != acting]
        probe = out[others[0]] = self.content(room, others[0], state)
        if probe[0] != room.view_key.get(others[0]):
            for seat in others[1:]:
                out[seat] = self.content(room, seat, state)
        return out

    def new_v_base(self) -> int:
        """Where a freshly loaded room's view versions count from: the clock in microseconds
        (never below a version this process handed out). It reveals no count of anything,
        and a version issued before a restart or an eviction stays below every later one (a
        seat's content changes far less often than once a microsecond), so an ``act`` made on
        a view from before is always stale."""
        return max(int(self.svc.clock() * 1000) * 1000, self._v_high + 1)

    def next_v(self, room: Room, seat: int) -> int:
        v = room.view_v.get(seat, room.v_base) + 1
        room.view_v[seat] = v
        self._v_high = max(self._v_high, v)
        return v

    def take(self, room: Room, contents: dict[int, Content]) -> set[int]:
        """Record the seats' new content (committed); the seats whose content changed, each
        with its ``v`` one higher."""
        changed = set()
        for seat, (key, _body, _grace, _log) in contents.items():
            if room.view_key.get(seat) != key:
                room.view_key[seat] = key
                self.next_v(room, seat)
                changed.add(seat)
        return changed

    def baseline(self, room: Room) -> None:
        """Make sure every seat's current content is recorded (a seat just loaded or seated),
        so that a later change is measured against what that seat could see."""
        missing = [s.seat for s in room.row.seats if s.seat not in room.view_key]
        if missing:
            self.take(room, {s: self.content(room, s, room.state) for s in missing})

    def view_frame(self, room: Room, seat: int, content: Content, *, whole: bool = False) -> str:
        """The ``view`` frame of ``content`` for the sockets of ``seat``: its log as the events
        they have not been sent yet (all of them with ``whole``: for one socket that may have
        none, just opened or asking to ``sync``)."""
        _key, body, grace, log = content
        if grace is not None:
            grace = {
                **grace,
                "remaining_ms": max(0, grace["deadline"] - int(self.svc.clock() * 1000)),
            }
        head = self.room_dict(room, seat)
        # Escaped to ASCII once a change of players: then so is the whole frame.
        players = room.players_json
        if players is None or players[0] != head["players"]:
            players = room.players_json = (head["players"], ascii_fragment(head["players"]))
        head["players"] = players[1]
        log_from, events = log_delta(None if whole else room.log_sent.get(seat), log)
        room.log_sent[seat] = log
        # Spliced from the already-encoded body: the view is the bulk of every frame.
        return ViewFrame(room.view_v[seat], grace, head, body, log_from, events).encode()

    def send_view(self, room: Room, conn: Conn) -> None:
        content = self.content(room, conn.seat, room.state)
        self.take(room, {conn.seat: content})
        self.send(room, conn, self.view_frame(room, conn.seat, content, whole=True))

    def publish(
        self,
        room: Room,
        contents: dict[int, Content] | None = None,
        changed: set[int] | None = None,
        *,
        every: bool = False,
    ) -> None:
        """Send a new view to every connection whose seat's content changed (only those; or to
        every connection with ``every``). ``contents``/``changed``: already computed and taken
        (by ``_apply``); otherwise computed from the room now. Each frame is built once per
        seat, however many sockets that seat has."""
        if contents is None or changed is None:
            contents = self.contents(room, room.state)
            changed = self.take(room, contents)
        frames: dict[int, str | None] = {}
        for conn in self.svc.fanout.conns(room.row.code):
            seat = conn.seat
            if seat not in frames:
                wanted = (every or seat in changed) and seat in contents
                frames[seat] = self.view_frame(room, seat, contents[seat]) if wanted else None
            frame = frames[seat]
            if frame is not None:
                self.send(room, conn, frame)
        self.svc.watch.publish(room)  # spectators: only if the public content changed

    def send_room_changed(
        self, room: Room, before: dict[int, dict[str, Any]], *, skip: set[int]
    ) -> None:
        """A ``room`` frame to each connection whose seat's room summary differs from
        ``before`` (seats in ``skip`` were just sent a whole view)."""
        frames: dict[int, str | None] = {}
        for conn in self.svc.fanout.conns(room.row.code):
            seat = conn.seat
            if seat in skip:
                continue
            if seat not in frames:
                now = self.room_dict(room, seat)
                frames[seat] = None if now == before.get(seat) else RoomFrame(now).encode()
            frame = frames[seat]
            if frame is not None:
                self.send(room, conn, frame)
        self.svc.watch.publish(room)

    def send_room_all(self, room: Room) -> None:
        """A ``room`` frame to every connection, built once per seat."""
        frames: dict[int, str] = {}
        for conn in self.svc.fanout.conns(room.row.code):
            frame = frames.get(conn.seat)
            if frame is None:
                frame = frames[conn.seat] = RoomFrame(self.room_dict(room, conn.seat)).encode()
            self.send(room, conn, frame)
        self.svc.watch.publish(room)
