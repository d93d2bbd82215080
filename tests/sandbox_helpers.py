"""Shared by the sandbox test modules: the arena, the hostile entries, playing them, reading what they report."""

from __future__ import annotations

import math
import os
import random
import shutil
from collections import Counter
from pathlib import Path

import psutil
import pytest

from harness.engine.config import GameConfig
from harness.history.files import find_history, read_history
from harness.host import sandbox as sb
from harness.match.referee import play_match
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec, SandboxMode, SandboxSettings

REPO = Path(__file__).resolve().parents[1]


HOSTILE = REPO / "tests" / "fixtures" / "hostile"


SUPPORT = sb.support()


ROOT = os.geteuid() == 0


SANDBOX_MARKS = [
    pytest.mark.skipif(
        not (SUPPORT.namespaces and SUPPORT.cgroups.available),
        reason="SANDBOX TESTS SKIPPED: the sandbox cannot run here ("
        + "; ".join(p for p in (SUPPORT.namespaces_problem, SUPPORT.cgroups.reason) if p)
        + "); install bubblewrap (apt-get install bubblewrap; make test does) and run as root or in a delegated cgroup",
    ),
]


def path_without(bin_dir: Path, program: str) -> str:
    """A ``PATH`` of one directory, ``bin_dir``, holding a link to every program of today's ``PATH`` but
    ``program`` (``bwrap``: a machine without bubblewrap, as :func:`harness.host.sandbox.support` sees it)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            target = os.path.join(entry, name)
            link = bin_dir / name
            if name != program and not link.exists() and os.access(target, os.X_OK) and not os.path.isdir(target):
                link.symlink_to(target)
    return str(bin_dir)


#: The mode of a sandboxed test match: "required" where control groups can be made (root, a delegated
#: cgroup), else "auto", which runs bubblewrap with per-tree limits (an ordinary user without delegation).
JAIL_MODE = SandboxMode.REQUIRED if sb.support().cgroups.available else SandboxMode.AUTO
ON = SandboxSettings(mode=JAIL_MODE, scratch_mb=8)


OFF = SandboxSettings(mode=SandboxMode.OFF)


def without_isolation_warning(lines: list[str]) -> list[str]:
    """``lines`` of a command's stderr less the one that says bots are not fully isolated (an ordinary user
    without control groups reads it before anything else of a sandboxed command)."""
    return [line for line in lines if sb.NOT_ISOLATED not in line]


MODES = [pytest.param(ON, id="sandbox-on"), pytest.param(OFF, id="sandbox-off")]


# Generous: a bot that behaves never times out, even on a loaded machine (the tests here judge isolation, not time).
LIMITS = Limits(decision_ms=2000, time_bank_ms=4000, startup_ms=30000, max_faults=1000, memory_mb=1024)


def entry(arena: Path, name: str, *command: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> BotSpec:
    """A bot submitted as a directory ``arena/name`` holding the hostile bots' files."""
    home = arena / name
    if not home.exists():
        shutil.copytree(HOSTILE, home, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    return BotSpec(name=name, command=("python", *command), cwd=str(cwd or home), env=env or {})


def caller(arena: Path, name: str = "victim") -> BotSpec:
    """An honest opponent, in its own directory (which holds a file the spy wants)."""
    home = arena / name
    home.mkdir(parents=True, exist_ok=True)
    (home / "secret.txt").write_text("my strategy: always call\n")
    return BotSpec(name=name, command=("python", "-m", "bots.caller"), cwd=str(home))


def play(bots: list[BotSpec], out: Path, box: SandboxSettings, *, hands: int = 4, limits: Limits = LIMITS,
         cpus: set[int] | None = None) -> MatchResult:
    spec = MatchSpec(game=GameConfig(), hands=hands, seed=7, match_id="hostile")
    result = play_match(bots, spec, limits, out, sandbox=box, cpus=cpus)
    assert result.hands_played == hands, "the match must always finish"
    return result


def attacks(out: Path, seat: int, name: str) -> dict[str, str]:
    """The attacks a hostile bot reported: name -> "SUCCEEDED: ..." or "FAILED: ..."."""
    found = {}
    for line in (out / "logs" / f"{seat}-{name}.err").read_text().splitlines():
        if line.startswith("ATTACK "):
            attack, _, rest = line[len("ATTACK "):].partition(" ")
            found[attack] = rest
    return found


def succeeded(report: dict[str, str]) -> set[str]:
    return {name for name, what in report.items() if what.startswith("SUCCEEDED")}


def processes_with(token: str) -> list[psutil.Process]:
    """Live processes whose command line carries ``token``."""
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if token in " ".join(proc.info["cmdline"] or ()) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found




RANKS, SUITS = "23456789TJQKA", "cdhs"
#: Bits each counter colluder sends per hand (tests/fixtures/hostile/counters.py).
COUNTER_BITS = {"pty": 6, "loadavg": 4, "sysinfo": 4, "meminfo": 1, "stat": 2, "uptime": 2}


def mutual_information(sent: list[int], got: list[int], bits: int) -> float:
    """Bits per hand the decoded symbols tell about the sent ones: the sum over bit positions of the
    empirical mutual information between the sent and the decoded bit (0 for a constant guess)."""
    total = 0.0
    n = len(sent)
    for i in range(bits):
        pairs = Counter(((s >> i) & 1, (g >> i) & 1) for s, g in zip(sent, got, strict=True))
        for (a, b), count in pairs.items():
            pa = sum(c for (x, _), c in pairs.items() if x == a) / n
            pb = sum(c for (_, y), c in pairs.items() if y == b) / n
            total += count / n * math.log2(count / n / (pa * pb))
    return total


def exact_interval(right: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Clopper-Pearson interval of a rate from ``right`` successes in ``n`` trials (bisection on the
    binomial tails), as docs/security.md quotes hands or cards right."""
    def tail(p: float, k: int) -> float:  # P(Binomial(n, p) >= k)
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))

    def solve(f: object, target: float) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if f(mid) < target:  # type: ignore[operator]
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    alpha = (1 - level) / 2
    low = 0.0 if right == 0 else solve(lambda p: tail(p, right), alpha)
    high = 1.0 if right == n else solve(lambda p: tail(p, right + 1), 1 - alpha)
    return low, high


def bits_interval(sent: list[int], got: list[int], bits: int, rounds: int = 400) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval (resampling hands; a fixed seed) of :func:`mutual_information`."""
    rng = random.Random(7)
    n = len(sent)
    draws = []
    for _ in range(rounds):
        pick = [rng.randrange(n) for _ in range(n)]
        draws.append(mutual_information([sent[i] for i in pick], [got[i] for i in pick], bits))
    draws.sort()
    return draws[int(0.025 * rounds)], draws[int(0.975 * rounds) - 1]


def counter_colluders(arena: Path, channel: str, box: SandboxSettings, hands: int) -> tuple[float, dict, dict]:
    """One match of a sender and a receiver on ``channel``: (bits per hand, sender's and receiver's reports)."""
    env = {"COUNTER_CHANNEL": channel, "HOSTILE_CALLS": "1"}
    bots = [entry(arena, "send", "counters.py", env={**env, "COUNTER_ROLE": "send"}),
            entry(arena, "recv", "counters.py", env={**env, "COUNTER_ROLE": "recv"})]
    out = arena / f"out-{channel}"
    result = play(bots, out, box, hands=hands)
    assert result.status == ["ok", "ok"], result.status
    history = find_history(out)
    assert history is not None
    sent = {h["hand_id"]: sum(RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in h["players"][0]["dealt"])
            % (1 << COUNTER_BITS[channel]) for h in read_history(history)}
    got = {}
    for line in (out / "logs" / "1-recv.err").read_text().splitlines():
        if line.startswith("COUNTER "):
            _, _, hand, value = line.split()
            got[int(hand)] = 0 if value == "-" else int(value)  # nothing read: the guess 0
    assert sorted(got) == sorted(sent), (got, sent)
    order = sorted(sent)
    bits = mutual_information([sent[h] for h in order], [got[h] for h in order], COUNTER_BITS[channel])
    return bits, attacks(out, 0, "send"), attacks(out, 1, "recv")
