"""Only the bot's time is charged: the referee's own stalls never make a reply late (PROTOCOL.md section 7).

The referee of a real match (a subprocess: ``harness match``) is stopped
with SIGSTOP and continued with SIGCONT, again and again, each pause longer
than the decision time, while two fast bots play. Replies that arrive
while the referee is stopped are there when it comes back and must count
as on time: the match ends with no fault.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.host.botproc import find_marked

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

# A decision time far above a fast bot's reply even on a loaded machine (no time bank), and
# pauses well beyond it: every deadline pending during a pause passes while the referee is stopped.
# 2 s: a fast bot's reply is far below it even at load 40 on 2 cores (250 ms was not: a bot woken late
# there was charged a real timeout, and the test failed on a busy machine, not on a broken referee).
DECISION_MS = 2000
PAUSE_S = 2.5
PAUSES = 5
WRITE_S = 4.0  # a history write slowed to twice the decision time


def _records_in(history: Path) -> int:
    """Hands recorded so far (complete lines of the hand history)."""
    return history.read_bytes().count(b"\n")


def test_a_stopped_referee_never_times_out_a_fast_bot(tmp_path: Path) -> None:
    out = tmp_path / "m"
    cmd = [
        sys.executable, "-m", "harness.cli", "match",
        "--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller",
        "--hands", "100000", "--decision-ms", str(DECISION_MS), "--time-bank-ms", "0",
        "--max-faults", "1000", "--out", str(out),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        history = out / "hands.jsonl"
        while not (history.exists() and history.stat().st_size > 0):  # the bots are playing
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        for _ in range(PAUSES):
            time.sleep(0.05)
            os.kill(proc.pid, signal.SIGSTOP)
            time.sleep(PAUSE_S)
            os.kill(proc.pid, signal.SIGCONT)
        # Enough hands after the pauses (a busy machine plays fewer of them meanwhile): wait for them, not a time.
        while _records_in(history) <= 10:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.send_signal(signal.SIGINT)  # harness match stops its bots and keeps the hands played
        stdout, stderr = proc.communicate(timeout=600)  # an outer limit only
    assert proc.returncode == 130, stderr
    records = [json.loads(line) for line in history.read_text().splitlines() if line.strip()]
    assert len(records) > 10
    faults = [f for r in records for f in r["faults"]]
    assert faults == [], faults[:3]
    assert find_marked(owner_pid=proc.pid) == []


def test_a_slow_history_write_never_times_out_a_fast_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """the previous hand's record is written while the first bot of the next hand
    thinks; with the write slowed far past the decision time, no reply is late (it was waiting
    when the referee came back) and the bot is not charged for the write."""
    from harness.engine import GameConfig
    from harness.history.files import HistoryWriter
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    write = HistoryWriter.write

    def slow_write(self: HistoryWriter, record: dict) -> None:  # type: ignore[type-arg]
        time.sleep(WRITE_S)
        write(self, record)

    monkeypatch.setattr(HistoryWriter, "write", slow_write)
    bots = [BotSpec(n, ("python", "-m", "bots.caller"), cwd=str(ROOT)) for n in ("a", "b")]
    spec = MatchSpec(GameConfig(), hands=5, seed=1)
    limits = Limits(decision_ms=DECISION_MS, time_bank_ms=0, startup_ms=60000)
    result = play_match(bots, spec, limits, tmp_path)
    assert result.faults == [{}, {}] and result.status == ["ok", "ok"]
    records = [json.loads(line) for line in (tmp_path / "hands.jsonl").read_text().splitlines()]
    first = [r["actions"][0]["ms"] for r in records[1:]]  # the decisions the writes ran during
    # Recorded from the request sent to the reply in hand: the write is in it (a lower bound that holds
    # whatever the load), while the bank is charged only up to when the referee stopped watching
    # (test_connection.py: answered_at) and no reply was late.
    assert min(first) >= WRITE_S * 1000, first


THINK_MS = 40  # the steady bot's sleep on every bet and every draw
STALL_S = 0.1  # the referee descheduled: after writing a request, and after a wait that found a reply


def test_recorded_times_are_never_less_than_the_bot_slept_when_the_referee_stalls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/HISTORY.md: ``ms`` runs from the request sent to the reply received. The referee is made to
    stall (as a loaded machine deschedules it) right after each write, before it notes the request as
    sent, and right after each wait that found a socket ready, before it notes when. A bot that sleeps
    THINK_MS on every decision must then be recorded at least THINK_MS every time: earlier, the clock
    restarted after the write and the reply was charged up to the wait's start, recording 0.000 ms."""
    from harness.engine import GameConfig
    from harness.match import endpoint
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    write = endpoint.Endpoint._write

    def stalled_write(self: endpoint.Endpoint, peer: object, data: bytes) -> int:
        done = write(self, peer, data)  # type: ignore[arg-type]
        time.sleep(STALL_S)
        return done

    def stalled_wait(self: endpoint.Hub) -> object:
        poll = self._poll.poll

        def wait(timeout: float) -> list[tuple[int, int]]:
            ready = poll(timeout)
            if ready:
                time.sleep(STALL_S)
            return ready

        return wait

    monkeypatch.setattr(endpoint.Endpoint, "_write", stalled_write)
    monkeypatch.setattr(endpoint.Hub, "wait", property(stalled_wait))
    steady = BotSpec("steady", ("python", "-m", "tests.fixtures.broken_bots.steady"), cwd=str(ROOT),
                     env={"THINK_MS": str(THINK_MS)})
    caller = BotSpec("caller", ("python", "-m", "bots.caller"), cwd=str(ROOT))
    limits = Limits(decision_ms=5000, time_bank_ms=0, startup_ms=20000)
    result = play_match([steady, caller], MatchSpec(GameConfig(), hands=4, seed=3), limits, tmp_path)
    assert result.faults == [{}, {}], result.faults
    records = [json.loads(line) for line in (tmp_path / "hands.jsonl").read_text().splitlines()]
    mine = [a for r in records for a in r["actions"] if a["seat"] == 0 and a["by"] == "bot"]
    assert {a["phase"] for a in mine} >= {"bet1", "draw"}  # every bet and every draw
    assert min(a["ms"] for a in mine) >= THINK_MS, sorted(a["ms"] for a in mine)[:5]
