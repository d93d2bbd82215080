"""Admission of a version: its ``build`` (if any), then the tournament's entry check with the contest's limits.

Worker side (run by the ladder's executor, like a match): :func:`admit`
returns a JSON-ready dict the server stores with the version. The check is
:func:`harness.tournament.entries.run_check`, the code behind ``harness
check-bot`` and every tournament's entry check, at the contest's table,
game, limits and sandbox.

A ``build`` is the student's code: it runs once in the version's folder in
the same sandbox as the bot (:func:`harness.host.build.run_build`: the
contest's ``[sandbox]``, its folder writable, the data folder hidden, the
``[ladder] build_*`` limits). Where that sandbox cannot run, no build runs
and the version is refused with the reason.

Everything in the result that a program wrote (the build's output, the
bot's stderr and traceback, the reason) is shown to the student only after
:func:`harness.server.hostpaths.for_student`: no host path, no frame outside
the student's folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.engine.config import GameConfig
from harness.host.build import BuildLimits, run_build
from harness.match.untrusted import quoted
from harness.server.botlog import shown_log
from harness.server.hostpaths import for_student
from harness.specs import BotSpec, Limits, SandboxSettings
from harness.tournament.entries import CheckTable, run_check

#: Characters of a build's output kept for the student (its end).
BUILD_OUTPUT = 4000
#: Characters of the check's stderr kept for the student (its end).
STDERR_KEPT = 20000


def admit(bot: BotSpec, build: str, data: Path, build_limits: BuildLimits, game: GameConfig, limits: Limits,
          starting_stack: int, sandbox: SandboxSettings, table: CheckTable, directory: Path,
          roots: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """Build (if asked) and entry-check one version.

    Args:
        roots: the server's paths to hide from the student (:func:`harness.server.hostpaths.host_roots`).

    Returns:
        ``{"ok", "reason", "stderr_tail", "build", "stderr", ...}`` (:func:`run_check`'s keys but ``log``, plus
        ``build`` and ``stderr``), every text as the student may see it.
    """
    folder = Path(bot.cwd or ".")
    result: dict[str, Any] = {"build": ""}
    if build:
        hidden = (str(data), str(directory), *sandbox.hidden)
        built = run_build(build, folder, settings=sandbox, limits=build_limits, hidden=hidden)
        text = quoted(for_student(built.output[-BUILD_OUTPUT:], roots, folder))  # the build's lines, marked
        notes = for_student(built.notes, roots, folder)
        summary = for_student(built.summary, roots, folder)
        result["build"] = f"{summary}\n{text}{notes}" if summary else text + notes
        if not built.ok:
            return {**result, "ok": False, "reason": summary, "stderr_tail": result["build"], "stderr": ""}
    # The bot sees its own folder (its cwd), never the rest of the data folder (harness.host.sandbox).
    result.update(run_check(bot, game, limits, starting_stack, directory, sandbox=sandbox, table=table))
    log = Path(result.pop("log", "") or "")
    # stored as a page shows it: each line marked as the bot's, the harness's truncation note apart
    result["stderr"] = shown_log(log, STDERR_KEPT, limits.log_bytes, lambda text: for_student(text, roots, folder))
    for key in ("reason", "stderr_tail"):
        result[key] = for_student(str(result.get(key) or ""), roots, folder)
    return result
