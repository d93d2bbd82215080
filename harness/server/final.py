"""The final: the tournament runner over every active version and the reference bots, its report at ``/final``.

The server writes ``<data>/final.toml`` (the contest's game, limits and sandbox,
``[final]``'s format, hands and table size: :func:`plan`, one ``[[bots]]`` per
active version and reference bot) and runs ``harness run`` on it in a child
process (the runner owns its signals, so it cannot run in a thread of the
server). The ladder is paused meanwhile; the usual report (``<data>/final/report``)
is served at ``/final``.

With ``[final] format = "racing"`` the child is the race's runner instead
(:mod:`harness.server.race`: rounds of the runner over the pairs whose order
is not yet clear, :mod:`harness.tournament.racing`).

Before it starts, the admin page shows its size and time (:func:`plan`: the
ladder's own match times scale to the final's hands; ``[final] budget_min``
cuts the hands per match to fit; a race: its worst case, its least and what
the ladder's gaps predict). While it runs, :func:`progress` counts the
matches recorded in ``<data>/final/results.jsonl`` and gives the standings so
far (:func:`provisional`, or the race's ``race.json``). A server stopped (or killed)
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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import OperationalError, ProgrammingError

from harness.server import db, store
from harness.server.board import BACKGROUND_NICENESS
from harness.server.etag import file_stamp
from harness.tournament.cluster import ClusterError, cluster_threads
from harness.tournament.config import toml_value
from harness.tournament.estimate import DEFAULT_RATES, describe_seconds, effective_jobs
from harness.tournament.racing import RaceRule, expected_tables, least_tables, ratio_se, worst_case_tables
from harness.tournament.results import RESULTS_FILE, MatchRecord, ResultsError, read_records
from harness.tournament.schedule import Format, RoundRobin, Sampled, ScheduleError
from harness.tournament.stats import Standing, bb_per_100, score, sets_by_table, standings

FINAL_TOML = "final.toml"
#: The racing final's state after each round, in the data folder (:mod:`harness.server.race` writes it).
RACE_FILE = "race.json"
#: The fewest hands per match a time budget may cut the final to (fewer say little about a bot).
MIN_HANDS = 20
#: Ladder matches whose durations the estimate reads (the latest).
TIMED_MATCHES = 50
#: The setting in which the ladder's process gives the worker threads of its Dask cluster (``[ladder] cluster``),
#: counted when it connected: the final's plan on the admin page runs that many matches at once.
CLUSTER_THREADS = "ladder_cluster_threads"


def _value(v: Any) -> str:
    return toml_value(v if isinstance(v, (str, bool, int, float, list, tuple, dict)) else str(v))


def _setting(server: Any, key: str, default: str = "") -> str:
    """A setting of the final, through the server's remembered settings when it has them (every write of the
    final's settings is this process's: :func:`_set`), else from the database (a caller without a server)."""
    read = getattr(server, "setting", None)
    return str(read(key, default)) if read is not None else store.setting(server.engine, key, default)


def _set(server: Any, key: str, value: str) -> None:
    """Write a setting of the final (through the server, which then forgets what it remembered)."""
    write = getattr(server, "set_setting", None)
    if write is not None:
        write(key, value)
    else:
        store.set_setting(server.engine, key, value)


def page_stamp(server: Any) -> tuple[Any, ...]:
    """Changes whenever what the pages show of the final does (their entity tag, :mod:`harness.server.etag`):
    its state, and while it runs (or once a race is over) the stamps of ``results.jsonl`` and ``race.json``.
    The time left shown while it runs is as of the latest match recorded."""
    state = _setting(server, "final", "")
    race = _setting(server, "final_race", "")
    if state != "running" and not (state == "done" and race):
        return (state,)
    data: Path = server.contest.data
    return (state, race, _setting(server, "final_matches", ""), file_stamp(data / "final" / RESULTS_FILE),
            file_stamp(data / RACE_FILE))


@dataclass(frozen=True, slots=True)
class FinalPlan:
    """The final's size and time before it starts.

    Attributes:
        bots: entrants (active versions and reference bots).
        format: ``round-robin``, ``sampled`` or ``racing``.
        table_size: seats per table.
        matches: matches to play (tables times seat rotations: every table is a duplicate set); racing: at most
            (every pair to its cap), and ``seconds`` is that worst case's time.
        hands: hands per match, after the budget.
        wanted_hands: ``[final] hands`` (or ``[ladder] hands``) before the budget.
        seconds: the estimated wall time (seconds) with ``jobs`` matches at once.
        jobs: matches at once.
        source: where the time per hand comes from (the ladder's matches, or the defaults).
        budget_s: ``[final] budget_min`` in seconds (0: none).
        problem: why no final can be planned ("" when it can).
        least_matches: racing only: matches if every pair separates at its first look.
        expected_matches: racing only: matches the ladder's own gaps and spread predict
            (:func:`harness.tournament.racing.expected_tables`); None before the ladder has played.
        error_rate: racing only: the chance, at most, that any pair stops in the wrong order.
        jobs_note: how ``jobs`` was counted on a Dask cluster (its worker threads, or why they could not be
            counted and what is assumed); "" for local jobs (``[ladder] jobs``).
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
    least_matches: int = 0
    expected_matches: float | None = None
    error_rate: float = 0.0
    jobs_note: str = ""

    def _with_jobs(self) -> str:
        note = f": {self.jobs_note}" if self.jobs_note else ""
        return f"with {self.jobs} job{'s' if self.jobs != 1 else ''}{note}"

    def describe(self) -> str:
        """One line for the admin page."""
        if self.problem:
            return f"No final can be planned: {self.problem}."
        if self.format == "racing":
            return self._describe_race()
        fmt = "round robin" if self.format == "round-robin" else "sampled tables"
        cut = (f" (cut from {self.wanted_hands:,} to fit the budget of {describe_seconds(self.budget_s)})"
               if self.hands < self.wanted_hands else "")
        over = (f"; over the budget of {describe_seconds(self.budget_s)} even at {MIN_HANDS} hands"
                if self.budget_s and self.seconds > self.budget_s else "")
        return (f"{fmt} of {self.bots} bots at tables of {self.table_size}: {self.matches:,} matches of "
                f"{self.hands:,} hands{cut} ({self.matches * self.hands:,} hands), about "
                f"{describe_seconds(self.seconds)} {self._with_jobs()} "
                f"(time per hand: {self.source}){over}.")

    def _describe_race(self) -> str:
        cut = (f" (cut from {self.wanted_hands:,} to fit the budget of {describe_seconds(self.budget_s)})"
               if self.hands < self.wanted_hands else "")
        per_match = self.seconds / self.matches if self.matches else 0.0
        expected = (f"; expected about {round(self.expected_matches):,} matches, "
                    f"{describe_seconds(self.expected_matches * per_match)} (from the ladder's gaps and spread)"
                    if self.expected_matches is not None else "; expected: not known before the ladder has played")
        over = (f"; over the budget of {describe_seconds(self.budget_s)} even at {MIN_HANDS} hands"
                if self.budget_s and self.seconds > self.budget_s else "")
        return (f"racing round robin of {self.bots} bots heads-up: at most {self.matches:,} matches of "
                f"{self.hands:,} hands{cut}, about {describe_seconds(self.seconds)} {self._with_jobs()} "
                f"(every pair to its cap), at least {self.least_matches:,} "
                f"matches{expected}; a pair stops when its order is clear, wrong for any pair with a chance of at "
                f"most {self.error_rate:g} (time per hand: {self.source}){over}.")


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
    return _plan(server.contest, server.engine, bots, _known_jobs(server))


def _known_jobs(server: Any) -> tuple[int, str] | None:
    """On a cluster, its worker threads as the ladder's process counted them (:data:`CLUSTER_THREADS`: the web
    process asks no scheduler while a page waits); None for local jobs."""
    cluster = server.contest.ladder.cluster
    if not cluster:
        return None
    known = store.setting(server.engine, CLUSTER_THREADS, "")
    if known.isdigit() and int(known) > 0:
        return int(known), f"the worker threads of the cluster {cluster}, as the ladder counted them"
    return 1, f"1 assumed: the cluster {cluster}'s worker threads are not known until the ladder has connected to it"


def cluster_jobs(cluster: str) -> tuple[int, str]:
    """Matches a final on the Dask cluster ``cluster`` plays at once (its worker threads now, asked of its
    scheduler; ``local:N``: N) and how that was counted; 1 and why when the cluster cannot be asked."""
    try:
        return cluster_threads(cluster), f"the worker threads of the cluster {cluster}"
    except ClusterError as exc:
        return 1, f"1 assumed: the cluster's worker threads cannot be counted ({exc})"


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
        jobs = cluster_jobs(contest.ladder.cluster) if contest.ladder.cluster else None
        if active:
            return _plan(contest, engine, active + len(contest.references), jobs), "the database's active versions"
        bots = len(contest.students) + len(contest.references)
        return _plan(contest, engine, bots, jobs), "the roster: every student with a version"
    finally:
        if engine is not None:
            engine.dispose()


def race_rule(contest: Any) -> RaceRule:
    """The racing final's stopping rule from ``[final]`` (:class:`harness.tournament.racing.RaceRule`)."""
    f = contest.final
    return RaceRule(delta=f.error_rate, min_tables=f.min_tables, max_tables=f.max_tables)


def _ladder_spread(engine: Any, final_hands: int) -> tuple[list[float], float] | None:
    """From the latest ladder matches: every pair's gap of duplicate bb/100 (each bot's over its tables), and
    one final table's standard deviation of duplicate bb/100 (the tables' median, scaled to ``final_hands``);
    None when too few complete tables are stored."""
    if engine is None:
        return None
    m = db.matches
    with engine.connect() as conn:
        texts = conn.execute(select(m.c.record).where(m.c.record.is_not(None)).order_by(m.c.id.desc())
                             .limit(20 * TIMED_MATCHES)).scalars().all()
    records = []
    for text in texts:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            records.append(MatchRecord.from_dict(json.loads(text)))
    tables = {name: cells for name, cells in sets_by_table(records).items() if len(cells) == 2}
    won: dict[str, list[float]] = {}
    sds = []
    for cells in tables.values():
        for bot, sets in cells.items():
            hands = sum(k for _, k in sets)
            if not hands:
                continue
            won.setdefault(bot, []).append(bb_per_100(sum(x for x, _ in sets), hands))
            se = ratio_se(sets)
            if se is not None:
                sds.append(se * (hands / 2 / final_hands) ** 0.5)  # se of this table, at the final's hands
    means = [sum(v) / len(v) for v in won.values()]
    if len(means) < 2 or len(sds) < 3:
        return None
    sds.sort()
    return [a - b for i, a in enumerate(means) for b in means[i + 1:]], sds[len(sds) // 2]


def _plan(contest: Any, engine: Any, bots: int, counted: tuple[int, str] | None = None) -> FinalPlan:
    """The plan of ``bots`` entrants; ``counted``: matches at once on a cluster and how they were counted (None:
    the local ``[ladder] jobs``)."""
    c = contest
    f = c.final
    jobs, note = counted if counted is not None else (effective_jobs(c.ladder.jobs), "")
    if f.format == "racing":
        return replace(_plan_race(contest, engine, bots, jobs), jobs_note=note)
    seats = f.table_size or c.ladder.table_size
    wanted = f.hands or c.ladder.hands
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
                     source, budget, jobs_note=note)


def _plan_race(contest: Any, engine: Any, bots: int, jobs: int) -> FinalPlan:
    """The racing final's plan with ``jobs`` matches at once: its worst case (every pair to the cap) sized and
    timed, its least, and what the ladder's gaps predict."""
    c, rule = contest, race_rule(contest)
    wanted = c.final.hands or c.ladder.hands
    per_hand, source = _seconds_per_hand(engine, 2)
    budget = 60.0 * c.final.budget_min
    if bots < 2:
        return FinalPlan(bots, "racing", 2, 0, wanted, wanted, 0.0, jobs, source, budget,
                         f"{bots} bots cannot fill a table of 2", error_rate=rule.delta)
    worst = 2 * worst_case_tables(bots, rule)
    hands = wanted if not budget else max(MIN_HANDS, min(wanted, int(budget * jobs / (worst * per_hand))))
    spread = _ladder_spread(engine, hands)
    expected = None
    if spread is not None:
        gaps, sd = spread
        pairs = bots * (bots - 1) // 2
        expected = 2 * expected_tables(gaps, sd, rule) / len(gaps) * pairs if gaps else None
    return FinalPlan(bots, "racing", 2, worst, hands, wanted, worst * hands * per_hand / jobs, jobs, source, budget,
                     least_matches=2 * least_tables(bots, rule), expected_matches=expected, error_rate=rule.delta)


def final_toml(server: Any, chosen: FinalPlan | None = None) -> str:
    """The tournament file of the final (TOML text), with the plan's hands (:func:`plan`)."""
    c = server.contest
    chosen = chosen or plan(server)
    lines = ["[tournament]", f"name = {_value(c.name + '-final')}", f"output = {_value(str(c.data / 'final'))}", "",
             "[schedule]", f"format = {_value('round-robin' if c.final.format == 'racing' else c.final.format)}",
             f"hands = {chosen.hands}",
             f"table_size = {chosen.table_size}"]
    # [ladder] cluster: the final's matches go to the same Dask cluster (every worker thread), as the ladder's
    lines.append(f"scheduler = {_value(c.ladder.cluster)}" if c.ladder.cluster else f"jobs = {c.ladder.jobs}")
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
    if _setting(server, "final") == "running":
        return False
    chosen = plan(server)
    path: Path = server.contest.data / FINAL_TOML
    path.write_text(final_toml(server, chosen), encoding="utf-8")
    _set(server, "final_matches", str(chosen.matches))
    rule = race_rule(server.contest)
    _set(server, "final_race", json.dumps([rule.delta, rule.min_tables, rule.max_tables])
                      if chosen.format == "racing" else "")
    race = server.contest.data / RACE_FILE
    race.unlink(missing_ok=True)  # an earlier final's race is not this one's
    _run(server, path)
    return True


def resume_final(server: Any) -> bool:
    """At start-up: resume a final a stop or a kill cut short (its ``final.toml`` unchanged: the runner skips the
    matches recorded); a runner a killed server left behind is stopped first. False: no final to resume."""
    path: Path = server.contest.data / FINAL_TOML
    if _setting(server, "final") != "running":
        return False
    if not path.is_file():  # nothing to resume from: say so, and let the ladder play
        _set(server, "final", f"interrupted ({FINAL_TOML} is gone: run it again)")
        _set(server, "ladder_paused", "0")
        return False
    _stop_leftover(_setting(server, "final_pid"), path)
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
    _set(server, "final", "running")
    _set(server, "ladder_paused", "1")
    results = server.contest.data / "final" / RESULTS_FILE
    _set(server, "final_started", json.dumps([time.time(), _count_lines(results)]))
    log = open(server.contest.data / "final.log", "ab")  # noqa: SIM115 - closed by the waiting thread
    proc = subprocess.Popen(_command(_setting(server, "final_race", ""), path),
                            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server.final_proc = proc
    with contextlib.suppress(OSError):  # behind the pages for the CPU; its matches inherit it
        os.setpriority(os.PRIO_PROCESS, proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + BACKGROUND_NICENESS)
    _set(server, "final_pid", str(proc.pid))

    def wait() -> None:
        code = proc.wait()
        log.close()
        if getattr(server, "stopping", False):
            return  # stopped with the server: resumed at its next start
        _set(server, "final", "done" if code == 0 else f"failed (exit status {code})")
        _set(server, "ladder_paused", "0")

    threading.Thread(target=wait, name="final", daemon=True).start()


def _command(race: str, path: Path) -> list[str]:
    """The final's child process: ``harness run path``, or the race's runner (:mod:`harness.server.race`) when
    ``race`` (the ``final_race`` setting) holds its rule as ``[delta, min_tables, max_tables]``."""
    if not race:
        return [sys.executable, "-c", "from harness.cli import app; app()", "run", str(path)]
    delta, least, most = json.loads(race)
    return [sys.executable, "-c", "from harness.server.race import main; main()", str(path), str(delta),
            str(least), str(most)]


def _count_lines(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for line in f if line.strip())
    except OSError:
        return 0


@dataclass(frozen=True, slots=True)
class Progress:
    """A running final's progress: ``done`` of ``total`` matches recorded, ``left_s`` seconds left at the rate
    of this run so far (None before its first match); a racing final's ``total`` is its worst case, and ``race``
    is its ``race.json`` after the latest round (None before the first, or for other formats); ``standings``:
    the other formats' provisional leaderboard over the complete tables so far (:func:`provisional`)."""

    done: int
    total: int
    left_s: float | None
    race: dict[str, Any] | None = None
    racing: bool = False
    standings: tuple[Standing, ...] = ()

    def describe(self) -> str:
        if self.racing:
            left = f", at most about {describe_seconds(self.left_s)} left" if self.left_s is not None else ""
            pairs = self.race["pairs"] if self.race else []
            racing = sum(1 for p in pairs if p["racing"])
            said = f"; {racing} of {len(pairs)} pairs still racing" if pairs else ""
            return f"{self.done:,} of at most {self.total:,} matches played{said}{left}"
        left = f", about {describe_seconds(self.left_s)} left" if self.left_s is not None else ""
        return f"{self.done:,} of {self.total:,} matches played{left}"


def read_race(data: Path) -> dict[str, Any] | None:
    """The racing final's ``race.json`` under the data folder ``data`` (None: none, or unreadable)."""
    try:
        content = json.loads((data / RACE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return content if isinstance(content, dict) else None


def progress(server: Any) -> Progress | None:
    """The final's progress while it runs (None when it does not), from ``<data>/final/results.jsonl``."""
    if _setting(server, "final") != "running":
        return None
    total_text = _setting(server, "final_matches", "0")
    total = int(total_text) if total_text.isdigit() else 0
    done = _count_lines(server.contest.data / "final" / RESULTS_FILE)
    try:
        started, at_start = json.loads(_setting(server, "final_started", "[0, 0]"))
    except (ValueError, TypeError):
        started, at_start = 0.0, 0
    played = done - int(at_start)
    left = None
    if played > 0 and total >= done:
        left = (time.time() - float(started)) / played * (total - done)
    racing = bool(_setting(server, "final_race", ""))
    race = read_race(server.contest.data) if racing else None
    rows = () if racing else tuple(provisional(server.contest.data))
    return Progress(min(done, total) if total else done, max(total, done), left, race, racing, rows)


def finished_race(server: Any) -> dict[str, Any] | None:
    """A racing final's ``race.json`` once it is over (its result, as the report's first table gives it); None
    otherwise."""
    if _setting(server, "final") != "done" or not _setting(server, "final_race", ""):
        return None
    race = read_race(server.contest.data)
    return race if race is not None and race.get("over") else None


_provisional: dict[str, tuple[tuple[int, int], list[Standing]]] = {}
_provisional_lock = threading.Lock()


def provisional(data: Path) -> list[Standing]:
    """The running final's leaderboard so far (duplicate bb/100 with 95% intervals, over its complete tables:
    ``results.jsonl`` holds only those), read again only when the file changed (pages ask often, matches end
    seldom); [] before the first table or when it cannot be read."""
    path = data / "final" / RESULTS_FILE
    try:
        st = path.stat()
    except OSError:
        return []
    key = (st.st_size, st.st_mtime_ns)
    with _provisional_lock:
        hit = _provisional.get(str(path))
        if hit is not None and hit[0] == key:
            return hit[1]
        try:
            rows = standings(score(read_records(path.parent), None).scored)
        except (ResultsError, OSError):
            return []
        _provisional[str(path)] = (key, rows)
        return rows
