"""Client -> server messages (pydantic) and the server's error shape."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from gameshack.metrics import ERRORS
from gameshack.protocol.outbound import ErrorFrame

MAX_FRAME_BYTES = 64 * 1024
MAX_CHAT_CHARS = 500

Id = Annotated[str, Field(max_length=64)]


class _Msg(BaseModel):
    # Unknown fields are refused: a typo in a field name is a bug worth hearing about.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    id: Id | None = None


class Act(_Msg):
    type: Literal["act"]
    v: Annotated[int, Field(ge=0, le=2**53)]
    action: Annotated[str, Field(min_length=1, max_length=2000)]


class Start(_Msg):
    type: Literal["start"]


class AddBot(_Msg):
    type: Literal["add_bot"]
    difficulty: Literal["easy", "medium", "hard"] = "medium"


class Hint(_Msg):
    type: Literal["hint"]


class Chat(_Msg):
    type: Literal["chat"]
    text: Annotated[str, Field(max_length=4 * MAX_CHAT_CHARS)]


class ChatRead(_Msg):
    type: Literal["chat_read"]


class Leave(_Msg):
    type: Literal["leave"]


class Sync(_Msg):
    type: Literal["sync"]


class Ping(_Msg):
    type: Literal["ping"]


class Rematch(_Msg):
    """issue 33: accept (or decline) a rematch of the finished match."""

    type: Literal["rematch"]
    accept: bool


ClientMessage = Annotated[
    Act | Start | AddBot | Hint | Chat | ChatRead | Leave | Sync | Ping | Rematch,
    Field(discriminator="type"),
]
_adapter: TypeAdapter[Any] = TypeAdapter(ClientMessage)


class ProtocolError(Exception):
    """Input that is not a valid client message; ``code`` for machines, ``message`` for people."""

    def __init__(self, code: str, message: str, msg_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id


# A UTF-16 surrogate on its own: JSON's "\ud800" escape stands for one, but it is no character,
# cannot be encoded as UTF-8, and would break the reply that echoes it (the socket used to close
# with no error frame). Refused anywhere in a message, keys included, as "not valid Unicode" —
# with the message's id, when the id itself is whole. orjson refuses such a frame outright, so a
# refused frame is read again with each lone surrogate (an escape, a raw one in a str, or one
# UTF-8-encoded in a binary frame) replaced; twice, by two different characters, so a field that
# held one reads differently each time.
_LONE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a pair: one character
    r"|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"  # a lone surrogate escape
    r"|\\."  # any other escape (an escaped backslash is not the start of one)
    "|[\ud800-\udfff]",  # a raw surrogate
    re.S,
)
_STAND_INS = ("\ue000", "\ue001")


def _stand_in(raw: str | bytes, char: str) -> str | None:
    """``raw`` with each lone surrogate replaced by ``char``; None when it holds none."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return None
    found = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal found
        text = m.group()
        if len(text) == 1:
            found += 1
            return char
        if len(text) == 6:
            found += 1
            return f"\\u{ord(char):04x}"
        return text

    out = _LONE.sub(swap, raw)
    return out if found else None


def _reread(raw: str | bytes) -> tuple[Any, Any] | None:
    """Two readings of a frame orjson refused, if lone surrogates were all that was wrong."""
    readings = []
    for char in _STAND_INS:
        text = _stand_in(raw, char)
        if text is None:
            return None
        try:
            readings.append(orjson.loads(text))
        except orjson.JSONDecodeError:
            return None
    return readings[0], readings[1]


def _salvage_id(data: Any) -> str | None:
    """The message's ``id`` to echo in an error frame, if it is one that can be sent back."""
    if isinstance(data, dict):
        raw = data.get("id")
        if isinstance(raw, str) and len(raw) <= 64:
            return raw
    return None


def parse_client(raw: str | bytes) -> Any:
    """Parse one frame into a client message, or raise :class:`ProtocolError`."""
    if len(raw) > MAX_FRAME_BYTES:
        raise ProtocolError("too_large", "That message is too large.")
    lone = False
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        readings = _reread(raw)
        if readings is None:
            raise ProtocolError("malformed", "That message is not valid JSON.") from None
        data, other = readings
        lone = True
    msg_id = _salvage_id(data)
    if lone and msg_id != _salvage_id(other):
        msg_id = None  # the id held a lone surrogate itself
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ProtocolError("malformed", "A message must be a JSON object with a 'type'.", msg_id)
    if lone:
        raise ProtocolError(
            "malformed", "That message holds text that is not valid Unicode.", msg_id
        )
    try:
        return _adapter.validate_python(data)
    except ValidationError as exc:
        errors = exc.errors()
        first: dict[str, Any] = dict(errors[0]) if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        if first.get("type") == "union_tag_invalid":
            text = f"Unknown message type {str(data.get('type'))[:40]!r}."
        else:
            text = f"Bad message: {where or 'body'}: {first.get('msg', 'invalid')}."
        raise ProtocolError("malformed", text[:300], msg_id) from None
    except RecursionError:
        raise ProtocolError("malformed", "That message is nested too deeply.", msg_id) from None


def error_frame(code: str, message: str, msg_id: str | None = None) -> ErrorFrame:
    """The one ``error`` frame every WebSocket refusal is built with (counted for /metrics)."""
    ERRORS.labels(code).inc()
    return ErrorFrame(code, message, msg_id)


def error_message(code: str, message: str, msg_id: str | None = None) -> dict[str, Any]:
    """:func:`error_frame` as the dict its encoder writes, for callers that encode frames
    themselves (tests and tools that read frames as dicts)."""
    frame = error_frame(code, message, msg_id)
    return orjson.loads(frame.encode())  # type: ignore[no-any-return]
