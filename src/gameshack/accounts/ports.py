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
    async def put_code(self, record: CodeRecord) -> None:
        """Store ``record`` as the address's only code, replacing (voiding) any earlier one."""

    async def get_code(self, email: str) -> CodeRecord | None: ...

    async def consume_code(self, email: str, code_hash: str) -> bool:
        """Atomically delete the address's code if its hash is ``code_hash``; True if deleted."""

    async def add_wrong_try(self, email: str, code_hash: str) -> int:
        """Atomically count one wrong try against the code with ``code_hash``; the new count
        (0 when that code is gone)."""

    async def delete_code(self, email: str) -> None: ...

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
        self.codes: dict[str, CodeRecord] = {}
        self.accounts: dict[str, Account] = {}
        self.sessions: dict[str, SessionRecord] = {}
        self.seats: dict[str, set[SeatRef]] = {}

    async def put_code(self, record: CodeRecord) -> None:
        self.codes[record.email] = record

    async def get_code(self, email: str) -> CodeRecord | None:
        return self.codes.get(email)

    async def consume_code(self, email: str, code_hash: str) -> bool:
        rec = self.codes.get(email)
        if rec is None or rec.code_hash != code_hash:
            return False
        del self.codes[email]
        return True

    async def add_wrong_try(self, email: str, code_hash: str) -> int:
        rec = self.codes.get(email)
        if rec is None or rec.code_hash != code_hash:
            return 0
        rec = replace(rec, tries=rec.tries + 1)
        self.codes[email] = rec
        return rec.tries

    async def delete_code(self, email: str) -> None:
        self.codes.pop(email, None)

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
