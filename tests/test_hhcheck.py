"""tools/hhcheck.py, the third party's checker: versions it cannot read exit 2 naming the version, and
one planted fault per record is caught in the turn order (R3.2, R3.3, R3.4, R4.1) and in the sizes
(R3.6, R3.7), where the chips still add up; a raise of an earlier release (RULES.md E14) checks, noted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.deals import commitment
from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.history import record as handrecord
from tests.history_helpers import CHECKER_PATH, GAMES, ROOT, as_version_2, checker, random_match

FIXTURES = ROOT / "tests" / "fixtures" / "history"


def run_checker(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER_PATH), *map(str, paths)], capture_output=True, text=True,
                          timeout=60)


def build(state: HandState, stack: int = 1000) -> dict[str, Any]:
    """The record (current version) of an engine-played hand, every decision the bot's."""
    n = state.n
    match = handrecord.match_dict(bots=[f"b{i}" for i in range(n)], hands=10, stack_mode="reset",
                                  starting_stack=stack, seed_sha256=commitment(1), decision_ms=100,
                                  time_bank_ms=0, max_faults=3)
    decisions = [(handrecord.BY_BOT, None, 0.5)] * len(state.action_log())
    record = handrecord.build(state, match_id="m", match=match, seated=list(range(n)), out=[False] * n,
                              decisions=decisions, faults=[])
    return json.loads(json.dumps(record))


def renumber(record: dict[str, Any]) -> dict[str, Any]:
    for i, a in enumerate(record["actions"]):
        a["index"] = i
    return record


def one_problem(record: dict[str, Any]) -> str:
    """The checker's problems with a planted record: exactly one, returned."""
    problems = checker().check_hand(record)
    assert len(problems) == 1, problems
    return problems[0]


# ----------------------------------------------------------------------------- versions (exit 2)


def test_a_version_1_history_is_a_file_the_checker_cannot_read_not_failing_hands() -> None:
    """The version-1 fixture: exit 2 naming the version (harness replay checks it), not '0 of 21 hands check'."""
    done = run_checker(FIXTURES / "v1-freezeout-faults.jsonl")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.strip() == (
        f"{FIXTURES / 'v1-freezeout-faults.jsonl'}: cannot be read: line 1: record_version: 1 is not a version "
        "this checker reads (2, 3); version 1 is checked by `harness replay`"
    )


def test_a_record_of_version_4_exits_2_naming_it(tmp_path: Path) -> None:
    records = random_match(GAMES["no-limit"], seats=2, hands=3)
    records[1]["record_version"] = 4
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = run_checker(path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "line 2: record_version: 4 is not a version this checker reads (2, 3)" in done.stderr
    assert "do not" not in done.stdout


# ----------------------------------------------------------------------------- planted faults


def test_the_draw_order_swapped_is_caught_r4_1() -> None:
    state = HandState.start(GameConfig(), [1000, 1000, 1000], 0, 11)
    while state.phase == "bet1":
        state.call() if state.legal().call_amount else state.check()
    while not state.is_complete:
        state.apply(state.default_action())  # stand pat, then checks
    record = build(state)
    assert checker().check_hand(record) == []
    draws = [i for i, a in enumerate(record["actions"]) if a["kind"] == "draw"]
    acts = record["actions"]
    acts[draws[0]], acts[draws[1]] = acts[draws[1]], acts[draws[0]]
    renumber(record)
    # The first player after the big blind (seat 2) draws first: seat 0 here.
    assert one_problem(record) == (f"actions[{draws[0]}] (seat 1 draw): seat 0 is to act, not seat 1 (R4.1, R3.4)")


def test_a_raise_beyond_the_fixed_limit_cap_is_caught_r3_7() -> None:
    """A hand played with five bets in round 2 recorded as a game of cap 4: every chip adds up."""
    state = HandState.start(GameConfig(structure="fixed-limit", cap=5), [1000, 1000], 0, 12)
    state.call()
    state.check()
    state.draw([])
    state.draw([])
    for _ in range(5):
        state.apply(_wager(state))
    state.call()
    record = build(state)
    assert checker().check_hand(record) == []
    record["game"]["cap"] = 4
    assert one_problem(record).endswith("(seat 1 raise): no raise is legal here: the cap of 4 bets is reached (R3.7)")


def _wager(state: HandState) -> Action:
    legal = state.legal()
    kind = ActionKind.BET if ActionKind.BET in legal.actions else ActionKind.RAISE
    return Action(kind, legal.min_to)


def test_a_decision_given_to_a_lone_player_with_nothing_to_call_is_caught_r3_4() -> None:
    """E11: the button calls all-in for the big blind; a check planted for the big blind."""
    state = HandState.start(GameConfig(), [10, 1000], 0, 13)
    state.call()
    assert state.phase == "draw"
    while not state.is_complete:
        state.apply(state.default_action())
    record = build(state)
    assert checker().check_hand(record) == []
    check = dict(record["actions"][0], seat=1, kind="check", owed=0, added=0, to=10, all_in=False)
    record["actions"].insert(1, check)
    renumber(record)
    assert one_problem(record) == (
        "actions[1] (seat 1 check): a bet1 decision but nobody is to act: every player has acted, or at most "
        "one can act and it has nothing to call (R3.4)"
    )


def test_a_first_bet_of_round_two_below_twice_round_one_is_caught_r3_6() -> None:
    """E1: after a raise to 20 the first bet is at least 40; a bet of 30, folded to (30 returned)."""
    state = HandState.start(GameConfig(), [1000, 1000], 0, 14)
    state.raise_to(20)
    state.call()
    state.draw([])
    state.draw([])
    state.bet(40)
    state.fold()
    record = build(state)
    assert checker().check_hand(record) == [] and record["returned"] == [{"seat": 1, "chips": 40}]
    bet = next(a for a in record["actions"] if a["kind"] == "bet")
    bet.update(to=30, added=30)
    record["actions"][bet["index"] + 1]["owed"] = 30
    record["returned"][0]["chips"] = 30
    assert one_problem(record) == (
        f"actions[{bet['index']}] (seat 1 bet): to 30 is below the minimum 40 (round 2's first bet: at least "
        "twice round 1's final bet) (R3.6)"
    )


def test_checks_by_the_wrong_seats_are_caught_r3_3() -> None:
    state = HandState.start(GameConfig(), [1000, 1000, 1000], 0, 15)
    while state.phase != "bet2":
        if state.phase == "draw":
            state.draw([])
        else:
            state.call() if state.legal().call_amount else state.check()
    while not state.is_complete:
        state.check()
    record = build(state)
    assert checker().check_hand(record) == []
    checks = [a for a in record["actions"] if a["phase"] == "bet2"]
    assert [a["seat"] for a in checks] == [1, 2, 0]  # left of the button first (R3.3)
    checks[0]["seat"], checks[1]["seat"] = 2, 1
    assert one_problem(record) == (
        f"actions[{checks[0]['index']}] (seat 2 check): seat 1 is to act, not seat 2 (R3.3, R3.4)"
    )


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_every_real_hand_of_random_matches_keeps_the_turn_and_the_sizes(seats: int) -> None:
    """The new checks pass every hand the engine plays (faults, players out, unsent requests included)."""
    for name, game in GAMES.items():
        if name == "per-seat" and seats > 4:
            continue
        for record in random_match(game, seats=seats, hands=40, seed=seats + 50, starting_stack=10 * game.unit):
            assert checker().check_hand(record) == [], (name, record["hand_id"], checker().check_hand(record))


# ----------------------------------------------------------------------------- the earlier raise rule


def test_a_raise_nobody_could_answer_from_an_earlier_release_checks_with_a_note(tmp_path: Path) -> None:
    """E14's hand as earlier releases played it (a raise to 68, 14 back): it checks, and the note says why."""
    state = HandState.start(GameConfig(), [1144, 55, 1], 0, 16, raise_cap=False)
    for to in (20, 30, 40, 54, 68):
        state.raise_to(to)
    while not state.is_complete:
        state.apply(state.default_action())
    record = as_version_2(build(state, stack=1144))  # the earlier releases wrote version 2
    problems = checker().check_hand(record)
    assert problems == [] and problems.notes == [
        "actions[4] (seat 0 raise): a bet or raise beyond what any opponent could match (R3.4), as earlier "
        "releases offered"
    ]
    record["actions"][4].update(to=1145)
    assert checker().check_hand(record) != []


def test_a_record_is_held_to_the_raise_rule_it_names(tmp_path: Path) -> None:
    """Version 3 names its raise rule: the same over-reaching raise (68 where 55 is the most seat 1 can
    match) is refused in a "capped" record, naming the hand and the action, and checks in an "all-in" one."""
    state = HandState.start(GameConfig(), [1144, 55, 1], 0, 16, raise_cap=False)
    for to in (20, 30, 40, 54, 68):
        state.raise_to(to)
    while not state.is_complete:
        state.apply(state.default_action())
    record = build(state, stack=1144)
    assert record["record_version"] == 3 and record["raise_rule"] == "all-in"
    problems = checker().check_hand(record)
    assert problems == [] and problems.notes == []
    record["raise_rule"] = "capped"  # an over-reaching raise in a history written today
    assert checker().check_hand(record) == [
        "actions[4] (seat 0 raise): to 68 is above 55, the most an opponent still in the hand can match "
        "(R3.4, E14: the referee plays a wager above it as one to it, R3.10)"
    ]
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    done = run_checker(path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{path} line 1 hand 0: actions[4] (seat 0 raise): to 68 is above 55" in done.stdout
    record["raise_rule"] = "fair"
    assert checker().check_hand(record) == ["raise_rule: 'fair' is not one of capped, all-in"]


def test_a_default_action_that_is_not_the_default_is_caught() -> None:
    """``by: fault`` is the referee's check-if-free-else-fold; ``by: out`` a fold; either stands pat in the draw."""
    state = HandState.start(GameConfig(), [1000, 1000], 0, 17)
    state.call()
    state.check()
    while not state.is_complete:
        state.apply(state.default_action())
    record = build(state)
    call = record["actions"][0]
    call.update(by="fault", ms=1.0)
    record["faults"] = [{"seat": 0, "kind": "timeout", "detail": "late", "action": 0, "put_out": False}]
    call["fault"] = 0
    assert one_problem(record) == "actions[0] (seat 0 call): by fault is the default action, fold, not call"
    record = build(state)
    record["actions"][2].update(by="out", ms=None, discards=[record["players"][0]["dealt"][0]])
    assert any("by out is the default action, standing pat" in p for p in checker().check_hand(record))
