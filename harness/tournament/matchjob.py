"""One match as a job of either backend: what the runner and the Dask workers both call.

:func:`play_and_store` is the worker side of a match (local process or Dask task); :func:`count_hands`
follows a running match's hand history for the progress line. Both backends import this module and
neither imports the runner, so the runner can build either backend without an import circle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness.history.files import HistoryTail, find_history
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec
from harness.tournament.results import fsync_file

__all__ = ["PlayMatch", "count_hands", "play_and_store"]

#: Plays one match: ``(bots, spec, limits, match directory) -> MatchResult`` (the referee's ``play_match``).
PlayMatch = Callable[[Sequence[BotSpec], MatchSpec, Limits, Path], MatchResult]


def play_and_store(play: PlayMatch, bots: list[BotSpec], spec: MatchSpec, limits: Limits,
                   match_dir: Path) -> dict[str, Any]:
    """Worker side of a match: play it, make its hand history durable, return the result.

    The referee writes the history under its final name from the first hand
    (``hands.jsonl.gz``, compressed as it is written, with ``spec.compress``):
    a reader following a running tournament never loses the file.
    """
    result = play(bots, spec, limits, match_dir)
    hands = find_history(match_dir)
    if hands is not None:
        fsync_file(hands)
    return result.to_dict()



def count_hands(directory: Path, key: str, tails: dict[str, HistoryTail]) -> int:
    """Hands written so far by a running match (its growing hand history, plain or gzip, read incrementally).

    ``tails`` keeps one :class:`harness.history.files.HistoryTail` per match key between calls.
    """
    tail = tails.get(key)
    if tail is None:
        path = find_history(directory)
        if path is None:
            return 0
        tail = tails[key] = HistoryTail(path)
    return tail.count()
