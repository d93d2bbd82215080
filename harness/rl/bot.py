"""``as_bot(policy)``: a policy of the environments, unchanged, as a Python SDK bot over the real protocol.

The bot rebuilds, from each request the referee sends, the observation and the action mask the
environment gives for the same decision (:mod:`harness.rl.encoding`), asks the policy for an action index
and answers with the action it encodes. Chips a seat put in this hand (``contrib``) are its stack at
``hand_start`` less its stack now. Needs numpy only (not PettingZoo or Gymnasium), so the bot starts fast.

The bot plays Seven Card Draw only (its observation is that game's): told another game (``match_start``'s
``game.name``, PROTOCOL.md section 6), it says so in one line on stderr and leaves the match, as ``bots.solid``.

A bot file (``mybot.py``, run with ``harness match --bot me='python mybot.py' ...``)::

    from harness.rl import as_bot

    def policy(observation):            # {"observation": float32 vector, "action_mask": int8 vector}
        return int(observation["action_mask"].nonzero()[0][0])

    if __name__ == "__main__":
        as_bot(policy).run()
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from harness.engine.cards import CARD_STRS, parse_card
from harness.engine.config import TABLE_SIZES
from harness.rl import encoding, features
from protocol.sdk import SEVEN_CARD_DRAW, Action, Bot

__all__ = ["PolicyBot", "as_bot"]


class PolicyBot(Bot):
    """The SDK bot of :func:`as_bot`.

    Args:
        policy: ``policy({"observation": ..., "action_mask": ...}) -> int`` (an action index).
        seats: the table size the policy was made for (its observation's length depends on it), or None
            for any. At another size every request fails with a ``ValueError`` naming both sizes (the SDK
            prints it and answers the default action) instead of whatever the policy would raise.
    """

    def __init__(self, policy: Callable[[dict[str, np.ndarray]], int], seats: int | None = None,
                 features: bool = False) -> None:
        super().__init__()
        self.features = features
        if seats is not None and (type(seats) is not int or seats not in TABLE_SIZES):
            raise ValueError(f"seats must be a table size 2..6 or None, got {seats!r}")
        self.policy = policy
        self.seats = seats
        self._start: list[int] | None = None
        self._unit = 10

    def on_match_start(self, msg: Any) -> None:
        game = msg.game
        if game.name != SEVEN_CARD_DRAW:  # the observation and the draw actions are Seven Card Draw's
            sys.stderr.write(f"as_bot: this policy plays {SEVEN_CARD_DRAW} only (its observation is that game's), "
                             f"not {game.name}; leaving the match\n")
            raise SystemExit(0)
        self._unit = game.big_blind if game.blinds else game.min_bet

    def on_hand_start(self, msg: Any) -> None:
        self._start = list(msg.stacks)

    def _view(self, state: Any) -> tuple[dict[str, np.ndarray], list[int], int, int]:
        raw = state.raw
        n = len(raw["stacks"])
        if self.seats is not None and n != self.seats:
            raise ValueError(f"this policy plays {self.seats} seats (observations of {encoding.obs_size(self.seats)} "
                             f"values); this table has {n}")
        seat = raw["seat"]
        stacks = raw["stacks"]
        start = self._start if self._start is not None and len(self._start) == n else stacks
        contrib = [start[s] - stacks[s] for s in range(n)]
        cards = [parse_card(c) for c in raw["cards"]]
        phase = raw["phase"]
        legal = state.legal
        bet, pot = raw["bets"][seat], raw["pot"]
        obs = encoding.encode(n, float(self._unit), seat, cards, phase, raw["button"], raw["to_act"], stacks,
                              raw["bets"], contrib, legal if phase != "draw" else None, raw["folded"],
                              raw["all_in"], raw["draws"], raw["history"], {})
        if self.features:
            call = legal.call_amount if phase in ("bet1", "bet2") and raw["to_act"] == seat else 0
            obs = np.concatenate([obs, np.zeros(features.SIZE, np.float32)])
            features.fill(obs, len(obs) - features.SIZE, n, seat, cards, raw["draws"][seat] is not None,
                          raw["button"], sum(contrib), call)
        m = encoding.mask_of(phase, legal, bet, pot)
        return {"observation": obs, "action_mask": m}, cards, bet, pot

    def act(self, state: Any) -> Action:
        view, cards, bet, pot = self._view(state)
        kind, amount = encoding.decode_of(state.phase, state.legal, bet, pot, cards, self.policy(view))
        return Action(kind, amount or 0)

    def draw(self, state: Any) -> list[str]:
        view, cards, bet, pot = self._view(state)
        _, discards = encoding.decode_of("draw", state.legal, bet, pot, cards, self.policy(view))
        return [CARD_STRS[c] for c in discards]


def as_bot(policy: Callable[[dict[str, np.ndarray]], int], seats: int | None = None,
           features: bool = False) -> PolicyBot:
    """A bot playing ``policy`` (the environments' observation in, an action index out); call ``.run()``.

    ``seats``: the table size the policy was made for; ``features``: the policy reads the ``features=True``
    observation (:class:`PolicyBot`).

    Raises:
        ValueError: ``seats`` is not a table size 2..6.
    """
    return PolicyBot(policy, seats, features)
