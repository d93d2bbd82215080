"""The raiser: bets or raises the minimum whenever it can, else calls; draws to its best five.

Run: ``python -m bots.raiser`` (started by the harness, see protocol/PROTOCOL.md).
"""

from __future__ import annotations

from bots._cards import discard_to_best_five
from protocol.sdk import Action, Bot, DecisionState, bet, call, check, raise_to


class Raiser(Bot):
    """Maximum aggression at minimum size: ``min_to`` every time a bet or raise is legal."""

    def act(self, state: DecisionState) -> Action:
        if state.can("raise"):
            return raise_to(state.min_to)
        if state.can("bet"):
            return bet(state.min_to)
        return check() if state.can("check") else call()

    def draw(self, state: DecisionState) -> list[str]:
        return discard_to_best_five(state.cards)[: state.max_discards]


if __name__ == "__main__":
    raise SystemExit(Raiser().run())
