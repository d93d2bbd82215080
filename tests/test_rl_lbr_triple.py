"""Local best response in Deuce-to-Seven Triple Draw (``harness lbr --game deuce-to-seven-triple-draw``): it beats
a bot that always calls by a clear margin, its range of five-card holdings follows the three public draws and
never holds a card LBR has held, and the 2-7 keep rule it draws by (``lowball.keep_27``) keeps what it says."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import GameConfig
from harness.engine.evaluator import Category
from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW as TRIPLE
from harness.engine.games import FIVE_CARD_DRAW
from harness.engine.lowball import evaluate_27, keep_27, low_category
from harness.rl import lbr
from harness.rl.best_response import BotSpecError

FIXED = GameConfig(structure="fixed-limit", cap=4)


@pytest.mark.parametrize("game", [FIXED, GameConfig()], ids=["fixed-limit", "no-limit"])
def test_lbr_beats_an_always_call_bot_by_a_clear_margin(game: GameConfig) -> None:
    """bots.caller calls every bet and stands pat on the five cards it was dealt: LBR draws to a low, bets its
    good hands and checks or folds its bad ones. 30 duplicate deals: the whole 95% interval lies above 100 bb/100
    (one big blind a hand; a strong bot loses a few to an equilibrium)."""
    result = lbr("caller", hands=30, seed=3, particles=20, game=game, definition=TRIPLE)
    assert result.estimate.hands == 60
    low = result.estimate.low
    assert low is not None and low > 100, result.summary()
    assert result.range_lost == 0 and result.unfaithful == 0


class _RangeCheck:
    """The observer: every holding of the range is five distinct cards LBR never held, with the bot's public
    draw counts (module doc of harness.rl.best_response)."""

    def __init__(self) -> None:
        self.mine: dict[tuple[int, int], set[int]] = {}
        self.checked = 0

    def __call__(self, state: Any, seat: int, particles: Any) -> None:
        mine = self.mine.setdefault((state.hand_id, seat), set(state.hole_cards[seat]))
        mine.update(state.cards[seat])
        counts = [e["count"] for e in state.history if e["seat"] == 1 - seat and e["action"] == "draw"]
        assert particles
        for p in particles:
            assert len(p.hole) == 5 and len(set(p.hole)) == 5
            assert not p.every_card() & mine, "a holding has a card LBR has held"
            assert not set(p.past) & set(p.hole)
            if not counts:
                assert p.kept is None and p.new is None and p.past == ()
                continue
            assert p.kept is not None and set(p.kept) <= set(p.hole) and len(p.hole) - len(p.kept) == counts[-1]
            assert len(p.past) == sum(counts[:-1])
            if p.new is not None:
                assert len(p.new) == counts[-1] and len(set(p.cards())) == 5
            elif state.phase.value != "draw" and not state.is_complete:
                raise AssertionError("replacements not sampled once the draw is over")
            self.checked += 1


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), bot=st.sampled_from(["caller", "raiser", "random_bot"]), fixed=st.booleans())
def test_the_range_follows_the_draws_and_never_holds_a_card_lbr_has_held(seed: int, bot: str, fixed: bool) -> None:
    check = _RangeCheck()
    lbr(bot, hands=3, seed=seed, particles=12, game=FIXED if fixed else GameConfig(), observer=check,
        definition=TRIPLE)
    assert check.checked > 0


def test_the_same_arguments_give_the_same_figures_and_seven_card_draw_is_the_default() -> None:
    first = lbr("random_bot", hands=3, seed=11, particles=10, game=FIXED, definition=TRIPLE).as_dict()
    assert lbr("random_bot", hands=3, seed=11, particles=10, game=FIXED, definition=TRIPLE).as_dict() == first
    assert lbr("random_bot", hands=3, seed=11, particles=10, game=FIXED).as_dict() != first


def test_what_lbr_refuses_is_one_line_naming_it() -> None:
    with pytest.raises(ValueError, match="LBR plays seven-card-draw and deuce-to-seven-triple-draw, not five-card"):
        lbr("caller", hands=2, definition=FIVE_CARD_DRAW)
    with pytest.raises(ValueError, match="R8.1"):
        lbr("caller", hands=2, game=GameConfig(blinds=False, ante=1, min_bet=2, small_blind=0, big_blind=0),
            definition=TRIPLE)
    with pytest.raises(BotSpecError, match="did not start a match of deuce-to-seven-triple-draw"):
        lbr("solid", hands=2, definition=TRIPLE)  # solid leaves a game it does not play


def test_cli_game_option() -> None:
    runner = CliRunner()
    args = ["lbr", "--bot", "caller", "--hands", "3", "--particles", "5", "--structure", "fixed-limit", "--json"]
    done = runner.invoke(app, [*args, "--game", TRIPLE.name])
    assert done.exit_code == 0, done.output
    expected = lbr("caller", hands=3, particles=5, game=GameConfig(structure="fixed-limit"), definition=TRIPLE)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == expected.as_dict()
    for game, says in (("five-card-draw", "--game must be one of seven-card-draw, deuce-to-seven-triple-draw"),
                       ("nosuch", "--game must be one of")):
        done = runner.invoke(app, [*args, "--game", game])
        assert done.exit_code == 2 and done.stderr.startswith("harness lbr: ") and says in done.stderr, done.output
    done = runner.invoke(app, ["lbr", "--bot", "solid", "--hands", "2", "--game", TRIPLE.name])
    assert done.exit_code == 2 and "harness lbr: the bot did not start a match" in done.stderr, done.output
    assert "Traceback" not in done.output


@given(cards=st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True))
def test_keep_27_stands_pat_on_a_made_nine_low_and_else_keeps_distinct_low_cards(cards: list[int]) -> None:
    kept = keep_27(cards)
    assert [c for c in cards if c in kept] == kept  # a subset, in the hand's order
    made = low_category(evaluate_27(cards)) == Category.HIGH_CARD and max(c >> 2 for c in cards) <= 7
    if made:
        assert kept == cards
    else:
        assert len(kept) <= 4 and len({c >> 2 for c in kept}) == len(kept) and all(c >> 2 <= 5 for c in kept)
