"""The ACPC dealer's speed on this machine, for ``harness bench match`` to compare with (same run).

The Annual Computer Poker Competition's server (``project_acpc_server``:
``dealer`` and ``example_player``, C, plain TCP text lines; its README and
``protocol.pdf``) is not part of this project and not installed by it: build
it from its public source outside the repository and pass its directory
(``harness bench match --acpc DIR``). Measured as the C bots are: the dealer
and its two example players pinned to one CPU, heads-up limit hold'em
(``holdem.limit.2p.reverse_blinds.game``), from the dealer's start to its
exit (start-up and the players' connections included, a few ms); the
decisions are counted from the dealer's log (every ``c``, ``f`` and ``r`` of
each hand's betting string).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: The game the dealer plays: heads-up limit hold'em, its example players' own.
GAME = "holdem.limit.2p.reverse_blinds.game"
_STATE = re.compile(rb"^STATE:\d+:([^:]*):", re.M)
_DECISION = re.compile(rb"[fc]|r\d*")


def problem(directory: str) -> str:
    """Why ``directory`` cannot be measured ("" when it can): the dealer, example player and game file."""
    d = Path(directory)
    for name in ("dealer", "example_player"):
        if not os.access(d / name, os.X_OK):
            return f"{d / name} is not an executable (build project_acpc_server there: make dealer example_player)"
    if not (d / GAME).is_file():
        return f"{d / GAME} is missing (the game file of project_acpc_server)"
    return ""


def _free_ports(n: int) -> list[int]:
    """``n`` TCP ports free on loopback right now (the dealer listens on them)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def dealer_speed(directory: str, hands: int, cpu: int) -> dict[str, float]:
    """Play ``hands`` heads-up hands between two ``example_player`` under the ACPC ``dealer``, pinned to ``cpu``.

    Returns:
        ``hands_per_s``, ``decisions_per_s`` (wall, from the dealer's start to its exit),
        ``decisions_per_hand``.

    Raises:
        RuntimeError: the directory is not usable (:func:`problem`), or the dealer failed or
            logged fewer hands than asked.
    """
    why = problem(directory)
    if why:
        raise RuntimeError(why)
    d = Path(directory).resolve()
    work = tempfile.mkdtemp(prefix="harness-bench-acpc-")
    ports = _free_ports(2)
    pin = [shutil.which("taskset") or "taskset", "-c", str(cpu)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        t0 = time.perf_counter()
        dealer = subprocess.Popen(
            [*pin, str(d / "dealer"), "m", str(d / GAME), str(hands), "12345", "p0", "p1",
             "-p", ",".join(map(str, ports)), "-q", "--start_timeout", "20000"],
            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        procs.append(dealer)
        assert dealer.stdout is not None
        dealer.stdout.readline()  # its ports, printed once it listens on them
        for port in ports:
            procs.append(subprocess.Popen([*pin, str(d / "example_player"), str(d / GAME), "127.0.0.1", str(port)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _, err = dealer.communicate(timeout=600)
        wall = time.perf_counter() - t0
        if dealer.returncode != 0:
            tail = err.decode(errors="replace")[-200:]
            raise RuntimeError(f"the ACPC dealer exited with {dealer.returncode}: {tail}")
        log = (Path(work) / "m.log").read_bytes()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
    bets = _STATE.findall(log)
    if len(bets) < hands:
        raise RuntimeError(f"the ACPC dealer logged {len(bets)} hands of {hands}")
    decisions = sum(len(_DECISION.findall(b)) for b in bets)
    return {"hands_per_s": hands / wall, "decisions_per_s": decisions / wall, "decisions_per_hand": decisions / hands}
