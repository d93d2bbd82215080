"""The wire trace (harness.match.trace): every message to and from every seat of a real match, in order,
and a hostile bot's bytes written escaped; bounded, and never the reason a match stops."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import GameConfig
from harness.host.botproc import find_marked
from harness.match.referee import play_match
from harness.match.trace import MAX_LINE_CHARS, MAX_STRING_CHARS, WireTrace
from harness.specs import BotSpec, MatchSpec
from tests.fault_helpers import GOOD, LIMITS, REPO, assert_nothing_left, history

RAISER = BotSpec("raiser", (sys.executable, "-m", "bots.raiser"), cwd=str(REPO))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="ascii").splitlines()]


@pytest.mark.slow
def test_a_traced_match_has_every_request_and_reply_of_both_seats_in_order(tmp_path: Path) -> None:
    spec = MatchSpec(game=GameConfig(), hands=5, seed=11, match_id="traced")
    with WireTrace.open(tmp_path / "trace.jsonl") as trace:
        result = play_match([GOOD, RAISER], spec, LIMITS, tmp_path / "m", trace=trace)
    assert_nothing_left()
    assert trace.error is None and result.hands_played == 5
    text = (tmp_path / "trace.jsonl").read_bytes()
    assert all(b == 0x0A or 0x20 <= b < 0x7F for b in text), "a trace is printable ASCII"
    assert not re.search(rb"[0-9a-f]{32}", text), "no seat's secret is written"
    lines = _lines(tmp_path / "trace.jsonl")
    times = [r["t_ms"] for r in lines]
    assert times == sorted(times), "one line per message, in the order sent or read"
    records = history(tmp_path / "m")
    for seat, name in enumerate(result.bots):
        mine = [r for r in lines if r["seat"] == seat]
        assert all(r["name"] == name for r in mine)
        kinds = [(r["dir"], r["msg"]["type"]) for r in mine]
        assert kinds[:3] == [("in", "hello"), ("out", "welcome"), ("out", "match_start")]
        assert mine[0]["msg"]["secret"] == "<secret>"
        assert kinds[-1] == ("out", "match_end")
        assert kinds.count(("out", "hand_start")) == 5 and kinds.count(("out", "hand_end")) == 5
        requests = [i for i, r in enumerate(mine) if r["dir"] == "out" and r["msg"]["type"] in ("act", "draw")]
        assert [mine[i]["msg"]["seq"] for i in requests] == list(range(1, len(requests) + 1))
        for i in requests:  # each request's reply is the seat's next message, echoing its seq, timed
            request, reply = mine[i], mine[i + 1]
            assert request["left_ms"] > 0
            assert reply["dir"] == "in" and reply["msg"]["seq"] == request["msg"]["seq"] and "problem" not in reply
            assert reply["msg"]["type"] == ("discard" if request["msg"]["type"] == "draw" else "action")
            assert reply["ms"] >= 0
        # The replies are the decisions the hand history says the bot made, one for one, in order.
        asked = [a for r in records for a in r["actions"] if a["seat"] == seat and a["by"] == "bot"]
        replies = [mine[i + 1]["msg"] for i in requests]
        assert [a["kind"] for a in asked] == [m.get("action", "draw") for m in replies]
        assert [a["discards"] for a in asked if a["kind"] == "draw"] == [m["cards"] for m in replies if "cards" in m]


@pytest.mark.slow
def test_a_hostile_bots_bytes_come_out_escaped_through_the_cli(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    result = CliRunner().invoke(app, [
        "match", "--bot", f"escapes@{REPO}=python -m tests.fixtures.broken_bots.escapes",
        "--bot", f"caller@{REPO}=python -m bots.caller", "--hands", "4", "--seed", "5",
        "--out", str(tmp_path / "m"), "--trace", str(trace),
    ])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert find_marked(owner_pid=os.getpid()) == []
    text = trace.read_bytes()
    assert b"\x1b" not in text and b"\x07" not in text and "\u202e".encode() not in text
    assert all(b == 0x0A or 0x20 <= b < 0x7F for b in text)
    came = [r for r in _lines(trace) if r["seat"] == 0 and r["dir"] == "in"]
    raw = [r for r in came if "raw" in r]
    assert len(raw) == 1 and raw[0]["raw"].startswith("\xc1\x1b[2J\x1b]0;owned\x07")  # decoded: as sent
    assert "msgpack" in raw[0]["problem"] and raw[0]["ms"] >= 0
    assert '"raw":"\\u00c1\\u001b[2J\\u001b]0;owned\\u0007 hi"' in text.decode("ascii")  # written: escaped
    bad = [r for r in came if r.get("msg", {}).get("action") == "\x1b[31mcall\u202e"]
    assert len(bad) == 1 and "action" in bad[0]["problem"]
    assert "\\u001b[31mcall\\u202e" in text.decode("ascii")


def test_a_trace_is_bounded_line_by_line_and_in_all() -> None:
    out = io.StringIO()
    trace = WireTrace(out, max_bytes=20_000)
    seat = trace.seat(1, "big", "f" * 32)
    seat.received(msgpack.packb({"type": "hello", "name": "x" * 5000, "secret": "f" * 32}))
    seat.received(msgpack.packb({"type": "action", "junk": list(range(10_000)), "note": "f" * 32}))
    seat.received(b"\xc1" + b"\x00" * 10_000)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert all(len(line) <= MAX_LINE_CHARS for line in out.getvalue().splitlines())
    assert len(lines[0]["msg"]["name"]) == MAX_STRING_CHARS and lines[0]["msg"]["secret"] == "<secret>"
    assert "f" * 32 not in out.getvalue(), "the seat's secret is never written, wherever it is sent"
    assert len(lines[2]["raw"]) == 256
    for _ in range(300):
        seat.skipped(1 << 20, 65536)
    assert json.loads(out.getvalue().splitlines()[-1]) == {"truncated": "the trace reached 20000 bytes"}
    assert len(out.getvalue()) < 20_100


def test_a_trace_that_cannot_be_written_stops_without_stopping_anything() -> None:
    class Full(io.StringIO):
        def write(self, s: str) -> int:
            raise OSError(28, "No space left on device")

    trace = WireTrace(Full())
    trace.seat(0, "a").sent(b"\x81\xa4type\xa7welcome")
    trace.seat(0, "a").sent(b"\x81\xa4type\xa7welcome")
    assert trace.error is not None and trace.error.errno == 28 and trace.lines == 0


def test_a_trace_file_that_cannot_be_written_is_a_usage_error_before_any_bot_starts(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "match", "--bot", f"a@{REPO}=python -m bots.caller", "--bot", f"b@{REPO}=python -m bots.caller",
        "--out", str(tmp_path / "m"), "--trace", str(tmp_path / "no" / "such" / "t.jsonl"),
    ])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("harness match: --trace ")
    assert "cannot write it: No such file or directory" in result.stderr
    assert not (tmp_path / "m" / "hands.jsonl").exists() and find_marked(owner_pid=os.getpid()) == []
