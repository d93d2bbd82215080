"""Game definitions: what makes one draw game differ from another (RULES.md R6).

A :class:`GameDefinition` is a frozen value: cards dealt, forced bets, the
opening requirement, draws and cards per draw, betting rounds and who acts
first, the evaluation, seats allowed, the reshuffle rule and passed-out
deals. :data:`SEVEN_CARD_DRAW` (R1-R5), :data:`FIVE_CARD_DRAW` (R7) and
:data:`DEUCE_TO_SEVEN_TRIPLE_DRAW` (R8) all run through one hand state machine,
:class:`harness.engine.state.HandState`, whose hooks the definition drives;
Seven Card Draw's numbers are the engine's constants (``constants.HOLE_CARDS``,
``config.MAX_PLAYERS`` ... read them from here). :func:`start_hand` deals one
hand of any game: the one factory for everything above the engine.

>>> GAMES["five-card-draw"].betting_rounds, GAMES["five-card-draw"].max_seats
(2, 8)
>>> DEUCE_TO_SEVEN_TRIPLE_DRAW.limit_sizes
(1, 1, 2, 2)
>>> from harness.engine.config import GameConfig
>>> hand = start_hand(FIVE_CARD_DRAW, GameConfig(blinds=False, ante=1, min_bet=10), [100, 100, 100], 0, seed=3)
>>> hand.game.name, hand.to_act, hand.pot                 # three antes; round 1 starts left of the button
('five-card-draw', 1, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from harness.engine.errors import GameConfigError

if TYPE_CHECKING:
    from harness.engine.config import GameConfig
    from harness.engine.state import HandState


class Evaluation(StrEnum):
    """How showdown hands compare (R6.7): ``high`` (R5.2-R5.4) or ``deuce-to-seven`` low (R8.2)."""

    HIGH = "high"
    DEUCE_TO_SEVEN = "deuce-to-seven"


class Openers(StrEnum):
    """What a player needs to make the first bet of round 1 (R6.3, R7.2).

    ``none``: anyone may bet. ``jacks``: a pair of jacks or better.
    ``jack-card``: any jack, queen, king or ace (the source text's literal words).
    """

    NONE = "none"
    JACKS = "jacks"
    JACK_CARD = "jack-card"


class ForcedBets(StrEnum):
    """Forced bets a game allows (R6.2).

    ``blinds-or-antes``: blinds (with an optional ante) or an ante-only game (R2.2-R2.5).
    ``antes-only``: ``blinds = false`` is required (R7.1). ``blinds``: blinds are required (R8.1).
    """

    BLINDS_OR_ANTES = "blinds-or-antes"
    ANTES_ONLY = "antes-only"
    BLINDS = "blinds"


class FirstToAct(StrEnum):
    """Who acts first in the betting rounds after the first draw (R6.5), and who draws first.

    ``left-of-big-blind``: the first player still in left of the big blind (left of
    the button without blinds). ``left-of-button``: the first player still in left of
    the button. ``opener``: the opener, or the first player still in left of the opener (R7.6).
    """

    LEFT_OF_BIG_BLIND = "left-of-big-blind"
    LEFT_OF_BUTTON = "left-of-button"
    OPENER = "opener"


class Reshuffle(StrEnum):
    """Where replacements come from once the stock runs out (R6.9).

    ``muck``: R4.4 in every game: the rest of the stock, then the muck (every earlier
    discard and folded hand, never the current drawer's own discards) shuffled with
    the hand's seeded generator. The only rule so far; a value so records can name it.
    """

    MUCK = "muck"


@dataclass(frozen=True, slots=True)
class GameDefinition:
    """One draw game (R6). Frozen; compare by value.

    Attributes:
        name: the game's name in files and on the wire, e.g. ``"five-card-draw"``.
        hole_cards: cards dealt to each player (R6.1); the best five play.
        forced_bets: which forced bets the game allows (R6.2).
        openers: the opening requirement of round 1 (R6.3).
        draws: how many draws (R6.4); betting rounds are ``draws + 1`` (R6.5).
        max_discards: the most cards one player may discard in one draw (R6.4).
        draw_order: who draws first, ``left-of-big-blind`` or ``left-of-button`` (R6.5).
        later_rounds_first: who acts first after each draw (R6.5, R7.6).
        limit_sizes: fixed-limit bet of each betting round in small bets, one per
            round: 1 the small bet, 2 the big bet (R3.7, R6.6).
        doubled_first_bet: no-limit: the first bet after the draw is at least twice
            round 1's final bet (R3.6, Seven Card Draw only, R6.6).
        evaluation: ``high`` or ``deuce-to-seven`` (R6.7).
        min_seats, max_seats: players allowed at one table (R6.8).
        reshuffle: the reshuffle rule (R6.9).
        passed_out: a deal nobody opens is passed out, its pot carried (R6.10, R7.4): a game of
            openers, whose first bet of round 1 is the open, whatever ``openers`` requires
            (``none``: anyone may open, and a deal all check is still passed out).

    Raises:
        GameConfigError: fields that contradict each other (naming the field and R6).
    """

    name: str
    hole_cards: int
    forced_bets: ForcedBets
    openers: Openers
    draws: int
    max_discards: int
    draw_order: FirstToAct
    later_rounds_first: FirstToAct
    limit_sizes: tuple[int, ...]
    doubled_first_bet: bool
    evaluation: Evaluation
    min_seats: int
    max_seats: int
    reshuffle: Reshuffle = Reshuffle.MUCK
    passed_out: bool = False

    def __post_init__(self) -> None:
        if not 5 <= self.hole_cards <= 7:
            raise GameConfigError(f"R6.1: {self.name}: hole_cards must be 5..7, got {self.hole_cards}")
        if not 1 <= self.draws or not 0 <= self.max_discards <= self.hole_cards:
            raise GameConfigError(f"R6.4: {self.name}: draws >= 1 and max_discards 0..hole_cards")
        if len(self.limit_sizes) != self.betting_rounds or any(s not in (1, 2) for s in self.limit_sizes):
            raise GameConfigError(f"R6.6: {self.name}: limit_sizes needs {self.betting_rounds} entries of 1 or 2")
        if self.draw_order == FirstToAct.OPENER:
            raise GameConfigError(f"R6.5: {self.name}: the draw starts left of the big blind or the button")
        if self.openers != Openers.NONE and not self.passed_out:
            raise GameConfigError(f"R6.10: {self.name}: openers are required only where a deal can be passed out")
        if self.passed_out and self.forced_bets != ForcedBets.ANTES_ONLY:
            raise GameConfigError(f"R6.10: {self.name}: a deal can be passed out only in a game of antes only")
        if (self.later_rounds_first == FirstToAct.OPENER) != self.passed_out:
            raise GameConfigError(
                f"R7.6: {self.name}: the opener acts first after the draw exactly in a game of openers"
            )
        if not 2 <= self.min_seats <= self.max_seats or self.max_seats * self.hole_cards > 52:
            raise GameConfigError(f"R6.8: {self.name}: seats {self.min_seats}..{self.max_seats} cannot all be dealt")

    @property
    def betting_rounds(self) -> int:
        """One before the first draw and one after each draw (R6.5)."""
        return self.draws + 1

    def seat_problem(self, n: object) -> str | None:
        """Why ``n`` players cannot sit at one table of this game, or None (R6.8)."""
        if type(n) is int and self.min_seats <= n <= self.max_seats:
            return None
        return f"R6.8: a table of {self.name} seats {self.min_seats} to {self.max_seats} players, got {n!r}"

    def config_problem(self, config: GameConfig) -> str | None:
        """Why ``config``'s forced bets do not suit this game, or None (R6.2, R7.1, R8.1)."""
        if self.forced_bets == ForcedBets.ANTES_ONLY and config.blinds:
            return f"R7.1: {self.name} is played with antes only: set blinds = false, ante and min_bet"
        if self.forced_bets == ForcedBets.BLINDS and not config.blinds:
            return f"R8.1: {self.name} is played with blinds: blinds = false is not allowed"
        return None


#: Seven Card Draw (R1-R5), the game the harness plays.
SEVEN_CARD_DRAW = GameDefinition(
    name="seven-card-draw",
    hole_cards=7,
    forced_bets=ForcedBets.BLINDS_OR_ANTES,
    openers=Openers.NONE,
    draws=1,
    max_discards=4,
    draw_order=FirstToAct.LEFT_OF_BIG_BLIND,
    later_rounds_first=FirstToAct.LEFT_OF_BUTTON,
    limit_sizes=(1, 2),
    doubled_first_bet=True,
    evaluation=Evaluation.HIGH,
    min_seats=2,
    max_seats=6,
)

#: Five Card Draw with openers, jacks or better (R7); ``openers`` may be replaced (``dataclasses.replace``).
FIVE_CARD_DRAW = GameDefinition(
    name="five-card-draw",
    hole_cards=5,
    forced_bets=ForcedBets.ANTES_ONLY,
    openers=Openers.JACKS,
    draws=1,
    max_discards=5,
    draw_order=FirstToAct.LEFT_OF_BUTTON,
    later_rounds_first=FirstToAct.OPENER,
    limit_sizes=(1, 2),
    doubled_first_bet=False,
    evaluation=Evaluation.HIGH,
    min_seats=2,
    max_seats=8,
    passed_out=True,
)

#: Deuce-to-Seven Triple Draw (R8).
DEUCE_TO_SEVEN_TRIPLE_DRAW = GameDefinition(
    name="deuce-to-seven-triple-draw",
    hole_cards=5,
    forced_bets=ForcedBets.BLINDS,
    openers=Openers.NONE,
    draws=3,
    max_discards=5,
    draw_order=FirstToAct.LEFT_OF_BUTTON,
    later_rounds_first=FirstToAct.LEFT_OF_BUTTON,
    limit_sizes=(1, 1, 2, 2),
    doubled_first_bet=False,
    evaluation=Evaluation.DEUCE_TO_SEVEN,
    min_seats=2,
    max_seats=6,
)

#: Every defined game by name.
GAMES: dict[str, GameDefinition] = {g.name: g for g in (SEVEN_CARD_DRAW, FIVE_CARD_DRAW, DEUCE_TO_SEVEN_TRIPLE_DRAW)}


def with_openers(game: GameDefinition, rule: Openers | str) -> GameDefinition:
    """``game`` with another opening requirement (R7.2: ``jacks``, ``jack-card``), e.g. Five Card Draw
    under the source text's literal rule.

    Raises:
        GameConfigError: an unknown rule, or one the game cannot take (a requirement in a game
            whose deals are never passed out: R6.10).
    """
    try:
        rule = Openers(rule)
    except ValueError:
        raise GameConfigError(f"R7.2: openers must be one of {', '.join(Openers)}, got {rule!r}") from None
    return game if rule == game.openers else replace(game, openers=rule)


def start_hand(definition: GameDefinition, config: GameConfig, stacks: Sequence[int], button: int, seed: int,
               hand_id: int = 0, *, carried: int = 0, deck: Sequence[int | str] | None = None,
               raise_cap: bool = True) -> HandState:
    """Deal one hand of ``definition``'s game: the hand factory of every game (R6).

    The hand is a :class:`harness.engine.state.HandState` driven as for Seven Card Draw (``legal``,
    ``apply``, ``result``, ``observation``...), its game in ``hand.game``. For Seven Card Draw this is
    exactly ``HandState.start(config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap)``:
    same deal, same hand, bit for bit.

    Args:
        definition: the game, e.g. ``GAMES["five-card-draw"]`` (openers: :func:`with_openers`).
        config: the settings; a game may refuse some (antes only in Five Card Draw, R7.1; blinds in
            Triple Draw, R8.1; per-seat replacements outside Seven Card Draw, R6.9).
        stacks: chips per seat (each >= 1; ``definition.min_seats``..``max_seats`` seats, R6.8).
        button: the button's seat index (the dealer).
        seed: the hand's seed: the deal and any reshuffle (R2.7, R6.9).
        hand_id: the caller's number for the hand (records only).
        carried: chips carried in from passed-out deals (R7.4), dead money in the main pot; after a
            passed-out deal pass its ``result().carried_out``, with the button moved one seat left.
        deck: a stacked deck (tests, examples), as :meth:`HandState.start`.
        raise_cap: as :meth:`HandState.start` (False only to replay old Seven Card Draw histories).

    Returns:
        the hand, with the forced bets posted and round 1's first player (or the draw) to act.

    Raises:
        GameConfigError: a table, setting or carried amount the game refuses, naming the rule.
    """
    # Imported here: the hand state machine reads its definitions from this module (a cycle otherwise).
    from harness.engine.state import HandState

    return HandState.start(config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap,
                           game=definition, carried=carried)


#: The games a match deals (the referee, histories, the protocol): every game here. A passed-out Five Card
#: Draw deal carries its antes into the next hand (R7.4): the referee deals it with ``carried``.
MATCH_GAMES = frozenset({SEVEN_CARD_DRAW.name, FIVE_CARD_DRAW.name, DEUCE_TO_SEVEN_TRIPLE_DRAW.name})


def game_problem(definition: GameDefinition, config: GameConfig, seats: int) -> str | None:
    """Why a match of ``definition``'s game with ``config`` at ``seats`` seats cannot be dealt, or None (R6).

    Returns:
        one line naming the rule (R6.8 seats, R7.1/R8.1 forced bets...), or that matches do not deal the
        game yet (:data:`MATCH_GAMES`).
    """
    if definition.name not in MATCH_GAMES:
        return (f"R6: {definition.name} is not played in matches yet; the games matches deal: "
                f"{', '.join(sorted(MATCH_GAMES))}")
    return definition.seat_problem(seats) or definition.config_problem(config)

