"""The hand-history format, version 3 (and 2) (docs/HISTORY.md).

Records stand alone: the JSON Schema of docs/ holds for every game type and
stack mode (jsonschema, a maintained validator); the standalone checker
tools/hhcheck.py (no harness import) recomputes every hand's chips from the
record alone over thousands of random hands and catches tampering; the
engine's decision log gives the chips owed/added/to and the reshuffled
replacements the record carries (RULES.md E9, E12, E13); old (version-1)
files still replay; a compressed history keeps one name and can be followed
while it grows.
"""

from __future__ import annotations

import ast
import copy
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.deals import commitment, hand_seed, seed_hex
from harness.engine import GameConfig, HandState, ReplayError
from harness.history import record as handrecord
from harness.history.files import (
    HistoryError,
    HistoryTail,
    HistoryWriter,
    decision_times,
    numbered_lines,
    read_history,
    record_faults,
    record_problem,
    records_or_problems,
    seat_nets,
)
from harness.history.replay import check_history
from harness.report.hands import hand_view
from tests.engine_helpers import check_down, new_hand, stand_pat_all
from tests.history_helpers import (
    CHECKER_PATH,
    GAMES,
    ROOT,
    check_records,
    checker,
    random_match,
    schema_errors,
    short_stacked,
)

FIXTURES = ROOT / "tests" / "fixtures" / "history"


# ----------------------------------------------------------------------------- what the engine logs


def _log(state: HandState) -> list[tuple[Any, ...]]:
    return [entry[:7] for entry in state.action_log() if entry[1] != "draw"]


def test_owed_is_the_full_big_blind_even_when_it_was_posted_short() -> None:
    """E12 three-handed: the big blind posts 6 all-in; the button owes the full 10 (R2.6) and calls 10;
    the small blind owes 5 more; the extra 4 chips of each form a side pot."""
    state = new_hand([1000, 1000, 6], button=0)
    state.call()
    state.call()
    seat, kind, amount, owed, added, to, all_in = _log(state)[0]
    assert (seat, kind, owed, added, to, all_in) == (0, "call", 10, 10, 10, False)
    assert _log(state)[1][:7] == (1, "call", 5, 5, 5, 10, False)


def test_owed_is_capped_at_what_can_be_matched_when_nobody_else_can_act() -> None:
    """E12 heads-up: the small blind owes 1 (to the 6 posted), not 5 (R3.4); a fold owes the same."""
    state = new_hand([1000, 6], button=0)
    state.call()
    assert _log(state)[0] == (0, "call", 1, 1, 1, 6, False)
    folded = new_hand([1000, 6], button=0)
    folded.fold()
    assert _log(folded)[0] == (0, "fold", 0, 1, 0, 5, False)
    assert folded.result().uncalled == ((1, 1),)


def test_a_call_for_less_than_owed_is_all_in() -> None:
    state = new_hand([1000, 1000, 30], button=0)
    state.raise_to(100)  # seat 1 can answer it (R3.4), seat 2 only for less
    state.fold()
    state.call()
    assert _log(state)[2] == (2, "call", 20, 90, 20, 30, True)


def test_replacements_from_a_reshuffled_muck_are_counted_e9() -> None:
    """E9: six players draw four each from a stock of 10: the third gets 2 from the stock and 2 from the
    first reshuffle, everyone after that only reshuffled cards."""
    state = HandState.start(GameConfig(), [1000] * 6, 5, 9)
    while state.phase == "bet1":
        state.call() if state.legal().call_amount else state.check()
    while state.phase == "draw":
        state.draw(state.cards[state.to_act][:4])
    draws = [entry for entry in state.action_log() if entry[1] == "draw"]
    assert [entry[4] for entry in draws] == [0, 0, 2, 4, 4, 4]
    assert all(len(entry[3]) == 4 for entry in draws)


def test_an_unmatched_ante_is_returned_in_the_record_e13() -> None:
    state = new_hand([1000, 3], button=0, blinds=False, ante=5, min_bet=10)
    stand_pat_all(state)
    record = _build(state)
    assert record["returned"] == [{"seat": 0, "chips": 2}]
    assert [p["chips"] for p in record["pots"]] == [6]
    assert record["game"] == {"structure": "no-limit", "min_bet": 10, "ante": 5, "replacements": "stock"}
    assert record["posts"] == [{"seat": 1, "kind": "ante", "chips": 3, "all_in": True},
                               {"seat": 0, "kind": "ante", "chips": 5, "all_in": False}]


def _build(state: HandState, seated: list[int] | None = None) -> dict[str, Any]:
    seated = seated or list(range(state.n))
    match = handrecord.match_dict(bots=[f"b{i}" for i in range(max(seated) + 1)], hands=1, stack_mode="reset",
                                  starting_stack=1000, seed_sha256=commitment(1), decision_ms=10, time_bank_ms=0,
                                  max_faults=1)
    decisions = [(handrecord.BY_BOT, None, 1.0)] * len(state.action_log())
    return handrecord.build(state, match_id="t", match=match, seated=seated, out=[False] * state.n,
                            decisions=decisions, faults=[])


# ----------------------------------------------------------------------------- the schema, every game type


@pytest.mark.parametrize("name", sorted(GAMES))
def test_records_of_every_game_type_and_stack_mode_match_the_schema(name: str) -> None:
    game = GAMES[name]
    seats = 4 if name == "per-seat" else 6
    records = (random_match(game, seats=3, hands=4, stack_mode="reset", seed=1, fault_rate=0.4)
               + random_match(game, seats=seats, hands=4, stack_mode="freezeout", seed=2, starting_stack=40,
                              fault_rate=0.4)
               + short_stacked(game, seats=2, hands=3, seed=3))
    decided = {a["by"] for r in records for a in r["actions"]}
    assert {"bot", "fault", "out"} <= decided
    for record in records:
        assert schema_errors(record) == [], record["hand_id"]
        assert record_problem(record) is None
        assert set(record["game"]) == set(handrecord.game_dict(game))  # only the settings that apply


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["game"].update(small_blind=5, min_bet=10), "game"),
        (lambda r: r["game"].pop("cap", None) if "cap" in r["game"] else r["game"].update(cap=4), "game"),
        (lambda r: r["actions"][0].update(by="referee"), "actions/0"),
        (lambda r: r["actions"][0].update(by="bot", fault=0), "actions/0"),
        (lambda r: r["actions"][0].update(ms=None), "actions/0"),
        (lambda r: r["players"][0].update(dealt=r["players"][0]["dealt"][:6]), "players/0/dealt"),
        (lambda r: r["match"].update(seed_sha256="not hex"), "match/seed_sha256"),
        (lambda r: r.update(uncalled=[]), ""),
    ],
    ids=["blinds-and-min-bet", "cap", "by", "fault-of-a-bot-reply", "ms", "six-cards", "commitment", "v1-key"],
)
def test_the_schema_refuses_what_the_format_does_not_allow(change: Any, words: str) -> None:
    record = random_match(GAMES["no-limit"], seats=2, hands=1, seed=4, fault_rate=0)[0]
    assert schema_errors(record) == []
    change(record)
    errors = schema_errors(record)
    assert errors and any(e.startswith(words) for e in errors), errors


# ----------------------------------------------------------------------------- the standalone checker


def test_the_standalone_checker_imports_only_the_standard_library() -> None:
    tree = ast.parse(CHECKER_PATH.read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    assert modules and modules <= set(sys.stdlib_module_names) | {"__future__"}, modules


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_checker_recomputes_every_chip_of_random_hands(name: str, tmp_path: Path) -> None:
    """A few thousand random hands over the game types: the standalone checker agrees with every
    recorded chip, and the engine replays each record to the same bytes."""
    game = GAMES[name]
    sizes = (2, 3, 4) if name == "per-seat" else (2, 3, 6)
    hands = 0
    seen = {"returned": 0, "side pots": 0, "all-in posts": 0, "reshuffled": 0}
    for seats in sizes:
        matches = [random_match(game, seats=seats, hands=130, seed=seats),
                   random_match(game, seats=seats, hands=60, stack_mode="freezeout", seed=seats + 10,
                                starting_stack=12 * game.unit),
                   short_stacked(game, seats=seats, hands=40, seed=seats + 20)]
        for i, records in enumerate(matches):
            assert check_records(records, tmp_path / f"{seats}-{i}.jsonl") == []
            for record in records:
                handrecord.replay_v2(record)
            hands += len(records)
            seen["returned"] += sum(bool(r["returned"]) for r in records)
            seen["side pots"] += sum(len(r["pots"]) > 1 for r in records)
            seen["all-in posts"] += sum(any(p["all_in"] for p in r["posts"]) for r in records)
            seen["reshuffled"] += sum(any(a.get("reshuffled") for a in r["actions"]) for r in records)
        # Hands from uneven stacks (side pots, all-in posts) stand alone: checked one by one.
        for record in random_match(game, seats=seats, hands=40, seed=seats + 30, starting_stack=8 * game.unit,
                                   uneven=True):
            assert checker().check_hand(record) == [], record["hand_id"]
            handrecord.replay_v2(record)
            hands += 1
            seen["side pots"] += len(record["pots"]) > 1
    assert hands >= 500
    assert seen["returned"] and seen["side pots"] and seen["all-in posts"], seen
    assert (seen["reshuffled"] > 0) == (name != "per-seat"), seen


def _other_winner(record: dict[str, Any]) -> None:
    pot = record["pots"][0]
    pot["winners"] = [next(p["seat"] for p in record["players"] if p["seat"] not in pot["winners"])]


def _swap_net(record: dict[str, Any]) -> None:
    record["players"][0]["net"] += 5
    record["players"][1]["net"] -= 5


TAMPERING = {
    "owed": lambda r: _bet(r).update(owed=_bet(r)["owed"] + 1),
    "added": lambda r: _bet(r, "call").update(added=_bet(r, "call")["added"] + 1),
    "to": lambda r: _bet(r).update(to=_bet(r)["to"] + 1),
    "all_in": lambda r: _bet(r).update(all_in=not _bet(r)["all_in"]),
    "post": lambda r: r["posts"][-1].update(chips=r["posts"][-1]["chips"] + 1),
    "returned": lambda r: r["returned"].append({"seat": r["players"][0]["seat"], "chips": 1}),
    "pot": lambda r: r["pots"][0].update(chips=r["pots"][0]["chips"] + 2),
    "winner": _other_winner,
    "net": _swap_net,
    "received": lambda r: _draw(r).update(received=[r["players"][0]["dealt"][0]] * len(_draw(r)["received"])),
    "reshuffled": lambda r: _draw(r).update(reshuffled=_draw(r)["received"][-1:]),
    "shown": lambda r: r["shown"].reverse(),
}


def _bet(record: dict[str, Any], kind: str | None = None) -> dict[str, Any]:
    return next(a for a in record["actions"] if a["kind"] != "draw" and (kind is None or a["kind"] == kind)
                and a["added"])


def _draw(record: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in record["actions"] if a["kind"] == "draw" and a["received"])


@pytest.mark.parametrize("what", sorted(TAMPERING))
def test_the_checker_and_replay_catch_a_tampered_record(what: str, tmp_path: Path) -> None:
    records = random_match(GAMES["no-limit"], seats=3, hands=40, seed=5, fault_rate=0)
    target = next(i for i, r in enumerate(records)
                  if len(r["shown"]) >= 2 and any(a["kind"] == "call" and a["added"] for a in r["actions"])
                  and any(a["kind"] == "draw" and a["received"] for a in r["actions"]))
    tampered = copy.deepcopy(records)
    TAMPERING[what](tampered[target])
    assert tampered[target] != records[target]
    problems = check_records(tampered, tmp_path / "t.jsonl")
    assert [hand for _, hand, _ in problems] == [target], problems
    with pytest.raises(ReplayError):
        handrecord.replay_v2(tampered[target])


def test_the_checker_command_line_checks_files_and_seeds(tmp_path: Path) -> None:
    """tools/hhcheck.py as a third party runs it: on a plain and a gzip file, with the revealed seeds."""
    records = random_match(GAMES["fixed-limit-ante"], seats=3, hands=30, seed=6)
    plain = tmp_path / "hands.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in records))
    gz = tmp_path / "hands.jsonl.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    run = [sys.executable, str(CHECKER_PATH)]
    done = subprocess.run([*run, str(plain), str(gz)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "60 of 60 hands check", done.stdout + done.stderr
    import random

    match_seed = random.Random(6).getrandbits(256)  # the seed random_match draws first
    assert records[0]["seed"] == hand_seed(match_seed, 0)
    done = subprocess.run([*run, str(plain), "--match-seed", seed_hex(match_seed)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout
    done = subprocess.run([*run, str(plain), "--match-seed", seed_hex(match_seed + 1)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and "seed: not derived from the match seed" in done.stdout
    records[3]["players"][0]["net"] += 1
    plain.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = subprocess.run([*run, str(plain)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout.startswith(f"{plain} line 4 hand 3: ")
    assert "29 of 30 hands check; 1 do not" in done.stdout


def test_the_checker_finds_the_match_seed_from_the_tournament_seed(tmp_path: Path) -> None:
    from harness.deals import match_seed

    tournament = 0x5EED << 200
    table = ["bot0", "bot1"]
    seed = match_seed(tournament, [*table, "#2"])  # the third copy of a sampled table
    module = checker()
    assert seed in list(module.match_seeds(tournament, table, 3))
    assert module.hand_seed(seed, 7) == hand_seed(seed, 7) and module.sha256_of(seed) == commitment(seed)


# ----------------------------------------------------------------------------- every version reads


@pytest.mark.parametrize("name", ["v1-freezeout-faults.jsonl", "v1-fixed-limit-ante-only.jsonl.gz"])
def test_version_1_files_still_replay_and_read(name: str) -> None:
    """Files written by the first releases (record_version 1, kept as fixtures) replay identically, and
    every reader gets them upgraded to the current shape once, on read, with the values they hold."""
    path = FIXTURES / name
    checks = list(check_history(path))
    assert checks and all(c.ok for c in checks), [c for c in checks if not c.ok][:2]
    result = CliRunner().invoke(app, ["replay", str(path)])
    assert result.exit_code == 0 and f"{len(checks)} of {len(checks)} hands replay identically" in result.output
    written = [record for _, record in numbered_lines(path)]
    records = list(read_history(path))
    assert {r.get("record_version", 1) for r in written} == {1}
    assert {(r["record_version"], r["upgraded_from"], r["raise_rule"]) for r in records} == {(3, 1, "all-in")}
    for old, record in zip(written, records, strict=True):
        seats = old["match_seats"]
        view = hand_view(record)
        assert view["net"] == old["net"] and view["stacks"] == old["stacks"] and view["hole"] == old["hole_cards"]
        assert view["final"] == old["final_cards"] and view["seats"] == seats and view["bots"] == old["bots"]
        assert seat_nets(record) == dict(zip(seats, old["net"], strict=True))
        assert sorted(decision_times(record)) == sorted((seats[s], ms) for s, ms in old["timings_ms"])
        assert [(f["seat"], f["kind"]) for f in record_faults(record)] == [
            (seats[f["seat"]], f["kind"]) for f in old["faults"]]
        handrecord.replay_v2(record)  # the upgrade is a record the engine agrees with in every field
    faults = [f for r in records for f in record_faults(r)]
    if "faults" in name:
        assert faults and all(f["bot"] == "flaky" and f["seat"] == 2 for f in faults)
        assert any(r["match_seats"] != list(range(len(r["match_seats"]))) for r in written)  # renumbered
        assert any(a["by"] == "out" for r in records for a in r["actions"])  # decisions made for a bot put out


def test_a_version_1_record_is_upgraded_with_its_chips_and_times(tmp_path: Path) -> None:
    """A version-1 line of a hand with a raise, a call, a draw and a timed-out bot: the upgrade gives
    each decision its chips (owed, added, to) as the engine says and each bot its own times."""
    from harness.history.v1 import build_record

    state = new_hand([200, 200, 200], seed=5)
    state.raise_to(state.legal().min_to)
    while state.phase == "bet1":
        state.call()
    while state.phase == "draw":
        state.draw([state.cards[state.to_act][0]])
    check_down(state)
    old = json.loads(json.dumps(build_record(state)))
    old.update(match_id="m", bots=["a", "b", "c"], match_seats=[0, 2, 5], faults=[{"seat": 1, "kind": "timeout",
               "detail": "no reply"}], timings_ms=[[a["seat"], 1.0 + i] for i, a in enumerate(old["actions"])
                                                   if a["seat"] != 2])
    del old["record_version"]  # the very first records had none
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(old) + "\n")
    (record,) = read_history(path)
    assert record["match"]["bots"] == ["a", None, "b", None, None, "c"] and record["match"]["hands"] is None
    assert [p["seat"] for p in record["players"]] == [0, 2, 5]
    log = state.action_log()
    assert [a.get("added") for a in record["actions"]] == [e[4] if e[1] != "draw" else None for e in log]
    assert [a["by"] for a in record["actions"]] == ["out" if e[0] == 2 else "bot" for e in log]
    assert [p["out"] for p in record["players"]] == [False, False, any(e[0] == 2 for e in log)]
    assert record["faults"] == [{"seat": 2, "kind": "timeout", "detail": "no reply", "action": None, "put_out": None}]
    handrecord.replay_v2(record)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(stacks="x"), r"line 1: stacks: expected a list"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "bet", "amount": 10**6}),
         r"line 1: a version-1 record the engine cannot play again: record.actions\[0\]"),
        (lambda r: r.update(record_version=9), r"line 1: record_version: 9 is not a version this harness reads"),
        (lambda r: r.update(timings_ms=[[0, "x"]]), r"line 1: timings_ms\[0\]\[1\] \(ms\): expected milliseconds"),
        (lambda r: r.update(timings_ms=[[0]]), r"line 1: timings_ms\[0\]: expected a \[seat, ms\] pair"),
        (lambda r: r.update(timings_ms=[["0", 1]]), r"line 1: timings_ms\[0\]\[0\] \(seat\): expected a whole"),
        (lambda r: r.update(faults=[{"seat": "a", "kind": "timeout", "detail": ""}]),
         r"line 1: faults\[0\]\.seat: expected a whole number >= 0, got a string"),
        # every field of the version-1 shape check refuses a value of the wrong kind or range
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "raise", "amount": "50"}),
         r'line 1: actions\[0\]\.amount: expected a whole number >= 0, got a string \("50"\)'),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "raise"}),
         r"line 1: actions\[0\]\.amount: missing"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "call", "amount": -5}),
         r"line 1: actions\[0\]\.amount: -5 is out of range"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "shove"}),
         r'line 1: actions\[0\]\.action: "shove" is not one of fold, check, call, bet, raise, draw'),
        (lambda r: r["actions"].__setitem__(0, {"seat": -1, "action": "call"}),
         r"line 1: actions\[0\]\.seat: -1 is out"),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "draw", "discards": ["As", "ZZ"]}),
         r'line 1: actions\[0\]\.discards\[1\]: "ZZ" is not a card'),
        (lambda r: r["actions"].__setitem__(0, {"seat": 0, "action": "draw", "received": "As"}),
         r"line 1: actions\[0\]\.received: expected a list of cards"),
        (lambda r: r.update(deck=["ZZ"] * 52), r'line 1: deck\[0\]: "ZZ" is not a card'),
        (lambda r: r.update(seed=2**64), r"line 1: seed: 18446744073709551616 is out of range \(expected a whole "
         r"number from 0 to 2\*\*64-1\)"),
        (lambda r: r.update(seed=2**70), r"line 1: seed: 1180591620717411303424 is out of range"),
        (lambda r: r.update(seed=-1), r"line 1: seed: -1 is out of range"),
        (lambda r: r.update(stacks=[2**70, 200]), r"line 1: stacks\[0\]: 1\.18\d*e\+21 is out of range"),
        (lambda r: r.update(seed=5.5), r"line 1: seed: expected a whole number from 0 to 2\*\*64-1, got a number"),
        (lambda r: r.update(hand_id=-3), r"line 1: hand_id: -3 is out of range"),
        (lambda r: r.update(button=True), r"line 1: button: expected a whole number >= 0, got true/false"),
        (lambda r: r.update(stacks=[200, -1]), r"line 1: stacks\[1\]: -1 is out of range"),
        (lambda r: r.update(bots=["a", 7]), r"line 1: bots\[1\]: expected a bot name \(one line of printable text, "
         r"1 to 64 characters\), got a number"),
        (lambda r: r.update(bots=["a", "<b>\u202eevil"]), r'line 1: bots\[1\]: "<b>\u202eevil" is not a bot name'),
        (lambda r: r.update(bots=["a", "x" * 65]), r'line 1: bots\[1\]: "xxx.*\.\.\. is not a bot name'),
        (lambda r: r.update(bots=["", "b"]), r'line 1: bots\[0\]: "" is not a bot name'),
        (lambda r: r.update(match_seats=[0, -2]), r"line 1: match_seats\[1\]: -2 is out of range"),
        (lambda r: r.update(match_seats=[3, 3]), r"line 1: match_seats: seat 3 is given twice"),
        (lambda r: r.update(match_id=3), r"line 1: match_id: expected a match id \(one line of printable text, at "
         r"most 256 characters\), got a number"),
        (lambda r: r.update(match_id="m\x1b[2Jx\ny"), r'line 1: match_id: "m\\u001b\[2Jx\\ny" is not a match id'),
        (lambda r: r.update(faults=[{"seat": 0, "kind": "boom"}]), r'line 1: faults\[0\]\.kind: "boom" is not one of'),
        (lambda r: r.update(faults=[{"seat": 0, "kind": "timeout", "detail": 4}]),
         r"line 1: faults\[0\]\.detail: expected a string"),
        (lambda r: r.update(timings_ms=[[0, -1.5]]), r"line 1: timings_ms\[0\]\[1\] \(ms\): expected milliseconds"),
        (lambda r: r.update(config={"big_blind": [10]}), r"line 1: config\.big_blind: expected a number"),
        (lambda r: r["hole_cards"][0].__setitem__(0, "ZZ"), r'line 1: hole_cards\[0\]\[0\]: "ZZ" is not a card'),
        (lambda r: r["final_cards"].__setitem__(1, "x"), r"line 1: final_cards\[1\]: expected a list of cards"),
    ],
    ids=["shape", "refused", "unknown-version", "timing-value", "timing-short", "timing-seat", "fault-seat",
         "amount-string", "amount-missing", "amount-negative", "action-kind", "seat-negative", "discard-not-a-card",
         "received-not-a-list", "deck-not-cards", "seed-2**64", "seed-70-bits", "seed-negative", "stack-70-bits",
         "seed-fraction",
         "hand-id-negative", "button-bool", "stack-negative", "bot-number", "bot-bidi", "bot-long", "bot-empty",
         "match-seat-negative", "match-seat-twice", "match-id-number", "match-id-escapes",
         "fault-kind", "fault-detail", "timing-negative", "config-list", "hole-card-not-a-card",
         "final-cards-not-a-list"],
)
def test_a_record_that_cannot_be_upgraded_is_named_by_line_and_field(change: Any, said: str, tmp_path: Path) -> None:
    from harness.history.v1 import build_record

    state = new_hand([200, 200], seed=3)
    state.call()
    check_down(state)
    old = json.loads(json.dumps(build_record(state)))
    change(old)
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(old) + "\n")
    with pytest.raises(HistoryError, match=said):
        list(read_history(path))
    if "cannot play again" not in said:  # harness replay names the same line and field
        with pytest.raises(HistoryError, match=said):
            list(check_history(path))


@pytest.mark.parametrize("where", ["match.bots", "players.bot", "match_id"])
def test_a_hostile_name_in_a_current_record_is_a_damaged_record(where: str, tmp_path: Path) -> None:
    """A history edited so that a name holds an escape sequence, a BiDi override or 10 kB (what a page or a terminal
    would show) is refused by every reader that judges a current record's shape, the line and the field named."""
    record = random_match(GAMES["no-limit"], seats=2, hands=1)[0]
    hostile = "<script>\u202e\x1b[31m\n" + "L" * 10_000
    if where == "match.bots":
        record["match"]["bots"][0] = hostile
    elif where == "players.bot":
        record["players"][0]["bot"] = hostile
    else:
        record["match_id"] = hostile
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    field = {"match.bots": r"match\.bots\[0\]", "players.bot": r"players\[0\]\.bot", "match_id": "match_id"}[where]
    with pytest.raises(HistoryError, match=f"line 1: {field}: .* is not a ") as info:
        list(check_history(path))  # harness replay
    assert len(str(info.value)) < 300
    ((_, problem),) = records_or_problems(path)  # harness watch, the contest server
    assert isinstance(problem, HistoryError) and re.search(f"line 1: {field}: .* is not a ", str(problem)), problem


def test_a_record_of_an_unknown_version_is_named_not_replayed(tmp_path: Path) -> None:
    record = random_match(GAMES["no-limit"], seats=2, hands=1)[0]
    record["record_version"] = 4
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(HistoryError, match=r"record_version: 4 is not a version this harness reads \(1, 2, 3\)"):
        list(check_history(path))


@pytest.mark.parametrize("version", [..., 1], ids=["lost", "damaged-to-1"])
def test_a_current_record_without_its_version_is_named_in_its_own_fields(version: Any, tmp_path: Path) -> None:
    """Not judged as version 1 (whose config and stacks it never had): its record_version is named."""
    record = random_match(GAMES["no-limit"], seats=2, hands=1)[0]
    if version is ...:
        del record["record_version"]
    else:
        record["record_version"] = version
    path = tmp_path / "h.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(HistoryError, match=r"record_version: (missing|1), but the line has version 2's fields "
                                           r"\(format, game, match, players, posts, pots\)") as info:
        list(check_history(path))
    assert "config" not in str(info.value).split("and not version 1's")[0]


def test_replay_checks_the_match_seed_commitment(tmp_path: Path) -> None:
    records = random_match(GAMES["no-limit"], seats=2, hands=3, seed=8)
    import random

    seed = random.Random(8).getrandbits(256)
    path = tmp_path / "h.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert all(c.ok for c in check_history(path, match_seed=seed))
    records[1]["match"]["seed_sha256"] = commitment(seed + 1)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    verdicts = [(c.ok, c.detail) for c in check_history(path, match_seed=seed)]
    assert verdicts[1] == (False, "match.seed_sha256: not the SHA-256 of the match seed")


# ----------------------------------------------------------------------------- one name while it is written


def test_a_compressed_history_can_be_followed_while_it_is_written(tmp_path: Path) -> None:
    records = random_match(GAMES["no-limit-ante"], seats=3, hands=5)
    path = tmp_path / "hands.jsonl.gz"
    tail = HistoryTail(path)
    assert tail.count() == 0
    with HistoryWriter(path) as writer:
        for i, record in enumerate(records, 1):
            writer.write(record)
            assert tail.count() == i  # the growing file reads up to the last hand, under its final name
        got = []
        with pytest.raises(HistoryError) as info:  # no gzip trailer yet: the hands, then "cut off"
            for record in read_history(path):
                got.append(record)  # noqa: PERF402
        assert got == records and info.value.cut_off
    assert list(read_history(path)) == records and tail.count() == 5


# ----------------------------------------------------------------------------- the documentation


def test_every_example_of_the_documentation_checks() -> None:
    """docs/HISTORY.md shows one record per game type: each is valid, checks and replays."""
    import re

    text = (ROOT / "docs" / "HISTORY.md").read_text(encoding="utf-8")
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", text, re.S)]
    assert len(examples) == 5
    assert {(r["record_version"], r["raise_rule"]) for r in examples} == {(handrecord.VERSION, "capped")}
    games = set()
    for record in examples:
        assert schema_errors(record) == []
        assert checker().check_hand(record) == []
        handrecord.replay_v2(record)
        game = record["game"]
        games.add((game["structure"], "big_blind" in game, game["ante"] > 0, record["match"]["stack_mode"]))
    structures = {g[0] for g in games}
    assert structures == {"no-limit", "fixed-limit"} and {g[3] for g in games} == {"reset", "freezeout"}
    assert any(not g[1] for g in games) and any(g[2] and g[1] for g in games)  # ante-only; antes with blinds


def test_a_match_writes_its_compressed_history_under_one_name_from_the_first_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a reader of a running tournament sees: hands.jsonl.gz from the first hand on, every finished
    hand readable while the match runs, and no hands.jsonl ever."""
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    seen: list[tuple[list[str], int]] = []
    write = HistoryWriter.write
    tail = HistoryTail(tmp_path / "hands.jsonl.gz")

    def watched(self: HistoryWriter, record: dict[str, Any]) -> None:
        write(self, record)
        seen.append((sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("hands")), tail.count()))

    monkeypatch.setattr(HistoryWriter, "write", watched)
    bots = [BotSpec(name, ("python", "-m", "bots.caller"), cwd=str(ROOT)) for name in ("a", "b")]
    spec = MatchSpec(GameConfig(), hands=4, seed=3, compress=True)
    result = play_match(bots, spec, Limits(decision_ms=2000, startup_ms=10000), tmp_path)
    assert result.hands_played == 4
    assert seen == [(["hands.jsonl.gz"], n) for n in range(1, 5)]
    assert [r["hand_id"] for r in read_history(tmp_path / "hands.jsonl.gz")] == [0, 1, 2, 3]
