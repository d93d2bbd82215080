"""tools/hhcheck.py on Five Card Draw with openers (RULES.md R7): every hand the engine plays checks (openers and
proof, passed-out deals carrying their antes, the draw, the opener first after it, showdown), at 2 to 8 seats, and
a tampered record fails on a line naming the hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig
from harness.engine.games import FIVE_CARD_DRAW, with_openers
from harness.history import record as handrecord
from tests.draw_game_helpers import run_cli
from tests.history_helpers import CHECKER_PATH, checker, random_match

FIVE_GAMES = {
    "no-limit": GameConfig(blinds=False, ante=1, min_bet=2),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=4, blinds=False, ante=2, min_bet=4),
    "fixed-limit-no-cap": GameConfig(structure="fixed-limit", cap=0, blinds=False, ante=1, min_bet=2),
}


def run_checker(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER_PATH), str(path)], capture_output=True, text=True, timeout=120)


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_checkers_own_openers_follow_r7_2() -> None:
    """E17 (R7.2) and the proof's least part (R7.7), by the checker's own code."""
    opening = checker().opening_cards
    assert sorted(opening("Jh Jd 7c 4s 2d".split(), "jacks")) == ["Jd", "Jh"]
    assert opening("Th Td Ac Ks 2d".split(), "jacks") is None
    assert sorted(opening("3h 3d 2c 2s Ad".split(), "jacks")) == ["2c", "2s", "3d", "3h"]
    assert sorted(opening("Kh Kd 2c 2s Ad".split(), "jacks")) == ["Kd", "Kh"]
    assert len(opening("9h 8d 7c 6s 5d".split(), "jacks") or []) == 5
    assert opening("Th 8d 7c 4s 2d".split(), "jack-card") is None
    assert opening("Jh 8d 7c 4s 2d".split(), "jack-card") == ["Jh"]
    assert opening("Th 8d 7c 4s 2d".split(), "none") == []


@pytest.mark.parametrize("seats", [2, 3, 8])
def test_every_real_five_card_draw_hand_checks(seats: int) -> None:
    """Hands the engine plays (faults, players out, passed-out deals, side pots, reshuffles at 8 seats) all check."""
    passed = opened = showdowns = 0
    for name, game in FIVE_GAMES.items():
        for mode, stack in (("reset", 20 * game.unit), ("freezeout", 4 * game.unit)):
            for record in random_match(game, seats=seats, hands=30, seed=seats + 7, starting_stack=stack,
                                       stack_mode=mode, definition=FIVE_CARD_DRAW):
                assert checker().check_hand(record) == [], (name, mode, record["hand_id"], checker().check_hand(record))
                passed += record["jackpot"]["passed_out"]
                opened += record["jackpot"]["opener"] is not None
                showdowns += len(record["shown"]) >= 2
    assert passed and opened and showdowns


def test_a_match_with_carried_antes_checks_and_tampering_fails_naming_the_hand(tmp_path: Path) -> None:
    """A real match of starters: passed-out deals carry their antes into the next (R7.4); the checker follows them
    from hand to hand. Then each tampering fails on its hand's line."""
    out = tmp_path / "m"
    bots = [f"--bot=b{i}={sys.executable} -m bots.{b}" for i, b in enumerate(("caller", "raiser", "random_bot"))]
    done = run_cli("match", *bots, "--game", FIVE_CARD_DRAW.name, "--ante", "2", "--min-bet", "4", "--stack", "200",
                   "--hands", "40", "--sandbox", "off", "--seed", "5", "--out", str(out))
    assert done.returncode == 0, done.stderr
    good = out / "hands.jsonl"
    assert run_checker(good).returncode == 0
    records = [json.loads(line) for line in good.read_text().splitlines()]
    won = next(r for r in records if r["jackpot"]["carried_in"] and not r["jackpot"]["passed_out"] and r["pots"])
    passed = next(r for r in records if r["jackpot"]["passed_out"])
    opened = next(r for r in records if r["jackpot"]["opener"] is not None and r["jackpot"]["proof"])

    def tampered(record: dict[str, Any], change: Any, words: str) -> None:
        copy = [json.loads(json.dumps(r)) for r in records]
        line = records.index(record) + 1
        change(copy[line - 1])
        result = run_checker(write(tmp_path / "bad.jsonl", copy))
        assert result.returncode == 1, result.stdout + result.stderr
        problems = [x for x in result.stdout.splitlines() if " line " in x]
        assert problems[0].startswith(f"{tmp_path / 'bad.jsonl'} line {line} hand {record['hand_id']}: "), problems
        assert words in problems[0], problems[0]

    def no_carry(r: dict[str, Any]) -> None:  # the winner paid without the chips carried in
        r["pots"][0]["chips"] -= r["jackpot"]["carried_in"]
        r["pots"][0]["shares"][0] -= r["jackpot"]["carried_in"]

    def kept_antes(r: dict[str, Any]) -> None:  # a passed-out deal whose antes vanish
        r["jackpot"]["carried_out"] = r["jackpot"]["carried_in"]

    def other_proof(r: dict[str, Any]) -> None:  # a proof the opener never held
        held = {c for p in r["players"] for c in p["dealt"]}
        r["jackpot"]["proof"][0] = next(c for c in ("As", "Ah", "Ad", "Ac", "Ks", "Kh") if c not in held)

    def no_opener(r: dict[str, Any]) -> None:  # the opener's openers replaced by cards that do not open
        seat = r["jackpot"]["opener"]
        player = next(p for p in r["players"] if p["seat"] == seat)
        held = {c for p in r["players"] for c in p["dealt"]} | {c for a in r["actions"] for c in a.get("received", [])}
        spare = iter(c for c in ("2c", "3d", "4h", "6s", "7c", "8d", "9h", "2s", "3h", "4d") if c not in held)
        proof = set(r["jackpot"]["proof"])
        player["dealt"] = [next(spare) if c in proof else c for c in player["dealt"]]

    tampered(won, no_carry, "pots")
    tampered(passed, kept_antes, "jackpot.carried_out")
    tampered(opened, other_proof, "jackpot.proof")
    tampered(opened, no_opener, "without openers")


@pytest.mark.parametrize("rule", ["jack-card", "none"])
def test_the_opening_rule_a_record_names_is_the_one_checked(rule: str) -> None:
    """game.openers (R7.2) is recorded, replayed under, and the checker holds the opens to it."""
    definition = with_openers(FIVE_CARD_DRAW, rule)
    records = random_match(FIVE_GAMES["no-limit"], seats=4, hands=30, seed=21, definition=definition)
    assert {r["game"]["openers"] for r in records} == {rule}
    assert all(checker().check_hand(r) == [] for r in records)
    assert all(handrecord.replay_v2(r).game == definition for r in records)
    # Under jacks or better some of these opens were made without openers (R7.3): the checker says which.
    as_jacks = [dict(r, game={**r["game"], "openers": "jacks"}) for r in records]
    assert any("without openers (jacks)" in " ".join(checker().check_hand(r)) for r in as_jacks)
