"""Hand state API: configuration errors, malformed and illegal actions, default actions,
observations, records and replay, ante-only games, per-seat replacements."""

from __future__ import annotations

import json

import pytest

from harness.engine import (
    Action,
    ActionKind,
    GameConfig,
    GameConfigError,
    HandState,
    IllegalActionError,
    InvalidActionError,
    ReplayError,
    parse_cards,
)
from harness.history.v1 import build_record, replay
from tests.engine_helpers import check_down, new_hand, snapshot, stand_pat_all

# Every hand of these tests is played again mirrored in the native core (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("both_engines")


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"big_blind": 9, "small_blind": 4}, "R2.2: big_blind must be even"),
        ({"big_blind": 10, "small_blind": 4}, "R2.2: small_blind must be half"),
        ({"ante": -1}, "R2.4: ante"),
        ({"cap": -2}, "R3.7: cap"),
        ({"structure": "pot-limit"}, "structure must be"),
        ({"replacements": "magic"}, "R4.4: replacements"),
        ({"blinds": False, "ante": 5}, "R2.5: an ante-only game .* needs min_bet"),
        ({"blinds": False, "ante": 5, "min_bet": 5}, "R2.5: min_bet must be even"),
        ({"blinds": False, "ante": 0, "min_bet": 10}, "R2.5: .*ante >= 1"),
        ({"min_bet": 10}, "R2.5: min_bet applies only"),
        ({"big_blind": 10.0}, "R2.2: big_blind must be a whole number"),
    ],
)
def test_bad_settings_are_refused_at_construction(settings: dict, match: str) -> None:
    with pytest.raises(GameConfigError, match=match):
        GameConfig(**settings)


def test_settings_round_trip_through_dicts() -> None:
    config = GameConfig(structure="fixed-limit", ante=2, cap=0, replacements="per-seat")
    assert config.structure == "fixed-limit" and GameConfig.from_dict(config.to_dict()) == config
    assert json.loads(json.dumps(config.to_dict()))["replacements"] == "per-seat"
    with pytest.raises(GameConfigError, match="unknown game setting"):
        GameConfig.from_dict({"big_blnd": 10})


@pytest.mark.parametrize(
    ("stacks", "button", "match"),
    [
        ([100] * 7, 0, "R1.2: .*got 7.*run dry"),
        ([100], 0, "R1.2"),
        ([100, 0], 0, "R1.4: stack of seat 1"),
        ([100, -5], 0, "R1.4"),
        ([100, 50.5], 0, "R1.4"),
        ([100, 100], 2, "R2.1: button"),
    ],
)
def test_bad_tables_are_refused(stacks: list, button: int, match: str) -> None:
    with pytest.raises(GameConfigError, match=match):
        HandState.start(GameConfig(), stacks, button, seed=1)


def test_per_seat_replacements_need_at_most_four_players() -> None:
    with pytest.raises(GameConfigError, match="R4.4"):
        HandState.start(GameConfig(replacements="per-seat"), [100] * 5, 0, seed=1)


def test_malformed_actions_are_invalid_and_change_nothing() -> None:
    state = new_hand([1000, 1000, 1000])
    before = snapshot(state)
    for bad, error in [
        ("fold", InvalidActionError),
        (Action("jump"), InvalidActionError),  # type: ignore[arg-type]
        (Action(ActionKind.RAISE, "30"), InvalidActionError),  # type: ignore[arg-type]
        (Action(ActionKind.CHECK), IllegalActionError),
        (Action(ActionKind.BET, 40), IllegalActionError),
        (Action(ActionKind.DRAW), IllegalActionError),
        (Action(ActionKind.RAISE, 15), IllegalActionError),
        (Action(ActionKind.RAISE, 1001), IllegalActionError),
    ]:
        with pytest.raises(error):
            state.apply(bad)  # type: ignore[arg-type]
        assert not state.can(bad)  # type: ignore[arg-type]
        assert snapshot(state) == before
    # a plain string kind is accepted
    state.apply(Action("call"))  # type: ignore[arg-type]
    assert state.history[-1]["action"] == "call"


def test_bad_draws_are_refused_and_change_nothing() -> None:
    state = new_hand([1000, 1000], hands=["As Ks Qs Js Ts 9s 8s", "2c 3c 4c 5c 6c 7c 8c"])
    state.call(), state.check()
    before = snapshot(state)
    with pytest.raises(InvalidActionError, match="cannot discard 2c: not in its hand"):
        state.draw(parse_cards("2c"))
    with pytest.raises(InvalidActionError, match="twice"):
        state.draw(parse_cards("As As"))
    with pytest.raises(IllegalActionError, match="R4.1: seat 0 may discard at most 4"):
        state.draw(parse_cards("As Ks Qs Js Ts"))
    with pytest.raises(IllegalActionError, match="R4.1: seat 0 must draw"):
        state.check()
    with pytest.raises(InvalidActionError):
        state.draw(["As"])  # type: ignore[list-item]
    assert snapshot(state) == before
    state.draw(parse_cards("9s 8s"))
    assert state.draws == [2, None] and state.history[-1] == {"seat": 0, "action": "draw", "count": 2}


def test_actions_after_the_hand_are_refused() -> None:
    state = new_hand([1000, 1000])
    state.fold()
    assert state.is_complete and state.to_act is None and state.legal().actions == ()
    with pytest.raises(IllegalActionError, match="complete"):
        state.check()
    with pytest.raises(IllegalActionError):
        state.default_action()


def test_result_before_the_end_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not complete"):
        new_hand([1000, 1000]).result()


def test_default_action_checks_folds_or_stands_pat() -> None:
    state = new_hand([1000, 1000, 1000])
    assert state.default_action() == Action(ActionKind.FOLD)
    state.call(), state.call()
    assert state.default_action() == Action(ActionKind.CHECK)  # the big blind's option
    state.check()
    assert state.default_action() == Action(ActionKind.DRAW)
    while not state.is_complete:
        state.apply(state.default_action())
    assert sum(state.result().net) == 0


def test_observation_shows_only_what_the_seat_may_see() -> None:
    hands = ["As Ks Qs Js Ts 9s 8s", "2c 3c 4c 5c 6c 7c 8c", "2d 3d 4d 5d 6d 7d 8d"]
    state = new_hand([1000, 1000, 1000], hands=hands)
    obs = state.observation(1)
    assert obs["cards"] == hands[1].split() and obs["seat"] == 1
    text = json.dumps(obs)
    for card in hands[0].split() + hands[2].split():
        assert f'"{card}"' not in text
    assert obs["bets"] == [0, 5, 10] and obs["pot"] == 15 and obs["to_act"] == 0
    assert obs["history"][-1] == {"seat": 2, "action": "big_blind", "amount": 10}
    obs["history"].append({"tampered": True})
    obs["history"][0]["amount"] = 999
    assert state.observation(1)["history"][0]["amount"] == 5  # a copy, never the state's own
    shared = state.observation(1, copy=False)  # the referee's view: same content, the state's own lists
    assert shared == state.observation(1) and shared["history"] is state.history
    state.fold()  # seat 0 folds: its cards are never revealed
    state.call(), state.check()
    stand_pat_all(state)
    check_down(state)
    final = state.observation(1)
    assert final["phase"] == "complete" and [s["seat"] for s in final["shown"]] == [1, 2]
    assert all(f'"{card}"' not in json.dumps(final) for card in hands[0].split())
    assert final["shown"][1]["category"] == "straight flush"
    with pytest.raises(ValueError):
        state.observation(3)


def test_record_is_json_ready_and_replays() -> None:
    state = new_hand([1000, 1000, 1000], seed=42)
    state.raise_to(30), state.call(), state.fold()
    state.draw(state.cards[0][:3]), state.draw([])
    state.bet(60), state.call()
    record = json.loads(json.dumps(build_record(state)))
    assert record["seed"] == 42 and record["stacks"] == [1000] * 3 and record["button"] == 0
    assert record["actions"][3]["action"] == "draw" and len(record["actions"][3]["discards"]) == 3
    assert len(record["actions"][3]["received"]) == 3
    assert record["net"] == list(state.result().net) and sum(record["net"]) == 0
    assert build_record(replay(record)) == build_record(state)
    # the caller may add its own fields to the line
    assert replay({**record, "match_id": "m1"}).is_complete


@pytest.mark.parametrize(
    ("path", "value", "match"),
    [
        (("net", 0), 12345, r"record\.net\[0\]"),
        (("actions", 0, "amount"), 35, r"record\.actions\[0\]|record\.history"),
        (("actions", 0, "seat"), 2, r"actions\[0\]: seat 2 acts"),
        (("hole_cards", 1, 0), "Zz", r"record\.hole_cards\[1\]\[0\]"),
        (("actions", 2, "action"), "check", r"actions\[2\].*refused: R3.5"),
    ],
)
def test_replay_names_the_first_difference(path: tuple, value: object, match: str) -> None:
    state = new_hand([1000, 1000, 1000], seed=42)
    state.raise_to(30), state.call(), state.fold()
    check_down(state)
    record = json.loads(json.dumps(build_record(state)))
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ReplayError, match=match):
        replay(record)


def test_same_seed_same_deal_different_seed_different_deal() -> None:
    a = HandState.start(GameConfig(), [100] * 4, 0, seed=77)
    b = HandState.start(GameConfig(), [100] * 4, 0, seed=77)
    c = HandState.start(GameConfig(), [100] * 4, 0, seed=78)
    assert a.cards == b.cards and a.cards != c.cards
    # the deal goes one card at a time from left of the button (R2.7)
    order = a._deck.order
    assert a.cards[1] == order[0:28:4] and a.cards[0] == order[3:28:4]


def test_ante_only_game() -> None:
    state = new_hand([100, 100, 100], button=0, blinds=False, ante=5, min_bet=10)
    assert [e["action"] for e in state.history] == ["ante"] * 3 and state.bets == [0, 0, 0]
    legal = state.legal()
    assert state.to_act == 1 and legal.actions == (ActionKind.FOLD, ActionKind.CHECK, ActionKind.BET)
    assert legal.min_to == 10 and legal.max_to == 95
    with pytest.raises(IllegalActionError, match="R3.6"):
        state.bet(8)
    state.check(), state.check(), state.check()
    assert state.phase == "draw" and state.to_act == 1  # draws start left of the button (R2.5)
    stand_pat_all(state)
    assert state.legal().min_to == 20  # twice min_bet when nobody bet in round 1
    obs = state.observation(0)
    assert obs["big_blind"] == 0 and obs["min_bet"] == 10

    state = new_hand([100, 100, 100], button=0, blinds=False, ante=5, min_bet=10)
    state.bet(15), state.call(), state.call()
    stand_pat_all(state)
    assert state.legal().min_to == 30  # twice round 1's final bet


def test_per_seat_replacements_do_not_depend_on_the_others() -> None:
    config = GameConfig(replacements="per-seat")

    def received(others: int) -> tuple[list[int], list[int]]:
        state = HandState.start(config, [1000] * 4, 0, seed=5)
        for _ in range(3):
            state.call()
        state.check()
        got = {}
        while state.phase == "draw":
            seat = state.to_act
            k = 3 if seat == 2 else others
            state.draw(state.cards[seat][:k])
            got[seat] = state.cards[seat][7 - k :]
        return got[2], state._deck.order

    a, order = received(4)
    b, _ = received(0)
    assert a == b  # seat 2, the second seat after the button: cards 28 + 4 .. 28 + 6
    assert a == order[32:35]


def test_stock_replacements_follow_the_draw_order() -> None:
    state = HandState.start(GameConfig(), [1000] * 4, 0, seed=5)
    for _ in range(3):
        state.call()
    state.check()
    order = state._deck.order
    first = state.to_act
    assert first == 3  # left of the big blind
    state.draw(state.cards[3][:2])
    assert state.cards[3][5:] == order[28:30]
    state.draw(state.cards[0][:1])
    assert state.cards[0][6:] == order[30:31]
