"""The contest database: SQLAlchemy Core tables, the engine (SQLite in WAL mode or PostgreSQL), migrations.

The database is the record: every submission, admission result, block and
match result is a row written in a transaction; files (uploads, hand
histories, logs) live in the data folder and are named by rows. The schema is
versioned by Alembic (``harness/server/migrations``): :func:`open_database`
upgrades it in place at every start-up.

Times are Unix seconds (float). JSON columns hold text (one format on both back-ends).
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
)
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import ConnectionPoolEntry

from harness.errors import HarnessError

metadata = MetaData()

students = Table(
    "students", metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("email", String(200), nullable=False, default=""),
    Column("created", Float, nullable=False),
)

#: Login tokens (the secret of a login link), stored as SHA-256; role "student" or "admin".
tokens = Table(
    "tokens", metadata,
    Column("id", Integer, primary_key=True),
    Column("role", String(16), nullable=False),
    Column("student_id", Integer, ForeignKey("students.id"), nullable=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created", Float, nullable=False),
    Column("revoked", Float, nullable=True),
)

sessions = Table(
    "sessions", metadata,
    Column("id", Integer, primary_key=True),
    Column("session_hash", String(64), nullable=False, unique=True),
    Column("token_id", Integer, ForeignKey("tokens.id"), nullable=False),
    Column("created", Float, nullable=False),
)

#: Every submission is a version: state checking -> admitted | refused; ``paused``: why the ladder gives an
#: admitted version no more blocks ("": it plays). A version is its files, command and
#: build together: ``bot_key`` (SHA-256 of the three) is unique per student; ``folder`` names its files under
#: ``<data>/uploads/<student>/`` (shared by versions of the same files without a build).
versions = Table(
    "versions", metadata,
    Column("id", Integer, primary_key=True),
    Column("student_id", Integer, ForeignKey("students.id"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("command", Text, nullable=False),
    Column("build", Text, nullable=False, default=""),
    Column("state", String(16), nullable=False),
    Column("reason", Text, nullable=False, default=""),
    Column("report", Text, nullable=False, default="{}"),
    Column("created", Float, nullable=False),
    Column("checked", Float, nullable=True),
    Column("active", Boolean, nullable=False, default=False),
    Column("bot_key", String(64), nullable=False),
    Column("folder", String(64), nullable=False),
    Column("paused", Text, nullable=False, default="", server_default=""),
    UniqueConstraint("student_id", "number"),
    UniqueConstraint("student_id", "bot_key", name="uq_versions_student_bot_key"),
)

#: A block: one table played in every seat rotation on the same deals. ``seats``: JSON list of
#: entrants ("v<version id>" or "r<reference name>"); kind ladder | challenge | final.
blocks = Table(
    "blocks", metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("requested_by", Integer, ForeignKey("students.id"), nullable=True),
    Column("seats", Text, nullable=False),
    Column("seed", String(80), nullable=False),
    Column("state", String(16), nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Float, nullable=True),
)

#: One rotation of a block; ``record``: the MatchRecord's JSON once done (counted only then).
matches = Table(
    "matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("block_id", Integer, ForeignKey("blocks.id"), nullable=False, index=True),
    Column("rotation", Integer, nullable=False),
    Column("match_id", String(200), nullable=False, unique=True),
    Column("state", String(16), nullable=False),
    Column("record", Text, nullable=True),
    Column("error", Text, nullable=False, default=""),
    Column("finished", Float, nullable=True),
    UniqueConstraint("block_id", "rotation"),
)

#: The bots of each stored match result, a row per bot: a version's results are read without the others'.
#: ``faults``: JSON ``{kind: count}`` of the bot in that match (:func:`harness.server.store.seat_faults`).
match_bots = Table(
    "match_bots", metadata,
    Column("match_pk", Integer, ForeignKey("matches.id"), nullable=False),
    Column("bot", String(200), nullable=False, index=True),
    Column("faults", Text, nullable=False, default="{}", server_default="{}"),
    UniqueConstraint("match_pk", "bot"),
)

#: Contest switches (frozen, challenges, final) as text values.
settings = Table(
    "settings", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

MIGRATIONS = Path(__file__).with_name("migrations")


#: Connections kept open and opened beyond them at most: as many as the web process's worker threads (AnyIO's 40),
#: so a page under a class's polling never queues for a connection (SQLAlchemy's default is 5 + 10).
POOL = {"pool_size": 10, "max_overflow": 30}


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL mode, a busy timeout and foreign keys.

    Raises:
        sqlalchemy.exc.ArgumentError: a URL SQLAlchemy cannot read.
    """
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, **POOL)

        @event.listens_for(engine, "connect")
        def _pragmas(conn: DBAPIConnection, record: ConnectionPoolEntry) -> None:
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")  # readers never block the ladder's writes
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, **POOL)


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run the Alembic migrations up to ``revision`` (the schema is upgraded in place)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", os.fspath(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def current_revision(engine: Engine) -> str | None:
    """The schema revision the database is at (None: empty)."""
    from alembic.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


class DatabaseError(HarnessError, RuntimeError):
    """The contest's database cannot be opened (one line: its URL without the password, and the cause)."""


def shown_url(url: str) -> str:
    """``url`` as it may be printed: without its password (``postgresql://USER@HOST/DB``)."""
    parsed = make_url(url)
    shown = parsed._replace(password=None).render_as_string(hide_password=False)  # set() keeps a None password
    return shown.replace("postgresql+psycopg://", "postgresql://", 1)


def open_database(url: str) -> Engine:
    """The engine of ``url`` with its schema upgraded to the newest revision.

    Raises:
        DatabaseError: the database cannot be reached or opened (refused connection, unknown host, user or
            database, a wrong password, an unreadable SQLite file).
    """
    engine = make_engine(url)
    try:
        upgrade(engine)
    except DBAPIError as exc:
        engine.dispose()
        cause = " ".join(str(exc.orig or exc).split())  # the driver's words, on one line
        password = str(engine.url.password or "")
        if len(password) >= 4:  # a driver's words hold no password, unless it echoes a malformed address
            cause = cause.replace(password, "***")
        raise DatabaseError(f"cannot open the database {shown_url(url)}: {cause}") from None
    return engine
