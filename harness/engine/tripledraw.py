"""Deuce-to-Seven Triple Draw (RULES.md R8, R6): :class:`TripleDrawHand`, the name of its hands.

A hand is :class:`harness.engine.state.HandState` started with the game's definition
(:data:`harness.engine.games.DEUCE_TO_SEVEN_TRIPLE_DRAW`, what
``start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, ...)`` does), which drives its hooks: five cards each, three
draws of 0 to 5 cards, four betting rounds, the small bet in rounds 1-2 and the big bet in rounds 3-4
(fixed-limit), the lowest hand wins (:func:`harness.engine.lowball.rank_27`). Every betting rule (R3:
what is legal, full and short raises, the cap, uncalled chips, skipped rounds), the posts (R2), the
reshuffle (R4.4, R6.9) and the pots (R5.5, R5.6) are HandState's own code. One hand::

    >>> from harness.engine import GameConfig
    >>> hand = TripleDrawHand.start(GameConfig(structure="fixed-limit"), stacks=[500, 500], button=0, seed=7)
    >>> hand.to_act, hand.legal().call_amount          # heads-up: the button posts the small blind, acts first
    (0, 5)
    >>> hand.call(); hand.check()                      # the big blind checks its option (R3.2)
    >>> str(hand.phase), hand.to_act, hand.betting_round  # the draw starts left of the button (R8.1)
    ('draw', 1, 1)
    >>> for _ in range(3):
    ...     hand.draw([]); hand.draw([]); hand.check(); hand.check()
    >>> hand.is_complete, sum(hand.result().net), hand.betting_round
    (True, 0, 4)

Phases: ``bet1`` is round 1, ``draw`` each draw, ``bet2`` each later round (``betting_round`` says
which, 2 to 4): the phase names stay those of the records.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.engine.config import GameConfig
from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW, GameDefinition
from harness.engine.lowball import rank_27
from harness.engine.state import HandState


class TripleDrawHand(HandState):
    """One hand of Deuce-to-Seven Triple Draw (R8): a ``HandState`` of the game (``apply``, ``legal``...).

    ``betting_round``: 1 to 4, the round being bet or, during a draw, the round just played.
    ``draws[s]`` holds the cards seat s took in its latest draw.
    """

    __slots__ = ()

    GAME: GameDefinition = DEUCE_TO_SEVEN_TRIPLE_DRAW

    @classmethod
    def start(cls, config: GameConfig, stacks: Sequence[int], button: int, seed: int, hand_id: int = 0,
              *, deck: Sequence[int | str] | None = None, raise_cap: bool = True,
              game: GameDefinition = DEUCE_TO_SEVEN_TRIPLE_DRAW, carried: int = 0) -> TripleDrawHand:
        """Shuffle, post the blinds (and any ante), deal five cards each (R8.1, R2).

        Args: as :meth:`HandState.start`; 2 to 6 seats (R8.1); blinds required; replacements from the stock.

        Raises:
            GameConfigError: a table or game the rules refuse (R6.8, R8.1, R1.4, R2.1), per-seat replacements.
        """
        hand = super().start(config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap,
                             game=game, carried=carried)
        assert isinstance(hand, TripleDrawHand)
        return hand


__all__ = ["TripleDrawHand", "rank_27"]
