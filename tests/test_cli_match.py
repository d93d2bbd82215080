"""``harness match``: usage errors exit 2 before anything starts; results land in an announced directory."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.host.botproc import find_marked

REPO = Path(__file__).resolve().parent.parent
CALLERS = ["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller"]



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
    # a failed start names its cause when the bot's stderr tells (here: a jar its wrapper cannot open)
    (in_tmp / "wrapper.sh").write_text("#!/bin/sh\nexec java -jar /nowhere/javabot.jar\n")
    (in_tmp / "wrapper.sh").chmod(0o755)
    in_tmp.chmod(0o755)
    code, out, err = match("--bot", "j=./wrapper.sh", "--bot", "a=python -m bots.caller", "--hands", "1")
    assert code == 1, (out, err)
    if shutil.which("java") is not None:  # else the shell's "java: not found" is the cause
        assert "; the cause: the jar /nowhere/javabot.jar cannot be opened (paths are relative to" in err, err


def bot_folder(root: Path) -> Path:
    """A bot run by a wrapper from its own folder (``./run.sh`` runs a file beside it), as a Java bot is."""
    root.chmod(0o755)  # readable by the sandbox's bot uids (as root)
    folder = root / "javabot"
    folder.mkdir(mode=0o755)
    (folder / "impl.py").write_text("from bots.caller import Caller\nraise SystemExit(Caller().run())\n")
    run = folder / "run.sh"
    run.write_text(f"#!/bin/sh\nexec {sys.executable} impl.py\n")
    run.chmod(0o755)
    return folder


@pytest.mark.parametrize("form", ["--cwd", "@DIR"])
def test_a_bot_runs_from_its_folder_with_cwd_or_at_dir(in_tmp: Path, form: str) -> None:
    bot_folder(in_tmp)
    caller = "c=python -m bots.caller"
    args = ["--cwd", "javabot", "--bot", "j=./run.sh"] if form == "--cwd" else ["--bot", "j@javabot=./run.sh"]
    code, out, err = match(*args, "--bot", caller, "--hands", "2", "--out", "m")
    assert code == 0, (out, err)
    assert "failed" not in err and "j " in out


def test_without_its_folder_the_wrapper_is_not_found(in_tmp: Path) -> None:
    bot_folder(in_tmp)
    code, _out, err = match("--bot", "j=./run.sh", "--bot", "c=python -m bots.caller", "--hands", "2")
    assert code == 2 and "bot 'j': command './run.sh' not found" in err, err
    code, _out, err = match("--cwd", "nowhere", *CALLERS)
    assert code == 2 and err.startswith("harness match: --cwd: nowhere is not a directory"), err
    code, _out, err = match("--bot", "j@nowhere=./run.sh", "--bot", "c=python -m bots.caller")
    assert code == 2 and err.startswith("harness match: --bot j@nowhere: nowhere is not a directory"), err


def test_a_bot_that_raises_in_every_decision_or_is_put_out_fails_the_match(in_tmp: Path) -> None:
    (in_tmp / "always.py").write_text(
        "from protocol.sdk import Bot\n\nclass Always(Bot):\n    def act(self, state):\n        raise KeyError('x')\n"
        "\n    def draw(self, state):\n        raise KeyError('y')\n\nraise SystemExit(Always().run())\n")
    in_tmp.chmod(0o755)
    code, out, err = match("--bot", "r=python always.py", "--bot", "c=python -m bots.caller", "--hands", "3",
                           "--out", "m", "--cwd", str(in_tmp))
    assert code == 1, (out, err)
    assert "harness match: bot 'r' raised an error in every one of its " in err
    assert "traceback" in err and "(Python)" in err
    code, out, err = match("--bot", f"b@{REPO}=python -m tests.fixtures.broken_bots.illegal_action", "--bot",
                           "c=python -m bots.caller", "--hands", "3", "--max-faults", "1", "--out", "p")
    assert code == 1, (out, err)
    assert "harness match: bot 'b' was put out: " in err


def test_a_bot_that_raises_sometimes_is_named_but_the_match_passes(in_tmp: Path) -> None:
    code, out, err = match("--bot", f"s@{REPO}=python -m tests.fixtures.broken_bots.raises_sometimes", "--bot",
                           "c=python -m bots.caller", "--hands", "40", "--out", "m")
    assert code == 0, (out, err)
    assert re.search(r"harness match: bot 's': \d+ tracebacks? \(Python\) on its stderr in \d+ decision", err), err


def test_harness_report_accepts_a_match_folder(in_tmp: Path) -> None:
    code, out, err = match(*CALLERS, "--hands", "3", "--out", "m")
    assert code == 0, (out, err)
    result = CliRunner().invoke(app, ["report", "m"])
    assert result.exit_code == 0, result.output
    assert (in_tmp / "m" / "report" / "index.html").is_file()
    page = (in_tmp / "m" / "reports" / "a.md").read_text()
    assert "Matches played: 1; hands played: 3" in page and "No hand history recorded" not in page
    (in_tmp / "m" / "result.json").unlink()
    result = CliRunner().invoke(app, ["report", "m"])
    assert result.exit_code == 2 and "result.json: missing" in result.stderr


@pytest.mark.slow
def test_a_match_stopped_by_ctrl_c_keeps_its_result_and_seed_for_report_and_replay(in_tmp: Path) -> None:
    import json
    import signal
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "match", *CALLERS, "--hands", "100000", "--out", "m",
                             "--sandbox", "off"], cwd=in_tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    history = in_tmp / "m" / "hands.jsonl"
    try:
        end = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < end:  # three hands recorded: the match is under way
            if history.is_file() and history.read_text().count("\n") >= 3:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert find_marked(owner_pid=proc.pid) == []
    played = history.read_text().count("\n")
    result = json.loads((in_tmp / "m" / "result.json").read_text())
    assert result["interrupted"] is True and result["hands_played"] == played >= 3, result
    seed = re.search(r"^seed: ([0-9a-f]+) ", out, re.M)
    assert seed is not None, out
    report = CliRunner().invoke(app, ["report", "m"])
    assert report.exit_code == 0, report.output
    assert f"hands played: {played}" in (in_tmp / "m" / "reports" / "a.md").read_text()
    replay = CliRunner().invoke(app, ["replay", str(history), "--seed", seed.group(1)])
    assert replay.exit_code == 0, replay.output
