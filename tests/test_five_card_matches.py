"""Five Card Draw in matches: passed-out deals carry their antes (RULES.md R7.4), histories record them."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine import ActionKind, GameConfig, GameConfigError, HandState
from harness.engine.games import FIVE_CARD_DRAW, SEVEN_CARD_DRAW, Openers, start_hand, with_openers
from harness.engine.openers import may_open
from harness.history import record as handrecord
from harness.match.carry import CarriedChips
from harness.match.wire import HandWire, MatchWire
from protocol import codec
from protocol.messages import ActRequest
from protocol.sdk import DecisionState
from tests.draw_game_helpers import game_toml, hand_records, play_out, run_cli
from tests.history_helpers import schema_errors

ROOT = Path(__file__).resolve().parents[1]
FIVE = FIVE_CARD_DRAW.name
_MATCH = handrecord.match_dict(bots=[f"b{i}" for i in range(6)], hands=9, stack_mode="reset", starting_stack=100,
                               seed_sha256="0" * 64, decision_ms=1000, time_bank_ms=1000, max_faults=3)



def _record(state: HandState, seated: list[int]) -> dict:
    return json.loads(json.dumps(handrecord.build(
        state, match_id="m", match=_MATCH, seated=seated, out=[False] * len(seated),
        decisions=[("bot", None, 1.0)] * len(state.action_log()), faults=[])))


def _match(seed: int, n: int, fixed: bool, freeze: bool, ante: int, stack: int, check: float) -> tuple[int, int]:
    """The referee's loop (harness.match.referee.Referee.run) over a match of hands: each dealt with the chips the
    last left in the middle and the button one seat left (R7.4); every row of nets sums to 0, chips are conserved,
    every record is valid and replays to the same hand, carried chips and proof included.

    Returns:
        (deals passed out, deals that won carried chips).
    """
    config = GameConfig(structure="fixed-limit" if fixed else "no-limit", blinds=False, ante=ante, min_bet=2 * ante)
    rng = random.Random(seed)
    stacks = [stack] * n
    middle = CarriedChips(n)
    net = [0] * n
    button = -1
    passed = carried_won = 0
    for h in range(12):
        seated = [m for m in range(n) if stacks[m] > 0] if freeze else list(range(n))
        if len(seated) < 2:
            break
        button = next(m for k in range(1, n + 1) if (m := (button + k) % n) in seated)
        dealt = [stacks[m] for m in seated] if freeze else [stack] * n
        state = start_hand(FIVE_CARD_DRAW, config, dealt, seated.index(button), seed + h, h, carried=middle.carried)
        play_out(state, rng, check)
        result = state.result()
        row = [0] * n
        for k, m in enumerate(seated):
            row[m] = result.final_stacks[k] - dealt[k]
            if freeze:
                stacks[m] = result.final_stacks[k]
        carried_in = middle.carried
        assert result.carried_in == carried_in
        row = middle.settle(row, result.passed_out)
        assert sum(row) == 0  # every hand's row sums to 0 (harness.tournament.results.check_record)
        net = [a + b for a, b in zip(net, row, strict=True)]
        if freeze:  # chips conserved: at the table plus in the middle
            assert sum(stacks) + middle.carried == n * stack
        assert middle.carried == result.carried_out  # the next deal carries what this one left (R7.4)
        passed += result.passed_out
        carried_won += carried_in > 0 and not result.passed_out
        record = _record(state, seated)
        assert not schema_errors(record)
        assert record["jackpot"]["carried_in"] == carried_in
        assert record["jackpot"]["passed_out"] == result.passed_out
        if result.opener is not None:
            assert record["jackpot"]["opener"] == seated[result.opener] and 2 <= len(record["jackpot"]["proof"]) <= 5
        assert handrecord.replay_v2(record).result() == result
    assert sum(net) == 0
    if freeze:  # the match's nets are the stacks, but for antes still in the middle: nobody's loss
        assert [stacks[m] - stack + middle.held[m] for m in range(n)] == net
    return passed, carried_won


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), fixed=st.booleans(), freeze=st.booleans(),
       ante=st.integers(1, 5), stack=st.integers(5, 120), check=st.sampled_from([0.3, 0.6, 0.95]))
def test_passed_out_deals_carry_their_antes_and_the_match_conserves_chips(
        seed: int, n: int, fixed: bool, freeze: bool, ante: int, stack: int, check: float) -> None:
    _match(seed, n, fixed, freeze, ante, stack, check)


@pytest.mark.parametrize("freeze", [False, True])
def test_the_property_sees_deals_passed_out_and_carried_chips_won(freeze: bool) -> None:
    passed, won = _match(1, 3, False, freeze, 1, 60, 0.3)
    assert passed > 0 and won > 0, (passed, won)


def test_a_row_that_does_not_add_up_to_the_chips_carried_in_is_refused() -> None:
    chips = CarriedChips(2)
    chips.settle((-1, -1), passed_out=True)
    with pytest.raises(ValueError, match="R7.4"):
        chips.settle((1, -1), passed_out=False)  # dealt without the 2 carried chips


def test_starters_never_open_without_openers() -> None:
    """R7.3: ``legal`` offers no bet to a player without openers, so a bot that plays what it is offered
    never opens without them."""
    config = GameConfig(blinds=False, ante=1, min_bet=2)
    offered = 0
    for seed in range(60):
        state = start_hand(FIVE_CARD_DRAW, config, [50] * 3, 0, seed)
        seat = state.to_act
        assert seat is not None
        bet = ActionKind.BET in state.legal().actions
        assert bet == may_open(state.cards[seat], Openers.JACKS)
        offered += bet
    assert 0 < offered < 60


def test_a_league_of_five_card_draw_plays_end_to_end_with_bot_processes(tmp_path: Path) -> None:
    path = game_toml(tmp_path, f'name = "{FIVE}"\nblinds = false\nante = 2\nmin_bet = 4\nstarting_stack = 200',
                 table_size=3, hands=8)
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out"
    records = hand_records(out)
    assert len(records) == 3 * 8
    assert {r["game"]["name"] for r in records} == {FIVE}
    assert not [f for r in records for f in r["faults"]], "the starters play Five Card Draw without a fault"
    for r in records:  # R1.4 with carried chips
        j = r["jackpot"]
        assert sum(p["net"] for p in r["players"]) == j["carried_in"] - j["carried_out"]
    assert any(r["jackpot"]["passed_out"] for r in records) and any(r["jackpot"]["carried_in"] for r in records)
    results = [json.loads(line)["result"] for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 3 and all(len(res["hand_nets"]) == 8 for res in results)
    assert all(sum(row) == 0 for res in results for row in res["hand_nets"])  # harness.match.carry
    replay = subprocess.run([sys.executable, "-m", "harness.cli", "replay", str(out)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    assert replay.returncode == 0 and "replay identically" in replay.stdout, replay.stdout + replay.stderr


def test_a_request_carries_the_openers_rule_and_the_carried_chips_and_the_sdk_reads_them() -> None:
    """PROTOCOL.md section 6 "Other games": the referee's bytes are the engine's observation; the SDK reads them."""
    config = GameConfig(blinds=False, ante=3, min_bet=6)
    state = start_hand(FIVE_CARD_DRAW, config, [100] * 3, 0, 5, carried=6)
    seat = state.to_act
    assert seat is not None
    legal = state.legal()
    wire = HandWire(MatchWire(config, 1000, FIVE_CARD_DRAW), state).request(False, 1, seat, legal, 500)
    assert wire == codec.encode_request(False, 1, state.observation(seat), legal.actions, legal.call_amount,
                                        legal.min_to, legal.max_to, legal.max_discards, 1000, 500)
    message = codec.decode(wire)
    assert isinstance(message, ActRequest)
    seen = DecisionState(1, "act", message.state, {"actions": [str(a) for a in legal.actions], "call_amount": 0,
                                                   "min_to": 0, "max_to": 0, "max_discards": 0}, {})
    assert (seen.game, seen.openers, seen.carried, seen.pot) == (FIVE, "jacks", 6, 6 + 9)
    seven = DecisionState(1, "act", {}, {"actions": ["fold"], "call_amount": 0, "min_to": 0, "max_to": 0,
                                         "max_discards": 0}, {})
    assert (seven.openers, seven.carried) == (None, 0)


def test_harness_match_plays_a_freezeout_of_five_card_draw_whose_nets_are_the_stacks(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = run_cli("match", *[f"--bot={b}={sys.executable} -m bots.{b}" for b in ("random_bot", "caller", "raiser")],
                "--game", FIVE, "--ante", "2", "--min-bet", "4", "--stack", "150", "--freezeout", "--hands", "30",
                "--sandbox", "off", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "result.json").read_text())
    records = [json.loads(line) for line in (out / "hands.jsonl").read_text().splitlines()]
    assert sum(result["net"]) == 0 and all(sum(row) == 0 for row in result["hand_nets"])
    last = records[-1]
    held = last["jackpot"]["carried_out"]  # antes never won: nobody's loss (harness.match.carry)
    stacks = {p["seat"]: p["final_stack"] for p in last["players"]}
    assert sum(stacks.values()) + held == 3 * 150  # chips conserved
    if not held:
        assert [stacks.get(m, 0) - 150 for m in range(3)] == result["net"]
    replay = run_cli("replay", str(out))
    assert replay.returncode == 0 and "replay identically" in replay.stdout, replay.stdout + replay.stderr


def test_harness_match_refuses_five_card_draw_with_blinds_in_one_line() -> None:
    done = run_cli("match", "--bot", "a=x", "--bot", "b=y", "--game", FIVE)
    assert done.returncode == 2 and "R7.1" in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_record_names_the_opening_rule_in_force_and_replays_under_it() -> None:
    """R7.2: the match's game object names ``openers``; the schema takes it only in a game of openers."""
    config = GameConfig(blinds=False, ante=1, min_bet=2)
    for rule in Openers:
        definition = with_openers(FIVE_CARD_DRAW, rule)
        state = start_hand(definition, config, [50] * 3, 0, 4)
        play_out(state, random.Random(4), 0.2)
        record = _record(state, [0, 1, 2])
        assert record["game"]["openers"] == str(rule) and not schema_errors(record)
        assert handrecord.game_definition(record["game"]) == definition
        assert handrecord.replay_v2(record).result() == state.result()
    old = dict(record, game={k: v for k, v in record["game"].items() if k != "openers"})  # written before: jacks
    assert not schema_errors(old) and handrecord.game_definition(old["game"]) == FIVE_CARD_DRAW
    seven = start_hand(SEVEN_CARD_DRAW, GameConfig(), [50] * 2, 0, 4)
    play_out(seven, random.Random(4), 0.2)
    plain = _record(seven, [0, 1])
    assert "openers" not in plain["game"]
    assert schema_errors(dict(plain, game={**plain["game"], "openers": "jacks"}))
    with pytest.raises(GameConfigError, match="R6.3"):
        handrecord.game_definition({"openers": "jacks"})
    with pytest.raises(GameConfigError, match="R7.2"):
        handrecord.game_definition({"name": FIVE, "openers": "queens"})
