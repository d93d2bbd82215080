"""BotProcess: limits in the child, capped logs, stop escalation, nothing left behind."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from harness.host.botproc import (
    MARK_ENV,
    OWNER_ENV,
    BotProcess,
    BotStartError,
    bot_path,
    describe_exit,
    find_marked,
    kill_strays,
    stop_all,
)
from harness.specs import BotSpec, Limits

REPO = Path(__file__).resolve().parent.parent


def wait_until(pred: Callable[[], bool], timeout_s: float = 300.0) -> bool:
    """Poll ``pred`` until true or a generous deadline (a bound, not a timing check)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def gone(pid: int) -> bool:
    """True once ``pid`` is dead (a zombie waiting for init to reap it counts as dead)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def py(code: str, name: str = "t", **kw: object) -> BotSpec:
    return BotSpec(name=name, command=("python", "-c", textwrap.dedent(code)), **kw)  # type: ignore[arg-type]


def ours() -> list[int]:
    return find_marked(owner_pid=os.getpid())


@pytest.fixture(autouse=True)
def no_leftovers():
    yield
    left = ours()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes left behind: {left}"


def started(tmp_path: Path, spec: BotSpec, limits: Limits = Limits(), env: dict[str, str] | None = None) -> BotProcess:
    proc = BotProcess(spec, env or {}, tmp_path / "logs", limits, "0-" + spec.name)
    proc.start()
    return proc


def log(proc: BotProcess) -> str:
    return proc.stdout_path.read_text()


READY = "import sys; print('ready', flush=True)\n"


def wait_ready(proc: BotProcess) -> None:
    assert wait_until(lambda: "ready" in log(proc)), "bot never printed ready"


def test_rlimits_are_set_in_the_child(tmp_path: Path) -> None:
    code = """
        import resource as r
        for name in ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CORE",
                     "RLIMIT_NPROC"):
            print(name, *r.getrlimit(getattr(r, name)))
    """
    limits = Limits(memory_mb=512, cpu_seconds=7, open_files=64, max_processes=4000)
    proc = started(tmp_path, py(code), limits)
    assert proc.stop(grace_ms=5000) == "exited"
    got = {line.split()[0]: tuple(map(int, line.split()[1:])) for line in log(proc).splitlines()}
    assert got["RLIMIT_DATA"] == (512 * 2**20, 512 * 2**20)  # not the address space: JVMs reserve far more
    assert got["RLIMIT_AS"] == resource.getrlimit(resource.RLIMIT_AS)
    assert got["RLIMIT_CPU"] == (7, 8)
    assert got["RLIMIT_NOFILE"] == (64, 64)
    assert got["RLIMIT_FSIZE"][0] == 64 * 2**20
    assert got["RLIMIT_CORE"] == (0, 0)
    assert got["RLIMIT_NPROC"] == (4000, 4000)


def test_own_session_and_process_group(tmp_path: Path) -> None:
    proc = started(tmp_path, py("import os; print(os.getsid(0) == os.getpid() == os.getpgid(0))"))
    proc.stop(grace_ms=5000)
    assert log(proc).strip() == "True"


def test_memory_limit_stops_a_greedy_bot(tmp_path: Path) -> None:
    code = "x = bytearray(400 * 2**20)\nprint('allocated')"
    proc = started(tmp_path, py(code), Limits(memory_mb=200))
    proc.stop(grace_ms=5000)
    assert "allocated" not in log(proc)
    assert "MemoryError" in proc.stderr_path.read_text()
    assert proc.returncode != 0


def test_environment_is_allowlisted_and_layered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    code = f"""
        import os
        for k in (
            "AWS_SECRET_ACCESS_KEY", "LC_ALL", "PATH", "FROM_SPEC", "HARNESS_SECRET", "{MARK_ENV}", "{OWNER_ENV}"
        ):
            print(k, os.environ.get(k, "-"))
    """
    spec = py(code, env={"FROM_SPEC": "yes", "HARNESS_SECRET": "spec-cannot-override"})
    proc = started(tmp_path, spec, env={"HARNESS_SECRET": "s3cret"})
    proc.stop(grace_ms=5000)
    got = dict(line.split(" ", 1) for line in log(proc).splitlines())
    assert got["AWS_SECRET_ACCESS_KEY"] == "-"
    assert got["LC_ALL"] == "C.UTF-8"
    assert got["PATH"] == bot_path(os.environ["PATH"])  # the harness's interpreter first
    assert got["FROM_SPEC"] == "yes"
    assert got["HARNESS_SECRET"] == "s3cret"
    assert got[MARK_ENV] == proc.mark
    assert got[OWNER_ENV] == str(os.getpid())


def test_cwd_is_the_specs(tmp_path: Path) -> None:
    work = tmp_path / "botdir"
    work.mkdir()
    proc = started(tmp_path, py("import os; print(os.getcwd())", cwd=str(work)))
    proc.stop(grace_ms=5000)
    assert log(proc).strip() == str(work)


def test_logs_are_capped_and_a_flood_never_blocks(tmp_path: Path) -> None:
    code = """
        import sys
        for _ in range(40):
            sys.stdout.write("o" * 100_000)
            sys.stderr.write("e" * 100_000)
        sys.stdout.flush()
        print("done", file=sys.stderr, flush=True)
    """
    proc = started(tmp_path, py(code), Limits(log_bytes=10_000))
    # Four MB through each pipe: a pipe nobody read would block the bot forever.
    assert proc.stop(grace_ms=20_000) == "exited"
    assert proc.returncode == 0
    for path in (proc.stdout_path, proc.stderr_path):
        data = path.read_bytes()
        assert data.startswith(b"o" * 100 if path == proc.stdout_path else b"e" * 100)
        assert len(data) < 10_000 + 200
        assert b"[log truncated" in data


def test_small_output_is_kept_whole(tmp_path: Path) -> None:
    proc = started(tmp_path, py("import sys; print('hello'); print('oops', file=sys.stderr)"))
    proc.stop(grace_ms=5000)
    assert log(proc) == "hello\n"
    assert proc.stderr_path.read_text() == "oops\n"


def test_stop_returns_exited_for_a_bot_that_quits(tmp_path: Path) -> None:
    proc = started(tmp_path, py("print('bye')"))
    assert proc.stop(grace_ms=5000) == "exited"
    assert proc.poll() == 0


def test_stop_returns_sigterm_for_a_bot_that_waits(tmp_path: Path) -> None:
    proc = started(tmp_path, py(READY + "import time; time.sleep(60)"))
    wait_ready(proc)
    assert proc.poll() is None
    assert proc.stop(grace_ms=50) == "sigterm"
    assert proc.poll() == -signal.SIGTERM


def test_stop_returns_sigkill_for_a_bot_ignoring_sigterm(tmp_path: Path) -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + READY + "time.sleep(60)"
    proc = started(tmp_path, py(code))
    wait_ready(proc)
    assert proc.stop(grace_ms=50) == "sigkill"
    assert proc.poll() == -signal.SIGKILL
    assert gone(proc.pid)


def test_stop_is_idempotent(tmp_path: Path) -> None:
    proc = started(tmp_path, py(READY + "import time; time.sleep(60)"))
    wait_ready(proc)
    first = proc.stop(grace_ms=20)
    assert proc.stop(grace_ms=20) == first == "sigterm"


def test_stop_before_start_is_harmless(tmp_path: Path) -> None:
    proc = BotProcess(py("pass"), {}, tmp_path, Limits(), "0-t")
    assert proc.stop() == "exited"
    assert proc.poll() is None


GRANDCHILDREN = """
    import os, signal, subprocess, sys, time
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    # A child that ignores SIGTERM, in the bot's group.
    a = subprocess.Popen([sys.executable, "-c", stubborn])
    # A double-forked daemon in its own session: no longer in the group nor below the bot.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            print("daemon", os.getpid(), flush=True)
            time.sleep(60)
        os._exit(0)
    print("child", a.pid, flush=True)
    time.sleep(0.2)
    print("ready", flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("exit_first", [False, True])
def test_children_and_escaped_daemons_are_killed(tmp_path: Path, exit_first: bool) -> None:
    code = GRANDCHILDREN
    if exit_first:  # the bot exits by itself, leaving its children to init
        code = code.replace('print("ready", flush=True)\n    time.sleep(60)', 'print("ready", flush=True)')
    proc = started(tmp_path, py(code))
    assert wait_until(lambda: "ready" in log(proc) and "daemon" in log(proc))
    pids = [int(line.split()[1]) for line in log(proc).splitlines() if line.split()[0] in ("child", "daemon")]
    assert len(pids) == 2 and all(psutil.pid_exists(p) for p in pids)
    if exit_first:
        assert wait_until(lambda: proc.poll() is not None)
    step = proc.stop(grace_ms=50)
    assert step == ("exited" if exit_first else "sigterm")
    assert wait_until(lambda: all(gone(p) for p in pids))


@pytest.mark.parametrize(
    ("command", "cwd", "message"),
    [
        (("no-such-bot-command-xyz",), None, "not found on PATH"),
        (("./missing.py",), None, "not found"),
        (("python", "-c", "pass"), "/no/such/dir", "does not exist"),
        ((), None, "empty command"),
    ],
)
def test_bad_commands_raise_bot_start_error(
    tmp_path: Path, command: tuple[str, ...], cwd: str | None, message: str
) -> None:
    proc = BotProcess(BotSpec("bad", command, cwd=cwd), {}, tmp_path, Limits(), "0-bad")
    with pytest.raises(BotStartError, match=message) as info:
        proc.start()
    assert "'bad'" in str(info.value)


def test_not_executable_raises_bot_start_error(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(0o644)
    proc = BotProcess(BotSpec("bad", ("./bot.py",), cwd=str(tmp_path)), {}, tmp_path, Limits(), "0-bad")
    with pytest.raises(BotStartError, match="not executable"):
        proc.start()


def test_bot_dies_with_a_killed_referee(tmp_path: Path) -> None:
    referee = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from harness.host.botproc import BotProcess
        from harness.specs import BotSpec, Limits
        spec = BotSpec("b", ("python", "-c", "import time; time.sleep(60)"))
        p = BotProcess(spec, {{}}, Path({str(tmp_path)!r}), Limits(), "0-b")
        p.start()
        print(p.pid, flush=True)
        time.sleep(60)
        """
    )
    ref = subprocess.Popen([sys.executable, "-c", referee], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert ref.stdout is not None
        bot_pid = int(ref.stdout.readline())
        assert psutil.pid_exists(bot_pid)
        ref.kill()  # kill -9: no cleanup code runs in the referee
        ref.wait()
        assert wait_until(lambda: gone(bot_pid))
    finally:
        ref.kill()
        ref.wait()


def test_kill_strays_finds_orphans_of_a_dead_referee(tmp_path: Path) -> None:
    # A marked process whose owner pid is dead, as a bot's child is after kill -9.
    dead = subprocess.Popen(["true"])
    dead.wait()
    env = {**os.environ, MARK_ENV: "stray", OWNER_ENV: str(dead.pid)}
    stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env)
    try:
        assert wait_until(lambda: stray.pid in find_marked(mark="stray"))
        assert stray.pid not in kill_strays(owner_pid=os.getpid())
        assert stray.pid in kill_strays()
        assert stray.wait(timeout=300) == -signal.SIGKILL
    finally:
        stray.kill()
        stray.wait()


def test_describe_exit() -> None:
    assert describe_exit(None) == "still running"
    assert describe_exit(3) == "exit status 3"
    assert "CPU-time limit" in describe_exit(-signal.SIGXCPU)
    assert describe_exit(-signal.SIGTERM) == "killed by SIGTERM"


def test_stop_all_stops_each_bot_at_its_own_step(tmp_path: Path) -> None:
    quits = py("print('bye')", name="quits")
    waits = py(READY + "import time; time.sleep(60)", name="waits")
    stubborn = py(
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + READY + "time.sleep(60)",
        name="stubborn",
    )
    procs = [
        BotProcess(s, {}, tmp_path / "logs", Limits(), f"{i}-{s.name}") for i, s in enumerate((quits, waits, stubborn))
    ]
    for p in procs:
        p.start()
    for p in procs[1:]:
        wait_ready(p)
    assert wait_until(lambda: procs[0].poll() is not None)
    assert stop_all(procs, grace_ms=50) == ["exited", "sigterm", "sigkill"]
    assert [p.stop() for p in procs] == ["exited", "sigterm", "sigkill"]


JAVA_BOT = """
public class Hello {
    public static void main(String[] args) {
        byte[][] held = new byte[50][];
        for (int i = 0; i < held.length; i++) held[i] = new byte[1 << 20];
        System.out.println("java ok, heap up to " + Runtime.getRuntime().maxMemory() / 1048576 + " MiB");
    }
}
"""


@pytest.mark.skipif(shutil.which("java") is None, reason="JVM TEST SKIPPED: no java (apt-get install "
                    "default-jre-headless; .ci/run does)")
def test_a_jvm_starts_under_the_per_process_memory_limit(tmp_path: Path) -> None:
    """RLIMIT_DATA, not RLIMIT_AS (which a JVM's reservations exceed), and the heap sized from memory_mb:
    a default JVM on a 24 GiB machine commits more than 1 GiB at start, so RLIMIT_DATA alone stops it."""
    (tmp_path / "Hello.java").write_text(JAVA_BOT)
    spec = BotSpec(name="jvm", command=("java", "Hello.java"), cwd=str(tmp_path))
    proc = started(tmp_path, spec, Limits(memory_mb=1024))
    assert wait_until(lambda: proc.poll() is not None)
    proc.stop(grace_ms=100)
    assert "java ok, heap up to 256 MiB" in log(proc), proc.stderr_path.read_text()[-2000:]
