"""Pure Seven Card Draw rules (RULES.md): cards, evaluation, hand state machine, pots. No I/O.

Other draw games (R6-R8) are described by ``games`` (:class:`GameDefinition`); every game's
hand is a :class:`HandState` whose hooks its definition drives, dealt by ``games.start_hand``
(:func:`start_hand`), with the deuce-to-seven evaluator ``lowball`` and the jackpot openers
check ``openers``. ``jackpots`` (Five Card Draw's first interface, ``JackpotHand``) and
``tripledraw`` (``TripleDrawHand``) keep the names the games first had.

Public names follow docs/INTERNALS.md (Cards, Evaluator, Game settings, Hand
state machine). Modules: ``cards``, ``evaluator``, ``config`` (game settings), ``errors``,
``actions`` (actions, phases, legal sets), ``pots``; the hand state machine is ``state``
(:class:`HandState`: dealing, forced bets, the public API) built from ``legality`` (what may be
done now, and why not) and ``rounds`` (what an action changes), with ``fields`` (the hand's fields
and their types) and ``constants`` they share. ``native`` opens the native core (the same rules in Rust,
``harness_core``, built from ``native/``): imported only on request, never by this package;
``native_state`` plays a Seven Card Draw hand in it behind ``HandState``'s API (the referee's hand
when the crate is built).
"""

from harness.engine.actions import Action, ActionKind, Legal, Phase
from harness.engine.cards import card_str, cards_str, parse_card, parse_cards
from harness.engine.config import GameConfig, Replacements, Structure
from harness.engine.errors import (
    CardError,
    GameConfigError,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
)
from harness.engine.evaluator import Category, HandRank, best_hand, evaluate
from harness.engine.games import GAMES, GameDefinition, start_hand
from harness.engine.lowball import evaluate_27
from harness.engine.pots import HandResult, Pot
from harness.engine.state import HandState

__all__ = [
    "Action",
    "ActionKind",
    "CardError",
    "Category",
    "GAMES",
    "GameDefinition",
    "GameConfigError",
    "GameConfig",
    "HandRank",
    "HandResult",
    "HandState",
    "IllegalActionError",
    "InvalidActionError",
    "Legal",
    "Phase",
    "Pot",
    "ReplayError",
    "Replacements",
    "Structure",
    "best_hand",
    "card_str",
    "cards_str",
    "evaluate",
    "evaluate_27",
    "parse_card",
    "parse_cards",
    "start_hand",
]
