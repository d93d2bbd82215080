"""The PettingZoo AEC environment of Seven Card Draw: one episode is one hand.

``env(num_players=2, game=GameConfig(...), starting_stack=1000)`` (PettingZoo's convention: the game
settings are the constructor's arguments; any field of :class:`harness.engine.GameConfig` may also be
given by keyword, e.g. ``env(structure="fixed-limit", ante=1)``).

Agents ``player_0 .. player_{n-1}`` are the match seats. Deals are the referee's:
``reset(seed=S)`` plays hand 0 of a match whose seed is ``S``, each later ``reset()`` (no seed) the next
hand of that match, and ``reset(seed=S, options={"hand": h})`` hand ``h``; hand ``h`` is dealt from
:func:`harness.deals.hand_seed` ``(S, h)`` with the button at seat ``h % n`` and every stack at
``starting_stack`` (the referee's reset mode), so a policy is evaluated on exactly the duplicate deals of
``harness match --seed S``. Without any seed the match seed is a fresh secret one.

Rewards come once, when the hand ends: each seat's net chips in big blinds (the game's ``unit``).
Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
(:mod:`harness.rl.encoding` documents both field by field and the action encoding).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from harness.deals import hand_seed, hand_seeds, new_seed, parse_seed
from harness.engine import GameConfig, HandState, Phase
from harness.engine.cards import cards_str
from harness.engine.config import seat_count_problem
from harness.rl import encoding
from harness.rl import features as feature_fields

__all__ = ["SevenCardDrawEnv", "env", "raw_env"]

_SEED_BLOCK = 64
_COMPLETE = Phase.COMPLETE


class SevenCardDrawEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no types: its AECEnv is Any
    """Seven Card Draw for 2-6 seats as a PettingZoo AEC environment (module doc).

    Args:
        num_players: seats, 2..6 (R1.2).
        game: the game settings, a ``GameConfig`` or a mapping of its fields (default ``GameConfig()``);
            keyword fields override them.
        starting_stack: chips of every seat at the start of every hand.
        render_mode: None, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        features: append the hand-strength features (:mod:`harness.rl.features`: category, equity, outs, pot
            odds, position, the cards ``best_keep`` keeps) after the base observation; off by default, so the
            default observation's layout is unchanged.

    Raises:
        ValueError: a table size outside 2..6, a stack below 1; ``ConfigError`` for bad game settings.
    """

    metadata: dict[str, Any] = {"name": "seven_card_draw_v0", "render_modes": ["human", "ansi"],
                                "is_parallelizable": False}

    def __init__(self, num_players: int = 2, game: GameConfig | Mapping[str, Any] | None = None,
                 starting_stack: int = 1000,
                 render_mode: str | None = None, features: bool = False, **settings: Any) -> None:
        super().__init__()
        problem = seat_count_problem(num_players)
        if problem:
            raise ValueError(f"num_players: {problem}")
        if type(starting_stack) is not int or starting_stack < 1:
            raise ValueError(f"starting_stack must be a whole number of chips >= 1, got {starting_stack!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if game is None:
            base = GameConfig().to_dict()
        elif isinstance(game, GameConfig):
            base = game.to_dict()
        elif isinstance(game, Mapping):  # the settings as a tournament file's [game] table gives them
            base = {**GameConfig().to_dict(), **game}
        else:
            raise ValueError(f"game must be a GameConfig or a mapping of game settings, got {type(game).__name__}")
        self.game = GameConfig.from_dict({**base, **settings})
        if num_players > 4 and self.game.replacements == "per-seat":
            raise ValueError(f"R4.4: per-seat replacements need at most 4 players, got {num_players}")
        self.num_players = num_players
        self.starting_stack = starting_stack
        self._stacks = (starting_stack,) * num_players  # HandState.start copies it
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._layout = encoding.layout(num_players)
        if type(features) is not bool:
            raise ValueError(f"features must be True or False, got {features!r}")
        self.features = features
        self._base = encoding.obs_size(num_players)
        low, high = encoding.bounds(num_players, num_players * starting_stack, self.game.unit)
        if features:
            flow, fhigh = feature_fields.bounds(num_players)
            low, high = np.concatenate([low, flow]), np.concatenate([high, fhigh])
        size = self._size = len(low)
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(encoding.N_ACTIONS,), dtype=np.int8),
        })
        self._act_space = spaces.Discrete(encoding.N_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.match_seed: int | None = None
        self.hand = -1
        self._state: HandState | None = None
        self._seed_block: tuple[int, int, list[int]] | None = None
        self._found: tuple[HandState, int, tuple[int, tuple[int, ...] | None]] | None = None

    @property
    def state(self) -> HandState:
        """The hand being played (the engine's state: read it, act through :meth:`step`).

        Raises:
            RuntimeError: before the first :meth:`reset`.
        """
        state = self._state
        if state is None:
            raise RuntimeError("no hand yet: call reset() first")
        return state

    def observation_space(self, agent: str) -> spaces.Dict[Any]:  # gymnasium's Dict of two Boxes
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete[np.int64]:
        return self._act_space

    # --- episodes ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a hand (module doc: ``seed`` is the match seed, ``options={"hand": h}`` picks the hand).

        Raises:
            ValueError: a seed that is not a whole number in 0..2**256-1, ``options`` not a mapping, a hand
                number below 0.
        """
        if seed is not None:
            self.match_seed = parse_seed(seed)
            self.hand = -1
        elif self.match_seed is None:
            self.match_seed = new_seed()
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be a dict such as {{'hand': 3}} or None, got {options!r}")
        hand = (options or {}).get("hand")
        if hand is not None:
            if type(hand) is not int or hand < 0:
                raise ValueError(f"options['hand'] must be a hand number >= 0, got {hand!r}")
            self.hand = hand
        else:
            self.hand += 1
        self._start_hand(hand is None)
        agents = self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        self._sync()

    def _start_hand(self, sequence: bool) -> None:
        """Deal hand ``self.hand`` of the match (the state only: ``reset`` does PettingZoo's bookkeeping)."""
        n = self.num_players
        self._state = HandState.start(self.game, self._stacks, self.hand % n, self._hand_seed(self.hand, sequence),
                                     self.hand)
        self._found = None

    def _hand_seed(self, hand: int, sequence: bool) -> int:
        """:func:`harness.deals.hand_seed` ``(match_seed, hand)``; hands dealt in sequence take their
        seeds in blocks of 64 (one tight loop of HMACs costs less than the same calls one per reset)."""
        seed = self.match_seed
        assert seed is not None  # reset() sets it before the first deal
        block = self._seed_block
        if block is not None and block[0] == seed and 0 <= hand - block[1] < _SEED_BLOCK:
            return block[2][hand - block[1]]
        if not sequence:
            return hand_seed(seed, hand)
        seeds = hand_seeds(seed, hand, _SEED_BLOCK)
        self._seed_block = (seed, hand, seeds)
        return seeds[0]

    def _sync(self) -> None:
        """Point ``agent_selection`` at the seat to act, or end the episode."""
        state = self.state
        if state.phase is _COMPLETE:
            unit = self.game.unit
            net = state.result().net
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = net[i] / unit
                self.terminations[a] = True
            self.agent_selection = self.agents[0]
        else:
            s = state.to_act
            assert s is not None  # an incomplete hand has a seat to act
            self.agent_selection = self.possible_agents[s]

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (an index, :mod:`harness.rl.encoding`).

        Raises:
            ValueError: not an action index (a float, text, None while the hand is on), or an action the mask
                forbids.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._apply(action)
        self._cumulative_rewards[agent] = 0.0
        self._sync()
        if self.state.phase is _COMPLETE:  # every reward is 0 until the hand ends: nothing to add before
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _decision(self) -> tuple[int, tuple[int, ...] | None]:
        """:func:`harness.rl.encoding.decision` of the state, kept until the state's next action (whoever
        applies it: the key is the state and the length of its history, which every action extends)."""
        state = self.state
        found = self._found
        done = len(state.history)  # one event per action
        if found is None or found[0] is not state or found[1] != done:
            found = self._found = (state, done, encoding.decision(state))
        return found[2]

    def _apply(self, index: Any) -> None:
        state = self.state
        state.apply(encoding.action_of(state, self._decision(), index))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": ..., "action_mask": ...}`` of ``agent`` (the mask is all 0 when it is not to act).

        Raises:
            KeyError: ``agent`` is not one of :attr:`possible_agents` (the message lists them).
            RuntimeError: before the first :meth:`reset`.
        """
        seat = self._index.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}: the agents are {', '.join(self.possible_agents)}")
        state = self.state
        key = self._decision()[0] if state.to_act == seat else encoding.NONE_KEY
        v = np.zeros(self._size, dtype=np.float32)
        encoding.observe_into(v.data, 0, state, seat)
        if self.features:
            encoding.observe_features_into(v, self._base, state, seat)
        return {"observation": v, "action_mask": encoding.mask_row(key)}

    # --- search and display ------------------------------------------------------------------------

    def clone(self) -> SevenCardDrawEnv:
        """An independent copy of the environment mid-hand (for search): stepping one leaves the other as it was.

        Uses :meth:`harness.engine.HandState.clone` (no deepcopy of the engine state).

        Raises:
            RuntimeError: before the first :meth:`reset` (there is no hand to copy).
        """
        if self._state is None:
            raise RuntimeError("no hand yet: call reset() first")
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._state = self._state.clone()
        other._found = None
        other.agents = self.agents[:]
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            setattr(other, name, dict(getattr(self, name)))
        other.infos = {a: dict(i) for a, i in self.infos.items()}
        return other

    def render(self) -> str | None:
        """The hand as text (cards of every seat: for debugging, not a player's view)."""
        st = self._state
        if st is None:
            return None

        lines = [f"hand {st.hand_id} {st.phase} pot {st.pot} to_act {st.to_act}"]
        for s in range(st.n):
            flags = " folded" if st.folded[s] else (" all-in" if st.all_in[s] else "")
            lines.append(f"  player_{s}{' (button)' if s == st.button else ''}: {cards_str(st.cards[s])} "
                         f"stack {st.stacks[s]} bet {st.bets[s]}{flags}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs: Any) -> SevenCardDrawEnv:
    """The environment without PettingZoo's wrappers (the fastest)."""
    return SevenCardDrawEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (module doc; keyword arguments as
    :class:`SevenCardDrawEnv`)."""
    return wrappers.OrderEnforcingWrapper(SevenCardDrawEnv(**kwargs))
