"""End to end with the real referee and example bots: CLI run, kill -9 and resume, no leftovers."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.history.files import seat_nets
from harness.tournament.results import hand_history_path, read_hands, read_records
from tests.runner_helpers import wait_no_bots

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]


def tournament(tmp_path: Path, mark: str, *, hands: int, jobs: int = 2, seed: int | None = 11) -> Path:
    """A small heads-up duplicate league of deterministic bots; every bot carries ``mark`` in its env."""
    bots = [
        ("caller", "python -m bots.caller", ""),
        ("raiser", "python -m bots.raiser", ""),
        ("random", "python -m bots.random_bot", 'RANDOM_BOT_SEED = "3", '),
    ]
    text = f"""
[tournament]
name = "e2e"
{"" if seed is None else f"seed = {seed}"}
[schedule]
hands = {hands}
jobs = {jobs}
[limits]
decision_ms = 2000
startup_ms = 10000
"""
    for name, command, env in bots:
        text += (f'[[bots]]\nname = "{name}"\ncommand = "{command}"\ncwd = "{ROOT}"\n'
                 f'env = {{ {env}TEST_MARK = "{mark}" }}\n')
    path = tmp_path / "e2e.toml"
    path.write_text(text)
    return path


def test_cli_run_with_real_bots_agrees_with_hand_histories(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["run", str(tournament(tmp_path, mark, hands=40, seed=None)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "6/6 matches recorded" in result.output and "Crosstable" in result.output
    assert re.search(r"^sandbox: (on|partly on|OFF|off)\b", result.output, re.M)  # the organiser sees it
    assert wait_no_bots(mark) == []

    # Secret deals: committed before play, the secret kept out of tournament.json and mode 0600, revealed at the end.
    import json

    secret = (out / "seed.secret").read_text().strip()
    assert (out / "seed.secret").stat().st_mode & 0o777 == 0o600 and len(secret) == 64
    manifest = (out / "tournament.json").read_text()
    assert secret not in manifest and json.loads(manifest)["seed_sha256"] == __import__("hashlib").sha256(
        bytes.fromhex(secret)).hexdigest()
    assert json.loads((out / "seed.json").read_text())["seed"] == secret
    checked = CliRunner().invoke(app, ["replay", str(out)])
    assert checked.exit_code == 0 and "6 of 6 matches (240 hands) were dealt from the committed seed" in checked.output

    # A late entry after the reveal: its matches are dealt from a new secret seed, and every deal still verifies.
    config = tournament(tmp_path, mark, hands=40, seed=None)
    config.write_text(config.read_text() + f'[[bots]]\nname = "late"\ncommand = "python -m bots.caller"\n'
                                           f'cwd = "{ROOT}"\nenv = {{ TEST_MARK = "{mark}" }}\n')
    late = CliRunner().invoke(app, ["run", str(config), "--out", str(out)])
    assert late.exit_code == 0 and "reused 6 matches, playing 6" in late.output, late.output
    assert "new secret seed" in late.output and len((out / "seed.secret").read_text().split()) == 2
    assert wait_no_bots(mark) == []
    checked = CliRunner().invoke(app, ["replay", str(out)])
    assert checked.exit_code == 0 and "12 of 12 matches (480 hands)" in checked.output, checked.output

    hands: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    for record in read_records(out):
        path = hand_history_path(out / "matches" / record.match_id)
        assert path is not None
        history = read_hands(path)
        assert len(history) == record.result.hands_played == 40
        for h, hand in enumerate(history):
            nets = seat_nets(hand)
            assert [nets[seat] for seat in range(len(nets))] == record.result.hand_nets[h]
            for seat, name in enumerate(record.result.bots):
                hands[name] += 1
                net[name] += nets[seat]
    rows = {r["bot"]: r for r in csv.DictReader((out / "leaderboard.csv").read_text().splitlines())}
    assert sum(int(r["net_chips"]) for r in rows.values()) == 0
    for name in ("caller", "raiser", "random"):
        assert (int(rows[name]["hands"]), int(rows[name]["net_chips"])) == (hands[name], net[name])
        assert rows[name]["timeouts"] == rows[name]["crashes"] == rows[name]["failed_starts"] == "0"


@pytest.mark.slow
def test_kill_9_mid_run_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    config = tournament(tmp_path, mark, hands=150)
    command = [sys.executable, "-m", "harness.cli", "run", str(config), "--no-entry-check"]
    resumed, clean = tmp_path / "resumed", tmp_path / "clean"

    proc = subprocess.Popen([*command, "--out", str(resumed)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 900  # an outer limit: the wait is for the first record
        while time.monotonic() < deadline and proc.poll() is None:
            if (resumed / "results.jsonl").exists() and len(read_records(resumed)) >= 1:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed; raise hands"
        assert len(read_records(resumed)) < 6
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its match workers, at once
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert wait_no_bots(mark) == [], "bot processes survived the referee's kill -9"
    played = {p.name for p in (resumed / ".private" / "matches").iterdir()}  # tables still being played
    partial = played - {r.match_id for r in read_records(resumed, pending=True)}
    assert partial, "no match was caught in the middle"

    again = subprocess.run([*command, "--out", str(resumed)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    # The killed referees could not remove their private endpoint directories; the resumed run's did.
    from harness.match.privatedir import remove_stale_private_dirs

    assert remove_stale_private_dirs() == []
    straight = subprocess.run([*command, "--out", str(clean)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert straight.returncode == 0, straight.stderr
    assert wait_no_bots(mark) == []

    assert len(read_records(resumed)) == 6
    assert (resumed / "leaderboard.csv").read_text() == (clean / "leaderboard.csv").read_text()
    for match_id in partial:  # replayed from scratch: a full, clean hand history
        path = hand_history_path(resumed / "matches" / match_id)
        assert path is not None and path.name == "hands.jsonl.gz"  # compressed by default
        history = read_hands(path)
        assert [h["hand_id"] for h in history] == list(range(150))
