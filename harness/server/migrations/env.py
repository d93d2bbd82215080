"""Alembic environment: migrations run on the connection :func:`harness.server.db.upgrade` passes."""

from alembic import context

from harness.server.db import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
