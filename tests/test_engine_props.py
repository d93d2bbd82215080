"""Property tests: thousands of seeded random legal hands over table sizes 2-6, both
structures, antes on/off, ante-only games and both replacement modes. Every decision checks
that offered actions are accepted and others refused; every hand checks chips, cards,
observations and replay."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine import (
    Action,
    ActionKind,
    GameConfig,
    HandState,
    IllegalActionError,
    InvalidActionError,
)
from harness.engine.cards import CARD_STRS
from harness.history.v1 import build_record, replay
from tests.engine_helpers import CONFIGS

KINDS = tuple(ActionKind)
BETTING = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET, ActionKind.RAISE)
CARD_SET = set(CARD_STRS)


def cheap_snapshot(state: HandState) -> tuple[Any, ...]:
    return (
        state.phase, state.to_act, list(state.stacks), list(state.bets), list(state.contrib),
        list(state.folded), list(state.all_in), [list(c) for c in state.cards], list(state.draws),
        len(state.history), state.legal(),
    )


def card_strings(value: Any) -> set[str]:
    """Every string in a JSON-like value that is a card's text."""
    if isinstance(value, str):
        return {value} if value in CARD_SET else set()
    if isinstance(value, dict):
        return set().union(*(card_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_strings(v) for v in value)) if value else set()
    return set()


def check_invariants(state: HandState) -> None:
    start = state.starting_stacks
    if not state.is_complete:
        assert all(state.stacks[s] + state.contrib[s] == start[s] for s in range(state.n))
        assert all(b >= 0 for b in state.bets) and all(x >= 0 for x in state.stacks)
    # no card in two places: live hands, the muck, the stock, the undealt deck
    live = [c for s in range(state.n) if not state.folded[s] for c in state.cards[s]]
    assert len(live) == len(set(live))
    if state.config.replacements == "stock":
        rest = state._muck + state._stock + state._deck.upto(52)[state._pos :]
        everything = live + rest
        assert len(everything) == len(set(everything))
        assert len(everything) + sum(len(state.cards[s]) for s in range(state.n) if state.folded[s]) >= 52


def check_offers(state: HandState, rng: random.Random) -> None:
    """Offered actions are accepted, everything else refused."""
    legal = state.legal()
    seat = state.to_act
    assert seat is not None
    if state.phase == "draw":
        assert legal.actions == (ActionKind.DRAW,) and legal.max_discards == 4
        hand = state.cards[seat]
        for k in range(5):
            assert state.can(Action(ActionKind.DRAW, 0, tuple(rng.sample(hand, k))))
        assert not state.can(Action(ActionKind.DRAW, 0, tuple(hand[:5])))
        assert not state.can(Action(ActionKind.DRAW, 0, (hand[0], hand[0])))
        other = next(c for c in range(52) if c not in hand)
        assert not state.can(Action(ActionKind.DRAW, 0, (other,)))
        for kind in BETTING:
            assert not state.can(Action(kind, legal.max_to))
        return
    assert ActionKind.FOLD in legal.actions
    assert not state.can(Action(ActionKind.DRAW))
    for kind in BETTING:
        if kind in (ActionKind.BET, ActionKind.RAISE):
            if kind in legal.actions:
                lo, hi = legal.min_to, legal.max_to
                top = min(state.bets[seat] + state.stacks[seat], deepest_reach(state, seat))
                assert 0 < lo <= hi == top or state.config.structure == "fixed-limit"
                assert state.can(Action(kind, lo)) and state.can(Action(kind, hi))
                assert not state.can(Action(kind, lo - 1)) and not state.can(Action(kind, hi + 1))
                if state.config.structure == "fixed-limit":
                    assert lo == hi
                else:
                    assert state.can(Action(kind, rng.randint(lo, hi)))
            else:
                for amount in (legal.min_to, legal.max_to, state.bets[seat] + state.stacks[seat], 20):
                    assert not state.can(Action(kind, amount))
        else:
            assert state.can(Action(kind)) == (kind in legal.actions)
    if ActionKind.CALL in legal.actions:
        assert 0 < legal.call_amount <= state.stacks[seat]
    else:
        assert legal.call_amount == 0
    check_capped(state, rng)


def check_capped(state: HandState, rng: random.Random) -> None:
    """R3.10: a shove (the player's all-in, or any amount above it) of the kind the round calls for is
    always playable once capped, and a wager changed by ``capped`` is legal; any other is left as sent."""
    seat = state.to_act
    assert seat is not None
    kind = ActionKind.RAISE if max(state.bets) else ActionKind.BET
    allin = state.bets[seat] + state.stacks[seat]
    for amount in (allin, allin + rng.randint(1, 10**6)):
        sent = Action(kind, amount)
        played = state.capped(sent)
        if played != sent or state.can(sent):
            assert state.can(played), (sent, played, state.legal())
        elif state.config.structure != "fixed-limit":  # left as sent: refused by a rule, not for want of chips
            assert state._acted[seat] or kind in state.legal().actions, (sent, state.legal())
    for amount in (rng.randint(0, 2 * allin + 1), 0):
        sent = Action(rng.choice([ActionKind.BET, ActionKind.RAISE]), amount)
        played = state.capped(sent)
        assert played == sent or state.can(played), (sent, played, state.legal())


def check_a_decision_exists(state: HandState) -> None:
    """R3.4: a betting decision is offered only if at least two players can still
    act, or a bet is pending for the player asked, and then never for chips R3.9 would hand back."""
    if state.phase == "draw":
        return
    seat = state.to_act
    assert seat is not None
    able = [s for s in range(state.n) if not state.folded[s] and not state.all_in[s]]
    assert seat in able
    if len(able) >= 2:
        return
    legal = state.legal()
    assert legal.call_amount > 0, (legal, state)
    matched = max(state.bets[o] for o in range(state.n) if o != seat and not state.folded[o])
    assert state.bets[seat] + legal.call_amount <= matched, (legal, state)
    assert legal.actions == (ActionKind.FOLD, ActionKind.CALL)


def deepest_reach(state: HandState, seat: int) -> int:
    """The most chips any opponent of ``seat`` still in the hand can have in this round (R3.4)."""
    return max(state.bets[o] + state.stacks[o] for o in range(state.n) if o != seat and not state.folded[o])


def check_wagers_can_be_answered(state: HandState) -> None:
    """R3.4, E14: no offered bet/raise exceeds what the deepest opponent still in the hand can
    match, and none is offered when no opponent could put in more than the call."""
    if state.phase == "draw":
        return
    seat = state.to_act
    legal = state.legal()
    reach = deepest_reach(state, seat)  # type: ignore[arg-type]
    wager = ActionKind.BET in legal.actions or ActionKind.RAISE in legal.actions
    if wager:
        assert legal.max_to <= reach, (legal, state)
        assert reach > state.bets[seat] + legal.call_amount, (legal, state)  # type: ignore[index]
        assert not state.can(Action(ActionKind.RAISE, reach + 1)) and not state.can(Action(ActionKind.BET, reach + 1))
    else:
        for kind in (ActionKind.BET, ActionKind.RAISE):
            assert not state.can(Action(kind, reach))


def check_no_unmatched_pot(state: HandState) -> None:
    """R3.9: chips only their owner put in are returned, never a pot of one."""
    top, second = sorted(state.contrib)[-2:][::-1]
    assert top == second, state.contrib
    for pot in state.result().pots:
        if len(pot.eligible) == 1:  # a side pot nobody else may win must hold a folded player's chips
            assert any(state.folded), pot


def random_action(state: HandState, rng: random.Random) -> Action:
    legal = state.legal()
    kind = rng.choice(legal.actions)
    if kind is ActionKind.DRAW:
        hand = state.cards[state.to_act]  # type: ignore[index]
        return Action(kind, 0, tuple(rng.sample(hand, rng.randint(0, 4))))
    if kind in (ActionKind.BET, ActionKind.RAISE):
        lo, hi = legal.min_to, legal.max_to
        amount = rng.choice([lo, hi, rng.randint(lo, hi)])
        return Action(kind, amount)
    return Action(kind)


def play_checked(seed: int, deep: bool) -> HandState:
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    config = rng.choice([c for c in CONFIGS if n <= 4 or c.replacements == "stock"])
    stacks = [rng.choice([rng.randint(1, 40), rng.randint(40, 400), 1000]) for _ in range(n)]
    state = HandState.start(config, stacks, rng.randrange(n), seed, hand_id=seed)
    steps = 0
    while not state.is_complete:
        check_invariants(state)
        check_a_decision_exists(state)
        check_wagers_can_be_answered(state)
        if deep:
            check_offers(state, rng)
        if deep and steps % 3 == 0:
            # an illegal or malformed action leaves the state exactly as it was
            before = cheap_snapshot(state)
            bad = rng.choice(
                [Action(ActionKind.DRAW, 0, (99,)), Action(ActionKind.RAISE, -1), Action(ActionKind.CHECK)]
            )
            try:
                state.apply(bad)
            except (IllegalActionError, InvalidActionError):
                pass
            else:  # it was legal (a check): it counts as this step's action
                steps += 1
                continue
            assert cheap_snapshot(state) == before
        if deep and steps % 2 == 0:
            seat = rng.randrange(n)
            seen = card_strings(state.observation(seat))
            assert seen == {CARD_STRS[c] for c in state.cards[seat]}
        state.apply(random_action(state, rng))
        steps += 1
    result = state.result()
    check_no_unmatched_pot(state)
    assert sum(result.net) == 0
    assert sum(result.final_stacks) == sum(stacks) and min(result.final_stacks) >= 0
    assert sum(p.amount for p in result.pots) == state.pot
    assert all(sum(p.shares) == p.amount for p in result.pots)
    assert all(set(p.winners) <= set(p.eligible) for p in result.pots)
    check_invariants(state)
    shown = set(result.shown)
    assert shown == ({s for s in range(n) if not state.folded[s]} if len(shown) else set())
    for seat in range(n):
        visible = {CARD_STRS[c] for s in shown | {seat} for c in state.cards[s]}
        assert card_strings(state.observation(seat)) <= visible
    return state


@pytest.mark.slow
def test_random_hands_keep_every_invariant() -> None:
    for seed in range(2500):
        state = play_checked(seed, deep=True)
        record = json.loads(json.dumps(build_record(state)))
        again = replay(record)
        assert build_record(again) == build_record(state)


@pytest.mark.slow
def test_many_more_random_hands_conserve_chips_and_replay() -> None:
    for seed in range(10_000, 20_000):
        state = play_checked(seed, deep=False)
        if seed % 10 == 0:
            assert replay(build_record(state)).result() == state.result()


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 6),
    config=st.sampled_from(CONFIGS[:4] + CONFIGS[5:7]),
    stacks=st.lists(st.integers(1, 500), min_size=6, max_size=6),
    seed=st.integers(0, 2**64),
    choices=st.lists(st.integers(0, 10_000), min_size=60, max_size=60),
)
def test_hypothesis_driven_hands(n: int, config: GameConfig, stacks: list[int], seed: int, choices: list[int]) -> None:
    state = HandState.start(config, stacks[:n], seed % n, seed)
    for pick in choices:
        if state.is_complete:
            break
        legal = state.legal()
        kind = legal.actions[pick % len(legal.actions)]
        if kind is ActionKind.DRAW:
            hand = state.cards[state.to_act]  # type: ignore[index]
            action = Action(kind, 0, tuple(hand[: pick % 5]))
        elif kind in (ActionKind.BET, ActionKind.RAISE):
            action = Action(kind, legal.min_to + pick % (legal.max_to - legal.min_to + 1))
        else:
            action = Action(kind)
        state.apply(action)
        assert all(state.stacks[s] + state.contrib[s] == stacks[s] for s in range(n)) or state.is_complete
        if not state.is_complete:
            check_a_decision_exists(state)
            check_wagers_can_be_answered(state)
    while not state.is_complete:
        check_a_decision_exists(state)
        state.apply(state.default_action())
    check_no_unmatched_pot(state)
    assert sum(state.result().net) == 0
    assert build_record(replay(build_record(state))) == build_record(state)


@pytest.mark.parametrize("seed", [3, 4])
def test_same_seed_same_actions_same_record(seed: int) -> None:
    a = play_checked(seed, deep=False)
    b = play_checked(seed, deep=False)
    assert build_record(a) == build_record(b)


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(2, 6),
    config=st.sampled_from(CONFIGS),
    stacks=st.lists(st.integers(1, 300), min_size=6, max_size=6),
    seed=st.integers(0, 2**64),
    picks=st.lists(st.integers(0, 10_000), min_size=80, max_size=80),
)
def test_no_wager_is_offered_beyond_what_an_opponent_can_answer(
    n: int, config: GameConfig, stacks: list[int], seed: int, picks: list[int]
) -> None:
    """R3.4 (E14) over random hands, raising as often as allowed (short stacks make the cap bind):
    every offered bet/raise is at most the deepest live opponent's reach, and none is offered
    when no opponent could put in more than the call."""
    if n > 4 and config.replacements == "per-seat":
        n = 4
    state = HandState.start(config, stacks[:n], seed % n, seed)
    for pick in picks:
        if state.is_complete:
            break
        check_wagers_can_be_answered(state)
        legal = state.legal()
        wagers = [k for k in legal.actions if k in (ActionKind.BET, ActionKind.RAISE)]
        if legal.actions == (ActionKind.DRAW,):
            action = Action(ActionKind.DRAW)
        elif wagers and pick % 3:
            action = Action(wagers[0], legal.min_to + pick % (legal.max_to - legal.min_to + 1))
        else:
            action = Action(legal.actions[pick % len(legal.actions)])
        state.apply(action)
    while not state.is_complete:
        check_wagers_can_be_answered(state)
        state.apply(state.default_action())
