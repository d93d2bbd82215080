"""The random bot: a uniformly random legal action, amount and discard set.

Run: ``python -m bots.random_bot``. Set ``RANDOM_BOT_SEED`` (an int) for repeatable choices.
"""

from __future__ import annotations

import os
import random

from protocol.sdk import Action, Bot, DecisionState


class RandomBot(Bot):
    """Picks uniformly among the legal actions; bet/raise amounts uniform in min_to..max_to.

    Args:
        seed: Seed of its own generator; default ``RANDOM_BOT_SEED`` or fresh entropy.
    """

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        if seed is None and os.environ.get("RANDOM_BOT_SEED", "").lstrip("-").isdigit():
            seed = int(os.environ["RANDOM_BOT_SEED"])
        self.rng = random.Random(seed)

    def act(self, state: DecisionState) -> Action:
        kind = self.rng.choice(state.legal.actions)
        if kind == "bet" or kind == "raise":
            return Action(kind, self.rng.randint(state.min_to, state.max_to))
        return Action(kind)

    def draw(self, state: DecisionState) -> list[str]:
        k = self.rng.randint(0, state.max_discards)
        return self.rng.sample(list(state.cards), k)


if __name__ == "__main__":
    raise SystemExit(RandomBot().run())
