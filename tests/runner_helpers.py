"""A fake referee for the tournament tests: same signature as ``play_match``, no bots.

Each hand's nets are deterministic in (spec.seed, hand index, seat) -- the
"cards" of a seat -- plus a fixed edge per bot name, so duplicate rotation
cancels the seat luck exactly and the leaderboard order is known:
``STRENGTH`` bb per hand above the table average.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from harness.history.files import HistoryWriter, history_name
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec

if TYPE_CHECKING:
    from harness.tournament.config import TournamentConfig

# Chips per hand above the table average, by bot name (others: 0).
STRENGTH = {"strong": 6, "middle": 0, "weak": -6, "a": 4, "b": 2, "c": 0, "d": -2, "e": -4, "f": 1}
# Bots whose every match records these fault counts (to test the fault columns).
FAULTY = {"weak": {"timeout": 2, "illegal": 1}}


def hand_seed(match_seed: int, hand: int) -> int:
    """Per-hand seed from the match seed and hand index (as the real referee does)."""
    return int.from_bytes(hashlib.sha256(f"{match_seed}/{hand}".encode()).digest()[:8], "big")


def fake_nets(spec: MatchSpec, names: Sequence[str], hand: int) -> list[int]:
    """Nets of one hand by seat: seat luck (from the deal) plus each bot's edge; sums to 0."""
    n = len(names)
    rng = random.Random(hand_seed(spec.seed, hand))
    luck = [rng.randint(-30, 30) for _ in range(n - 1)]
    luck.append(-sum(luck))
    edges = [STRENGTH.get(name, 0) for name in names]
    skill = [e * n - sum(edges) for e in edges]
    return [luck[s] + skill[s] for s in range(n)]


def fake_play(bots: Sequence[BotSpec], spec: MatchSpec, limits: Limits, out_dir: Path) -> MatchResult:
    """Play ``spec.hands`` fake hands: writes ``hands.jsonl`` (``.gz``) and returns the MatchResult."""
    names = [b.name for b in bots]
    hand_nets = []
    (out_dir / "logs").mkdir(parents=True, exist_ok=True)
    # Under the name the referee uses (compressed as written with spec.compress); minimal version-2 records.
    with HistoryWriter(out_dir / history_name(spec.compress)) as fh:
        for h in range(spec.hands):
            nets = fake_nets(spec, names, h)
            hand_nets.append(nets)
            players = [{"seat": s, "bot": name, "net": n} for s, (name, n) in enumerate(zip(names, nets, strict=True))]
            fh.write({"record_version": 2, "hand_id": h, "seed": hand_seed(spec.seed, h), "button": h % len(names),
                      "players": players, "actions": []})
    return MatchResult(
        match_id=spec.match_id,
        seed=spec.seed,
        hands_played=spec.hands,
        bots=names,
        net=[sum(col) for col in zip(*hand_nets, strict=True)],
        hand_nets=hand_nets,
        faults=[dict(FAULTY.get(name, {})) for name in names],
        status=["ok"] * len(names),
        duration_s=0.0,
    )


def placement_play(bots: Sequence[BotSpec], spec: MatchSpec, limits: Limits, out_dir: Path) -> MatchResult:
    """Like :func:`fake_play`, and leaves ``placement.json``: the CPUs and scheduling policy it ran under."""

    placement = {"cpus": sorted(os.sched_getaffinity(0)), "batch": os.sched_getscheduler(0) == os.SCHED_BATCH}
    (out_dir / "placement.json").write_text(json.dumps(placement), encoding="utf-8")
    return fake_play(bots, spec, limits, out_dir)


def failing_play(bots: Sequence[BotSpec], spec: MatchSpec, limits: Limits, out_dir: Path) -> MatchResult:
    """Like :func:`fake_play`, but every match with bot "c" in seat 0 dies halfway."""
    if bots[0].name == "c":
        with open(out_dir / "hands.jsonl", "w", encoding="utf-8") as fh:
            fh.write('{"record_version": 2, "hand_id": 0}\n')
        raise RuntimeError("referee bug (simulated)")
    return fake_play(bots, spec, limits, out_dir)


def never_start_play(bots: Sequence[BotSpec], spec: MatchSpec, limits: Limits, out_dir: Path) -> MatchResult:
    """Like :func:`fake_play`, but bot "c" fails to start in every match (as a wrong command would).

    Bot "d" fails to start only when it sits in seat 0 (it started elsewhere, so it is not "never started").
    """
    result = fake_play(bots, spec, limits, out_dir)
    for seat, bot in enumerate(bots):
        if bot.name == "c" or (bot.name == "d" and seat == 0):
            (out_dir / "logs" / f"{seat}-{bot.name}.err").write_text("Traceback ...\nImportError: no module x\n\n")
            result.faults[seat]["failed_start"] = 1
            result.status[seat] = "failed_start: exited before its hello (exit status 1)"
    return result


#: The bots' env variable naming the directory where :func:`exclusive_play` keeps its markers.
EXCLUSIVE_DIR = "FAKE_EXCLUSIVE_DIR"


def exclusive_play(bots: Sequence[BotSpec], spec: MatchSpec, limits: Limits, out_dir: Path) -> MatchResult:
    """Like :func:`fake_play`, lasting 0.3 s, and reports matches of one deal (same seed) that overlap.

    While it plays, the match holds ``<dir>/deal-<seed>`` (created exclusively) and
    ``<dir>/match-<id>``; a match that finds its deal's marker taken appends its id
    to ``<dir>/overlaps``. ``<dir>`` is the bots' :data:`EXCLUSIVE_DIR` (a path
    outside the output directory: on a cluster the match runs in a scratch space).
    """
    import time

    where = Path(bots[0].env[EXCLUSIVE_DIR])
    deal = where / f"deal-{spec.seed}"
    mine = where / f"match-{spec.match_id}"
    mine.touch()
    try:
        fd = os.open(deal, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        with open(where / "overlaps", "a", encoding="utf-8") as fh:
            fh.write(spec.match_id + "\n")
        fd = None
    try:
        time.sleep(0.3)
        # The most matches seen at once (any deal), to show the other slots were used.
        now = len(list(where.glob("match-*")))
        with open(where / "concurrency", "a", encoding="utf-8") as fh:
            fh.write(f"{now}\n")
        return fake_play(bots, spec, limits, out_dir)
    finally:
        if fd is not None:
            os.close(fd)
            deal.unlink()
        mine.unlink()


def fake_config(out: Path, names: Sequence[str], *, table_size: int = 2, hands: int = 20, duplicate: bool = True,
                seed: int = 1, jobs: int = 2, compress: bool = False, pin: bool = True, entry_check: bool = False,
                env: dict[str, str] | None = None, **schedule: object) -> TournamentConfig:
    """A validated tournament over bots that are never launched (the fake referee needs no command).

    ``env`` is given to every bot; ``schedule`` adds ``[schedule]`` keys (e.g.
    ``format="sampled", tables_per_bot=3``).
    """
    from harness.tournament.config import parse_config

    data = {
        "tournament": {"name": "fake", "seed": seed, "output": str(out), "compress": compress,
                       "entry_check": entry_check},
        "schedule": {"table_size": table_size, "hands": hands, "duplicate": duplicate, "jobs": jobs, "pin": pin,
                     **schedule},
        "bots": [{"name": n, "command": "true", **({"env": env} if env else {})} for n in names],
    }
    return parse_config(data, out.parent / "fake.toml")


def marked_processes(mark: str) -> list[psutil.Process]:
    """Live processes whose environment carries ``TEST_MARK=mark`` (our bots)."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("TEST_MARK") == mark and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def wait_no_bots(mark: str, timeout: float = 120.0) -> list[psutil.Process]:
    """Wait for the bots carrying ``mark`` to be gone (an outer limit only: a loaded machine stops them slowly);
    the ones left then, killed."""
    deadline = time.monotonic() + timeout
    while (left := marked_processes(mark)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for proc in left:  # never leave anything behind, even when the test fails
        proc.kill()
    return left
