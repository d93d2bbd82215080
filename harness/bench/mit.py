"""The MIT Pokerbots engine's cost on this machine, for ``harness bench match`` to compare with (same run).

MIT Pokerbots' public game engine (``engine.py``, Python, heads-up no-limit hold'em over TCP text lines, with
``python_skeleton``: its example bot, check/call) is not part of this project and is not vendored (its
repository carries no licence): pass a checkout of it (``harness bench match --mit DIR``, or
``HARNESS_MIT_DIR``); it needs ``eval7`` (the ``bench`` extra). Nothing of the checkout is changed: the engine
is copied into a scratch folder beside a ``config.py`` written here (``hands`` rounds, the game clock not
enforced, the two players the checkout's ``python_skeleton`` run by this Python) and, so that it listens on
loopback only, its ``bind(('', 0))`` becomes ``bind(('127.0.0.1', 0))``.

One run is :func:`engine_run`: the engine and its two bots pinned to one CPU, from the engine's start to its
exit; the CPU of the three processes from ``wait4`` (the engine reaps its bots, so theirs is in its own
figure); the decisions counted from its game log (each ``folds``, ``calls``, ``checks``, ``bets`` and
``raises to`` line).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness.bench.burners import die_with_parent
from harness.bench.whole import Run

#: The engine's listening line, and what it becomes in the scratch copy (loopback only).
_BIND = "server_socket.bind(('', 0))"
_LOOPBACK = "server_socket.bind(('127.0.0.1', 0))"
_DECISIONS = (" folds", " calls", " checks")
_SIZED = (" bets ", " raises to ")


def problem(directory: str, dependencies: bool = True) -> str:
    """Why ``directory`` cannot be measured ("" when it can): the engine, its Python bot and (``dependencies``)
    the engine's ``eval7``."""
    d = Path(directory)
    for name in ("engine.py", "python_skeleton/player.py", "python_skeleton/commands.json"):
        if not (d / name).is_file():
            return f"{d / name} is missing (a checkout of MIT Pokerbots' public engine, docs/speed.md)"
    if _BIND not in (d / "engine.py").read_text(errors="replace"):
        return f"{d / 'engine.py'}: its listening line {_BIND} was not found (another version of the engine?)"
    if dependencies and importlib.util.find_spec("eval7") is None:
        return "the MIT Pokerbots engine needs eval7 (pip install eval7, or the extra 'bench')"
    return ""


def _config(bot: Path, hands: int) -> str:
    """The engine's ``config.py``: its own defaults but for the rounds, the clock and the players' path."""
    return "\n".join([
        "PLAYER_1_NAME = 'A'", f"PLAYER_1_PATH = {str(bot)!r}",
        "PLAYER_2_NAME = 'B'", f"PLAYER_2_PATH = {str(bot)!r}",
        "GAME_LOG_FILENAME = 'gamelog'", "PLAYER_LOG_SIZE_LIMIT = 524288",
        "ENFORCE_GAME_CLOCK = False", "STARTING_GAME_CLOCK = 30.", "BUILD_TIMEOUT = 10.", "CONNECT_TIMEOUT = 60.",
        f"NUM_ROUNDS = {hands}", "STARTING_STACK = 400", "BIG_BLIND = 2", "SMALL_BLIND = 1", "",
    ])


def count_decisions(log: str) -> tuple[int, int]:
    """(rounds, decisions) of an engine's game log: ``Round #`` lines, and action lines."""
    rounds = decisions = 0
    for line in log.splitlines():
        if line.startswith("Round #"):
            rounds += 1
        elif line.endswith(_DECISIONS) or any(s in line for s in _SIZED):
            decisions += 1
    return rounds, decisions


def engine_run(directory: str, hands: int, cpu: int) -> Run:
    """Play ``hands`` rounds between two ``python_skeleton`` bots under the MIT engine, all pinned to ``cpu``.

    Raises:
        RuntimeError: the directory is not usable (:func:`problem`), the engine failed, or its log holds
            fewer rounds than asked.
    """
    why = problem(directory)
    if why:
        raise RuntimeError(why)
    d = Path(directory).resolve()
    work = Path(tempfile.mkdtemp(prefix="harness-bench-mit-"))
    shims = work / "bin"  # the bots' `python3` is this Python, as our bots' is
    shims.mkdir()
    (shims / "python3").symlink_to(sys.executable)
    (work / "engine.py").write_text((d / "engine.py").read_text().replace(_BIND, _LOOPBACK))
    (work / "config.py").write_text(_config(d / "python_skeleton", hands))
    env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ.get('PATH', '')}")
    pin = [shutil.which("taskset") or "taskset", "-c", str(cpu)]
    t0 = time.perf_counter()
    with open(work / "stderr", "wb") as err:
        engine = subprocess.Popen([*pin, sys.executable, "engine.py"], cwd=work, env=env, start_new_session=True,
                                  preexec_fn=die_with_parent,  # killed with the bench, its bots then see EOF
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        _, status, use = os.wait4(engine.pid, 0)
        wall = time.perf_counter() - t0
        engine.returncode = os.waitstatus_to_exitcode(status)
        if engine.returncode != 0:
            tail = (work / "stderr").read_text(errors="replace").strip()[-200:]
            raise RuntimeError(f"the MIT Pokerbots engine exited with {engine.returncode}: {tail}")
        log = (work / "gamelog.txt").read_text(errors="replace")
    finally:
        try:
            os.killpg(engine.pid, signal.SIGKILL)  # its bots too, should it have been stopped half-way
        except ProcessLookupError:
            pass
        if engine.returncode is None:
            engine.wait()
        shutil.rmtree(work, ignore_errors=True)
    rounds, decisions = count_decisions(log)
    if rounds < hands:
        raise RuntimeError(f"the MIT Pokerbots engine logged {rounds} rounds of {hands}")
    return Run(hands, decisions, wall, use.ru_utime + use.ru_stime)

