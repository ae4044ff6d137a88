"""Server -> client frames: the closed set of messages the server sends, each with one encoder.

One frozen value per frame ``type`` (docs/protocol.md, "Server → client"); ``encode()`` is the
only way that frame becomes text, and it writes exactly the JSON the server has always sent, key
order included. Nested payloads (``room``, a chat ``msg``, ``hint``) are the plain dicts whose
shapes docs/protocol.md gives; they are built by the service.

``decode`` reads a frame back into its value, refusing anything outside the set: for tests and
client tools (every frame a test receives can be checked to be one of these, byte for byte).
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Union, get_args, get_origin, get_type_hints

import orjson

__all__ = [
    "AckFrame",
    "ChatFrame",
    "ChatHistoryFrame",
    "EndedFrame",
    "ErrorFrame",
    "HelloFrame",
    "HintFrame",
    "PongFrame",
    "RematchFrame",
    "RematchStartedFrame",
    "RoomFrame",
    "ServerMessage",
    "ViewFrame",
    "WatchClosedFrame",
    "WatchingFrame",
    "decode",
    "dumps",
    "join_log",
    "log_delta",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


_NON_ASCII = re.compile("[^\x00-\x7f]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}"


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text in ASCII: orjson, the server's one JSON library, with any
    character outside ASCII escaped (``\\uXXXX``, the same JSON value).

    ASCII because one such character (a player's emoji) makes a Python string four bytes a
    character: a 7 KB view spliced onto a frame's head that holds one is widened, then encoded
    back to UTF-8 for the socket, ~4 µs a frame (:func:`ascii_fragment` keeps the players' names
    out of that path). A frame must always be sendable: text that cannot be UTF-8 (a lone
    surrogate, which orjson refuses) is replaced by U+FFFD rather than left to fail the send and
    close the socket."""
    try:
        text = orjson.dumps(obj).decode()
    except orjson.JSONEncodeError:
        # Anything else orjson refuses (a type it cannot encode) fails again here, as it should.
        text = orjson.dumps(_clean(obj)).decode()
    return text if text.isascii() else _NON_ASCII.sub(_escape, text)


def ascii_fragment(value: Any) -> orjson.Fragment:
    """``value`` encoded by :func:`dumps`, to be written into a frame as it is: what a frame
    repeats, encoded once (the players of a room, in every ``view`` frame)."""
    return orjson.Fragment(dumps(value))


@dataclass(frozen=True, slots=True)
class HelloFrame:
    """First frame on a socket: which game, which seat, the server's clock (epoch ms)."""

    type: ClassVar[Literal["hello"]] = "hello"
    code: str
    game: str
    seat: int
    server_time: int

    def encode(self) -> str:
        return dumps(
            {
                "type": "hello",
                "code": self.code,
                "game": self.game,
                "seat": self.seat,
                "server_time": self.server_time,
            }
        )


Log = tuple[str, int]  # a view's log: its events as JSON, and how many there are


def log_delta(sent: Log | None, log: Log) -> tuple[int, str]:
    """``(log_from, events)``: what a ``view`` carries of ``log`` to sockets that were last sent
    ``sent`` — the events after the first ``log_from``, as JSON. A log only grows (until it
    starts again, for a new hand or round), so when ``sent`` is a prefix of it only the new
    events go; otherwise (nothing sent yet, a new hand) ``log_from`` is 0 and all of them go.

    Compared as text: the same events are the same JSON (one encoder, fixed key order), and a
    prefix that ends where the next event begins (``,``) ends on an event's boundary."""
    text, count = log
    if sent is not None and count:
        old, n = sent
        if text == old:
            return n, "[]"
        if n and text.startswith(old[:-1]) and text[len(old) - 1] == ",":
            return n, "[" + text[len(old) :]
    return 0, text


def join_log(last: tuple[int, list[Any]] | None, view: dict[str, Any]) -> tuple[int, list[Any]]:
    """What a client does with a decoded ``view`` (the web client's ``GameSocket.joinLog``): put
    its whole log back into ``view["state"]["log"]`` from ``last`` — the ``v`` and log of the
    view this socket got before — and the new events; ``log`` and ``log_from`` are removed.
    Returns what to keep for the next view. ``ValueError`` when the view does not follow
    ``last`` (a view went missing): the client then asks for the whole view (``sync``)."""
    start, events = view.pop("log_from"), view.pop("log")
    state = view["state"]
    if state is None:
        return view["v"], []
    if start:
        if last is None or view["v"] - last[0] not in (0, 1) or len(last[1]) < start:
            raise ValueError(f"view {view['v']} does not follow the last one: sync")
        events = last[1][:start] + events
    state["log"] = events
    return view["v"], events


@dataclass(frozen=True, slots=True)
class ViewFrame:
    """The only carrier of game content. ``body`` is ``{"state": …, "legal": […]}`` already
    encoded (by :meth:`encode_body`, once per seat and change, not once per frame): the view is
    the bulk of all traffic, so the frame is spliced from it rather than encoded again.

    The view's ``log`` travels beside ``state``, as the events after the first ``log_from`` (the
    ones this seat's sockets have: :func:`log_delta`), as JSON; ``null`` without a state."""

    type: ClassVar[Literal["view"]] = "view"
    v: int
    grace: dict[str, int] | None
    room: dict[str, Any]
    body: str
    log_from: int = 0
    log: str = "null"

    @staticmethod
    def encode_body(state: dict[str, Any] | None, legal: list[str]) -> str:
        return dumps({"state": state, "legal": legal})

    @staticmethod
    def splice_body(own: dict[str, Any], public: str, legal: list[str]) -> str:
        """:meth:`encode_body` of the view ``{**public, **own}`` where ``public`` is already
        encoded, without ``own``'s keys: the public part is encoded once for every seat that
        sees it (``GameEngine.own_view``); only each seat's own part is encoded per seat."""
        sep = "," if len(public) > 2 else ""  # ``own`` is never empty: it has ``seat``
        return f'{{"state":{dumps(own)[:-1]}{sep}{public[1:]},"legal":{dumps(legal)}}}'

    def encode(self) -> str:
        head = dumps({"type": "view", "v": self.v, "grace": self.grace, "room": self.room})
        return f'{head[:-1]},"log_from":{self.log_from},"log":{self.log},{self.body[1:]}'

    @property
    def state(self) -> dict[str, Any] | None:
        return orjson.loads(self.body)["state"]  # type: ignore[no-any-return]

    @property
    def legal(self) -> list[str]:
        return orjson.loads(self.body)["legal"]  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class RoomFrame:
    """Seats, presence or the unread count changed (no game content)."""

    type: ClassVar[Literal["room"]] = "room"
    room: dict[str, Any]

    def encode(self) -> str:
        return dumps({"type": "room", "room": self.room})


@dataclass(frozen=True, slots=True)
class AckFrame:
    """The message ``id`` was accepted; ``v`` is the seat's view version after it."""

    type: ClassVar[Literal["ack"]] = "ack"
    id: str | None
    v: int | None

    def encode(self) -> str:
        return dumps({"type": "ack", "id": self.id, "v": self.v})


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """A refusal: ``code`` for machines, ``message`` a sentence for people; ``id`` is echoed
    only when the message had one (the key is absent otherwise)."""

    type: ClassVar[Literal["error"]] = "error"
    code: str
    message: str
    id: str | None = None

    def encode(self) -> str:
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.id is not None:
            out["id"] = self.id
        return dumps(out)


@dataclass(frozen=True, slots=True)
class ChatFrame:
    """One chat message, to every seat."""

    type: ClassVar[Literal["chat"]] = "chat"
    msg: dict[str, Any]

    def encode(self) -> str:
        return dumps({"type": "chat", "msg": self.msg})


@dataclass(frozen=True, slots=True)
class ChatHistoryFrame:
    """The chat so far and the seat's unread count, on connect."""

    type: ClassVar[Literal["chat_history"]] = "chat_history"
    messages: list[dict[str, Any]]
    unread: int

    def encode(self) -> str:
        return dumps({"type": "chat_history", "messages": self.messages, "unread": self.unread})


@dataclass(frozen=True, slots=True)
class PongFrame:
    """The answer to ``ping``."""

    type: ClassVar[Literal["pong"]] = "pong"
    id: str | None
    server_time: int

    def encode(self) -> str:
        return dumps({"type": "pong", "id": self.id, "server_time": self.server_time})


@dataclass(frozen=True, slots=True)
class HintFrame:
    """A hint for the asking socket only (``gameshack.bots.hint`` for its seat)."""

    type: ClassVar[Literal["hint"]] = "hint"
    id: str | None
    v: int | None
    hint: dict[str, Any]

    def encode(self) -> str:
        return dumps({"type": "hint", "id": self.id, "v": self.v, "hint": self.hint})


@dataclass(frozen=True, slots=True)
class EndedFrame:
    """The game was left (``seat``/``name`` of who left) or expired (both ``None``)."""

    type: ClassVar[Literal["ended"]] = "ended"
    reason: str
    seat: int | None
    name: str | None

    def encode(self) -> str:
        return dumps({"type": "ended", "reason": self.reason, "seat": self.seat, "name": self.name})


@dataclass(frozen=True, slots=True)
class RematchFrame:
    """issue 33: the rematch offer at a finished match's end, to every seat: ``status`` "open",
    "closed" (someone declined or left) or "started" (``code`` is the new match); the seats
    that accepted (bots at once), declined, or left."""

    type: ClassVar[Literal["rematch"]] = "rematch"
    status: str
    accepted: list[int]
    declined: list[int]
    left: list[int]
    code: str | None

    def encode(self) -> str:
        return dumps(
            {
                "type": "rematch",
                "status": self.status,
                "accepted": self.accepted,
                "declined": self.declined,
                "left": self.left,
                "code": self.code,
            }
        )


@dataclass(frozen=True, slots=True)
class RematchStartedFrame:
    """issue 33: the rematch has just started as the game ``code`` (every seat has one)."""

    type: ClassVar[Literal["rematch_started"]] = "rematch_started"
    code: str

    def encode(self) -> str:
        return dumps({"type": "rematch_started", "code": self.code})


@dataclass(frozen=True, slots=True)
class WatchingFrame:
    """To a spectator (issue 33): the game's public view (``engine.public_view``, or null
    before the first deal) and the room's public fields; sent only when either changed."""

    type: ClassVar[Literal["watching"]] = "watching"
    state: dict[str, Any] | None
    room: dict[str, Any]

    def encode(self) -> str:
        return dumps({"type": "watching", "state": self.state, "room": self.room})


@dataclass(frozen=True, slots=True)
class WatchClosedFrame:
    """To a spectator: the watch link was revoked (``revoked``) or the game is gone; the
    socket closes next."""

    type: ClassVar[Literal["watch_closed"]] = "watch_closed"
    reason: str

    def encode(self) -> str:
        return dumps({"type": "watch_closed", "reason": self.reason})


ServerMessage = (
    HelloFrame
    | ViewFrame
    | RoomFrame
    | AckFrame
    | ErrorFrame
    | ChatFrame
    | ChatHistoryFrame
    | PongFrame
    | HintFrame
    | EndedFrame
    | RematchFrame
    | RematchStartedFrame
    | WatchingFrame
    | WatchClosedFrame
)
FRAMES: tuple[type[ServerMessage], ...] = get_args(ServerMessage)
_BY_TYPE: dict[str, type[ServerMessage]] = {cls.type: cls for cls in FRAMES}


def _fits(value: Any, hint: Any) -> bool:
    """``value`` (decoded JSON) has the type ``hint`` names; a dict's values are not looked into."""
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_fits(value, arg) for arg in get_args(hint))
    if origin is dict:
        return isinstance(value, dict)
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(_fits(v, item) for v in value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def decode(text: str | bytes) -> ServerMessage:
    """The frame ``text`` as its value; ``ValueError`` unless it is exactly one of the set."""
    data = orjson.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a frame is a JSON object")
    cls = _BY_TYPE.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown frame type {data.get('type')!r}")
    given = dict(data)
    del given["type"]
    if cls is ViewFrame:
        state, legal = given.get("state", ()), given.get("legal")
        if not _fits(state, dict[str, Any] | None) or not _fits(legal, list[str]):
            raise ValueError("a view has 'state' (an object or null) and 'legal' (notation)")
        given["body"] = ViewFrame.encode_body(given.pop("state"), given.pop("legal"))
        events = given.get("log")
        if not _fits(events, list[dict[str, Any]] | None):
            raise ValueError("a view's 'log' is a list of events or null")
        given["log"] = dumps(events)
    hints = get_type_hints(cls)
    names = {f.name for f in fields(cls)}
    if not set(given) <= names:
        raise ValueError(f"{cls.type}: unknown fields {sorted(set(given) - names)}")
    for name, value in given.items():
        if not _fits(value, hints[name]):
            raise ValueError(f"{cls.type}.{name}: {value!r} is not {hints[name]}")
    try:
        frame = cls(**given)
    except TypeError as exc:  # a field missing
        raise ValueError(f"{cls.type}: {exc}") from None
    if orjson.loads(frame.encode()) != data:
        raise ValueError(f"{cls.type}: does not encode back to itself")
    return frame
