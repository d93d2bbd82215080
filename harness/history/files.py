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
upgrade a version-1 record to version 2 as they read it
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
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

import orjson

from harness.engine.errors import ReplayError
from harness.errors import HarnessError
from harness.history.v1 import upgrade
from harness.specs import FaultKind

#: Versions of the hand record this harness reads (it writes the last).
READ_VERSIONS: tuple[int, ...] = (1, 2)

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
    """

    def __init__(self, path: Path | str, line: int | None, problem: str, *, cut_off: bool = False) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        self.cut_off = cut_off
        where = f"{self.path} line {line}" if line is not None else self.path
        head = "damaged hand history" if cut_off else "not a hand history"
        super().__init__(f"{head}: {where}: {problem}")


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
    """Yield the hand records of a JSON Lines hand history, in file order, in the current shape (version 2).

    The same as :func:`numbered_records` without the line numbers.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: see :func:`numbered_records`.
    """
    for _, record in numbered_records(path):
        yield record


def numbered_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, hand record)`` for each record of a hand history, in the current shape.

    A version-2 record is yielded as read; a version-1 record is checked for shape
    (:func:`record_problem`) and upgraded (:func:`harness.history.v1.upgrade`, which
    marks it ``upgraded_from: 1``). Only the shape of a version-2 record is not judged
    here (:func:`record_problem` does that, for ``harness replay``).

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: as :func:`numbered_lines`; or a record of a version this
            harness does not read, a version-1 record of the wrong shape, or one the
            engine cannot play again (its actions are refused).
    """
    for lineno, record in numbered_lines(path):
        version = record.get("record_version", 1)
        if version == 2:
            yield lineno, record
            continue
        problem = record_problem(record)
        if problem:
            raise HistoryError(path, lineno, problem)
        try:
            upgraded = upgrade(record)
        except ReplayError as exc:
            raise HistoryError(path, lineno, f"a version-1 record the engine cannot play again: {exc}") from None
        except (ValueError, TypeError, KeyError, IndexError) as exc:  # a value the shape check lets through
            raise HistoryError(path, lineno, f"a version-1 record that cannot be upgraded ({exc})") from None
        yield lineno, upgraded


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
    path = Path(path)
    lineno = 0
    try:
        with _open_bytes(path) as f:
            while raw := f.readline(MAX_LINE_BYTES + 1):
                lineno += 1
                if len(raw) > MAX_LINE_BYTES:
                    raise HistoryError(path, lineno, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MB")
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise HistoryError(
                        path,
                        lineno,
                        f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line)",
                    ) from None
                if not text.strip():
                    continue
                text = text.rstrip("\r\n")
                try:
                    # orjson is several times faster; what it refuses (NaN, ints beyond 64 bits, bad JSON)
                    # goes through json, for the same result or the same message.
                    record = orjson.loads(text)
                except orjson.JSONDecodeError:
                    record = None
                try:
                    if record is None:
                        record = json.loads(text)
                except json.JSONDecodeError as exc:
                    if not raw.endswith(b"\n") and exc.pos >= len(text.rstrip()):
                        raise HistoryError(
                            path, lineno, "the last line is cut off (the match was stopped while writing it?)",
                            cut_off=True,
                        ) from None
                    raise HistoryError(path, lineno, _json_problem(exc, text)) from None
                if not isinstance(record, dict):
                    raise HistoryError(
                        path, lineno, f"expected a JSON object (one hand record), got {json_kind(record)}"
                    )
                yield lineno, record
    except (EOFError, zlib.error) as exc:  # gzip data that stops early or is corrupt
        problem = "the compressed data ends early" if isinstance(exc, EOFError) else "the compressed data is corrupt"
        raise HistoryError(path, lineno + 1, f"{problem} (a cut-off or damaged .gz file)", cut_off=True) from None
    except gzip.BadGzipFile as exc:
        raise HistoryError(path, lineno + 1, f"damaged gzip data ({exc})", cut_off=True) from None


def json_kind(value: Any) -> str:
    """Name the JSON type of ``value`` in a user's words: "a string", "a number", "a list" ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "an unknown value"


#: Fields every hand record has (the engine's ``record()``); replay needs them.
REQUIRED_KEYS: tuple[str, ...] = ("hand_id", "seed", "config", "stacks", "button", "actions")


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list_problem(record: dict[str, Any], key: str, ok: Callable[[Any], bool], item: str) -> str | None:
    value = record[key]
    if not isinstance(value, list):
        return f"{key}: expected a list, got {json_kind(value)} ({_show(value)})"
    for i, element in enumerate(value):
        if not ok(element):
            return f"{key}[{i}]: expected {item}, got {json_kind(element)} ({_show(element)})"
    return None


def _problem_v1(record: dict[str, Any]) -> str | None:
    """Version 1: say what makes ``record`` unfit to be a hand-history line, or None if its shape is right.

    Checks the presence and JSON types of the fields replay needs
    (:data:`REQUIRED_KEYS`, ``deck`` when present, each action's ``seat`` and
    ``action``) and of the referee's keys when present (``bots``,
    ``match_seats``, ``match_id``, ``faults``, ``timings_ms``). Values are
    not judged against the rules: that is replay's job (a record of the right
    shape whose values the engine refuses *differs*).

    Returns:
        e.g. ``"hand_id: expected a whole number >= 0, got a string (\"x\")"``, or None.
    """
    missing = [k for k in REQUIRED_KEYS if k not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)} (a hand record has {', '.join(REQUIRED_KEYS)}, ...)"
    for key in ("hand_id", "seed", "button"):
        value = record[key]
        if not _whole(value) or (key != "seed" and value < 0):
            bound = "" if key == "seed" else " >= 0"
            return f"{key}: expected a whole number{bound}, got {json_kind(value)} ({_show(value)})"
    config = record["config"]
    if not isinstance(config, dict):
        return f"config: expected an object of game settings, got {json_kind(config)} ({_show(config)})"
    for name, value in config.items():
        if isinstance(value, (list, dict)):
            return f"config.{name}: expected a number, string or true/false, got {json_kind(value)}"
    problem = _list_problem(record, "stacks", _whole, "a whole number of chips")
    if problem:
        return problem
    actions = record["actions"]
    if not isinstance(actions, list):
        return f"actions: expected a list of actions, got {json_kind(actions)} ({_show(actions)})"
    for i, entry in enumerate(actions):
        if not isinstance(entry, dict):
            return (
                f"actions[{i}]: expected an object like {{\"seat\": 0, \"action\": \"call\"}}, "
                f"got {json_kind(entry)} ({_show(entry)})"
            )
        if not _whole(entry.get("seat")):
            return f"actions[{i}].seat: expected a whole number, got {json_kind(entry.get('seat'))}"
        if not isinstance(entry.get("action"), str):
            return f"actions[{i}].action: expected a string such as \"call\", got {json_kind(entry.get('action'))}"
        if "discards" in entry and not (
            isinstance(entry["discards"], list) and all(isinstance(c, str) for c in entry["discards"])
        ):
            return f"actions[{i}].discards: expected a list of cards such as [\"As\", \"Td\"]"
    checks: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
        ("deck", lambda c: isinstance(c, str), 'a card such as "As"'),
        ("bots", lambda b: isinstance(b, str), "a bot name (a string)"),
        ("match_seats", _whole, "a whole number (a seat)"),
        ("faults", _is_v1_fault, 'an object {"seat": a whole number, "kind": a string, "detail": a string}'),
        ("timings_ms", _is_v1_timing, "a [seat, ms] pair (a whole number, a number >= 0)"),
    )
    for key, ok, what in checks:
        if key in record:
            problem = _list_problem(record, key, ok, what)
            if problem:
                return problem
    if "match_id" in record and not isinstance(record["match_id"], str):
        return f"match_id: expected a string, got {json_kind(record['match_id'])}"
    for key in ("bots", "match_seats"):
        if key in record and len(record[key]) != len(record["stacks"]):
            return f"{key}: {len(record[key])} entries for {len(record['stacks'])} seats (stacks)"
    return None


def _is_v1_fault(value: Any) -> bool:
    return (isinstance(value, dict) and _whole(value.get("seat")) and isinstance(value.get("kind"), str)
            and isinstance(value.get("detail", ""), str))


def _is_v1_timing(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and _whole(value[0])
            and isinstance(value[1], (int, float)) and not isinstance(value[1], bool) and value[1] >= 0)


def record_version(record: dict[str, Any]) -> int | None:
    """The record's ``record_version`` (1 when absent: the first records had none), or None if not a number."""
    version = record.get("record_version", 1)
    return version if _whole(version) else None


def record_problem(record: dict[str, Any]) -> str | None:
    """Say what makes ``record`` unfit to be a hand-history line, or None if its shape is right.

    Dispatches on ``record_version`` (:data:`READ_VERSIONS`). Only the shape
    is judged (fields present, JSON types, the referee's enumerations):
    values against the rules are replay's job (a record of the right shape
    whose values the engine refuses *differs*).

    Returns:
        e.g. ``"hand_id: expected a whole number >= 0, got a string (\"x\")"``, or None.
    """
    version = record_version(record)
    if version == 2:
        return _problem_v2(record)
    if version == 1:
        return _problem_v1(record)
    shown = _show(record.get("record_version"))
    return (
        f"record_version: {shown} is not a version this harness reads "
        f"({', '.join(map(str, READ_VERSIONS))}); a newer harness wrote it?"
    )


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_uint(value: Any) -> bool:
    return _whole(value) and value >= 0


def _is_index(value: Any) -> bool:
    return value is None or _is_uint(value)


def _is_ms(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0)


def _is_cards(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, str) for c in value)


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(c, str) for c in value)


def _is_seats(value: Any) -> bool:
    return isinstance(value, list) and all(_is_uint(c) for c in value)


def _is_chip_list(value: Any) -> bool:
    return _is_seats(value)


#: A check of one field's JSON value.
_Check = Callable[[Any], bool]
_WHAT: dict[_Check, str] = {
    _is_str: "a string",
    _is_bool: "true/false",
    _is_uint: "a whole number >= 0",
    _whole: "a whole number",
    _is_index: "an index (a whole number >= 0) or null",
    _is_ms: "milliseconds (a number >= 0) or null",
    _is_cards: 'a list of cards such as ["As", "Td"]',
    _is_names: "a list of bot names",
    _is_seats: "a list of seats (whole numbers >= 0)",
    _is_chip_list: "a list of chips (whole numbers >= 0)",
}
_V2_MATCH: dict[str, _Check] = {"bots": _is_names, "hands": _is_uint, "stack_mode": _is_str, "starting_stack": _is_uint,
             "seed_sha256": _is_str, "decision_ms": _is_uint, "time_bank_ms": _is_uint, "max_faults": _is_uint}
_V2_ITEMS: dict[str, dict[str, _Check]] = {
    "players": {"seat": _is_uint, "bot": _is_str, "stack": _is_uint, "out": _is_bool, "dealt": _is_cards,
                "final_cards": _is_cards, "final_stack": _is_uint, "net": _whole},
    "posts": {"seat": _is_uint, "kind": _is_str, "chips": _is_uint, "all_in": _is_bool},
    "actions": {"index": _is_uint, "seat": _is_uint, "phase": _is_str, "kind": _is_str, "by": _is_str,
                "fault": _is_index, "ms": _is_ms},
    "faults": {"seat": _is_uint, "kind": _is_str, "detail": _is_str, "action": _is_index, "put_out": _is_bool},
    "shown": {"seat": _is_uint, "five": _is_cards, "category": _is_str},
    "pots": {"chips": _is_uint, "eligible": _is_seats, "winners": _is_seats, "shares": _is_chip_list},
    "returned": {"seat": _is_uint, "chips": _is_uint},
}
_V2_DRAW: dict[str, _Check] = {"discards": _is_cards, "received": _is_cards, "reshuffled": _is_cards}
_V2_BET: dict[str, _Check] = {"owed": _is_uint, "added": _is_uint, "to": _is_uint, "all_in": _is_bool}
_V2_TOP: dict[str, _Check] = {"format": _is_str, "match_id": _is_str, "hand_id": _is_uint, "seed": _whole,
                              "button": _is_uint}
_BY = ("bot", "fault", "out", "unsent")  # harness.history.record.DECIDERS
_FAULT_KINDS = tuple(kind.value for kind in FaultKind)


def _fields_problem(obj: Any, fields: dict[str, _Check], where: str) -> str | None:
    if not isinstance(obj, dict):
        return f"{where}: expected an object, got {json_kind(obj)} ({_show(obj)})"
    for name, ok in fields.items():
        if name not in obj:
            return f"{where}{'.' if where else ''}{name}: missing"
        if not ok(obj[name]):
            value = obj[name]
            return f"{where}{'.' if where else ''}{name}: expected {_WHAT[ok]}, got {json_kind(value)} ({_show(value)})"
    return None


def _problem_v2(record: dict[str, Any]) -> str | None:
    """Version 2: the shape of the fields replay reads or copies (docs/hand-history.schema.json has all of it)."""
    missing = [k for k in (*_V2_TOP, "match", "game", *_V2_ITEMS) if k not in record]
    if missing:
        return f"missing field(s) {', '.join(missing)} (a version-2 hand record has them all, docs/HISTORY.md)"
    problem = _fields_problem(record, _V2_TOP, "")
    if problem:
        return problem
    if record["format"] != "sevencard-hand-history":
        return f"format: expected \"sevencard-hand-history\", got {_show(record['format'])}"
    problem = _fields_problem(record["match"], _V2_MATCH, "match")
    if problem:
        return problem
    game = record["game"]
    if not isinstance(game, dict):
        return f"game: expected an object of game settings, got {json_kind(game)} ({_show(game)})"
    for name, value in game.items():
        if isinstance(value, (list, dict)) or value is None:
            return f"game.{name}: expected a number or a string, got {json_kind(value)}"
    for key, fields in _V2_ITEMS.items():
        items = record[key]
        if not isinstance(items, list):
            return f"{key}: expected a list, got {json_kind(items)} ({_show(items)})"
        for i, item in enumerate(items):
            problem = _fields_problem(item, fields, f"{key}[{i}]")
            if problem:
                return problem
    for i, action in enumerate(record["actions"]):
        extra = _V2_DRAW if action["kind"] == "draw" else _V2_BET
        problem = _fields_problem(action, extra, f"actions[{i}]")
        if problem:
            return problem
        if action["by"] not in _BY:
            return f"actions[{i}].by: expected one of {', '.join(_BY)}, got {_show(action['by'])}"
    for i, fault in enumerate(record["faults"]):
        if fault["kind"] not in _FAULT_KINDS:
            return f"faults[{i}].kind: expected one of {', '.join(_FAULT_KINDS)}, got {_show(fault['kind'])}"
    if "deck" in record and not _is_cards(record["deck"]):
        return f"deck: expected {_WHAT[_is_cards]}"
    return None


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
