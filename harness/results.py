"""The results store of one tournament output directory.

Layout::

    <out>/tournament.json           what was scheduled (fingerprint, bots, big blind)
    <out>/results.jsonl             one MatchRecord per finished match (append-only)
    <out>/matches/<match_id>/       hands.jsonl[.gz] and logs/ of each match
    <out>/leaderboard.{md,csv}      written by harness.leaderboard

Crash safety: a record is appended with one ``write`` followed by ``flush``
and ``os.fsync``, only after the match's hand history is itself on disk. A
torn last line (the process died mid-write) is cut off when the store is
opened, so every line in the file is a complete match and none is counted
twice. A match directory without a record is a partial match: it is deleted
and the match is replayed from scratch.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from harness.specs import MatchResult

RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "tournament.json"
MATCHES_DIR = "matches"
HANDS_FILE = "hands.jsonl"


class ResultsError(ValueError):
    """The output directory cannot be used: corrupt results, or another tournament's."""


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One line of ``results.jsonl``: a finished match and where it sits in the schedule.

    Attributes:
        table: index of the table (duplicate set) in the schedule.
        rotation: the table's seat rotation this match played.
        big_blind: the big blind in chips, or min_bet in an ante-only game (R2.5): the "bb" of bb/100.
        result: what the referee returned.
    """

    table: int
    rotation: int
    big_blind: int
    result: MatchResult

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
            "big_blind": self.big_blind,
            "result": self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "MatchRecord":
        """Rebuild from :meth:`to_dict` output. Raises KeyError/TypeError/ValueError on a bad dict."""
        return cls(
            table=int(data["table"]),
            rotation=int(data["rotation"]),
            big_blind=int(data["big_blind"]),
            result=MatchResult.from_dict(data["result"]),
        )


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


def compress_file(path: Path) -> Path:
    """Gzip ``path`` to ``path.gz`` (fsynced), remove the original and return the new path."""
    target = path.with_name(path.name + ".gz")
    with open(path, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    fsync_file(target)
    path.unlink()
    return target


def read_records(out_dir: Path) -> list[MatchRecord]:
    """Read every complete record of ``<out_dir>/results.jsonl`` (read-only).

    A torn last line is ignored; a duplicate match id keeps its first record.

    Raises:
        ResultsError: the file is missing, or a line other than the last is corrupt.
    """
    path = Path(out_dir) / RESULTS_FILE
    if not path.is_file():
        raise ResultsError(f"{path}: no results file; is {out_dir} a tournament output directory?")
    records, _ = _parse(path.read_bytes(), path)
    return list(records.values())


def _parse(data: bytes, path: Path) -> tuple[dict[str, MatchRecord], int]:
    """Parse the results file; return records by match id and the length of the complete part."""
    records: dict[str, MatchRecord] = {}
    complete = data.rfind(b"\n") + 1  # bytes after the last newline are a torn write
    for number, line in enumerate(data[:complete].splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = MatchRecord.from_dict(json.loads(line))
        except (ValueError, KeyError, TypeError) as exc:
            raise ResultsError(
                f"{path}, line {number}: not a match record ({exc}); "
                "the file was edited or damaged; fix or remove that line"
            ) from exc
        records.setdefault(record.match_id, record)
    return records, complete


class ResultsStore:
    """Append-only match records plus per-match directories under one output directory."""

    def __init__(self, out_dir: Path) -> None:
        """Use ``out_dir`` (created on :meth:`open`)."""
        self.out_dir = Path(out_dir)
        self.results_path = self.out_dir / RESULTS_FILE
        self.manifest_path = self.out_dir / MANIFEST_FILE

    def open(self, manifest: Mapping[str, Any]) -> dict[str, MatchRecord]:
        """Create or reopen the directory for the tournament described by ``manifest``.

        Args:
            manifest: JSON-ready description; its ``"fingerprint"`` must match
                the one stored by an earlier run in this directory.

        Returns:
            The records already stored, by match id.

        Raises:
            ResultsError: the directory holds a different tournament, or
                ``results.jsonl`` is damaged before its last line.
        """
        self.out_dir.mkdir(parents=True, exist_ok=True)
        (self.out_dir / MATCHES_DIR).mkdir(exist_ok=True)
        if self.manifest_path.exists():
            try:
                stored = json.loads(self.manifest_path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ResultsError(f"{self.manifest_path}: unreadable ({exc}); use a new --out directory") from exc
            if stored.get("fingerprint") != manifest.get("fingerprint"):
                raise ResultsError(
                    f"{self.out_dir} holds results of a different tournament (the bots, schedule, game, "
                    "hands or seed changed since it was started); "
                    "use a new --out directory, or delete this one to start over"
                )
        else:
            tmp = self.manifest_path.with_suffix(".tmp")
            tmp.write_text(json.dumps(dict(manifest), indent=2) + "\n", encoding="utf-8")
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, self.manifest_path)
            _fsync_dir(self.out_dir)
        if not self.results_path.exists():
            self.results_path.touch()
            _fsync_dir(self.out_dir)
            return {}
        data = self.results_path.read_bytes()
        records, complete = _parse(data, self.results_path)
        if complete < len(data):
            # Cut the torn tail so the next append starts on a fresh line.
            with open(self.results_path, "rb+") as fh:
                fh.truncate(complete)
                os.fsync(fh.fileno())
        return records

    def append(self, record: MatchRecord) -> None:
        """Append one record durably (one write, flush, fsync)."""
        line = json.dumps(record.to_dict(), separators=(",", ":")) + "\n"
        with open(self.results_path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def match_dir(self, match_id: str) -> Path:
        """Return ``<out>/matches/<match_id>``."""
        return self.out_dir / MATCHES_DIR / match_id

    def fresh_match_dir(self, match_id: str) -> Path:
        """Delete what a partial run left of a match and return its empty directory."""
        path = self.match_dir(match_id)
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path


def hand_history_path(match_dir: Path) -> Path | None:
    """Return the match's hand history (``hands.jsonl`` or ``hands.jsonl.gz``), or None."""
    for name in (HANDS_FILE, HANDS_FILE + ".gz"):
        path = match_dir / name
        if path.exists():
            return path
    return None


def read_hands(path: Path) -> list[dict[str, Any]]:
    """Read a hand history (JSON Lines, gzip if the name ends in ``.gz``)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:  # type: ignore[operator]
        return [json.loads(line) for line in fh if line.strip()]
