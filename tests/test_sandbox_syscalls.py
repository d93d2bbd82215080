"""The syscall allow-list and the empty session keyring (harness/host/syscall_filter.py, botproc.py).

Hostile bots (tests/fixtures/hostile) in real matches, sandbox on (the
attempt fails, nothing is learned) and off (it works, so the tests can
fail): cards passed through the kernel keyring to the next match on the
same deals and to a colluder at the table, the organiser's possessor-only
session key, nested namespaces, mounts, ptrace. Then programs of the
languages bot authors use start and play under the allow-list: Python,
Node, the JVM, a static C binary and a Rust binary (each skipped, saying
why, when its runtime or toolchain is missing).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.history.files import find_history, read_history
from harness.host import syscall_filter
from harness.specs import BotSpec, SandboxSettings
from tests.sandbox_helpers import (
    HOSTILE,
    LIMITS,
    MODES,
    OFF,
    ON,
    REPO,
    attacks,
    caller,
    entry,
    play,
    processes_with,
    succeeded,
)
from tests.sandbox_helpers import SANDBOX_MARKS as sandbox_marks

pytestmark = [
    pytest.mark.slow,
    *sandbox_marks,
    pytest.mark.skipif(
        syscall_filter.support().problem != "",
        reason="SECCOMP TESTS SKIPPED: " + syscall_filter.support().problem
        + " (.ci/run installs libseccomp2; pip install pyseccomp)",
    ),
]

_spec = importlib.util.spec_from_file_location("hostile_keys", HOSTILE / "_keys.py")
assert _spec is not None and _spec.loader is not None
keys = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(keys)

KEYRING = Path("/proc/keys").exists()
needs_keys = pytest.mark.skipif(not KEYRING, reason="KEYRING TESTS SKIPPED: this kernel has no /proc/keys")


@pytest.fixture()
def arena(tmp_path: Path) -> Iterator[Path]:
    """Where the entries live (readable by the bots' uids); whatever a bot left on the host is removed afterwards."""
    tmp_path.chmod(0o755)
    yield tmp_path
    for proc in processes_with(str(tmp_path)):
        proc.kill()


def learned(out: Path, seat: int, name: str) -> list[tuple[int, int, list[str]]]:
    """The cards a hostile bot says it learned: (hand, seat, cards)."""
    found = []
    for line in (out / "logs" / f"{seat}-{name}.err").read_text().splitlines():
        if line.startswith("COLLUDE "):
            _, _, hand, other, *cards = line.split()
            found.append((int(hand), int(other), cards))
    return found


def dealt(out: Path) -> dict[int, list[list[str]]]:
    """Per hand, each seat's dealt cards, sorted, from the match's hand history."""
    history = find_history(out)
    assert history is not None
    return {h["hand_id"]: [sorted(p["dealt"]) for p in h["players"]] for h in read_history(history)}


@pytest.fixture()
def token() -> Iterator[str]:
    """A fresh key name prefix; every key left under it (visible to this process) is removed afterwards."""
    name = uuid.uuid4().hex[:12]
    yield name
    for serial in keys.listed(f"hostile-{name}").values():
        try:
            keys.invalidate(serial)
        except OSError:
            pass


@needs_keys
@pytest.mark.parametrize("box", MODES)
def test_keys_written_in_one_match_are_not_read_in_the_next(arena: Path, token: str, box: SandboxSettings) -> None:
    """Duplicate rotations deal the same cards: a key left by match 1 would give match 2 the opponent's cards.

    As root the two matches' bots run as different uids: the key would outlive its uid's sandbox."""
    env = {"KEYS_TOKEN": token}
    first, second = arena / "first", arena / "second"
    play([entry(arena, "keys", "keys.py", env=env), caller(arena)], first, box)
    play([caller(arena), entry(arena, "keys", "keys.py", env=env)], second, box)
    wrote, read = attacks(first, 0, "keys"), attacks(second, 1, "keys")
    got = learned(second, 1, "keys")
    if box is ON:
        assert "key-write" not in succeeded(wrote) and "key-read" not in succeeded(read), (wrote, read)
        assert "EPERM" in wrote["key-write"], wrote
        assert got == [] and keys.listed(f"hostile-{token}") == {}
    else:
        assert {"key-write"} <= succeeded(wrote) and {"key-read"} <= succeeded(read), (wrote, read)
        deals = dealt(second)
        assert dealt(first) == deals, "the two seatings share their deals"
        # The key of match 1's seat 0 (the bot itself then) holds its opponent's cards now.
        opponent = [(hand, cards) for hand, seat, cards in got if seat == 0]
        assert len(opponent) == len(deals) and all(cards == deals[hand][0] for hand, cards in opponent), got


@needs_keys
@pytest.mark.parametrize("box", MODES)
def test_colluders_at_one_table_cannot_swap_cards_through_keys(arena: Path, token: str, box: SandboxSettings) -> None:
    env = {"KEYS_TOKEN": token, "HOSTILE_CALLS": "1"}
    out = arena / "out"
    result = play([entry(arena, "k1", "keys.py", env=env), entry(arena, "k2", "keys.py", env=env)], out, box, hands=6)
    reports = [attacks(out, 0, "k1"), attacks(out, 1, "k2")]
    got = {seat: learned(out, seat, name) for seat, name in enumerate(("k1", "k2"))}
    if box is ON:
        assert all(succeeded(r) == set() for r in reports), reports
        assert got == {0: [], 1: []}
        assert result.status == ["ok", "ok"] and result.faults == [{}, {}]
    else:
        assert all("key-read" in succeeded(r) for r in reports), reports
        deals = dealt(out)
        for me, lines in got.items():
            assert lines and all(seat != me and cards == deals[hand][seat] for hand, seat, cards in lines), lines


@pytest.fixture()
def planted_key() -> Iterator[tuple[str, str]]:
    """A key only its possessor may read (view, read, search: possessor only), in a new session keyring of
    this thread, as the organiser's login session holds a Kerberos ticket: (description, payload)."""
    join = keys.LIBC.syscall(keys.KEYCTL, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: bots started from here inherit it
    assert join > 0, "cannot join a new session keyring"
    description, payload = f"hostile-planted-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex
    serial = keys.add_key(description, payload.encode(), keys.KEY_SPEC_SESSION_KEYRING, perm=0x3F000000)
    try:
        yield description, payload
    finally:
        keys.invalidate(serial)


SESSION_MODES = [*MODES, pytest.param("no-seccomp", id="sandbox-on-without-seccomp")]


@needs_keys
@pytest.mark.parametrize("box", SESSION_MODES)
def test_a_bot_does_not_possess_the_organisers_session_keyring(
    arena: Path, planted_key: tuple[str, str], box: SandboxSettings | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The organiser's possessor-only key: read by a bot without the sandbox; not with it, even when a keyring
    call gets through (the filter removed: only the fresh session keyring stands in the way)."""
    description, payload = planted_key
    if box == "no-seccomp":
        monkeypatch.setattr(syscall_filter, "program", lambda: None)
        box = ON
    assert isinstance(box, SandboxSettings)
    bot = entry(arena, "keys", "keys.py", env={"KEYS_TOKEN": uuid.uuid4().hex[:12], "KEYS_PLANTED": description})
    play([bot, caller(arena)], arena / "out", box)
    report = attacks(arena / "out", 0, "keys")
    log = (arena / "out" / "logs" / "0-keys.err").read_text()
    if box is OFF:
        assert report["session-key"] == f"SUCCEEDED: {payload}", report
    else:
        assert report["session-key"].startswith("FAILED") and payload not in log, report
        filtered = syscall_filter.program() is not None
        assert ("EPERM" in report["session-key"]) == filtered, report  # without the filter: ENOKEY, not possessed


@pytest.mark.parametrize("box", MODES)
def test_nested_namespaces_mounts_and_ptrace_are_refused(arena: Path, box: SandboxSettings) -> None:
    """As root inside the sandbox a new user namespace, then a mount namespace and a tmpfs, used to succeed."""
    result = play([entry(arena, "nester", "nester.py"), caller(arena)], arena / "out", box)
    report = attacks(arena / "out", 0, "nester")
    names = {"unshare-user", "unshare-mount", "clone-newuser", "clone3", "ptrace", "userfaultfd", "keyctl"}
    assert names <= set(report), report
    if box is ON:
        assert succeeded(report) == set(), report
        assert report["clone3"] == "FAILED: ENOSYS", report  # so that libc falls back to clone
        assert all(report[n] == "FAILED: EPERM" for n in names - {"clone3"}), report
        assert result.status == ["ok", "ok"] and result.faults[1] == {}
    else:
        assert names - {"userfaultfd"} <= succeeded(report), report


# ---------------------------------------------------------------------- languages under the allow-list


def run_one(arena: Path, bot: BotSpec) -> None:
    """``bot`` plays a short match against ``bots.caller`` in the sandbox: it starts, and every decision is its."""
    out = arena / "out"
    result = play([bot, caller(arena)], out, ON, limits=dataclasses.replace(LIMITS, startup_ms=20_000))
    err = (out / "logs" / f"0-{bot.name}.err").read_text()
    assert result.status == ["ok", "ok"] and result.faults == [{}, {}], (result.status, result.faults, err[-2000:])
    assert "seccomp" in (out / "logs" / "referee.log").read_text()


def own_dir(arena: Path, name: str, *files: Path) -> Path:
    home = arena / name
    home.mkdir()
    for f in files:
        shutil.copy(f, home / f.name)
    return home


def test_python_plays_under_the_allow_list(arena: Path) -> None:
    run_one(arena, BotSpec(name="python", command=("python", "-m", "bots.solid"), cwd=str(own_dir(arena, "py"))))


NODE, NPM = shutil.which("node"), shutil.which("npm")


@pytest.mark.skipif(NODE is None or NPM is None, reason="NODE TEST SKIPPED: needs `node` and `npm` on PATH")
def test_node_plays_under_the_allow_list(arena: Path) -> None:
    home = arena / "node"
    shutil.copytree(REPO / "bots" / "node", home, ignore=shutil.ignore_patterns("node_modules"))
    done = subprocess.run([str(NPM), "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=home, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"npm ci failed in {home}:\n{done.stdout}\n{done.stderr}"
    subprocess.run(["chmod", "-R", "a+rX", str(home)], check=True)
    run_one(arena, BotSpec(name="node", command=("node", "bot.js"), cwd=str(home)))


JAVA = shutil.which("java")
JARS = [Path("/usr/share/java/zmq.jar"), Path("/usr/share/java/msgpack-core.jar")]
JNI = Path("/usr/lib") / f"{os.uname().machine}-linux-gnu" / "jni"


@pytest.mark.skipif(JAVA is None or not all(j.exists() for j in JARS) or not (JNI / "libjzmq.so").exists(),
                    reason="JVM TEST SKIPPED: needs `java` (default-jre-headless), libzmq-java and libmsgpack-java")
def test_a_jvm_plays_under_the_allow_list(arena: Path) -> None:
    """A minimal Java bot (tests/fixtures/langs/Bot.java), compiled with the JDK's compiler module that the JRE
    image carries, runs with a 256 MiB heap in the 1 GiB the sandbox gives all its processes."""
    home = own_dir(arena, "java", REPO / "tests" / "fixtures" / "langs" / "Bot.java")
    classpath = ":".join(str(j) for j in JARS)
    done = subprocess.run([str(JAVA), "-m", "jdk.compiler/com.sun.tools.javac.Main", "-cp", classpath, "-d",
                           str(home), str(home / "Bot.java")], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "jdk.compiler" in done.stderr:
        pytest.skip(f"JVM TEST SKIPPED: this Java has no compiler module ({done.stderr.strip()[:200]})")
    assert done.returncode == 0, done.stderr
    subprocess.run(["chmod", "-R", "a+rX", str(home)], check=True)
    command = ("java", "-Xmx256m", "-XX:+UseSerialGC", f"-Djava.library.path={JNI}", "-cp", f"{home}:{classpath}",
               "Bot")
    run_one(arena, BotSpec(name="java", command=command, cwd=str(home)))


def prelude_bot(arena: Path, binary: Path) -> BotSpec:
    """A compiled prelude (tests/fixtures/langs) that makes a program's usual calls, then becomes bots.caller."""
    return BotSpec(name="prelude", command=(f"./{binary.name}", sys.executable, "-m", "bots.caller"),
                   cwd=str(binary.parent))


def assert_prelude_ran(arena: Path) -> None:
    err = (arena / "out" / "logs" / "0-prelude.err").read_text()
    assert "PRELUDE OK" in err and "PRELUDE FAILED" not in err, err[-2000:]


GCC = shutil.which("gcc")


@pytest.mark.skipif(GCC is None, reason="STATIC C TEST SKIPPED: needs gcc (and libc6-dev for -static)")
def test_a_static_c_binary_runs_under_the_allow_list(arena: Path) -> None:
    home = own_dir(arena, "c", REPO / "tests" / "fixtures" / "langs" / "prelude.c")
    build = [str(GCC), "-static", "-pthread", "-O2", "-o", str(home / "prelude"), str(home / "prelude.c")]
    done = subprocess.run(build, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and ("cannot find -lc" in done.stderr or "libc.a" in done.stderr):
        pytest.skip(f"STATIC C TEST SKIPPED: no static C library (apt-get install libc6-dev): {done.stderr[:200]}")
    assert done.returncode == 0, done.stderr
    assert b"INTERP" not in subprocess.run(["readelf", "-l", str(home / "prelude")], capture_output=True).stdout
    (home / "prelude").chmod(0o755)
    run_one(arena, prelude_bot(arena, home / "prelude"))
    assert_prelude_ran(arena)


RUSTC = shutil.which("rustc")


@pytest.mark.skipif(RUSTC is None, reason="RUST TEST SKIPPED: needs rustc on PATH")
def test_a_rust_binary_runs_under_the_allow_list(arena: Path) -> None:
    home = own_dir(arena, "rust", REPO / "tests" / "fixtures" / "langs" / "prelude.rs")
    done = subprocess.run([str(RUSTC), "-O", "-o", str(home / "prelude"), str(home / "prelude.rs")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (home / "prelude").chmod(0o755)
    run_one(arena, prelude_bot(arena, home / "prelude"))
    assert_prelude_ran(arena)


GO = shutil.which("go")


@pytest.mark.skipif(GO is None, reason="GO TEST SKIPPED: needs the go toolchain on PATH")
def test_a_go_binary_runs_under_the_allow_list(arena: Path, tmp_path: Path) -> None:
    home = arena / "go"
    home.mkdir()
    (home / "main.go").write_text(GO_PRELUDE)
    env = {**os.environ, "GOCACHE": str(tmp_path / "gocache"), "GOPATH": str(tmp_path / "gopath"), "CGO_ENABLED": "0"}
    done = subprocess.run([str(GO), "build", "-o", str(home / "prelude"), str(home / "main.go")], cwd=home, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    run_one(arena, prelude_bot(arena, home / "prelude"))
    assert_prelude_ran(arena)


#: A static Go program's usual work (goroutines on threads, a timer, files, os/exec), then exec of its arguments.
GO_PRELUDE = """package main

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "PRELUDE FAILED %s: %v\\n", what, err)
	os.Exit(1)
}

func main() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(time.Millisecond) }()
	}
	wg.Wait()
	if _, err := os.ReadFile("/etc/passwd"); err != nil {
		fail("read", err)
	}
	if err := os.WriteFile("/tmp/prelude.txt", []byte("x"), 0o600); err != nil {
		fail("write", err)
	}
	if err := exec.Command("/bin/true").Run(); err != nil {
		fail("exec.Command", err)
	}
	fmt.Fprintln(os.Stderr, "PRELUDE OK")
	fail("exec", syscall.Exec(os.Args[1], os.Args[1:], os.Environ()))
}
"""

