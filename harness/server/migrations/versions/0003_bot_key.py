"""A version is its files, command and build: ``versions.bot_key`` unique per student (was: the files alone).

Revision ID: 0003
Revises: 0002

Before this revision the same files with another command silently changed or
dropped that command. Each stored version gets its ``bot_key`` (SHA-256 of
the content hash, command and build, as :func:`harness.server.store.bot_identity`
makes it) and its ``folder`` (the folder it was unpacked in, ``sha256[:16]``:
where every version's files were until now); the unique constraint on
``(student_id, sha256)`` becomes one on ``(student_id, bot_key)``.
"""

import hashlib
import json

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_OLD = "versions_student_id_sha256_key"  # PostgreSQL's name of the first revision's unnamed constraint
_NEW = "uq_versions_student_bot_key"


def _key(sha: str, command: str, build: str) -> str:
    """The bot key of this revision (a frozen copy: a later change of the server's must not change it)."""
    return hashlib.sha256(json.dumps([sha, command, build]).encode()).hexdigest()


def _first_revision_versions() -> sa.Table:
    """``versions`` as revisions 0001-0002 made it plus this revision's two columns, with neither unique
    constraint on the content (SQLite rebuilds the table from this: its unnamed one cannot be dropped by name)."""
    return sa.Table(
        "versions", sa.MetaData(),
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("student_id", sa.Integer, sa.ForeignKey("students.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("build", sa.Text, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("report", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("checked", sa.Float, nullable=True),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("bot_key", sa.String(64), nullable=True),
        sa.Column("folder", sa.String(64), nullable=True),
        sa.UniqueConstraint("student_id", "number"),
    )


def upgrade() -> None:
    op.add_column("versions", sa.Column("bot_key", sa.String(64), nullable=True))
    op.add_column("versions", sa.Column("folder", sa.String(64), nullable=True))
    table = sa.table("versions", sa.column("id", sa.Integer), sa.column("sha256", sa.String),
                     sa.column("command", sa.Text), sa.column("build", sa.Text),
                     sa.column("bot_key", sa.String), sa.column("folder", sa.String))
    conn = op.get_bind()
    for vid, sha, command, build in conn.execute(sa.select(table.c.id, table.c.sha256, table.c.command,
                                                           table.c.build)).all():
        conn.execute(sa.update(table).where(table.c.id == vid).values(bot_key=_key(sha, command, build),
                                                                       folder=sha[:16]))
    if conn.dialect.name == "sqlite":
        with op.batch_alter_table("versions", recreate="always", copy_from=_first_revision_versions()) as batch:
            batch.alter_column("bot_key", existing_type=sa.String(64), nullable=False)
            batch.alter_column("folder", existing_type=sa.String(64), nullable=False)
            batch.create_unique_constraint(_NEW, ["student_id", "bot_key"])
        return
    op.drop_constraint(_OLD, "versions", type_="unique")
    op.alter_column("versions", "bot_key", existing_type=sa.String(64), nullable=False)
    op.alter_column("versions", "folder", existing_type=sa.String(64), nullable=False)
    op.create_unique_constraint(_NEW, "versions", ["student_id", "bot_key"])


def downgrade() -> None:
    """Back to one version per content; fails (IntegrityError) while two versions of a student share their files."""
    if op.get_bind().dialect.name == "sqlite":
        with op.batch_alter_table("versions", recreate="always", copy_from=_first_revision_versions()) as batch:
            batch.drop_column("bot_key")
            batch.drop_column("folder")
            batch.create_unique_constraint(_OLD, ["student_id", "sha256"])
        return
    op.drop_constraint(_NEW, "versions", type_="unique")
    op.drop_column("versions", "bot_key")
    op.drop_column("versions", "folder")
    op.create_unique_constraint(_OLD, "versions", ["student_id", "sha256"])
