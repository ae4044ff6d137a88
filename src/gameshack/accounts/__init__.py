"""Optional passwordless sign-in (one-time codes by email), sessions, and player stats.

Layer: like ``service``, this package knows only ports; :mod:`gameshack.store.accounts` plugs in
the database and :mod:`gameshack.server.accounts_routes` the HTTP edge.
"""

from gameshack.accounts.mailer import (
    ConsoleMailer,
    Mailer,
    SmtpMailer,
    SmtpSettings,
    mailer_from_env,
)
from gameshack.accounts.models import Account, CodeRecord, SeatRef, SessionRecord
from gameshack.accounts.ports import AccountStore, InMemoryAccountStore
from gameshack.accounts.service import (
    AccountError,
    AccountsConfig,
    AccountService,
    SeatDirectory,
    SignIn,
    normalize_email,
    validate_display_name,
)

__all__ = [
    "Account",
    "AccountError",
    "AccountService",
    "AccountStore",
    "AccountsConfig",
    "CodeRecord",
    "ConsoleMailer",
    "InMemoryAccountStore",
    "Mailer",
    "SeatDirectory",
    "SeatRef",
    "SessionRecord",
    "SignIn",
    "SmtpMailer",
    "SmtpSettings",
    "mailer_from_env",
    "normalize_email",
    "validate_display_name",
]
