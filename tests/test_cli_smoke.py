"""The CLI: commands listed, -h and --version, one message style, one-line usage errors,
a quiet end on a closed pipe, replay of a match's directory, one output for the bench commands."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import harness.cli as cli
from harness.cli import app
from harness.history.v1 import build_record

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_commands() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("run", "leaderboard", "match", "replay", "check-bot", "bench"):
        assert name in result.output


@pytest.mark.parametrize("argv", [["-h"], ["match", "-h"], ["replay", "-h"], ["bench", "-h"], ["bench", "match", "-h"]])
def test_dash_h_is_help(argv: list[str]) -> None:
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0 and result.output.startswith("Usage: harness"), result.output


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"harness \S+ \(bot protocol version 1\)\n", result.output), result.output


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["match", "--foo"], "harness match: no such option: --foo"),
        (["match"], "harness match: missing option '--bot'"),
        (["match", "--bot", "a=b", "--hands", "x"], "harness match: invalid value for '--hands'"),
        (["replay"], "harness replay: missing argument"),
        (["replay", "x.jsonl", "-x"], "harness replay: no such option: -x"),
        (["nosuch"], "harness: no such command 'nosuch'"),
        (["bench", "nosuch"], "harness bench: no such command 'nosuch'"),
        (["leaderboard", "/no/such/dir"], "harness leaderboard: "),
        (["run", "/no/such/file.toml"], "harness run: "),
        (["replay", "/no/such/file.jsonl"], "harness replay: "),
        (["check-bot"], "harness check-bot: give the bot's command after --"),
    ],
)
def test_errors_are_one_line_in_one_style(argv: list[str], start: str) -> None:
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(start), result.stderr
    assert "Traceback" not in result.output


def test_stderr_is_written_only_through_the_one_style() -> None:
    """Every message on stderr goes through harness.cli.voice.say (``harness COMMAND: ...``)."""
    writers = []
    for path in sorted(Path(cli.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        writers += [
            f"{path.stem}.{node.name}" for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            and any(isinstance(k, ast.keyword) and k.arg == "err" for k in ast.walk(node) if isinstance(k, ast.keyword))
        ]
    assert writers == ["voice.say"]


def _history(path: Path, hands: int) -> None:
    from harness.engine import GameConfig, HandState
    from harness.history.files import HistoryWriter

    with HistoryWriter(path) as writer:
        for h in range(hands):
            state = HandState.start(GameConfig(), [1000, 1000], h % 2, h, h)
            while not state.is_complete:
                state.apply(state.default_action())
            writer.write(build_record(state))


def test_replay_piped_into_head_ends_quietly(tmp_path: Path) -> None:
    _history(tmp_path / "hands.jsonl", 3000)
    shell = f"{sys.executable} -m harness.cli replay {tmp_path / 'hands.jsonl'} -v | head -1"
    done = subprocess.run(["sh", "-c", shell], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout == "hand 0: OK\n"
    assert done.stderr == "", done.stderr  # no "Broken pipe", no traceback


def test_replay_takes_a_match_directory(tmp_path: Path) -> None:
    _history(tmp_path / "hands.jsonl", 3)
    result = CliRunner().invoke(app, ["replay", str(tmp_path)])
    assert result.exit_code == 0 and result.output == "3 of 3 hands replay identically\n"


@pytest.mark.parametrize(
    ("command", "module", "function"),
    [("engine", "harness.bench.engine", "run"), ("match", "harness.bench.match", "run"),
     ("league", "harness.bench.league", "bench_league")],
)
def test_bench_commands_print_one_format(
    monkeypatch: pytest.MonkeyPatch, command: str, module: str, function: str
) -> None:
    import importlib
    import json

    figures = {"hands_per_s_heads_up": 1234.5, "overhead_ratio": 1.21, "placement": "pinned"}
    monkeypatch.setattr(importlib.import_module(module), function, lambda **_: dict(figures))
    table = CliRunner().invoke(app, ["bench", command])
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert lines[0].split() == ["figure", "value", "target"]
    assert "overhead_ratio" in table.output and "<= 1.3 on an idle machine" in table.output
    as_json = CliRunner().invoke(app, ["bench", command, "--json"])
    assert json.loads(as_json.output) == figures


def test_bench_tables_keep_the_values_as_written() -> None:
    """A column of large counts and small ratios stays as written (tabulate would print 5.56034e+06)."""
    from harness.bench import render

    table = render({"native_evals_per_s": 5_560_340, "native_over_python_heads_up": 13.4}, {})
    assert "5,560,340" in table and "13.4" in table and "e+06" not in table
