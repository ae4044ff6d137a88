"""Storage: the SQL store (SQLAlchemy 2 async + Alembic) and its in-memory twin."""

from gameshack.store.memory import MemoryStore
from gameshack.store.sql import SqlStore, StoreClosed, StoreUnavailable

__all__ = ["MemoryStore", "SqlStore", "StoreClosed", "StoreUnavailable"]
