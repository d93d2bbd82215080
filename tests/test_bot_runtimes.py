"""Bots in other languages and wrappers meet their limits and their interpreters (PROTOCOL.md section 7).

- a wrapper script (``run.sh`` of ``exec python impl.py``) finds the harness's Python, with the
  sandbox and without;
- ``check-bot --memory-mb/--max-processes`` are bounded and applied, and a failed start shows the
  tail of the bot's stdout;
- a failed start names the process limit when the bot's threads reached it;
- the JVM sees its memory limit in the sandbox (its control group, read where the JVM reads it).

Tests that need bubblewrap or a JVM skip loudly when they are missing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.host import sandbox as sb
from harness.match.checkbot import CANDIDATE, check_bot
from harness.specs import SandboxMode, SandboxSettings
from tests.sandbox_helpers import JAIL_MODE

SUPPORT = sb.support()
ON = SandboxSettings(mode=JAIL_MODE, scratch_mb=8)
OFF = SandboxSettings(mode=SandboxMode.OFF)
NO_SANDBOX = "SANDBOX TEST SKIPPED: bubblewrap cannot run here (" + (SUPPORT.namespaces_problem or "") + ")"
MODES = [
    pytest.param(ON, id="sandbox-on", marks=pytest.mark.skipif(not SUPPORT.namespaces, reason=NO_SANDBOX)),
    pytest.param(OFF, id="sandbox-off"),
]



def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    """A bot's folder readable by the seat's uid, with ``files`` (name -> text; ``.sh`` ones executable)."""
    home = tmp_path / "bot"
    home.mkdir()
    for name, text in files.items():
        (home / name).write_text(text)
        (home / name).chmod(0o755 if name.endswith(".sh") else 0o644)
    for path in (tmp_path, home):
        path.chmod(0o755)
    return home


@pytest.mark.parametrize("box", MODES)
def test_a_wrapper_script_finds_the_harness_python(tmp_path: Path, box: SandboxSettings) -> None:
    """``exec python impl.py`` failed in the sandbox with "exec: python: not found" (exit 127), and without
    it found a Python without the SDK: now the bot's PATH starts with the harness's interpreter."""
    home = folder(tmp_path, {
        "run.sh": "#!/bin/sh\nexec python impl.py\n",
        "impl.py": "from bots.caller import Caller\n\nraise SystemExit(Caller().run())\n",
    })
    report = check_bot(["./run.sh"], cwd=str(home), hands=2, sandbox=box)
    assert report.ok, report.render()


@pytest.mark.parametrize("box", MODES)
def test_a_wrapper_script_finds_python3_node_and_java_where_the_organiser_does(
    tmp_path: Path, box: SandboxSettings
) -> None:
    """Each interpreter the organiser's PATH finds is found by the bot's own shell script too."""
    names = [n for n in ("python3", "node", "java") if shutil.which(n)]
    probe = "".join(f"command -v {n} >&2 || echo 'MISSING {n}' >&2\n" for n in names)
    home = folder(tmp_path, {
        "run.sh": f"#!/bin/sh\n{probe}exec python3 -m bots.caller\n",
    })
    out = tmp_path / "out"
    report = check_bot(["./run.sh"], cwd=str(home), hands=1, sandbox=box, out_dir=out)
    assert report.ok, report.render()
    err = (out / "logs" / f"0-{CANDIDATE}.err").read_text()
    assert "MISSING" not in err, err
    assert len(err.splitlines()) == len(names), err


@pytest.mark.parametrize(("option", "value"), [("--memory-mb", -1), ("--max-processes", 1 << 23)])
def test_check_bot_bounds_the_memory_and_process_limits(option: str, value: int) -> None:
    kwargs = {"memory_mb" if option == "--memory-mb" else "max_processes": value}
    with pytest.raises(ValueError, match=option):
        check_bot(["python", "-m", "bots.caller"], sandbox=OFF, **kwargs)  # type: ignore[arg-type]


def test_a_failed_start_shows_the_tail_of_the_bots_stdout(tmp_path: Path) -> None:
    """A JVM prints why it cannot start (reserving its heap, its class space) on stdout, not stderr."""
    home = folder(tmp_path, {"run.sh": "#!/bin/sh\necho 'Error occurred during initialization of VM'\nexit 1\n"})
    report = check_bot(["./run.sh"], cwd=str(home), hands=1, sandbox=OFF)
    assert not report.ok
    assert "Error occurred during initialization of VM" in report.stdout_tail
    text = report.render()
    assert "Last lines of the bot's stdout:" in text and "initialization of VM" in text


JAVA = shutil.which("java")
PROBE = 'public class Probe { public static void main(String[] a) { ' \
        'System.err.println("MAXMEMORY " + Runtime.getRuntime().maxMemory()); } }\n'


@pytest.mark.skipif(JAVA is None, reason="JVM TEST SKIPPED: needs `java` (Debian: default-jre-headless)")
@pytest.mark.parametrize("box", MODES)
def test_the_jvm_sizes_its_heap_from_the_memory_limit(tmp_path: Path, box: SandboxSettings) -> None:
    """Under the default 1,024 MiB a JVM starts, and its heap (``Runtime.maxMemory()``) is below the limit:
    in the sandbox it reads its control group at /sys/fs/cgroup (it reported the machine's 6,028 MiB, with
    no /sys), without one the limit is its ``MaxRAM``."""
    home = folder(tmp_path, {"Probe.java": PROBE, "run.sh": "#!/bin/sh\njava Probe.java || exit 1\n"
                             "exec python -m bots.caller\n"})
    out = tmp_path / "out"
    report = check_bot(["./run.sh"], cwd=str(home), hands=1, sandbox=box, out_dir=out, startup_ms=60000)
    assert report.ok, report.render()
    err = (out / "logs" / f"0-{CANDIDATE}.err").read_text()
    line = next((x for x in err.splitlines() if x.startswith("MAXMEMORY ")), None)
    assert line is not None, err
    assert int(line.split()[1]) < report.limits.memory_mb * 1024 * 1024, err


THREADS = """
import sys, threading, time

started = 0
try:
    for _ in range(400):  # a JVM starts ~21 before main; this one 400, as a bot's pool may
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
        started += 1
except RuntimeError as exc:
    print(f"started {started} threads: {exc}", file=sys.stderr)
    time.sleep(0.5)  # as a JVM takes a moment to report and exit
    sys.exit(1)
"""


@pytest.mark.skipif(not SUPPORT.namespaces, reason=NO_SANDBOX)
def test_a_failed_start_names_the_process_limit_that_threads_reached(tmp_path: Path) -> None:
    """400 threads at start-up under a limit of 40: "exited before its hello" now names the limit."""
    home = folder(tmp_path, {"threads.py": THREADS})
    report = check_bot(["python", "threads.py"], cwd=str(home), hands=1, sandbox=ON, max_processes=40)
    assert report.counts.get("failed_start") == 1, report.render()
    assert "reached the process limit (40 together: every thread counts" in report.render(), report.render()


@pytest.mark.skipif(not SUPPORT.namespaces, reason=NO_SANDBOX)
def test_without_cgroups_a_failed_start_names_the_process_limit_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Limits per process tree (no control groups): the watch saw the tree at the limit."""
    import dataclasses

    from harness.host import cgroups
    from harness.match import seathost

    bare = dataclasses.replace(SUPPORT, cgroups=cgroups.CgroupSupport(None, reason="none for this test"))
    monkeypatch.setattr(sb, "support", lambda: bare)
    monkeypatch.setattr(seathost, "support", lambda: bare)
    home = folder(tmp_path, {"threads.py": THREADS})
    auto = SandboxSettings(mode=SandboxMode.AUTO, scratch_mb=8)
    report = check_bot(["python", "threads.py"], cwd=str(home), hands=1, sandbox=auto, max_processes=40)
    assert "tree" in report.sandbox, report.sandbox
    assert report.counts.get("failed_start") == 1, report.render()
    assert "reached the process limit (40 together" in report.render(), report.render()


@pytest.mark.parametrize(("args", "error"), [
    (["--memory-mb", "-1"], "--memory-mb must be at least 0, got -1"),
    (["--max-processes", "99999999"], "--max-processes must be from 0 to 4,194,304"),
])
def test_check_bot_cli_refuses_limits_out_of_bounds(args: list[str], error: str) -> None:
    import subprocess
    import sys

    harness = Path(sys.executable).with_name("harness")
    done = subprocess.run([str(harness), "check-bot", *args, "--", "python", "-m", "bots.caller"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and error in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.skipif(not SUPPORT.namespaces, reason=NO_SANDBOX)
def test_a_program_the_sandbox_does_not_show_is_named_as_the_cause(tmp_path: Path) -> None:
    """A wrapper that runs a program outside the sandbox's view: the failed start says what to do."""
    home = folder(tmp_path, {"run.sh": "#!/bin/sh\nexec no-such-interpreter impl.x\n"})
    report = check_bot(["./run.sh"], cwd=str(home), hands=1, sandbox=ON)
    text = report.render()
    assert "exit status 127" in text and "[sandbox] paths" in text, text
