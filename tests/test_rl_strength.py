"""harness.rl.evaluate: bb/100 with a 95% interval on duplicate deals, beside the check/fold and always-call
baselines on the same deals."""

from __future__ import annotations

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

from bots.solid import Solid  # noqa: E402
from harness.rl import evaluate  # noqa: E402
from harness.rl.gym import SdkOpponent, SingleAgentEnv, random_policy  # noqa: E402
from harness.rl.strength import always_call, check_fold  # noqa: E402


def test_duplicate_cancels_the_cards_between_equal_policies() -> None:
    """The same policy in every seat of the same deals: the seats' nets of a deal add up to 0 exactly."""
    for n in (2, 3):
        result = evaluate(always_call, [always_call] * (n - 1), hands=20, seed=7, baselines=False)
        assert result.policy.bb_per_100 == 0 and result.policy.low == 0 and result.policy.high == 0
        assert result.policy.sets == 20 and result.policy.hands == 20 * n
        assert result.check_fold is None and result.always_call is None


def test_a_deal_is_played_in_every_seat_and_summed() -> None:
    result = evaluate(check_fold, [always_call], hands=10, seed=3, baselines=False)
    by_hand = 0.0
    for seat in (0, 1):
        g = SingleAgentEnv([always_call], seat=seat)
        by_hand += sum(g.play_hand(check_fold, h, 3) for h in range(10))
    assert result.policy.bb_per_100 == pytest.approx(100 * by_hand / 20)


def test_the_baselines_play_the_same_deals() -> None:
    opponents = lambda: [random_policy(5)]  # noqa: E731 - fresh, seeded opponents per seat: the same play
    result = evaluate(check_fold, opponents, hands=30, seed=11)
    assert result.check_fold == result.policy  # check/fold as the policy: the same deals, the same numbers
    assert result.always_call is not None and result.always_call != result.policy
    again = evaluate(check_fold, opponents, hands=30, seed=11)
    assert again == result  # deterministic for a seed


def test_against_solid_the_baselines_lose_and_the_summary_says_so() -> None:
    result = evaluate(check_fold, lambda: [SdkOpponent(Solid())], hands=40, seed=2026)
    assert result.check_fold is not None and result.always_call is not None
    assert result.check_fold.high is not None and result.check_fold.high < 0
    assert result.always_call.high is not None and result.always_call.high < 0
    text = result.summary()
    # check/fold as the policy: the same numbers as the baseline, so the intervals overlap
    assert "the policy does not clearly beat check_fold: the intervals overlap" in text and "bb/100 (95% " in text
    assert result.beats("always_call") == ("the policy beats always_call" in text)
    assert not result.beats("check_fold")


def test_bad_hands_are_refused() -> None:
    with pytest.raises(ValueError, match="hands must be a whole number >= 2"):
        evaluate(check_fold, [always_call], hands=1)
