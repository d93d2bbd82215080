"""The referee's native hand (harness.engine.native_state.NativeHandState) against the Python engine, its oracle.

Random hands in every setting (2-6 seats, no-limit and fixed-limit with caps, blinds, antes, ante-only,
per-seat replacements, short and deep stacks, seeds of any size; harness.bench.differential's tables and
chooser: legal actions, over-reaching and refused ones, the referee's capped bets) played on both
``HandState`` and ``NativeHandState``, compared after every action on everything the referee, the wire and
the hand records read: phase, seat to act, legal actions with amounts, pot, stacks, bets, contributions,
folds, all-ins, cards, draw counts, the public history (event dicts key for key), the default action,
``capped``, the refusals (same error class and words, state unchanged), the request bytes of the seat to
act, and at the end the action log, the result (pots, side pots, winners, shares, shown hands), the
``hand_end`` bytes and the hand record. Then real matches: the same hand histories with either engine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
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
    Phase,
    Structure,
)
from harness.engine.actions import BET, DRAW, RAISE
from harness.engine.games import FIVE_CARD_DRAW, SEVEN_CARD_DRAW
from harness.engine.games import start_hand as python_start_hand
from harness.history import record as handrecord
from harness.history.record import BY_BOT
from harness.match.referee import play_match
from harness.match.wire import HandWire, MatchWire
from harness.specs import BotSpec, MatchSpec
from tests.fault_helpers import LIMITS, REPO, assert_nothing_left, fixture_bot, history
from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing, skip_loudly

if native_core_missing():  # make install and make test always build it: only a bare pip install lacks it
    skip_loudly(NATIVE_CORE_MISSING, module=True)

from harness.bench.differential import choose, random_table  # noqa: E402
from harness.engine.native_state import MAX_NATIVE_STACK, NativeHandState, start_hand  # noqa: E402
from harness.match import referee  # noqa: E402

_FIELDS = ("phase", "to_act", "pot", "stacks", "bets", "contrib", "folded", "all_in", "cards", "draws", "history",
           "n", "button", "seed", "hand_id", "starting_stacks", "hole_cards", "carried", "raise_cap", "is_complete",
           "betting_round", "opener", "proof")


def _same(py: HandState, nat: NativeHandState, where: str, wire: tuple[HandWire, HandWire]) -> None:
    for name in _FIELDS:
        a, b = getattr(py, name), getattr(nat, name)
        assert a == b and type(a) is type(b), f"{where}: {name}: python {a!r}, native {b!r}"
    assert json.dumps(py.history) == json.dumps(nat.history), where  # key order too: the wire packs the dicts
    assert py.legal() == nat.legal(), f"{where}: legal"
    if py.is_complete:
        assert py.action_log() == nat.action_log(), f"{where}: action log"
        assert [tuple(map(type, e)) for e in py.action_log()] == [tuple(map(type, e)) for e in nat.action_log()]
        a, b = py.result(), nat.result()
        assert a == b, f"{where}: result"
        assert [(s, r.value, r.category, r.five) for s, r in a.shown.items()] == \
            [(s, r.value, r.category, r.five) for s, r in b.shown.items()], f"{where}: shown"
        assert wire[0].hand_end() == wire[1].hand_end(), f"{where}: hand_end bytes"
        assert json.dumps(_record(py)) == json.dumps(_record(nat)), f"{where}: hand record"
        with pytest.raises(IllegalActionError) as refused:
            nat.default_action()
        assert str(refused.value) == "R1.3: the hand is complete; nobody is to act"
    else:
        assert py.default_action() == nat.default_action(), f"{where}: default action"
        seat: int = py.to_act  # type: ignore[assignment]
        draw = py.phase is Phase.DRAW
        assert wire[0].request(draw, 3, seat, py.legal(), 500) == wire[1].request(draw, 3, seat, nat.legal(), 500), \
            f"{where}: request bytes"
        with pytest.raises(RuntimeError):
            nat.result()


def _record(state: Any) -> dict[str, Any]:
    n = state.n
    return handrecord.build(state, match_id="m", match={"bots": [f"b{k}" for k in range(n)]}, seated=list(range(n)),
                            out=[False] * n, decisions=[(BY_BOT, None, 1.0)] * len(state.action_log()), faults=[])


def _odd_form(action: Action, rnd: random.Random) -> Any:
    """The same action in a form the core cannot take as it is (judged by the Python twin), or a bad type."""
    pick = rnd.randrange(6)
    if pick == 0:
        return Action(str(action.kind), action.amount, action.discards)  # type: ignore[arg-type]
    if pick == 1:
        return Action(action.kind, action.amount, list(action.discards))  # type: ignore[arg-type]
    if pick == 2:
        return Action(action.kind, rnd.choice((2**64, -(2**70), 2**63))) if action.kind in (BET, RAISE) else action
    if pick == 3:
        amount: Any = float(action.amount)
        return Action(action.kind, amount) if action.kind in (BET, RAISE) else action
    if pick == 4:
        return Action(action.kind, 0, (*action.discards, 2**65)) if action.kind is DRAW else action
    return (str(action.kind), action.amount)


def play_both(config: GameConfig, stacks: list[int], button: int, seed: int, rnd: random.Random, *,
              raise_cap: bool = True, odd: float = 0.05) -> int:
    """One hand on both engines, compared after every action; returns the actions applied."""
    py = HandState.start(config, stacks, button, seed, 7, raise_cap=raise_cap)
    nat = NativeHandState.start(config, stacks, button, seed, 7, raise_cap=raise_cap)
    match = MatchWire(config, 1000)
    wire = (HandWire(match, py), HandWire(match, nat))  # type: ignore[arg-type]  # HandState's API
    assert [wire[0].hand_start(k, ["x"] * py.n, stacks) for k in range(py.n)] == \
        [wire[1].hand_start(k, ["x"] * py.n, stacks) for k in range(py.n)]
    where = f"config {config.to_dict()} stacks {stacks} button {button} seed {seed} raise_cap {raise_cap}"
    _same(py, nat, where, wire)
    applied = 0
    for step in range(400):
        if py.is_complete:
            return applied
        action: Any = choose(py, rnd)
        if action.kind is BET or action.kind is RAISE:
            capped = py.capped(action)
            assert capped == nat.capped(action), f"{where}, step {step}: capped({action})"
            big = Action(action.kind, action.amount + 2**64)  # beyond 64 bits: capped as Python caps it
            assert py.capped(big) == nat.capped(big), f"{where}, step {step}: capped({big})"
            if rnd.random() < 0.5:
                action = capped  # what the referee plays (R3.10)
        if rnd.random() < odd:
            action = _odd_form(action, rnd)
        here = f"{where}, step {step} ({action!r})"
        errors: list[Exception] = []
        for state in (py, nat):
            try:
                state.apply(action)
            except (InvalidActionError, IllegalActionError) as exc:
                errors.append(exc)
        if errors:
            assert len(errors) == 2, f"{here}: only one engine refuses: {errors}"
            assert (type(errors[0]), str(errors[0])) == (type(errors[1]), str(errors[1])), here
        else:
            applied += 1
        _same(py, nat, here, wire)
    raise AssertionError(f"{where}: not complete after 400 actions")


@settings(max_examples=150, deadline=None)
@given(table=st.integers(0, 2**64), raise_cap=st.booleans())
def test_random_hands_are_the_same_hand_on_both_engines(table: int, raise_cap: bool) -> None:
    rnd = random.Random(table)
    config, stacks, button, seed = random_table(rnd)
    play_both(config, stacks, button, seed, rnd, raise_cap=raise_cap, odd=0.2)


def test_many_seeded_hands_are_the_same_hand_on_both_engines() -> None:
    rnd = random.Random(38)
    seen: set[tuple[int, str, bool, bool]] = set()
    actions = 0
    for _ in range(1500):
        config, stacks, button, seed = random_table(rnd)
        actions += play_both(config, stacks, button, seed, rnd, raise_cap=rnd.random() >= 0.1)
        seen.add((len(stacks), str(config.structure), config.ante > 0, min(stacks) < 3 * config.unit))
    assert actions > 5000
    # every table size and structure, with and without antes, with and without a short stack
    assert len(seen) == 5 * 2 * 2 * 2, sorted(seen)


def test_a_refused_action_leaves_the_native_hand_as_it_was() -> None:
    nat = NativeHandState.start(GameConfig(), [1000, 1000], 0, 7)
    before = (nat.stacks, nat.bets, list(nat.history), nat.to_act)
    for bad in (Action(ActionKind.RAISE, 5), Action(ActionKind.DRAW), Action(ActionKind.CHECK), "fold",
                Action("shove"), Action(ActionKind.RAISE, 2.5)):  # type: ignore[arg-type]
        with pytest.raises((InvalidActionError, IllegalActionError)):
            nat.apply(bad)  # type: ignore[arg-type]
    assert (nat.stacks, nat.bets, nat.history, nat.to_act) == before


def test_start_hand_deals_natively_where_it_can() -> None:
    config = GameConfig()
    assert type(start_hand(SEVEN_CARD_DRAW, config, [100, 100], 0, 1)) is NativeHandState
    assert type(start_hand(SEVEN_CARD_DRAW, config, [MAX_NATIVE_STACK + 1, 100], 0, 1)) is HandState
    five = GameConfig(blinds=False, ante=1, min_bet=10)
    assert type(start_hand(FIVE_CARD_DRAW, five, [100, 100], 0, 1)) is HandState


def _without_times(x: Any) -> Any:
    """A record with every measured time (``ms``) blanked: the rest must match byte for byte."""
    if isinstance(x, dict):
        return {k: None if k == "ms" else _without_times(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_without_times(v) for v in x]
    return x


def _bot(module: str, name: str) -> BotSpec:
    return BotSpec(name=name, command=("python", "-m", module), cwd=str(REPO), env={"RANDOM_BOT_SEED": "38"})


def _play(bots: list[BotSpec], out: Path, hands: int, config: GameConfig) -> Any:
    spec = MatchSpec(game=config, hands=hands, seed=3838, match_id="native-state")
    result = play_match(bots, spec, LIMITS, out)
    assert_nothing_left()
    assert result.hands_played == hands
    return result


@pytest.mark.parametrize(
    ("bots", "config"),
    [
        ((("bots.random_bot", "random"), ("bots.raiser", "raiser"), ("bots.solid", "solid")),
         GameConfig(ante=2)),  # three seats, side pots, antes
        ((("bots.random_bot", "random"), ("bots.caller", "caller")),
         GameConfig(structure=Structure.FIXED_LIMIT, cap=3)),
        ((("faulty", "float"), ("faulty", "illegal")), GameConfig()),  # refused actions: the engine's words
    ],
    ids=["three-seats-antes", "fixed-limit", "faults"],
)
def test_the_same_match_gives_the_same_histories_on_either_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bots: tuple[tuple[str, str], ...], config: GameConfig
) -> None:
    specs = [fixture_bot("bad_amount", "float") if b == ("faulty", "float") else
             fixture_bot("illegal_action") if b == ("faulty", "illegal") else _bot(*b) for b in bots]
    hands = 6 if bots[0][0] == "faulty" else 40
    dealt: list[type] = []
    deal = referee._start_hand

    def counted(*args: Any, **kwargs: Any) -> Any:
        hand = deal(*args, **kwargs)
        dealt.append(type(hand))
        return hand

    monkeypatch.setattr(referee, "_start_hand", counted)
    native = _play(specs, tmp_path / "native", hands, config)
    assert dealt and set(dealt) == {NativeHandState}, "the referee plays Seven Card Draw on the native core"
    monkeypatch.setattr(referee, "_start_hand", python_start_hand)
    python = _play(specs, tmp_path / "python", hands, config)
    ours, theirs = history(tmp_path / "native"), history(tmp_path / "python")
    assert len(ours) == len(theirs) == hands
    assert [json.dumps(_without_times(r)) for r in ours] == [json.dumps(_without_times(r)) for r in theirs]
    assert (native.net, native.status, native.faults) == (python.net, python.status, python.faults)
