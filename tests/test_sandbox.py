"""Untrusted bots cannot cheat, spy or sabotage: hostile bots in real matches.

Each hostile bot (tests/fixtures/hostile) is copied into a directory of its
own, as an organiser receives entries, and plays a short real match with
the sandbox on (every attack fails, the opponent plays on untouched) and
off (the same attacks work: the tests can fail). The bots report each
attempt on stderr (``ATTACK <name> SUCCEEDED|FAILED: ...``); the tests check
the effects themselves too (files written, processes alive, faults).
"""

from __future__ import annotations

import dataclasses
import os
import socket
import statistics
import sysconfig
import threading
import time
import uuid
from pathlib import Path

import pytest

from harness.history.files import find_history, read_history
from harness.host import sandbox as sb
from harness.host import syscall_filter
from harness.specs import BotSpec, CpuPolicy, Limits, SandboxMode, SandboxSettings
from tests.sandbox_helpers import (
    MODES,
    OFF,
    ON,
    REPO,
    ROOT,
    SANDBOX_MARKS,
    attacks,
    caller,
    entry,
    play,
    processes_with,
    succeeded,
)

pytestmark = [*SANDBOX_MARKS, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Listener:
    """A host TCP port the spy calls home to, and a prober of the port the spy listens on."""

    def __init__(self, listen_port: int) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(5)
        self.server.settimeout(0.1)
        self.port = int(self.server.getsockname()[1])
        self.listen_port = listen_port
        self.received: list[bytes] = []
        self.reached = False
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self.serve, self.probe)]
        for t in self.threads:
            t.start()

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.server.accept()
                with conn:
                    conn.settimeout(1)
                    self.received.append(conn.recv(100))
            except OSError:
                pass

    def probe(self) -> None:
        while not self.stop.is_set() and not self.reached:
            try:
                socket.create_connection(("127.0.0.1", self.listen_port), timeout=0.2).close()
                self.reached = True
            except OSError:
                time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()
        self.server.close()


@pytest.mark.parametrize("box", MODES)
def test_a_spy_sees_and_touches_nothing_of_the_match(arena: Path, box: SandboxSettings) -> None:
    token = uuid.uuid4().hex[:12]
    results = arena / "results"  # the tournament's output directory, inside the directory the spy sees
    out = results / "matches" / "m1"
    out.mkdir(parents=True)
    (results / "results.jsonl").write_text('{"match_id": "earlier"}\n')
    listener = Listener(free_port())
    site = Path(sysconfig.get_paths()["purelib"])
    planted = [site / f"hostile-{token}.pth", REPO / "protocol" / f"hostile-{token}.txt"]
    env = {
        "SPY_TOKEN": token, "SPY_VICTIM_FILE": str(arena / "victim" / "secret.txt"),
        "SPY_RESULTS": str(results / "results.jsonl"), "SPY_HISTORY": str(out / "hands.jsonl"),
        "SPY_VICTIM_LOG": str(out / "logs" / "1-victim.err"), "SPY_TCP_PORT": str(listener.port),
        "SPY_LISTEN_PORT": str(listener.listen_port), "SPY_SOURCE_DIR": str(REPO / "protocol"),
        "SPY_SCRATCH_MB": str(ON.scratch_mb),
    }
    spy = entry(arena, "spy", "spy/spy.py", env=env, cwd=arena)  # sees arena/: results and victim/ inside
    boxed = SandboxSettings(**{**{f: getattr(box, f) for f in box.__slots__}, "hidden": (str(results),)})
    try:
        result = play([spy, caller(arena)], out, boxed)
    finally:
        listener.close()
        found = [p for p in planted if p.exists()]
        for p in found:
            p.unlink()
    report = attacks(out, 0, "spy")
    names = {"opponent-files", "tcp-connect", "write-venv", "write-source", "scratch-disk",
             "opponent-environment", "referee-memory", "live-history", "results", "forge-log"}
    assert names <= set(report), report
    forged = "forged" in (results / "results.jsonl").read_text() + (out / "logs" / "1-victim.err").read_text()
    if box is ON:
        # (Listening works inside its own network namespace; what counts is that nobody outside reaches it.)
        assert succeeded(report) - {"tcp-listen"} == set(), report
        assert not found and not forged and not listener.received and not listener.reached
        assert result.faults[1] == {} and result.status == ["ok", "ok"]
    else:
        memory_closed = not ROOT and Path("/proc/sys/kernel/yama/ptrace_scope").exists() and int(
            Path("/proc/sys/kernel/yama/ptrace_scope").read_text()) > 0
        expected = names - ({"referee-memory"} if memory_closed else set())
        assert expected <= succeeded(report), report
        assert len(found) == 2 and forged and listener.received == [token.encode()] and listener.reached


@pytest.mark.parametrize("box", MODES)
def test_a_thief_cannot_stop_the_opponent_read_its_secret_or_take_its_seat(arena: Path, box: SandboxSettings) -> None:
    thief = entry(arena, "thief", "thief.py")
    victim = entry(arena, "victim", "slowpoke.py", env={"SLOW_S": "1.0"})
    result = play([thief, victim], arena / "out", box)
    report = attacks(arena / "out", 0, "thief")
    log = (arena / "out" / "logs" / "referee.log").read_text()
    # Its own secret never opens another seat, sandbox or not: dropped at once, never answered (point 7).
    assert report["foreign-socket-without-secret"].startswith("FAILED"), report
    if box is ON:
        assert succeeded(report) == set(), report
        assert result.faults == [{}, {}] and result.status == ["ok", "ok"]
        assert log.count("seat 1 victim: hello accepted") == 1
    else:
        assert {"stop-opponent", "opponent-environment", "steal-seat"} <= succeeded(report), report
        assert "closed the connection" in report["foreign-socket-without-secret"]


@pytest.mark.parametrize("box", MODES)
def test_a_killer_cannot_reach_the_opponent(arena: Path, box: SandboxSettings) -> None:
    result = play([entry(arena, "killer", "killer.py"), caller(arena)], arena / "out", box)
    report = attacks(arena / "out", 0, "killer")
    if box is ON:
        assert report["kill-opponent"].startswith("FAILED"), report
        assert result.faults[1] == {} and result.status[1] == "ok"
    else:
        assert report["kill-opponent"].startswith("SUCCEEDED"), report
        assert result.faults[1].get("crash") == 1


@pytest.mark.parametrize("box", MODES)
def test_a_survivor_is_gone_at_match_end(arena: Path, box: SandboxSettings) -> None:
    token = f"survivor-{uuid.uuid4().hex}"
    bot = entry(arena, "survivor", "survivor.py", env={"SURVIVOR_TOKEN": token})
    play([bot, caller(arena)], arena / "out", box, hands=2)
    assert attacks(arena / "out", 0, "survivor")["survivor"].startswith("SUCCEEDED")
    left = processes_with(token)
    for proc in left:
        proc.kill()
    assert bool(left) == (box is OFF), "the sandbox must leave no survivor; without it the survivor escapes"


@pytest.mark.parametrize("box", MODES)
@pytest.mark.parametrize("kind", ["memory", "pids"])
def test_bombs_through_children_are_stopped_by_the_group(arena: Path, box: SandboxSettings, kind: str) -> None:
    limits = Limits(decision_ms=2000, time_bank_ms=2000, startup_ms=30000, max_faults=1000, memory_mb=200,
                    max_processes=24)
    env = {"BOMB_MB": "100", "BOMB_CHILDREN": "3", "BOMB_PIDS": "60"}
    result = play([entry(arena, "bomb", "bomb.py", kind, env=env), caller(arena)], arena / "out", box, limits=limits)
    report = attacks(arena / "out", 0, "bomb")
    name = "memory-bomb" if kind == "memory" else "process-bomb"
    assert result.faults[1] == {} and result.status[1] == "ok", "nothing else is affected"
    if box is ON:
        assert name not in succeeded(report), report
        limit = "memory limit" if kind == "memory" else "process limit"
        assert result.status[0].startswith("crash") and limit in result.status[0], result.status
    else:
        if kind == "pids" and not ROOT:
            pytest.skip("as an ordinary user RLIMIT_NPROC counts all of the user's processes")
        assert report[name].startswith("SUCCEEDED"), report
        assert result.status[0] == "ok"


def victim_ms(out: Path) -> float:
    """The thinker's (seat 1) typical decision time: the lower quartile of its decisions (ms).

    The lower quartile, not the mean: other work on a shared test machine
    slows some decisions at random, while a hog that gets CPU slows them all.
    """
    import json

    times = sorted(a["ms"] for line in (out / "hands.jsonl").read_text().splitlines()
                   for a in json.loads(line)["actions"] if a["seat"] == 1 and a["ms"] is not None)
    return statistics.quantiles(times, n=4)[0]


def test_busy_children_cannot_slow_the_opponent_down(arena: Path) -> None:
    """Fair CPU (PROTOCOL.md section 7): on one CPU, the thinker's decisions with the hog take what they take
    without it (within 20%), under either policy; without the sandbox they take longer (by 30% at least).

    Up to five tries of the sandboxed comparison, as the machine's other load comes and goes."""
    cpu = max(os.sched_getaffinity(0))
    limits = Limits(decision_ms=3000, time_bank_ms=0, startup_ms=6000, max_faults=1000)
    calls = {"HOSTILE_CALLS": "1"}  # every hand goes to showdown: the thinker decides three times a hand
    thinker = entry(arena, "thinker", "thinker.py", env={"THINK_LOOPS": "1000000", **calls})
    quiet = entry(arena, "quiet", "hog.py", env={"HOG_CHILDREN": "0", **calls})
    hog = entry(arena, "hog", "hog.py", env={"HOG_CHILDREN": "3", **calls})
    freeze = SandboxSettings(mode=SandboxMode.REQUIRED, cpu=CpuPolicy.FREEZE)

    def run(name: str, bots: list[BotSpec], box: SandboxSettings) -> float:
        play(bots, arena / name, box, hands=4, limits=limits, cpus={cpu})
        return victim_ms(arena / name)

    tries = []
    quietest = float("inf")
    for attempt in range(5):
        # Baselines right before and after, so load that comes and goes on the machine is seen by both sides.
        before = run(f"base{attempt}", [quiet, thinker], ON)
        weight = run(f"weight{attempt}", [hog, thinker], ON)
        frozen = run(f"freeze{attempt}", [hog, thinker], freeze)
        after = run(f"after{attempt}", [quiet, thinker], ON)
        quietest = min(quietest, before, after)
        tries.append((before, after, weight, frozen))
        if max(weight, frozen) <= 1.2 * max(before, after):
            break
    else:
        pytest.fail(f"the hog slowed the thinker down by more than 20% (ms: bases, weight, freeze): {tries}")
    # The control (the test can fail): without the sandbox the hog's three children do slow the thinker down.
    # Other load on the machine dilutes the slowdown (the kernel moves unpinned work off the crowded CPU), so
    # each try compares with a quiet run right beside it, and a few tries are allowed as load comes and goes.
    controls = []
    for attempt in range(5):
        unfair = run(f"off{attempt}", [hog, thinker], OFF)
        quiet_off = run(f"offbase{attempt}", [quiet, thinker], OFF)
        controls.append((quiet_off, unfair))
        if unfair >= 1.3 * min(quiet_off, quietest):
            break
    else:
        pytest.fail(f"without the sandbox the hog never slowed the thinker down (ms: quiet, hog): {controls}")


def shared_files(arena: Path) -> Path:
    """A directory every colluder sees read-only (as /usr is), laid out as tests/fixtures/hostile/colluder.py wants."""
    shared = arena / "shared"
    for sub in ("flock", "inotify"):
        (shared / sub).mkdir(parents=True)
        for name in (f"{seat}_{parity}_{card}" for seat in range(2) for parity in range(2) for card in range(52)):
            (shared / sub / name).touch()
    for name in ("posix.lock", "ofd.lock"):
        (shared / name).write_bytes(b"\0" * 64)
    with open(shared / "page.bin", "wb") as fh:
        fh.write(os.urandom(1 << 16))
        os.fsync(fh.fileno())  # clean pages: DONTNEED can drop them
    for path in [shared, *shared.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return shared


CHANNELS = {"posix-lock", "ofd-lock", "flock", "inotify"}
PRIMITIVES = {"dnotify", "pagecache", "io-uring", "fcntl-high-bits", "inotify-i386", "inotify-x32"}


@pytest.mark.skipif(syscall_filter.support().problem != "", reason=(
    "SECCOMP TEST SKIPPED: " + syscall_filter.support().problem + " (make test installs libseccomp2; pip install "
    "pyseccomp)"))
@pytest.mark.parametrize("box", MODES)
def test_colluders_at_one_table_learn_nothing_through_locks_or_file_watching(arena: Path,
                                                                            box: SandboxSettings) -> None:
    """Two copies of a colluder, heads-up, publish their cards each hand on every channel and read the other's."""
    shared = shared_files(arena)
    env = {"COLLUDE_DIR": str(shared), "HOSTILE_CALLS": "1"}
    bots = [entry(arena, "c1", "colluder.py", env=env), entry(arena, "c2", "colluder.py", env=env)]
    out = arena / "out"
    result = play(bots, out, dataclasses.replace(box, paths=(str(shared),)), hands=6)
    reports = [attacks(out, 0, "c1"), attacks(out, 1, "c2")]
    for report in reports:
        assert CHANNELS | PRIMITIVES <= set(report), report
    won = set().union(*(succeeded(r) for r in reports))
    learned = [line.split() for seat, name in enumerate(("c1", "c2"))
               for line in (out / "logs" / f"{seat}-{name}.err").read_text().splitlines()
               if line.startswith("COLLUDE ")]
    if box is ON:
        assert won == set(), reports
        assert learned == []
        assert result.status == ["ok", "ok"] and result.faults == [{}, {}]
    else:  # the same bots do pass their cards without the sandbox: the test can fail
        assert CHANNELS | {"dnotify", "fcntl-high-bits"} <= won, reports
        history = find_history(out)
        assert history is not None
        dealt = {h["hand_id"]: [sorted(p["dealt"]) for p in h["players"]] for h in read_history(history)}
        for _, channel, hand, seat, *cards in learned:
            assert cards == dealt[int(hand)][int(seat)], (channel, hand, seat)
        assert {line[1] for line in learned} == CHANNELS


SQLITE_BOT = """
import fcntl, sqlite3
db = sqlite3.connect("/tmp/scratch.db")
db.execute("create table t (a)")
db.execute("insert into t values (7)")
db.commit()
book = sqlite3.connect("file:book.db?mode=ro", uri=True)
with open("book.db", "rb") as fh:
    fcntl.flock(fh, fcntl.LOCK_EX)
    fcntl.lockf(fh, fcntl.LOCK_SH)
print(db.execute("select a from t").fetchone()[0], book.execute("select move from book").fetchone()[0])
"""


@pytest.mark.skipif(syscall_filter.support().problem != "", reason="SECCOMP TEST SKIPPED: " +
                    syscall_filter.support().problem)
def test_programs_that_lock_their_own_files_still_work_in_the_sandbox(tmp_path: Path) -> None:
    """Locks succeed as no-ops: SQLite writes its scratch database and reads one in the bot's read-only directory."""
    import sqlite3
    import subprocess

    home = tmp_path / "bot"
    home.mkdir()
    (home / "bot.py").write_text(SQLITE_BOT)
    with sqlite3.connect(home / "book.db") as book:
        book.execute("create table book (move)")
        book.execute("insert into book values ('raise')")
    book.close()
    seat = tmp_path / "seat"
    seat.mkdir(mode=0o700)
    for path in (tmp_path, home, home / "bot.py", home / "book.db"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    jail = sb.BotJail(seat_dir=str(seat), cwd=str(home), settings=ON, hidden=(), uid=None)
    argv, env = jail.wrap([sysconfig.get_config_var("BINDIR") + "/python3", "bot.py"], {"PATH": os.defpath})
    assert "--seccomp" in argv and "seccomp" in sb.decide_isolation(ON).summary
    try:
        done = subprocess.run(argv, env=env, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=300)
    finally:
        jail.close_fds()
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["7", "raise"]


def test_without_libseccomp_the_sandbox_says_so_and_required_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = syscall_filter.FilterSupport(None, "libseccomp cannot be loaded (test)")
    monkeypatch.setattr(syscall_filter, "support", lambda: missing)
    auto = sb.decide_isolation(SandboxSettings(mode=SandboxMode.AUTO))
    assert not auto.syscall_filter and "seccomp" not in auto.summary.split(":")[0]
    assert auto.warning is not None and "libseccomp cannot be loaded" in auto.warning
    assert "file locks" in auto.warning
    with pytest.raises(sb.SandboxError, match="libseccomp"):
        sb.decide_isolation(ON)
    jail = sb.BotJail(seat_dir="/nonexistent", cwd=str(REPO), settings=ON, hidden=(), uid=None)
    argv, _ = jail.wrap(["true"], {"PATH": os.defpath})
    jail.close_fds()  # (the generated /etc and /proc files' descriptors)
    assert "--seccomp" not in argv
