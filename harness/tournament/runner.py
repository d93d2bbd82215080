"""The tournament runner: plays a schedule's matches in parallel and records them.

Each match runs in its own forked worker process (at most ``jobs`` at a
time; with ``[schedule] pin``, the default, each on one CPU of its own)
that calls the referee's ``play_match`` into ``<out>/matches/<match_id>/``
and leaves ``result.json`` there; the main
process appends a :class:`~harness.tournament.results.MatchRecord` to
``results.jsonl`` for each match that finished, in the order they finish.
Matches are independent (own bots, own deals), so the order does not
change any result.

Resume: a match with a record is skipped; any other match directory is a
partial match and is replayed from scratch. ``tournament.json`` holds a
fingerprint of everything that decides the results (schedule, seeds,
hands, game, limits, bot commands), so a changed configuration is refused
instead of mixed in.

Interrupts: Ctrl-C or SIGTERM stops the run cleanly: running matches get
SIGTERM (the referee's cleanup stops their bots), nothing partial is
recorded, and the same command resumes later. After a ``kill -9`` of the
runner, each worker gets SIGTERM from the kernel (``PR_SET_PDEATHSIG``) and
stops its match the same way; ``<out>/.workers`` lists the running workers,
so the next run on that directory kills what their bots may have left.

One run per output directory: the results store locks it (``<out>/.lock``).
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from harness.match.deals import commitment
from harness.match.placement import pin
from harness.match.specs import BotSpec, Limits, MatchResult, MatchSpec
from harness.tournament.config import TournamentConfig
from harness.tournament.results import (
    HANDS_FILE,
    MatchRecord,
    ResultsStore,
    compress_file,
    fsync_file,
    read_records,
)
from harness.tournament.schedule import Pairing, build_schedule
from harness.tournament.seeds import reveal, tournament_seed

PlayMatch = Callable[[Sequence[BotSpec], MatchSpec, Limits, Path], MatchResult]
#: Writes a report of the output directory while the tournament runs (e.g. harness.report.html.write_report).
ReportHook = Callable[[Path], object]
#: Seconds between two reports written while a tournament runs.
REPORT_EVERY_S = 60.0
RESULT_FILE = "result.json"
ERROR_FILE = "error.txt"
WORKERS_FILE = ".workers"
_PR_SET_PDEATHSIG = 1  # prctl(2) option (linux/prctl.h)
_POLL_S = 0.2
_STOP_GRACE_S = 15.0
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@dataclass(slots=True)
class RunSummary:
    """What one call of :func:`run_tournament` did.

    Attributes:
        out_dir: the output directory.
        name: tournament name.
        bots: bot names in configuration order.
        matches_total: matches in the schedule.
        records: every record now stored (earlier runs included).
        matches_run: matches finished by this call.
        hands_run: hands played by the matches this call finished.
        seconds: wall-clock time of this call.
        interrupted: stopped by Ctrl-C / SIGTERM before the end.
        failed: match ids whose worker failed (see their ``error.txt``).
        never_started: bots that failed to start in every match they
            played, with the first failure (referee status and the bot's
            last stderr line); their results are recorded but meaningless.
    """

    out_dir: Path
    name: str
    bots: tuple[str, ...]
    matches_total: int
    records: list[MatchRecord] = field(default_factory=list)
    matches_run: int = 0
    hands_run: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    failed: list[str] = field(default_factory=list)
    never_started: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every scheduled match has a record."""
        return len(self.records) == self.matches_total

    @property
    def hands_per_s(self) -> float:
        """Hands per second over this call (0 when nothing ran)."""
        return self.hands_run / self.seconds if self.seconds > 0 else 0.0


def schedule_for(config: TournamentConfig, seed: int | None = None) -> list[Pairing]:
    """The tournament's matches (see :func:`harness.tournament.schedule.build_schedule`).

    Args:
        config: the tournament.
        seed: the tournament seed (:func:`harness.tournament.seeds.tournament_seed`);
            default ``config.tournament.seed``, or 0 when the file gives none
            (enough to list the matches, not to deal them).
    """
    if seed is None:
        seed = config.tournament.seed or 0
    return build_schedule(
        config.schedule.strategy(), config.bot_names, seed=seed, duplicate=config.schedule.duplicate,
    )


def _bot_setup(bot: BotSpec) -> dict[str, Any]:
    """A bot's launch settings as written, for the fingerprint.

    The interpreter path is recorded as ``python`` (what the file says), so
    resuming through another name of the same venv (``.venv/bin/harness``
    vs ``.venv/bin/python -m harness.cli``) is not a change.
    """
    command = ["python" if i == 0 and arg == sys.executable else arg for i, arg in enumerate(bot.command)]
    return {"command": command, "cwd": bot.cwd, "env": dict(sorted(bot.env.items()))}


def manifest(config: TournamentConfig, pairings: Sequence[Pairing], seed: int) -> dict[str, Any]:
    """The ``tournament.json`` content, with a fingerprint of what decides the results.

    Everything that can change a match's outcome is in ``"decisive"`` (keyed
    by where it is set, so a refusal can say what changed): seed, hands,
    game, the schedule, ``[limits]`` and each bot's command, cwd and env. A
    failed start with a wrong command must not be kept once the command is
    fixed. Only jobs, pin and the output directory may change on resumption.

    The seed is secret until the last match: the file holds its SHA-256
    (``seed_sha256``, the commitment), never the seed or the match seeds
    derived from it (:mod:`harness.tournament.seeds`).
    """
    sealed = commitment(seed)
    decisive: dict[str, Any] = {
        "[tournament] seed (SHA-256)": sealed,
        "[schedule] hands": config.schedule.hands,
        "[game]": config.game.to_dict(),
        "[game] starting_stack": config.starting_stack,
        "[game] stack_mode": str(config.stack_mode),
        "the schedule (bots, format, table_size, duplicate)": [[p.match_id, list(p.bots)] for p in pairings],
        "[limits]": dataclasses.asdict(config.limits),
    }
    for bot in config.bots:
        decisive[f"bot {bot.name} (command, cwd or env)"] = _bot_setup(bot)
    text = json.dumps(decisive, sort_keys=True, separators=(",", ":"))
    return {
        "format": 2,
        "name": config.tournament.name,
        "config": str(config.path),
        "fingerprint": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "seed_sha256": sealed,
        "decisive": decisive,
        "bots": list(config.bot_names),
        "big_blind": config.game.unit,
        "hands_per_match": config.schedule.hands,
        "matches": len(pairings),
        "duplicate": config.schedule.duplicate,
        "table_size": config.schedule.table_size,
    }


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _pick_cpu(allowed: list[int], busy: list[int | None]) -> int:
    """The allowed CPU with the fewest running matches (lowest number on ties)."""
    return min(allowed, key=lambda cpu: (busy.count(cpu), cpu))


def _worker(play: PlayMatch, bots: list[BotSpec], spec: MatchSpec, limits: Limits,
            match_dir: Path, compress: bool, parent: int, cpu: int | None = None) -> None:
    """Body of a match worker process: play, make the hand history durable, leave result.json.

    Ctrl-C at the terminal reaches the whole process group; workers ignore
    it and stop on the SIGTERM the main process sends, once (a second
    signal must not cut the referee's cleanup short). The kernel sends the
    same SIGTERM when the main process dies (``PR_SET_PDEATHSIG``), so a
    ``kill -9`` of the runner stops its matches and bots at once instead of
    letting them play on. With ``cpu`` the match runs pinned to that CPU
    (:func:`harness.match.placement.pin`; unpinned where that is refused).
    """

    def on_term(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    # A Python no-op handler rather than SIG_IGN: ignored signals survive exec into the bots.
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, on_term)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the run still works, cleanup is just slower
        pass
    if os.getppid() != parent:  # the runner died before the death signal was armed
        os._exit(130)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by the parent around start()
    if cpu is not None:
        try:
            pin({cpu})
        except (AttributeError, OSError):
            pass
    try:
        result = play(bots, spec, limits, match_dir)
        hands = match_dir / HANDS_FILE
        if hands.exists():
            if compress:
                compress_file(hands)
            else:
                fsync_file(hands)
        tmp = match_dir / (RESULT_FILE + ".tmp")
        tmp.write_text(json.dumps(result.to_dict()), encoding="utf-8")
        os.replace(tmp, match_dir / RESULT_FILE)
    except KeyboardInterrupt:
        os._exit(130)
    except BaseException:  # noqa: BLE001 - any failure is reported through error.txt
        (match_dir / ERROR_FILE).write_text(traceback.format_exc(), encoding="utf-8")
        os._exit(1)


@dataclass(slots=True)
class _Running:
    pairing: Pairing
    process: Any  # multiprocessing.Process (fork context)
    match_dir: Path
    cpu: int | None = None
    hands_seen: int = 0
    offset: int = 0

    def count_new_hands(self) -> int:
        """Count hand records written since the last call (lines of the growing hands.jsonl)."""
        path = self.match_dir / HANDS_FILE
        try:
            with open(path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return 0
        new = chunk.count(b"\n")
        self.offset += chunk.rfind(b"\n") + 1 if new else 0
        self.hands_seen += new
        return new


class _Display:
    """Progress: a rich live bar on a terminal, else one line per finished match."""

    def __init__(self, summary: RunSummary, total_hands: int, done_hands: int, enabled: bool | None,
                 quiet: bool = False) -> None:
        from rich.console import Console

        self.console = Console(stderr=True, quiet=quiet)
        self.summary = summary
        self.live = not quiet and (self.console.is_terminal if enabled is None else enabled)
        self.progress: Any = None
        self.start = time.monotonic()
        self.base_hands = done_hands
        self.leaders = ""
        if self.live:
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.text import Text

            leaders = self

            class _Progress(Progress):
                def get_renderables(self):  # type: ignore[no-untyped-def]
                    yield from super().get_renderables()
                    if leaders.leaders:
                        yield Text("leaders (bb/100): " + leaders.leaders)

            # auto_refresh=False: no refresh thread, so forking workers stays safe.
            self.progress = _Progress(
                TextColumn("[bold]{task.description}"), BarColumn(),
                TextColumn("{task.fields[matches]} matches"),
                TextColumn("{task.completed:.0f}/{task.total:.0f} hands"),
                TextColumn("{task.fields[hps]:.0f} hands/s"),
                TimeElapsedColumn(), TimeRemainingColumn(),
                console=self.console, auto_refresh=False, transient=False,
            )
            self.task = self.progress.add_task(
                summary.name, total=total_hands, completed=done_hands,
                matches=f"{len(summary.records)}/{summary.matches_total}", hps=0.0,
            )
            self.progress.start()

    def update(self, hands_done: int, records: Sequence[MatchRecord]) -> None:
        if not self.live:
            return
        elapsed = max(time.monotonic() - self.start, 1e-9)
        self.progress.update(
            self.task, completed=hands_done,
            matches=f"{len(records)}/{self.summary.matches_total}",
            hps=(hands_done - self.base_hands) / elapsed,
        )
        self.progress.refresh()

    def match_done(self, record: MatchRecord, records: Sequence[MatchRecord]) -> None:
        from harness.tournament.stats import standings

        top = standings(records, self.summary.bots)[:3]
        self.leaders = "  ".join(f"{s.bot} {s.estimate.bb_per_100:+.1f}" for s in top)
        if not self.live:
            res = record.result
            nets = " ".join(f"{b} {n:+d}" for b, n in zip(res.bots, res.net, strict=True))
            # soft_wrap: one line per match in a log file, never cut at the console's 80 columns.
            self.console.print(
                f"[{len(records)}/{self.summary.matches_total}] {res.match_id}: {nets} "
                f"({res.hands_played} hands, {res.duration_s:.1f} s)",
                highlight=False, markup=False, soft_wrap=True,
            )

    def message(self, text: str) -> None:
        self.console.print(text, highlight=False, markup=False, soft_wrap=True)

    def stop(self) -> None:
        if self.live:
            self.progress.refresh()
            self.progress.stop()


def _stop_workers(running: dict[str, _Running]) -> None:
    """SIGTERM each running match once, wait for the referee's cleanup, SIGKILL stragglers."""
    for run in running.values():
        if run.process.is_alive():
            try:
                os.kill(run.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + _STOP_GRACE_S
    for run in running.values():
        run.process.join(max(0.0, deadline - time.monotonic()))
        if run.process.is_alive():
            run.process.kill()
            run.process.join()


class _WorkerList:
    """``<out>/.workers``: pids of the running match workers, one per line.

    Bots carry their referee's (worker's) pid in ``HARNESS_OWNER_PID``; after
    a crash, the next run kills the marked processes whose worker is gone
    (``harness.match.botproc.kill_strays``), e.g. children a bot forked that
    outlived a ``kill -9`` of the whole process group.
    """

    def __init__(self, out_dir: Path) -> None:
        self.path = out_dir / WORKERS_FILE

    def kill_leftovers(self) -> list[int]:
        """Kill what the bots of an earlier run's workers left behind; return the pids signalled."""
        from harness.match.botproc import kill_strays

        try:
            pids = [int(x) for x in self.path.read_text(encoding="ascii").split()]
        except (OSError, ValueError):
            return []
        killed: list[int] = []
        for pid in pids:
            killed += kill_strays(owner_pid=pid)  # only orphans: a live (reused) pid is left alone
        self.write([])
        return killed

    def write(self, pids: Sequence[int]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("".join(f"{p}\n" for p in pids), encoding="ascii")
        os.replace(tmp, self.path)


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
            if not res.faults[seat].get("failed_start"):
                started.add(name)
            elif name not in first:
                reason = res.status[seat] if res.status[seat] != "ok" else "failed_start"
                err = out_dir / "matches" / res.match_id / "logs" / f"{seat}-{name}.err"
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


class _Reporter:
    """Runs the report hook in a forked child every ``every_s`` seconds, one at a time.

    A child, so that a slow report never delays the runner's bookkeeping; forked
    (like the match workers) and given the death signal, so it never outlives the run.
    """

    def __init__(self, hook: ReportHook | None, out_dir: Path, every_s: float) -> None:
        self.hook, self.out_dir, self.every_s = hook, out_dir, every_s
        self.last = -float("inf")
        self.took = 0.0
        self.child: Any = None

    def tick(self, ctx: Any) -> None:
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
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            self.child = ctx.Process(target=_report_child, args=(self.hook, self.out_dir, os.getpid()),
                                     name="report")
            self.child.start()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)

    def stop(self, wait_s: float = 0.0) -> None:
        """Let a report being written finish (up to ``wait_s``), then end it."""
        if self.child is not None:
            self.child.join(wait_s)
            if self.child.is_alive():
                self.child.terminate()
            self.child.join()
            self.child = None


def _report_child(hook: ReportHook, out_dir: Path, parent: int) -> None:
    """Body of the report child: write one report; a failure is printed, never fatal to the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    if os.getppid() != parent:
        os._exit(0)
    try:
        hook(out_dir)
    except Exception as exc:  # noqa: BLE001 - the run goes on; the final report will say more
        print(f"warning: the running report of {out_dir} failed: {exc}", file=sys.stderr)
        os._exit(1)
    os._exit(0)


def run_tournament(
    config: TournamentConfig,
    *,
    play: PlayMatch | None = None,
    progress: bool | None = None,
    quiet: bool = False,
    report: ReportHook | None = None,
    report_every_s: float = REPORT_EVERY_S,
) -> RunSummary:
    """Run or resume a tournament; write its leaderboard.

    Args:
        config: a validated configuration (with command-line overrides applied).
        play: the match function (default: :func:`harness.match.referee.play_match`);
            tests pass a fake with the same signature.
        progress: live progress bar on/off (default: on when stderr is a terminal;
            otherwise one line per finished match).
        quiet: print nothing (benchmarks).
        report: called with the output directory in a child process at the
            start and every ``report_every_s`` seconds while matches run (the
            caller writes the final report after this returns).
        report_every_s: seconds between two running reports.

    Returns:
        A summary; ``interrupted`` is set when Ctrl-C / SIGTERM stopped it.

    Raises:
        harness.tournament.results.ResultsError: the output directory holds another
            tournament or damaged results.
    """
    store = ResultsStore(config.tournament.output)
    store.lock()
    try:
        seed = tournament_seed(store.out_dir, config.tournament.seed)
        pairings = schedule_for(config, seed)
        done = store.open(manifest(config, pairings, seed))
        summary = _run(config, pairings, store, done, play, progress, quiet,
                       _Reporter(report, store.out_dir, report_every_s))
        if summary.complete:
            reveal(store.out_dir, seed)  # commit (tournament.json), play, then reveal
        return summary
    finally:
        store.close()


def _run(config: TournamentConfig, pairings: list[Pairing], store: ResultsStore, done: dict[str, MatchRecord],
         play: PlayMatch | None, progress: bool | None, quiet: bool, reporter: _Reporter) -> RunSummary:
    """The body of :func:`run_tournament`, with the output directory open and locked."""
    workers = _WorkerList(store.out_dir)
    workers.kill_leftovers()
    if play is None:
        from harness.match.referee import (
            play_match as play,  # imported before forking, shared by workers
        )
    known = {p.match_id for p in pairings}
    records = [rec for rec in done.values() if rec.match_id in known]
    summary = RunSummary(
        out_dir=store.out_dir, name=config.tournament.name, bots=config.bot_names,
        matches_total=len(pairings), records=records,
    )
    todo = deque(p for p in pairings if p.match_id not in done)
    jobs = config.schedule.jobs or os.cpu_count() or 1
    allowed = sorted(os.sched_getaffinity(0)) if config.schedule.pin and hasattr(os, "sched_getaffinity") else []
    bots = {b.name: b for b in config.bots}
    hands_done = sum(r.result.hands_played for r in records)
    display = _Display(summary, len(pairings) * config.schedule.hands, hands_done, progress, quiet)
    ctx = multiprocessing.get_context("fork")
    running: dict[str, _Running] = {}
    started = time.monotonic()
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        while todo or running:
            while todo and len(running) < jobs:
                pairing = todo.popleft()
                match_dir = store.fresh_match_dir(pairing.match_id)
                spec = MatchSpec(
                    game=config.game, hands=config.schedule.hands, seed=pairing.seed,
                    starting_stack=config.starting_stack, stack_mode=config.stack_mode,
                    match_id=pairing.match_id,
                )
                seated = [bots[name] for name in pairing.bots]
                cpu = _pick_cpu(allowed, [r.cpu for r in running.values()]) if allowed else None
                proc = ctx.Process(
                    target=_worker, name=f"match-{pairing.match_id}",
                    args=(play, seated, spec, config.limits, match_dir, config.tournament.compress, os.getpid(), cpu),
                )
                # Block Ctrl-C/SIGTERM until the worker is tracked, so an interrupt cannot orphan it.
                signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
                try:
                    proc.start()
                    running[pairing.match_id] = _Running(pairing, proc, match_dir, cpu)
                finally:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
                workers.write([r.process.pid for r in running.values()])
            multiprocessing.connection.wait([r.process.sentinel for r in running.values()], timeout=_POLL_S)
            live_hands = 0
            for match_id, run in list(running.items()):
                run.count_new_hands()
                if run.process.is_alive():
                    live_hands += run.hands_seen
                    continue
                run.process.join()
                del running[match_id]
                workers.write([r.process.pid for r in running.values()])
                record = _collect(run, config.game.unit)
                if record is None:
                    summary.failed.append(match_id)
                    display.message(f"match {match_id} failed; see {run.match_dir / ERROR_FILE}")
                    continue
                store.append(record)
                records.append(record)
                summary.matches_run += 1
                summary.hands_run += record.result.hands_played
                hands_done += record.result.hands_played
                display.match_done(record, records)
            display.update(hands_done + live_hands, records)
            reporter.tick(ctx)
        reporter.stop(wait_s=_STOP_GRACE_S)
    except KeyboardInterrupt:
        summary.interrupted = True
        _stop_workers(running)
        workers.write([])
    finally:
        reporter.stop()
        signal.signal(signal.SIGTERM, old_term)
        summary.seconds = time.monotonic() - started
        display.stop()
    # Re-read what is on disk: an interrupt may have landed between an append and its bookkeeping.
    summary.records = [rec for rec in read_records(store.out_dir) if rec.match_id in known]
    summary.never_started = never_started(summary.records, store.out_dir)
    if summary.records:
        from harness.tournament.leaderboard import write_leaderboard

        write_leaderboard(store.out_dir, summary.records, title=config.tournament.name, bots=config.bot_names)
    return summary


def _collect(run: _Running, big_blind: int) -> MatchRecord | None:
    """Read a finished worker's result.json into a record; None (with error.txt) if it failed."""
    path = run.match_dir / RESULT_FILE
    error = run.match_dir / ERROR_FILE
    if not path.exists():
        if not error.exists():
            error.write_text(f"worker exited with code {run.process.exitcode} without a result\n", encoding="utf-8")
        return None
    result = MatchResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if list(result.bots) != list(run.pairing.bots) or result.match_id != run.pairing.match_id:
        error.write_text(
            f"the referee returned match {result.match_id} with bots {result.bots}; "
            f"expected {run.pairing.match_id} with {list(run.pairing.bots)}\n",
            encoding="utf-8",
        )
        return None
    return MatchRecord(table=run.pairing.table, rotation=run.pairing.rotation, big_blind=big_blind, result=result)
