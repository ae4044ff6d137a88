"""Alembic environment: run on the connection handed over by :mod:`gameshack.store.sql`."""

from alembic import context

from gameshack.store.models import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
