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

from harness.match.botproc import find_marked

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(60)

DECISION_MS = 150
PAUSE_S = 0.3  # longer than a decision: every deadline pending during a pause passes
PAUSES = 8


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
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.send_signal(signal.SIGINT)  # harness match stops its bots and keeps the hands played
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    records = [json.loads(line) for line in history.read_text().splitlines() if line.strip()]
    assert len(records) > 10
    faults = [f for r in records for f in r["faults"]]
    assert faults == [], faults[:3]
    assert find_marked(owner_pid=proc.pid) == []
