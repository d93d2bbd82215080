"""Tournament file validation: defaults, resolution, and one error per kind of mistake."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.engine.config import Replacements, Structure
from harness.specs import Limits, StackMode
from harness.tournament.config import ConfigError, load_config, toml_value, with_overrides
from harness.tournament.schedule import Format, Gauntlet, RoundRobin
from tests.config_helpers import BOTS, write


def test_minimal_file_gets_documented_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, BOTS))
    assert cfg.tournament.name == "t"
    assert cfg.tournament.seed is None  # a secret seed is drawn at the first run
    assert cfg.tournament.output == Path("results/t")
    assert cfg.tournament.compress is True and cfg.tournament.entry_check is True
    assert cfg.schedule.format is Format.ROUND_ROBIN
    schedule = cfg.schedule
    assert (schedule.table_size, schedule.hands, schedule.duplicate, schedule.jobs) == (2, 1000, True, 0)
    assert schedule.pin is True
    assert cfg.game.structure is Structure.NO_LIMIT
    assert (cfg.game.small_blind, cfg.game.big_blind) == (5, 10)
    assert cfg.game.replacements is Replacements.PER_SEAT  # duplicate at a 2-seat table
    assert cfg.starting_stack == 1000 and cfg.stack_mode is StackMode.RESET
    assert cfg.limits == Limits()
    assert cfg.bot_names == ("a", "b", "c")
    assert isinstance(cfg.schedule.strategy(), RoundRobin)


def test_bot_commands_cwd_and_env_are_resolved(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, BOTS))
    a, b, c = cfg.bots
    assert a.command == (sys.executable, "-m", "bots.caller")  # the venv's python
    assert b.command == (sys.executable, "-m", "bots.raiser", "--x", "1 2")
    assert c.command == ("./mybot", "--fast")
    assert a.cwd == str((tmp_path / "tournaments").resolve())  # relative to the TOML file
    assert b.cwd == str(tmp_path.resolve())
    assert dict(b.env) == {"FOO": "bar"} and dict(a.env) == {}


def test_full_file(tmp_path: Path) -> None:
    text = """
[tournament]
name = "cup"
seed = 42
output = "out/cup"
compress = true
[game]
structure = "fixed-limit"
small_blind = 10
big_blind = 20
ante = 2
cap = 3
starting_stack = 500
stack_mode = "freezeout"
replacements = "stock"
[schedule]
format = "gauntlet"
challengers = ["a"]
table_size = 3
hands = 50
duplicate = false
jobs = 3
[limits]
decision_ms = 200
time_bank_ms = 0
max_faults = 3
memory_mb = 512
""" + BOTS
    cfg = load_config(write(tmp_path, text))
    assert (cfg.tournament.name, cfg.tournament.seed, cfg.tournament.output) == ("cup", 42, Path("out/cup"))
    assert cfg.tournament.compress
    assert cfg.game.structure is Structure.FIXED_LIMIT and cfg.game.cap == 3 and cfg.game.ante == 2
    assert cfg.game.replacements is Replacements.STOCK
    assert cfg.starting_stack == 500 and cfg.stack_mode is StackMode.FREEZEOUT
    assert cfg.schedule.strategy() == Gauntlet(challengers=("a",), table_size=3)
    assert (cfg.schedule.hands, cfg.schedule.duplicate, cfg.schedule.jobs) == (50, False, 3)
    assert cfg.limits == Limits(decision_ms=200, time_bank_ms=0, max_faults=3, memory_mb=512)


@pytest.mark.parametrize(
    ("table_size", "duplicate", "expected"),
    [(2, True, Replacements.PER_SEAT), (4, True, Replacements.PER_SEAT), (5, True, Replacements.STOCK),
     (3, False, Replacements.STOCK)],
)
def test_auto_replacements(tmp_path: Path, table_size: int, duplicate: bool, expected: Replacements) -> None:
    bots = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "true"\n' for i in range(6))
    text = f"[schedule]\ntable_size = {table_size}\nduplicate = {str(duplicate).lower()}\n" + bots
    assert load_config(write(tmp_path, text)).game.replacements is expected


SIX = "".join(f'[[bots]]\nname = "b{i}"\ncommand = "true"\n' for i in range(6))


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[tournament]\nnmae = 'x'\n" + BOTS, "[tournament] nmae", "unknown key"),
        ("[scedule]\nhands = 3\n" + BOTS, "top level scedule", "unknown key"),
        ("[schedule]\nhands = '10'\n" + BOTS, "[schedule] hands", "integer"),
        ("[schedule]\nhands = 0\n" + BOTS, "[schedule] hands", ">= 1"),
        ("[schedule]\nduplicate = 1\n" + BOTS, "[schedule] duplicate", "true or false"),
        ("[schedule]\nhands = true\n" + BOTS, "[schedule] hands", "integer"),
        (
            "[schedule]\ntable_size = 7\n" + SIX + '[[bots]]\nname = "x"\ncommand = "true"\n',
            "[schedule] table_size",
            "R1.2",
        ),
        ("[schedule]\ntable_size = 1\n" + BOTS, "[schedule] table_size", "2 to 6"),
        ("[schedule]\ntable_size = 4\n" + BOTS, "[schedule] table_size", "larger than the number of bots (3)"),
        ("[schedule]\nformat = 'swiss'\n" + BOTS, "[schedule] format", '"round-robin", "gauntlet"'),
        ("[schedule]\nformat = 'gauntlet'\n" + BOTS, "[schedule] challengers", "challenger"),
        ("[schedule]\nformat = 'gauntlet'\nchallengers = ['z']\n" + BOTS, "[schedule] challengers", '"z" is not a bot'),
        ("[schedule]\nchallengers = ['a']\n" + BOTS, "[schedule] challengers", "gauntlet"),
        ("[game]\nstructure = 'pot-limit'\n" + BOTS, "[game] structure", '"no-limit", "fixed-limit"'),
        ("[game]\nsmall_blind = 4\nbig_blind = 10\n" + BOTS, "[game]", "R2.2"),
        ("[game]\nstarting_stack = 0\n" + BOTS, "[game] starting_stack", ">= 1"),
        ("[game]\nstack_mode = 'rebuy'\n" + BOTS, "[game] stack_mode", '"reset", "freezeout"'),
        ("[schedule]\ntable_size = 5\n[game]\nreplacements = 'per-seat'\n" + SIX, "[game] replacements", "at most 4"),
        ("[limits]\ndecision = 5\n" + BOTS, "[limits] decision", "unknown key"),
        ("[limits]\ndecision_ms = 0\n" + BOTS, "[limits] decision_ms", ">= 1"),
        ("[limits]\nmemory_mb = -1\n" + BOTS, "[limits] memory_mb", ">= 0"),
        ("[sandbox]\nmode = 'on'\n" + BOTS, "[sandbox] mode", '"auto", "required", "off"'),
        ("[sandbox]\ncpu = 'quota'\n" + BOTS, "[sandbox] cpu", '"weight", "freeze", "none"'),
        ("[sandbox]\nscratch_mb = 0\n" + BOTS, "[sandbox] scratch_mb", ">= 1"),
        ("[sandbox]\nuid_range = [5, 1]\n" + BOTS, "[sandbox] uid_range", "0 < first <= last"),
        ("[sandbox]\nuid_range = 60000\n" + BOTS, "[sandbox] uid_range", "[first, last]"),
        ("[sandbox]\npaths = ['no/such/model.bin']\n" + BOTS, "[sandbox] paths", "does not exist"),
        ("[sandbox]\nhidden = [3]\n" + BOTS, "[sandbox] hidden", "list of paths"),
        ("[sandbox]\nnetwork = true\n" + BOTS, "[sandbox] network", "unknown key"),
        ("[tournament]\nseed = 'xyz'\n" + BOTS, "[tournament] seed", "whole number"),
        ('[tournament]\nname = "<b>\\u202eevil"\n' + BOTS, "[tournament] name", "printable text"),
        ('[tournament]\nname = "a\\u001b[31mred"\n' + BOTS, "[tournament] name", "no control or BiDi"),
        ('[tournament]\nname = "one\\ntwo"\n' + BOTS, "[tournament] name", "one line"),
        ('[tournament]\nname = "' + "L" * 61 + '"\n' + BOTS, "[tournament] name", "at most 60 characters"),
        ("", "[[bots]]", "no bots"),
        ("bots = 3\n", "top level bots", "array"),
        (
            '[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "a"\ncommand = "y"\n',
            "bots[1].name",
            'duplicate bot name "a"',
        ),
        ('[[bots]]\nname = "a"\n', "bots[0].command", "missing"),
        ('[[bots]]\nname = "a"\ncommand = ""\n', "bots[0].command", "non-empty"),
        ('[[bots]]\nname = "a"\ncommand = [1]\n', "bots[0].command", "list of strings"),
        ('[[bots]]\ncommand = "true"\n', "bots[0].name", "missing"),
        ('[[bots]]\nname = "a b"\ncommand = "true"\n', "bots[0].name", "letters, digits"),
        ('[[bots]]\nname = "a"\ncommand = "true"\ncmd = "y"\n', "bots[0].cmd", "unknown key"),
        ('[[bots]]\nname = "a"\ncommand = "true"\ncwd = "nowhere"\n', "bots[0].cwd", "not a directory"),
        ('[[bots]]\nname = "a"\ncommand = "true"\nenv = { A = 1 }\n', "bots[0].env", "string values"),
    ],
)
def test_mistakes_name_file_key_and_expectation(tmp_path: Path, text: str, key: str, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    assert err.key == key
    assert str(path) in str(err)
    assert key in str(err)
    assert words in str(err)


def test_table_size_two_with_one_bot(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="larger than the number of bots") as info:
        load_config(write(tmp_path, '[[bots]]\nname = "a"\ncommand = "true"\n'))
    assert "at least two [[bots]]" in str(info.value) and "at most 1" not in str(info.value)


def test_bad_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[schedule\n"))
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")


def test_sandbox_table_and_its_override(tmp_path: Path) -> None:
    from harness.specs import CpuPolicy, SandboxMode

    (tmp_path / "tournaments" / "models").mkdir(parents=True)
    table = ("[sandbox]\nmode = 'required'\ncpu = 'freeze'\nscratch_mb = 16\n"
             "uid_range = [70000, 70099]\npaths = ['models']\nhidden = ['../secret']\n")
    cfg = load_config(write(tmp_path, table + BOTS))
    box = cfg.sandbox
    assert (box.mode, box.cpu, box.scratch_mb, box.uid_range) == (SandboxMode.REQUIRED, CpuPolicy.FREEZE, 16,
                                                                    (70000, 70099))
    assert box.paths == (str(tmp_path / "tournaments" / "models"),) and box.hidden == (str(tmp_path / "secret"),)
    assert with_overrides(cfg, sandbox="off").sandbox.mode is SandboxMode.OFF
    with pytest.raises(ConfigError, match="--sandbox"):
        with_overrides(cfg, sandbox="maybe")
    assert load_config(write(tmp_path, BOTS, "d.toml")).sandbox.mode is SandboxMode.AUTO


def test_overrides(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, BOTS))
    new = with_overrides(cfg, out=tmp_path / "o", jobs=2, hands=7, seed=9)
    assert (new.tournament.output, new.schedule.jobs, new.schedule.hands, new.tournament.seed) == (
        tmp_path / "o", 2, 7, 9)
    assert with_overrides(cfg) == cfg
    with pytest.raises(ConfigError, match="--hands"):
        with_overrides(cfg, hands=0)
    with pytest.raises(ConfigError, match="--jobs"):
        with_overrides(cfg, jobs=-1)


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["league.toml", "league4.toml", "faults.toml"])
def test_shipped_tournament_files_load(name: str) -> None:
    from harness.tournament.runner import schedule_for

    cfg = load_config(ROOT / "tournaments" / name)
    assert all(b.cwd == str(ROOT) for b in cfg.bots)
    for bot in cfg.bots:
        module = bot.command[2] if bot.command[1:2] == ("-m",) else None
        if module:  # a shipped bot, not a test fixture
            assert module.startswith("bots.") and (ROOT / (module.replace(".", "/") + ".py")).is_file()
    assert schedule_for(cfg)


def test_default_league_has_the_example_bots_and_10000_hands() -> None:
    from harness.tournament.runner import schedule_for

    cfg = load_config(ROOT / "tournaments" / "league.toml")
    assert {"random", "caller", "raiser", "solid"} <= set(cfg.bot_names)
    assert len(schedule_for(cfg)) * cfg.schedule.hands >= 10_000
    assert cfg.tournament.output == Path("results/league")


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("nosuchcommand_xyz", "'nosuchcommand_xyz' not found on PATH; install it or give its full path"),
        ("/nonexistent/bot", "'/nonexistent/bot' not found"),
        ("./notexec.sh", "not executable; run `chmod +x"),
    ],
)
def test_a_bot_command_that_cannot_start_is_a_load_error(tmp_path: Path, command: str, words: str) -> None:
    path = write(tmp_path, BOTS + f'[[bots]]\nname = "d"\ncommand = "{command}"\n')
    (path.parent / "notexec.sh").write_text("#!/bin/sh\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == "bots[3].command"
    assert str(path) in str(info.value) and "'d'" in str(info.value) and words in str(info.value)


def test_a_command_is_found_on_the_path_the_bot_gets(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "onlyhere").write_text("#!/bin/sh\n")
    (bindir / "onlyhere").chmod(0o755)
    text = BOTS + f'[[bots]]\nname = "d"\ncommand = "onlyhere"\nenv = {{ PATH = "{bindir}" }}\n'
    assert load_config(write(tmp_path, text)).bots[3].command == ("onlyhere",)


def test_file_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, BOTS)
    path.write_bytes(b"# caf\xe9 league\n" + BOTS.encode())
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0xe9 on line 1\).*save"):
        load_config(path)
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_config(path)


def test_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, BOTS)
    path.write_bytes(b"\xef\xbb\xbf[schedule]\nhands = 7\n" + BOTS.encode())
    assert load_config(path).schedule.hands == 7


def test_one_blind_given_sets_the_other(tmp_path: Path) -> None:
    game = load_config(write(tmp_path, "[game]\nbig_blind = 20\n" + BOTS)).game
    assert (game.small_blind, game.big_blind) == (10, 20)
    game = load_config(write(tmp_path, "[game]\nsmall_blind = 25\n" + BOTS)).game
    assert (game.small_blind, game.big_blind) == (25, 50)
    with pytest.raises(ConfigError, match="big_blind must be even"):
        load_config(write(tmp_path, "[game]\nbig_blind = 15\n" + BOTS))


def test_a_long_value_makes_a_short_error_line(tmp_path: Path) -> None:
    """A 10 kB value (a game's name, a tournament's) is shown by its start, its end and its length."""
    for text in (f'[game]\nname = "{"x" * 10_000}"\n', f'[tournament]\nname = "{"y" * 10_000}"\n'):
        with pytest.raises(ConfigError) as info:
            load_config(write(tmp_path, text + BOTS))
        assert len(str(info.value)) < 500 and "10,002 characters" in str(info.value), str(info.value)


def test_a_tournament_name_of_60_characters_any_script_is_taken(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, f'[tournament]\nname = "{"é" * 30}{"名" * 30}"\n' + BOTS)).tournament.name


def test_values_in_messages_are_written_as_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[schedule]\nhands = true\n" + BOTS))
    assert str(info.value).endswith("got true") and "True" not in str(info.value)
    with pytest.raises(ConfigError, match='got "8"'):
        load_config(write(tmp_path, "[schedule]\ntable_size = '8'\n" + BOTS))


def test_table_size_message_names_the_stock_only_for_large_tables(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, "[schedule]\ntable_size = 1\n" + BOTS))
    assert "R1.2: a table seats 2 to 6 players, got 1" in str(info.value) and "stock" not in str(info.value)
    with pytest.raises(ConfigError, match="got 7; with 7 or more the stock can run dry"):
        load_config(write(tmp_path, "[schedule]\ntable_size = 7\n" + BOTS))


@pytest.mark.parametrize(
    "game",
    ["starting_stack = 5", "big_blind = 2000", "ante = 5000", "blinds = false\nmin_bet = 20\nante = 990"],
)
def test_stack_that_cannot_cover_the_forced_bets_is_refused(tmp_path: Path, game: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, f"[game]\n{game}\n" + BOTS))
    assert info.value.key == "[game] starting_stack" and "all in before their first decision" in str(info.value)


def test_stack_of_exactly_the_forced_bets_is_allowed(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "[game]\nante = 5\nstarting_stack = 15\n" + BOTS))
    assert cfg.starting_stack == 15


def test_pin_is_read_checked_and_overridden(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "[schedule]\npin = false\n" + BOTS))
    assert cfg.schedule.pin is False
    assert with_overrides(cfg, pin=True).schedule.pin is True
    with pytest.raises(ConfigError, match="pin") as info:
        load_config(write(tmp_path, "[schedule]\npin = 1\n" + BOTS))
    assert "true or false" in str(info.value)


_SCALARS = st.one_of(st.text(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**63 - 1),
                     st.floats(allow_nan=False))


@given(st.text())
def test_any_text_written_as_toml_reads_back_the_same(text: str) -> None:
    """The one TOML writer: astral characters, control characters, quotes, backslashes, newlines, DEL."""
    assert tomllib.loads(f"k = {toml_value(text)}")["k"] == text


@given(st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12))
def test_any_value_written_as_toml_reads_back_the_same(value: object) -> None:
    assert tomllib.loads(f"k = {toml_value(value)}")["k"] == value


def test_the_toml_writer_covers_the_hard_cases() -> None:
    for text in ("python bot.py \U0001F600", 'a"b', "a\\b", "x\ny\r\tz", "\x00\x1f\x7f", "\u2028\ufeff"):
        assert tomllib.loads(f"k = {toml_value(text)}")["k"] == text
    with pytest.raises(ValueError, match="surrogate"):
        toml_value("\ud83d")
