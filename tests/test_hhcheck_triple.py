"""tools/hhcheck.py on Deuce-to-Seven Triple Draw (RULES.md R8): its own deuce-to-seven evaluator orders E22's
hands, every hand of random matches checks (three draws, reshuffles, side pots, short stacks), and a tampered
record (wrong winner, wrong pot, a card seen twice) fails on a line naming the hand; an unknown game exits 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.engine import GameConfig
from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW
from tests.history_helpers import CHECKER_PATH, checker, random_match

TRIPLE_GAMES = {
    "no-limit": GameConfig(),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=4),
    "fixed-limit-ante": GameConfig(structure="fixed-limit", ante=1, cap=0),
    "no-limit-ante": GameConfig(ante=2),
}


def triple_match(game: GameConfig, *, seats: int, hands: int = 30, seed: int = 3, **kw: Any) -> list[dict[str, Any]]:
    return random_match(game, seats=seats, hands=hands, seed=seed, definition=DEUCE_TO_SEVEN_TRIPLE_DRAW, **kw)


def run_checker(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHECKER_PATH), str(path)], capture_output=True, text=True, timeout=120)


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_checkers_own_evaluator_orders_e22() -> None:
    """E22 (R8.2), best to worst; the ace plays only high; suits never break ties."""
    low = checker().low_value
    order = ["7h 5d 4c 3s 2h", "7h 6d 4c 3s 2h", "8h 5d 4c 3s 2h", "Kh Qd Jc Ts 8h", "Ah 5d 4c 3s 2h",
             "2h 2d 3c 4s 5h", "6h 5d 4c 3s 2h", "7h 5h 4h 3h 2h"]
    values = [low(hand.split()) for hand in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert low("7c 5d 4h 3s 2c".split()) == low("7h 5s 4c 3d 2d".split())
    assert checker().CATEGORIES[-low("Ah 5h 4h 3h 2h".split())[0]] == "flush"  # a steel wheel is ace-high


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_every_real_triple_draw_hand_checks(seats: int) -> None:
    """Hands the engine plays (faults, players out, reshuffles at six seats, side pots) all check."""
    reshuffled = showdowns = 0
    for name, game in TRIPLE_GAMES.items():
        for mode, stack in (("reset", 10 * game.unit), ("freezeout", 3 * game.unit)):
            for record in triple_match(game, seats=seats, seed=seats + 40, starting_stack=stack, stack_mode=mode):
                assert checker().check_hand(record) == [], (name, mode, record["hand_id"])
                reshuffled += any(a["kind"] == "draw" and a["reshuffled"] for a in record["actions"])
                showdowns += bool(record["shown"])
    assert showdowns
    if seats == 6:
        assert reshuffled, "six players drawing up to five three times run the stock out (R6.9, E24)"


def _showdown(records: list[dict[str, Any]]) -> dict[str, Any]:
    return next(r for r in records if len(r["shown"]) >= 2 and len(r["pots"][0]["winners"]) == 1)


@pytest.mark.parametrize("tamper", ["winner", "pot", "card"])
def test_a_tampered_triple_draw_record_fails_naming_the_hand(tmp_path: Path, tamper: str) -> None:
    records = triple_match(TRIPLE_GAMES["fixed-limit"], seats=3, hands=20, seed=11, starting_stack=400,
                           fault_rate=0.0)
    assert run_checker(write(tmp_path / "good.jsonl", records)).returncode == 0
    record = _showdown(records)
    line = records.index(record) + 1
    if tamper == "winner":  # the high hand named the winner: what a high evaluator would pay
        pot = record["pots"][0]
        loser = next(s for s in pot["eligible"] if s not in pot["winners"])
        pot["winners"] = [loser]
    elif tamper == "pot":
        record["pots"][0]["chips"] += 10
    else:  # one player's replacement is a card another player holds
        draw = next(a for a in record["actions"] if a["kind"] == "draw" and a["received"])
        other = next(p for p in record["players"] if p["seat"] != draw["seat"])
        draw["received"][0] = other["dealt"][0]
    done = run_checker(write(tmp_path / "bad.jsonl", records))
    assert done.returncode == 1, done.stdout + done.stderr
    problem = next(x for x in done.stdout.splitlines() if " line " in x)
    assert problem.startswith(f"{tmp_path / 'bad.jsonl'} line {line} hand {record['hand_id']}: "), done.stdout
    words = {"winner": "pots", "pot": "pots", "card": "already dealt"}[tamper]
    assert words in problem, problem
    assert done.stdout.strip().endswith("19 of 20 hands check; 1 do not")


def test_a_record_of_a_game_it_does_not_know_exits_2_naming_the_game(tmp_path: Path) -> None:
    records = triple_match(TRIPLE_GAMES["no-limit"], seats=2, hands=1)
    records[0]["game"]["name"] = "razz"
    done = run_checker(write(tmp_path / "h.jsonl", records))
    assert done.returncode == 2 and "game.name: 'razz' is not a game this checker reads" in done.stderr
