"""Hand histories: one JSON object per line, one line per hand (JSON Lines).

The format is documented field by field in docs/HISTORY.md, with a JSON
Schema in docs/hand-history.schema.json. Every record carries
``record_version``:

- **2** (written by this harness): the record of
  :mod:`harness.history.record`, standing alone: the match (bots by match
  seat, stack mode, starting stack, limits, the match seed's SHA-256), the
  game settings that apply, players, posts, every decision with its chips
  and who made it, draws, faults, pots, returned chips;
- **1** (the first releases): the engine's record
  (:func:`harness.history.v1.build_record`) plus the referee's keys
  ``match_id``, ``bots`` and ``match_seats`` by hand seat, ``timings_ms``
  (``[hand seat, ms]`` per decision) and ``faults`` (``{"seat": hand seat,
  "kind", "detail"}``).

Readers see one shape: :func:`numbered_records` and :func:`read_history`
upgrade a version-1 record to the current version (3) as they read it
(:func:`harness.history.v1.upgrade`); only :func:`numbered_lines` (for
``harness replay``, which checks each record as written) yields records as
they are in the file.

A match writes ``hands.jsonl``, or ``hands.jsonl.gz`` compressed as it is
written (:func:`history_name`); the name never changes while it runs and
:class:`HistoryTail` follows either while it grows. The reader recognises
gzip data by its content. :func:`read_history` and :func:`record_problem`
turn a file that is not a hand history into a :class:`HistoryError` naming
the file, the line and the field, never a Python exception.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

import orjson

from harness.engine.errors import ReplayError
from harness.errors import HarnessError
from harness.history.shape import READ_VERSIONS as READ_VERSIONS  # re-exported: the versions read
from harness.history.shape import REQUIRED_KEYS as REQUIRED_KEYS
from harness.history.shape import json_kind as json_kind
from harness.history.shape import record_problem as record_problem
from harness.history.shape import record_version as record_version
from harness.history.v1 import upgrade

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _dump_line(record: dict[str, Any]) -> bytes:
    """One record as a compact UTF-8 JSON line (orjson: about 10x faster than json here)."""
    try:
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # e.g. an int beyond 64 bits: the standard library copes
        return (_dumps(record) + "\n").encode("utf-8")


class HistoryError(HarnessError, ValueError):
    """A file (or one of its lines) that is not a readable hand history.

    Attributes:
        path: the file.
        line: 1-based line number where the problem is (None: the whole file).
        problem: what is wrong, in words (never a Python exception name).
        cut_off: True when the file is a hand history that ends early (a
            truncated ``.gz`` or a last line without its end), False when
            the content is not a hand history at all.
        at_end: True when the problem is where the file stops, as in a file
            still being written: its last line, without a final newline, is
            not a whole record yet, or compressed data stops early. Any other
            problem (a line followed by more, or ending in a newline) is damage.
        can_go_on: True when the lines after this one can still be read (a
            damaged line of plain or still-decodable text), False when reading
            stops here (damaged compressed data, or the file's end).
    """

    def __init__(self, path: Path | str, line: int | None, problem: str, *, cut_off: bool = False,
                 at_end: bool = False, can_go_on: bool = True) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.cut_off = cut_off
        self.at_end = at_end
        self.can_go_on = can_go_on and not at_end
        where = f"{self.path} line {line}" if line is not None else self.path
        head = "damaged hand history" if cut_off else "not a hand history"
        super().__init__(f"{head}: {where}: {problem}")

    def then(self) -> str:
        """What a reader that goes on past damage (:func:`records_or_problems`) shows after this line, in words
        for a notice: the hands after it, or none when the file cannot be read on."""
        return "the hands after it are shown" if self.can_go_on else "the hands after it cannot be read"


#: Longest line accepted (bytes); real hand records are a few kB, so a
#: longer "line" is a file that is not a hand history (and is not read whole).
MAX_LINE_BYTES = 16 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


#: The hand history's file name in a match directory: plain, or gzip-compressed as it is written.
HANDS_FILE = "hands.jsonl"
HANDS_FILE_GZ = "hands.jsonl.gz"


def history_name(compress: bool) -> str:
    """The file name of a match's hand history: ``hands.jsonl.gz`` if ``compress``, else ``hands.jsonl``."""
    return HANDS_FILE_GZ if compress else HANDS_FILE


def find_history(directory: Path) -> Path | None:
    """The hand history in a match directory (``hands.jsonl`` or ``hands.jsonl.gz``), or None."""
    for name in (HANDS_FILE, HANDS_FILE_GZ):
        path = Path(directory) / name
        if path.exists():
            return path
    return None


#: zlib level of compressed histories: within a few percent of level 9's size at a fraction of its time.
GZIP_LEVEL = 6


class HistoryWriter:
    """Appends hand records to a JSON Lines file as hands finish.

    One JSON encode (orjson) and one buffered write per hand; ``flush`` after each
    hand (the default) so a crash loses at most the hand being played.

    Args:
        path: the ``.jsonl`` (or ``.jsonl.gz``) file; parents are created.
        flush_every: flush after this many hands (1 = every hand).

    Raises:
        OSError: the file cannot be opened.
    """

    def __init__(self, path: Path, flush_every: int = 1) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # gzip: each flush ends a deflate block (Z_SYNC_FLUSH), so a reader of the growing file
        # gets every hand written so far; the name never changes.
        self._file: io.BufferedIOBase = (
            gzip.open(self.path, "ab", compresslevel=GZIP_LEVEL)  # noqa: SIM115
            if self.path.suffix == ".gz"
            else open(self.path, "ab")  # noqa: SIM115
        )
        self._flush_every = max(1, flush_every)
        self._pending = 0
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        """Append one hand record (a JSON-ready dict) as one line."""
        self._file.write(_dump_line(record))
        self.count += 1
        self._pending += 1
        if self._pending >= self._flush_every:
            self._file.flush()
            self._pending = 0

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> HistoryWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _open_bytes(path: Path) -> IO[bytes]:
    # Sniff the gzip magic rather than trust the name: a renamed file still reads.
    with open(path, "rb") as f:
        magic = f.read(2)
    return cast(IO[bytes], gzip.open(path, "rb") if magic == _GZIP_MAGIC else open(path, "rb"))


def _json_problem(exc: json.JSONDecodeError, line: str) -> str:
    where = "the end of the line" if exc.pos >= len(line.rstrip()) else f"column {exc.colno}"
    # Some messages end in "at" already ("Unterminated string starting at").
    return f"not valid JSON ({exc.msg}{'' if exc.msg.endswith(' at') else ' at'} {where})"


def read_history(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the hand records of a JSON Lines hand history, in file order, in the current shape (version 3).

    The same as :func:`numbered_records` without the line numbers.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: see :func:`numbered_records`.
    """
    for _, record in numbered_records(path):
        yield record


def numbered_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, hand record)`` for each record of a hand history, in the current shape.

    A record of version 3, or of version 2 (the same shape without ``raise_rule``), is yielded as
    read; a version-1 record is checked for shape (:func:`record_problem`) and upgraded
    (:func:`harness.history.v1.upgrade`, which marks it ``upgraded_from: 1``). Only the shape of
    a version-2 or -3 record is not judged here (:func:`record_problem` does that, for
    ``harness replay``).

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: as :func:`numbered_lines`; or a record of a version this
            harness does not read, a version-1 record of the wrong shape, or one the
            engine cannot play again (its actions are refused).
    """
    for lineno, item in _records(path, check_v2=False):
        if isinstance(item, HistoryError):
            raise item
        yield lineno, item


def records_or_problems(path: Path) -> Iterator[tuple[int, dict[str, Any] | HistoryError]]:
    """Yield ``(line number, hand record or HistoryError)`` for every line of a hand history, going on past a
    damaged line: the readers that show what they can (``harness watch``, the contest server).

    Records are in the current shape, as :func:`numbered_records` gives them, and a version-2 or -3 record's shape
    is checked too (:func:`record_problem`), so every record yielded can be shown. A damaged line is yielded
    as its :class:`HistoryError` (naming the file, the line and what is wrong) and reading goes on with the
    next line; after an error with ``can_go_on`` False (damaged compressed data, or ``at_end``: the last line
    not whole yet) nothing more is yielded.

    Raises:
        OSError: the file cannot be opened or read.
    """
    return _records(path, check_v2=True)


def _records(path: Path, *, check_v2: bool) -> Iterator[tuple[int, dict[str, Any] | HistoryError]]:
    for lineno, item in _lines(Path(path)):
        if isinstance(item, HistoryError):
            yield lineno, item
            continue
        version = item.get("record_version", 1)
        current = version == 3 or version == 2  # one shape: version 3 adds raise_rule
        if current and not check_v2:
            yield lineno, item
            continue
        problem = record_problem(item)
        if problem:
            yield lineno, HistoryError(path, lineno, problem)
        elif current:
            yield lineno, item
        else:
            yield lineno, _upgraded(path, lineno, item)


def _upgraded(path: Path, lineno: int, record: dict[str, Any]) -> dict[str, Any] | HistoryError:
    """A version-1 record of the right shape in the current shape, or the HistoryError saying why it is not."""
    try:
        return upgrade(record)
    except ReplayError as exc:
        return HistoryError(path, lineno, f"a version-1 record the engine cannot play again: {exc}")
    except (ValueError, TypeError, KeyError, IndexError) as exc:  # a value the shape check lets through
        return HistoryError(path, lineno, f"a version-1 record that cannot be upgraded ({exc})")


def numbered_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, JSON object)`` for each line of a JSON Lines hand history, as written.

    Blank lines are skipped. Plain and gzip-compressed files are both read
    (recognised by content, not by name). Records are yielded as they are
    read, so a problem further down is raised after the good lines before it.

    Args:
        path: a ``.jsonl`` or ``.jsonl.gz`` file.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: a line is not UTF-8 text, not valid JSON or not a JSON
            object, or is longer than :data:`MAX_LINE_BYTES`; or the file ends
            early (``cut_off``: truncated gzip data, a last line without its
            end). The message names the file and the line.
    """
    for lineno, item in _lines(Path(path)):
        if isinstance(item, HistoryError):
            raise item
        yield lineno, item


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | HistoryError]]:
    """Each line of ``path`` as a JSON object, or as the HistoryError of a damaged line (see :func:`numbered_lines`
    for the problems); reading goes on after a damaged line and stops after an error with ``can_go_on`` False."""
    lineno = 0
    try:
        with _open_bytes(path) as f:
            while raw := f.readline(MAX_LINE_BYTES + 1):
                lineno += 1
                if len(raw) > MAX_LINE_BYTES:
                    yield lineno, HistoryError(path, lineno, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MB")
                    while raw and not raw.endswith(b"\n"):  # the rest of that line, not read whole
                        raw = f.readline(MAX_LINE_BYTES + 1)
                    continue
                item = _parse(path, lineno, raw)
                if item is not None:
                    yield lineno, item
    except (EOFError, zlib.error) as exc:  # gzip data that stops early or is corrupt
        ends = isinstance(exc, EOFError)
        problem = "the compressed data ends early" if ends else "the compressed data is corrupt"
        yield lineno + 1, HistoryError(path, lineno + 1, f"{problem} (a cut-off or damaged .gz file)", cut_off=True,
                                       at_end=ends, can_go_on=False)
    except gzip.BadGzipFile as exc:
        yield lineno + 1, HistoryError(path, lineno + 1, f"damaged gzip data ({exc})", cut_off=True, can_go_on=False)


def _breaks_off(exc: json.JSONDecodeError, text: str) -> bool:
    """Whether JSON that fails so could be a whole line cut short: a string never closed, or an error in its last
    few characters (``tru``, ``1.``, ``\\u00``: a token cut in two)."""
    return exc.msg.startswith("Unterminated string") or exc.pos >= len(text.rstrip()) - 6


def _parse(path: Path, lineno: int, raw: bytes) -> dict[str, Any] | HistoryError | None:
    """One line's JSON object, its HistoryError, or None for a blank line."""
    last = not raw.endswith(b"\n")  # only the file's last line can lack its newline
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if last and exc.end == len(raw) and exc.reason == "unexpected end of data":  # a character half written
            return HistoryError(path, lineno, "the last line is cut off (the match was stopped while writing it?)",
                                cut_off=True, at_end=True)
        return HistoryError(path, lineno,
                            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line)")
    if not text.strip():
        return None
    text = text.rstrip("\r\n")
    try:
        # orjson is several times faster; what it refuses (NaN, bad JSON) goes through json, for
        # the same result or the same message.
        record = orjson.loads(text)
    except orjson.JSONDecodeError:
        record = None
    if isinstance(record, dict) and any(type(v) is float for v in record.values()):
        # orjson reads a whole number beyond 64 bits as an inexact float: json reads it as written
        # (a seed out of range is named as it is; no top-level field of a record is a fraction)
        record = None
    try:
        if record is None:
            record = json.loads(text)
    except json.JSONDecodeError as exc:
        if last and _breaks_off(exc, text):
            return HistoryError(path, lineno, "the last line is cut off (the match was stopped while writing it?)",
                                cut_off=True, at_end=True)
        return HistoryError(path, lineno, _json_problem(exc, text))
    if not isinstance(record, dict):
        return HistoryError(path, lineno, f"expected a JSON object (one hand record), got {json_kind(record)}")
    return record


def decision_times(record: dict[str, Any]) -> list[tuple[int, float]]:
    """``(match seat, ms)`` for every decision a bot was asked for, in order: the actions with a time."""
    return [(a["seat"], float(a["ms"])) for a in record["actions"] if a["ms"] is not None]


def record_faults(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fault of a record as ``{"seat": match seat, "bot", "kind", "detail", "action", "put_out"}``.

    ``action`` (the index of the decision it happened in) and ``put_out`` are None in a
    record upgraded from version 1, which did not record them.
    """
    bots = record["match"]["bots"]
    return [{**f, "bot": bots[f["seat"]] if f["seat"] < len(bots) else f"seat {f['seat']}"}
            for f in record["faults"]]


def seat_nets(record: dict[str, Any]) -> dict[int, int]:
    """Net chips of the hand by match seat, for the seats dealt in."""
    return {p["seat"]: p["net"] for p in record["players"]}


def without_volatile(record: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` without what varies between identical runs: each decision's ``ms``."""
    return {**record, "actions": [{k: v for k, v in a.items() if k != "ms"} for a in record["actions"]]}


class HistoryTail:
    """Counts the hands of a hand history while a match writes it, reading only what is new.

    Follows ``hands.jsonl`` and ``hands.jsonl.gz`` alike (gzip recognised by
    content; the writer flushes a whole deflate block after each hand, so
    every finished hand can be read). A missing file counts 0.

    Args:
        path: the file.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.hands = 0
        self._offset = 0
        self._inflate: Any = None
        self._plain = False

    def count(self) -> int:
        """Read what was appended since the last call; return the complete lines (hands) so far."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except OSError:
            return self.hands
        if not chunk:
            return self.hands
        if self._inflate is None and not self._plain:
            if len(chunk) < 2:
                return self.hands  # not enough to tell gzip from text yet
            if chunk[:2] == _GZIP_MAGIC:
                self._inflate = zlib.decompressobj(wbits=31)
            else:
                self._plain = True
        self._offset += len(chunk)
        if self._inflate is not None:
            try:
                chunk = self._inflate.decompress(chunk)
            except zlib.error:  # damaged: stop counting, keep what was counted
                self._inflate = None
                self._plain = True
                self._offset = 1 << 62
                return self.hands
        self.hands += chunk.count(b"\n")
        return self.hands
