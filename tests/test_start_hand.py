"""One hand state machine for every draw game (RULES.md R6): ``games.start_hand`` deals any game's hand, a
``HandState`` whose hooks the game's definition drives; Seven Card Draw through it is the same hand, bit for bit."""

from __future__ import annotations

import random

import pytest

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import parse_cards
from harness.engine.config import GameConfig
from harness.engine.errors import GameConfigError, IllegalActionError
from harness.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    FIVE_CARD_DRAW,
    GAMES,
    SEVEN_CARD_DRAW,
    Openers,
    start_hand,
    with_openers,
)
from harness.engine.jackpots import JackpotHand
from harness.engine.state import HandState
from harness.engine.tripledraw import TripleDrawHand

BET, CHECK, DRAW = ActionKind.BET, ActionKind.CHECK, ActionKind.DRAW
ANTES = GameConfig(blinds=False, ante=1, min_bet=10)


def random_action(hand: HandState, rng: random.Random) -> Action:
    legal = hand.legal()
    kind = rng.choice(legal.actions)
    if kind is DRAW:
        held = hand.cards[hand.to_act]  # type: ignore[index]
        return Action(DRAW, 0, tuple(rng.sample(held, rng.randint(0, hand.game.max_discards))))
    if kind in (BET, ActionKind.RAISE):
        return Action(kind, rng.randint(legal.min_to, legal.max_to))
    return Action(kind)


@pytest.mark.parametrize("seed", range(40))
def test_seven_card_draw_through_start_hand_is_the_same_hand(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    config = rng.choice([GameConfig(), GameConfig(structure="fixed-limit"), ANTES, GameConfig(ante=2)])
    stacks = [rng.randint(1, 400) for _ in range(n)]
    old = HandState.start(config, stacks, seed % n, seed)
    new = start_hand(SEVEN_CARD_DRAW, config, stacks, seed % n, seed)
    assert type(new) is HandState and new.game is SEVEN_CARD_DRAW
    while not old.is_complete:
        assert new.legal() == old.legal() and new.to_act == old.to_act
        action = random_action(old, rng)
        old.apply(action)
        new.apply(action)
    assert new.action_log() == old.action_log() and new.history == old.history
    assert new.result() == old.result() and new.cards == old.cards
    assert new.observation(0) == old.observation(0)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_is_a_hand_state_played_to_the_end(name: str) -> None:
    game = GAMES[name]
    config = ANTES if game is FIVE_CARD_DRAW else GameConfig(structure="fixed-limit")
    rng = random.Random(3)
    hand = start_hand(game, config, [200] * 4, 1, seed=11)
    assert isinstance(hand, HandState) and hand.game is game
    assert all(len(c) == game.hole_cards for c in hand.cards)
    while not hand.is_complete:
        hand.apply(random_action(hand, rng))
    result = hand.result()
    assert sum(result.net) + result.carried_out == result.carried_in
    copy = start_hand(game, config, [200] * 4, 1, seed=11)
    assert copy.cards == [list(c) for c in hand.hole_cards]  # same seed, same deal


def test_five_card_draw_opening_is_the_engines_rule() -> None:
    """R7.3 in the shared legality: no openers, no bet; the message names the rule."""
    hands = ["2c 4d 6h 8s Tc", "3c 5d 7h 9s Qc", "Jc Jd 4c 6c 9h"]
    deck = [parse_cards(hands[(i + 1) % 3])[i // 3] for i in range(15)]
    deck += [c for c in range(52) if c not in deck]
    hand = start_hand(FIVE_CARD_DRAW, ANTES, [100] * 3, 0, seed=1, deck=deck)
    assert hand.to_act == 1 and hand.legal().actions == (ActionKind.FOLD, CHECK)
    with pytest.raises(IllegalActionError, match=r"^R7\.3: seat 1 cannot bet: opening needs openers"):
        hand.apply(Action(BET, 10))
    assert hand.default_action() == Action(CHECK)
    hand.check()
    hand.bet(10)  # seat 2 holds jacks: the open
    assert hand.opener == 2 and hand.proof == tuple(parse_cards("Jd Jc"))
    clone = hand.clone()
    assert type(clone) is HandState and clone.opener == 2 and clone.game is FIVE_CARD_DRAW


def test_a_passed_out_deal_and_the_next_one_through_start_hand() -> None:
    hand = start_hand(with_openers(FIVE_CARD_DRAW, "none"), ANTES, [50, 50], 0, seed=2)
    hand.check()
    hand.check()
    r = hand.result()
    assert r.passed_out and r.carried_out == 2 and r.net == (-1, -1) and r.pots == ()
    after = start_hand(FIVE_CARD_DRAW, ANTES, list(r.final_stacks), 1, seed=3, carried=r.carried_out)
    assert after.pot == 4 and after.observation(0)["pot"] == 4 and after.carried == 2


@pytest.mark.parametrize(("game", "config", "kw", "rule"), [
    (FIVE_CARD_DRAW, GameConfig(), {}, "R7.1"),
    (DEUCE_TO_SEVEN_TRIPLE_DRAW, ANTES, {}, "R8.1"),
    (FIVE_CARD_DRAW, GameConfig(blinds=False, ante=1, min_bet=10, replacements="per-seat"), {}, "R6.9"),
    (SEVEN_CARD_DRAW, GameConfig(), {"carried": 5}, "R7.4"),
    (FIVE_CARD_DRAW, ANTES, {"carried": -1}, "R7.4"),
])
def test_what_a_game_refuses(game: object, config: GameConfig, kw: dict[str, int], rule: str) -> None:
    with pytest.raises(GameConfigError, match=rf"^{rule}"):
        start_hand(game, config, [100, 100], 0, seed=1, **kw)  # type: ignore[arg-type]


def test_the_older_names_are_the_same_hands() -> None:
    triple = TripleDrawHand.start(GameConfig(), [100, 100], 0, seed=5)
    plain = start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, GameConfig(), [100, 100], 0, seed=5)
    assert isinstance(triple, HandState) and triple.cards == plain.cards and triple.legal() == plain.legal()
    jackpot = JackpotHand.start(ANTES, [100, 100], 0, seed=5, rule=Openers.JACK_CARD)
    assert jackpot.hand.game == with_openers(FIVE_CARD_DRAW, Openers.JACK_CARD)
    assert jackpot.cards == start_hand(jackpot.hand.game, ANTES, [100, 100], 0, seed=5).cards
    with pytest.raises(GameConfigError, match=r"^R7\.2: openers must be one of"):
        with_openers(FIVE_CARD_DRAW, "queens")
