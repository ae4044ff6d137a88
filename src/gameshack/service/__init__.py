"""The authoritative match runner (one writer per game) and the ports it talks to."""

from gameshack.service.fanout import Conn, FanOut, LocalFanOut
from gameshack.service.ports import ActionRow, ChatRow, GameRow, RecordRow, SeatRow, Store
from gameshack.service.runner import CODE_ALPHABET, GameService, Room, ServiceError, device_hash
from gameshack.service.settings import Settings

__all__ = [
    "CODE_ALPHABET",
    "ActionRow",
    "ChatRow",
    "Conn",
    "FanOut",
    "GameRow",
    "GameService",
    "LocalFanOut",
    "RecordRow",
    "Room",
    "SeatRow",
    "ServiceError",
    "Settings",
    "Store",
    "device_hash",
]
