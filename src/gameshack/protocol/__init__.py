"""The closed set of client <-> server messages, parsed once at the edge.

Client messages are a pydantic discriminated union on ``type``; :func:`parse_client` turns raw
text into one of them or raises :class:`ProtocolError` with a code and a sentence — never any
other exception — so the socket loop can answer with an ``error`` and carry on.

Server messages (:data:`ServerMessage`) are frozen values, one per frame ``type``, each with the
one ``encode()`` that writes it (:mod:`gameshack.protocol.outbound`). JSON is orjson throughout.
"""

from gameshack.protocol.messages import (
    MAX_FRAME_BYTES,
    Act,
    AddBot,
    Chat,
    ChatRead,
    ClientMessage,
    Hint,
    Leave,
    Ping,
    ProtocolError,
    Rematch,
    Start,
    Sync,
    error_frame,
    error_message,
    parse_client,
)
from gameshack.protocol.outbound import (
    AckFrame,
    ChatFrame,
    ChatHistoryFrame,
    EndedFrame,
    ErrorFrame,
    HelloFrame,
    HintFrame,
    PongFrame,
    RoomFrame,
    ServerMessage,
    ViewFrame,
    decode,
    dumps,
)

__all__ = [
    "MAX_FRAME_BYTES",
    "AckFrame",
    "Act",
    "AddBot",
    "Chat",
    "ChatFrame",
    "ChatHistoryFrame",
    "ChatRead",
    "ClientMessage",
    "EndedFrame",
    "ErrorFrame",
    "HelloFrame",
    "Hint",
    "HintFrame",
    "Leave",
    "Ping",
    "PongFrame",
    "ProtocolError",
    "Rematch",
    "RoomFrame",
    "ServerMessage",
    "Start",
    "Sync",
    "ViewFrame",
    "decode",
    "dumps",
    "error_frame",
    "error_message",
    "parse_client",
]
