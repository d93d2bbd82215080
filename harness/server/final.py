"""The final: the tournament runner over every active version and the reference bots, its report at ``/final``.

The server writes ``<data>/final.toml`` (the contest's game, limits and sandbox,
``[final]``'s format, hands and table size: :func:`plan`, one ``[[bots]]`` per
active version and reference bot) and runs ``harness run`` on it in a child
process (the runner owns its signals, so it cannot run in a thread of the
server). The ladder is paused meanwhile; the usual report (``<data>/final/report``)
is served at ``/final``.

Before it starts, the admin page shows its size and time (:func:`plan`: the
ladder's own match times scale to the final's hands; ``[final] budget_min``
cuts the hands per match to fit). While it runs, :func:`progress` counts the
matches recorded in ``<data>/final/results.jsonl``. A server stopped (or killed)
while the final runs leaves the ``final`` setting at ``running``; the next
start resumes it by itself (:func:`resume_final`: the runner skips the matches
already recorded, on the same ``final.toml``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import OperationalError, ProgrammingError

from harness.server import db, store
from harness.server.board import BACKGROUND_NICENESS
from harness.tournament.config import toml_value
from harness.tournament.estimate import DEFAULT_RATES, describe_seconds, effective_jobs
from harness.tournament.results import RESULTS_FILE
from harness.tournament.schedule import Format, RoundRobin, Sampled, ScheduleError

FINAL_TOML = "final.toml"
#: The fewest hands per match a time budget may cut the final to (fewer say little about a bot).
MIN_HANDS = 20
#: Ladder matches whose durations the estimate reads (the latest).
TIMED_MATCHES = 50


def _value(v: Any) -> str:
    return toml_value(v if isinstance(v, (str, bool, int, float, list, tuple, dict)) else str(v))


@dataclass(frozen=True, slots=True)
class FinalPlan:
    """The final's size and time before it starts.

    Attributes:
        bots: entrants (active versions and reference bots).
        format: ``round-robin`` or ``sampled``.
        table_size: seats per table.
        matches: matches to play (tables times seat rotations: every table is a duplicate set).
        hands: hands per match, after the budget.
        wanted_hands: ``[final] hands`` (or ``[ladder] hands``) before the budget.
        seconds: the estimated wall time (seconds) with ``jobs`` matches at once.
        jobs: matches at once.
        source: where the time per hand comes from (the ladder's matches, or the defaults).
        budget_s: ``[final] budget_min`` in seconds (0: none).
        problem: why no final can be planned ("" when it can).
    """

    bots: int
    format: str
    table_size: int
    matches: int
    hands: int
    wanted_hands: int
    seconds: float
    jobs: int
    source: str
    budget_s: float = 0.0
    problem: str = ""

    def describe(self) -> str:
        """One line for the admin page."""
        if self.problem:
            return f"No final can be planned: {self.problem}."
        fmt = "round robin" if self.format == "round-robin" else "sampled tables"
        cut = (f" (cut from {self.wanted_hands:,} to fit the budget of {describe_seconds(self.budget_s)})"
               if self.hands < self.wanted_hands else "")
        over = (f"; over the budget of {describe_seconds(self.budget_s)} even at {MIN_HANDS} hands"
                if self.budget_s and self.seconds > self.budget_s else "")
        return (f"{fmt} of {self.bots} bots at tables of {self.table_size}: {self.matches:,} matches of "
                f"{self.hands:,} hands{cut} ({self.matches * self.hands:,} hands), about "
                f"{describe_seconds(self.seconds)} with {self.jobs} job{'s' if self.jobs != 1 else ''} "
                f"(time per hand: {self.source}){over}.")


def _seconds_per_hand(engine: Any, seats: int) -> tuple[float, str]:
    """Wall seconds per hand of one match, start-up included, from the latest ladder matches (their
    ``duration_s`` over their hands); the defaults for caller-like bots when none is stored (or no ``engine``)."""
    if engine is None:
        return (DEFAULT_RATES.match_seconds(seats, 200) / 200,
                "defaults for simple bots on an idle machine: a lower bound until the ladder has played")
    m = db.matches
    with engine.connect() as conn:
        records = conn.execute(select(m.c.record).where(m.c.record.is_not(None)).order_by(m.c.id.desc())
                               .limit(TIMED_MATCHES)).scalars().all()
    seconds = hands = 0.0
    for text in records:
        result = json.loads(text)["result"]
        if result.get("hands_played") and result.get("duration_s"):
            seconds += float(result["duration_s"])
            hands += int(result["hands_played"])
    if hands:
        return seconds / hands, f"the ladder's last {len(records)} matches"
    return (DEFAULT_RATES.match_seconds(seats, 200) / 200,
                "defaults for simple bots on an idle machine: a lower bound until the ladder has played")


def plan(server: Any) -> FinalPlan:
    """The final's plan now: its entrants (every active version and reference bot), matches, hands and time.

    The time per hand is the ladder's own (:func:`_seconds_per_hand`); with ``[final] budget_min`` the hands per
    match are cut so the estimate fits, never below :data:`MIN_HANDS`.
    """
    bots = len([a for a in store.active_versions(server.engine)]) + len(server.contest.references)
    return _plan(server.contest, server.engine, bots)


def plan_before_start(contest: Any) -> tuple[FinalPlan, str]:
    """The final's plan for ``harness plan CONTEST.toml``: from the contest's database when it holds active
    versions (read only, nothing written), else for the roster (every student with one version); and which.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: a PostgreSQL database that cannot be read.
    """
    url = contest.database
    engine = None
    if not url.startswith("sqlite:///") or Path(url.removeprefix("sqlite:///")).is_file():
        engine = db.make_engine(url)
    try:
        try:
            active = len(store.active_versions(engine)) if engine is not None else 0
        except (OperationalError, ProgrammingError):  # no tables yet: the server never ran
            active = 0
        if active:
            return _plan(contest, engine, active + len(contest.references)), "the database's active versions"
        bots = len(contest.students) + len(contest.references)
        return _plan(contest, engine, bots), "the roster: every student with a version"
    finally:
        if engine is not None:
            engine.dispose()


def _plan(contest: Any, engine: Any, bots: int) -> FinalPlan:
    c = contest
    f = c.final
    seats = f.table_size or c.ladder.table_size
    wanted = f.hands or c.ladder.hands
    jobs = effective_jobs(c.ladder.jobs)
    strategy: Any = (Sampled(table_size=seats, seed=0, tables_per_bot=f.tables_per_bot)
                     if f.format == Format.SAMPLED else RoundRobin(table_size=seats))
    per_hand, source = _seconds_per_hand(engine, seats)
    budget = 60.0 * f.budget_min
    try:
        matches = strategy.count(bots) * seats if bots >= seats else 0
    except ScheduleError as exc:
        return FinalPlan(bots, f.format, seats, 0, wanted, wanted, 0.0, jobs, source, budget, str(exc))
    if not matches:
        return FinalPlan(bots, f.format, seats, 0, wanted, wanted, 0.0, jobs, source, budget,
                         f"{bots} bots cannot fill a table of {seats}")
    hands = wanted
    if budget:
        hands = max(MIN_HANDS, min(wanted, int(budget * jobs / (matches * per_hand))))
    return FinalPlan(bots, f.format, seats, matches, hands, wanted, matches * hands * per_hand / jobs, jobs,
                     source, budget)


def final_toml(server: Any, chosen: FinalPlan | None = None) -> str:
    """The tournament file of the final (TOML text), with the plan's hands (:func:`plan`)."""
    c = server.contest
    chosen = chosen or plan(server)
    lines = ["[tournament]", f"name = {_value(c.name + '-final')}", f"output = {_value(str(c.data / 'final'))}", "",
             "[schedule]", f"format = {_value(c.final.format)}", f"hands = {chosen.hands}",
             f"table_size = {chosen.table_size}", f"jobs = {c.ladder.jobs}"]
    if c.final.tables_per_bot is not None:
        lines.append(f"tables_per_bot = {c.final.tables_per_bot}")
    lines.append("")
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
    """Write ``final.toml`` from the plan now and start the final (False: one is running)."""
    if store.setting(server.engine, "final") == "running":
        return False
    chosen = plan(server)
    path: Path = server.contest.data / FINAL_TOML
    path.write_text(final_toml(server, chosen), encoding="utf-8")
    store.set_setting(server.engine, "final_matches", str(chosen.matches))
    _run(server, path)
    return True


def resume_final(server: Any) -> bool:
    """At start-up: resume a final a stop or a kill cut short (its ``final.toml`` unchanged: the runner skips the
    matches recorded); a runner a killed server left behind is stopped first. False: no final to resume."""
    path: Path = server.contest.data / FINAL_TOML
    if store.setting(server.engine, "final") != "running":
        return False
    if not path.is_file():  # nothing to resume from: say so, and let the ladder play
        store.set_setting(server.engine, "final", f"interrupted ({FINAL_TOML} is gone: run it again)")
        store.set_setting(server.engine, "ladder_paused", "0")
        return False
    _stop_leftover(store.setting(server.engine, "final_pid"), path)
    _run(server, path)
    return True


def _stop_leftover(pid_text: str, path: Path) -> None:
    """Stop the runner of ``path`` with process id ``pid_text`` if it still runs (its server was killed)."""
    if not pid_text.isdigit():
        return
    pid = int(pid_text)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if str(path).encode() not in f.read():
                return  # the id is another process's now
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + 60  # the runner stops its matches on SIGTERM
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _run(server: Any, path: Path) -> None:
    """Run ``harness run path`` in a child process; its end sets the ``final`` setting (unless the server is
    stopping: the final then stays ``running`` and resumes at the next start)."""
    store.set_setting(server.engine, "final", "running")
    store.set_setting(server.engine, "ladder_paused", "1")
    results = server.contest.data / "final" / RESULTS_FILE
    store.set_setting(server.engine, "final_started", json.dumps([time.time(), _count_lines(results)]))
    log = open(server.contest.data / "final.log", "ab")  # noqa: SIM115 - closed by the waiting thread
    proc = subprocess.Popen([sys.executable, "-c", "from harness.cli import app; app()", "run", str(path)],
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server.final_proc = proc
    with contextlib.suppress(OSError):  # behind the pages for the CPU; its matches inherit it
        os.setpriority(os.PRIO_PROCESS, proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICENESS)
    store.set_setting(server.engine, "final_pid", str(proc.pid))

    def wait() -> None:
        code = proc.wait()
        log.close()
        if getattr(server, "stopping", False):
            return  # stopped with the server: resumed at its next start
        store.set_setting(server.engine, "final", "done" if code == 0 else f"failed (exit status {code})")
        store.set_setting(server.engine, "ladder_paused", "0")

    threading.Thread(target=wait, name="final", daemon=True).start()


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if line.strip())
    except OSError:
        return 0


@dataclass(frozen=True, slots=True)
class Progress:
    """A running final's progress: ``done`` of ``total`` matches recorded, ``left_s`` seconds left at the rate
    of this run so far (None before its first match)."""

    done: int
    total: int
    left_s: float | None

    def describe(self) -> str:
        left = f", about {describe_seconds(self.left_s)} left" if self.left_s is not None else ""
        return f"{self.done:,} of {self.total:,} matches played{left}"


def progress(server: Any) -> Progress | None:
    """The final's progress while it runs (None when it does not), from ``<data>/final/results.jsonl``."""
    if store.setting(server.engine, "final") != "running":
        return None
    total_text = store.setting(server.engine, "final_matches", "0")
    total = int(total_text) if total_text.isdigit() else 0
    done = _count_lines(server.contest.data / "final" / RESULTS_FILE)
    try:
        started, at_start = json.loads(store.setting(server.engine, "final_started", "[0, 0]"))
    except (ValueError, TypeError):
        started, at_start = 0.0, 0
    played = done - int(at_start)
    left = None
    if played > 0 and total >= done:
        left = (time.time() - float(started)) / played * (total - done)
    return Progress(min(done, total) if total else done, max(total, done), left)
