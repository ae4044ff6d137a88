"""The closed set of client <-> server messages, parsed once at the edge.

Client messages are a pydantic discriminated union on ``type``; :func:`parse_client` turns raw
text into one of them or raises :class:`ProtocolError` with a code and a sentence — never any
other exception — so the socket loop can answer with an ``error`` and carry on.
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
    Start,
    Sync,
    error_message,
    parse_client,
)

__all__ = [
    "MAX_FRAME_BYTES",
    "Act",
    "AddBot",
    "Chat",
    "ChatRead",
    "ClientMessage",
    "Hint",
    "Leave",
    "Ping",
    "ProtocolError",
    "Start",
    "Sync",
    "error_message",
    "parse_client",
]
