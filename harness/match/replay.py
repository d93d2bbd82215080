"""Re-run every hand of a hand history through the engine and report differences.

Each line of a history (harness.match.history) carries the hand's seed, settings,
stacks, button and every action; the engine plays the hand again from those
and names the first field whose replayed value differs from the recorded one
(cards dealt, draws, chips of each action, pots, winners, net ...). Every
version ever written is read: version 2 through
:func:`harness.match.handrecord.replay_v2`, version 1 through
:func:`harness.engine.replay` (the engine's own record).
A tampered or corrupted history therefore fails here (DESIGN.md "Referee
promises": any hand can be replayed and checked).

Two kinds of failure are kept apart:

- a hand that *differs* (the record has the right shape but the engine
  replays it differently, or refuses one of its actions): a
  :class:`HandCheck` with ``ok=False``;
- a file that is *not a hand history* (not JSON Lines, a line that is not
  a hand record, a field of the wrong type, cut-off data): a
  :class:`harness.match.history.HistoryError` naming the file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.engine import ReplayError, replay
from harness.match.deals import commitment, hand_seed
from harness.match.handrecord import replay_v2
from harness.match.history import HistoryError, numbered_records, record_problem


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand of a hand history.

    Attributes:
        line: 1-based line of the hand in the file.
        hand_id: the record's ``hand_id``.
        ok: True when the replay matches the record in every field.
        detail: empty when ok, else the first difference (a field path such
            as ``record.net[0]``) or the action the engine refused and why.
    """

    line: int
    hand_id: int
    ok: bool
    detail: str = ""


def check_history(path: Path, *, match_seed: int | None = None) -> Iterator[HandCheck]:
    """Replay every hand of ``path`` (``.jsonl`` or ``.jsonl.gz``), yielding one verdict per hand.

    Verdicts are yielded as hands are read; a line that is not a hand record
    stops the check with :class:`HistoryError` (the rest of the file cannot
    be trusted), after the verdicts of the lines before it.

    Args:
        path: the hand history.
        match_seed: when given (e.g. revealed after the event), each hand's
            ``seed`` must also be :func:`harness.match.deals.hand_seed` of it
            and the hand number, and (version 2) the record's
            ``match.seed_sha256`` its commitment: the deals were the ones fixed
            in advance.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: the file is not a hand history (message: ``not a hand
            history: FILE line N: FIELD: what is wrong``) or is cut off
            (``.cut_off``).
    """
    for lineno, record in numbered_records(path):
        problem = record_problem(record)
        if problem:
            raise HistoryError(path, lineno, problem)
        hand_id = record["hand_id"]
        v2 = record.get("record_version") == 2
        if match_seed is not None:
            if record["seed"] != hand_seed(match_seed, hand_id):
                yield HandCheck(lineno, hand_id, False, "seed: not the hand seed derived from the match seed")
                continue
            if v2 and record["match"]["seed_sha256"] != commitment(match_seed):
                yield HandCheck(lineno, hand_id, False, "match.seed_sha256: not the SHA-256 of the match seed")
                continue
        try:
            if v2:
                replay_v2(record)
            else:
                replay(record)
        except ReplayError as exc:
            yield HandCheck(lineno, hand_id, False, str(exc))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            # Right shape, values the engine cannot even start from (e.g. a
            # setting of the wrong kind): the record differs from any real hand.
            yield HandCheck(lineno, hand_id, False, f"the engine cannot replay this record: {exc}")
        else:
            yield HandCheck(lineno, hand_id, True)

