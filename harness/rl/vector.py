"""N tables of Seven Card Draw, or of Deuce-to-Seven Triple Draw, stepped in one call: a Gymnasium vector environment
(``gymnasium.vector.VectorEnv``).

Each table is a :class:`harness.rl.aec.SevenCardDrawEnv` played in self-play: every row of a step is the decision
of the seat to act at that table, whoever it is (``infos["seat"]``). :meth:`VectorEnv.step` takes one action
index per table. A table whose hand ends deals its next hand (the referee's next hand of its match seed) in the
same step, Gymnasium's ``AutoresetMode.SAME_STEP``: the row then holds the new hand's first decision, and the
finished hand's last observation is in ``infos["final_obs"]`` (``infos["_final_obs"]`` marks the rows).

The game is the tables' (``game="deuce-to-seven-triple-draw"`` as for :class:`SevenCardDrawEnv`): rows, masks
and actions are that game's encoding (:attr:`SevenCardDrawEnv.codec`: :mod:`harness.rl.encoding` or
:mod:`harness.rl.tripledraw`), the same code stepping either.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as _GymVectorEnv
from gymnasium.vector.utils import batch_space

from harness.deals import match_seed, new_seed, parse_seed
from harness.engine import Phase
from harness.rl.aec import SevenCardDrawEnv

__all__ = ["VectorEnv"]

_COMPLETE = Phase.COMPLETE


class VectorEnv(_GymVectorEnv):
    """``num_envs`` tables with the same settings (keyword arguments as :class:`SevenCardDrawEnv`).

    Table ``i`` deals the hands of match seed ``match_seed(seed, ["vector", str(i)])``
    (:func:`harness.deals.match_seed`): reproducible for a seed, different per table. ``tables[i].state``
    is table i's hand; the tables' PettingZoo bookkeeping (``rewards``, ``terminations``...) is not kept up.

    Spaces: ``single_observation_space`` is the AEC environment's (``{"observation", "action_mask"}``),
    ``single_action_space`` ``Discrete(N_ACTIONS)`` (the game's: 99 in Seven Card Draw, 39 in Triple Draw);
    ``observation_space``/``action_space`` are their batches (``(N, obs_size)`` and ``(N, N_ACTIONS)`` arrays;
    ``MultiDiscrete``). ``metadata["autoreset_mode"]`` is
    ``AutoresetMode.SAME_STEP`` (module doc).

    Raises:
        ValueError: ``num_envs`` below 1, Five Card Draw (its passed-out deals carry antes across hands),
            and what :class:`SevenCardDrawEnv` raises (a game the environments do not play among them).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        # the Python engine: the vector form drives each table's HandState itself (harness.rl.native_vector is
        # the native one)
        self.tables = [SevenCardDrawEnv(**{**kwargs, "engine": "python"}) for _ in range(num_envs)]
        if self.tables[0].definition.passed_out:  # its carried antes span hands: not in this form's accounting
            raise ValueError(f"game: {self.tables[0].definition.name!r} is not a game the vector environment "
                             "plays; it plays seven-card-draw and deuce-to-seven-triple-draw")
        self._codec = codec = self.tables[0].codec  # the game's encoding (the tables refuse a game without one)
        self.num_envs = num_envs
        self.num_players = self.tables[0].num_players
        self._features = self.tables[0].features
        self._base = codec.obs_size(self.num_players)
        self._size = self.tables[0]._size
        self._unit = float(self.tables[0].game.unit)
        self.single_observation_space = self.tables[0].observation_space("player_0")
        self.single_action_space = spaces.Discrete(codec.N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def _rows(self) -> tuple[dict[str, np.ndarray], np.ndarray]:
        size = self._size
        obs = np.zeros((self.num_envs, size), dtype=np.float32)
        flat = obs.reshape(-1).data
        codec = self._codec
        base, features, observe_into = self._base, self._features, codec.observe_into
        keys, seats = [], []
        for i, t in enumerate(self.tables):
            state = t.state
            s = state.to_act
            assert s is not None  # tables hold hands in play (a finished hand is replaced at once)
            keys.append(t._decision()[0])
            seats.append(s)
            observe_into(flat, i * size, state, s)
            if features:
                codec.observe_features_into(obs[i], base, state, s)
        return {"observation": obs, "action_mask": codec.MASKS[keys]}, np.array(seats, dtype=np.int64)

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

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal hand 0 at every table (``seed`` as :meth:`SevenCardDrawEnv.reset` reads it; ``options`` unused).

        Raises:
            ValueError: a seed that is not a whole number in 0..2**256-1.

        Returns:
            ``(observations, infos)``: ``observations["observation"]`` (N, obs_size) float32,
            ``observations["action_mask"]`` (N, N_ACTIONS) int8; ``infos["seat"]`` (N,) the seat to act per table,
            ``infos["action_mask"]`` the masks again (the same array), where wrappers that flatten observations
            leave them.
        """
        root = new_seed() if seed is None else parse_seed(seed)
        for i, t in enumerate(self.tables):
            self._deal(t, match_seed(root, ["vector", str(i)]))
        obs, seats = self._rows()
        return obs, {"seat": seats, "action_mask": obs["action_mask"]}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply ``actions[i]`` at table i (every action is checked before any table moves: all or none);
        tables whose hand ended deal their next hand.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)``: ``rewards`` (N,) float32, the net
            big blinds of the seat that acted at each table when its hand ended (else 0);
            ``terminations`` (N,) True where a hand ended; ``truncations`` all False; ``infos["seat"]`` the
            seats to act now, ``infos["rewards"]`` (N, num_players) float32 every seat's net big blinds
            (non-zero rows where a hand ended), ``infos["final_obs"]`` (object array; ``_final_obs`` marks
            it) the acting seat's last observation of the finished hand (shown cards included),
            ``infos["final_info"]`` (``_final_info``) with ``"observations"`` (num_players, obs_size), every
            seat's last view, and ``"seat"``, the seat that acted.

        Raises:
            ValueError: not one action per table; an action a table's mask forbids (the table named). Either
                way no table moves.
        """
        codec = self._codec
        action_of = codec.action_of
        if isinstance(actions, np.ndarray):
            actions = actions.tolist()  # Python ints: one conversion instead of one per table
        elif not isinstance(actions, list):
            actions = list(actions)
        if len(actions) != self.num_envs:  # before any table moves
            raise ValueError(f"actions: expected one per table, {self.num_envs}, got {len(actions)}")
        chosen = []
        for i, (t, a) in enumerate(zip(self.tables, actions, strict=True)):  # all checked before any moves
            try:
                chosen.append(action_of(t.state, t._decision(), a))
            except ValueError as exc:
                raise ValueError(f"table {i}: {exc} (no table moved)") from None
        n = self.num_players
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {}
        every = np.zeros((self.num_envs, n), dtype=np.float32)
        final_obs: np.ndarray | None = None
        ended: list[int] = []
        acted: list[int] = []
        nets: list[tuple[int, ...]] = []
        for i, (t, action) in enumerate(zip(self.tables, chosen, strict=True)):
            state = t.state
            seat = state.to_act
            state.apply(action)
            if state.phase is _COMPLETE:
                assert seat is not None  # a hand in play had a seat to act
                ended.append(i)
                acted.append(seat)
                nets.append(state.result().net)
                if final_obs is None:
                    final_obs = np.full(self.num_envs, None, dtype=object)
                    views = np.zeros((self.num_envs, n, self._size), np.float32)
                    flat = views.reshape(-1).data
                    infos["final_info"] = {"observations": views, "seat": np.zeros(self.num_envs, np.int64)}
                for s in range(n):  # every seat's last view, written in place (the shown cards included)
                    codec.observe_into(flat, (i * n + s) * self._size, state, s)
                    if self._features:
                        codec.observe_features_into(views[i, s], self._base, state, s)
                final_obs[i] = {"observation": views[i, seat], "action_mask": codec.mask_row(codec.NONE_KEY)}
                infos["final_info"]["seat"][i] = seat
                self._next_hand(t)
        if ended:
            every[ended] = np.array(nets, dtype=np.float32) / np.float32(self._unit)  # float32 as before
            rewards[ended] = every[ended, acted]
            terminated[ended] = True
        if final_obs is not None:
            infos["final_obs"], infos["_final_obs"] = final_obs, terminated.copy()
            infos["_final_info"] = terminated.copy()
        obs, seats = self._rows()
        infos["seat"], infos["rewards"], infos["action_mask"] = seats, every, obs["action_mask"]
        return obs, rewards, terminated, np.zeros(self.num_envs, dtype=bool), infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (the tables hold no processes or files); closing twice is allowed."""
