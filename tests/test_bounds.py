"""Every number that reaches the wire, the engine or a kernel limit is bounded (trial finding B).

Too large a value is a one-line usage error naming the option or key and the
allowed range, before anything is started or written; never an OverflowError
from msgpack after the match began, nor an all-in amount above the protocol's
2^40.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.engine.config import MAX_CHIPS, MAX_PLAYERS, GameConfig
from harness.engine.errors import GameConfigError
from harness.specs import BOUNDS, MAX_HANDS, Limits, MatchSpec
from harness.tournament.config import ConfigError, load_config, with_overrides
from protocol.version import MAX_AMOUNT
from tests.config_helpers import BOTS, write

HUGE = "99999999999999999999"  # above 2^64: msgpack cannot even encode it
CALLERS = ["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller"]


def test_chip_bound_keeps_a_full_table_inside_the_protocol() -> None:
    assert MAX_CHIPS * MAX_PLAYERS <= MAX_AMOUNT < (MAX_CHIPS + 1) * MAX_PLAYERS
    with pytest.raises(GameConfigError, match="big_blind must be at most 183,251,937,962"):
        GameConfig(small_blind=MAX_CHIPS, big_blind=2 * MAX_CHIPS)
    with pytest.raises(ValueError, match="starting_stack must be from 1 to 183,251,937,962"):
        MatchSpec(game=GameConfig(), hands=1, seed=1, starting_stack=2**40)
    with pytest.raises(ValueError, match="hands must be from 1 to 10,000,000"):
        MatchSpec(game=GameConfig(), hands=MAX_HANDS + 1, seed=1)
    with pytest.raises(ValueError, match="decision_ms must be from 1 to 86,400,000"):
        Limits(decision_ms=int(HUGE))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--decision-ms", HUGE], f"--decision-ms must be from 1 to 86,400,000 (one day), got {HUGE}"),
        (["--time-bank-ms", HUGE], "--time-bank-ms must be from 0 to 86,400,000"),
        (["--stack", HUGE], "--stack must be from 1 to 183,251,937,962"),
        (["--stack", str(2**40)], f"--stack must be from 1 to 183,251,937,962 (chips: six stacks must fit the "
                                  f"protocol's 2^40), got {2**40}"),
        (["--hands", HUGE], "--hands must be from 1 to 10,000,000 (hands per match)"),
        (["--max-faults", HUGE], "--max-faults must be from 1 to 1,000,000"),
    ],
)
def test_match_refuses_out_of_range_options_before_starting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["match", *CALLERS, *args])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == f"harness match: {words}" + result.stderr[len(words) + 15:]
    assert result.stderr.count("\n") == 1 and words in result.stderr
    assert list(tmp_path.iterdir()) == [], "a usage error created files (results/match-...)"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--hands", "999999999999999999999"], "--hands must be from 1 to 10,000,000"),
        (["--startup-ms", HUGE], "--startup-ms must be from 1 to 86,400,000"),
        (["--stack", str(2**40)], "--stack must be from 1 to 183,251,937,962"),
        (["--big-blind", HUGE], "--big-blind must be from 0 to 183,251,937,962"),
        (["--ante", HUGE], "--ante must be from 0 to 183,251,937,962"),
        (["--cap", "100000"], "--cap must be from 0 to 1,000 (bets per round)"),
        (["--seed", "9" * 90], "--seed: "),
    ],
)
def test_check_bot_refuses_out_of_range_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], words: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["check-bot", *args, "--", "python", "-m", "bots.caller"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"harness check-bot: {words}") and result.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("table", "key", "value", "words"),
    [
        ("schedule", "hands", 99999999999999999, "expected an integer from 1 to 10,000,000 (hands per match)"),
        ("game", "starting_stack", 2**40 + 1, "expected an integer from 1 to 183,251,937,962"),
        ("game", "big_blind", 2**40, "expected an integer from 0 to 183,251,937,962"),
        ("game", "cap", 5000, "expected an integer from 0 to 1,000"),
        ("limits", "decision_ms", 99999999999999999, "expected an integer from 1 to 86,400,000 (one day)"),
        ("limits", "time_bank_ms", 2**63 - 1, "expected an integer from 0 to 86,400,000"),
        ("limits", "memory_mb", 2**60, "expected an integer from 0 to 1,048,576"),
        ("limits", "max_message_bytes", 2**40, "expected an integer from 1 to 16,777,216"),
        ("sandbox", "scratch_mb", 2**60, "expected an integer from 1 to 1,048,576"),
        ("schedule", "max_matches", 10**12, "expected an integer from 1 to 10,000,000"),
    ],
)
def test_tournament_file_values_are_bounded(tmp_path: Path, table: str, key: str, value: int, words: str) -> None:
    path = write(tmp_path, f"[{table}]\n{key} = {value}\n{BOTS}")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert err.value.key == f"[{table}] {key}" and words in err.value.problem and str(value) in err.value.problem


def test_every_limit_has_a_bound_and_command_line_overrides_are_bounded(tmp_path: Path) -> None:
    assert set(Limits.__dataclass_fields__) <= set(BOUNDS)
    config = load_config(write(tmp_path, BOTS))
    with pytest.raises(ConfigError, match="--hands: must be from 1 to 10,000,000"):
        with_overrides(config, hands=10**17)
    with pytest.raises(ConfigError, match="--jobs: must be from 0 to 4,096"):
        with_overrides(config, jobs=10**20)


def test_plan_refuses_absurd_hands_instead_of_estimating_years(tmp_path: Path) -> None:
    path = write(tmp_path, f"[schedule]\nhands = 99999999999999999\n{BOTS}")
    result = CliRunner().invoke(app, ["plan", "--no-measure", str(path)])
    assert result.exit_code == 2 and "days" not in result.output
    assert "[schedule] hands: expected an integer from 1 to 10,000,000" in result.stderr
