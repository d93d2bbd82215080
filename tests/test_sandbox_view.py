"""What a sandboxed bot sees: a masked /proc and /dev, its own users, its program's files only.

Colluder pairs measure, in bits per hand, what each counter the sandboxes
share still carries from one bot to another; a bot whose command lives in
the organiser's ``~/.local/bin`` tries to read ``~/.local/share``; a bot
checks at start that its uid has a name and a home. Each runs with the
sandbox on (closed, refused, resolved) and off (the attack works, so the
test can fail).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from harness.host import sandbox as sb
from harness.specs import BotSpec, SandboxMode, SandboxSettings
from tests.sandbox_helpers import (
    HOSTILE,
    LIMITS,
    OFF,
    ROOT,
    SUPPORT,
    attacks,
    counter_colluders,
    entry,
    play,
    succeeded,
)

pytestmark = pytest.mark.slow
needs_bwrap = pytest.mark.skipif(
    not SUPPORT.namespaces,
    reason=f"SANDBOX TEST SKIPPED: bubblewrap cannot run here ({SUPPORT.namespaces_problem}); install "
    "bubblewrap (apt-get install bubblewrap; .ci/run does)",
)

#: What is tested here is bubblewrap's part: without control groups (an ordinary user without a delegated
#: cgroup) the sandbox runs on in "auto" mode.
ON = SandboxSettings(mode=SandboxMode.REQUIRED if SUPPORT.cgroups.available else SandboxMode.AUTO, scratch_mb=8)
MODES = [pytest.param(ON, id="sandbox-on"), pytest.param(OFF, id="sandbox-off")]



@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_colluders_pass_nothing_through_the_pseudo_terminal_count(arena: Path, box: SandboxSettings) -> None:
    """Opens of /dev/ptmx moved /proc/sys/kernel/pty/nr: 6 bits per hand between two colluders.
    In the sandbox there is neither a /dev/ptmx nor a /proc/sys/kernel/pty/nr."""
    bits, sender, receiver = counter_colluders(arena, "pty", box, hands=30)
    if box is ON:
        assert bits < 0.5, bits
        assert sender["pty"].startswith("FAILED") and "ptmx" in sender["pty"], sender
        assert receiver["pty"].startswith("FAILED") and "pty/nr" in receiver["pty"], receiver
    else:
        assert bits > 5.5, bits  # every hand's 6 bits
        assert succeeded(sender) == succeeded(receiver) == {"pty"}


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
@pytest.mark.parametrize("channel", ["loadavg", "meminfo", "stat"])
def test_colluders_pass_nothing_through_the_counters_of_proc(arena: Path, box: SandboxSettings,
                                                             channel: str) -> None:
    """/proc/loadavg (tasks), /proc/meminfo (available memory) and /proc/stat (forks) are generated per bot
    in the sandbox: fixed, so nothing passes. Without it they carry bits (how many depends on the machine's
    other load; see docs/security.md "Collusion")."""
    bits, _, receiver = counter_colluders(arena, channel, box, hands=30)
    print(f"{channel} {'on' if box is ON else 'off'}: {bits:.2f} bits per hand; {receiver[channel]}")
    if box is ON:
        assert bits < 0.5, bits
        assert receiver[channel] == "FAILED: decoded 30 hands; 1 distinct readings", receiver
    elif succeeded(receiver) != {channel}:
        # The control: without the sandbox the counter carries bits, unless this machine's other load or
        # the way it counts (memory rounded on a large machine) drowns the sender's signal. Say so; do not pass.
        pytest.skip(f"CONTROL INCONCLUSIVE: unsandboxed, /proc/{channel} carried nothing this run ({receiver}); "
                    "on this machine the counter did not follow the sender (its other load, or how it counts)")


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_colluders_pass_nothing_through_the_task_count_of_sysinfo(arena: Path, box: SandboxSettings) -> None:
    """sysinfo(2)'s task count (``procs``) carried 3.1-3.8 bits per hand between two colluders, sandbox on
    or off: a system call, which no mount masks. In the sandbox the referee answers it with fixed values
    (harness.host.sysinfo_supervisor): ``procs`` is always 1, so nothing passes."""
    bits, _, receiver = counter_colluders(arena, "sysinfo", box, hands=30)
    print(f"sysinfo {'on' if box is ON else 'off'}: {bits:.2f} bits per hand; {receiver['sysinfo']}")
    if box is ON:
        assert sb.decide_isolation(box).sysinfo, sb.decide_isolation(box).warning
        assert bits < 0.5, bits
        assert receiver["sysinfo"] == "FAILED: decoded 30 hands; 1 distinct readings", receiver
    else:  # the kernel's count: the sender's threads move it
        assert succeeded(receiver) == {"sysinfo"}, receiver
        assert bits > 1.0, bits


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_a_bot_sizes_itself_from_its_memory_limit_through_sysinfo(arena: Path, box: SandboxSettings) -> None:
    """glibc's ``sysconf(_SC_PHYS_PAGES)`` (the JVM's default heap) is sysinfo(2)'s total memory. In the
    sandbox the referee's answer says the bot's memory limit (as its /proc/meminfo), no swap, no load, one
    task, the real uptime; a bad pointer fails with EFAULT, as the kernel says. Without the sandbox it is
    the kernel's: the machine's memory and tasks."""
    limits = dataclasses.replace(LIMITS, memory_mb=300)
    out = arena / "out"
    result = play([entry(arena, "memsize", "memsize.py"), entry(arena, "caller", "identity.py")], out, box,
                  hands=2, limits=limits)
    log = (out / "logs" / "0-memsize.err").read_text()
    assert result.status[0] == "ok", log
    lines = dict(line.split(" ", 1) for line in log.splitlines() if line.startswith(("SYSCONF", "SYSINFO")))
    fields = dict(item.split("=") for item in lines["SYSINFO"].split())
    host_ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert lines["SYSINFO-NULL"] == str(errno.EFAULT), log
    if box is ON:
        assert int(lines["SYSCONF"]) == 300 << 20, log
        assert fields["totalram"] == fields["freeram"] == str(300 << 20), fields
        assert (fields["procs"], fields["loads"], fields["totalswap"]) == ("1", "0,0,0", "0"), fields
        with open("/proc/uptime") as fh:
            assert abs(int(fields["uptime"]) - float(fh.read().split()[0])) < 120, fields
    else:
        assert int(lines["SYSCONF"]) == host_ram != 300 << 20, log
        assert int(fields["procs"]) > 1, fields  # the machine runs more than this bot


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_a_bot_that_looks_itself_up_at_start_finds_a_name_and_a_home(arena: Path, box: SandboxSettings) -> None:
    """The seat's uid (60528 as root; the user namespace's as an ordinary user) had no passwd entry:
    ``getpass.getuser()`` raised KeyError and the bot failed to start. In the sandbox
    it is ``bot`` with home /tmp, and /etc/passwd lists none of the organiser's users."""
    env = {"IDENTITY_ENV": "1"} if box is ON else {}  # without the sandbox USER is the organiser's business
    bot = entry(arena, "identity", "identity.py", env=env)
    out = arena / "out"
    result = play([bot, entry(arena, "caller", "identity.py", env=env)], out, box, hands=2)
    assert result.status == ["ok", "ok"], (out / "logs" / "0-identity.err").read_text()
    log = (out / "logs" / "0-identity.err").read_text()
    report = attacks(out, 0, "identity")
    if box is ON:
        assert f"IDENTITY {sb.BOT_USER} /tmp {sb.BOT_USER}" in log, log
        assert report["passwd-users"] == f"FAILED: {sb.BOT_USER} nobody root", report
    else:  # the organiser's own passwd: its users are there (root's at least, and the system's)
        assert report["passwd-users"].startswith("SUCCEEDED"), report


def test_the_generated_users_name_the_uid_and_gid_they_are_given() -> None:
    files = sb.etc_files(60528, 60528)
    assert f"{sb.BOT_USER}:x:60528:60528:poker bot:/tmp:/bin/sh\n" in files["passwd"]
    assert f"{sb.BOT_USER}:x:60528:\n" in files["group"]
    assert "passwd: files\n" in files["nsswitch.conf"] and "group: files\n" in files["nsswitch.conf"]
    ordinary = sb.etc_files(1001, 1002)  # an ordinary user: its own uid and gid in the user namespace
    assert f"{sb.BOT_USER}:x:1001:1002:" in ordinary["passwd"] and f"{sb.BOT_USER}:x:1002:\n" in ordinary["group"]
    assert [line.split(":")[0] for line in ordinary["passwd"].splitlines()] == ["root", sb.BOT_USER, "nobody"]


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_a_command_in_the_organisers_local_bin_sees_only_itself_not_local_share(
    arena: Path, box: SandboxSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot found on the PATH in ~/.local/bin got all of ~/.local and read a mode-600 file under
    ~/.local/share. The sandbox shows the command file (and its interpreter's tree)."""
    home = arena / "home"
    local_bin = home / ".local" / "bin"
    share = home / ".local" / "share" / "keyrings"
    local_bin.mkdir(parents=True)
    share.mkdir(parents=True)
    secret = share / "login.keyring"
    secret.write_text("organiser's password\n")
    secret.chmod(0o600)
    command = local_bin / "pokerbot"
    command.write_text(f"#!{sys.executable}\n" + (HOSTILE / "localbin.py").read_text())
    command.chmod(0o755)
    for path in (home, home / ".local", local_bin, home / ".local" / "share"):
        path.chmod(0o755)  # as a home usually is: others may look (the seat's uid too, as root)
    monkeypatch.setenv("HOME", str(home))
    entry(arena, "local", "unused")  # its directory: the hostile bots' files
    bot = BotSpec(name="local", command=("pokerbot",), cwd=str(arena / "local"), env={
        "PATH": f"{local_bin}:{os.environ.get('PATH', os.defpath)}", "LOCAL_SECRET": str(secret),
        "LOCAL_HOME": str(home)})
    out = arena / "out"
    result = play([bot, entry(arena, "caller", "identity.py")], out, box, hands=2)
    assert result.status[0] == "ok", (out / "logs" / "0-local.err").read_text()
    report = attacks(out, 0, "local")
    if box is ON:
        assert "FileNotFoundError" in report["local-share"], report  # not there at all, not only unreadable
        assert report["local-listing"] == "SUCCEEDED: bin", report  # only the command's own directory
    else:
        assert report["local-share"] == "SUCCEEDED: organiser's password", report
        assert "share" in report["local-listing"], report


def test_the_program_view_is_the_program_and_its_own_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What :func:`install_tree` adds to a program file: a venv, a runtime's own tree outside or inside
    the home; never a shared prefix in the home, the home or a parent of it."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))

    def program(path: Path) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        return str(path)

    assert sb.install_tree(program(home / ".local" / "bin" / "bot")) is None
    assert sb.install_tree(program(home / "bin" / "bot")) is None  # the prefix would be the home itself
    assert sb.install_tree(program(home / "bot")) is None
    venv = home / "envs" / "bot"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    assert sb.install_tree(program(venv / "bin" / "python")) == str(venv)
    jdk = home / "jdk-21"
    (jdk / "lib").mkdir(parents=True)
    (jdk / "release").write_text('JAVA_VERSION="21"\n')
    assert sb.install_tree(program(jdk / "bin" / "java")) == str(jdk)
    node = tmp_path / "opt" / "node"
    assert sb.install_tree(program(node / "bin" / "node")) == str(node)  # outside the home: its prefix
    assert sb.install_tree(program(tmp_path / "bin" / "x")) is None  # the prefix would hold the home


PROBE = r"""
import json, os, sys
out = {"files": {}, "dirs": {}, "writes": {}}
for path in sys.argv[1].split(","):
    try:
        with open(path, "rb") as fh:
            out["files"][path] = "content" if fh.read(4096) else "empty"
    except FileNotFoundError:
        out["files"][path] = "absent"
    except OSError as exc:
        out["files"][path] = f"error {exc.errno}"
for path in sys.argv[2].split(","):
    out["dirs"][path] = sorted(os.listdir(path)) if os.path.isdir(path) else None
out["sys"] = sorted(os.path.relpath(os.path.join(d, f), "/proc/sys") for d, _, fs in os.walk("/proc/sys") for f in fs)
out["dev"] = sorted(os.listdir("/dev"))
for path in ("/proc/sys/kernel/pid_max", "/dev/made", "/proc/acpi/made", "/proc/keys"):
    try:
        with open(path, "w") as fh:
            fh.write("1")
        out["writes"][path] = "written"
    except OSError as exc:
        out["writes"][path] = exc.strerror
with open("/proc/meminfo") as fh:
    out["memtotal_kb"] = int(fh.readline().split()[1])
out["cpus"] = os.cpu_count()
print(json.dumps(out))
"""
#: Files Docker's default profile masks (and a few more counters), which the host shows.
MASKED_FILES = ("/proc/keys", "/proc/key-users", "/proc/timer_list", "/proc/sched_debug", "/proc/kallsyms",
                "/proc/interrupts", "/proc/vmstat", "/proc/zoneinfo", "/proc/cmdline", "/proc/latency_stats",
                "/proc/timer_stats", "/proc/kcore", "/proc/kmsg", "/proc/sysrq-trigger", "/proc/diskstats",
                "/proc/sys/kernel/pty/nr", "/proc/sys/fs/file-nr", "/proc/sys/kernel/random/entropy_avail")
MASKED_DIRS = ("/proc/acpi", "/proc/scsi", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/driver", "/proc/pressure",
               "/proc/tty", "/proc/asound", "/proc/sysvipc")


@needs_bwrap
def test_proc_and_dev_are_masked_as_container_runtimes_mask_them(tmp_path: Path) -> None:
    """Inside: Docker's masked /proc files read empty (or are not there), its directories are empty and
    read-only, /proc/sys holds only fixed settings, read-only; /dev has no ptmx or pts and is read-only;
    /proc/meminfo shows the memory limit and the CPUs are the host's."""
    home = tmp_path / "bot"
    home.mkdir()
    (home / "probe.py").write_text(PROBE)
    seat = tmp_path / "seat"
    seat.mkdir(mode=0o700)
    for path in (tmp_path, home, home / "probe.py"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    jail = sb.BotJail(seat_dir=str(seat), cwd=str(home), settings=ON, hidden=(), uid=60999 if ROOT else None,
                      memory_mb=300)
    argv, env = jail.wrap([sysconfig.get_config_var("BINDIR") + "/python3", "probe.py", ",".join(MASKED_FILES),
                           ",".join(MASKED_DIRS)], {"PATH": os.defpath})
    try:
        done = subprocess.run(argv, env=env, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=300)
    finally:
        jail.close_fds()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    host_files = [p for p in MASKED_FILES if os.path.exists(p)]
    assert {"/proc/keys", "/proc/timer_list", "/proc/sys/kernel/pty/nr"} <= set(host_files)  # so this can fail
    for path in MASKED_FILES:  # (a file only its owner may open is left as it is: kmsg, kcore, ...)
        closed = os.path.exists(path) and not sb._open_to_others(path)
        assert seen["files"][path] in ("empty", "absent", *(["error 13"] if closed else [])), (path, seen["files"])
    for path in MASKED_DIRS:
        assert seen["dirs"][path] in ([], None), (path, seen["dirs"][path])
    assert [d for d in MASKED_DIRS if os.path.isdir(d) and os.listdir(d)], "the host shows some of them"
    assert set(seen["sys"]) == {p for p in sb.PROC_SYS_SHOWN if os.path.isfile(f"/proc/sys/{p}")}
    assert seen["dev"] == sorted([*(n for n in sb.DEV_NODES if os.path.exists(f"/dev/{n}")), "fd", "shm", "stdin",
                                  "stdout", "stderr"])
    assert "ptmx" not in seen["dev"] and "pts" not in seen["dev"]
    refused = {"Read-only file system", "Permission denied"}  # (as root the seat's uid owns nothing there)
    for path in ("/proc/sys/kernel/pid_max", "/dev/made", "/proc/acpi/made"):
        assert seen["writes"][path] in refused, (path, seen["writes"][path])
    assert seen["memtotal_kb"] == 300 * 1024 and seen["cpus"] == os.cpu_count()


def test_a_command_on_the_path_brings_its_interpreters_tree_not_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pokerbot`` in ~/.local/bin with ``#!/usr/bin/env python3`` where that python is a venv's: the view
    is the script, the venv's python and the venv (never ~/.local)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = venv / "bin" / "python3"
    python.write_text("")
    python.chmod(0o755)
    script = home / ".local" / "bin" / "pokerbot"
    script.parent.mkdir(parents=True)
    script.write_text("#!/usr/bin/env python3\n")
    script.chmod(0o755)
    jail = sb.BotJail(seat_dir=str(tmp_path), cwd=str(tmp_path), settings=ON, hidden=(), uid=None)
    shown = jail._program_view("pokerbot", {"PATH": f"{script.parent}:{venv / 'bin'}"})
    assert shown == [str(script), str(python), str(venv)]
    assert not any(path in (str(home / ".local"), str(home)) for path in jail._views(shown))


@needs_bwrap
@pytest.mark.parametrize("box", MODES)
def test_the_idle_time_of_uptime_is_measured(arena: Path, box: SandboxSettings) -> None:
    """/proc/uptime stays (Node's ``os.uptime()`` reads it, and reads 0 from an empty file); its idle time
    is the machine's, so a bot's busy CPU shows in it: part of the CPU channel, measured (docs/security.md,
    "Collusion"). Pinned here as readable with or without the sandbox (it moves only while some CPU idles,
    which a busy test machine may never do)."""
    bits, _, receiver = counter_colluders(arena, "uptime", box, hands=30)
    print(f"uptime {'on' if box is ON else 'off'}: {bits:.2f} bits per hand; {receiver['uptime']}")
    assert "decoded 30 hands" in receiver["uptime"], receiver


@needs_bwrap
@pytest.mark.skipif(shutil.which("java") is None, reason="JVM TEST SKIPPED: no java (Debian: apt-get install "
                    "default-jre-headless; .ci/run installs it)")
def test_a_jvm_finds_its_user_name_and_home(tmp_path: Path) -> None:
    """The JVM looks its user up at start (``user.name``, ``user.home``): in the sandbox ``bot`` and /tmp."""
    seat = tmp_path / "seat"
    seat.mkdir(mode=0o700)
    tmp_path.chmod(0o755)
    jail = sb.BotJail(seat_dir=str(seat), cwd=str(tmp_path), settings=ON, hidden=(), uid=60998 if ROOT else None)
    argv, env = jail.wrap(["java", "-Xshare:auto", "-XshowSettings:properties", "-version"], {"PATH": os.defpath})
    try:
        done = subprocess.run(argv, env=env, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=60)
    finally:
        jail.close_fds()
    assert done.returncode == 0, done.stderr
    assert f"user.name = {sb.BOT_USER}" in done.stderr and "user.home = /tmp" in done.stderr, done.stderr


def test_the_cpu_clock_in_cpuinfo_is_fixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/cpuinfo is generated once per referee: its ``cpu MHz`` lines, which the kernel's show as each
    CPU's clock now (moved by any bot's load where the frequency scales: a channel), do not move. Shown here
    by generating a clock no CPU has and reading it inside (the kernel's would show the real one)."""
    fixed = "processor\t: 0\ncpu MHz\t\t: 1234.567\n\n"
    sb.proc_files.cache_clear()
    monkeypatch.setattr(sb, "_cpuinfo_file", lambda: fixed)
    home = tmp_path / "bot"
    home.mkdir()
    seat = tmp_path / "seat"
    seat.mkdir(mode=0o700)
    for path in (tmp_path, home):
        path.chmod(0o755)
    jail = sb.BotJail(seat_dir=str(seat), cwd=str(home), settings=ON, hidden=(), uid=60999 if ROOT else None)
    argv, env = jail.wrap([sysconfig.get_config_var("BINDIR") + "/python3", "-c",
                           "print(open('/proc/cpuinfo').read(), end='')"], {"PATH": os.defpath})
    try:
        done = subprocess.run(argv, env=env, pass_fds=jail.pass_fds, capture_output=True, text=True, timeout=300)
    finally:
        jail.close_fds()
        jail.release()
        sb.proc_files.cache_clear()
    assert done.returncode == 0, done.stderr
    assert done.stdout == fixed
    assert "1234.567" not in Path("/proc/cpuinfo").read_text()
