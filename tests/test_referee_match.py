"""The referee plays whole matches between real bot subprocesses over real sockets.

Normal matches use the example bots (bots/); the misbehaving ones here are
tiny inline scripts (``python -c``) speaking raw msgpack, so each test shows
its bot's behaviour. The full catalogue of broken bots lives in the bot
process tests; these cover the referee's own rules: late replies, crash and
max_faults put a bot out, freezeout busts, determinism, replay, cleanup.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

import harness.match.referee as referee_mod
from harness.deals import commitment
from harness.engine import GameConfig
from harness.history.files import HistoryWriter, read_history, without_volatile
from harness.history.replay import check_history
from harness.host.botproc import find_marked
from harness.match.referee import (
    MAX_DETAIL_CHARS,
    BotSpec,
    Limits,
    MatchSpec,
    StackMode,
    clip_detail,
    hand_seed,
    play_match,
)
from tests.history_helpers import check_records, schema_errors

PY = sys.executable
ROOT = Path(__file__).resolve().parents[1]

#: A raw-msgpack bot; argv[1] picks the misbehaviour.
RAW_BOT = r"""
import os, sys, time, zmq, msgpack
mode = sys.argv[1]
ctx = zmq.Context(); s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 0)
s.connect(os.environ["HARNESS_ENDPOINT"])
s.send(msgpack.packb({"type": "hello", "v": 1, "secret": os.environ["HARNESS_SECRET"], "name": "raw"}))
asked = 0
while True:
    m = msgpack.unpackb(s.recv())
    t = m["type"]
    if t in ("act", "draw"):
        asked += 1
        seq, legal = m["seq"], m["legal"]
        if mode == "sleepy" and asked == 1 and "raise" in legal["actions"]:
            time.sleep(3.0)   # past the 2000 ms limit, then a raise nobody may apply
            s.send(msgpack.packb({"type": "action", "v": 1, "seq": seq, "action": "raise", "amount": legal["min_to"]}))
            continue
        if mode == "crash" and asked == 3:
            os._exit(3)
        if mode == "illegal" and t == "act":
            s.send(msgpack.packb({"type": "action", "v": 1, "seq": seq, "action": "raise", "amount": 1}))
            continue
        if t == "draw":
            s.send(msgpack.packb({"type": "discard", "v": 1, "seq": seq, "cards": []}))
        else:
            a = "call" if "call" in legal["actions"] else "check"
            s.send(msgpack.packb({"type": "action", "v": 1, "seq": seq, "action": a}))
    elif t == "match_end" or (t == "error" and m.get("fatal")):
        break
"""


def example(name: str) -> BotSpec:
    return BotSpec(name, (PY, "-m", f"bots.{name}"), cwd=str(ROOT))


def raw(name: str, mode: str) -> BotSpec:
    return BotSpec(name, (PY, "-c", RAW_BOT, mode))


# Generous: the bots here must never time out, also on a loaded machine (tests of timeouts set their own).
LIMITS = Limits(decision_ms=5000, time_bank_ms=10000, startup_ms=60000)


@pytest.fixture(autouse=True)
def no_process_left_and_no_tempdir(monkeypatch: pytest.MonkeyPatch) -> Any:
    made: list[str] = []
    real = tempfile.mkdtemp

    def mkdtemp(*args: Any, **kwargs: Any) -> str:
        path = real(*args, **kwargs)
        made.append(path)
        return path

    monkeypatch.setattr(referee_mod.tempfile, "mkdtemp", mkdtemp)
    yield made
    assert find_marked(owner_pid=os.getpid()) == [], "a bot process outlived its match"
    assert not any(os.path.exists(p) for p in made), "the private endpoint directory was left"


def records(out: Path) -> list[dict[str, Any]]:
    return list(read_history(out / "hands.jsonl"))


def test_heads_up_match_between_example_bots(tmp_path: Path) -> None:
    spec = MatchSpec(GameConfig(), hands=40, seed=11)
    result = play_match([example("caller"), example("raiser")], spec, LIMITS, tmp_path)
    assert result.hands_played == 40 and result.status == ["ok", "ok"]
    assert result.faults == [{}, {}]
    assert sum(result.net) == 0
    assert [sum(col) for col in zip(*result.hand_nets, strict=True)] == result.net
    recs = records(tmp_path)
    assert [r["hand_id"] for r in recs] == list(range(40))
    for h, r in enumerate(recs):
        assert r["button"] == h % 2 and r["seed"] == hand_seed(11, h)
        assert r["match"]["bots"] == ["caller", "raiser"] and [p["seat"] for p in r["players"]] == [0, 1]
        assert r["match"]["seed_sha256"] == commitment(11) and r["match"]["stack_mode"] == "reset"
        assert [p["net"] for p in r["players"]] == result.hand_nets[h]
        assert all(a["by"] == "bot" and a["ms"] >= 0 for a in r["actions"]) and r["faults"] == []
    assert {p.name for p in (tmp_path / "logs").iterdir()} >= {"0-caller.err", "1-raiser.out", "referee.log"}


def test_a_pinned_match_plays_the_same_hands_and_gives_the_cpus_back(tmp_path: Path) -> None:
    before = (os.sched_getaffinity(0), os.sched_getscheduler(0))
    spec = MatchSpec(GameConfig(), hands=20, seed=11)
    pinned = play_match([example("caller"), example("raiser")], spec, LIMITS, tmp_path / "p", cpus={max(before[0])})
    assert (os.sched_getaffinity(0), os.sched_getscheduler(0)) == before
    free = play_match([example("caller"), example("raiser")], spec, LIMITS, tmp_path / "f")
    assert pinned.hand_nets == free.hand_nets and pinned.status == ["ok", "ok"]


def test_three_handed_match(tmp_path: Path) -> None:
    spec = MatchSpec(GameConfig(), hands=30, seed=5)
    result = play_match([example("caller"), example("raiser"), example("random_bot")], spec, LIMITS, tmp_path)
    assert result.hands_played == 30 and result.status == ["ok"] * 3 and result.faults == [{}] * 3
    assert sum(result.net) == 0
    assert [r["button"] for r in records(tmp_path)] == [h % 3 for h in range(30)]


def test_late_reply_is_discarded_and_never_applied(tmp_path: Path) -> None:
    # The late reply arrives while the referee waits for the bot's next request (seq 2). The limit is generous
    # (the steady bot must never time out, however loaded the machine); the sleepy bot sleeps 3 s past it.
    limits = Limits(decision_ms=2000, time_bank_ms=0, startup_ms=60000)
    spec = MatchSpec(GameConfig(), hands=6, seed=2)
    result = play_match([raw("sleepy", "sleepy"), raw("steady", "plain")], spec, limits, tmp_path)
    assert result.faults == [{"timeout": 1}, {}] and result.status == ["ok", "ok"]
    recs = records(tmp_path)
    # The raise that came late was applied neither then nor to any later request.
    assert not any(a["seat"] == 0 and a["kind"] == "raise" for r in recs for a in r["actions"])
    assert recs[0]["faults"] == [{"seat": 0, "kind": "timeout", "detail": "no reply with seq 1 within the time limit",
                                  "action": 0, "put_out": False}]
    first = recs[0]["actions"][0]  # the default action, answering the fault
    assert (first["kind"], first["by"], first["fault"], first["owed"], first["added"]) == ("fold", "fault", 0, 5, 0)
    assert first["ms"] >= 2000
    assert "late reply to request 1 discarded" in (tmp_path / "logs" / "referee.log").read_text()


def test_crash_and_max_faults_put_bots_out_but_the_match_finishes(tmp_path: Path) -> None:
    limits = Limits(decision_ms=5000, time_bank_ms=0, startup_ms=60000, max_faults=3)  # the caller never times out
    spec = MatchSpec(GameConfig(), hands=12, seed=4)
    bots = [raw("crasher", "crash"), raw("cheater", "illegal"), example("caller")]
    result = play_match(bots, spec, limits, tmp_path)
    assert result.hands_played == 12 and sum(result.net) == 0
    assert result.faults[0] == {"crash": 1} and result.status[0].startswith("crash: exit status 3")
    assert result.faults[1] == {"illegal": 3} and result.status[1].startswith("max_faults: 3 faults")
    assert result.faults[2] == {} and result.status[2] == "ok"
    recs = records(tmp_path)
    kinds = [(f["seat"], f["kind"]) for r in recs for f in r["faults"]]
    assert kinds.count((0, "crash")) == 1 and kinds.count((1, "illegal")) == 3
    # Once out, a bot is never asked again: it posts blinds and is folded at its first decision.
    last = recs[-1]
    assert all(a["seat"] == 2 for a in last["actions"] if a["ms"] is not None)
    assert [p["out"] for p in last["players"]] == [True, True, False]
    for seat in (0, 1):
        mine = [(a["kind"], a["by"], a["ms"]) for a in last["actions"] if a["seat"] == seat]
        assert mine in ([], [("fold", "out", None)])


def test_same_seed_same_history_except_timings(tmp_path: Path) -> None:
    spec = MatchSpec(GameConfig(), hands=25, seed=99)
    bots = [example("caller"), example("raiser"), example("solid")]
    play_match(bots, spec, LIMITS, tmp_path / "a")
    play_match(bots, spec, LIMITS, tmp_path / "b")
    a = [json.dumps(without_volatile(r)) for r in records(tmp_path / "a")]
    b = [json.dumps(without_volatile(r)) for r in records(tmp_path / "b")]
    assert a == b and len(a) == 25


def test_every_hand_is_dealt_from_its_own_seed_across_the_referees_seed_blocks(tmp_path: Path) -> None:
    """The referee derives hand seeds 64 at a time; each hand is still dealt from hand_seed(match seed, h)."""
    spec = MatchSpec(GameConfig(), hands=150, seed=2**200 + 77)
    play_match([example("caller"), example("raiser")], spec, LIMITS, tmp_path)
    checks = list(check_history(tmp_path / "hands.jsonl", match_seed=spec.seed))
    assert len(checks) == 150 and all(c.ok for c in checks)


def test_replay_verifies_a_match_and_catches_tampering(tmp_path: Path) -> None:
    spec = MatchSpec(GameConfig(), hands=20, seed=8)
    play_match([example("raiser"), example("caller")], spec, LIMITS, tmp_path)
    path = tmp_path / "hands.jsonl"
    assert all(c.ok for c in check_history(path)) and len(list(check_history(path))) == 20
    lines = path.read_text().splitlines()
    rec = json.loads(lines[7])
    a, b = rec["players"]
    a["net"], b["net"] = (b["net"], a["net"]) if a["net"] != b["net"] else (1, -1)
    lines[7] = json.dumps(rec)
    rec = json.loads(lines[12])
    a, b = rec["players"]
    a["dealt"][0], b["dealt"][0] = b["dealt"][0], a["dealt"][0]
    lines[12] = json.dumps(rec)
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    failed = [(c.hand_id, c.detail) for c in check_history(bad) if not c.ok]
    assert [h for h, _ in failed] == [7, 12]
    assert "net" in failed[0][1] and "dealt" in failed[1][1]
    cli = [PY, "-m", "harness.cli", "replay"]
    ok = subprocess.run(cli + [str(path)], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0 and "20 of 20 hands replay identically" in ok.stdout
    ko = subprocess.run(cli + [str(bad)], capture_output=True, text=True, cwd=ROOT)
    assert ko.returncode == 1 and "hand 7: DIFFERS" in ko.stdout and "hand 8: OK" not in ko.stdout
    verbose = subprocess.run(cli + ["--verbose", str(bad)], capture_output=True, text=True, cwd=ROOT)
    assert verbose.returncode == 1 and "hand 7: DIFFERS" in verbose.stdout and "hand 8: OK" in verbose.stdout


def test_freezeout_busted_bots_leave_and_the_button_moves_on(tmp_path: Path) -> None:
    spec = MatchSpec(GameConfig(), hands=200, seed=3, starting_stack=100, stack_mode=StackMode.FREEZEOUT)
    bots = [example("raiser"), example("caller"), example("caller"), example("solid")]
    bots = [BotSpec(f"{b.name}{i}", b.command, b.cwd) for i, b in enumerate(bots)]
    result = play_match(bots, spec, LIMITS, tmp_path)
    recs = records(tmp_path)
    assert len(recs) == result.hands_played and sum(result.net) == 0
    assert any(len(r["players"]) < 4 for r in recs), "nobody busted"
    stacks = [100] * 4
    prev_button = None
    for r in recs:
        seated = [m for m in range(4) if stacks[m] > 0]
        assert [p["seat"] for p in r["players"]] == seated  # match seats, never renumbered
        assert [p["stack"] for p in r["players"]] == [stacks[m] for m in seated]
        assert r["match"]["stack_mode"] == "freezeout" and r["match"]["starting_stack"] == 100
        button = r["button"]
        if prev_button is not None:  # R2.1: the next seat, clockwise, still in the match
            assert button == next(m for k in range(1, 5) if stacks[m := (prev_button + k) % 4] > 0)
        prev_button = button
        for p in r["players"]:
            stacks[p["seat"]] += p["net"]
    assert [e for r in recs[:20] for e in schema_errors(r)] == []
    assert check_records(recs, tmp_path / "copy.jsonl") == []
    assert [s - 100 for s in stacks] == result.net
    if result.hands_played < 200:  # stopped early: one bot holds every chip
        assert sorted(stacks)[-2] == 0


def test_referee_error_and_ctrl_c_still_clean_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = HistoryWriter.write
    for exc in (RuntimeError("disk on fire"), KeyboardInterrupt()):
        calls = {"n": 0}

        def write(
            self: HistoryWriter, record: dict[str, Any], exc: BaseException = exc, calls: dict[str, int] = calls
        ) -> None:
            calls["n"] += 1
            if calls["n"] == 3:
                raise exc
            real_write(self, record)

        monkeypatch.setattr(HistoryWriter, "write", write)
        out = tmp_path / type(exc).__name__
        with pytest.raises(type(exc)):
            play_match([example("caller"), example("raiser")], MatchSpec(GameConfig(), 50, 1), LIMITS, out)
        assert find_marked(owner_pid=os.getpid()) == []
        assert len(records(out)) == 2


def test_a_stop_asked_of_the_match_thread_stops_it_at_the_next_hand(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop whose KeyboardInterrupt was lost (raised in a finalizer) is still seen between hands."""
    import threading

    from harness.match import stoprequest
    from harness.match.referee import MatchInterrupted

    real_write = HistoryWriter.write
    calls = {"n": 0}

    def write(self: HistoryWriter, record: dict[str, Any]) -> None:
        real_write(self, record)
        calls["n"] += 1
        if calls["n"] == 3:  # asked, no exception: as when the interrupt was lost on its way
            stoprequest.ask_stop(threading.get_ident())

    monkeypatch.setattr(HistoryWriter, "write", write)
    try:
        with pytest.raises(MatchInterrupted) as stopped:
            play_match([example("caller"), example("raiser")], MatchSpec(GameConfig(), 500, 1), LIMITS, tmp_path)
    finally:
        stoprequest.forget(threading.get_ident())
    assert stopped.value.result.interrupted and stopped.value.result.hands_played <= 5
    assert find_marked(owner_pid=os.getpid()) == []


def test_cli_match_prints_the_table_and_sigint_stops_everything(tmp_path: Path) -> None:
    cmd = [PY, "-m", "harness.cli", "match", "--bot", f"a={PY} -m bots.caller", "--bot", f"b={PY} -m bots.raiser"]
    tmp = tmp_path / "tmp"  # the referee's private directories go here
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    done = subprocess.run(
        cmd + ["--hands", "20", "--seed", "1", "--out", str(tmp_path / "m")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0].split()
    assert header[:2] == ["bot", "seat"] and "bb/100" in header and "status" in header
    assert len(records(tmp_path / "m")) == 20
    # Ctrl-C in the middle of a long match: bots stopped, exit status 130.
    proc = subprocess.Popen(
        cmd + ["--hands", "10000000", "--out", str(tmp_path / "int")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        # Wait for the event (a hand recorded, the bots running), however long a loaded machine takes; the
        # outer limit only stops a hung test.
        history = tmp_path / "int" / "hands.jsonl"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and proc.poll() is None:
            if history.exists() and history.stat().st_size > 0 and find_marked(owner_pid=proc.pid):
                break
            time.sleep(0.05)
        assert find_marked(owner_pid=proc.pid), "the bots were not running"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
    finally:  # a failed test must not leave a 10,000,000-hand match running
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in err
    assert find_marked(owner_pid=proc.pid) == []
    assert list(tmp.iterdir()) == []


def test_private_dirs_of_killed_referees_are_removed(tmp_path: Path) -> None:
    """A referee killed outright cannot clean up; the next match removes its directory."""
    from harness.match.privatedir import PRIVATE_DIR_PREFIX, remove_stale_private_dirs

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"{PRIVATE_DIR_PREFIX}{dead.pid}-abc"
    alive = tmp_path / f"{PRIVATE_DIR_PREFIX}{os.getpid()}-def"
    other = tmp_path / "harness-notapid"
    for d in (stale, alive, other):
        d.mkdir()
    (stale / "0.sock").write_text("")
    assert remove_stale_private_dirs(str(tmp_path)) == [str(stale)]
    assert not stale.exists() and alive.exists() and other.exists()


def test_a_tmpdir_too_deep_for_a_socket_path_still_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep TMPDIR (as an ordinary user's pytest gives: /tmp/pytest-of-NAME/...) would make the seats' socket
    paths longer than a Unix socket takes (107 characters): the private directories go to /tmp instead."""
    from harness.match.privatedir import IPC_PATH_MAX, PRIVATE_DIR_PREFIX, private_parent

    deep = tmp_path / ("d" * max(1, IPC_PATH_MAX - len(str(tmp_path)) - 30))
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    assert tempfile.gettempdir() == str(deep) and private_parent() == "/tmp"
    bots = [BotSpec(f"c{i}", ("python", "-m", "bots.caller"), cwd=str(ROOT)) for i in range(2)]
    result = play_match(bots, MatchSpec(GameConfig(), hands=2, seed=1), Limits(), tmp_path / "m")
    assert result.hands_played == 2 and result.faults == [{}, {}]
    assert list(deep.iterdir()) == []
    assert not [n for n in os.listdir("/tmp") if n.startswith(f"{PRIVATE_DIR_PREFIX}{os.getpid()}-")]



def test_a_long_fault_detail_keeps_what_happened_and_what_to_do() -> None:
    """A detail past the cap keeps its start and its end (the harness's note after paths of any length)."""
    detail = "exited before its hello (exit status 2); note: the sandbox does not show /" + "d" * 900 + \
        "/bot.py: make it its cwd (--cwd DIR) or add it to [sandbox] paths"
    clipped = clip_detail(detail)
    assert len(clipped) == MAX_DETAIL_CHARS and " ... " in clipped
    assert clipped.startswith("exited before its hello") and clipped.endswith("or add it to [sandbox] paths")
    assert clip_detail("short") == "short"
