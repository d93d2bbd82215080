"""Re-run every hand of a hand history through the engine and report differences.

Each line of a history (harness.history) carries the hand's seed, settings,
stacks, button and every action; :func:`harness.engine.replay` plays the
hand again from those and names the first field whose replayed value
differs from the recorded one (cards dealt, draws, pots, winners, net ...).
A tampered or corrupted history therefore fails here (DESIGN.md "Referee
promises": any hand can be replayed and checked).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from harness.engine import ReplayError, replay
from harness.history import HistoryError, read_history


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one line of a hand history.

    Attributes:
        line: 1-based position of the hand among the file's records.
        hand_id: the record's ``hand_id`` (None if unreadable).
        ok: True when the replay matches the record in every field.
        detail: empty when ok, else the first difference or why it could not be replayed.
    """

    line: int
    hand_id: int | None
    ok: bool
    detail: str = ""


def check_history(path: Path) -> Iterator[HandCheck]:
    """Replay every hand of ``path`` (``.jsonl`` or ``.jsonl.gz``), yielding one verdict per hand.

    A line that is not a JSON object ends the check with a failed verdict
    naming it (the rest of the file cannot be trusted to be aligned).

    Raises:
        OSError: the file cannot be opened or read.
    """
    index = 0
    try:
        for index, record in enumerate(read_history(path), 1):
            hand_id = record.get("hand_id")
            hand_id = hand_id if isinstance(hand_id, int) else None
            try:
                replay(record)
            except ReplayError as exc:
                yield HandCheck(index, hand_id, False, str(exc))
            except Exception as exc:  # a corrupted record must be reported, not crash the check
                yield HandCheck(index, hand_id, False, f"cannot be replayed: {type(exc).__name__}: {exc}")
            else:
                yield HandCheck(index, hand_id, True)
    except HistoryError as exc:
        yield HandCheck(index + 1, None, False, str(exc))
