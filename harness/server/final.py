"""The final: the tournament runner over every active version and the reference bots, its report at ``/final``.

The server writes ``<data>/final.toml`` (the contest's game, limits, sandbox and
``[ladder]`` hands and table size, one ``[[bots]]`` per active version and
reference bot) and runs ``harness run`` on it in a child process (the runner
owns its signals, so it cannot run in a thread of the server). The ladder is
paused meanwhile; the usual report (``<data>/final/report``) is served at ``/final``.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from harness.server import store
from harness.tournament.config import toml_value

FINAL_TOML = "final.toml"


def _value(v: Any) -> str:
    return toml_value(v if isinstance(v, (str, bool, int, float, list, tuple, dict)) else str(v))


def final_toml(server: Any) -> str:
    """The tournament file of the final (TOML text)."""
    c = server.contest
    lines = ["[tournament]", f"name = {_value(c.name + '-final')}", f"output = {_value(str(c.data / 'final'))}", "",
             "[schedule]", f"hands = {c.ladder.hands}", f"table_size = {c.ladder.table_size}",
             f"jobs = {c.ladder.jobs}", ""]
    for table in ("game", "limits", "sandbox"):
        values = c.raw.get(table) or {}
        if values:
            lines.append(f"[{table}]")
            for key, v in values.items():
                if table == "sandbox" and key in ("paths", "hidden"):
                    v = [str((c.path.resolve().parent / p).resolve()) for p in v]
                lines.append(f"{key} = {_value(v)}")
            lines.append("")
    bots = [store.bot_spec(c, a["student"], a["number"], a["folder"], a["command"])
            for a in store.active_versions(server.engine)]
    for bot in [*bots, *c.references]:
        lines += ["[[bots]]", f"name = {_value(bot.name)}", f"command = {_value(list(bot.command))}",
                  f"cwd = {_value(bot.cwd or str(c.path.resolve().parent))}", ""]
    return "\n".join(lines)


def start_final(server: Any) -> bool:
    """Start the final in a child process (False: one is running). State in the ``final`` setting."""
    if store.setting(server.engine, "final") == "running":
        return False
    path: Path = server.contest.data / FINAL_TOML
    path.write_text(final_toml(server), encoding="utf-8")
    store.set_setting(server.engine, "final", "running")
    store.set_setting(server.engine, "ladder_paused", "1")
    log = open(server.contest.data / "final.log", "wb")  # noqa: SIM115 - closed by the waiting thread
    proc = subprocess.Popen([sys.executable, "-c", "from harness.cli import app; app()", "run", str(path)],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server.final_proc = proc

    def wait() -> None:
        code = proc.wait()
        log.close()
        store.set_setting(server.engine, "final", "done" if code == 0 else f"failed (exit status {code})")
        store.set_setting(server.engine, "ladder_paused", "0")

    threading.Thread(target=wait, name="final", daemon=True).start()
    return True
