"""N tables of Seven Card Draw stepped in Rust in one call: :class:`NativeVectorEnv`, a drop-in for
:class:`harness.rl.vector.VectorEnv`.

The same constructor, spaces, ``reset``/``step`` and arrays as ``VectorEnv`` (self-play, one row per table,
Gymnasium's ``AutoresetMode.SAME_STEP``, ``infos["final_obs"]``...), and for the same seed and actions the same
numbers, step for step (tests/test_native_vector.py): the rules, the deals (``harness.deals``' hand seeds, CPython's
Mersenne Twister), the observation and mask encodings (:mod:`harness.rl.encoding`) all run in the native core
(:class:`harness.engine.native.NativeTables`), which writes every table's row into the step's NumPy arrays.

What differs: ``features=True`` is refused (the hand-strength fields are computed in Python: use ``VectorEnv``);
the tables hold no ``SevenCardDrawEnv``, so there is no ``tables[i].state`` (:meth:`NativeVectorEnv.hand` gives a
copy of table i's hand as a :class:`harness_core.NativeHand`). :meth:`NativeVectorEnv.random_actions` draws a
uniformly random legal index per table in Rust (baselines, benchmarks).
"""

from __future__ import annotations

from operator import index as _as_index
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as _GymVectorEnv
from gymnasium.vector.utils import batch_space

from harness.deals import match_seed, new_seed, parse_seed
from harness.engine.native import NativeHand, NativeTables
from harness.rl import encoding
from harness.rl.aec import SevenCardDrawEnv

__all__ = ["NativeVectorEnv"]

_INT64 = np.iinfo(np.int64)


class NativeVectorEnv(_GymVectorEnv):
    """``num_envs`` tables with the same settings, stepped in the native core (module doc).

    Arguments, seeds, spaces and ``metadata`` as :class:`harness.rl.vector.VectorEnv`: table ``i`` deals the hands
    of match seed ``match_seed(seed, ["vector", str(i)])``, hand ``h`` from ``hand_seed(that, h)`` with the button at
    seat ``h % num_players``.

    Args:
        num_envs: tables, at least 1.
        chooser_seed: the seed of :meth:`random_actions`' numbers (never the deal's).
        **kwargs: as :class:`SevenCardDrawEnv` (``num_players``, ``game``, ``starting_stack``, game fields).

    Raises:
        ValueError: ``num_envs`` below 1, ``features=True``, a starting stack above 2**50 chips, and what
            :class:`SevenCardDrawEnv` raises.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, *, chooser_seed: int = 1, **kwargs: Any) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        if kwargs.get("features"):
            raise ValueError("features=True is not in the native tables (its fields are computed in Python): "
                             "use harness.rl.vector.VectorEnv")
        if type(chooser_seed) is not int or not 0 <= chooser_seed < 2**64:
            raise ValueError(f"chooser_seed must be a whole number in 0..2**64-1, got {chooser_seed!r}")
        table = SevenCardDrawEnv(**kwargs)  # checks the settings and gives the spaces
        game = table.game
        self._settings: dict[str, Any] = {
            "structure": str(game.structure), "small_blind": game.small_blind, "big_blind": game.big_blind,
            "ante": game.ante, "blinds": game.blinds, "min_bet": game.min_bet, "cap": game.cap,
            "replacements": str(game.replacements), "chooser_seed": chooser_seed,
        }
        self.num_envs = num_envs
        self.num_players = table.num_players
        self.starting_stack = table.starting_stack
        self.game = game
        self._size = encoding.obs_size(self.num_players)
        self.single_observation_space = table.observation_space("player_0")
        self.single_action_space = spaces.Discrete(encoding.N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._core: Any = None
        self._none_mask = encoding.mask_row(encoding.NONE_KEY)

    def _tables(self) -> Any:
        core = self._core
        if core is None:
            raise RuntimeError("no hands yet: call reset() first")
        return core

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal hand 0 at every table, as :meth:`harness.rl.vector.VectorEnv.reset` (same returns).

        Raises:
            ValueError: a seed that is not a whole number in 0..2**256-1.
        """
        root = new_seed() if seed is None else parse_seed(seed)
        seeds = [match_seed(root, ["vector", str(i)]).to_bytes(32, "big") for i in range(self.num_envs)]
        self._core = core = NativeTables(seeds, self.num_players, self.starting_stack, **self._settings)
        n = self.num_envs
        obs = np.empty((n, self._size), np.float32)
        masks = np.empty((n, encoding.N_ACTIONS), np.int8)
        seats = np.empty(n, np.int64)
        core.rows(obs, masks, seats)
        return {"observation": obs, "action_mask": masks}, {"seat": seats, "action_mask": masks}

    def _indices(self, actions: Any) -> np.ndarray:
        """``actions`` as an int64 array of one index per table, refused as ``VectorEnv`` refuses them."""
        if isinstance(actions, np.ndarray) and actions.ndim == 1 and actions.dtype.kind in "iu":
            if len(actions) != self.num_envs:
                raise ValueError(f"actions: expected one per table, {self.num_envs}, got {len(actions)}")
            if actions.dtype.kind == "u" and len(actions) and actions.max() > _INT64.max:
                return self._indices(actions.tolist())
            return np.ascontiguousarray(actions, dtype=np.int64)
        if isinstance(actions, np.ndarray):
            actions = actions.tolist()
        elif not isinstance(actions, list):
            actions = list(actions)
        if len(actions) != self.num_envs:
            raise ValueError(f"actions: expected one per table, {self.num_envs}, got {len(actions)}")
        out = np.empty(self.num_envs, np.int64)
        for i, a in enumerate(actions):
            try:
                a = encoding.action_index(a)
            except ValueError as exc:
                raise ValueError(f"table {i}: {exc} (no table moved)") from None
            if not _INT64.min <= a <= _INT64.max:  # no action index: refused with the table's phase
                phase = self._tables().hand(i).phase
                raise ValueError(f"table {i}: action {a} is not legal now (phase {phase}) (no table moved)")
            out[i] = a
        return out

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply ``actions[i]`` at table i (all checked before any table moves), as
        :meth:`harness.rl.vector.VectorEnv.step`: the same returns, arrays and ``infos`` keys.

        Raises:
            ValueError: not one action per table; an action a table's mask forbids (the table named). Either
                way no table moves.
            RuntimeError: before the first :meth:`reset`.
        """
        core = self._tables()
        chosen = self._indices(actions)
        n, players, size = self.num_envs, self.num_players, self._size
        obs = np.empty((n, size), np.float32)
        masks = np.empty((n, encoding.N_ACTIONS), np.int8)
        seats = np.empty(n, np.int64)
        rewards = np.empty(n, np.float32)
        terminated = np.empty(n, bool)
        every = np.empty((n, players), np.float32)
        views = np.empty((n, players, size), np.float32)
        acted = np.empty(n, np.int64)
        ended = core.step(chosen, obs, masks, seats, rewards, terminated, every, views, acted)
        infos: dict[str, Any] = {}
        if ended:
            infos["final_info"] = {"observations": views, "seat": acted}
            final_obs = np.full(n, None, dtype=object)
            none_mask = self._none_mask
            for i in terminated.nonzero()[0].tolist():
                final_obs[i] = {"observation": views[i, acted[i]], "action_mask": none_mask.copy()}
            infos["final_obs"], infos["_final_obs"] = final_obs, terminated.copy()
            infos["_final_info"] = terminated.copy()
        infos["seat"], infos["rewards"], infos["action_mask"] = seats, every, masks
        return ({"observation": obs, "action_mask": masks}, rewards, terminated, np.zeros(n, dtype=bool), infos)

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action index per table, drawn in Rust: ``(num_envs,)`` int64.

        Raises:
            RuntimeError: before the first :meth:`reset`.
        """
        out = np.empty(self.num_envs, np.int64)
        self._tables().sample(out)
        return out

    def hand(self, i: int) -> NativeHand:
        """A copy of table ``i``'s hand in play (phase, stacks, cards... as ``NativeHand`` reads them).

        Raises:
            ValueError: ``i`` is not a table. RuntimeError: before the first :meth:`reset`.
        """
        hand: NativeHand = self._tables().hand(self._table(i))
        return hand

    def hand_number(self, i: int) -> int:
        """Table ``i``'s hand number in its match (the deal of ``hand_seed(match seed, number)``).

        Raises:
            ValueError: ``i`` is not a table. RuntimeError: before the first :meth:`reset`.
        """
        return int(self._tables().hand_number(self._table(i)))

    def _table(self, i: Any) -> int:
        index: int = _as_index(i)
        if not 0 <= index < self.num_envs:
            raise ValueError(f"table {index}: the tables are 0..{self.num_envs - 1}")
        return index

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (the tables hold no processes or files); closing twice is allowed."""
