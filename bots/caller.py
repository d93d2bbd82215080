"""The caller: always checks or calls, and draws to its best five.

Run: ``python -m bots.caller`` (started by the harness, see protocol/PROTOCOL.md).
"""

from __future__ import annotations

from bots._cards import discard_to_best_five
from protocol.sdk import Action, Bot, DecisionState, call, check


class Caller(Bot):
    """Never folds, never raises; discards the two cards outside its best five."""

    def act(self, state: DecisionState) -> Action:
        return check() if state.can("check") else call()

    def draw(self, state: DecisionState) -> list[str]:
        return discard_to_best_five(state.cards)[: state.max_discards]


if __name__ == "__main__":
    raise SystemExit(Caller().run())
