"""Hand histories: one JSON object per line, one line per hand (JSON Lines).

A line is the engine's hand record (``HandState.record()``, see
docs/INTERNALS.md) plus what the referee adds (the ``REFEREE_KEYS``):

- ``match_id``: the match's name;
- ``bots``: bot names by hand seat;
- ``match_seats``: the match seat of each hand seat (they differ in a
  freezeout once a bot has busted; the engine's ``seats`` is the count);
- ``timings_ms``: per decision, ``[hand seat, thinking time in ms]`` in
  the order the decisions were made (ms, 3 decimals);
- ``faults``: per fault, ``{"seat": hand seat, "kind": FaultKind value,
  "detail": str}``.

The engine part names a shown hand's ``category`` by its label, in words
(``"two pair"``, ``Category.label``); protocol messages name it in snake
case (``"two_pair"``, PROTOCOL.md). Replay compares labels, so old
histories stay valid.

Files ending in ``.gz`` are written gzip-compressed; the reader recognises
gzip data by its content. :func:`read_history` and :func:`record_problem`
turn a file that is not a hand history into a :class:`HistoryError` naming
the file, the line and the field, never a Python exception.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, cast

import orjson

#: Keys the referee adds to the engine's record; :func:`engine_part` strips them.
REFEREE_KEYS: tuple[str, ...] = ("match_id", "bots", "match_seats", "timings_ms", "faults")

#: Keys whose values vary from run to run with the same seed and bots.
VOLATILE_KEYS: tuple[str, ...] = ("timings_ms",)

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _dump_line(record: dict[str, Any]) -> bytes:
    """One record as a compact UTF-8 JSON line (orjson: about 10x faster than json here)."""
    try:
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # e.g. an int beyond 64 bits: the standard library copes
        return (_dumps(record) + "\n").encode("utf-8")


class HistoryError(ValueError):
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
        self._file: IO[bytes] = gzip.open(self.path, "ab") if self.path.suffix == ".gz" else open(self.path, "ab")  # noqa: SIM115
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
    """Yield the hand records of a JSON Lines hand history, in file order.

    The same as :func:`numbered_records` without the line numbers.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: see :func:`numbered_records`.
    """
    for _, record in numbered_records(path):
        yield record


def numbered_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, hand record)`` for each record of a JSON Lines hand history.

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


def record_problem(record: dict[str, Any]) -> str | None:
    """Say what makes ``record`` unfit to be a hand-history line, or None if its shape is right.

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
        ("faults", lambda f: isinstance(f, dict), 'an object {"seat", "kind", "detail"}'),
        ("timings_ms", lambda t: isinstance(t, list), "a [seat, ms] pair"),
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


def engine_part(record: dict[str, Any]) -> dict[str, Any]:
    """Return the engine's hand record inside a history line (the referee's keys removed)."""
    return {k: v for k, v in record.items() if k not in REFEREE_KEYS}


def without_volatile(record: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` without the keys that vary between identical runs (timings)."""
    return {k: v for k, v in record.items() if k not in VOLATILE_KEYS}
