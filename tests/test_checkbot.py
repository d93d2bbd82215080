"""``harness check-bot``: good bots pass, each broken bot fails with the right words."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.host.botproc import find_marked

REPO = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("harness.match.referee") is None,
        reason="needs harness.match.referee.play_match (not landed yet)",
    ),
]

# Short limits (no time bank) keep the broken bots' runs fast, yet no bot is late only because the machine is
# loaded (300 ms were not enough at load 40: a garbage reply could come after the deadline and be judged a
# timeout); good bots get the real decision time and the tournaments' time bank (check-bot's default).
FAST = ["--hands", "3", "--decision-ms", "1000", "--time-bank-ms", "0", "--startup-ms", "8000", "--cwd", str(REPO)]
REAL = ["--hands", "3", "--startup-ms", "30000", "--cwd", str(REPO)]


def check(*command: str, options: list[str] = FAST) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["check-bot", *options, "--", *command])
    assert find_marked(owner_pid=os.getpid()) == [], "check-bot left a bot process behind"
    return result.exit_code, result.output


def broken(name: str, *args: str) -> tuple[str, ...]:
    return ("python", "-m", f"tests.fixtures.broken_bots.{name}", *args)


@pytest.mark.parametrize("bot", ["caller", "raiser", "random_bot", "solid"])
def test_example_bots_pass(bot: str) -> None:
    code, out = check("python", "-m", f"bots.{bot}", options=REAL)
    assert code == 0, out
    assert "OK: no protocol violation" in out
    assert "3 hands of no-limit 5/10 against caller, raiser" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (broken("garbage"), "bad message (malformed)"),
        (broken("bad_amount", "float"), "bad message (malformed)"),
        (broken("illegal_action"), "illegal action or message (illegal)"),
        (broken("late_reply"), "slow reply (timeout)"),
        (broken("oversized"), "message too large (oversized)"),
        (broken("reconnect"), "connection dropped (disconnected)"),
        (broken("wrong_seq"), "pending request is seq 1: echo the request's seq"),
        (broken("crash_mid_hand", "first"), "crashed (crash)"),
        (broken("never_connects"), "failed to start (failed_start)"),
        (broken("exit_at_start"), "(failed_start)"),
    ],
    ids=lambda v: "-".join(v[3:]) if isinstance(v, tuple) else None,
)
def test_broken_bots_fail_with_the_right_message(argv: tuple[str, ...], words: str) -> None:
    code, out = check(*argv)
    assert code == 1, out
    assert "FAIL:" in out and "Violations:" in out
    assert words in out, out
    assert "How to fix:" in out


def test_per_hand_details_are_reported() -> None:
    code, out = check(*broken("illegal_action"))
    assert code == 1
    assert "hand 0" in out  # the first hand already has an illegal reply


def test_a_wrong_secret_is_named() -> None:
    code, out = check(*broken("wrong_secret"))
    assert code == 1
    assert "failed to start (failed_start)" in out
    assert "ignored a hello with a wrong secret" in out


def test_a_crash_shows_the_bots_stderr() -> None:
    code, out = check(*broken("exit_at_start"))
    assert code == 1
    assert "exit_at_start: giving up at once" in out


def test_no_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["check-bot"])
    assert result.exit_code == 2
    assert "give the bot's command after --" in result.output


def test_a_command_that_does_not_exist_is_a_usage_error() -> None:
    code, out = check("no-such-bot-binary-xyz")
    assert code == 2
    assert "not found" in out
    assert "Traceback" not in out


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs node and npm on PATH")
def test_the_node_bot_passes(node_bot: Path) -> None:  # noqa: F811  (pytest fixture, imported above)
    options = ["--hands", "3", "--startup-ms", "8000", "--cwd", str(node_bot.parent)]
    code, out = check("node", node_bot.name, options=options)
    assert code == 0, out
    assert "OK: no protocol violation" in out


def test_an_unknown_opponent_is_a_usage_error() -> None:
    code, out = check("python", "-m", "bots.caller", options=[*FAST, "--opponent", "nosuchbot"])
    assert code == 2
    assert "no such reference bot" in out


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--startup-ms", "0"], "--startup-ms must be at least 1, got 0"),
        (["--decision-ms", "-5"], "--decision-ms must be at least 1, got -5"),
        (["--hands", "0"], "--hands must be at least 1, got 0"),
        (["--out", "{tmp}/base.toml"], "--out {tmp}/base.toml: this is a file, not a directory"),
        (["--out", "{tmp}/base.toml/sub"], "{tmp}/base.toml is a file"),
        (["--out", "{tmp}/old"], "--out {tmp}/old: already holds a hand history"),
    ],
)
def test_bad_options_are_usage_errors_without_a_traceback(tmp_path: Path, options: list[str], words: str) -> None:
    (tmp_path / "base.toml").write_text("x = 1\n")
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "hands.jsonl").write_text("{}\n")
    options = [o.format(tmp=tmp_path) for o in options]
    result = CliRunner().invoke(app, ["check-bot", *FAST, *options, "--", "python", "-m", "bots.caller"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("harness check-bot: ") and words.format(tmp=tmp_path) in result.stderr
    assert result.stdout == "" and "Traceback" not in result.output
    assert (tmp_path / "old" / "hands.jsonl").read_text() == "{}\n"


@pytest.mark.parametrize("stderr", ["", "Traceback ...\nRuntimeError: boom"])
def test_the_crash_hint_points_at_stderr_only_when_some_follows(stderr: str) -> None:
    from harness.match.checkbot import CheckReport, Violation
    from harness.specs import FaultKind, Limits

    report = CheckReport(
        command=("python", "bot.py"), opponents=("caller",), hands=1, decisions=1,
        violations=(Violation(FaultKind.CRASH, 0, "exit status 1"),), status="crash: exit status 1",
        slowest_ms=1.0, net=0, limits=Limits(), stderr_tail=stderr, counts={FaultKind.CRASH: 1},
    )
    text = report.render()
    assert ("see the bot's stderr below" in text) == bool(stderr)
    assert ("Last lines of the bot's stderr:" in text) == bool(stderr)
    if not stderr:
        assert "the bot wrote nothing to stderr" in text


def test_every_fault_kind_has_words_and_a_hint() -> None:
    from harness.match.checkbot import KIND_HINTS, KIND_WORDS
    from harness.specs import FaultKind

    assert set(KIND_WORDS) == set(KIND_HINTS) == set(FaultKind)


def test_tracebacks_in_the_bots_stderr_fail_the_check() -> None:
    """The SDK hides act()'s exceptions (default action); check-bot must not."""
    code, out = check(*broken("raises_sometimes"), options=["--hands", "60", "--cwd", str(REPO)])
    assert code == 1, out
    assert "Violations:" not in out  # no protocol fault at all
    assert "Tracebacks in the bot's stderr: 3 tracebacks (Python)." in out
    assert "  | Traceback (most recent call last):" in out and "KeyError: 'bet1'" in out
    assert "FAIL: 3 problem(s)" in out


def test_find_tracebacks_counts_each_error_once() -> None:
    from harness.host.tracebacks import find_tracebacks

    python = "Traceback (most recent call last):\n  File \"b.py\", line 3, in act\n    1 // 0\nZeroDivisionError: x"
    chained = (
        f"{python}\n\nDuring handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n  File \"b.py\", line 5, in act\nValueError: y"
    )
    node = "TypeError: s.cards is not a function\n    at act (/b/bot.js:12:9)\n    at Socket.<anonymous> (/b/x.js:4:5)"
    text = "\n".join(["[bot] act() failed; sending the default action:", python, "noise", chained, node,
                      "panic: runtime error: index out of range", "goroutine 1 [running]:", "ok"])
    found = find_tracebacks(text)
    assert len(found) == 4
    assert found[0] == python
    assert found[1].endswith("ValueError: y") and "ZeroDivisionError" in found[1]
    assert found[2] == node
    assert found[3] == "panic: runtime error: index out of range\ngoroutine 1 [running]:"
    assert find_tracebacks("all good\nno errors here") == []


def test_env_game_options_and_any_opponent_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """--env, the game options, --opponent NAME=COMMAND."""
    needs_env = ["python", "-c", "import os, sys, runpy; os.environ['CHECK_ME'] == 'yes' or sys.exit("
                 "'CHECK_ME is not set'); sys.argv = ['caller']; runpy.run_module('bots.caller', run_name='__main__')"]
    monkeypatch.setenv("CHECK_ME", "yes")  # set in the shell, but not passed to the bot
    code, out = check(*needs_env)
    assert code == 1 and "CHECK_ME is not set" in out
    assert "were not passed (" in out and "CHECK_ME" in out and "--env NAME=VALUE" in out
    options = [*REAL, "--env", "CHECK_ME=yes", "--structure", "fixed-limit", "--ante", "2",
               "--opponent", "solid2=python -m bots.solid", "--opponent", "caller"]
    code, out = check(*needs_env, options=options)
    assert code == 0, out
    assert "3 hands of fixed-limit 5/10 ante 2 cap 4 against solid2, caller" in out
    code, out = check("python", "-m", "bots.caller", options=[*REAL, "--ante", "5", "--min-bet", "10"])
    assert code == 0, out
    assert "of no-limit ante-only 5, min bet 10 against" in out


@pytest.mark.parametrize(
    ("content", "mode", "words", "not_words"),
    [
        (b"\x7fELF\x02\x01\x01" + bytes(200), 0o644, "is not executable; run `chmod +x", "python"),
        (b"print('hello')\n", 0o755, "has no `#!` line and is not a compiled program", ""),
        (b"console.log(1)\n", 0o644, "start it as `node ./bot.js`", ""),
    ],
    ids=["binary-without-x", "script-without-shebang", "js-without-x"],
)
def test_start_problems_get_the_right_hint(
    tmp_path: Path, content: bytes, mode: int, words: str, not_words: str
) -> None:
    name = "bot.js" if b"console" in content else "bot"
    path = tmp_path / name
    path.write_bytes(content)
    path.chmod(mode)
    code, out = check(f"./{name}", options=["--cwd", str(tmp_path)])
    assert code == 2, out
    assert words in out, out
    if not_words:
        assert not_words not in out


def test_a_req_socket_gets_the_dealer_hint() -> None:
    """A REQ socket's hello (an empty delimiter frame first) names the fix."""
    req_bot = ["python", "-c", "import os, time, zmq, msgpack; s = zmq.Context().socket(zmq.REQ); "
               "s.connect(os.environ['HARNESS_ENDPOINT']); s.send(msgpack.packb({'type': 'hello', 'v': 1, "
               "'secret': os.environ['HARNESS_SECRET'], 'name': 'req'})); time.sleep(5)"]
    code, out = check(*req_bot, options=["--hands", "1", "--startup-ms", "1500", "--cwd", str(REPO)])
    assert code == 1, out
    assert "failed to start (failed_start)" in out
    assert "as a REQ socket sends: connect a DEALER" in out, out


# A start-up limit no check could wait for under this module's timeout: a failed start found by it would fail.
NO_WAIT = ["--hands", "3", "--startup-ms", "300000", "--cwd", str(REPO)]


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("hello-array", "got an array of 4 items (msgpack array; pack every message as a map keyed by field name"),
        ("hello-bin", "got binary"),
        ("hello-float", "v: must be an integer, got a float 1.0 (msgpack float; send whole numbers"),
    ],
)
def test_a_hello_in_the_wrong_encoding_fails_at_once_naming_the_fix(mode: str, words: str) -> None:
    code, out = check(*broken("wrong_encoding", mode), options=NO_WAIT)
    assert code == 1, out
    assert "failed to start (failed_start)" in out and "sent a hello the referee cannot read" in out, out
    assert words in out, out
    assert "failed_start: the encoding: " in out, out  # the fix, not the generic hint
    assert "startup_ms" not in out.split("How to fix:")[1], out  # never "raise the start-up limit"
    assert "environment: the bot gets only" not in out, out  # the shell's variables are not the cause


def test_replies_in_the_wrong_encoding_are_named_with_the_fix() -> None:
    code, out = check(*broken("wrong_encoding", "reply-array"))
    assert code == 1, out
    assert "bad message (malformed)" in out and "got an array of 5 items (msgpack array;" in out, out
    assert "malformed: the encoding: pack every message as a map keyed by field name" in out, out
    code, out = check(*broken("bad_amount", "float"))
    assert code == 1 and "malformed: the encoding: send whole numbers as msgpack integers" in out, out


def test_a_bot_that_does_not_exit_after_match_end_fails() -> None:
    code, out = check(*broken("wrong_encoding", "linger"))
    assert code == 1, out
    assert "after match_end: did not exit within the exit grace (1000 ms)" in out, out
    assert "exit: after match_end close the socket and exit with status 0" in out, out
    assert "FAIL: 1 problem(s)" in out, out


def test_the_environment_hint_only_where_it_can_be_the_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHECK_ME", "yes")  # a variable of this shell the bot does not get
    code, out = check(*broken("illegal_action"))
    assert code == 1 and "were not passed (" not in out, out  # an illegal action: not the environment
    code, out = check(*broken("exit_at_start"))
    assert code == 1 and "were not passed (" not in out, out  # its stderr says why: not the environment


def test_the_default_time_bank_is_the_tournaments() -> None:
    from harness.specs import Limits
    from harness.tournament.config import parse_config

    cfg = parse_config({"bots": [{"name": "a", "command": "python -m bots.caller"},
                                 {"name": "b", "command": "python -m bots.caller"}]}, REPO / "t.toml")
    assert cfg.limits.time_bank_ms == Limits().time_bank_ms > 0
    code, out = check("python", "-m", "bots.caller", options=REAL)
    assert code == 0, out
    assert f"(time bank {cfg.limits.time_bank_ms} ms)" in out, out
