"""The tournament runner: checks the entries, plans, plays the plan's matches and records them.

A run, in order:

1. opens the output directory (refused unless missing, empty or made by this
   harness; locked: one run at a time) and kills what a killed earlier run's
   bots left behind;
2. checks every new or changed bot (:mod:`harness.tournament.entries`): bots
   that fail are left out, with the reason printed at once;
3. makes the plan (:mod:`harness.tournament.plan`) for the bots that passed,
   compares it with what is stored ("reused N matches, playing M, dropped
   K"), estimates its time and disk use (:mod:`harness.tournament.estimate`)
   and writes it to ``tournament.json``;
4. plays the matches not yet recorded, ``jobs`` at a time, through an
   :class:`~harness.tournament.workers.Executor` (default: forked workers on
   this machine, each match pinned to a CPU of its own; ``[schedule] backend =
   "dask"``: tasks of a Dask cluster, :mod:`harness.tournament.cluster`), appending a
   :class:`~harness.tournament.results.MatchRecord` to ``results.jsonl`` as
   each finishes. Matches that deal the same cards (the rotations of a
   table) are never in flight together, on either backend (a job
   :attr:`~harness.tournament.workers.Job.group` per deal): a bot's copies in
   them could otherwise tell each other the cards each faces; other tables'
   matches fill the other slots;
5. writes the leaderboard from what is on disk
   (:func:`harness.tournament.leaderboard.write_leaderboard`).

Resume: a match with a stored record of the same fingerprint is skipped; any
other directory of a planned match is a partial match and is replayed from
scratch. Matches are independent (own bots, own deals), so the order in which
they finish changes no result.

Interrupts: Ctrl-C or SIGTERM stops the run cleanly: running matches get
SIGTERM (the referee's cleanup stops their bots), nothing partial is
recorded, and the same command resumes later.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.deals import commitment, new_seed
from harness.history.files import HistoryTail
from harness.host.sandbox import SandboxError, decide_isolation
from harness.match.outdir import StorageError, storage_errno
from harness.specs import FaultKind, MatchResult, MatchSpec, SandboxSettings
from harness.tournament.cluster import ClusterError
from harness.tournament.config import Backend, ConfigError, TournamentConfig
from harness.tournament.entries import (
    CHECK_HANDS,
    EntryReport,
    check_entries,
    describe_failure,
    known_failures,
    unchecked,
    working,
)
from harness.tournament.estimate import (
    DEFAULT_RATES,
    ENTRY_BYTES,
    REPORT_BYTES,
    RUNNER_S,
    MatchCost,
    PlanCost,
    Rates,
    Refiner,
    calibrate,
    disk_warning,
    effective_jobs,
    match_seconds,
    plan_cost,
)
from harness.tournament.leaderboard import write_leaderboard
from harness.tournament.matchjob import PlayMatch, count_hands, play_and_store
from harness.tournament.plan import Plan, Reuse, make_plan, plan_against
from harness.tournament.progress import Display
from harness.tournament.results import (
    MatchRecord,
    ResultsStore,
    check_out_dir,
    is_ours,
    match_files,
    read_manifest,
    read_results,
)
from harness.tournament.schedule import Format, ScheduledMatch
from harness.tournament.seeds import REVEAL_FILE, SECRET_FILE, add_deal_seed, reveal, tournament_seeds
from harness.tournament.voice import StderrVoice, Voice
from harness.tournament.workers import (
    ERROR_FILE,
    STOP_SIGNALS,
    WORKERS_FILE,
    Done,
    Executor,
    Job,
    LocalExecutor,
    run_all,
)

if TYPE_CHECKING:  # imported when scoring: the leaderboard's libraries stay out of a run's start
    from harness.tournament.leaderboard import Board

#: Writes a report of the output directory while the tournament runs (e.g. harness.report.html.write_report).
ReportHook = Callable[[Path], object]
#: Seconds between two reports written while a tournament runs.
REPORT_EVERY_S = 60.0
_POLL_S = 0.2
_PR_SET_PDEATHSIG = 1  # prctl(2) option (linux/prctl.h)
_REPORT_GRACE_S = 15.0


class NotEnoughBots(ConfigError):
    """Fewer than two bots (or fewer than a table's seats) passed the entry check."""


class RunOutcome(StrEnum):
    """How a run ended: the one value a caller branches on (usage errors stay exceptions).

    ``played``: every match it could play was played (see :attr:`RunSummary.complete` and
    :attr:`RunSummary.failed`); ``interrupted``: Ctrl-C or SIGTERM; ``stopped``: the Dask scheduler
    was lost; ``storage``: the output's disk takes no more data. Every stop leaves the directory
    resumable, with every record so far kept.
    """

    PLAYED = "played"
    INTERRUPTED = "interrupted"
    STOPPED = "stopped"
    STORAGE = "storage"


@dataclass(slots=True)
class RunSummary:
    """What one call of :func:`run_tournament` did.

    Attributes:
        out_dir: the output directory.
        name: tournament name.
        bots: the plan's bots, in configuration order.
        matches_total: matches in the plan.
        records: the plan's records now stored (earlier runs included).
        matches_run: matches finished by this call.
        hands_run: hands played by the matches this call finished.
        seconds: wall-clock time of the matches of this call (after the entry check and the plan).
        outcome: how the run ended (:class:`RunOutcome`).
        failed: match ids whose worker failed (see their ``error.txt``).
        never_started: bots that failed to start in every match they
            played, with the first failure (referee status and the bot's
            last stderr line); their results are recorded but meaningless.
        plan: the plan played.
        reuse: reused / playing / dropped counts.
        estimate: the estimate printed before play.
        entries: the entry check.
        match_walls: wall seconds of each match this call played (start to record).
        board: the leaderboard, with its rankings (None when nothing is recorded); the report reuses it.
        board_text: the leaderboard as printed (None when nothing is recorded).
        notices: the leaderboard's notices (incomplete tables, records not counted).
        stopped: why the run stopped before the end other than by Ctrl-C (the
            Dask scheduler was lost, the disk is full: it names the path), "" otherwise.
    """

    out_dir: Path
    name: str
    bots: tuple[str, ...]
    matches_total: int
    records: list[MatchRecord] = field(default_factory=list)
    matches_run: int = 0
    hands_run: int = 0
    seconds: float = 0.0
    outcome: RunOutcome = RunOutcome.PLAYED
    failed: list[str] = field(default_factory=list)
    never_started: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None
    reuse: Reuse | None = None
    estimate: PlanCost | None = None
    entries: EntryReport | None = None
    match_walls: list[float] = field(default_factory=list)
    board: Board | None = None
    board_text: str | None = None
    notices: list[str] = field(default_factory=list)
    stopped: str = ""

    @property
    def interrupted(self) -> bool:
        """Stopped by Ctrl-C / SIGTERM before the end."""
        return self.outcome is RunOutcome.INTERRUPTED

    @property
    def storage(self) -> bool:
        """Stopped because results or hand histories could not be written (:class:`StorageError`)."""
        return self.outcome is RunOutcome.STORAGE

    @property
    def complete(self) -> bool:
        """True when every planned match has a record."""
        return len(self.records) == self.matches_total

    @property
    def hands_per_s(self) -> float:
        """Hands per second over this call (0 when nothing ran)."""
        return self.hands_run / self.seconds if self.seconds > 0 else 0.0


def schedule_for(config: TournamentConfig) -> list[ScheduledMatch]:
    """The matches of a plan of every bot of the file (no output directory, no entry check)."""
    return list(make_plan(config).matches)


def manifest(config: TournamentConfig, plan: Plan) -> dict[str, Any]:
    """The ``tournament.json`` content: the plan, with each match's id, table, rotation and fingerprint.

    Also: the settings that decide every match (to say what changed when
    nothing can be reused), the commitment to the seed (``seed_sha256``, its
    SHA-256: the seed is secret until the last match, :mod:`harness.tournament.seeds`),
    each bot's setup digest and, for the sampled format, the design (repaired,
    not redrawn, by the next run).
    """
    return {
        "format": 3,
        "name": config.tournament.name,
        "config": str(config.path),
        "bots": list(plan.bots),
        "entrants": list(config.bot_names),
        "big_blind": config.game.unit,
        "hands_per_match": config.schedule.hands,
        "table_size": config.schedule.table_size,
        "duplicate": config.schedule.duplicate,
        "schedule": config.schedule.label,
        "tables": plan.tables,
        "settings": dict(plan.settings),
        "seed_sha256": plan.seed_sha256,
        "later_seed_sha256": list(plan.later_seed_sha256),
        "bot_digests": dict(plan.bot_digests),
        "design": [list(t) for t in plan.design] if plan.design is not None else None,
        "matches": plan.manifest_matches(),
    }


def sandbox_settings(config: TournamentConfig, out_dir: Path) -> SandboxSettings:
    """``[sandbox]`` for the tournament's matches: the output directory is hidden from every bot."""
    box = config.sandbox
    return dataclasses.replace(box, hidden=(*box.hidden, os.fspath(Path(out_dir).resolve())))


def never_started(records: Sequence[MatchRecord], out_dir: Path) -> dict[str, str]:
    """Bots that failed to start in every match they played, with the first failure.

    Args:
        records: the tournament's records.
        out_dir: the output directory (for the bots' stderr logs).

    Returns:
        ``{bot: reason}`` in order of first appearance; the reason is the
        referee's status (e.g. ``"failed_start: exited before its hello
        (exit status 1)"``) plus the last line the bot wrote to stderr, if any.
    """
    first: dict[str, str] = {}
    started: set[str] = set()
    for rec in records:
        res = rec.result
        for seat, name in enumerate(res.bots):
            if not res.faults[seat].get(FaultKind.FAILED_START):
                started.add(name)
            elif name not in first:
                reason = res.status[seat] if res.status[seat] != "ok" else FaultKind.FAILED_START.value
                err = match_files(out_dir, res.match_id) / "logs" / f"{seat}-{name}.err"
                last = _last_line(err)
                first[name] = reason + (f"; its stderr ({err}) ends with: {last}" if last else "")
    return {name: why for name, why in first.items() if name not in started}


def _last_line(path: Path, limit: int = 300) -> str:
    """The last non-empty line of a (small, capped) log file, shortened to ``limit`` characters."""
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 4096))
            lines = [ln.strip() for ln in fh.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    if not lines:
        return ""
    return lines[-1] if len(lines[-1]) <= limit else lines[-1][: limit - 3] + "..."


def plan_estimate(config: TournamentConfig, plan: Plan, todo: Sequence[ScheduledMatch], recorded: Sequence[MatchRecord],
                  entries: EntryReport | None, rates: Rates, parallel: int | None = None) -> PlanCost:
    """Estimate the matches still to play; scaled by the recorded matches' real times when there are any.

    ``parallel``: matches that run at once when not ``[schedule] jobs`` on this
    machine (a Dask cluster's worker threads).
    """
    costs = entries.costs() if entries is not None else {}

    def cost(bots: Sequence[str]) -> MatchCost:
        return MatchCost(seats=len(bots), hands=plan.hands, bots=bots)

    scale, source = 1.0, ""
    if recorded:
        guessed = sum(match_seconds(rates, cost(r.result.bots), costs) for r in recorded)
        measured = sum(r.result.duration_s + RUNNER_S for r in recorded)
        if guessed > 0 and measured > 0:
            scale, source = measured / guessed, f"the last run's {len(recorded)} matches"

    once = (REPORT_BYTES + ENTRY_BYTES * len(plan.bots)) if not recorded else 0.0
    return plan_cost(rates, [cost(p.bots) for p in todo], costs, jobs=config.schedule.jobs,
                     compressed=config.tournament.compress, scale=scale, source=source, extra_bytes=once,
                     parallel=parallel)


def describe_plan(config: TournamentConfig, plan: Plan) -> str:
    """``plan: 40 tables, 240 matches, 24,000 hands (sampled, 6 seats, ...)``."""
    sched = config.schedule
    what = [sched.label, f"{sched.table_size} seats", "duplicate" if sched.duplicate else "no duplicate"]
    bal = plan.balance()
    if bal is not None and (sched.format is Format.SAMPLED or sched.table_size > 2):
        lo, hi = bal.tables_per_bot
        what.append(f"{lo}{'' if lo == hi else f'-{hi}'} tables per bot")
        plo, phi = bal.pair_meetings
        what.append(f"each pair at {plo}{'' if plo == phi else f'-{phi}'} tables (mean {bal.mean_meetings:.2f})")
    return (f"plan: {len(plan.bots)} bots, {plan.tables:,} tables, {len(plan.matches):,} matches, "
            f"{plan.total_hands:,} hands ({', '.join(what)})")


class _Reporter:
    """Runs the report hook in a forked child every ``every_s`` seconds, one at a time.

    A child, so that a slow report never delays the runner's bookkeeping; forked
    (like the match workers) and given the death signal, so it never outlives the run.
    """

    def __init__(self, hook: ReportHook | None, out_dir: Path, every_s: float, voice: Voice) -> None:
        self.voice = voice

        self.hook, self.out_dir, self.every_s = hook, out_dir, every_s
        self.last = -float("inf")
        self.took = 0.0
        self.child: Any = None
        self.ctx = multiprocessing.get_context("fork")

    def tick(self) -> None:
        if self.hook is None or (self.child is not None and self.child.is_alive()):
            return
        now = time.monotonic()
        if self.child is not None:
            self.child.join()
            self.child = None
            self.took = now - self.last
        # A large contest's report takes seconds of a CPU the matches need: at most a fifth of the time.
        if now - self.last < max(self.every_s, 5 * self.took):
            return
        self.last = now
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.child = self.ctx.Process(target=_report_child, args=(self.hook, self.out_dir, os.getpid(), self.voice),
                                          name="report")
            self.child.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)

    def stop(self, wait_s: float = 0.0) -> None:
        """Let a report being written finish (up to ``wait_s``), then end it."""
        if self.child is not None:
            self.child.join(wait_s)
            if self.child.is_alive():
                self.child.terminate()
            self.child.join()
            self.child = None


def _report_child(hook: ReportHook, out_dir: Path, parent: int, voice: Voice) -> None:
    """Body of the report child: write one report; a failure is a warning, never fatal to the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if os.getppid() != parent:
        os._exit(0)
    try:
        hook(out_dir)
    except Exception as exc:  # noqa: BLE001 - the run goes on; the final report will say more
        # The caller's hook says its own failures with its command's name; this is the fallback.
        voice.warn(f"the running report of {out_dir} failed: {exc}")
        os._exit(1)
    os._exit(0)


def run_tournament(
    config: TournamentConfig,
    *,
    play: PlayMatch | None = None,
    progress: bool | None = None,
    quiet: bool = False,
    entry_check: bool | None = None,
    check: Callable[..., dict[str, Any]] | None = None,
    executor: Executor | None = None,
    rates: Rates | None = None,
    report: ReportHook | None = None,
    report_every_s: float = REPORT_EVERY_S,
    before_bots: Callable[[], None] | None = None,
    voice: Voice | None = None,
) -> RunSummary:
    """Run or resume a tournament; write its leaderboard.

    Args:
        config: a validated configuration (with command-line overrides applied).
        play: the match function (default: :func:`harness.match.referee.play_match`);
            tests pass a fake with the same signature.
        progress: live progress bar on/off (default: on when stderr is a terminal;
            otherwise one line per finished match).
        quiet: say nothing (benchmarks); only without ``voice``.
        entry_check: check the entries first (default: ``[tournament] entry_check``).
        check: the entry check's worker function (default:
            :func:`harness.tournament.entries.run_check`); tests pass a fake.
        executor: where matches run (default: a :class:`LocalExecutor` with
            ``[schedule] jobs`` and ``pin``, made and closed here). With
            ``[schedule] backend = "dask"`` the caller passes one
            (:meth:`harness.tournament.cluster.DaskExecutor.for_config`) and closes it.
        rates: the estimate's rates (default: measured now by :func:`calibrate`,
            or the defaults when ``play`` is a fake).
        report: called with the output directory in a child process at the
            start and every ``report_every_s`` seconds while matches run (the
            caller writes the final report after this returns).
        report_every_s: seconds between two running reports.
        before_bots: called once, after the output directory, seeds and
            settings are checked, just before the first bot starts (entry
            check or first match; not at all when none starts): the caller's
            warnings go there, so that a mistake found first stays one line.
            The sandbox's summary and warning (:func:`say_sandbox`) are
            said at the same moment.
        voice: where every line of the run goes (:class:`harness.tournament.voice.Voice`; default: a
            :class:`~harness.tournament.voice.StderrVoice`, silent with ``quiet``).

    Returns:
        A summary; ``interrupted`` is set when Ctrl-C / SIGTERM stopped it.

    Raises:
        harness.tournament.results.ResultsError: the output directory is not ours,
            is in use, or holds damaged results (nothing is changed).
        harness.tournament.config.ConfigError: the plan cannot be made (e.g. more
            matches than max_matches); :class:`NotEnoughBots` when fewer than two
            bots passed the entry check. Raised before any match.
        harness.tournament.cluster.ClusterError: the Dask cluster is lost before
            any match (lost later: ``summary.stopped``).
        ValueError: ``backend = "dask"`` without an ``executor``.
        harness.match.outdir.StorageError: the output directory's disk takes no more data
            (full, over quota, read-only, failing) before the matches (entry check, plan);
            during them: ``summary.outcome`` and ``summary.stopped``. Nothing recorded is lost.
    """
    if executor is None and config.schedule.backend is Backend.DASK:
        raise ValueError('backend = "dask": the caller makes the executor (DaskExecutor.for_config) and passes it')
    store = ResultsStore(config.tournament.output)
    stored = store.open()
    try:
        try:
            seeds = tournament_seeds(store.out_dir, config.tournament.seed)
            said = voice if voice is not None else StderrVoice(quiet=quiet)
            summary = _run(config, store, stored, seeds, play, progress, said, entry_check, check, executor,
                           rates, _Reporter(report, store.out_dir, report_every_s, said), before_bots)
            if summary.complete:
                reveal(store.out_dir, seeds)  # commit (tournament.json), play, then reveal
        except OSError as exc:  # files written outside the matches (entry check, plan, reveal)
            code = storage_errno(exc)
            if code is None:
                raise
            raise StorageError(exc.filename or store.out_dir, code) from None
        return summary
    finally:
        store.close()


def _run(config: TournamentConfig, store: ResultsStore, stored: dict[str, MatchRecord], seeds: list[int],
         play: PlayMatch | None, progress: bool | None, voice: Voice, entry_check: bool | None,
         check: Callable[..., dict[str, Any]] | None, executor: Executor | None, rates: Rates | None,
         reporter: _Reporter, before_bots: Callable[[], None] | None = None) -> RunSummary:
    """The body of :func:`run_tournament`, with the output directory open and locked: check the entries,
    plan, play, score (:class:`_Run`, one method per stage).

    ``seeds`` (the tournament seed, then later deal seeds) gains a new deal seed
    when a revealed contest has matches to play (:func:`add_deal_seed`).
    """
    run = _Run(config, store, stored, play, voice, executor, before_bots)
    report = run.check_entries(entry_check, check)
    summary, todo = run.plan(report, seeds, rates, progress)
    run.play(summary, todo, reporter)
    return run.score(summary, report)


class _Run:
    """One run of a tournament, stage by stage (see :func:`_run`); holds what the stages share."""

    def __init__(self, config: TournamentConfig, store: ResultsStore, stored: dict[str, MatchRecord],
                 play: PlayMatch | None, voice: Voice, executor: Executor | None,
                 before_bots: Callable[[], None] | None) -> None:
        self.config, self.store, self.stored = config, store, stored
        self.voice = voice
        self.fake = play is not None
        self.box: SandboxSettings | None = None
        if play is None:
            from harness.match.referee import play_match  # imported before forking, shared by workers

            # Every bot in its sandbox, the tournament's output directory (results, logs, other matches'
            # hand histories, the secret seed) out of its sight.
            self.box = sandbox_settings(config, store.out_dir)
            play = functools.partial(play_match, sandbox=self.box)
        self.play_match: PlayMatch = play
        sched = config.schedule
        self.remote = False  # the matches run elsewhere (their sandbox is checked there)
        # Bots an earlier, killed local run of this directory left behind (only now: the directory is ours).
        leftovers = LocalExecutor(effective_jobs(sched.jobs), pin=sched.pin, workers_file=store.out_dir / WORKERS_FILE)
        leftovers.kill_leftovers()
        if executor is None:  # the local backend
            executor = leftovers
        elif (where := executor.describe()) is not None:  # where the matches run, when not here
            self.say(where)
            self.remote = True
        self.executor: Executor = executor
        self.before_bots = before_bots
        self.bots_started = False
        self.planned: dict[str, ScheduledMatch] = {}

    def say(self, text: str) -> None:
        """A line of the run's commentary (entry-check lines carry bots' stderr: the voice escapes it)."""
        self.voice.say(text)

    def bots_start(self) -> None:
        """Once, just before the first bot starts: how the bots are isolated, then the caller's warnings."""
        if self.bots_started:
            return
        self.bots_started = True
        if self.box is not None:
            say_sandbox(self.voice, self.box, cluster=self.remote)
        if self.before_bots is not None:
            self.before_bots()

    # ---- stage 1: the entries

    def check_entries(self, entry_check: bool | None, check: Callable[..., dict[str, Any]] | None) -> EntryReport:
        """The entry check (or none): which bots play.

        Raises:
            NotEnoughBots: too few bots passed for one table.
        """
        config, sched, say = self.config, self.config.schedule, self.say
        if not (config.tournament.entry_check if entry_check is None else entry_check):
            return unchecked(config)

        def announce(to_check: int, kept: int) -> None:
            if to_check:
                self.bots_start()
                against = "raiser" if sched.table_size == 2 else "raiser and caller"
                say(f"entry check: {to_check} bot{'s' if to_check != 1 else ''} play {CHECK_HANDS} hands each "
                    f"against {against} under the tournament's limits, as one of its matches"
                    + (f" ({kept} unchanged bots passed before)" if kept else "") + " ...")

        out_dir = self.store.out_dir
        report = check_entries(config, out_dir, self.executor, **({"func": check} if check else {}),
                               on_entry=lambda e: None if e.ok else say(describe_failure(e)), on_start=announce)
        checked = sum(1 for e in report.entries.values() if e.checked)
        say(f"entry check: {len(report.passed)} of {len(report.entries)} bots pass"
            + (f" ({len(report.entries) - checked} unchanged, not checked again)" if checked < len(report.entries)
               else "")
            + (f"; left out: {', '.join(report.failed)}" if report.failed else ""))
        if len(report.passed) < max(2, sched.table_size):
            raise NotEnoughBots(
                config.path, "[[bots]]",
                f"only {len(report.passed)} of {len(report.entries)} bots passed the entry check "
                f"(see {out_dir / 'entries.json'}); a table of {sched.table_size} needs at least "
                f"{max(2, sched.table_size)}: fix the bots listed above, or run with --no-entry-check",
            )
        return report

    # ---- stage 2: the plan

    def plan(self, report: EntryReport, seeds: list[int], rates: Rates | None,
             progress: bool | None) -> tuple[RunSummary, list[ScheduledMatch]]:
        """The plan of the entries that play (what is recorded is reused), said with its estimate; the manifest."""
        config, store, stored, say = self.config, self.store, self.stored, self.say
        sched = config.schedule
        self.bots = working(config, report)
        self.by_name = {b.name: b for b in self.bots}
        previous = store.previous_manifest()
        planned = plan_against(config, self.bots, seeds, stored, previous)
        revealed = store.out_dir / REVEAL_FILE
        fresh_deals = False
        if planned.todo and revealed.exists() and config.tournament.seed is None:
            # The reveal published every seed so far: new matches get a new secret deal seed.
            seeds.append(add_deal_seed(store.out_dir))
            planned = plan_against(config, self.bots, seeds, stored, previous)
            fresh_deals = True
        plan, records, todo, reuse = planned.plan, planned.records, planned.todo, planned.reuse
        self.planned = {m.match_id: m for m in plan.matches}
        if rates is None:
            rates = _default_rates(self.fake, sched.table_size)
        parallel = self.executor.parallel
        est = plan_estimate(config, plan, todo, records, report if report.reference else None, rates, parallel)
        say(describe_plan(config, plan))
        say(reuse.describe())
        say(f"estimate: {len(todo):,} matches to play, {est.describe()}")
        short = disk_warning(est, store.out_dir) if todo else None
        if short:
            self.voice.warn(short)
        if todo and revealed.exists():
            self._said_reveal(revealed, len(todo), fresh_deals)
        store.write_manifest(manifest(config, plan))
        self.display = progress_display(config, plan, records, store.out_dir, progress, self.voice)
        self.refiner = Refiner(rates, {p.match_id: MatchCost(len(p.bots), plan.hands, p.bots) for p in todo},
                               report.costs() if report.reference else {}, sched.jobs, parallel)
        summary = RunSummary(
            out_dir=store.out_dir, name=config.tournament.name, bots=plan.bots, matches_total=len(plan.matches),
            records=records, plan=plan, reuse=reuse, estimate=est, entries=report,
        )
        return summary, todo

    def _said_reveal(self, revealed: Path, todo: int, fresh_deals: bool) -> None:
        """New matches after a finished contest's seeds were revealed: say where their deals come from."""
        if fresh_deals:
            self.say(f"deals: the seeds of the finished contest were revealed in {revealed}; the {todo} new matches "
                     "are dealt from a new secret seed (committed in tournament.json, revealed with the others after "
                     "the last match)")
        else:
            # A seed the organiser gave is theirs to keep secret; the reveal describes a finished contest.
            self.voice.warn(f"the seed given in the file was revealed in {revealed} when the earlier run finished; "
                     f"the {todo} new matches are dealt from it, so if that file was shared an entrant could know "
                     "its cards. Leave [tournament] seed out to have new matches dealt from a fresh secret seed. "
                     "(It is written again after the last match.)")
        revealed.unlink()

    # ---- stage 3: play

    def play(self, summary: RunSummary, todo: list[ScheduledMatch], reporter: _Reporter) -> None:
        """Play the matches still to play; records are appended (and published a table at a time) as they end.
        A stop (Ctrl-C, a lost cluster, a full disk) is recorded in ``summary``; every record so far is kept."""
        config, store, display = self.config, self.store, self.display
        tails: dict[str, HistoryTail] = {}
        hands_done = sum(r.result.hands_played for r in summary.records)
        # A match's record and files stay private while its table has a match to play, whose deals they
        # would give away (harness.tournament.results, "Secret deals").
        tables: dict[str, list[str]] = {}
        assert summary.plan is not None  # planned before play
        for m in summary.plan.matches:
            tables.setdefault(m.table, []).append(m.match_id)

        def publish(table: str) -> None:
            """Publish the table's matches once every one is recorded."""
            recorded = {r.match_id: r for r in summary.records}
            matches = tables.get(table, [])
            if matches and all(m in recorded for m in matches):
                store.publish([recorded[m] for m in matches])

        for table in tables:  # tables a stopped run completed but had not published yet
            publish(table)

        def finished(done: Done) -> None:
            nonlocal hands_done
            tails.pop(done.job.key, None)
            if done.storage is not None:  # the disk, not the match: stop here, every record so far is kept
                raise StorageError(done.job.directory, done.storage)
            record = _record(done, config.game.unit)
            if record is None:
                summary.failed.append(done.job.key)
                display.match_failed(done.job.key, done.error or "failed", done.job.directory / ERROR_FILE)
                return
            store.append(record, pending=True)  # published with the rest of its table
            summary.records.append(record)
            summary.matches_run += 1
            summary.hands_run += record.result.hands_played
            summary.match_walls.append(done.wall_s)
            hands_done += record.result.hands_played
            display.match_done(record)
            refined = self.refiner.record(record.match_id, record.result.duration_s)
            if refined:
                display.message(refined)
            publish(record.table)

        executor = self.executor

        def tick() -> None:
            if display.live:
                live = 0
                for job in executor.running():  # an executor whose jobs write elsewhere counts them itself
                    remote = executor.live_hands(job)
                    live += count_hands(job.directory, job.key, tails) if remote is None else remote
                display.update(hands_done + live)
            reporter.tick()

        if todo:
            self.bots_start()
        started = time.monotonic()
        try:
            reporter.tick()
            run_all(executor, [self._job(p) for p in todo], finished, poll_s=_POLL_S,
                    on_start=lambda job: store.fresh_match_dir(job.key), on_tick=tick)
            reporter.stop(wait_s=_REPORT_GRACE_S)
        except KeyboardInterrupt:
            summary.outcome = RunOutcome.INTERRUPTED
        except ClusterError as exc:
            summary.outcome, summary.stopped = RunOutcome.STOPPED, str(exc)
        except (StorageError, OSError) as exc:
            code = storage_errno(exc)
            if code is None:
                raise
            where = exc.path if isinstance(exc, StorageError) else exc.filename or store.out_dir
            summary.outcome, summary.stopped = RunOutcome.STORAGE, str(StorageError(where, code))
        finally:
            reporter.stop()
            summary.seconds = time.monotonic() - started
            display.stop()

    def _job(self, p: ScheduledMatch) -> Job:
        """The job that plays one planned match (worker side: :func:`play_and_store`)."""
        config, sched = self.config, self.config.schedule
        by_name = self.by_name
        spec = MatchSpec(game=config.game, hands=sched.hands, seed=p.seed, starting_stack=config.starting_stack,
                         stack_mode=config.stack_mode, match_id=p.match_id, compress=config.tournament.compress,
                         rotation=p.rotation if p.rotations > 1 else None,  # duplicate: the rotation's secret order
                         definition=config.definition)
        directory = self.store.private_dir(p.match_id)  # published when its table is complete
        return Job(key=p.match_id, func=play_and_store,
                   args=(self.play_match, [by_name[n] for n in p.bots], spec, config.limits, directory),
                   directory=directory, info=p, group=commitment(p.seed))

    # ---- stage 4: score

    def score(self, summary: RunSummary, report: EntryReport) -> RunSummary:
        """What the run scored: the plan's records as on disk, bots that never started, the leaderboard."""
        store, planned = self.store, self.planned
        # Re-read what is on disk, once: an interrupt may have landed between an append and its
        # bookkeeping. The leaderboard (and, through summary.board, the report) reuse this reading.
        stored = read_results(store.out_dir, pending=True)
        summary.records = [rec for rec in stored.records
                           if rec.match_id in planned and rec.fingerprint == planned[rec.match_id].fingerprint]
        published = stored.published()
        if summary.complete and not summary.storage:
            # Every match of the plan is played: what older plans left private (records no longer
            # counted) is published too, as seed.json reveals the seed they all derive from.
            older = [self.stored[m] for m in sorted(set(self.stored) - set(planned))]
            store.publish(older)
            shown = {r.match_id for r in published.records}
            published.records += [r for r in older if r.match_id not in shown]  # as appended to the file
        summary.never_started = never_started(summary.records, store.out_dir)
        if (summary.records or report.failed) and not summary.storage:  # no room for the leaderboard's files

            board, text = write_leaderboard(store.out_dir, published)
            summary.board, summary.board_text, summary.notices = board, text, board.notices
        return summary


def say_sandbox(voice: Voice, box: SandboxSettings, *, cluster: bool = False) -> None:
    """Say what a run knows about the bots' isolation before the first starts (docs/security.md).

    ``sandbox: on (...)`` (this machine's :attr:`harness.host.sandbox.Isolation.summary`;
    not for a cluster, whose workers check their own), then the alert ``WARNING: bots are
    NOT fully isolated: ...`` when something is missing, or a notice when
    ``[sandbox] mode = "off"``. Nothing for mode "required" that cannot run
    here (refused before the run) or on a cluster (each worker refuses).
    """
    try:
        decided = decide_isolation(box)
    except SandboxError:
        return
    if not cluster:
        voice.say(f"sandbox: {decided.summary}")
    if decided.warning:
        voice.warn(decided.warning, alert=True)
    elif not decided.active:  # mode "off": chosen, so one quiet line
        voice.notice("the sandbox is off ([sandbox] mode / --sandbox): bots run unisolated, as your user")


def _default_rates(fake: bool, seats: int) -> Rates:
    if fake:
        return DEFAULT_RATES
    try:
        return calibrate(seats)
    except Exception:  # noqa: BLE001 - an estimate must never stop a run
        return DEFAULT_RATES


def progress_display(config: TournamentConfig, plan: Plan, records: Sequence[MatchRecord], out_dir: Path,
                     progress: bool | None, voice: Voice) -> Any:
    """The :class:`harness.tournament.progress.Display` of a run, its totals seeded with the stored records."""
    display = Display(config.tournament.name, plan.bots, len(plan.matches), plan.total_hands, len(records),
                      sum(r.result.hands_played for r in records), config.game.unit, out_dir, progress, voice)
    display.seed_totals(records)
    return display


def _record(done: Done, unit: int) -> MatchRecord | None:
    """Turn a finished match job into a record; None (with error.txt) if it failed or returned another match."""
    scheduled: ScheduledMatch = done.job.info
    if done.result is None:
        return None
    try:
        result = MatchResult.from_dict(done.result)
    except (KeyError, TypeError, ValueError) as exc:
        (done.job.directory / ERROR_FILE).write_text(f"unreadable result: {exc}\n", encoding="utf-8")
        return None
    if list(result.bots) != list(scheduled.bots) or result.match_id != scheduled.match_id:
        (done.job.directory / ERROR_FILE).write_text(
            f"the referee returned match {result.match_id} with bots {result.bots}; "
            f"expected {scheduled.match_id} with {list(scheduled.bots)}\n",
            encoding="utf-8",
        )
        return None
    return MatchRecord(table=scheduled.table, rotation=scheduled.rotation, unit=unit, result=result,
                       rotations=scheduled.rotations, fingerprint=scheduled.fingerprint)



@dataclass(frozen=True, slots=True)
class Preview:
    """What ``harness plan`` prints (:func:`preview`).

    Attributes:
        plan: the plan of every bot of the file.
        reuse: what a run on the output directory would reuse.
        estimate: time and disk for the matches still to play.
        existing: the output directory already holds results of this harness.
        left_out: ``{bot: reason}``: bots that failed their entry check in the output
            directory and are unchanged since (:func:`harness.tournament.entries.known_failures`),
            left out of ``plan`` as the run's entry check will most likely leave them out.
    """

    plan: Plan
    reuse: Reuse
    estimate: PlanCost
    existing: bool
    left_out: dict[str, str] = field(default_factory=dict)


def preview(config: TournamentConfig, rates: Rates, *, parallel: int | None = None) -> Preview:
    """The plan a run would make, without running or writing anything.

    Bots are not checked here (a run checks them first and may leave some out);
    bots whose entry check already failed in the output directory, unchanged
    since, are left out of the plan, as the run will most likely leave them out.
    Without a seed in the file or the directory, the sampled format's tables
    are drawn from a seed of the moment: the run draws its own (secret) one, so
    its tables differ, not their number or balance.

    ``parallel``: matches run at once when not ``[schedule] jobs`` here (a
    Dask cluster's worker threads, :func:`harness.tournament.cluster.cluster_threads`).

    Raises:
        ConfigError: the plan cannot be made (e.g. above max_matches).
        harness.tournament.results.ResultsError: the output directory is not the harness's,
            or its results are damaged.
    """
    out = config.tournament.output
    check_out_dir(out)
    existing = out.is_dir() and is_ours(out)
    previous = read_manifest(out) if existing else None
    stored = {r.match_id: r for r in read_results(out, pending=True).records} \
        if existing and (out / "results.jsonl").exists() \
        else {}
    seeds = [config.tournament.seed] if config.tournament.seed is not None else [new_seed()]
    if config.tournament.seed is None and existing and (out / SECRET_FILE).exists():
        seeds = tournament_seeds(out, None)  # reads the stored secrets (never writes one here)
    left_out = known_failures(config, out) if existing and config.tournament.entry_check else {}
    bots = [b for b in config.bots if b.name not in left_out]
    planned = plan_against(config, bots, seeds, stored, previous)
    return Preview(plan=planned.plan, reuse=planned.reuse,
                   estimate=plan_estimate(config, planned.plan, planned.todo, planned.records, None, rates, parallel),
                   existing=existing, left_out=left_out)
