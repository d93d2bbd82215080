"""The initial contest schema: students, tokens, sessions, versions, blocks, matches, settings.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "students",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("email", sa.String(200), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("student_id", sa.Integer, sa.ForeignKey("students.id"), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("session_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("token_id", sa.Integer, sa.ForeignKey("tokens.id"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "versions",
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
        sa.UniqueConstraint("student_id", "number"),
        sa.UniqueConstraint("student_id", "sha256"),
    )
    op.create_table(
        "blocks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("requested_by", sa.Integer, sa.ForeignKey("students.id"), nullable=True),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("seed", sa.String(80), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("block_id", sa.Integer, sa.ForeignKey("blocks.id"), nullable=False, index=True),
        sa.Column("rotation", sa.Integer, nullable=False),
        sa.Column("match_id", sa.String(200), nullable=False, unique=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("record", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
        sa.UniqueConstraint("block_id", "rotation"),
    )
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in ("settings", "matches", "blocks", "versions", "sessions", "tokens", "students"):
        op.drop_table(name)
