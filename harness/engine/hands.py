"""One hand of any defined game: the hand factory the layers above the engine deal through (RULES.md R6).

A game is named by its :class:`~harness.engine.games.GameDefinition`; :func:`start_hand` starts a hand
of it as a :class:`~harness.engine.state.HandState` (``apply``, ``legal``, ``observation``, ``result``),
so the referee, the histories and the tools drive every game the same way. A game whose hand class is
not (yet) a ``HandState`` is refused by :func:`game_problem` with one line, before anything runs.

>>> from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW
>>> hand = start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, GameConfig(), [500, 500], button=0, seed=7)
>>> type(hand).__name__, len(hand.cards[0])
('TripleDrawHand', 5)
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from harness.engine.config import GameConfig
from harness.engine.errors import GameConfigError
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition
from harness.engine.state import HandState

#: Each game's hand class, as ``module:Class`` (imported on first use: a game's module loads only
#: when that game is played).
_HAND_CLASSES = {
    "seven-card-draw": "harness.engine.state:HandState",
    "five-card-draw": "harness.engine.jackpots:JackpotHand",
    "deuce-to-seven-triple-draw": "harness.engine.tripledraw:TripleDrawHand",
}


def hand_class(game: GameDefinition) -> type:
    """The class whose ``start`` deals a hand of ``game`` (R6).

    Raises:
        GameConfigError: a game with no hand class (a definition made outside :data:`GAMES`).
    """
    where = _HAND_CLASSES.get(game.name)
    if where is None:
        raise GameConfigError(f"R6: no hand of {game.name!r} can be dealt; the games are {', '.join(GAMES)}")
    module, name = where.split(":")
    cls: type = getattr(importlib.import_module(module), name)
    return cls


def game_problem(game: GameDefinition, config: GameConfig, seats: int) -> str | None:
    """Why a match of ``game`` with ``config`` at ``seats`` seats cannot be dealt, or None (R6.2, R6.8).

    Returns:
        one line naming the rule, e.g. ``"R8.1: deuce-to-seven-triple-draw is played with blinds: ..."``.
    """
    try:
        cls = hand_class(game)
    except GameConfigError as exc:
        return str(exc)
    if not issubclass(cls, HandState):
        return f"R6: {game.name} is not played above the engine yet (its hands are not a HandState)"
    return game.seat_problem(seats) or game.config_problem(config)


def start_hand(game: GameDefinition, config: GameConfig, stacks: Sequence[int], button: int, seed: int,
               hand_id: int = 0, *, deck: Sequence[int | str] | None = None, raise_cap: bool = True) -> HandState:
    """Shuffle, post and deal one hand of ``game`` (R2, R6); the arguments are :meth:`HandState.start`'s.

    Seven Card Draw is ``HandState.start`` itself, so its hands are exactly those dealt before games existed.

    Raises:
        GameConfigError: settings, a table or a game the rules refuse (as ``HandState.start``; R6).
    """
    if game == SEVEN_CARD_DRAW:
        return HandState.start(config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap)
    problem = game_problem(game, config, len(stacks))
    if problem:
        raise GameConfigError(problem)
    cls: type[HandState] = hand_class(game)  # a HandState subclass: game_problem said so
    return cls.start(config, stacks, button, seed, hand_id, deck=deck, raise_cap=raise_cap)


__all__ = ["game_problem", "hand_class", "start_hand"]
