"""What the RL test modules share: a policy played through ``as_bot`` seen against the environment's own view."""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.engine import GameConfig
from harness.rl import as_bot, raw_env
from harness.rl.gym import SdkOpponent, random_policy


def assert_as_bot_sees_the_environments_view(games: list[GameConfig], seed: int, **options: Any) -> None:
    """Three ``as_bot`` seats play 8 hands of each game in ``games`` (``raw_env`` with ``options``, e.g.
    ``features=True``); at every decision the bot's view (observation and mask) equals the environment's."""
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    chooser = random_policy(4)

    def policy(view: dict[str, np.ndarray]) -> int:
        seen.append((view["observation"], view["action_mask"]))
        return chooser(view)

    for game in games:
        e = raw_env(num_players=3, game=game, starting_stack=150, **options)
        bots = {s: SdkOpponent(as_bot(policy, **options)) for s in range(3)}
        e.reset(seed=seed)
        names = ["a", "b", "c"]
        for s, b in bots.items():
            b.start_match(e, s, names)
        for hand in range(8):
            if hand:
                e.reset()
            for s, b in bots.items():
                b.start_hand(e.state, s, names)
            while not e.state.is_complete:
                s = e.state.to_act
                expected = e.observe(f"player_{s}")
                seen.clear()
                e.state.apply(bots[s].decide(e.state, s))
                assert len(seen) == 1 and bots[s].faults == 0
                assert np.array_equal(seen[0][0], expected["observation"]), (game, hand)
                assert np.array_equal(seen[0][1], expected["action_mask"]), (game, hand)
            for b in bots.values():
                b.end_hand()
