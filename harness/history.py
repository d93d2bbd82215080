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

Files ending in ``.gz`` are read and written gzip-compressed.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Iterator

#: Keys the referee adds to the engine's record; :func:`engine_part` strips them.
REFEREE_KEYS: tuple[str, ...] = ("match_id", "bots", "match_seats", "timings_ms", "faults")

#: Keys whose values vary from run to run with the same seed and bots.
VOLATILE_KEYS: tuple[str, ...] = ("timings_ms",)

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class HistoryError(ValueError):
    """A hand history line that is not a JSON object; names the file and line."""


def _open(path: Path, mode: str) -> IO[str]:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, mode + "b"), encoding="utf-8", newline="\n")
    return open(path, mode, encoding="utf-8", newline="\n")


class HistoryWriter:
    """Appends hand records to a JSON Lines file as hands finish.

    One ``json`` encode and one buffered write per hand; ``flush`` after each
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
        self._file = _open(self.path, "a")
        self._flush_every = max(1, flush_every)
        self._pending = 0
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        """Append one hand record (a JSON-ready dict) as one line."""
        self._file.write(_dumps(record) + "\n")
        self.count += 1
        self._pending += 1
        if self._pending >= self._flush_every:
            self._file.flush()
            self._pending = 0

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> "HistoryWriter":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_history(path: Path) -> Iterator[dict[str, Any]]:
    """Yield the hand records of a JSON Lines hand history, in file order.

    Blank lines are skipped. A truncated last line (a match killed while
    writing) is reported like any other bad line.

    Args:
        path: a ``.jsonl`` or ``.jsonl.gz`` file.

    Raises:
        OSError: the file cannot be read.
        HistoryError: a line is not a JSON object (message names file and line).
    """
    path = Path(path)
    with _open(path, "r") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise HistoryError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
            if not isinstance(record, dict):
                raise HistoryError(f"{path}:{lineno}: expected a JSON object, got {type(record).__name__}")
            yield record


def engine_part(record: dict[str, Any]) -> dict[str, Any]:
    """Return the engine's hand record inside a history line (the referee's keys removed)."""
    return {k: v for k, v in record.items() if k not in REFEREE_KEYS}


def without_volatile(record: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` without the keys that vary between identical runs (timings)."""
    return {k: v for k, v in record.items() if k not in VOLATILE_KEYS}
