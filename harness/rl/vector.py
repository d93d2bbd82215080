"""N tables of Seven Card Draw stepped in one call (a vectorised form of the AEC environment).

Each table is a :class:`harness.rl.aec.SevenCardDrawEnv`; :meth:`VectorEnv.step` takes one action index per
table, for the seat to act there, and returns numpy arrays. A table whose hand ends deals its next hand at
once (the referee's next hand of its match seed), so every row always holds a decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from harness.deals import match_seed, new_seed, parse_seed
from harness.engine import Phase
from harness.rl import encoding
from harness.rl.aec import SevenCardDrawEnv

__all__ = ["VectorEnv"]

_COMPLETE = Phase.COMPLETE


class VectorEnv:
    """``num_envs`` tables with the same settings (keyword arguments as :class:`SevenCardDrawEnv`).

    Table ``i`` deals the hands of match seed ``match_seed(seed, ["vector", str(i)])``
    (:func:`harness.deals.match_seed`): reproducible for a seed, different per table. ``tables[i].state``
    is table i's hand; the tables' PettingZoo bookkeeping (``rewards``, ``terminations``...) is not kept up.

    Raises:
        ValueError: ``num_envs`` below 1, and what :class:`SevenCardDrawEnv` raises.
    """

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.tables = [SevenCardDrawEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs = num_envs
        self.num_players = self.tables[0].num_players
        self._size = encoding.obs_size(self.num_players)
        self._unit = float(self.tables[0].game.unit)

    def _rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs, flat = encoding.new_rows(self.num_envs, self.num_players)
        size = self._size
        keys, seats = [], []
        for i, t in enumerate(self.tables):
            state = t.state
            s = state.to_act
            assert s is not None  # tables hold hands in play (a finished hand is replaced at once)
            keys.append(t._decision()[0])
            seats.append(s)
            encoding.observe_into(flat, i * size, state, s)
        return obs, encoding.MASKS[keys], np.array(seats, dtype=np.int64)

    def _deal(self, t: SevenCardDrawEnv, seed: int | None) -> None:
        t.reset(seed=seed)
        while t.state.phase is _COMPLETE:  # cannot happen with blinds or antes, but never hand back a finished hand
            t.reset()

    @staticmethod
    def _next_hand(t: SevenCardDrawEnv) -> None:
        """The table's next hand, without the PettingZoo bookkeeping of ``reset`` (nobody reads it here)."""
        while True:
            t.hand += 1
            t._start_hand(True)
            if t.state.phase is not _COMPLETE:
                return

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal hand 0 at every table (``seed`` as :meth:`SevenCardDrawEnv.reset` reads it).

        Raises:
            ValueError: a seed that is not a whole number in 0..2**256-1.

        Returns:
            ``(observations (N, obs_size) float32, action_masks (N, N_ACTIONS) int8, seats to act (N,))``.
        """
        root = new_seed() if seed is None else parse_seed(seed)
        for i, t in enumerate(self.tables):
            self._deal(t, match_seed(root, ["vector", str(i)]))
        return self._rows()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply ``actions[i]`` at table i; tables whose hand ended deal their next hand.

        Returns:
            ``(observations, action_masks, seats, rewards (N, num_players) float32 in big blinds, non-zero rows
            where a hand ended, done (N,) bool)``.

        Raises:
            ValueError: not one action per table (no table moves); an action a table's mask forbids (the
                tables before it have moved).
        """
        ended: list[int] = []
        nets: list[tuple[int, ...]] = []
        action_of = encoding.action_of
        if isinstance(actions, np.ndarray):
            actions = actions.tolist()  # Python ints: one conversion instead of one per table
        elif not isinstance(actions, list):
            actions = list(actions)
        if len(actions) != self.num_envs:  # before any table moves
            raise ValueError(f"actions: expected one per table, {self.num_envs}, got {len(actions)}")
        for i, (t, a) in enumerate(zip(self.tables, actions, strict=True)):
            state = t.state
            state.apply(action_of(state, t._decision(), a))
            if state.phase is _COMPLETE:
                ended.append(i)
                nets.append(state.result().net)
                self._next_hand(t)
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        if ended:
            rewards[ended] = np.array(nets, dtype=np.float32) / np.float32(self._unit)  # float32 as before
            done[ended] = True
        return (*self._rows(), rewards, done)
