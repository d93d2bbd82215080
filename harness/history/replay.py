"""Re-run every hand of a hand history through the engine and report differences.

Each line of a history (harness.history.files) carries the hand's seed, settings,
stacks, button and every action; the engine plays the hand again from those
and names the first field whose replayed value differs from the recorded one
(cards dealt, draws, chips of each action, pots, winners, net ...). Every
version ever written is read: each record as it is written (not upgraded): versions 3 and 2 through
:func:`harness.history.record.replay_v2`, version 1 through
:func:`harness.history.v1.replay`.
A tampered or corrupted history therefore fails here: any hand of a
history can be replayed and checked.

A record of version 3 names the raise rule it was played under (``raise_rule``)
and is replayed under that rule only: a bet or raise beyond what any
opponent could match in a ``"capped"`` record is refused (RULES.md R3.4, E14).
Records of versions 1 and 2 name none and may hold such a bet or raise, as
the earlier releases offered: such a hand, refused under today's rule, is
replayed again under the earlier one and, if it then matches in every
field, passes with a ``note`` saying so. The chips are the same either way
(the excess came back, R3.9).

Two kinds of failure are kept apart:

- a hand that *differs* (the record has the right shape but the engine
  replays it differently, or refuses one of its actions): a
  :class:`HandCheck` with ``ok=False``;
- a file that is *not a hand history* (not JSON Lines, a line that is not
  a hand record, a field of the wrong type, cut-off data): a
  :class:`harness.history.files.HistoryError` naming the file, line and field.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.deals import commitment, deal_of, hand_seed
from harness.engine import ReplayError
from harness.history.files import HistoryError, numbered_lines, record_problem
from harness.history.record import replay_v2
from harness.history.v1 import replay


@dataclass(frozen=True, slots=True)
class HandCheck:
    """The verdict on one hand of a hand history.

    Attributes:
        line: 1-based line of the hand in the file.
        hand_id: the record's ``hand_id``.
        ok: True when the replay matches the record in every field.
        detail: empty when ok, else the first difference (a field path such
            as ``record.net[0]``) or the action the engine refused and why.
        note: when ok, empty, or :data:`EARLIER_RAISE_RULE` for a hand that
            replays only under the rule of earlier releases (RULES.md E14).
    """

    line: int
    hand_id: int
    ok: bool
    detail: str = ""
    note: str = ""


#: The note of a hand that replays only under the earlier raise rule (RULES.md R3.4, E14).
EARLIER_RAISE_RULE = "a bet or raise beyond what any opponent could match (R3.4), as earlier releases offered"


def check_history(path: Path, *, match_seed: int | None = None) -> Iterator[HandCheck]:
    """Replay every hand of ``path`` (``.jsonl`` or ``.jsonl.gz``), yielding one verdict per hand.

    Verdicts are yielded as hands are read; a line that is not a hand record
    stops the check with :class:`HistoryError` (the rest of the file cannot
    be trusted), after the verdicts of the lines before it. Hands must be
    numbered 0, 1, 2 ... in order: a hand out of that sequence (one lost,
    repeated or moved before it) is a verdict ``ok=False`` naming the
    ``hand_id`` and what was due.

    Args:
        path: the hand history.
        match_seed: when given (e.g. revealed after the event), each hand's
            ``seed`` must also be :func:`harness.deals.hand_seed` of it
            and the hand's deal: the hand number, or (version 2) the deal
            one seat rotation's order (:func:`harness.deals.deal_of`) puts at
            that hand, the same order for every hand of the file; and the record's
            ``match.seed_sha256`` its commitment: the deals were the ones fixed
            in advance.

    Raises:
        OSError: the file cannot be opened or read.
        HistoryError: the file is not a hand history (message: ``not a hand
            history: FILE line N: FIELD: what is wrong``) or is cut off
            (``.cut_off``).
    """
    expected = 0  # the next hand's number: a match's hands are 0, 1, 2 ... in order (docs/HISTORY.md)
    orders = _DealOrders()
    for lineno, record in numbered_lines(path):  # as written: the check is of what the file says
        problem = record_problem(record)
        if problem:
            raise HistoryError(path, lineno, problem)
        verdict = _check_hand(lineno, record, match_seed, orders)
        hand_id = verdict.hand_id
        if hand_id != expected:  # a hand lost, repeated or moved: each one may replay, the match does not
            wrong = _out_of_sequence(hand_id, expected)
            verdict = HandCheck(lineno, hand_id, False, f"{verdict.detail}; {wrong}" if not verdict.ok else wrong)
        expected = max(expected, hand_id + 1)
        yield verdict


class _DealOrders:
    """The deal orders a file's hands are still consistent with: the natural one (None) and each seat rotation's."""

    def __init__(self) -> None:
        self.left: list[int | None] | None = None  # None: not narrowed yet

    def problem(self, record: dict[str, Any], match_seed: int, v2: bool) -> str:
        """'' when the record's seed is its hand's deal under an order still possible, else what is wrong."""
        hand_id = record["hand_id"]
        if not v2:  # the first releases dealt hand h from deal h
            ok = record["seed"] == hand_seed(match_seed, hand_id)
            return "" if ok else "seed: not the hand seed derived from the match seed"
        seats, hands = len(record["match"]["bots"]), record["match"]["hands"]
        left = self.left if self.left is not None else [None, *range(seats)]
        fits = []
        for order in left:
            try:
                deal = deal_of(match_seed, order, hands, seats, hand_id)
            except ValueError:  # a hand beyond match.hands: no deal of the match
                continue
            if record["seed"] == hand_seed(match_seed, deal):
                fits.append(order)
        if not fits:
            return ("seed: not the hand seed of a deal of the match seed at this hand (in the natural order or a "
                    "seat rotation's, the same for the whole match)")
        self.left = fits
        return ""


def _check_hand(lineno: int, record: dict[str, Any], match_seed: int | None,
                orders: _DealOrders | None = None) -> HandCheck:
    """The verdict on one record of the right shape (see :func:`check_history`)."""
    hand_id = record["hand_id"]
    version = record.get("record_version")
    v2 = version == 2 or version == 3  # the current shape; version 3 names its raise rule
    if match_seed is not None:
        wrong = (orders or _DealOrders()).problem(record, match_seed, v2)
        if wrong:
            return HandCheck(lineno, hand_id, False, wrong)
        if v2 and record["match"]["seed_sha256"] != commitment(match_seed):
            return HandCheck(lineno, hand_id, False, "match.seed_sha256: not the SHA-256 of the match seed")
    try:
        if v2:
            replay_v2(record)
        else:
            replay(record)
    except ReplayError as exc:
        # A record that names its raise rule (version 3) is judged by it alone: an over-reaching raise in
        # a history written under R3.4's bound differs. Only the versions that name none get the benefit.
        if version != 3 and _replays_under_earlier_rule(record, v2):
            return HandCheck(lineno, hand_id, True, note=EARLIER_RAISE_RULE)
        return HandCheck(lineno, hand_id, False, str(exc))
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # Right shape, values the engine cannot even start from (e.g. a
        # setting of the wrong kind): the record differs from any real hand.
        return HandCheck(lineno, hand_id, False, f"the engine cannot replay this record: {exc}")
    return HandCheck(lineno, hand_id, True)


def _out_of_sequence(hand_id: int, expected: int) -> str:
    """What is wrong with a hand numbered ``hand_id`` where hand ``expected`` was due."""
    if hand_id < expected:
        return (f"hand_id: hand {hand_id} again, where hand {expected} was due (hands are numbered from 0, in "
                "order, each once)")
    lost = f"hand {expected}" if hand_id == expected + 1 else f"hands {expected}-{hand_id - 1}"
    return f"hand_id: hand {hand_id} where hand {expected} was due ({lost} missing)"


def _replays_under_earlier_rule(record: dict[str, Any], v2: bool) -> bool:
    """Whether a refused hand matches in every field under the raise rule of earlier releases (E14)."""
    try:
        if v2:
            replay_v2(record, raise_cap=False)
        else:
            replay(record, raise_cap=False)
    except (ReplayError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return False
    return True
