"""The in-memory twin of the SQL store, for unit tests (same port, same semantics)."""

from __future__ import annotations

import copy
import dataclasses

from gameshack.service.ports import (
    ActionRow,
    ChatRow,
    CodeTaken,
    GameRow,
    RecordRow,
    Store,
    VersionConflict,
)
from gameshack.store.sql import DEVICE_GAMES

__all__ = ["MemoryStore"]


class MemoryStore(Store):
    def __init__(self) -> None:
        self._games: dict[str, GameRow] = {}
        self._actions: dict[str, list[ActionRow]] = {}
        self._chat: list[ChatRow] = []
        self._chat_ids = 0  # ids are never reused, purges or not (as an autoincrement key)
        self._records: list[RecordRow] = []
        self._leases: dict[str, float] = {}  # game code -> lease end (claim_overdue)
        self._watch: dict[str, str] = {}  # game code -> watch token (issue 33)

    async def create_game(self, game: GameRow, *, action: ActionRow | None = None) -> None:
        if game.code in self._games:
            raise CodeTaken(game.code)
        self._games[game.code] = copy.deepcopy(game)
        if action is not None:
            self._actions.setdefault(game.code, []).append(action)

    async def load_game(self, code: str) -> GameRow | None:
        game = self._games.get(code)
        return _snapshot(game) if game else None

    async def save_game(
        self,
        game: GameRow,
        *,
        seats: list[int] | None = None,
        new_seats: list[int] | None = None,
        action: ActionRow | None = None,
        records: list[RecordRow] | None = None,
        expect_version: int | None = None,
        state: bool = True,
    ) -> None:
        stored = self._games.get(game.code)
        if expect_version is not None and (stored is None or stored.version != expect_version):
            raise VersionConflict(game.code)
        # A snapshot, as the SQL store keeps: the row and its seats are copied; the engine state
        # dict is shared because the service replaces it whenever it stores one and never
        # mutates it (a deep copy per action would make this twin slower than SQLite).
        new = _snapshot(game)
        if not state and stored is not None:  # the stored state stays, as in SQL
            new.state, new.state_v = stored.state, stored.state_v
        self._games[game.code] = new
        self._leases.pop(game.code, None)  # a commit frees the timer's lease, as in SQL
        if action is not None:
            self._actions.setdefault(game.code, []).append(action)
        self._records.extend(records or [])

    async def create_rematch(
        self, old: GameRow, new: GameRow, *, action: ActionRow | None, expect_version: int
    ) -> None:
        stored = self._games.get(old.code)
        if stored is None or stored.version != expect_version:
            raise VersionConflict(old.code)
        if new.code in self._games:
            raise CodeTaken(new.code)
        self._games[old.code] = _snapshot(old)
        self._leases.pop(old.code, None)
        await self.create_game(new, action=action)

    async def games_for_device(self, device: str) -> list[GameRow]:
        mine = [
            g
            for g in self._games.values()
            if g.status in ("waiting", "active") and any(s.device == device for s in g.seats)
        ]
        mine.sort(key=lambda g: g.code)
        mine.sort(key=lambda g: g.public_at, reverse=True)  # the newest first, as the SQL store
        return [_snapshot(g) for g in mine[:DEVICE_GAMES]]

    async def claim_overdue(
        self, *, due_before: float, now: float, owner: str, until: float, limit: int = 100
    ) -> list[str]:
        due = sorted(
            (g.due_at, g.code)
            for g in self._games.values()
            if g.status == "active"
            and g.due_at is not None
            and g.due_at < due_before
            and self._leases.get(g.code, float("-inf")) < now
        )
        codes = [code for _, code in due[:limit]]
        for code in codes:
            self._leases[code] = until
        return codes

    async def live_games(self) -> list[GameRow]:
        return [_snapshot(g) for g in self._games.values() if g.status == "active"]

    async def add_chat(
        self, code: str, seat: int, name: str, emoji: str, text: str, at: float
    ) -> ChatRow:
        self._chat_ids += 1
        row = ChatRow(self._chat_ids, code, seat, name, emoji, text, at)
        self._chat.append(row)
        return row

    async def chat_history(self, code: str, limit: int = 200) -> list[ChatRow]:
        return [c for c in self._chat if c.code == code][-limit:]

    async def actions(self, code: str, after: int = 0) -> list[ActionRow]:
        return [a for a in self._actions.get(code, []) if a.v > after]

    async def records(self, code: str | None = None) -> list[RecordRow]:
        return [r for r in self._records if code is None or r.code == code]

    async def purge(self, *, waiting_before: float, chat_before: float) -> tuple[int, int]:
        gone = {
            code
            for code, g in self._games.items()
            if g.status == "waiting" and g.public_at < waiting_before
        }
        for code in gone:
            del self._games[code]
            self._actions.pop(code, None)
            self._watch.pop(code, None)
        quiet = {
            code
            for code, g in self._games.items()
            if g.status in ("finished", "ended") and g.public_at < chat_before
        }
        chats = sum(1 for c in self._chat if c.code in quiet)
        self._chat = [c for c in self._chat if c.code not in quiet and c.code not in gone]
        return len(gone), chats

    async def watch_token(self, code: str) -> str | None:
        return self._watch.get(code)

    async def set_watch_token(self, code: str, token: str | None) -> None:
        if token is None:
            self._watch.pop(code, None)
        elif code in self._games:
            if any(t == token for c, t in self._watch.items() if c != code):
                raise ValueError("watch token taken")  # unique, as the SQL column
            self._watch[code] = token

    async def watched_game(self, token: str) -> str | None:
        return next((c for c, t in self._watch.items() if t == token), None)


def _snapshot(game: GameRow) -> GameRow:
    return dataclasses.replace(
        game,
        seats=[dataclasses.replace(s, memory=copy.deepcopy(s.memory)) for s in game.seats],
        ended=copy.deepcopy(game.ended),
        rematch=copy.deepcopy(game.rematch),
    )
