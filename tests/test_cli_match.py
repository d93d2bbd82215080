"""``harness match``: usage errors exit 2 before anything starts; results land in an announced directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.match.botproc import find_marked

REPO = Path(__file__).resolve().parent.parent
CALLERS = ["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller"]

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run every command in an empty directory (the default output goes to ./results/)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the broken-bot fixtures live in tests/
    return tmp_path


def match(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["match", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert find_marked(owner_pid=os.getpid()) == [], "harness match left a bot process behind"
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--hands", "0"], "--hands must be at least 1, got 0"),
        (["--hands", "-3"], "--hands must be at least 1, got -3"),
        (["--max-faults", "-1"], "--max-faults must be at least 1, got -1"),
        (["--decision-ms", "0"], "--decision-ms must be at least 1, got 0"),
        (["--time-bank-ms", "-5"], "--time-bank-ms must be at least 0, got -5"),
        (["--stack", "0"], "--stack must be at least 1, got 0"),
        (["--pin", "100000"], "--pin 100000: no such CPU available here; use one of "),
        (["--pin", "-1"], "--pin -1: no such CPU"),
        (["--bot", "c/d=python -m bots.caller"], "--bot 'c/d': a name is 1-32 letters"),
        (["--bot", "a=python -m bots.raiser"], "--bot 'a' is given twice"),
        (["--bot", "c"], "--bot 'c' must be NAME=COMMAND"),
        (["--bot", "c=nosuchcmd_xyz --fast"], "bot 'c': command 'nosuchcmd_xyz' not found on PATH"),
        (["--bot", "c=/nonexistent/bot"], "bot 'c': command '/nonexistent/bot' not found"),
        (
            ["--bot", "c=x", "--bot", "d=x", "--bot", "e=x", "--bot", "f=x", "--bot", "g=x"],
            "a match needs 2 to 6 bots (R1.2), got 7",
        ),
    ],
)
def test_usage_errors_exit_2_before_anything_is_written(in_tmp: Path, args: list[str], words: str) -> None:
    code, out, err = match(*CALLERS, *args)
    assert code == 2, (out, err)
    assert err.startswith(f"harness match: {words}"), err
    assert len(err.splitlines()) == 1 and out == ""
    assert list(in_tmp.iterdir()) == [], "a usage error created files"


def test_one_bot_is_a_usage_error(in_tmp: Path) -> None:
    code, _, err = match("--bot", "a=python -m bots.caller")
    assert code == 2 and "2 to 6 bots (R1.2), got 1" in err


@pytest.mark.parametrize("under", [False, True], ids=["file", "under-a-file"])
def test_out_that_is_a_file_is_a_usage_error(in_tmp: Path, under: bool) -> None:
    (in_tmp / "base.toml").write_text("x = 1\n")
    target = "base.toml/sub" if under else "base.toml"
    code, out, err = match(*CALLERS, "--out", target)
    assert code == 2, (out, err)
    assert err.startswith(f"harness match: --out {target}: ") and "Traceback" not in err
    assert ("base.toml is a file" if under else "this is a file, not a directory") in err


def test_out_holding_a_hand_history_is_refused(in_tmp: Path) -> None:
    (in_tmp / "old").mkdir()
    (in_tmp / "old" / "hands.jsonl").write_text('{"hand_id": 0}\n')
    code, _, err = match(*CALLERS, "--out", "old")
    assert code == 2 and "already holds a hand history" in err
    assert (in_tmp / "old" / "hands.jsonl").read_text() == '{"hand_id": 0}\n'


def test_default_output_is_an_announced_directory_under_results(in_tmp: Path) -> None:
    code, out, err = match(*CALLERS, "--hands", "2")
    assert code == 0, (out, err)
    (made,) = (in_tmp / "results").iterdir()
    assert made.name.startswith("match-") and (made / "hands.jsonl").is_file()
    assert f"hand history and logs go to results/{made.name}/" in err
    assert f"hand history: results/{made.name}/hands.jsonl" in out
    assert "2 hands in" in out


def test_a_bot_that_fails_to_start_makes_the_match_fail(in_tmp: Path) -> None:
    bad = "b=python -m tests.fixtures.broken_bots.exit_at_start"
    code, out, err = match("--bot", "a=python -m bots.caller", "--bot", bad, "--hands", "2", "--out", "m")
    assert code == 1, (out, err)
    assert "harness match: bot 'b' failed to start: " in err
    assert "m/logs/1-b.err" in err and "a" in out  # the table is still printed
