"""The opening rule of Five Card Draw (RULES.md R7.2) chosen outside the engine: ``--openers`` on ``match``,
``play``, ``check-bot`` and ``sprt`` (declared once, harness/cli/options.py) and ``[game] openers`` in tournament
and contest files; it reaches the referee and the records, which hhcheck and ``harness replay`` accept."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.options import openers_option
from harness.engine import GameConfig
from harness.engine.games import FIVE_CARD_DRAW, Openers, with_openers
from harness.tournament.config import ConfigError, load_config
from tests.draw_game_helpers import game_toml, hand_records, run_cli
from tests.history_helpers import CHECKER_PATH

FIVE = FIVE_CARD_DRAW.name
ANTES = ["--ante", "1", "--min-bet", "2"]
FIVE_TOML = f'name = "{FIVE}"\nblinds = false\nante = 1\nmin_bet = 2\nstarting_stack = 100'
ANTES_CONFIG = GameConfig(blinds=False, ante=1, min_bet=2)
BOTS = [f"--bot={b}={sys.executable} -m bots.{b}" for b in ("caller", "raiser", "random_bot")]


def test_a_match_with_openers_none_records_it_and_hhcheck_and_replay_accept_it(tmp_path: Path) -> None:
    out = tmp_path / "m"
    done = run_cli("match", *BOTS, "--game", FIVE, *ANTES, "--openers", "none", "--stack", "100", "--hands", "20",
                   "--seed", "7", "--sandbox", "off", "--out", str(out))
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "hands.jsonl").read_text().splitlines()]
    assert len(records) == 20 and {r["game"]["openers"] for r in records} == {"none"}
    checked = subprocess.run([sys.executable, str(CHECKER_PATH), str(out / "hands.jsonl")], capture_output=True,
                             text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    replay = run_cli("replay", str(out))
    assert replay.returncode == 0 and "replay identically" in replay.stdout, replay.stdout + replay.stderr


@pytest.mark.parametrize("command", ["match", "play", "check-bot", "sprt"])
@pytest.mark.parametrize(("options", "words"), [
    (["--openers", "jacks"], "--openers: seven-card-draw has no opening requirement (R6.3); only five-card-draw"),
    (["--game", FIVE, *ANTES, "--openers", "queens"],
     "--openers must be one of none, jacks, jack-card (R7.2), got 'queens'"),
])
def test_openers_are_refused_in_one_line(command: str, options: list[str], words: str) -> None:
    bot = ["--", sys.executable, "-m", "bots.caller"]
    done = run_cli(command, *options, "--sandbox", "off", *bot) if command == "check-bot" else \
        run_cli(command, *BOTS[:2], *options, "--sandbox", "off")
    assert done.returncode == 2 and done.stderr.startswith(f"harness {command}: ") and words in done.stderr, \
        done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_the_option_is_declared_once() -> None:
    from harness.cli import checkbot, match, play, sprt

    option = openers_option()
    for module in (match, play, sprt, checkbot):
        command = next(f for name, f in vars(module).items() if inspect.isfunction(f) and name in (
            "match", "play", "sprt", "check_bot", "checkbot"))
        got = inspect.signature(command).parameters["openers"].default
        assert (got.param_decls, got.default, got.help) == (option.param_decls, option.default, option.help), \
            module.__name__


@pytest.mark.parametrize("rule", list(Openers))
def test_a_tournament_file_chooses_the_rule(tmp_path: Path, rule: Openers) -> None:
    config = load_config(game_toml(tmp_path, f'{FIVE_TOML}\nopeners = "{rule}"'))
    assert config.definition == with_openers(FIVE_CARD_DRAW, rule)


def test_without_the_key_the_game_keeps_its_own_rule_and_its_fingerprints(tmp_path: Path) -> None:
    from harness.tournament.plan import settings

    config = load_config(game_toml(tmp_path, FIVE_TOML))
    assert config.definition == FIVE_CARD_DRAW
    plain = settings(config)
    assert "[game] openers" not in plain and plain["[game] name"] == FIVE
    other = load_config(game_toml(tmp_path, f'{FIVE_TOML}\nopeners = "jack-card"'))
    assert settings(other)["[game] openers"] == "jack-card"  # results of one rule are not reused for another


@pytest.mark.parametrize(("game", "words"), [
    ('openers = "jacks"', '[game] openers: "seven-card-draw" has no opening requirement (R6.3); only '
                          '"five-card-draw" takes openers'),
    (f'{FIVE_TOML}\nopeners = "queens"', '[game] openers: expected one of "none", "jacks", "jack-card", got '
                                         '"queens"'),
])
def test_a_tournament_file_is_refused_in_one_line(tmp_path: Path, game: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(game_toml(tmp_path, game))
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)


def test_a_contest_file_takes_the_rule_and_refuses_it_elsewhere(tmp_path: Path) -> None:
    from harness.server.contest import load_contest
    from tests.server_helpers import contest_file

    path = contest_file(tmp_path, extra=f'[game]\n{FIVE_TOML}\nopeners = "jack-card"\n')
    assert load_contest(path).definition == with_openers(FIVE_CARD_DRAW, Openers.JACK_CARD)
    path = contest_file(tmp_path, extra='[game]\nopeners = "none"\n')
    with pytest.raises(ConfigError) as info:
        load_contest(path)
    assert "[game] openers" in str(info.value) and "R6.3" in str(info.value) and "\n" not in str(info.value)


def test_a_league_plays_under_the_rule_of_its_file(tmp_path: Path) -> None:
    path = game_toml(tmp_path, f'{FIVE_TOML}\nopeners = "jack-card"', table_size=3, hands=8)
    done = run_cli("run", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    records = hand_records(tmp_path / "out")
    assert records and {r["game"]["openers"] for r in records} == {"jack-card"}


def test_an_sprt_of_another_rule_does_not_resume_one_of_the_games_own() -> None:
    from harness.specs import BotSpec
    from harness.tournament.sprt import SprtSettings

    def identity(rule: str) -> dict[str, object]:
        return SprtSettings(BotSpec("new", ("x",)), BotSpec("old", ("y",)), bb0=0, bb1=5, alpha=0.05, beta=0.05,
                            hands=10, seed=1, starting_stack=100, game=ANTES_CONFIG,
                            definition=with_openers(FIVE_CARD_DRAW, rule)).identity()

    own = identity("jacks")
    assert "openers" not in own and identity("none") == own | {"openers": "none"}
