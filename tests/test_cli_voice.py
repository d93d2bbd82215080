"""One voice at the CLI's boundary: every command's failure paths, run as the installed command would be,
say every stderr line as ``harness COMMAND: ...`` with the exit status of harness/cli/boundary.py's table;
a bug is a traceback and exit status 70, never a usage error; a run's lines go through the voice it is
handed, and nothing else of the library prints."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.cli.boundary import EXIT_BUG, EXIT_CODES, exit_code
from harness.errors import HarnessError
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play

ROOT = Path(__file__).resolve().parents[1]
BOT = ["--bot", "a=python -m bots.caller"]
MISSING_BOT = ["--bot", "a=/no/such/bot", "--bot", "b=python -m bots.caller"]
#: A path whose one name is longer than a file system's 255 bytes (ENAMETOOLONG).
TOO_LONG = "x" * 300

#: (argv, the exit statuses it may end with, the command its lines name). Usage mistakes, missing files,
#: a damaged TOML file and hand history, bad option values, a bot that cannot start: every command.
CASES: list[tuple[list[str], set[int], str]] = [
    (["nosuch"], {2}, ""),
    (["run"], {2}, "run"),
    (["run", "/no/such/file.toml"], {2}, "run"),
    (["run", "bad.toml"], {2}, "run"),
    (["run", "good.toml", "--sandbox", "maybe"], {2}, "run"),
    (["run", "good.toml", "--seed", "zz"], {2}, "run"),
    (["plan", "/no/such/file.toml"], {2}, "plan"),
    (["plan", "bad.toml"], {2}, "plan"),
    (["plan", "good.toml", "--jobs", "x"], {2}, "plan"),
    (["run", "longname.toml"], {2}, "run"),
    (["leaderboard", "/no/such/dir"], {2}, "leaderboard"),
    (["leaderboard", "empty"], {2}, "leaderboard"),
    (["report", "/no/such/dir"], {2}, "report"),
    (["report", "empty", "--viewer-hands", "-1"], {2}, "report"),
    (["report", TOO_LONG], {2}, "report"),
    (["match", "--foo"], {2}, "match"),
    (["match", *BOT], {2}, "match"),
    (["match", *MISSING_BOT], {2}, "match"),
    (["match", *BOT, "--bot", "b=python -m bots.caller", "--seed", "zz"], {2}, "match"),
    (["match", *BOT, "--bot", "b=python -m bots.caller", "--structure", "pot-limit"], {2}, "match"),
    (["match", *BOT, "--bot", "b=python -m bots.caller", "--sandbox", "maybe"], {2}, "match"),
    (["match", *BOT, "--bot", "b=python -m bots.caller", "--out", "garbage.jsonl"], {2}, "match"),
    (["match", *BOT, "--bot", "b=python -m bots.caller", "--out", TOO_LONG], {2}, "match"),
    (["replay"], {2}, "replay"),
    (["replay", "/no/such/file.jsonl"], {2}, "replay"),
    (["replay", "garbage.jsonl"], {2}, "replay"),
    (["replay", "empty"], {2}, "replay"),
    (["replay", TOO_LONG], {2}, "replay"),
    (["replay", "odd.jsonl", "--html", "odd.html"], {2}, "replay"),
    (["check-bot"], {2}, "check-bot"),
    (["check-bot", "--seed", "zz", "--", "python", "-m", "bots.caller"], {2}, "check-bot"),
    (["check-bot", "--structure", "pot-limit", "--", "python", "-m", "bots.caller"], {2}, "check-bot"),
    (["check-bot", "--opponent", "nosuchbot", "--", "python", "-m", "bots.caller"], {2}, "check-bot"),
    (["check-bot", "--", "/no/such/bot"], {2}, "check-bot"),
    (["play", *MISSING_BOT[:2]], {2}, "play"),
    (["play", *BOT, "--seat", "5"], {2}, "play"),
    (["play", *BOT, "--structure", "pot-limit"], {2}, "play"),
    (["watch", "/no/such/dir"], {2}, "watch"),
    (["watch", "empty"], {2}, "watch"),
    (["sprt", *BOT], {2}, "sprt"),
    (["sprt", *MISSING_BOT], {2}, "sprt"),
    (["sprt", *BOT, "--bot", "b=python -m bots.caller", "--alpha", "2"], {2}, "sprt"),
    (["sprt", *BOT, "--bot", "b=python -m bots.caller", "--structure", "pot-limit"], {2}, "sprt"),
    (["serve"], {2}, "serve"),
    (["serve", "/no/such/contest.toml"], {2}, "serve"),
    (["serve", "bad.toml"], {2}, "serve"),
    (["submit", "/no/such/bot", "--server", "http://127.0.0.1:9", "--token", "t"], {2}, "submit"),
    (["submit", "garbage.jsonl", "--server", "http://127.0.0.1:9", "--token", "t"], {2}, "submit"),
    (["bench", "nosuch"], {2}, "bench"),
    (["bench", "match", "--hands", "0"], {2}, "bench match"),
    (["bench", "env", "--seconds", "0"], {1, 2}, "bench env"),  # 1 without the rl extra
    (["bench", "env", "--game", "five-card-draw"], {1, 2}, "bench env"),
    (["bench", "env", "--game", "deuce-to-seven-triple-draw", "--anchors"], {1, 2}, "bench env"),
    (["bench", "engine", "--seed", "zz"], {2}, "bench engine"),
    (["bench", "engine", "--differential", "-1"], {2}, "bench engine"),
    (["bench", "match", "--acpc", "/no/such/dir"], {2}, "bench match"),
    (["bench", "league", "--hands", "0"], {2}, "bench league"),
    (["bench", "plan", "--foo"], {2}, "bench plan"),
    (["bench", "serve", "--clients", "0"], {2}, "bench serve"),
    (["lbr"], {2}, "lbr"),
    (["lbr", "--bot", "solid", "--seed", "zz"], {2}, "lbr"),
    (["lbr", "--bot", "solid", "--hands", "1"], {2}, "lbr"),
    (["lbr", "--bot", "solid", "--structure", "pot-limit"], {2}, "lbr"),
    (["lbr", "--bot", "nosuchmodule"], {1, 2}, "lbr"),  # 1 without the rl extra
]


def test_every_command_has_a_failure_case() -> None:
    """A new command gets its failure paths above: every command and bench command is named by a case."""
    import typer.main

    group: Any = typer.main.get_command(app)  # typer's own click: a group has .commands
    names = set()
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            names |= {name, *(f"{name} {sub}" for sub in command.commands)}
        else:
            names.add(name)
    assert names == {command for _, _, command in CASES if command}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a good and a damaged tournament file, one whose name makes a too long output path, a
    file that is no hand history, one whose record lacks most fields, an empty folder."""
    where = tmp_path_factory.mktemp("voice")
    (where / "good.toml").write_text('[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "b"\ncommand = "true"\n')
    (where / "bad.toml").write_text("[[bots]\nname = \n")
    (where / "longname.toml").write_text(f'[tournament]\nname = "{TOO_LONG}"\n' + (where / "good.toml").read_text())
    (where / "garbage.jsonl").write_text("this is not a hand history\n")
    (where / "odd.jsonl").write_text('{"format": "sevencard-hand-history", "record_version": 3, "hand_id": 0}\n')
    (where / "empty").mkdir()
    return where


@pytest.mark.slow
@pytest.mark.parametrize(("argv", "codes", "command"), CASES,
                         ids=[" ".join(a if len(a) <= 40 else f"{a[:12]}...({len(a)})" for a in c[0]) for c in CASES])
def test_every_stderr_line_of_a_failure_names_its_command(workspace: Path, argv: list[str], codes: set[int],
                                                          command: str) -> None:
    done = subprocess.run([sys.executable, "-m", "harness.cli", *argv], cwd=workspace, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=_env())
    prefix = f"harness {command}: " if command else "harness: "
    lines = done.stderr.splitlines()
    assert done.returncode in codes, (done.returncode, done.stderr)
    assert lines and all(line.startswith(prefix) for line in lines), done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_every_class_of_the_exit_status_table_is_a_harness_error() -> None:
    for name, code in EXIT_CODES.items():
        module, _, cls = name.rpartition(".")
        try:
            found = getattr(importlib.import_module(module), cls)
        except ImportError:  # an optional extra (the server's libraries)
            continue
        assert issubclass(found, HarnessError) and exit_code(found.__new__(found)) == code, name


def test_the_rule_of_the_table_bad_input_2_a_failed_operation_1() -> None:
    from harness.engine import GameConfigError
    from harness.match.outdir import StorageError
    from harness.tournament.cluster import ClusterError

    assert exit_code(GameConfigError("x")) == 2
    assert exit_code(ClusterError("x")) == 1
    assert exit_code(StorageError.__new__(StorageError)) == 4


@pytest.mark.parametrize("error", [ValueError("a bug's ValueError"), KeyError("a bug"), RuntimeError("a bug")])
def test_a_bug_is_a_traceback_and_exit_status_70_not_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, error: Exception) -> None:
    """An exception that is no HarnessError, out of the referee, is a bug, whatever its class."""
    import harness.match.referee

    def broken(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(harness.match.referee, "play_match", broken)
    result = CliRunner().invoke(app, ["match", *BOT, "--bot", "b=python -m bots.caller", "--sandbox", "off",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == EXIT_BUG, result.output
    assert "Traceback" in result.stderr and type(error).__name__ in result.stderr
    assert result.stderr.splitlines()[-1].startswith("harness match: internal error"), result.stderr


def test_a_harness_error_out_of_a_command_is_said_once_by_the_boundary(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import harness.match.referee
    from harness.specs import SettingsError

    def refused(*args: object, **kwargs: object) -> None:
        raise SettingsError("a setting the referee refuses")

    monkeypatch.setattr(harness.match.referee, "play_match", refused)
    result = CliRunner().invoke(app, ["match", *BOT, "--bot", "b=python -m bots.caller", "--sandbox", "off",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1] == "harness match: a setting the referee refuses", result.stderr


def test_a_path_too_long_for_the_file_system_is_one_line_and_a_usage_error(tmp_path: Path) -> None:
    """ENAMETOOLONG comes from a path the user gave: one line naming it, shortened, and exit status 2."""
    result = CliRunner().invoke(app, ["replay", str(tmp_path / ("y" * 10_000))])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("harness replay: ") and "file name too long" in line, line
    assert "10,0" in line and len(line) < 400, line
    assert "Traceback" not in result.output


def test_a_10_kb_value_in_an_error_is_cut_to_one_short_line() -> None:
    """``--game`` given 12 kB of markup: one line of at most MAX_LINE characters, its start and end kept."""
    from harness.cli.voice import MAX_LINE

    result = CliRunner().invoke(app, ["match", "--game", "<x>" * 4000, *BOT, "--bot", "b=python -m bots.caller"])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert len(line) <= MAX_LINE + 50 and "characters cut]" in line, line[:200]
    assert line.startswith("harness match: --game must be one of") and line.endswith("<x>'"), line[-100:]


def test_a_tournaments_match_folder_copied_out_is_named_as_such(tmp_path: Path) -> None:
    """A result.json that lacks a field of harness match's (the runner's, in matches/<id>) says so, not KeyError."""
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "hands.jsonl").write_text("")
    (folder / "result.json").write_text('{"match_id": "a+b-1", "bots": ["a", "b"], "net": [0, 0]}')
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert "not a result of harness match (no field " in line and "KeyError" not in line, line


class _Recorder:
    """A voice that keeps what it is told."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, text: str) -> None:
        self.lines.append(text)

    def warn(self, text: str, *, alert: bool = False) -> None:
        self.lines.append(f"warn: {text}")

    def notice(self, text: str) -> None:
        self.lines.append(f"notice: {text}")


def test_a_run_speaks_only_through_the_voice_it_is_handed(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    voice = _Recorder()
    summary = run_tournament(fake_config(tmp_path / "out", ["a", "b", "c"], hands=3), play=fake_play,
                             progress=False, voice=voice)
    assert summary.complete
    assert any(line.startswith("plan: 3 bots") for line in voice.lines), voice.lines
    assert any(line.startswith("estimate: ") for line in voice.lines), voice.lines
    assert any(line.startswith("[1/") for line in voice.lines), voice.lines  # the progress lines too
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""


@pytest.mark.slow
def test_structure_is_offered_by_match_and_play_as_by_the_others(tmp_path: Path) -> None:
    import json

    for command in ("match", "play", "sprt", "check-bot"):
        result = CliRunner().invoke(app, [command, "-h"])
        assert "--structure" in result.output, (command, result.output)
    out = tmp_path / "fl"
    done = subprocess.run([sys.executable, "-m", "harness.cli", "match", *BOT, "--bot", "b=python -m bots.caller",
                           "--structure", "fixed-limit", "--hands", "2", "--sandbox", "off", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    first = json.loads((out / "hands.jsonl").read_text().splitlines()[0])
    assert first["game"]["structure"] == "fixed-limit"


@pytest.mark.slow
def test_seed_means_the_same_everywhere_check_bot_keeps_its_default_of_1(tmp_path: Path) -> None:
    """check-bot takes --seed as the others do (decimal or hex) and deals the same cards from 1 and 0x1."""
    hands = []
    for seed in ("1", "0x1", None):
        out = tmp_path / f"check-{seed}"
        argv = ["check-bot", "--hands", "2", "--sandbox", "off", "--out", str(out)]
        argv += [] if seed is None else ["--seed", seed]
        done = subprocess.run([sys.executable, "-m", "harness.cli", *argv, "--", "python", "-m", "bots.caller"],
                              cwd=ROOT, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        history = next(out.rglob("hands.jsonl"))
        hands.append([line.split('"seed":')[1].split(",")[0] for line in history.read_text().splitlines()])
    assert hands[0] == hands[1] == hands[2]


def test_seed_of_bench_engine_and_lbr_is_read_as_everywhere() -> None:
    """``--seed`` is declared once with the default 1 for check-bot, lbr and bench engine: hex is read too."""
    import json

    for command in (["check-bot"], ["lbr"], ["bench", "engine"]):
        assert "[default: 1]" in CliRunner().invoke(app, [*command, "-h"]).output, command
    result = CliRunner().invoke(app, ["bench", "engine", "--differential", "3", "--seed", "0x1", "--json"])
    if result.exit_code == 1 and "native core" in result.stderr:
        pytest.skip("the native core is not built: bench engine --differential needs it")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seed"] == 1
