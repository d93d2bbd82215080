"""Draw games above the engine (RULES.md R6-R8): tournament files name the game, the referee deals it
through the hand factory, the wire and the histories carry its name, and a league plays it end to end."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    FIVE_CARD_DRAW,
    GAMES,
    SEVEN_CARD_DRAW,
    game_problem,
    start_hand,
)
from harness.history import record as handrecord
from harness.match.msgsize import largest_message_bytes
from harness.match.wire import HandWire, MatchWire
from harness.report.hands import hand_view
from harness.tournament.config import ConfigError, load_config
from protocol import codec
from protocol.messages import GAME_NAMES, ActRequest, DrawRequest, GameSettings, MatchLimits, MatchStart
from tests.draw_game_helpers import game_toml, hand_records, run_cli
from tests.history_helpers import schema_errors

ROOT = Path(__file__).resolve().parents[1]
TRIPLE = DEUCE_TO_SEVEN_TRIPLE_DRAW.name


def test_the_protocol_and_the_engine_name_the_same_games() -> None:
    assert GAME_NAMES == tuple(GAMES)


def test_a_tournament_file_names_its_game(tmp_path: Path) -> None:
    config = load_config(game_toml(tmp_path, f'name = "{TRIPLE}"\nstructure = "fixed-limit"'))
    assert config.definition == DEUCE_TO_SEVEN_TRIPLE_DRAW
    assert str(config.game.replacements) == "stock"  # per-seat replacements are Seven Card Draw's (R4.4)
    assert load_config(game_toml(tmp_path, 'structure = "fixed-limit"')).definition == SEVEN_CARD_DRAW


@pytest.mark.parametrize(("game", "key", "words"), [
    ('name = "texas-holdem"', "[game] name", 'expected one of "seven-card-draw"'),
    (f'name = "{TRIPLE}"\nreplacements = "per-seat"', "[game] replacements", "draws from the stock"),
    (f'name = "{TRIPLE}"\nblinds = false\nante = 1\nmin_bet = 10', "[game] name", "R8.1"),
    ('name = "five-card-draw"', "[game] name", "R7.1"),
])
def test_a_game_the_file_cannot_play_is_one_line_naming_the_key(tmp_path: Path, game: str, key: str,
                                                                  words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(game_toml(tmp_path, game))
    text = str(info.value)
    assert key in text and words in text and "\n" not in text, text


def test_the_harness_refuses_a_game_in_one_line_exit_2(tmp_path: Path) -> None:
    path = game_toml(tmp_path, 'name = "razz"')
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 2 and "[game] name" in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_the_hand_factory_deals_each_game_and_refuses_what_it_cannot() -> None:
    assert type(start_hand(SEVEN_CARD_DRAW, GameConfig(), [100, 100], 0, 1)) is HandState
    assert start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, GameConfig(), [100, 100], 0, 1).game is DEUCE_TO_SEVEN_TRIPLE_DRAW
    # PROTOCOL.md section 6: Seven Card Draw's state is as before; another game names itself.
    assert "game" not in start_hand(SEVEN_CARD_DRAW, GameConfig(), [100, 100], 0, 1).observation(0)
    assert start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, GameConfig(), [100, 100], 0, 1).observation(1)["game"] == TRIPLE
    assert game_problem(DEUCE_TO_SEVEN_TRIPLE_DRAW, GameConfig(), 7) is not None  # R8.1: 2 to 6 seats
    assert game_problem(FIVE_CARD_DRAW, GameConfig(blinds=False, ante=1, min_bet=10), 3) is None  # R7.4: carried
    assert game_problem(FIVE_CARD_DRAW, GameConfig(), 3) is not None  # R7.1: antes only


def test_match_start_names_a_game_other_than_seven_card_draw_only() -> None:
    limits = MatchLimits(1000, 30000, 10000, 10, 65536)

    def start(name: str) -> bytes:
        return codec.encode(MatchStart("m", 0, ("a", "b"), GameSettings.of(GameConfig(), name), 10, 500, "reset",
                                       limits))

    assert b"\xa4name" not in start(SEVEN_CARD_DRAW.name)  # Seven Card Draw's bytes are those of before
    decoded = codec.decode(start(TRIPLE))
    assert isinstance(decoded, MatchStart) and decoded.game.name == TRIPLE
    assert codec.decode(start(SEVEN_CARD_DRAW.name)).game.name == SEVEN_CARD_DRAW.name  # type: ignore[union-attr]


def _play_random(state: HandState, rng: random.Random, wire: HandWire | None = None) -> None:
    """Random legal decisions to the end; every request the referee would send decodes with the game's name."""
    seq = 0
    while state.to_act is not None:
        legal = state.legal()
        draw = state.phase.value == "draw"
        if wire is not None:
            seq += 1
            message = codec.decode(wire.request(draw, seq, state.to_act, legal, 1000))
            assert isinstance(message, DrawRequest if draw else ActRequest)
            assert message.state.get("game") == (None if state.game == SEVEN_CARD_DRAW else state.game.name)
            assert message.legal.max_discards == legal.max_discards
        if draw:
            cards = state.cards[state.to_act]
            k = rng.randint(0, min(legal.max_discards, len(cards)))
            state.apply(Action(ActionKind.DRAW, 0, tuple(rng.sample(cards, k))))
            continue
        kind = rng.choice(legal.actions)
        amount = rng.randint(legal.min_to, legal.max_to) if kind in (ActionKind.BET, ActionKind.RAISE) else 0
        state.apply(Action(kind, amount))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), fixed=st.booleans(), ante=st.integers(0, 3),
       stack=st.integers(12, 400))
def test_triple_draw_on_the_referee_path_conserves_chips_repeats_no_card_and_replays(
        seed: int, n: int, fixed: bool, ante: int, stack: int) -> None:
    config = GameConfig(structure="fixed-limit" if fixed else "no-limit", ante=ante)
    rng = random.Random(seed)
    stacks = [rng.randint(stack // 2, stack) for _ in range(n)]
    state = start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, config, stacks, seed % n, seed, 3)
    wire = HandWire(MatchWire(config, 1000, DEUCE_TO_SEVEN_TRIPLE_DRAW), state)
    _play_random(state, rng, wire)
    result = state.result()
    assert sum(result.net) == 0 and sum(result.final_stacks) == sum(stacks)  # R1.4
    record = handrecord.build(state, match_id="m", match=handrecord.match_dict(
        bots=[f"b{i}" for i in range(n)], hands=4, stack_mode="reset", starting_stack=stack, seed_sha256="0" * 64,
        decision_ms=1000, time_bank_ms=1000, max_faults=3), seated=list(range(n)), out=[False] * n,
        decisions=[("bot", None, 1.0)] * len(state.action_log()), faults=[])
    assert record["game"]["name"] == TRIPLE
    assert not schema_errors(json.loads(json.dumps(record)))  # docs/hand-history.schema.json
    # No card twice: what the table holds at the end plus everything discarded is never more than the deck.
    held = [c for p in record["players"] for c in p["final_cards"]]
    assert len(held) == len(set(held))
    for p in record["players"]:
        assert len(p["dealt"]) == len(set(p["dealt"])) == 5
    seen: set[str] = {c for p in record["players"] for c in p["dealt"]}
    for a in record["actions"]:
        if a["kind"] == "draw":
            fresh = [c for c in a["received"] if c not in a["reshuffled"]]
            assert not seen & set(fresh), "a card of the stock dealt twice"
            seen |= set(a["received"])
    assert len(json.dumps(record)) and handrecord.replay_v2(json.loads(json.dumps(record))).result() == result


def test_the_message_bound_holds_for_triple_draw_hands() -> None:
    config = GameConfig(structure="no-limit")
    rng = random.Random(5)
    bound = largest_message_bytes(config, 3, 200, DEUCE_TO_SEVEN_TRIPLE_DRAW)
    assert bound > largest_message_bytes(config, 3, 200)  # three draws and four rounds say more
    for seed in range(40):
        state = start_hand(DEUCE_TO_SEVEN_TRIPLE_DRAW, config, [200] * 3, seed % 3, seed)
        wire = HandWire(MatchWire(config, 1000, DEUCE_TO_SEVEN_TRIPLE_DRAW), state)
        _play_random(state, rng)
        assert len(wire.hand_end()) <= bound


def test_a_league_of_triple_draw_plays_end_to_end_with_bot_processes(tmp_path: Path) -> None:
    path = game_toml(tmp_path, f'name = "{TRIPLE}"\nstructure = "fixed-limit"\nstarting_stack = 400', table_size=3,
                 hands=8)
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = tmp_path / "out"
    records = hand_records(out)
    assert len(records) == 3 * 8  # duplicate: one match per seat rotation
    assert {r["game"]["name"] for r in records} == {TRIPLE}
    assert all(sum(p["net"] for p in r["players"]) == 0 for r in records)
    assert not [f for r in records for f in r["faults"]], "the starters play Triple Draw without a fault"
    assert {hand_view(r)["game"] for r in records} == {TRIPLE}  # the report's hand viewer names it
    assert (out / "report" / "index.html").is_file()
    draws = [a for r in records for a in r["actions"] if a["kind"] == "draw"]
    assert draws and max(len(a["discards"]) for a in draws) <= 5
    replay = subprocess.run([sys.executable, "-m", "harness.cli", "replay", str(out)], capture_output=True, text=True,
                            cwd=ROOT, timeout=600)
    assert replay.returncode == 0 and "replay identically" in replay.stdout, replay.stdout + replay.stderr
    check = subprocess.run([sys.executable, str(ROOT / "tools" / "hhcheck.py"),
                            str(next(out.glob("matches/*/hands.jsonl*")))], capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "8 of 8 hands check" in check.stdout, check.stdout + check.stderr


def test_solid_refuses_triple_draw_in_one_line_and_the_entry_check_leaves_it_out(tmp_path: Path) -> None:
    path = game_toml(tmp_path, f'name = "{TRIPLE}"', hands=1, bots=("solid", "caller"))
    done = subprocess.run([sys.executable, "-m", "harness.cli", "run", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 2, done.stderr[-2000:]  # the entry check plays the tournament's game
    assert "bot 'solid' is left out" in done.stderr
    assert f"solid: plays seven-card-draw only, not {TRIPLE}; leaving the match" in done.stderr


def test_match_and_check_bot_play_the_game_given_by_game(tmp_path: Path) -> None:
    done = run_cli("match", "--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.random_bot", "--hands", "3",
                "--game", TRIPLE, "--structure", "fixed-limit", "--sandbox", "off", "--out", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "m" / "hands.jsonl").read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line)["game"]["name"] == TRIPLE for line in lines)
    checked = run_cli("check-bot", "--game", TRIPLE, "--hands", "3", "--sandbox", "off", "--", "python", "-m",
                   "bots.random_bot")
    assert checked.returncode == 0 and f"hands of {TRIPLE} no-limit 5/10" in checked.stdout, checked.stdout


@pytest.mark.parametrize(("argv", "words"), [
    (("match", "--bot", "a=x", "--bot", "b=y", "--game", "razz"), "--game must be one of seven-card-draw"),
    (("check-bot", "--game", TRIPLE, "--ante", "1", "--min-bet", "10", "--", "x"), f"--game {TRIPLE}: R8.1"),
    (("match", *[f"--bot=b{i}=x" for i in range(3)], "--game", "five-card-draw"), "R7.1"),
])
def test_a_game_the_command_cannot_play_is_one_line_exit_2(argv: tuple[str, ...], words: str) -> None:
    done = run_cli(*argv)
    assert done.returncode == 2 and words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_person_plays_triple_draw_at_the_human_seat(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "harness.cli", "play", "--bot", "b=python -m bots.caller",
                           "--hands", "2", "--game", TRIPLE, "--sandbox", "off", "--out", str(tmp_path / "p"),
                           "--seed", "3", "--pace-ms", "0"], input="\n" * 60, capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "(the lowest hand wins, R8.2)" in done.stdout
    lines = (tmp_path / "p" / "hands.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["game"]["name"] == TRIPLE for line in lines)


def test_sprt_plays_its_blocks_in_the_game_given_and_keeps_it_with_the_test(tmp_path: Path) -> None:
    argv = ("sprt", "--bot", "new=python -m bots.raiser", "--bot", "old=python -m bots.random_bot", "--game", TRIPLE,
            "--hands", "4", "--max-hands", "16", "--sandbox", "off", "--out", str(tmp_path / "s"))
    done = run_cli(*argv)
    assert done.returncode in (0, 3), done.stderr  # decided, or inconclusive at --max-hands
    assert json.loads((tmp_path / "s" / "sprt.json").read_text())["game_name"] == TRIPLE
    first = (tmp_path / "s" / "blocks" / "000000" / "r0" / "hands.jsonl").read_text().splitlines()[0]
    assert json.loads(first)["game"]["name"] == TRIPLE
    other = run_cli(*argv[:6], SEVEN_CARD_DRAW.name, *argv[7:])  # the same test in another game is another test
    assert other.returncode == 2 and "--game" in other.stderr and "holds another test" in other.stderr, other.stderr
