"""Admission of a version: its ``build`` (if any), then the tournament's entry check with the contest's limits.

Worker side (run by the ladder's executor, like a match): :func:`admit`
returns a JSON-ready dict the server stores with the version. The check is
:func:`harness.tournament.entries.run_check`, the code behind ``harness
check-bot`` and every tournament's entry check, at the contest's table,
game, limits and sandbox.

A ``build`` runs once in the version's folder under bubblewrap with no
network (``--unshare-all``), the data folder masked but for the version's
own folder, and a time limit (``[ladder] build_timeout_s``); without
bubblewrap a submission with a build is refused (the server does not run
untrusted build steps unconfined).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

from harness.engine.config import GameConfig
from harness.specs import BotSpec, Limits, SandboxSettings
from harness.tournament.entries import CheckTable, run_check

#: Bytes of a build's output kept for the student.
BUILD_OUTPUT = 4000


def build_argv(build: str, folder: Path, data: Path) -> list[str] | None:
    """The bubblewrap command line of a build (None without bubblewrap)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    folder, data = folder.resolve(), data.resolve()
    # later mounts win: a fresh /tmp first, then the data folder masked, then the version's own folder
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
            "--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc", "--tmpfs", os.fspath(data),
            "--bind", os.fspath(folder), os.fspath(folder), "--chdir", os.fspath(folder)]
    if os.geteuid() == 0:
        argv += ["--cap-drop", "ALL"]
    return [*argv, "/bin/sh", "-c", build]


def run_build(build: str, folder: Path, data: Path, timeout_s: float) -> tuple[bool, str]:
    """Run a build; return (ok, one line of what happened + the tail of its output)."""
    argv = build_argv(build, folder, data)
    if argv is None:
        return False, "the build was not run: this server has no bubblewrap to run build commands in a sandbox"
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return False, f"the build was stopped after {timeout_s:g} s (the time limit)\n" + _tail(out)
    if proc.returncode != 0:
        return False, f"the build failed with exit status {proc.returncode}\n" + _tail(out)
    return True, _tail(out)


def _tail(out: bytes) -> str:
    return out[-BUILD_OUTPUT:].decode("utf-8", "replace")


def admit(bot: BotSpec, build: str, data: Path, build_timeout_s: float, game: GameConfig, limits: Limits,
          starting_stack: int, sandbox: SandboxSettings, table: CheckTable, directory: Path) -> dict[str, Any]:
    """Build (if asked) and entry-check one version.

    Returns:
        ``{"ok", "reason", "stderr_tail", "build", "log", ...}`` (:func:`run_check`'s keys plus ``build``).
    """
    result: dict[str, Any] = {"build": ""}
    if build:
        ok, text = run_build(build, Path(bot.cwd or "."), data, build_timeout_s)
        result["build"] = text
        if not ok:
            first = text.splitlines()[0] if text else "the build failed"
            return {**result, "ok": False, "reason": first, "stderr_tail": text, "log": ""}
    # The bot sees its own folder (its cwd), never the rest of the data folder (harness.host.sandbox).
    result.update(run_check(bot, game, limits, starting_stack, directory, sandbox=sandbox, table=table))
    log = Path(result.get("log") or "")
    try:
        result["stderr"] = log.read_text(encoding="utf-8", errors="replace")[-20000:] if log.is_file() else ""
    except OSError:
        result["stderr"] = ""
    return result
