"""Five Card Draw seats 2 to 8 (RULES.md R7.1, R6.8) in every layer above the engine; the other games keep 2 to 6."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgpack
import pytest

from harness.engine import GameConfig
from harness.engine.config import MAX_TABLE, seat_count_problem
from harness.engine.games import DEUCE_TO_SEVEN_TRIPLE_DRAW, FIVE_CARD_DRAW, SEVEN_CARD_DRAW, start_hand
from harness.match.msgsize import largest_message_bytes, message_problem
from harness.tournament.config import ConfigError, load_config
from protocol import codec
from protocol.messages import ActRequest
from tests.draw_game_helpers import run_cli
from tests.history_helpers import schema_errors

FIVE = FIVE_CARD_DRAW.name
ANTES = GameConfig(blinds=False, ante=1, min_bet=2)
STARTERS = ("caller", "raiser", "random_bot")
ROOT = Path(__file__).resolve().parents[1]


def _bots(n: int) -> list[str]:
    return [f"--bot=b{i}={sys.executable} -m bots.{STARTERS[i % 3]}" for i in range(n)]


def test_the_largest_table_of_any_game_is_five_card_draws() -> None:
    assert MAX_TABLE == FIVE_CARD_DRAW.max_seats == 8
    assert seat_count_problem(8, FIVE_CARD_DRAW) is None
    assert seat_count_problem(9, FIVE_CARD_DRAW) == "R6.8: a table of five-card-draw seats 2 to 8 players, got 9"
    assert seat_count_problem(7) is not None and "2 to 6" in str(seat_count_problem(7))
    assert seat_count_problem(7, DEUCE_TO_SEVEN_TRIPLE_DRAW) is not None


def test_an_eight_seat_request_decodes_and_a_ninth_seat_is_refused() -> None:
    """PROTOCOL.md section 6 "Other games": seats 0 to 7, arrays of up to 8 entries."""
    state = start_hand(FIVE_CARD_DRAW, ANTES, [50] * 8, 7, 3)
    seat = state.to_act
    assert seat == 0
    legal = state.legal()
    view = state.observation(7)
    wire = codec.encode_request(False, 1, view, legal.actions, legal.call_amount, legal.min_to, legal.max_to,
                                legal.max_discards, 1000, 500)
    message = codec.decode(wire)
    assert isinstance(message, ActRequest) and message.state["seat"] == 7 and len(message.state["stacks"]) == 8
    nine = msgpack.unpackb(wire)
    nine["state"]["stacks"] = [50] * 9
    with pytest.raises(codec.ProtocolError, match="stacks"):
        codec.decode(msgpack.packb(nine))
    nine = msgpack.unpackb(wire)
    nine["state"]["seat"] = 8
    with pytest.raises(codec.ProtocolError, match="seat"):
        codec.decode(msgpack.packb(nine))


def test_message_bounds_take_eight_seats_of_five_card_draw_only() -> None:
    assert largest_message_bytes(ANTES, 8, 100, FIVE_CARD_DRAW) > largest_message_bytes(ANTES, 6, 100, FIVE_CARD_DRAW)
    with pytest.raises(ValueError, match="2 to 6"):
        largest_message_bytes(GameConfig(), 7, 100, SEVEN_CARD_DRAW)
    with pytest.raises(ValueError, match="deuce-to-seven-triple-draw seats 2 to 6"):
        largest_message_bytes(GameConfig(), 7, 100, DEUCE_TO_SEVEN_TRIPLE_DRAW)
    fixed = GameConfig(structure="fixed-limit", cap=4, blinds=False, ante=1, min_bet=2)
    problem = message_problem(fixed, 8, 2**40 // 6, definition=FIVE_CARD_DRAW)  # fits the bytes, not the amounts
    assert problem is not None and f"at most {2**40 // 8:,} chips" in problem
    assert message_problem(fixed, 8, 2**40 // 8, definition=FIVE_CARD_DRAW) is None


def test_an_eight_seat_match_of_five_card_draw_plays_end_to_end_with_bot_processes(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = run_cli("match", *_bots(8), "--game", FIVE, "--ante", "1", "--min-bet", "2", "--stack", "300",
                   "--hands", "16", "--sandbox", "off", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "result.json").read_text())
    assert len(result["net"]) == 8 and all(sum(row) == 0 for row in result["hand_nets"])
    assert result["status"] == ["ok"] * 8, result["status"]
    records = [json.loads(line) for line in (out / "hands.jsonl").read_text().splitlines()]
    assert len(records) == 16 and {r["button"] for r in records} == set(range(8))
    for r in records:
        assert len(r["players"]) == 8 and not schema_errors(r), schema_errors(r)
        assert not r["faults"]
    replay = run_cli("replay", str(out))
    assert replay.returncode == 0 and "16 of 16 hands replay identically" in replay.stdout, replay.stdout


def test_the_schema_refuses_seven_seats_outside_five_card_draw(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = run_cli("match", *_bots(7), "--game", FIVE, "--ante", "1", "--min-bet", "2", "--stack", "200",
                   "--hands", "2", "--sandbox", "off", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = json.loads((out / "hands.jsonl").read_text().splitlines()[0])
    assert not schema_errors(record)
    del record["game"]["name"]  # a Seven Card Draw record of seven seats
    assert schema_errors(record)


@pytest.mark.parametrize(("game", "bots", "words"), [
    (FIVE, 9, "harness match: --game five-card-draw: R6.8: a table of five-card-draw seats 2 to 8 players, got 9"),
    ("seven-card-draw", 7, "harness match: a match needs 2 to 6 bots (R1.2), got 7"),
    ("deuce-to-seven-triple-draw", 7, "harness match: --game deuce-to-seven-triple-draw: R6.8: a table of "
                                      "deuce-to-seven-triple-draw seats 2 to 6 players, got 7"),
])
def test_harness_match_names_the_games_limit_in_one_line(game: str, bots: int, words: str) -> None:
    rules = ["--ante", "1", "--min-bet", "2"] if game == FIVE else []
    done = run_cli("match", *_bots(bots), "--game", game, *rules, "--sandbox", "off")
    assert done.returncode == 2 and done.stderr.startswith(words) and done.stderr.count("\n") == 1, done.stderr


def _tournament(tmp_path: Path, game: str, table_size: int) -> Path:
    """A tournament file of eight starters (``STARTERS`` in turn) at tables of ``table_size``, duplicate on."""
    entries = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "{sys.executable} -m bots.{STARTERS[i % 3]}"\n'
                      f'cwd = "{ROOT}"\n' for i in range(8))
    path = tmp_path / f"t{table_size}.toml"
    path.write_text(f'[tournament]\nname = "t"\noutput = "{tmp_path / "out"}"\n[game]\n{game}\n[schedule]\n'
                    f'table_size = {table_size}\nhands = 2\njobs = 1\npin = false\n[sandbox]\nmode = "off"\n{entries}')
    return path


FIVE_TOML = f'name = "{FIVE}"\nblinds = false\nante = 1\nmin_bet = 2\nstarting_stack = 100'


def test_tournament_files_take_eight_seats_of_five_card_draw_only(tmp_path: Path) -> None:
    assert load_config(_tournament(tmp_path, FIVE_TOML, 8)).schedule.table_size == 8
    with pytest.raises(ConfigError) as info:
        load_config(_tournament(tmp_path, FIVE_TOML, 9))
    message = str(info.value)
    assert "[schedule] table_size" in message and "a table of five-card-draw seats 2 to 8 players, got 9" in message
    for game in ("", 'name = "deuce-to-seven-triple-draw"'):
        with pytest.raises(ConfigError) as info:
            load_config(_tournament(tmp_path, game, 7))
        assert "[schedule] table_size: expected an integer from 2 to 6" in str(info.value), str(info.value)


def test_a_duplicate_tournament_of_eight_seats_plays_every_rotation(tmp_path: Path) -> None:
    """One table of the eight bots, duplicate: eight matches, each bot once in every seat."""
    done = run_cli("run", str(_tournament(tmp_path, FIVE_TOML, 8)))
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 8
    seatings = [row["result"]["bots"] for row in rows]
    assert all(sorted(s) == [f"b{i}" for i in range(8)] for s in seatings)
    assert all({s[k] for s in seatings} == {f"b{i}" for i in range(8)} for k in range(8))


@pytest.mark.parametrize(("game", "size", "words"), [
    (FIVE_TOML, 8, None),
    (FIVE_TOML, 9, "[ladder] table_size: expected an integer from 2 to 8"),
    ("", 7, "[ladder] table_size: expected an integer from 2 to 6 (R1.2"),
    ('name = "deuce-to-seven-triple-draw"', 7, "[ladder] table_size: expected an integer from 2 to 6 (R6.8"),
])
def test_a_contests_ladder_seats_eight_in_five_card_draw_only(tmp_path: Path, game: str, size: int,
                                                              words: str | None) -> None:
    from harness.server.contest import load_contest
    from tests.server_helpers import contest_file

    path = contest_file(tmp_path, extra=f"[game]\n{game}\n")
    path.write_text(path.read_text().replace("table_size = 2\n", f"table_size = {size}\n"))
    if words is None:
        assert load_contest(path).ladder.table_size == size
        return
    with pytest.raises(ConfigError) as info:
        load_contest(path)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
