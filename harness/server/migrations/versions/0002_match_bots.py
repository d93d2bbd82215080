"""The bots of each stored match result (``match_bots``), so a page reads one version's results alone.

Revision ID: 0002
Revises: 0001

The rows of results stored before this revision are made from their records.
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "match_bots",
        sa.Column("match_pk", sa.Integer, sa.ForeignKey("matches.id"), nullable=False),
        sa.Column("bot", sa.String(200), nullable=False),
        sa.UniqueConstraint("match_pk", "bot"),
    )
    op.create_index("ix_match_bots_bot", "match_bots", ["bot"])
    matches = sa.table("matches", sa.column("id", sa.Integer), sa.column("record", sa.Text))
    conn = op.get_bind()
    rows = [{"match_pk": pk, "bot": bot}
            for pk, record in conn.execute(sa.select(matches.c.id, matches.c.record)
                                           .where(matches.c.record.is_not(None)))
            for bot in dict.fromkeys(json.loads(record)["result"]["bots"])]
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    op.drop_index("ix_match_bots_bot", "match_bots")
    op.drop_table("match_bots")
