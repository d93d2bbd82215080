"""An ordinary user's limits (a teacher on a shared lab machine): hostile bots in real matches, run as a user.

As root every match here runs in a child process that drops to an ordinary
uid (``setpriv``, uid :data:`USER_UID`); as an ordinary user it runs as is.
Two paths are tested:

- no control groups (an ordinary user without delegation): limits per
  process tree (:mod:`harness.host.treelimits`): a fork bomb is stopped at
  the process limit, a memory hog at the memory limit, busy children do not
  slow the opponent, a bot that widens its CPU affinity is put back;
- a delegated control-group subtree the user owns (made by the test as
  root, as ``cgcreate -a/-t`` or systemd's ``Delegate=yes`` do): the same
  cgroup limits as root.

With ``[sandbox] mode = "off"`` the same attacks get through, so each test can fail.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.host import cgroups, treelimits
from harness.host import sandbox as sb
from harness.specs import CpuPolicy, SandboxMode, SandboxSettings

REPO = Path(__file__).resolve().parents[1]
HOSTILE = REPO / "tests" / "fixtures" / "hostile"
ROOT = os.geteuid() == 0
#: The ordinary uid a root test run drops to (nobody).
USER_UID = 65534
SETPRIV = shutil.which("setpriv")

pytestmark = pytest.mark.slow

#: The child: plays one match as told (JSON on argv[1]) and prints what happened as JSON.
DRIVER = textwrap.dedent("""
    import json, os, sys
    args = json.loads(sys.argv[1])
    if args["wait"]:
        sys.stdin.readline()  # root moves us into the delegated groups first
    from harness.host import cgroups, sandbox
    if args["no_cgroups"]:
        cgroups.probe = lambda: cgroups.CgroupSupport(None, reason="none for this test")
    from harness.engine.config import GameConfig
    from harness.match.referee import play_match
    from harness.specs import BotSpec, CpuPolicy, Limits, MatchSpec, SandboxMode, SandboxSettings
    box = SandboxSettings(mode=SandboxMode(args["mode"]), cpu=CpuPolicy(args["cpu"]), scratch_mb=8)
    plan = sandbox.decide_isolation(box)
    bots = [BotSpec(name=b["name"], command=tuple(b["command"]), cwd=b["cwd"], env=b["env"]) for b in args["bots"]]
    spec = MatchSpec(game=GameConfig(), hands=args["hands"], seed=7, match_id="unpriv")
    cpus = set(args["cpus"]) if args["cpus"] else None
    result = play_match(bots, spec, Limits(**args["limits"]), args["out"], sandbox=box, cpus=cpus)
    print(json.dumps({"uid": os.getuid(), "summary": plan.summary, "tree": plan.tree, "cgroups": plan.cgroups,
                      "hands": result.hands_played, "status": result.status, "faults": result.faults}))
""")


def _user_prefix() -> list[str]:
    if not ROOT:
        return []
    assert SETPRIV is not None
    return [SETPRIV, f"--reuid={USER_UID}", f"--regid={USER_UID}", "--clear-groups"]


def _why_not_as_user() -> str:
    """Why matches cannot run as an ordinary user here ('' when they can)."""
    if ROOT and SETPRIV is None:
        return "setpriv (util-linux) is missing"
    # The interpreter's own files too: a sandbox binds them, and a symlink into /root resolves only for root.
    code = "import os, sys, harness.match.referee; assert os.access(os.path.realpath(sys.executable), os.X_OK)"
    probe = [*_user_prefix(), sys.executable, "-c", code]
    try:
        done = subprocess.run(probe, cwd=REPO, capture_output=True, timeout=60, check=False)
    except OSError as exc:
        return f"{sys.executable} cannot be started as uid {USER_UID}: {exc}"
    if done.returncode != 0:
        return (f"{sys.executable} or {REPO} is not usable by uid {USER_UID} ("
                f"{done.stderr.decode(errors='replace').strip().splitlines()[-1:]}); run the suite as an ordinary "
                "user from a venv of a system Python")
    return ""


WHY_NOT = _why_not_as_user()
SUPPORT = sb.support()
needs_user = pytest.mark.skipif(bool(WHY_NOT), reason=f"ORDINARY-USER TESTS SKIPPED: {WHY_NOT}")
needs_bwrap = pytest.mark.skipif(not SUPPORT.namespaces, reason=(
    f"ORDINARY-USER SANDBOX TESTS SKIPPED: {SUPPORT.namespaces_problem} (apt-get install bubblewrap; .ci/run does)"))

LIMITS = {"decision_ms": 2000, "time_bank_ms": 4000, "startup_ms": 30000, "max_faults": 1000, "memory_mb": 1024}


@pytest.fixture()
def arena() -> Iterator[Path]:
    """A directory the ordinary user can write (tmp_path lies under root's 0700 directory)."""
    path = Path(tempfile.mkdtemp(prefix="harness-unpriv-"))
    path.chmod(0o777)
    yield path
    if not os.environ.get("KEEP_ARENA"):
        shutil.rmtree(path, ignore_errors=True)


def entry(arena: Path, name: str, *command: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    home = arena / name
    if not home.exists():
        shutil.copytree(HOSTILE, home, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
        for path in [home, *home.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    return {"name": name, "command": ["python", *command], "cwd": str(home), "env": env or {}}


def caller(arena: Path) -> dict[str, Any]:
    home = arena / "victim"
    home.mkdir(exist_ok=True)
    home.chmod(0o755)
    return {"name": "victim", "command": ["python", "-m", "bots.caller"], "cwd": str(home), "env": {}}


def play(arena: Path, bots: list[dict[str, Any]], out: str, *, mode: str = "auto", cpu: str = "weight",
         hands: int = 4, limits: dict[str, int] | None = None, cpus: list[int] | None = None,
         no_cgroups: bool = True, groups: list[str] | None = None) -> dict[str, Any]:
    """One match as the ordinary user; ``groups``: cgroup.procs files root moves the child into first."""
    args = {"bots": bots, "out": str(arena / out), "mode": mode, "cpu": cpu, "hands": hands,
            "limits": {**LIMITS, **(limits or {})}, "cpus": cpus, "no_cgroups": no_cgroups, "wait": bool(groups)}
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    child = subprocess.Popen([*_user_prefix(), sys.executable, "-c", DRIVER, json.dumps(args)], cwd=arena,
                             env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for procs in groups or ():
            Path(procs).write_text(str(child.pid))
        out_text, err_text = child.communicate(b"go\n", timeout=200)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err_text.decode(errors="replace")[-3000:]
    result = json.loads(out_text.decode().strip().splitlines()[-1])
    assert result["uid"] != 0 and result["hands"] == hands, result
    return result


def attacks(arena: Path, out: str, seat: int, name: str) -> dict[str, str]:
    found = {}
    for line in (arena / out / "logs" / f"{seat}-{name}.err").read_text().splitlines():
        if line.startswith("ATTACK "):
            attack, _, rest = line[len("ATTACK "):].partition(" ")
            found[attack] = rest
    return found


# ---------------------------------------------------------------------- no control groups: limits per tree


@needs_user
@needs_bwrap
@pytest.mark.parametrize("kind", ["memory", "pids"])
def test_without_cgroups_bombs_are_stopped_at_the_limit_and_get_through_with_the_sandbox_off(
    arena: Path, kind: str
) -> None:
    env = {"BOMB_MB": "100", "BOMB_CHILDREN": "3", "BOMB_PIDS": "60"}
    bomb = entry(arena, "bomb", "bomb.py", kind, env=env)
    name = "memory-bomb" if kind == "memory" else "process-bomb"
    on = play(arena, [bomb, caller(arena)], "on", limits={"memory_mb": 200, "max_processes": 24})
    assert on["tree"] and not on["cgroups"], on
    report = attacks(arena, "on", 0, "bomb")
    assert not report.get(name, "").startswith("SUCCEEDED"), (on, report)
    limit = "memory limit" if kind == "memory" else "process limit"
    assert on["status"][0].startswith("crash") and limit in on["status"][0], on
    assert on["status"][1] == "ok" and on["faults"][1] == {}, "nothing else is affected"
    # Off: per-process limits only (memory_mb each; processes unlimited by default): the bomb gets through.
    off = play(arena, [bomb, caller(arena)], "off", mode="off", limits={"memory_mb": 200})
    assert attacks(arena, "off", 0, "bomb")[name].startswith("SUCCEEDED"), off
    assert off["status"][0] == "ok", off


@needs_user
@needs_bwrap
def test_without_cgroups_a_fork_refused_at_the_limit_is_the_process_limit_after_a_thread_ended(arena: Path) -> None:
    """The kernel refused a fork with the tree at the limit, then one of its threads ended: the watch, which
    looks every 50 ms, must still find the tree at the limit (RLIMIT_NPROC in the jail is one above it)."""
    bomb = entry(arena, "bomb", "bomb.py", "pids", env={"BOMB_PIDS": "60", "BOMB_TRANSIENT": "1"})
    on = play(arena, [bomb, caller(arena)], "on", limits={"max_processes": 24})
    assert on["tree"] and not on["cgroups"], on
    assert on["status"][0].startswith("crash") and "process limit (24" in on["status"][0], on
    assert on["status"][1] == "ok" and on["faults"][1] == {}, on


@needs_user
@needs_bwrap
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["memory", "pids"])
def test_without_cgroups_the_default_limits_stop_what_got_through_before(arena: Path, kind: str) -> None:
    """What an ordinary user's bot did with no limits at all: 600 processes, 2 GiB (3 x 700 MiB, each under the
    per-process limit). Default limits: 256 processes and threads, 1024 MiB for all of the bot's processes."""
    env = {"BOMB_MB": "700", "BOMB_CHILDREN": "3", "BOMB_PIDS": "600"}
    bomb = entry(arena, "bomb", "bomb.py", kind, env=env)
    # An opponent thinking a while each decision: the hands after the bomb's outlast a check of its 256 processes.
    victim = entry(arena, "victim", "thinker.py", env={"THINK_LOOPS": "3000000", "HOSTILE_CALLS": "1"})
    on = play(arena, [bomb, victim], "on", limits={"decision_ms": 5000, "time_bank_ms": 5000})
    name = "memory-bomb" if kind == "memory" else "process-bomb"
    assert not attacks(arena, "on", 0, "bomb").get(name, "").startswith("SUCCEEDED"), on
    limit = "memory limit (1024 MiB" if kind == "memory" else "process limit (256"
    assert on["status"][0].startswith("crash") and limit in on["status"][0], on
    assert on["status"][1] == "ok" and on["faults"][1] == {}, on


@needs_user
@needs_bwrap
def test_without_cgroups_the_process_limit_counts_the_bot_alone(arena: Path) -> None:
    """RLIMIT_NPROC inside the bot's user namespace: the user's other processes do not count (Linux 5.14+)."""
    sleepers = [subprocess.Popen([*_user_prefix(), "sleep", "60"]) for _ in range(30)]
    try:
        bomb = entry(arena, "bomb", "bomb.py", "pids", env={"BOMB_PIDS": "10"})
        on = play(arena, [bomb, caller(arena)], "on", limits={"max_processes": 24})
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    assert attacks(arena, "on", 0, "bomb")["process-bomb"].startswith("SUCCEEDED"), "10 children fit in 24"
    assert on["status"] == ["ok", "ok"], on


def victim_ms(out: Path) -> float:
    """The thinker's (seat 1) typical decision time: the lower quartile of its decisions (ms)."""
    times = sorted(a["ms"] for line in (out / "hands.jsonl").read_text().splitlines()
                   for a in json.loads(line)["actions"] if a["seat"] == 1 and a["ms"] is not None)
    return statistics.quantiles(times, n=4)[0]


@needs_user
@needs_bwrap
@pytest.mark.slow
def test_without_cgroups_busy_children_cannot_slow_the_opponent_down(arena: Path) -> None:
    """Waiting bots are stopped (SIGSTOP): the thinker's decisions with the hog take what they take without it
    (within 20%); with the sandbox off several times longer. Up to four tries, as the machine's load varies."""
    cpu = [max(os.sched_getaffinity(0))]
    limits = {"decision_ms": 3000, "time_bank_ms": 0}
    calls = {"HOSTILE_CALLS": "1"}
    thinker = entry(arena, "thinker", "thinker.py", env={"THINK_LOOPS": "1000000", **calls})
    quiet = entry(arena, "quiet", "hog.py", env={"HOG_CHILDREN": "0", **calls})
    # Six busy children: on a loaded machine the CPU's other sessions share it too, so fewer barely show off.
    hog = entry(arena, "hog", "hog.py", env={"HOG_CHILDREN": "6", **calls})
    tries = []
    for attempt in range(4):
        before = play(arena, [quiet, thinker], f"base{attempt}", limits=limits, cpus=cpu)
        assert before["tree"] and "cpu: freeze by signals" in before["summary"], before
        play(arena, [hog, thinker], f"hog{attempt}", limits=limits, cpus=cpu)
        play(arena, [quiet, thinker], f"after{attempt}", limits=limits, cpus=cpu)
        base = max(victim_ms(arena / f"base{attempt}"), victim_ms(arena / f"after{attempt}"))
        hogged = victim_ms(arena / f"hog{attempt}")
        tries.append((base, hogged))
        if hogged <= 1.2 * base:
            break
    else:
        pytest.fail(f"the hog slowed the thinker down by more than 20% (ms: base, with the hog): {tries}")
    # Off, the same hog slows the thinker down (on a loaded machine, whose other sessions share the CPU too,
    # by less than on an idle one): compared with the sandboxed match with the hog.
    offs = []
    for attempt in range(3):
        play(arena, [hog, thinker], f"off{attempt}", mode="off", limits=limits, cpus=cpu)
        offs.append(victim_ms(arena / f"off{attempt}"))
        if offs[-1] >= 1.5 * hogged:
            break
    else:
        pytest.fail(f"without the sandbox the hog did not slow the thinker down (ms: {tries}, off: {offs})")


@needs_user
@needs_bwrap
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="PIN TEST SKIPPED: needs two CPUs")
@pytest.mark.parametrize("mode", ["auto", "off"])
def test_without_cgroups_a_bot_cannot_leave_its_cpu_pin(arena: Path, mode: str) -> None:
    cpu = [min(os.sched_getaffinity(0))]
    result = play(arena, [entry(arena, "escaper", "escaper.py"), caller(arena)], mode, mode=mode, hands=6, cpus=cpu)
    report = attacks(arena, mode, 0, "escaper")
    assert report["pin-escape-call"].startswith("SUCCEEDED"), "an ordinary process may widen its own affinity"
    assert report["pin-escape"].startswith("FAILED" if mode == "auto" else "SUCCEEDED"), (result, report)


# ---------------------------------------------------------------------- a delegated subtree: the cgroup limits


def skip_text(head: str, why: str | None) -> str:
    """A skip message: ``head``, then ``why`` in parentheses when there is one (never an empty ``()``)."""
    return f"{head} ({why})" if why else head


def v2_delegation_lacks(root: bool, unified: str | None, why_not: str) -> str:
    """What the cgroup v2 delegation test lacks here, joined with "; " ('' when nothing): root, a cgroup2
    mount (``unified``, its mount point or None), an ordinary user (``why_not``, :data:`WHY_NOT`)."""
    return "; ".join(why for why in ("" if root else "not root", "no cgroup2 mount" if unified is None else "",
                                     why_not) if why)


def test_a_skip_message_says_its_reason_or_nothing() -> None:
    assert skip_text("X SKIPPED: needs y", "") == "X SKIPPED: needs y"
    assert skip_text("X SKIPPED: needs y", None) == "X SKIPPED: needs y"
    assert skip_text("X SKIPPED: needs y", "z") == "X SKIPPED: needs y (z)"
    # Root, no cgroup2 mount, an ordinary user usable: the reason is the missing mount, not an empty "()".
    assert v2_delegation_lacks(True, None, "") == "no cgroup2 mount"
    assert v2_delegation_lacks(False, "/sys/fs/cgroup", "") == "not root"
    assert v2_delegation_lacks(True, "/sys/fs/cgroup", "") == ""
    assert v2_delegation_lacks(True, None, "setpriv is missing") == "no cgroup2 mount; setpriv is missing"


@contextlib.contextmanager
def delegated_groups() -> Iterator[list[str]]:
    """As root: a group in each hierarchy the referee uses, owned by :data:`USER_UID` (as ``cgcreate -a -t``);
    yields their ``cgroup.procs`` files. cgroup v1 only (on v2 the parent would need empty-group delegation)."""
    found = SUPPORT.cgroups
    if found.version != "v1":
        pytest.skip(skip_text("DELEGATED-CGROUP TEST SKIPPED: needs cgroup v1 groups as root here",
                              found.reason or found.version))
    made = []
    try:
        for path in dict.fromkeys(parent for _, parent in found.parents):
            group = os.path.join(path, f"harness-deleg-test-{secrets.token_hex(3)}")
            os.mkdir(group)
            made.append(group)
            for name in ("cpuset.cpus", "cpuset.mems"):
                if os.path.exists(os.path.join(group, name)):
                    Path(group, name).write_text(Path(path, name).read_text())
            for f in [group, *(os.path.join(group, n) for n in os.listdir(group))]:
                os.chown(f, USER_UID, USER_UID)
        yield [os.path.join(g, "cgroup.procs") for g in made]
    finally:
        for group in reversed(made):
            cgroups._empty_and_remove(group)


@needs_user
@needs_bwrap
@pytest.mark.skipif(not ROOT, reason="DELEGATED-CGROUP TEST SKIPPED: root makes the delegated groups")
@pytest.mark.parametrize("kind", ["memory", "pids"])
def test_a_user_in_a_delegated_subtree_gets_the_cgroup_limits(arena: Path, kind: str) -> None:
    env = {"BOMB_MB": "100", "BOMB_CHILDREN": "3", "BOMB_PIDS": "60"}
    bomb = entry(arena, "bomb", "bomb.py", kind, env=env)
    with delegated_groups() as procs:
        on = play(arena, [bomb, caller(arena)], "on", mode="required", no_cgroups=False, groups=procs,
                  limits={"memory_mb": 200, "max_processes": 24})
    assert on["cgroups"] and "cgroup v1" in on["summary"] and "cpu: weight" in on["summary"], on
    limit = "memory limit" if kind == "memory" else "process limit"
    assert on["status"][0].startswith("crash") and limit in on["status"][0], on


def test_a_delegated_v2_group_gives_its_processes_a_leaf(tmp_path: Path) -> None:
    """cgroup v2: the harness in a delegated group (systemd-run --scope) moves into a leaf; without write
    access the reason says the group is not delegated. On a real cgroup2 mount when root, else skipped."""
    unified = next((point for point, _, fstype, _ in cgroups._mounts() if fstype == "cgroup2"), None)
    lacking = v2_delegation_lacks(ROOT, unified, WHY_NOT)
    if lacking:
        pytest.skip(skip_text("V2 DELEGATION TEST SKIPPED: needs root, a cgroup2 mount and an ordinary user", lacking))
    own = cgroups._own_paths().get("")
    assert own is not None
    group = os.path.join(unified, own.lstrip("/"), f"harness-deleg-test-{secrets.token_hex(3)}")
    os.mkdir(group)
    code = textwrap.dedent("""
        import sys; sys.stdin.readline()
        from harness.host import cgroups
        group = sys.argv[1]
        print(repr(cgroups._delegation_problem(group)), repr(cgroups._into_leaf(group)))
        print(open("/proc/self/cgroup").read().splitlines()[-1])
    """)
    try:
        # Not ours yet: the reason names the owner.
        child = subprocess.run([*_user_prefix(), sys.executable, "-c",
                                "from harness.host import cgroups; import sys; "
                                "print(cgroups._delegation_problem(sys.argv[1]))", group],
                               cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
        assert "not delegated to you" in child.stdout and "uid 0" in child.stdout, child.stdout
        for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(os.path.join(group, name), USER_UID, USER_UID)
        proc = subprocess.Popen([*_user_prefix(), sys.executable, "-c", code, group], cwd=REPO,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        Path(group, "cgroup.procs").write_text(str(proc.pid))
        out, err = proc.communicate("go\n", timeout=60)
        assert proc.returncode == 0, err
        first, where = out.strip().splitlines()
        assert first == "'' ''", out
        assert where.endswith(f"/{os.path.basename(group)}/{cgroups.LEAF}"), where
    finally:
        cgroups._empty_and_remove(group)


# ---------------------------------------------------------------------- what the plan says


def _support(found: cgroups.CgroupSupport, *, prlimit: bool = True) -> sb.SandboxSupport:
    return sb.SandboxSupport("/usr/bin/bwrap", None, False, "", found, "/usr/bin/prlimit" if prlimit else None)


@pytest.mark.parametrize("prlimit", [True, False])
def test_the_warning_lists_exactly_what_is_missing_without_cgroups(monkeypatch: pytest.MonkeyPatch,
                                                                     prlimit: bool) -> None:
    monkeypatch.setattr(sb, "support", lambda: _support(cgroups.CgroupSupport(None, reason="not delegated"),
                                                          prlimit=prlimit))
    decided = sb.decide_isolation(SandboxSettings())
    assert decided.tree and not decided.cgroups and decided.cpu is CpuPolicy.FREEZE
    assert decided.nproc_in_jail is prlimit
    assert decided.warning is not None and "control groups: not delegated" in decided.warning
    words = " ".join(decided.missing)
    assert "memory for all of a bot's processes together" in words and "RLIMIT_DATA" in words
    assert ("the process limit" in words) is not prlimit
    assert "fair CPU by weight" in words and "SIGSTOP" in words
    assert "the CPU pin" in words
    assert all(m in decided.warning for m in decided.missing)
    assert f"every {round(treelimits.POLL_S * 1000)} ms" in words
    frozen = sb.decide_isolation(SandboxSettings(cpu=CpuPolicy.FREEZE))
    assert not any("fair CPU" in m for m in frozen.missing) and frozen.cpu is CpuPolicy.FREEZE
    with pytest.raises(sb.SandboxError, match="control groups: not delegated.*Delegate=yes"):
        sb.decide_isolation(SandboxSettings(mode=SandboxMode.REQUIRED))


def test_a_delegated_v2_group_without_cpu_or_cpuset_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    found = cgroups.CgroupSupport("v2", (("unified", "/sys/fs/cgroup/user.slice/x.scope"),),
                                  frozenset({"memory", "pids", "cpuacct", "freezer"}))
    monkeypatch.setattr(sb, "support", lambda: _support(found))
    monkeypatch.setattr(sb.syscall_filter, "support", lambda: sb.syscall_filter.FilterSupport(b"", ""))
    decided = sb.decide_isolation(SandboxSettings())
    assert decided.cgroups and not decided.tree and decided.cpu is CpuPolicy.FREEZE
    assert [m.split(" (")[0].split(":")[0] for m in decided.missing] == ["fair CPU by weight", "the CPU pin"]
    with pytest.raises(sb.SandboxError, match="cpu controller is not available"):
        sb.decide_isolation(SandboxSettings(mode=SandboxMode.REQUIRED))
    full = cgroups.CgroupSupport("v2", found.parents, found.controllers | {"cpu", "cpuset"})
    monkeypatch.setattr(sb, "support", lambda: _support(full))
    assert sb.decide_isolation(SandboxSettings(mode=SandboxMode.REQUIRED)).missing == ()
