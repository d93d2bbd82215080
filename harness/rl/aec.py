"""The PettingZoo AEC environment of Seven Card Draw, Deuce-to-Seven Triple Draw or Five Card Draw: one episode is
one hand.

``env(num_players=2, game=GameConfig(...), starting_stack=1000)`` (PettingZoo's convention: the game
settings are the constructor's arguments; any field of :class:`harness.engine.GameConfig` may also be
given by keyword, e.g. ``env(structure="fixed-limit", ante=1)``). ``game="deuce-to-seven-triple-draw"``
(or a mapping with that ``name``, as a tournament file's ``[game]`` table) plays Triple Draw (RULES.md R8)
with its own action and observation encoding (:mod:`harness.rl.tripledraw`: 39 actions, the draws
being the 32 sets of 0-5 of the five cards), on the Python engine (the native core plays Seven Card Draw only).
``game={"name": "five-card-draw", "blinds": False, "ante": 1, "min_bet": 10}`` plays Five Card Draw with
openers (R7; ``openers="jack-card"`` or ``"none"`` for the other rules) with :mod:`harness.rl.fivedraw`'s
encoding: the same 39 actions, opening without openers masked, and the chips carried in, the opener and the
observer's openers in the observation.

Passed-out deals (R7.4) are dealt as the referee deals them: a deal nobody opens ends the episode, and the
next ``reset()`` in sequence (no ``seed``, no ``options``) deals the next hand with the antes carried in
(``state.carried``); every other ``reset`` starts with nothing in the middle. Rewards are the match's rows of
nets (:mod:`harness.match.carry`): a passed-out deal's are 0 for every seat (each seat's antes are still its
own, held in the middle), and the hand that wins the carried chips charges each seat its held share, so every
hand's rewards sum to 0 and a policy's rewards over a match equal its ``harness match`` nets.
``infos[agent]`` at the end of a Five Card Draw hand: ``passed_out`` and ``carried`` (the chips left in the
middle for the next deal).

Agents ``player_0 .. player_{n-1}`` are the match seats. Deals are the referee's:
``reset(seed=S)`` plays hand 0 of a match whose seed is ``S``, each later ``reset()`` (no seed) the next
hand of that match, and ``reset(seed=S, options={"hand": h})`` hand ``h``; hand ``h`` is dealt from
:func:`harness.deals.hand_seed` ``(S, h)`` with the button at seat ``h % n`` and every stack at
``starting_stack`` (the referee's reset mode), so a policy is evaluated on exactly the duplicate deals of
``harness match --seed S``. Without any seed the match seed is a fresh secret one.

Rewards come once, when the hand ends: each seat's net chips in big blinds (the game's ``unit``).
Observations are ``{"observation": float32 vector, "action_mask": int8 vector}``
(:mod:`harness.rl.encoding` documents both field by field and the action encoding).

The hands are played in the native core (:class:`harness.engine.native.NativeAec`: the rules, the decision,
the observation and the mask in Rust, one call per step and per observation) when it is built and the settings
fit it; ``engine="python"`` plays them on :mod:`harness.engine` (the oracle of the differential test), as
``features=True`` always does. Both give the same observations, masks and rewards for the same seed and
actions (tests/test_rl_native_aec.py). :attr:`SevenCardDrawEnv.state` is the engine's ``HandState`` either way:
on the native core it is made on first use by replaying the hand's actions, and the rest of that hand is
then played on it (so whoever reads or drives ``state`` sees the one hand).
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
from harness.engine.errors import GameConfigError
from harness.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    FIVE_CARD_DRAW,
    GAMES,
    SEVEN_CARD_DRAW,
    GameDefinition,
    start_hand,
    with_openers,
)
from harness.engine.state import checked_start
from harness.match.carry import CarriedChips
from harness.rl import encoding, fivedraw, tripledraw

__all__ = ["SevenCardDrawEnv", "env", "raw_env"]

_SEED_BLOCK = 64
_COMPLETE = Phase.COMPLETE
_ENGINES = ("native", "python")
#: The encoding of each game the environments play, by name.
CODECS: dict[str, Any] = {SEVEN_CARD_DRAW.name: encoding, DEUCE_TO_SEVEN_TRIPLE_DRAW.name: tripledraw,
                          FIVE_CARD_DRAW.name: fivedraw}


def _native_table(game: GameConfig, players: int, stack: int) -> Any:
    """A :class:`harness.engine.native.NativeAec` for these settings, or None where the core is not built or
    does not hold them (a stack above 2**50 chips)."""
    try:
        from harness.engine.native import NativeAec  # the crate is optional: the Python engine plays without it
    except ImportError:
        return None
    try:
        return NativeAec(players, stack, structure=str(game.structure), small_blind=game.small_blind,
                         big_blind=game.big_blind, ante=game.ante, blinds=game.blinds, min_bet=game.min_bet,
                         cap=game.cap, replacements=str(game.replacements))
    except (ValueError, OverflowError):
        return None


class SevenCardDrawEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no types: its AECEnv is Any
    """Seven Card Draw (or Triple Draw, or Five Card Draw) for 2-6 seats as a PettingZoo AEC environment (module
    doc).

    Args:
        num_players: seats, 2..6 (R1.2).
        game: the game settings, a ``GameConfig`` or a mapping of its fields (default ``GameConfig()``);
            keyword fields override them. A game's name (``"deuce-to-seven-triple-draw"``), or a mapping
            with a ``name``, plays that game (module doc; default Seven Card Draw).
        starting_stack: chips of every seat at the start of every hand.
        render_mode: None, ``"ansi"`` (``render()`` returns text) or ``"human"`` (prints it).
        features: append the hand-strength features (:mod:`harness.rl.features`: category, equity, outs, pot
            odds, position, the cards ``best_keep`` keeps; Triple Draw's are its 2-7 ones) after the base
            observation; off by default, so the default observation's layout is unchanged.
        engine: ``"native"`` (the default: the native core where it can, module doc) or ``"python"`` (the
            Python engine, the oracle).
        openers: Five Card Draw's opening rule, ``"jacks"`` (the default), ``"jack-card"`` or ``"none"``
            (R7.2); also read from a ``game`` mapping's ``openers``. Five Card Draw only.

    Raises:
        ValueError: a table size outside 2..6, a stack below 1, an engine other than those two, a game the
            environments do not play, settings or a table size the game refuses (its rule named),
            ``features`` in a game with no feature fields (Five Card Draw), ``openers`` outside Five Card
            Draw or not a rule;
            ``ConfigError`` for bad game settings.
    """

    metadata: dict[str, Any] = {"name": "seven_card_draw_v0", "render_modes": ["human", "ansi"],
                                "is_parallelizable": False}

    def __init__(self, num_players: int = 2, game: GameConfig | Mapping[str, Any] | str | None = None,
                 starting_stack: int = 1000,
                 render_mode: str | None = None, features: bool = False, engine: str = "native",
                 openers: str | None = None, **settings: Any) -> None:
        super().__init__()
        problem = seat_count_problem(num_players)
        if problem:
            raise ValueError(f"num_players: {problem}")
        if type(starting_stack) is not int or starting_stack < 1:
            raise ValueError(f"starting_stack must be a whole number of chips >= 1, got {starting_stack!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        name = SEVEN_CARD_DRAW.name
        if isinstance(game, str):
            name, game = game, None
        if game is None:
            base = GameConfig().to_dict()
        elif isinstance(game, GameConfig):
            base = game.to_dict()
        elif isinstance(game, Mapping):  # the settings as a tournament file's [game] table gives them
            base = {**GameConfig().to_dict(), **{k: v for k, v in game.items() if k not in ("name", "openers")}}
            name = game.get("name", name)
            openers = game.get("openers", openers)
        else:
            raise ValueError(f"game must be a GameConfig, a mapping of game settings or a game's name, got "
                             f"{type(game).__name__}")
        if name not in CODECS:
            raise ValueError(f"game: {name!r} is not a game the environments play; they play {', '.join(CODECS)}")
        self.game = GameConfig.from_dict({**base, **settings})
        if num_players > 4 and self.game.replacements == "per-seat":
            raise ValueError(f"R4.4: per-seat replacements need at most 4 players, got {num_players}")
        self.definition: GameDefinition = GAMES[name]
        if openers is not None:
            if not self.definition.passed_out:
                raise ValueError(f"openers: {name} has no opening requirement (R6.3); only five-card-draw has")
            try:
                self.definition = with_openers(self.definition, openers)
            except GameConfigError as exc:
                raise ValueError(f"openers: {exc}") from None
        if self.definition is not SEVEN_CARD_DRAW:
            try:  # the hand factory's own checks of the table and the settings (R6.8, R6.9, R8.1)
                checked_start(self.game, [starting_stack] * num_players, 0, 0, None, self.definition)
            except GameConfigError as exc:
                raise ValueError(f"game {name}: {exc}") from None
        codec = self.codec
        self.num_players = num_players
        self.starting_stack = starting_stack
        self._stacks = (starting_stack,) * num_players  # HandState.start copies it
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._layout = codec.layout(num_players)
        if type(features) is not bool:
            raise ValueError(f"features must be True or False, got {features!r}")
        self.features = features
        self._base = codec.obs_size(num_players)
        low, high = codec.bounds(num_players, num_players * starting_stack, self.game.unit)
        if features and not hasattr(codec, "feature_bounds"):
            raise ValueError(f"features: {name} has no feature fields; Seven Card Draw and Triple Draw have")
        if features:
            flow, fhigh = codec.feature_bounds(num_players)
            low, high = np.concatenate([low, flow]), np.concatenate([high, fhigh])
        size = self._size = len(low)
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(codec.N_ACTIONS,), dtype=np.int8),
        })
        self._act_space = spaces.Discrete(codec.N_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.match_seed: int | None = None
        self.hand = -1
        self._state: HandState | None = None
        self._seed_block: tuple[int, int, list[int]] | None = None
        self._found: tuple[HandState, int, tuple[int, tuple[int, ...] | None]] | None = None
        if engine not in _ENGINES:
            raise ValueError(f"engine must be 'native' or 'python', got {engine!r}")
        # the native table, or None (the Python engine); _live: the hand in play is the native table's
        native = engine == "native" and not features and self.definition is SEVEN_CARD_DRAW
        self._core: Any = _native_table(self.game, num_players, starting_stack) if native else None
        self._live = False
        self._seed = self._dealt = 0
        self.engine = "python" if self._core is None else "native"
        # A game of openers: the chips in the middle from passed-out deals (R7.4), and the last hand's rewards.
        self._middle = CarriedChips(num_players)
        self._settled: tuple[HandState, list[float]] | None = None

    @property
    def codec(self) -> Any:
        """The game's action and observation encoding: :mod:`harness.rl.encoding` (Seven Card Draw) or
        :mod:`harness.rl.tripledraw` (the same functions with that game's numbers)."""
        return CODECS[self.definition.name]

    def hand_rewards(self) -> list[float]:
        """Each seat's reward for the hand just completed, in ``unit`` s: its net chips, or in a game of openers
        the match's row of nets (module doc, :mod:`harness.match.carry`), settled once per hand.

        Raises:
            RuntimeError: no hand, or the hand is not over.
        """
        state = self.state
        if not state.is_complete:
            raise RuntimeError(f"hand {self.hand} is not over: no rewards yet")
        settled = self._settled
        if settled is not None and settled[0] is state:
            return settled[1]
        r = state.result()
        row = list(r.net)
        if r.carried_in or r.passed_out:  # R7.4: antes held in the middle until a hand wins them
            row = self._middle.settle(row, r.passed_out)
        unit = self.game.unit
        rewards = [x / unit for x in row]
        self._settled = (state, rewards)
        return rewards

    @property
    def state(self) -> HandState:
        """The hand being played (the engine's state: read it, act through :meth:`step`). On the native core it
        is made here, by replaying the hand's actions, and the rest of the hand is played on it (module doc).

        Raises:
            RuntimeError: before the first :meth:`reset`.
        """
        if self._live:
            self._to_python()
        state = self._state
        if state is None:
            raise RuntimeError("no hand yet: call reset() first")
        return state

    def _replayed(self) -> HandState:
        """The native hand in play on the Python engine: the same deal, the same actions."""
        state = HandState.start(self.game, self._stacks, self.hand % self.num_players, self._seed, self.hand)
        decision, action_of = encoding.decision, encoding.action_of
        for index in self._core.actions():
            state.apply(action_of(state, decision(state), index))
        return state

    def _to_python(self) -> None:
        """Move the native hand in play to the Python engine (:meth:`_replayed`)."""
        self._state, self._found, self._live = self._replayed(), None, False

    def __getstate__(self) -> dict[str, Any]:
        """What ``pickle`` and ``copy.deepcopy`` keep: the native table is rebuilt on load, and a hand in play on it
        is carried as its Python ``HandState`` (this environment is left as it was)."""
        kept = self.__dict__.copy()
        if self._core is not None:
            kept["_core"] = True
            if self._live:
                kept.update(_state=self._replayed(), _found=None, _live=False)
        return kept

    def __setstate__(self, kept: dict[str, Any]) -> None:
        self.__dict__.update(kept)
        if kept.get("_core") is True:
            self._core = _native_table(self.game, self.num_players, self.starting_stack)

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
            self._state = None  # a new match: nothing carried in (R7.4)
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
        seed = self._seed = self._hand_seed(self.hand, sequence)
        core = self._core
        if core is not None:
            self._dealt = core.deal(seed, self.hand % n)  # the seat to act, -1 if over before anyone acts
            self._state, self._found, self._live = None, None, True
            return
        if self.definition is SEVEN_CARD_DRAW:
            self._state = HandState.start(self.game, self._stacks, self.hand % n, seed, self.hand)
            self._found = None
            return
        carried = 0
        if self.definition.passed_out:  # R7.4: the next deal in sequence takes the chips left in the middle
            previous = self._state
            if sequence and previous is not None and previous.is_complete:
                self.hand_rewards()  # settles that hand if nobody asked yet
            else:  # a new match, a jump to a hand, or a hand left unfinished: the held chips go back
                self._middle = CarriedChips(n)
            carried = self._middle.carried
        self._state = start_hand(self.definition, self.game, self._stacks, self.hand % n, seed, self.hand,
                                 carried=carried)
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
        if self._live:
            if self._dealt >= 0:
                self.agent_selection = self.possible_agents[self._dealt]
            else:
                self._end(self._core.rewards())
            return
        state = self.state
        if state.phase is _COMPLETE:
            self._end(self.hand_rewards())
            if self.definition.passed_out:
                r = state.result()
                for a in self.possible_agents:
                    self.infos[a] = {"passed_out": r.passed_out, "carried": r.carried_out}
        else:
            s = state.to_act
            assert s is not None  # an incomplete hand has a seat to act
            self.agent_selection = self.possible_agents[s]

    def _end(self, rewards: list[float]) -> None:
        """The hand is over: every seat's reward (net big blinds) and termination."""
        for a, r in zip(self.possible_agents, rewards, strict=True):
            self.rewards[a] = r
            self.terminations[a] = True
        self.agent_selection = self.agents[0]

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
        if self._live:  # the native core: one call applies the action and names the next seat
            seat = self._act(action)
            self._cumulative_rewards[agent] = 0.0
            if seat >= 0:
                self.agent_selection = self.possible_agents[seat]
            else:
                self._end(self._core.rewards())
                self._accumulate_rewards()
            if self.render_mode == "human":
                self.render()
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
            found = self._found = (state, done, self.codec.decision(state))
        return found[2]

    def _act(self, index: Any) -> int:
        """:meth:`NativeAec.act` of ``index`` checked as :func:`harness.rl.encoding.action_of` checks it (the same
        words): the next seat to act, or -1 when the hand is over."""
        core = self._core
        try:
            seat: int = core.act(index)
        except (TypeError, OverflowError):  # not an int, or one outside 64 bits: never an action
            index = encoding.action_index(index)
            raise ValueError(f"action {index} is not legal now (phase {core.phase})") from None
        return seat

    def _apply(self, index: Any) -> None:
        state = self.state
        state.apply(self.codec.action_of(state, self._decision(), index))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": ..., "action_mask": ...}`` of ``agent`` (the mask is all 0 when it is not to act).

        Raises:
            KeyError: ``agent`` is not one of :attr:`possible_agents` (the message lists them).
            RuntimeError: before the first :meth:`reset`.
        """
        seat = self._index.get(agent)
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}: the agents are {', '.join(self.possible_agents)}")
        if self._live:
            obs, mask = self._core.observe(seat)
            return {"observation": obs, "action_mask": mask}
        state = self.state
        codec = self.codec
        key = self._decision()[0] if state.to_act == seat else codec.NONE_KEY
        v = np.zeros(self._size, dtype=np.float32)
        codec.observe_into(v.data, 0, state, seat)
        if self.features:
            codec.observe_features_into(v, self._base, state, seat)
        return {"observation": v, "action_mask": codec.mask_row(key)}

    # --- search and display ------------------------------------------------------------------------

    def clone(self) -> SevenCardDrawEnv:
        """An independent copy of the environment mid-hand (for search): stepping one leaves the other as it was.

        Uses :meth:`harness.engine.HandState.clone` (no deepcopy of the engine state).

        Raises:
            RuntimeError: before the first :meth:`reset` (there is no hand to copy).
        """
        if self._state is None and not self._live:
            raise RuntimeError("no hand yet: call reset() first")
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        if self._core is not None:
            other._core = self._core.copy()
        other._state = None if self._state is None else self._state.clone()
        other._found = None
        other._middle = CarriedChips(self.num_players)
        other._middle.held = list(self._middle.held)
        settled = self._settled
        if settled is not None and other._state is not None:
            other._settled = (other._state, list(settled[1])) if settled[0] is self._state else None
        other.agents = self.agents[:]
        for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            setattr(other, name, dict(getattr(self, name)))
        other.infos = {a: dict(i) for a, i in self.infos.items()}
        return other

    def render(self) -> str | None:
        """The hand as text (cards of every seat: for debugging, not a player's view)."""
        if self._state is None and not self._live:
            return None
        st = self.state

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
