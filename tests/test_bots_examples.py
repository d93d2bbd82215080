"""The example bots: legal on every decision, runnable as commands, and solid beats the others.

``play`` drives the real engine in process and talks to each bot through its SDK
``handle`` with every request encoded and strictly decoded, so it also checks that the
engine's observation fits PROTOCOL.md's state map.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bots._cards import discard_to_best_five, smart_keep, to_ints, to_texts
from bots.caller import Caller
from bots.raiser import Raiser
from bots.random_bot import RandomBot
from bots.solid import Solid
from harness.engine import GameConfig
from harness.engine.actions import Action, ActionKind
from harness.engine.config import Structure
from harness.engine.evaluator import Category, best_hand
from harness.engine.state import HandState
from protocol.codec import decode, encode
from protocol.messages import ActionReply, ActRequest, DiscardReply, DrawRequest, HandStart, Legal, TimeLeft
from protocol.sdk import Bot
from tests.protocol_helpers import MiniReferee

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

TIME = TimeLeft(1000, 30000)


def play(bots: Sequence[Bot], hands: int, seed: int, config: GameConfig | None = None, stack: int = 1000) -> list[int]:
    """Play ``hands`` hands in process (button moving, stacks reset); return net chips per seat.

    Fails the test on any illegal action.
    """
    config = config or GameConfig()
    n = len(bots)
    net = [0] * n
    seq = 0
    for h in range(hands):
        state = HandState.start(config, stacks=[stack] * n, button=h % n, seed=seed * 100_003 + h, hand_id=h)
        for s, bot in enumerate(bots):
            bot.handle(HandStart(h, s, h % n, tuple(f"b{i}" for i in range(n)), (stack,) * n,
                                 tuple(state.observation(s)["cards"])))
        while not state.is_complete:
            seat = state.to_act
            assert seat is not None
            seq += 1
            legal = Legal.of(state.legal())
            cls = DrawRequest if legal.actions == ("draw",) else ActRequest
            request = decode(encode(cls(seq=seq, state=state.observation(seat), legal=legal, time=TIME)))
            reply = decode(encode(bots[seat].handle(request)))  # type: ignore[arg-type]
            assert getattr(reply, "seq", None) == seq
            if isinstance(reply, ActionReply):
                action = Action(ActionKind(reply.action), reply.amount)
            else:
                assert isinstance(reply, DiscardReply)
                action = Action(ActionKind.DRAW, discards=tuple(to_ints(reply.cards)))
            state.apply(action)  # raises on anything illegal
        for s, x in enumerate(state.result().net):
            net[s] += x
    return net


def duplicate(make_a: Any, make_b: Any, hands: int, seed: int, config: GameConfig | None = None) -> int:
    """Net chips of bot A over the same deals played from both seats (heads-up)."""
    first = play([make_a(), make_b()], hands, seed, config)
    second = play([make_b(), make_a()], hands, seed, config)
    return first[0] + second[1]


MAKERS = {"caller": Caller, "raiser": Raiser, "random": lambda: RandomBot(seed=3), "solid": Solid}


@pytest.mark.parametrize("structure", [Structure.NO_LIMIT, Structure.FIXED_LIMIT])
def test_all_bots_act_legally_at_a_full_table(structure: Structure) -> None:
    bots = [Caller(), Raiser(), RandomBot(seed=1), Solid(), RandomBot(seed=2), Solid(seed=9)]
    net = play(bots, 60, seed=11, config=GameConfig(structure=structure))
    assert sum(net) == 0


def test_ante_game_is_handled() -> None:
    config = GameConfig(blinds=False, small_blind=0, big_blind=0, ante=5, min_bet=10)
    assert sum(play([Solid(), RandomBot(seed=4), Raiser()], 40, seed=5, config=config)) == 0


def test_draw_helpers_keep_made_hands() -> None:
    cards = ["9s", "9d", "9c", "5h", "5s", "Kc", "2d"]  # E2's full house
    assert sorted(discard_to_best_five(cards)) == ["2d", "Kc"]
    trips = to_ints(["9s", "9d", "9c", "Ah", "5s", "Kc", "2d"])
    assert sorted(to_texts(smart_keep(trips))) == ["9c", "9d", "9s"]
    flush_draw = to_ints(["Ah", "9h", "5h", "2h", "Ks", "Qc", "7d"])
    assert sorted(to_texts(smart_keep(flush_draw))) == ["2h", "5h", "9h", "Ah"]
    straight = to_ints(["8s", "7d", "6c", "5h", "2s", "Kc", "Jd"])
    assert best_hand(straight).category == Category.HIGH_CARD
    assert sorted(to_texts(smart_keep(straight))) == ["5h", "6c", "7d", "8s"]


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["caller", "raiser", "random"])
def test_solid_beats_the_other_examples(opponent: str) -> None:
    hands = 600
    won = duplicate(Solid, MAKERS[opponent], hands, seed=2024)
    bb_per_100 = won / (2 * hands) / 10 * 100
    assert bb_per_100 > 20, f"solid vs {opponent}: {bb_per_100:.1f} bb/100"


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("module", ["bots.caller", "bots.raiser", "bots.random_bot", "bots.solid"])
def test_example_bot_runs_as_a_command(tmp_path: Path, module: str) -> None:
    ref = MiniReferee(tmp_path, [sys.executable, "-m", module], name=module)
    try:
        ref.handshake()
        assert len(ref.play_spec_hand()) == 3
        assert ref.wait_exit() == 0
    finally:
        ref.close()
