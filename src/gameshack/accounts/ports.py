"""The persistence port of the accounts service, and its in-memory twin.

The SQLAlchemy implementation lives in :mod:`gameshack.store.accounts`; both are run through the
same tests. Every method that must be atomic against a concurrent request says so: the service
relies on it (a code is consumed once even when two requests race).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord

__all__ = ["AccountStore", "InMemoryAccountStore"]


class AccountStore(Protocol):
    # --- codes -----------------------------------------------------------------------------
    async def add_code(self, record: CodeRecord, *, keep: int) -> int:
        """Store a new code for ``record.email`` and return its id. The address keeps its other
        codes (a new request voids none), up to the ``keep`` newest; codes expired at
        ``record.created_at`` are dropped, of every address."""

    async def list_codes(self, email: str) -> list[CodeRecord]:
        """The address's stored codes, oldest first (dead ones included until dropped)."""

    async def reserve_tries(
        self, email: str, requester: str, now: float, max_tries: int
    ) -> list[CodeRecord]:
        """Atomically count one try against each of the address's live codes that still has a
        try left in the caller's pool (``own_tries`` when ``requester`` asked for the code,
        ``tries`` otherwise), and return those codes: the only ones the caller may compare.
        Codes expired, or out of tries in both pools, are dropped first. Of any number of
        concurrent calls, at most ``max_tries`` per pool get a given code."""

    async def consume_code(self, email: str, code_id: int) -> bool:
        """Atomically delete the code ``code_id`` of the address; True if this call deleted it
        (then every other code of the address is deleted too: a sign-in voids them all)."""

    # --- accounts --------------------------------------------------------------------------
    async def get_or_create_account(self, email: str, now: float) -> Account: ...

    async def get_account(self, account_id: str) -> Account | None: ...

    async def set_display_name(self, account_id: str, name: str) -> None: ...

    # --- sessions --------------------------------------------------------------------------
    async def create_session(self, record: SessionRecord) -> None: ...

    async def get_session(self, id_hash: str) -> SessionRecord | None: ...

    async def delete_session(self, id_hash: str) -> None: ...

    async def live_devices(self, account_id: str, now: float) -> list[str]:
        """Device tokens of the account's sessions that have not expired."""

    # --- seats that joined the account -----------------------------------------------------
    async def claim_seats(self, account_id: str, seats: Iterable[SeatRef]) -> None:
        """Record that these seats belong to the account (idempotent)."""

    async def claimed_seats(self, account_id: str) -> list[SeatRef]: ...


class InMemoryAccountStore:
    """The port kept in dicts: for tests and for a server run without a database."""

    def __init__(self) -> None:
        self.codes: dict[str, list[CodeRecord]] = {}  # email -> its codes, oldest first
        self.accounts: dict[str, Account] = {}
        self.sessions: dict[str, SessionRecord] = {}
        self.seats: dict[str, set[SeatRef]] = {}
        self._next_code_id = 1

    # No await between reading and writing a code: each method is atomic on the event loop.
    async def add_code(self, record: CodeRecord, *, keep: int) -> int:
        now = record.created_at
        for email in [e for e, cs in self.codes.items() if all(c.expires_at <= now for c in cs)]:
            del self.codes[email]
        code_id, self._next_code_id = self._next_code_id, self._next_code_id + 1
        mine = [c for c in self.codes.get(record.email, []) if c.expires_at > now]
        mine.append(replace(record, id=code_id))
        self.codes[record.email] = mine[-max(1, keep) :]
        return code_id

    async def list_codes(self, email: str) -> list[CodeRecord]:
        return list(self.codes.get(email, []))

    async def reserve_tries(
        self, email: str, requester: str, now: float, max_tries: int
    ) -> list[CodeRecord]:
        kept: list[CodeRecord] = []
        reserved: list[CodeRecord] = []
        for c in self.codes.get(email, []):
            if c.expires_at <= now or (c.tries >= max_tries and c.own_tries >= max_tries):
                continue  # dead: dropped
            if c.requester == requester and c.own_tries < max_tries:
                c = replace(c, own_tries=c.own_tries + 1)
                reserved.append(c)
            elif c.requester != requester and c.tries < max_tries:
                c = replace(c, tries=c.tries + 1)
                reserved.append(c)
            kept.append(c)
        if kept:
            self.codes[email] = kept
        else:
            self.codes.pop(email, None)
        return reserved

    async def consume_code(self, email: str, code_id: int) -> bool:
        if not any(c.id == code_id for c in self.codes.get(email, [])):
            return False
        del self.codes[email]
        return True

    async def get_or_create_account(self, email: str, now: float) -> Account:
        for acc in self.accounts.values():
            if acc.email == email:
                return acc
        acc = Account(id=uuid.uuid4().hex, email=email, display_name=None, created_at=now)
        self.accounts[acc.id] = acc
        return acc

    async def get_account(self, account_id: str) -> Account | None:
        return self.accounts.get(account_id)

    async def set_display_name(self, account_id: str, name: str) -> None:
        acc = self.accounts[account_id]
        self.accounts[account_id] = replace(acc, display_name=name)

    async def create_session(self, record: SessionRecord) -> None:
        self.sessions[record.id_hash] = record

    async def get_session(self, id_hash: str) -> SessionRecord | None:
        return self.sessions.get(id_hash)

    async def delete_session(self, id_hash: str) -> None:
        self.sessions.pop(id_hash, None)

    async def live_devices(self, account_id: str, now: float) -> list[str]:
        return sorted(
            {
                s.device_token
                for s in self.sessions.values()
                if s.account_id == account_id and s.expires_at > now and s.device_token
            }
        )

    async def claim_seats(self, account_id: str, seats: Iterable[SeatRef]) -> None:
        self.seats.setdefault(account_id, set()).update(seats)

    async def claimed_seats(self, account_id: str) -> list[SeatRef]:
        return sorted(self.seats.get(account_id, set()), key=lambda s: (s.game_id, s.seat))
