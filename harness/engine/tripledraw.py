"""The hand state machine of Deuce-to-Seven Triple Draw (RULES.md R8, R6).

:class:`TripleDrawHand` is Seven Card Draw's :class:`harness.engine.state.HandState` with the game's
definition (:data:`harness.engine.games.DEUCE_TO_SEVEN_TRIPLE_DRAW`) in place of Seven Card Draw's
numbers: five cards each, three draws of 0 to 5 cards, four betting rounds, the small bet in rounds 1-2
and the big bet in rounds 3-4 (fixed-limit), the lowest hand wins (:func:`harness.engine.lowball.evaluate_27`).
Every betting rule (R3: what is legal, full and short raises, the cap, uncalled chips, skipped rounds),
the posts (R2), the reshuffle (R4.4, R6.9) and the pots (R5.5, R5.6) are HandState's own code. Matches
deal it through :func:`harness.engine.hands.start_hand`. One hand::

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

from harness.engine.actions import DRAW, Legal
from harness.engine.config import GameConfig, Replacements
from harness.engine.constants import BET2, DRAW_PHASE
from harness.engine.errors import GameConfigError
from harness.engine.evaluator import HandRank
from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW, GameDefinition
from harness.engine.lowball import evaluate_27, low_category
from harness.engine.state import HandState, _checked_start


def rank_27(cards: Sequence[int]) -> HandRank:
    """A five-card hand as a :class:`HandRank` ordered deuce-to-seven: higher ``value`` is the lower,
    better hand (R8.2); ``category`` is its R5.2 category, ``five`` its cards highest rank first."""
    value = evaluate_27(cards)
    return HandRank(value, low_category(value), tuple(sorted(cards, reverse=True)))


class TripleDrawHand(HandState):
    """One hand of Deuce-to-Seven Triple Draw (R8), driven as a ``HandState`` (``apply``, ``legal``...).

    ``betting_round``: 1 to 4, the round being bet or the round the current draw leads to minus one.
    ``draws[s]`` holds the cards seat s took in its latest draw. ``clone`` is not offered.
    """

    __slots__ = ("_round",)
    _round: int  # the betting round, 1..4

    GAME: GameDefinition = DEUCE_TO_SEVEN_TRIPLE_DRAW
    _max_discards = DEUCE_TO_SEVEN_TRIPLE_DRAW.max_discards
    _draw_legal = Legal((DRAW,), max_discards=DEUCE_TO_SEVEN_TRIPLE_DRAW.max_discards)
    _rank_hand = staticmethod(rank_27)

    @classmethod
    def start(cls, config: GameConfig, stacks: Sequence[int], button: int, seed: int, hand_id: int = 0,
              *, deck: Sequence[int | str] | None = None, raise_cap: bool = True) -> TripleDrawHand:
        """Shuffle, post the blinds (and any ante), deal five cards each (R8.1, R2).

        Args: as :meth:`HandState.start`; 2 to 6 seats (R8.1); blinds required; replacements from the stock.

        Raises:
            GameConfigError: a table or game the rules refuse (R6.8, R8.1, R1.4, R2.1), per-seat replacements.
        """
        game = cls.GAME
        problem = game.seat_problem(len(stacks)) if isinstance(config, GameConfig) else None
        if problem is None and isinstance(config, GameConfig):
            problem = game.config_problem(config)
            if problem is None and config.replacements is Replacements.PER_SEAT:
                problem = f"R6.9: {game.name} draws from the stock: replacements = 'per-seat' is Seven Card Draw's"
        if problem:
            raise GameConfigError(problem)
        checked = _checked_start(config, stacks, button, seed, deck)
        self = object.__new__(cls)
        self._round = 1
        self._setup(config, stacks, button, seed, hand_id, checked, raise_cap, game.hole_cards)
        return self

    @property
    def betting_round(self) -> int:
        """The betting round, 1 to 4 (during a draw: the round just played)."""
        return self._round

    def clone(self) -> HandState:
        """Not offered for this game (Seven Card Draw's search copy)."""
        raise NotImplementedError(f"clone: not offered for {self.GAME.name}")

    # --- the game's shape over HandState's rounds (R6.4, R6.5, R6.6) ------------------------------

    def _after_round(self) -> None:
        if self._round <= self.GAME.draws:
            self._begin_draw()
        else:
            self._showdown()

    def _begin_draw(self) -> None:
        """Every player still in draws once, from the first left of the button (R8.1)."""
        n = self.n
        folded = self.folded
        order = [(self.button + 1 + k) % n for k in range(n)]
        self._draw_order = [s for s in order if not folded[s]]
        self._draw_index = 0
        self.phase = DRAW_PHASE
        self.to_act = self._draw_order[0]
        self._legal = None

    def _begin_bet2(self) -> None:
        """The next betting round, first player still in left of the button (R8.1, R3.3)."""
        self._round += 1
        self.phase = BET2
        n = self.n
        self._high = 0
        unit = self.config.unit
        if self._fl:
            self._unit = unit * self.GAME.limit_sizes[self._round - 1]  # R3.7, R8.1: small or big bet
            self._inc = self._unit
        else:
            # R3.6 applies round 1's rule to every round: a bet or raise of at least the big blind and
            # the previous full raise; Seven Card Draw's doubled first bet is its own (R6.6).
            self._inc = 2 * self._r1_high if self.GAME.doubled_first_bet else unit
        self._nbets = 0
        self._acted = [False] * n
        self._acted_high = [0] * n
        self._aggressor = None  # R5.7: the last bettor of the last round shows first
        self._begin_round(self.button)

    def _do_fold(self, s: int) -> None:
        super()._do_fold(s)
        self.cards[s] = []  # the folded hand is in the muck (R6.9), no longer the seat's


__all__ = ["TripleDrawHand", "rank_27"]
