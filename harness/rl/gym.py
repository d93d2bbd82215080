"""A Gymnasium environment for one seat of Seven Card Draw, the other seats played by in-process opponents.

Opponents are either policies (``policy(observation_dict) -> action index``, the AEC encoding of
:mod:`harness.rl.encoding`) or :class:`SdkOpponent`: any bot written with the Python SDK
(``protocol.sdk.Bot``), driven in-process without sockets through the very frames the referee sends
(``match_start``, ``hand_start``, ``act``/``draw`` requests, ``hand_end``, encoded by
:mod:`harness.match.wire` and :mod:`protocol.codec`) and answering through ``Bot.handle_frame``. A reply
the rules refuse gets the referee's default action (check if free, else fold; stand pat), as a fault would.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import msgpack
import numpy as np

from harness.deals import parse_seed
from harness.engine import Action, ActionKind, HandState
from harness.engine.cards import parse_card
from harness.match.wire import HandWire, MatchWire
from harness.rl import encoding
from harness.rl.aec import SevenCardDrawEnv
from protocol import codec
from protocol.messages import GameSettings, MatchLimits, MatchStart

__all__ = ["RandomPolicy", "SdkOpponent", "SingleAgentEnv", "random_policy"]

Policy = Callable[[dict[str, np.ndarray]], int]


class RandomPolicy:
    """A policy choosing uniformly among the legal action indices.

    With a ``seed`` it draws from its own generator. Without one it draws from the generator of the
    environment it follows (:meth:`follow`; a :class:`SingleAgentEnv` makes its unseeded random opponents
    follow it), which ``reset(seed=S)`` seeds: runs from the same seed reproduce. Following nothing, it
    draws from a fresh unseeded generator.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed) if seed is not None else None
        self._env: Any = None

    def follow(self, env: Any) -> None:
        """Draw from ``env.np_random`` (a Gymnasium environment's generator, as it is after each reset) when
        unseeded; a seeded policy keeps its own generator."""
        if self.seed is None:
            self._env = env

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if self._env is not None:
            return int(legal[self._env.np_random.integers(len(legal))])
        if self._rng is None:
            self._rng = random.Random()
        return int(self._rng.choice(legal.tolist()))


def random_policy(seed: int | None = None, env: Any = None) -> RandomPolicy:
    """A :class:`RandomPolicy`: uniform among the legal action indices, from its own generator when ``seed``
    is given, else from that of ``env`` (a Gymnasium environment, seeded by its ``reset(seed=)``); an
    unseeded opponent of a :class:`SingleAgentEnv` follows that environment without being told."""
    policy = RandomPolicy(seed)
    if env is not None:
        policy.follow(env)
    return policy


class SdkOpponent:
    """A Python SDK bot in-process: the referee's frames in, its reply frames out (module doc).

    Args:
        bot: an instance of a ``protocol.sdk.Bot`` subclass (never ``run()``).
        name: its name in ``match_start``/``hand_start``.
        decision_ms, bank_ms: the times the requests announce (ms; nothing is timed in-process).
    """

    def __init__(self, bot: Any, name: str = "opponent", decision_ms: int = 1000, bank_ms: int = 30000) -> None:
        self.bot = bot
        self.name = name
        self.decision_ms = decision_ms
        self.bank_ms = bank_ms
        self._match: Any = None
        self._hand: Any = None
        self._seq = 0
        self.faults = 0

    def start_match(self, env: SevenCardDrawEnv, seat: int, names: Sequence[str]) -> None:
        """Send ``match_start`` (once per environment)."""
        self._match = MatchWire(env.game, self.decision_ms)
        self.bot.handle_frame(codec.encode(MatchStart(
            match_id="rl", seat=seat, names=tuple(names), game=GameSettings.of(env.game), hands=10_000_000,
            starting_stack=env.starting_stack, stack_mode="reset",
            limits=MatchLimits(self.decision_ms, self.bank_ms, 10000, 10, 65536))))

    def start_hand(self, state: HandState, seat: int, names: Sequence[str]) -> None:
        """Send ``hand_start``."""
        self._hand = HandWire(self._match, state)
        self.bot.handle_frame(self._hand.hand_start(seat, names, list(state.starting_stacks)))

    def end_hand(self) -> None:
        """Send ``hand_end`` (the hand must be complete)."""
        self.bot.handle_frame(self._hand.hand_end())

    def decide(self, state: HandState, seat: int) -> Action:
        """The bot's action for ``seat`` (the seat to act), the default action when its reply is refused."""
        self._seq += 1
        draw = state.phase == "draw"
        reply = self.bot.handle_frame(self._hand.request(draw, self._seq, seat, state.legal(), self.bank_ms))
        try:
            d = msgpack.unpackb(reply, raw=False)
            if draw:
                hand = state.cards[seat]
                action = Action(ActionKind.DRAW, 0, tuple(hand[hand.index(parse_card(c))] for c in d["cards"]))
            elif d["action"] in ("bet", "raise"):  # one above max_to is the all-in meant, capped (R3.10)
                action = state.capped(Action(ActionKind(d["action"]), int(d["amount"])))
            else:
                action = Action(ActionKind(d["action"]))
            state.verify(action)
        except Exception:  # noqa: BLE001 - any unusable reply is the bot's fault, answered as the referee does
            self.faults += 1
            return state.default_action()
        return action


class SingleAgentEnv(gymnasium.Env):
    """One seat of Seven Card Draw as a Gymnasium environment; one episode is one hand.

    Args:
        opponents: one per other seat, in seat order after skipping ``seat``: a policy or an :class:`SdkOpponent`.
        seat: the learner's seat, or ``"rotate"`` (the seat moves one to the left every hand, so the learner
            plays every position).
        illegal: what :meth:`step` does with an action index the mask forbids: ``"raise"`` (the default: a
            ``ValueError``, so a learner's mistake is never hidden) or ``"default"`` (the referee's default
            action instead, check if free else fold, stand pat at the draw, R6.2; the step's
            ``info["illegal_action"]`` is True). ``"default"`` lets tools that step unmasked samples, such as
            Gymnasium's ``check_env``, run the environment.
        **kwargs: the table (``game``, ``starting_stack``, game-setting fields), as :class:`SevenCardDrawEnv`
            (``game="deuce-to-seven-triple-draw"``: Triple Draw, its opponents policies); the number of seats
            is ``len(opponents) + 1``.

    Opponents made by ``random_policy()`` without a seed draw from this environment's generator
    (``np_random``), which ``reset(seed=S)`` seeds: the same seed plays the same hands the same way.

    Rewards: the learner's net chips of the hand in big blinds, at the end. ``reset`` deals hands (the
    referee's sequence for the seed, :mod:`harness.rl.aec`) until the learner has a decision; the chips of
    hands it had none in (everyone folded to its big blind) are in ``info["skipped_reward"]``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponents: Sequence[Policy | SdkOpponent], seat: int | str = 0, illegal: str = "raise",
                 **kwargs: Any) -> None:
        if illegal not in ("raise", "default"):
            raise ValueError(f"illegal must be 'raise' or 'default', got {illegal!r}")
        self.illegal = illegal
        n = len(opponents) + 1
        self.aec = SevenCardDrawEnv(num_players=n, **kwargs)
        if self.aec.definition.name != "seven-card-draw" and any(isinstance(o, SdkOpponent) for o in opponents):
            raise ValueError(f"opponents: SDK bots play Seven Card Draw here, not {self.aec.definition.name}; "
                             "give policies")
        if seat != "rotate" and (type(seat) is not int or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'rotate', got {seat!r}")
        self.rotate = seat == "rotate"
        self.seat: int = seat if isinstance(seat, int) else 0
        self.opponents = list(opponents)
        for who in self.opponents:  # unseeded random opponents draw from this environment's seeded generator
            if isinstance(who, RandomPolicy):
                who.follow(self)
        self.observation_space = self.aec.observation_space("player_0")
        self.action_space = self.aec.action_space("player_0")
        self._started = False

    def _others(self) -> dict[int, Policy | SdkOpponent]:
        seats = [s for s in range(self.aec.num_players) if s != self.seat]
        return dict(zip(seats, self.opponents, strict=True))

    def _names(self) -> list[str]:
        return ["learner" if s == self.seat else f"opponent{s}" for s in range(self.aec.num_players)]

    def _play_others(self) -> None:
        aec, others = self.aec, self._others()
        state = aec.state
        while not state.is_complete and (s := state.to_act) != self.seat:
            assert s is not None  # an incomplete hand has a seat to act
            who = others[s]
            if isinstance(who, SdkOpponent):
                state.apply(who.decide(state, s))
                continue
            try:
                aec._apply(who(aec.observe(f"player_{s}")))
            except ValueError as exc:  # say whose action it was: the learner's come through step()
                raise ValueError(f"the opponent policy at seat {s}: {exc}") from exc
        if state.is_complete:
            for who in others.values():
                if isinstance(who, SdkOpponent):
                    who.end_hand()

    def _deal(self, seed: int | None, options: dict[str, Any] | None) -> None:
        self.aec.reset(seed=seed, options=options)
        if self.rotate:
            self.seat = self.aec.hand % self.aec.num_players
        names = self._names()
        for s, who in self._others().items():
            if isinstance(who, SdkOpponent):
                if not self._started:
                    who.start_match(self.aec, s, names)
                who.start_hand(self.aec.state, s, names)
        self._started = True
        self._play_others()

    def _obs(self) -> dict[str, np.ndarray]:
        return self.aec.observe(f"player_{self.seat}")

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal (``seed``: the match seed, ``options={"hand": h}``; see :mod:`harness.rl.aec`).

        Raises:
            ValueError: a seed that is not a whole number in 0..2**256-1 (read as the AEC environment
                reads it), bad ``options``; an opponent policy's action that is not legal (its seat named).
        """
        if seed is not None:
            seed = parse_seed(seed)  # as the AEC environment reads it; Gymnasium's own generator wants an int
        super().reset(seed=seed)
        skipped = 0.0
        self._deal(seed, options)
        while self.aec.state.is_complete:  # the learner had no decision in that hand
            skipped += self.aec.hand_rewards()[self.seat]
            self._deal(None, None)
        return self._obs(), {"skipped_reward": skipped, "hand": self.aec.hand, "seat": self.seat}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Apply the learner's action index; run the opponents to its next decision or the hand's end.

        ``info``: ``hand`` (its number in the match), ``illegal_action`` (True when ``illegal="default"``
        replaced a forbidden index by the default action).

        Raises:
            ValueError: not an action index; an action the mask forbids (unless ``illegal="default"``); an
                opponent policy's illegal action (its seat named).
        """
        info: dict[str, Any] = {"hand": self.aec.hand, "illegal_action": False}
        if self.illegal == "default":
            aec = self.aec
            index = encoding.action_index(action)  # a float or text is a mistake in any mode
            codec = aec.codec
            if not (0 <= index < codec.N_ACTIONS and codec.mask_row(aec._decision()[0])[index]):
                aec.state.apply(aec.state.default_action())
                info["illegal_action"] = True
            else:
                aec._apply(index)
        else:
            self.aec._apply(action)
        self._play_others()
        state = self.aec.state
        if state.is_complete:
            reward = self.aec.hand_rewards()[self.seat]
            return self._obs(), reward, True, False, info
        return self._obs(), 0.0, False, False, info

    def play_hand(self, policy: Policy, hand: int, seed: int | str) -> float:
        """Play hand ``hand`` of match ``seed`` (the referee's deal, :mod:`harness.rl.aec`) with ``policy`` in the
        learner's seat; the learner's net big blinds of that hand (a hand it had no decision in counts too).
        With ``seat="rotate"`` the seat is ``hand % n``, as in :meth:`reset`.

        Raises:
            ValueError: a bad seed or hand; an action the mask forbids (as :meth:`step`).
        """
        root = parse_seed(seed)
        super().reset(seed=root)
        self._deal(root, {"hand": hand})
        state = self.aec.state
        while not state.is_complete:
            self.step(policy(self._obs()))
            state = self.aec.state
        return self.aec.hand_rewards()[self.seat]

    def render(self) -> str | None:
        return self.aec.render()

