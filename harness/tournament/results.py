"""The results store of one tournament output directory.

Layout::

    <out>/.harness-tournament       marker: this harness made the directory (nothing else is touched)
    <out>/tournament.json           the current plan: each match's id and fingerprint, bots, big blind
    <out>/entries.json              the entry check of each bot (harness.tournament.entries)
    <out>/results.jsonl             one MatchRecord per match of a complete table (append-only)
    <out>/matches/<match_id>/       hands.jsonl.gz (or hands.jsonl: one name while it is written) and logs/,
                                    once every match dealt the same cards is recorded
    <out>/.private/matches/<id>/    mode 0700: the same, while a match dealt the same cards is unplayed
    <out>/.private/results.jsonl    the records of those matches (append-only)
    <out>/leaderboard.{md,csv}      written by harness.tournament.leaderboard
    <out>/.lock                     flock(2)ed by the run using the directory (holds its pid)

Ownership: an output directory must be missing, empty, or carry the marker
file; anything else (the user's own files, a directory of an older harness)
is refused by :func:`check_out_dir` before anything is written.

Crash safety: a record is appended with one ``write`` followed by ``flush``
and ``os.fsync``, only after the match's hand history is itself on disk. A
torn last line (the process died mid-write) is cut off when the store is
opened, so every line in the file is a complete match and none is counted
twice. A match directory without a record is a partial match: it is deleted
and the match is replayed from scratch. Records of matches that are no longer
in the plan (a bot changed, left or was added) stay in the file and their
directories on disk; readers count only the records the plan names.

Secret deals: the rotations of a duplicate table share their deals, so a
finished rotation's seed, hand results (``hand_nets`` says who won each
deal), hands and logs (a bot's stderr may print its cards) give the table's
remaining rotations away. Until every match of its table is recorded, a
match is played and kept under ``<out>/.private/`` (mode 0700: no other
user reads it): its directory in ``.private/matches/``, its record appended
to ``.private/results.jsonl`` (:meth:`ResultsStore.append` with ``pending``).
When the table's last match is recorded, :meth:`ResultsStore.publish`
appends the table's records to ``results.jsonl`` and moves its directories
to ``matches/``. ``tournament.json`` holds each match's fingerprint from the
start (a SHA-256 over its seed among the rest: the commitment), and every
record its seed's SHA-256 (``seed_sha256``); the tournament seed is revealed
in ``seed.json`` after the last match (:mod:`harness.tournament.seeds`). A
run that stopped in between publishes when it resumes
(:func:`harness.tournament.runner.run_tournament`). Readers of
``results.jsonl`` (leaderboard, report, replay) see complete tables only;
:func:`read_results` with ``pending`` adds the private records (the runner's
and ``harness plan``'s view of what is done).

One run at a time: :meth:`ResultsStore.open` takes an exclusive, non-blocking
``flock`` on ``<out>/.lock`` and keeps it until :meth:`ResultsStore.close`
(or the process ends; the kernel drops the lock of a killed process, so a
stale lock file never blocks a resume).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.deals import commitment
from harness.engine.config import MAX_TABLE, MIN_PLAYERS
from harness.errors import HarnessError
from harness.history.files import HANDS_FILE as HANDS_FILE  # re-exported: the plain history's name
from harness.history.files import find_history, read_history
from harness.match.outdir import StorageError, storage_errno
from harness.specs import BOT_NAME, BOT_NAME_RULE, MatchResult

# How the schedule names tables (harness.tournament.schedule.table_name; not imported: it imports the plan).
_SEAT_SEPARATOR = "+"
_INSTANCE_SEPARATOR = "~"

RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "tournament.json"
MATCHES_DIR = "matches"
#: Mode-0700 directory of the matches whose deals are still to be played elsewhere (see the module doc).
PRIVATE_DIR = ".private"
#: The records of those matches, under :data:`PRIVATE_DIR`.
PENDING_FILE = "results.jsonl"
LOCK_FILE = ".lock"
MARKER_FILE = ".harness-tournament"
#: Content of the marker file (JSON); ``format`` is the layout version of the directory.
MARKER = {"made_by": "sevencard-harness", "kind": "tournament output directory", "format": 3}


class ResultsError(HarnessError, ValueError):
    """The output directory cannot be used: corrupt results, or another tournament's."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One line of ``results.jsonl``: a finished match and where it sits in the plan.

    Attributes:
        table: the table's name (:attr:`harness.tournament.schedule.ScheduledMatch.table`):
            the duplicate set the match belongs to.
        rotation: the table's seat rotation this match played.
        unit: the big blind in chips, or min_bet in an ante-only game (R2.5): the "bb" of bb/100
            (:attr:`harness.engine.GameConfig.unit`; stored as ``big_blind`` in the line).
        result: what the referee returned.
        rotations: matches of the table in the plan (k with duplicate, else 1).
        fingerprint: the match's fingerprint (:mod:`harness.tournament.plan`).
        freezeout_stack: the starting stack in chips when stacks carry over (a
            freezeout), else None. Not stored in the line: the leaderboard reads it
            from the plan's settings in ``tournament.json``
            (:func:`harness.tournament.stats.set_deals` needs it to tell who was seated).
        seed_sha256: SHA-256 of the match seed (:func:`harness.deals.commitment`);
            "" in records of older versions.
    """

    table: str
    rotation: int
    unit: int
    result: MatchResult
    rotations: int = 1
    fingerprint: str = ""
    freezeout_stack: int | None = None
    seed_sha256: str = field(default="", compare=False)

    @property
    def commitment(self) -> str:
        """SHA-256 of the match seed: ``seed_sha256``, else computed from the seed."""
        if self.seed_sha256:
            return self.seed_sha256
        return commitment(self.result.seed)

    @property
    def match_id(self) -> str:
        """The match id (``result.match_id``)."""
        return self.result.match_id

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready line."""
        return {
            "match_id": self.result.match_id,
            "table": self.table,
            "rotation": self.rotation,
            "rotations": self.rotations,
            "fingerprint": self.fingerprint,
            "big_blind": self.unit,
            "seed_sha256": self.commitment,
            "result": self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchRecord:
        """Rebuild from :meth:`to_dict` output. Raises KeyError/TypeError/ValueError on a bad dict."""
        table = data["table"]
        if not isinstance(table, (str, int)) or isinstance(table, bool):
            raise TypeError(f"table must be a name, got {table!r}")
        return cls(
            table=str(table),
            rotation=int(data["rotation"]),
            unit=int(data["big_blind"]),
            result=MatchResult.from_dict(data["result"]),
            rotations=int(data.get("rotations", 1)),
            fingerprint=str(data.get("fingerprint", "")),
            seed_sha256=str(data.get("seed_sha256", "")),
        )

    def to_match_folder(self) -> dict[str, Any]:
        """The ``result.json`` of a ``harness match`` or ``harness play`` folder: the result's fields and
        ``big_blind`` (the unit); one match alone, so no table, rotation or fingerprint."""
        return {**self.result.to_dict(), "big_blind": self.unit}

    @classmethod
    def from_match_folder(cls, data: Mapping[str, Any]) -> MatchRecord:
        """Rebuild from :meth:`to_match_folder` output (its table: the match id; rotation 0).

        Raises:
            KeyError, TypeError, ValueError: not such a dict.
        """
        result = MatchResult.from_dict(data)
        return cls(table=result.match_id, rotation=0, unit=int(data["big_blind"]), result=result)


def _fsync_dir(path: Path) -> None:
    """fsync a directory so a rename or new file in it survives a machine stop."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    """Flush a file written by another process (the referee's hand history) to disk."""
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


@dataclass(slots=True)
class StoredResults:
    """What :func:`read_results` found in ``results.jsonl``.

    Attributes:
        records: complete records, first record per match id, in file order.
        notices: things a reader should be told but that do not stop it
            (a torn last line left out, a duplicate record ignored).
        pending: ids of the records read from ``.private/results.jsonl`` only (``pending=True``):
            matches of tables not complete yet, not in ``results.jsonl``.
    """

    records: list[MatchRecord] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    pending: set[str] = field(default_factory=set)

    def published(self) -> StoredResults:
        """What ``results.jsonl`` holds: these results without the :attr:`pending` ones."""
        return StoredResults([r for r in self.records if r.match_id not in self.pending], list(self.notices))


def _check_dir(out_dir: Path) -> None:
    if not out_dir.exists():
        raise ResultsError(f"{out_dir}: no such directory; give a tournament output directory, e.g. results/league")
    if not out_dir.is_dir():
        raise ResultsError(f"{out_dir}: not a directory; give a tournament output directory, e.g. results/league")


def is_ours(out_dir: Path) -> bool:
    """True when ``out_dir`` carries this harness's marker file."""
    return (Path(out_dir) / MARKER_FILE).is_file()


def check_out_dir(out_dir: Path, option: str = "--out") -> None:
    """Refuse an output directory that is not ours, before anything is written in it.

    A missing path, an empty directory or a directory with the marker file is fine.

    Raises:
        ResultsError: one line naming the directory, what is in it and what is allowed.
    """
    out_dir = Path(out_dir)
    for parent in (out_dir, *out_dir.parents):
        if parent.exists() and not parent.is_dir():
            raise ResultsError(f"{option} {out_dir}: {parent} is a file, not a directory; give a directory path")
        if parent.exists():
            break
    if not out_dir.exists() or is_ours(out_dir):
        return
    try:
        names = sorted(os.listdir(out_dir))
    except OSError as exc:
        raise ResultsError(f"{option} {out_dir}: cannot read the directory ({exc.strerror})") from None
    if not names:
        return
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    older = " (it looks like the output of an older harness version)" if MANIFEST_FILE in names else ""
    raise ResultsError(
        f"{option} {out_dir}: the directory holds files this harness did not make ({shown}){older}; "
        "expected a new or empty directory, or one made by `harness run`; nothing was changed"
    )


def read_results(out_dir: Path, *, pending: bool = False) -> StoredResults:
    """Read every complete record of ``<out_dir>/results.jsonl`` (read-only), with notices.

    ``pending``: also the records of tables not complete yet (``.private/results.jsonl``,
    after the published ones; see the module doc).

    A torn last line (a run killed mid-write) is left out with a notice; a
    duplicate match id keeps its first record.

    Raises:
        ResultsError: no such directory, no results file, or a damaged line
            (not a record, nets that do not add up, bots that are not those of
            its table) other than a torn last line.
    """
    out_dir = Path(out_dir)
    _check_dir(out_dir)
    path = out_dir / RESULTS_FILE
    if not path.is_file():
        raise ResultsError(f"{path}: no results file; is {out_dir} a tournament output directory?")
    records: dict[str, MatchRecord] = {}
    notices: list[str] = []
    private: set[str] = set()
    for where in (path, out_dir / PRIVATE_DIR / PENDING_FILE) if pending else (path,):
        if where is not path and not where.is_file():
            continue
        data = where.read_bytes()
        found, complete, more = _parse(data, where)
        notices += more
        for match_id, record in found.items():
            if match_id not in records and where is not path:
                private.add(match_id)
            records.setdefault(match_id, record)
        if complete < len(data) and data[complete:].strip():
            line = data[:complete].count(b"\n") + 1
            notices.append(
                f"{where}, line {line}: incomplete last line (a run was stopped while writing it) left out; "
                "`harness run` with the same file and --out replays that match"
            )
    return StoredResults(list(records.values()), notices, private)


def read_records(out_dir: Path, *, pending: bool = False) -> list[MatchRecord]:
    """Read every complete record of ``<out_dir>/results.jsonl``; see :func:`read_results`."""
    return read_results(out_dir, pending=pending).records


def read_manifest(out_dir: Path) -> dict[str, Any]:
    """Read ``<out_dir>/tournament.json`` ({} when there is none).

    Raises:
        ResultsError: no such directory, or the file is not a JSON object (naming the file).
    """
    out_dir = Path(out_dir)
    _check_dir(out_dir)
    path = out_dir / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise ResultsError(f"{path}: unreadable ({exc}); restore it, or delete it to recompute without it") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: expected a JSON object; restore it, or delete it to recompute without it")
    return data


def check_record(record: MatchRecord) -> None:
    """Check that a record's numbers add up (chips are conserved: every hand's nets sum to zero).

    Raises:
        ValueError: a per-seat list of the wrong length, a hand whose nets do
            not sum to zero, a ``net`` that is not the sum of ``hand_nets``,
            ``hands_played`` different from the number of hands, ``deals`` that
            are not one distinct deal per hand on its button's seat
            (:func:`harness.deals.deal_of`), or a ``seed_sha256`` that is not its seed's.
    """
    res = record.result
    n = len(res.bots)
    if not MIN_PLAYERS <= n <= MAX_TABLE or len(set(res.bots)) != n:  # the record does not name its game
        raise ValueError(f"bots {res.bots} must be distinct names, one per seat (R1.2, R6.8: a table of any game "
                         f"seats {MIN_PLAYERS} to {MAX_TABLE} players, got {n})")
    for name in res.bots:
        if not isinstance(name, str) or not BOT_NAME.match(name):
            raise ValueError(f"bot name {name!r} is not a bot name ({BOT_NAME_RULE})")
    for name, values in (("net", res.net), ("faults", res.faults), ("status", res.status)):
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} entries for {n} bots")
    if res.hands_played != len(res.hand_nets):
        raise ValueError(f"hands_played is {res.hands_played} but hand_nets has {len(res.hand_nets)} hands")
    for h, row in enumerate(res.hand_nets):
        if len(row) != n or sum(row) != 0:
            raise ValueError(f"hand {h}: nets {row} do not sum to zero over {n} seats")
    if res.deals is not None:
        if len(res.deals) != res.hands_played or len(set(res.deals)) != len(res.deals):
            raise ValueError(f"deals: {len(res.deals)} numbers ({len(set(res.deals))} distinct) for "
                             f"{res.hands_played} hands; one distinct deal per hand")
        wrong = next((h for h, d in enumerate(res.deals) if d < 0 or d % n != h % n), None)
        if wrong is not None:
            raise ValueError(f"deals: hand {wrong} dealt deal {res.deals[wrong]}, not a deal of its button's seat "
                             f"(deal % {n} must be {wrong % n})")
    if sum(res.net) != 0:
        raise ValueError(f"net {res.net} does not sum to zero")
    totals = [sum(row[s] for row in res.hand_nets) for s in range(n)]
    if totals != list(res.net):
        raise ValueError(f"net {res.net} is not the sum of its hands {totals}")
    if record.unit < 1:
        raise ValueError(f"big_blind must be >= 1, got {record.unit}")
    if record.seed_sha256 and record.seed_sha256 != commitment(res.seed):
        raise ValueError("seed_sha256 is not the SHA-256 of its seed")


def _parse(data: bytes, path: Path) -> tuple[dict[str, MatchRecord], int, list[str]]:
    """Parse the results file; return records by match id, the length of the complete part, notices."""
    records: dict[str, MatchRecord] = {}
    tables: dict[str, tuple[int, MatchRecord]] = {}  # the first record of each table, with its line
    notices: list[str] = []
    complete = data.rfind(b"\n") + 1  # bytes after the last newline are a torn write
    for number, line in enumerate(data[:complete].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = MatchRecord.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ResultsError(
                f"{path}, line {number}: not a match record ({type(exc).__name__}: {exc}); "
                "the file was edited or damaged; fix or remove that line"
            ) from None
        try:
            check_record(record)
        except ValueError as exc:
            raise ResultsError(
                f"{path}, line {number}: match {record.match_id}: {exc}; "
                "the file was edited or damaged; fix or remove that line"
            ) from None
        if record.match_id in records:
            notices.append(f"{path}, line {number}: a second record of match {record.match_id}; the first one counts")
            continue
        problem = _table_problem(record, tables.setdefault(record.table, (number, record)))
        if problem:
            raise ResultsError(
                f"{path}, line {number}: match {record.match_id}: {problem}; "
                "the file was edited or damaged; fix or remove that line"
            )
        records[record.match_id] = record
    return records, complete, notices


def _table_problem(record: MatchRecord, first: tuple[int, MatchRecord]) -> str | None:
    """Why ``record`` cannot belong to its table (None when it can).

    A table named by the schedule (``"a+b"``, ``"a+b~2"``: its bots, sorted) seats exactly those
    bots; every match of one table seats the same bots at the same big blind (the first
    record of the table, at line ``first[0]``, is the reference).
    """
    bots = sorted(record.result.bots)
    if _SEAT_SEPARATOR in record.table:
        named = sorted(record.table.split(_INSTANCE_SEPARATOR)[0].split(_SEAT_SEPARATOR))
        if named != bots:
            return f"its bots {record.result.bots} are not those of its table {record.table}"
    line, other = first
    if other is not record and (sorted(other.result.bots) != bots or other.unit != record.unit):
        return (f"its bots {record.result.bots} (big blind {record.unit}) differ from those of the other "
                f"matches of table {record.table} (line {line}: {other.result.bots}, big blind {other.unit})")
    return None


def lock_out_dir(out_dir: Path) -> int:
    """Take ``<out_dir>/.lock`` (an exclusive, non-blocking ``flock``, holding this pid) for one run.

    The one lock of a harness output directory (a tournament's, an ``harness sprt`` test's): held until the
    returned descriptor is closed or the process ends (the kernel drops the lock of a killed process, so a stale
    lock file never blocks a resume); forked workers share it.

    Args:
        out_dir: an existing directory.

    Returns:
        The descriptor that holds the lock: ``os.close`` it to release.

    Raises:
        ResultsError: another run holds it (names its pid), or the lock file cannot be made.
    """
    path = out_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ResultsError(f"cannot create {path} ({exc.strerror}); is {out_dir} writable?") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise ResultsError(f"cannot lock {path} ({exc.strerror})") from None
        raise ResultsError(
            f"{out_dir} is in use by another harness run (pid {holder}); wait for it to end, or use another --out"
        ) from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    return fd


class ResultsStore:
    """Append-only match records plus per-match directories under one output directory."""

    def __init__(self, out_dir: Path) -> None:
        """Use ``out_dir`` (created on :meth:`open`)."""
        self.out_dir = Path(out_dir)
        self.results_path = self.out_dir / RESULTS_FILE
        self.pending_path = self.out_dir / PRIVATE_DIR / PENDING_FILE
        self.manifest_path = self.out_dir / MANIFEST_FILE
        self._lock_fd: int | None = None
        self._published: set[str] = set()  # match ids in results.jsonl

    def _make_dir(self) -> None:
        """Create the output directory and its marker, turning OS errors into a message about ``--out``.

        Raises:
            ResultsError: the directory is not ours (:func:`check_out_dir`) or cannot be created.
        """
        check_out_dir(self.out_dir)
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            marker = self.out_dir / MARKER_FILE
            if not marker.exists():
                marker.write_text(json.dumps(MARKER) + "\n", encoding="utf-8")
            (self.out_dir / MATCHES_DIR).mkdir(exist_ok=True)
            private = self.out_dir / PRIVATE_DIR
            private.mkdir(mode=0o700, exist_ok=True)
            os.chmod(private, 0o700)  # whatever the umask or an earlier version made of it
        except OSError as exc:
            if isinstance(exc, (FileExistsError, NotADirectoryError)) or exc.errno in (errno.EEXIST, errno.ENOTDIR):
                blocker = next(
                    (p for p in (self.out_dir, *self.out_dir.parents) if p.exists() and not p.is_dir()), self.out_dir
                )
                why = f"{blocker} is a file, not a directory"
            else:
                why = exc.strerror or str(exc)
            raise ResultsError(
                f"cannot use {self.out_dir} as the output directory: {why}; "
                "give --out (or [tournament] output) a directory path"
            ) from None

    def _lock(self) -> None:
        """Take ``<out>/.lock`` for this process (and its forked workers) until :meth:`close`.

        Raises:
            ResultsError: another run holds it.
        """
        self._lock_fd = lock_out_dir(self.out_dir)

    def lock(self) -> None:
        """Create the directory and take its lock for this run (idempotent; :meth:`open` calls it).

        Raises:
            ResultsError: the path is not a usable directory, or another run holds it.
        """
        if self._lock_fd is None:
            self._make_dir()
            self._lock()

    def close(self) -> None:
        """Release the directory lock (idempotent)."""
        if self._lock_fd is not None:
            fd, self._lock_fd = self._lock_fd, None
            os.close(fd)  # closing the last descriptor drops the flock

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> dict[str, MatchRecord]:
        """Create or reopen the directory (marker, lock) and return the records it holds.

        Returns:
            The records already stored, by match id (of any plan: the caller keeps those it plans).

        Raises:
            ResultsError: the path is not a usable directory or not ours, another
                run holds it, or ``results.jsonl`` is damaged before its last line.
        """
        self.lock()
        try:
            return self._open()
        except BaseException:
            self.close()
            raise

    def previous_manifest(self) -> dict[str, Any] | None:
        """The ``tournament.json`` an earlier run wrote (None if there is none or it is unreadable)."""
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_manifest(self, manifest: Mapping[str, Any]) -> None:
        """Replace ``tournament.json`` atomically (written, fsynced, renamed)."""
        write_json_atomic(self.manifest_path, manifest)

    def _open(self) -> dict[str, MatchRecord]:
        records: dict[str, MatchRecord] = {}
        for path in (self.results_path, self.pending_path):
            if not path.exists():
                path.touch()
                _fsync_dir(path.parent)
                continue
            data = path.read_bytes()
            found, complete, _ = _parse(data, path)
            if complete < len(data):
                # Cut the torn tail so the next append starts on a fresh line.
                with open(path, "rb+") as fh:
                    fh.truncate(complete)
                    os.fsync(fh.fileno())
            if path == self.results_path:
                self._published = set(found)
            for match_id, record in found.items():
                records.setdefault(match_id, record)  # a published record first
        return records

    def append(self, record: MatchRecord, *, pending: bool = False) -> None:
        """Append one record durably (one write, flush, fsync).

        ``pending``: to ``.private/results.jsonl``, its table having a match to play
        (the runner; :meth:`publish` copies it to ``results.jsonl`` later).

        Raises:
            harness.match.outdir.StorageError: the disk takes no more data (full, read-only, ...);
                a partly written line is cut off again, so the records before it stay whole.
            OSError: any other failure to write.
        """
        path = self.pending_path if pending else self.results_path
        self._append_line(path, record.to_dict())
        if not pending:
            self._published.add(record.match_id)

    def _append_line(self, path: Path, data: Mapping[str, Any]) -> None:
        line = (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644 if path == self.results_path else 0o600)
        try:
            size = os.fstat(fd).st_size
            try:
                view = memoryview(line)
                while view:  # unbuffered: nothing is left to flush (and fail again) at close
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError as exc:
                code = storage_errno(exc)
                try:
                    os.ftruncate(fd, size)
                except OSError:  # the next run cuts a torn last line when it opens the file
                    pass
                if code is None:
                    raise
                raise StorageError(path, code) from None
        finally:
            os.close(fd)

    def match_dir(self, match_id: str) -> Path:
        """Return ``<out>/matches/<match_id>`` (where a match's files are published)."""
        return self.out_dir / MATCHES_DIR / match_id

    def private_dir(self, match_id: str) -> Path:
        """Return ``<out>/.private/matches/<match_id>``: where a match is played and kept until its table's reveal."""
        return private_match_dir(self.out_dir, match_id)

    def fresh_match_dir(self, match_id: str) -> Path:
        """Delete what an earlier or partial run left of a match (published or not); return its empty private dir."""
        for path in (self.match_dir(match_id), self.private_dir(match_id)):
            if path.exists():
                shutil.rmtree(path)
        path = self.private_dir(match_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir()
        return path

    def publish(self, records: Sequence[MatchRecord]) -> None:
        """Publish matches whose deals are all played: records to ``results.jsonl``, directories to ``matches/``.

        Args:
            records: every match of a complete table (those already published are skipped,
                so a run that stopped half-way through a publication completes it).

        Raises:
            harness.match.outdir.StorageError, OSError: as :meth:`append`; the next call does the rest.
        """
        for record in records:
            if record.match_id not in self._published:
                self.append(record)
        moved = False
        for match_id in (r.match_id for r in records):
            private, public = self.private_dir(match_id), self.match_dir(match_id)
            if private.exists():
                if public.exists():
                    shutil.rmtree(public)
                public.parent.mkdir(exist_ok=True)
                os.replace(private, public)
                moved = True
        if moved:
            _fsync_dir(self.out_dir / MATCHES_DIR)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` through a fsynced temporary file and a rename (never half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def private_match_dir(out_dir: Path, match_id: str) -> Path:
    """``<out>/.private/matches/<match_id>``: a match's files before its table's reveal (mode 0700 above it)."""
    return Path(out_dir) / PRIVATE_DIR / MATCHES_DIR / match_id


def match_files(out_dir: Path, match_id: str) -> Path:
    """The directory holding a match's files: ``matches/<id>`` once published, else its private one."""
    public = Path(out_dir) / MATCHES_DIR / match_id
    private = private_match_dir(out_dir, match_id)
    return private if not public.exists() and private.exists() else public


def hand_history_path(match_dir: Path) -> Path | None:
    """Return the match's hand history (``hands.jsonl`` or ``hands.jsonl.gz``), or None."""
    return find_history(match_dir)


def read_hands(path: Path) -> list[dict[str, Any]]:
    """Read a hand history (JSON Lines, plain or gzip) into a list of records.

    Raises:
        harness.history.files.HistoryError: the file is not a hand history.
    """
    return list(read_history(path))
