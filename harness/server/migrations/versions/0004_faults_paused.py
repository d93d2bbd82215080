"""Faults per version: ``match_bots.faults``; a version that keeps failing is paused: ``versions.paused``.

Revision ID: 0004
Revises: 0003

``match_bots.faults`` holds, per stored match and bot, a JSON object of its
fault counts by kind (the result's), ``out`` (1: put out of the match) and
``slow`` (decisions that took longer than ``decision_ms``, paid from the time
bank). The rows stored before this revision get theirs from their records
(``slow`` unknown: left out). ``versions.paused`` says why the ladder stopped
giving the version blocks ("" : it plays).
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _faults(result: dict[str, Any], bot: str) -> dict[str, int]:
    """The bot's faults in one stored result (a frozen copy of :func:`harness.server.store.seat_faults`)."""
    out: dict[str, int] = {}
    for seat, name in enumerate(result["bots"]):
        if name != bot:
            continue
        for kind, n in result["faults"][seat].items():
            out[kind] = out.get(kind, 0) + int(n)
        if result["status"][seat] != "ok":
            out["out"] = out.get("out", 0) + 1
    return {k: v for k, v in out.items() if v}


def upgrade() -> None:
    op.add_column("match_bots", sa.Column("faults", sa.Text, nullable=False, server_default="{}"))
    op.add_column("versions", sa.Column("paused", sa.Text, nullable=False, server_default=""))
    matches = sa.table("matches", sa.column("id", sa.Integer), sa.column("record", sa.Text))
    bots = sa.table("match_bots", sa.column("match_pk", sa.Integer), sa.column("bot", sa.String),
                    sa.column("faults", sa.Text))
    conn = op.get_bind()
    for pk, record in conn.execute(sa.select(matches.c.id, matches.c.record).where(matches.c.record.is_not(None))
                                   ).all():
        result = json.loads(record)["result"]
        for bot in dict.fromkeys(result["bots"]):
            faults = _faults(result, bot)
            if faults:
                conn.execute(sa.update(bots).where(bots.c.match_pk == pk, bots.c.bot == bot)
                             .values(faults=json.dumps(faults)))


def downgrade() -> None:
    with op.batch_alter_table("versions") as batch:
        batch.drop_column("paused")
    with op.batch_alter_table("match_bots") as batch:
        batch.drop_column("faults")
