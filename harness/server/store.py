"""What the server reads and writes in the database, one transaction per change.

The web application and the ladder share these functions; nothing else writes
the tables. A match counts once: its record is written in the same
transaction that marks it done, and a block's results count only once every
rotation is done (:func:`done_records`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shlex
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from harness.errors import HarnessError
from harness.server import db
from harness.server.contest import Contest
from harness.server.tokens import new_token, token_hash
from harness.specs import BotSpec

ADMIN = "admin"
STUDENT = "student"
#: Version states.
CHECKING, ADMITTED, REFUSED = "checking", "admitted", "refused"
#: Block and match states.
PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"
_PYTHON_NAMES = ("python", "python3")


@dataclass(frozen=True, slots=True)
class Who:
    """The person behind a session: role admin or student (with their id and name)."""

    role: str
    student_id: int | None = None
    name: str = ""

    @property
    def admin(self) -> bool:
        return self.role == ADMIN


def sync_roster(engine: Engine, contest: Contest) -> int:
    """Add the file's students missing from the database; return how many were added (none is removed)."""
    with engine.begin() as conn:
        known = set(conn.execute(select(db.students.c.name)).scalars())
        new = [s for s in contest.students if s.name not in known]
        for s in new:
            conn.execute(insert(db.students).values(name=s.name, email=s.email, created=time.time()))
    return len(new)


#: Written again whenever login links are revoked (``<data>/.links-issued``): a process that remembers whose each
#: session is (the web process: :class:`harness.server.app.Sessions`) forgets it all when this file changes.
LINKS_STAMP = ".links-issued"


def mark_links_issued(contest: Contest) -> None:
    """Replace :data:`LINKS_STAMP` (a new file: its inode changes even when the clock's grain hides a new mtime)."""
    stamp = contest.data / LINKS_STAMP
    part = stamp.with_name(f"{LINKS_STAMP}.{os.getpid()}")
    with contextlib.suppress(OSError):  # no data folder yet: no server has remembered anything
        part.write_text(str(time.time_ns()), encoding="ascii")
        os.replace(part, stamp)


class UnknownStudents(HarnessError, ValueError):
    """Students named that the contest does not have (``names``, in the order given)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        super().__init__(f"no such student: {', '.join(self.names)}")


def issue_links(engine: Engine, contest: Contest, base_url: str, *, only: Sequence[str] = ()) -> list[tuple[str, str]]:
    """Revoke the tokens of the students named (all, and the admin, when ``only`` is empty) and issue new ones.

    Returns:
        ``[(student, url)]``, the admin first as ``("admin", url)``; the tokens are stored hashed only.

    Raises:
        UnknownStudents: a name of ``only`` is no student of the contest (nothing is revoked or issued).
    """
    sync_roster(engine, contest)
    base = base_url.rstrip("/")
    out = []
    now = time.time()
    with engine.begin() as conn:
        people = conn.execute(select(db.students.c.id, db.students.c.name).order_by(db.students.c.id)).all()
        unknown = [name for name in dict.fromkeys(only) if name not in {p.name for p in people}]
        if unknown:
            raise UnknownStudents(unknown)
        targets: list[tuple[str, int | None, str]] = []
        if not only:
            targets.append((ADMIN, None, ADMIN))
        targets += [(STUDENT, sid, name) for sid, name in people if not only or name in only]
        for role, sid, name in targets:
            cond = (db.tokens.c.role == ADMIN) if role == ADMIN else (db.tokens.c.student_id == sid)
            conn.execute(update(db.tokens).where(cond, db.tokens.c.revoked.is_(None)).values(revoked=now))
            token = new_token()
            conn.execute(insert(db.tokens).values(role=role, student_id=sid, token_hash=token_hash(token),
                                                  created=now))
            out.append((name, f"{base}/login/{token}"))
    mark_links_issued(contest)
    return out


def login(engine: Engine, token: str) -> str | None:
    """Open a session for a valid, unrevoked token; return the session secret (None: no such token)."""
    with engine.begin() as conn:
        row = conn.execute(select(db.tokens.c.id).where(db.tokens.c.token_hash == token_hash(token),
                                                        db.tokens.c.revoked.is_(None))).first()
        if row is None:
            return None
        secret = secrets.token_urlsafe(32)
        conn.execute(insert(db.sessions).values(session_hash=token_hash(secret), token_id=row.id, created=time.time()))
    return secret


def token_owner(engine: Engine, token: str) -> Who | None:
    """Whose a valid, unrevoked login token is (None: no such token); opens no session."""
    t, st = db.tokens, db.students
    with engine.connect() as conn:
        row = conn.execute(select(t.c.role, t.c.student_id, st.c.name).select_from(
            t.outerjoin(st, t.c.student_id == st.c.id))
            .where(t.c.token_hash == token_hash(token), t.c.revoked.is_(None))).first()
    return None if row is None else Who(row.role, row.student_id, row.name or "")


def logout(engine: Engine, secret: str | None) -> None:
    """End the session of ``secret`` (nothing if there is none): its cookie signs in nobody afterwards."""
    if not secret:
        return
    with engine.begin() as conn:
        conn.execute(delete(db.sessions).where(db.sessions.c.session_hash == token_hash(secret)))


def session_of(engine: Engine, secret: str | None) -> Who | None:
    """Who a session secret belongs to (None: none, or its token was revoked since)."""
    if not secret:
        return None
    t, s, st = db.tokens, db.sessions, db.students
    with engine.connect() as conn:
        row = conn.execute(
            select(t.c.role, t.c.student_id, st.c.name).select_from(s.join(t, s.c.token_id == t.c.id)
                                                                    .outerjoin(st, t.c.student_id == st.c.id))
            .where(s.c.session_hash == token_hash(secret), t.c.revoked.is_(None))).first()
    if row is None:
        return None
    return Who(row.role, row.student_id, row.name or "")


def setting(engine: Engine, key: str, default: str = "") -> str:
    with engine.connect() as conn:
        value = conn.execute(select(db.settings.c.value).where(db.settings.c.key == key)).scalar()
    return default if value is None else value


def set_setting(engine: Engine, key: str, value: str) -> None:
    with engine.begin() as conn:
        if conn.execute(select(db.settings.c.key).where(db.settings.c.key == key)).first() is None:
            conn.execute(insert(db.settings).values(key=key, value=value))
        else:
            conn.execute(update(db.settings).where(db.settings.c.key == key).values(value=value))


def version_dir(contest: Contest, student: str, folder: str) -> Path:
    """A version's unpacked files: ``<data>/uploads/<student>/<folder>`` (``folder``: :func:`bot_identity`)."""
    return contest.data / "uploads" / student / folder


def bot_identity(sha: str, command: str, build: str) -> tuple[str, str]:
    """A version's ``(bot_key, folder)``: the bot is its files, command and build together.

    ``bot_key`` is the SHA-256 (hex) of the three; ``folder`` is the content hash's first 16 digits, shared by
    the versions of the same files, but a version with a build gets a folder of its own (``<sha16>-<key8>``) so
    no build ever writes into another version's files.
    """
    key = hashlib.sha256(json.dumps([sha, command, build]).encode()).hexdigest()
    return key, sha[:16] if not build else f"{sha[:16]}-{key[:8]}"


def label(student: str, number: int) -> str:
    """A version's bot name in matches and on the leaderboard: ``<student>.v<number>``."""
    return f"{student}.v{number}"


def bot_spec(contest: Contest, student: str, number: int, folder: str, command: str) -> BotSpec:
    """The version as a bot: its command (``python`` is the harness's interpreter), its folder as cwd."""
    argv = shlex.split(command)
    if argv and argv[0] in _PYTHON_NAMES:
        argv[0] = sys.executable
    return BotSpec(name=label(student, number), command=tuple(argv), cwd=str(version_dir(contest, student, folder)))


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the one row an INSERT made."""
    key = result.inserted_primary_key
    assert key is not None  # an INSERT of one row has one
    return int(key[0])


@dataclass(frozen=True, slots=True)
class Added:
    """What an upload became: the version ``id`` and ``number``, its ``state`` and whether it is an earlier
    version (``same``: the same files, command and build were submitted before)."""

    id: int
    number: int
    state: str
    same: bool


class OverLimit(HarnessError):
    """A student's upload or challenge past a limit; the message is the refusal, one line for the student."""


#: A limit checked with the student locked (:func:`lock_student`): given the transaction's connection, the
#: refusal ("" to go on).
Limit = Callable[[Connection], str]


def lock_student(conn: Connection, student_id: int) -> None:
    """Hold the student's row until the transaction ends: a write as its first statement, so under PostgreSQL
    the row is locked and under SQLite (deferred transactions) the database's write lock is taken, both before
    anything is read. Two uploads or challenges of one student sent at once then count their quota one after
    the other, never both from the same count."""
    st = db.students
    conn.execute(update(st).where(st.c.id == student_id).values(name=st.c.name))


def add_version(engine: Engine, student_id: int, sha: str, command: str, build: str,
                limit: Limit | None = None) -> Added:
    """Record a submitted version (state checking), unless the student has submitted this bot before.

    The bot is its files, command and build (:func:`bot_identity`): another command or build with the same
    files is a new version. The same three again change nothing but this: an admitted version becomes the
    active one again. A refused or still checking one is left as it is (its verdict is kept; the caller
    says so). ``limit``: asked before a new version is made, with the student locked (:func:`lock_student`).

    Raises:
        OverLimit: ``limit`` refused the new version (nothing was written).
        sqlalchemy.exc.IntegrityError: three uploads in a row lost a race for the same version number.
    """
    for attempt in range(3):  # two uploads at once may take the same number: the loser tries again
        try:
            with engine.begin() as conn:
                return _add_version(conn, student_id, sha, command, build, limit)
        except IntegrityError:
            if attempt == 2:
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")


def _add_version(conn: Connection, student_id: int, sha: str, command: str, build: str,
                 limit: Limit | None) -> Added:
    key, folder = bot_identity(sha, command, build)
    v = db.versions
    lock_student(conn, student_id)
    row = conn.execute(select(v.c.id, v.c.number, v.c.state).where(v.c.student_id == student_id,
                                                                     v.c.bot_key == key)).first()
    if row is not None:
        if row.state == ADMITTED:
            conn.execute(update(v).where(v.c.student_id == student_id).values(active=False))
            conn.execute(update(v).where(v.c.id == row.id).values(active=True))
        return Added(row.id, row.number, row.state, True)
    reason = limit(conn) if limit is not None else ""
    if reason:
        raise OverLimit(reason)
    number = (conn.execute(select(func.max(v.c.number)).where(v.c.student_id == student_id)).scalar() or 0) + 1
    vid = _new_id(conn.execute(insert(v).values(
        student_id=student_id, number=number, sha256=sha, command=command, build=build, bot_key=key, folder=folder,
        state=CHECKING, reason="", report="{}", created=time.time(), active=False)))
    return Added(vid, number, CHECKING, False)


def finish_check(engine: Engine, version_id: int, ok: bool, reason: str, report: dict[str, Any]) -> None:
    """Store an admission result; an admitted version becomes the student's active one, a refused one never."""
    v = db.versions
    with engine.begin() as conn:
        row = conn.execute(select(v.c.student_id).where(v.c.id == version_id)).first()
        if row is None:
            return
        if ok:
            conn.execute(update(v).where(v.c.student_id == row.student_id).values(active=False))
        conn.execute(update(v).where(v.c.id == version_id).values(
            state=ADMITTED if ok else REFUSED, reason=reason, report=json.dumps(report), checked=time.time(),
            active=ok))


def activate(engine: Engine, student_id: int, version_id: int) -> bool:
    """Make an admitted version of the student the active one; False if it is not theirs or not admitted."""
    v = db.versions
    with engine.begin() as conn:
        row = conn.execute(select(v.c.state).where(v.c.id == version_id, v.c.student_id == student_id)).first()
        if row is None or row.state != ADMITTED:
            return False
        conn.execute(update(v).where(v.c.student_id == student_id).values(active=False))
        conn.execute(update(v).where(v.c.id == version_id).values(active=True))
    return True


def submission_counts(engine: Engine | Connection, student_id: int, since: float) -> int:
    """New versions one student submitted since the time ``since`` (seconds since the epoch); ``engine``: or
    the connection of a transaction under way."""
    v = db.versions
    with _connected(engine) as conn:
        return int(conn.execute(select(func.count()).select_from(v).where(v.c.student_id == student_id,
                                                                          v.c.created >= since)).scalar() or 0)


@contextlib.contextmanager
def _connected(engine: Engine | Connection) -> Iterator[Connection]:
    """A connection of ``engine`` (closed afterwards), or the connection given."""
    if isinstance(engine, Connection):
        yield engine
        return
    with engine.connect() as conn:
        yield conn


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder`` (symbolic links not followed; a missing folder holds 0)."""
    total = 0
    stack = [folder]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(Path(entry.path))
                        else:
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def played(engine: Engine | Connection, student_id: int) -> list[tuple[int, int, str]]:
    """``(block id, rotation, bot)`` of every finished match a version of the student played (where its logs
    are: :func:`harness.server.ladder.match_dir`); ``engine``: or a transaction's connection."""
    v, st, m, mb = db.versions, db.students, db.matches, db.match_bots
    with _connected(engine) as conn:
        name = conn.execute(select(st.c.name).where(st.c.id == student_id)).scalar()
        numbers = conn.execute(select(v.c.number).where(v.c.student_id == student_id)).scalars().all()
        bots = [label(name, n) for n in numbers] if name is not None else []
        if not bots:
            return []
        rows = conn.execute(select(m.c.block_id, m.c.rotation, mb.c.bot).join(mb, mb.c.match_pk == m.c.id)
                            .where(mb.c.bot.in_(bots))).all()
    return [(r.block_id, r.rotation, r.bot) for r in rows]


def drop_refused_files(contest: Contest, student: str, folder: str) -> None:
    """Remove a refused version's files (its report, with the reason and the output tails, stays in the database):
    a refused build must not keep the disk it filled."""
    shutil.rmtree(version_dir(contest, student, folder), ignore_errors=True)


def versions_to_check(engine: Engine) -> list[dict[str, Any]]:
    """Versions waiting for their admission check (oldest first), with the student's name."""
    v, st = db.versions, db.students
    with engine.connect() as conn:
        rows = conn.execute(select(v, st.c.name.label("student")).join(st, v.c.student_id == st.c.id)
                            .where(v.c.state == CHECKING).order_by(v.c.id)).mappings().all()
    return [dict(r) for r in rows]


def active_versions(engine: Engine) -> list[dict[str, Any]]:
    """Every student's active version, with the student's name."""
    v, st = db.versions, db.students
    with engine.connect() as conn:
        rows = conn.execute(select(v, st.c.name.label("student")).join(st, v.c.student_id == st.c.id)
                            .where(v.c.active.is_(True)).order_by(st.c.name)).mappings().all()
    return [dict(r) for r in rows]


def new_block(engine: Engine, kind: str, seats: Sequence[str], rotations: int, contest_name: str,
              requested_by: int | None = None, limit: Limit | None = None) -> int:
    """Store a block (a fresh secret seed) and its ``rotations`` pending matches; return its id.

    ``limit``: asked first, with the student ``requested_by`` locked (:func:`lock_student`).

    Raises:
        OverLimit: ``limit`` refused the block (nothing was written).
    """
    seed = secrets.randbits(256)
    with engine.begin() as conn:
        if limit is not None and requested_by is not None:
            lock_student(conn, requested_by)
            reason = limit(conn)
            if reason:
                raise OverLimit(reason)
        bid = _new_id(conn.execute(insert(db.blocks).values(kind=kind, requested_by=requested_by,
                                                            seats=json.dumps(list(seats)), seed=f"{seed:064x}",
                                                            state=PENDING, created=time.time())))
        for r in range(rotations):
            conn.execute(insert(db.matches).values(block_id=bid, rotation=r, match_id=f"b{bid}-r{r}", state=PENDING,
                                                   error=""))
    return bid


def recover(engine: Engine) -> int:
    """At start-up: matches left running by a stopped server go back to pending (re-run whole); return how many."""
    with engine.begin() as conn:
        n = conn.execute(update(db.matches).where(db.matches.c.state == RUNNING).values(state=PENDING)).rowcount
        conn.execute(update(db.blocks).where(db.blocks.c.state == RUNNING).values(state=PENDING))
    return int(n or 0)


def pending_matches(engine: Engine, first: frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """Pending matches of unfinished blocks: versions' first blocks (``first``: their ids, :func:`tally`), then
    challenges, then oldest block, then rotation."""
    m, b = db.matches, db.blocks
    with engine.connect() as conn:
        rows = conn.execute(select(m.c.id, m.c.block_id, m.c.rotation, m.c.match_id, b.c.seats, b.c.seed, b.c.kind,
                                   b.c.state.label("block_state"))
                            .join(b, m.c.block_id == b.c.id).where(m.c.state == PENDING)
                            .order_by((b.c.kind != "challenge"), b.c.id, m.c.rotation)).mappings().all()
    return sorted((dict(r) for r in rows), key=lambda r: r["block_id"] not in first)  # stable: the rest keep order


def start_match(engine: Engine, match_pk: int) -> None:
    with engine.begin() as conn:
        conn.execute(update(db.matches).where(db.matches.c.id == match_pk).values(state=RUNNING))
        block = conn.execute(select(db.matches.c.block_id).where(db.matches.c.id == match_pk)).scalar()
        conn.execute(update(db.blocks).where(db.blocks.c.id == block, db.blocks.c.state == PENDING)
                     .values(state=RUNNING))


#: Kinds of :func:`seat_faults` that are no fault of the protocol: a decision paid from the time bank.
SLOW = "slow"
#: The kind counting matches a bot was put out of.
OUT = "out"


def seat_faults(result: dict[str, Any], bot: str, slow: int = 0) -> dict[str, int]:
    """A bot's faults in one match result (a ``MatchResult`` dict): its fault counts by kind (timeout,
    malformed, illegal, oversized, crash, disconnected, failed_start: PROTOCOL.md section 7), ``out`` 1 when a
    fault put it out of the match, and ``slow``: its decisions over ``decision_ms`` (given). Kinds at 0 are
    left out."""
    out: dict[str, int] = {}
    for seat, name in enumerate(result["bots"]):
        if name != bot:
            continue
        for kind, n in result["faults"][seat].items():
            out[kind] = out.get(kind, 0) + int(n)
        if result["status"][seat] != "ok":
            out[OUT] = out.get(OUT, 0) + 1
    if slow:
        out[SLOW] = slow
    return {k: v for k, v in out.items() if v}


def is_faulty(faults: dict[str, int]) -> bool:
    """Whether a match's :func:`seat_faults` hold a fault (slow decisions alone are none)."""
    return any(n for kind, n in faults.items() if kind != SLOW)


def finish_match(engine: Engine, match_pk: int, record: dict[str, Any] | None, error: str = "",
                 slow: dict[str, int] | None = None) -> bool:
    """Store a finished match (record, or the error: the block then fails) and close its block when complete.

    ``slow``: per bot, its decisions over ``decision_ms`` (from the hand history), kept with its faults.

    Returns:
        True when the block is now done (its results count from now on).
    """
    m, b = db.matches, db.blocks
    now = time.time()
    with engine.begin() as conn:
        row = conn.execute(select(m.c.block_id, m.c.state).where(m.c.id == match_pk)).first()
        if row is None or row.state == DONE:
            return False  # never counted twice
        conn.execute(update(m).where(m.c.id == match_pk).values(
            state=DONE if record is not None else FAILED, record=json.dumps(record) if record else None,
            error=error, finished=now))
        if record:
            result = record["result"]
            conn.execute(insert(db.match_bots), [
                {"match_pk": match_pk, "bot": bot,
                 "faults": json.dumps(seat_faults(result, bot, (slow or {}).get(bot, 0)))}
                for bot in dict.fromkeys(result["bots"])])
        states = set(conn.execute(select(m.c.state).where(m.c.block_id == row.block_id)).scalars())
        if states == {DONE}:
            conn.execute(update(b).where(b.c.id == row.block_id).values(state=DONE, finished=now))
            return True
        if FAILED in states and not states & {PENDING, RUNNING}:
            conn.execute(update(b).where(b.c.id == row.block_id).values(state=FAILED, finished=now))
    return False


def done_records(engine: Engine) -> list[tuple[int, float, dict[str, Any]]]:
    """``[(block id, finished, record dict)]`` of every match of every complete ladder or challenge block."""
    m, b = db.matches, db.blocks
    with engine.connect() as conn:
        rows = conn.execute(_done_matches(m.c.block_id, b.c.finished, m.c.record)).all()
    return [(r.block_id, r.finished, json.loads(r.record)) for r in rows]


def _done_matches(*columns: Any) -> Any:
    """``columns`` of the matches of complete blocks, in the order blocks finished (then block, rotation)."""
    m, b = db.matches, db.blocks
    return (select(*columns).join(b, m.c.block_id == b.c.id).where(b.c.state == DONE)
            .order_by(b.c.finished, m.c.block_id, m.c.rotation))


def records_of(engine: Engine, bots: Iterable[str]) -> list[dict[str, Any]]:
    """The records of the complete blocks' matches ``bots`` played, in the order of :func:`done_records`."""
    m, mb = db.matches, db.match_bots
    played = select(mb.c.match_pk).where(mb.c.bot.in_(list(bots)))
    with engine.connect() as conn:
        rows = conn.execute(_done_matches(m.c.record).where(m.c.id.in_(played))).scalars().all()
    return [json.loads(r) for r in rows]


def done_count(engine: Engine) -> int:
    """Complete blocks so far (the leaderboard's cache key)."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(db.blocks).where(db.blocks.c.state == DONE))
                   .scalar() or 0)


@dataclass(frozen=True, slots=True)
class Tally:
    """Blocks per entrant as the database has them now (the ladder's schedule reads nothing else).

    Attributes:
        complete: per seat code (``v<version id>`` or ``r<reference>``), its complete blocks.
        given: per seat code, every block it was seated in: complete, failed or still under way.
        first: ids of the blocks that are some student version's first block (its lowest block id).
    """

    complete: dict[str, int]
    given: dict[str, int]
    first: frozenset[int]


def tally(engine: Engine) -> Tally:
    """Count the blocks of every entrant (ladder and challenge blocks alike), from the blocks table."""
    b = db.blocks
    complete: dict[str, int] = {}
    given: dict[str, int] = {}
    first: set[int] = set()
    with engine.connect() as conn:
        rows = conn.execute(select(b.c.id, b.c.seats, b.c.state).order_by(b.c.id)).all()
    for bid, seats, state in rows:
        for code in set(json.loads(seats)):
            if code.startswith("v") and code not in given:
                first.add(bid)
            given[code] = given.get(code, 0) + 1
            if state == DONE:
                complete[code] = complete.get(code, 0) + 1
    return Tally(complete, given, frozenset(first))


def blocks_key(engine: Engine) -> tuple[int, int, int]:
    """``(newest block id, complete blocks, failed blocks)``: changes whenever :func:`tally` would."""
    b = db.blocks
    with engine.connect() as conn:
        row = conn.execute(select(func.max(b.c.id), func.count().filter(b.c.state == DONE),
                                  func.count().filter(b.c.state == FAILED))).one()
    return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)


def open_blocks(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(db.blocks)
                                .where(db.blocks.c.state.in_((PENDING, RUNNING)))).scalar() or 0)


def challenges_since(engine: Engine | Connection, student_id: int, since: float) -> int:
    """Challenges the student asked for since the time ``since``; ``engine``: or a transaction's connection."""
    with _connected(engine) as conn:
        return int(conn.execute(select(func.count()).select_from(db.blocks).where(
            db.blocks.c.kind == "challenge", db.blocks.c.requested_by == student_id,
            db.blocks.c.created >= since)).scalar() or 0)


def fault_totals(engine: Engine, bots: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
    """``{bot: {kind: count}}`` over every stored match result (:func:`seat_faults`), of ``bots`` or all."""
    mb = db.match_bots
    query = select(mb.c.bot, mb.c.faults).where(mb.c.faults != "{}")
    if bots is not None:
        query = query.where(mb.c.bot.in_(list(bots)))
    totals: dict[str, dict[str, int]] = {}
    with engine.connect() as conn:
        for bot, faults in conn.execute(query).all():
            mine = totals.setdefault(bot, {})
            for kind, n in json.loads(faults).items():
                mine[kind] = mine.get(kind, 0) + int(n)
    return totals


def faulty_streak(engine: Engine, bot: str, blocks: int) -> bool:
    """Whether each of the last ``blocks`` finished blocks (complete or failed) ``bot`` played had a fault of
    its (:func:`is_faulty`) in one of its matches; False with fewer blocks than that."""
    m, b, mb = db.matches, db.blocks, db.match_bots
    with engine.connect() as conn:
        last = conn.execute(select(b.c.id).join(m, m.c.block_id == b.c.id).join(mb, mb.c.match_pk == m.c.id)
                            .where(mb.c.bot == bot, b.c.state.in_((DONE, FAILED)))
                            .group_by(b.c.id).order_by(b.c.id.desc()).limit(blocks)).scalars().all()
        if len(last) < blocks:
            return False
        rows = conn.execute(select(m.c.block_id, mb.c.faults).join(mb, mb.c.match_pk == m.c.id)
                            .where(mb.c.bot == bot, m.c.block_id.in_(last))).all()
    faulty = {bid for bid, faults in rows if is_faulty(json.loads(faults))}
    return faulty >= set(last)


def pause(engine: Engine, version_id: int, reason: str) -> None:
    """Pause a version (the ladder gives it no more blocks; its open ones finish): ``reason`` says why."""
    with engine.begin() as conn:
        conn.execute(update(db.versions).where(db.versions.c.id == version_id).values(paused=reason))


def resume(engine: Engine, version_id: int) -> bool:
    """Let a paused version play again; False if there is no such version."""
    with engine.begin() as conn:
        n = conn.execute(update(db.versions).where(db.versions.c.id == version_id).values(paused="")).rowcount
    return bool(n)


def paused_versions(engine: Engine) -> list[dict[str, Any]]:
    """Every paused admitted version (``id``, ``student``, ``number``, ``paused``, ``active``), oldest first."""
    v, st = db.versions, db.students
    with engine.connect() as conn:
        rows = conn.execute(select(v.c.id, v.c.number, v.c.paused, v.c.active, st.c.name.label("student"))
                            .join(st, v.c.student_id == st.c.id).where(v.c.paused != "").order_by(v.c.id)
                            ).mappings().all()
    return [dict(r) for r in rows]


def block_state(engine: Engine, block_id: int) -> str | None:
    """A block's state (None: no such block)."""
    with engine.connect() as conn:
        return conn.execute(select(db.blocks.c.state).where(db.blocks.c.id == block_id)).scalar()


def block_seats(engine: Engine, block_id: int) -> list[str]:
    """A block's seat codes (``v<version id>``, ``r<reference>``; [] for no such block)."""
    with engine.connect() as conn:
        seats = conn.execute(select(db.blocks.c.seats).where(db.blocks.c.id == block_id)).scalar()
    return json.loads(seats) if seats else []


def match_faults(engine: Engine, match_pk: int) -> dict[str, dict[str, int]]:
    """``{bot: faults}`` of one stored match (:func:`seat_faults`; {} before its result is stored)."""
    mb = db.match_bots
    with engine.connect() as conn:
        rows = conn.execute(select(mb.c.bot, mb.c.faults).where(mb.c.match_pk == match_pk)).all()
    return {bot: json.loads(faults) for bot, faults in rows}


def block_kinds(engine: Engine, block_ids: Iterable[int]) -> dict[int, str]:
    """``{block id: kind}`` (ladder, challenge) of the blocks named."""
    ids = list(set(block_ids))
    if not ids:
        return {}
    with engine.connect() as conn:
        return dict(conn.execute(select(db.blocks.c.id, db.blocks.c.kind).where(db.blocks.c.id.in_(ids))).all())


def pending_challenges(engine: Engine, student_id: int) -> list[dict[str, Any]]:
    """The student's challenges not finished yet (``id``, ``seats``, ``state`` pending or running, ``created``),
    oldest first."""
    b = db.blocks
    with engine.connect() as conn:
        rows = conn.execute(select(b.c.id, b.c.seats, b.c.state, b.c.created)
                            .where(b.c.kind == "challenge", b.c.requested_by == student_id,
                                   b.c.state.in_((PENDING, RUNNING))).order_by(b.c.id)).mappings().all()
    return [dict(r) | {"seats": json.loads(r["seats"])} for r in rows]


def seat_names(engine: Engine, references: Iterable[str], codes: Iterable[str]) -> dict[str, str]:
    """``{seat code: bot name}``: ``v<id>`` as ``<student>.v<N>``, ``r<name>`` as the reference's name."""
    wanted = list(codes)
    ids = [int(c[1:]) for c in wanted if c.startswith("v") and c[1:].isdigit()]
    v, st = db.versions, db.students
    with engine.connect() as conn:
        rows = conn.execute(select(v.c.id, v.c.number, st.c.name).join(st, v.c.student_id == st.c.id)
                            .where(v.c.id.in_(ids))).all() if ids else []
    names = {f"v{vid}": label(name, number) for vid, number, name in rows}
    refs = set(references)
    names.update({c: c[1:] for c in wanted if c.startswith("r") and c[1:] in refs})
    return names


def student_stamp(engine: Engine, name: str) -> tuple[Any, ...] | None:
    """What a student's page shows from the database, in one short look (its entity tag,
    :mod:`harness.server.etag`): each version's id, number, state, reason, active and paused; how many of their
    bots' matches are stored and the newest (the faults); their challenges not finished yet. None: no such
    student."""
    v, st, mb, b = db.versions, db.students, db.match_bots, db.blocks
    with engine.connect() as conn:
        sid = conn.execute(select(st.c.id).where(st.c.name == name)).scalar()
        if sid is None:
            return None
        vers = conn.execute(select(v.c.id, v.c.number, v.c.state, v.c.reason, v.c.active, v.c.paused)
                            .where(v.c.student_id == sid).order_by(v.c.id)).all()
        labels = [label(name, number) for _, number, *_ in vers]
        played = tuple(conn.execute(select(func.count(), func.max(mb.c.match_pk)).where(mb.c.bot.in_(labels)))
                       .one()) if labels else (0, None)
        pending = conn.execute(select(b.c.id, b.c.state).where(
            b.c.kind == "challenge", b.c.requested_by == sid, b.c.state.in_((PENDING, RUNNING)))
            .order_by(b.c.id)).all()
    return sid, tuple(tuple(r) for r in vers), played, tuple(tuple(r) for r in pending)


def admin_stamp(engine: Engine) -> tuple[Any, ...]:
    """What the admin page shows from the database, in one short look (its entity tag): the roster, the active
    and the paused versions, the newest version, how many match results are stored and the newest (faults, the
    final's time per hand), and every setting (the final's state, the ladder's error) but the ladder's job-slot
    seconds, which it rewrites every few seconds while it plays: the page fetches those itself (``/admin/slots``)."""
    v, st, mb = db.versions, db.students, db.match_bots
    with engine.connect() as conn:
        people = conn.execute(select(st.c.id, st.c.name, st.c.email).order_by(st.c.id)).all()
        shown = conn.execute(select(v.c.id, v.c.number, v.c.active, v.c.paused)
                             .where(v.c.state == ADMITTED, (v.c.active.is_(True)) | (v.c.paused != ""))
                             .order_by(v.c.id)).all()
        newest = conn.execute(select(func.max(v.c.id))).scalar()
        played = tuple(conn.execute(select(func.count(), func.max(mb.c.match_pk))).one())
        values = conn.execute(select(db.settings.c.key, db.settings.c.value).where(db.settings.c.key != "ladder_slots")
                              .order_by(db.settings.c.key)).all()
    return (tuple(tuple(r) for r in people), tuple(tuple(r) for r in shown), newest, played,
            tuple(tuple(r) for r in values))
