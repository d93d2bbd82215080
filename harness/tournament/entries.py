"""Entry checks: every bot starts once and plays a few hands before the first match.

A bot whose command names a missing file, a misspelt module or a missing
import would fail in every one of its matches, and the organiser would learn
it at the end. So before the plan is made, each bot plays :data:`CHECK_HANDS`
hands through the real referee, under the tournament's limits (decision
time, time bank, start-up: what its matches give it), game, stacks and
sandbox, against the reference bots ``raiser`` and ``caller``: the library
core of ``harness check-bot`` (:func:`harness.match.checkbot.check_spec`).

From the bot's side the check is one of its matches (:class:`CheckTable`):
a table of the tournament's size, the bot in a random seat, the opponents
named after other entries of the field (drawn at random), a match id shaped
like the matches' (``name+name-xxxxxxxx``), ``match_start`` announcing the
tournament's hands (the check ends after :data:`CHECK_HANDS`, as a freezeout
may end early), the same messages. So a bot cannot behave for the check and
otherwise in its matches; the organiser's logs name the opponents as the bot
saw them (``entries/<bot>/logs``; each is ``caller`` or ``raiser``). A bot fails
its entry check when that check fails: it does not start, crashes, times out,
breaks the protocol, is put out, or writes a traceback (any language) to stderr; it is
then left out of the plan, and the reason with the tail of its stderr is
printed at once and kept in ``<out>/entries.json`` (its logs in
``<out>/entries/<bot>/logs/``).

A bot that passed keeps its result while its setup is unchanged (command,
cwd, env, the files it runs, the limits and the game): a rerun
checks only new, changed and failed bots. The check of ``bots.caller`` itself
is kept as ``reference``: what a bot costs beyond it (start-up, time per
decision) feeds the plan's time estimate.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import random
import secrets
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.deals import new_seed
from harness.engine.config import GameConfig
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition
from harness.history.files import HistoryError, decision_times, find_history, read_history
from harness.host.botproc import BotStartError
from harness.host.tracebacks import Trace, describe_traces
from harness.match.checkbot import check_spec
from harness.match.outdir import StorageError
from harness.match.untrusted import visible
from harness.specs import BotSpec, FaultKind, Limits, SandboxSettings, StackMode
from harness.tournament.config import TournamentConfig
from harness.tournament.estimate import BotCost
from harness.tournament.leaderboard import ENTRIES_FILE
from harness.tournament.plan import bot_setup, shared_cwds
from harness.tournament.results import write_json_atomic
from harness.tournament.workers import Done, Executor, Job, run_all

#: Hands of an entry check: with three seats each bot is on the button twice.
CHECK_HANDS = 6
#: Lines of stderr kept for a bot that failed.
STDERR_TAIL_LINES = 12
ENTRIES_DIR = "entries"
REFERENCE = "reference"
_OPPONENTS = ("raiser", "caller")  # heads-up: raiser (it meets bets and raises); more seats: both, in turn


@dataclass(frozen=True, slots=True)
class Entry:
    """The entry check of one bot.

    Attributes:
        bot: its name.
        ok: it may play.
        reason: why not ("" when ok), one line.
        stderr_tail: the last lines of its stderr when it failed.
        log: its stderr log file.
        wall_s: seconds the check took (start, hands, stop).
        decision_ms: its median time per decision in the check (ms; the median leaves out
            the first decisions' warm-up).
        idle_s: ``wall_s`` less every seat's decision time: start-up, stop and the referee's own work.
        decisions_per_hand: its decisions per hand in the check.
        digest: what was checked (setup, limits, game): an unchanged bot that passed is not checked again.
        checked: False when the result was kept from an earlier run.
    """

    bot: str
    ok: bool
    reason: str
    stderr_tail: str
    log: str
    wall_s: float
    decision_ms: float
    digest: str
    idle_s: float = 0.0
    decisions_per_hand: float = 0.0
    checked: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``entries.json``)."""
        data = dataclasses.asdict(self)
        del data["bot"], data["checked"]
        return data

    @classmethod
    def from_dict(cls, bot: str, data: Mapping[str, Any]) -> Entry:
        """Rebuild from :meth:`to_dict` output (raises KeyError/TypeError/ValueError)."""
        return cls(bot=bot, ok=bool(data["ok"]), reason=str(data["reason"]), stderr_tail=str(data["stderr_tail"]),
                   log=str(data["log"]), wall_s=float(data["wall_s"]), decision_ms=float(data["decision_ms"]),
                   digest=str(data["digest"]), idle_s=float(data.get("idle_s", 0.0)),
                   decisions_per_hand=float(data.get("decisions_per_hand", 0.0)), checked=False)


@dataclass(slots=True)
class EntryReport:
    """Every bot's entry check (:func:`check_entries`).

    Attributes:
        entries: by bot, in file order.
        reference: the check of ``bots.caller`` (the baseline of :meth:`costs`), if any.
    """

    entries: dict[str, Entry]
    reference: Entry | None = None

    @property
    def passed(self) -> list[str]:
        """Bots that may play, in file order."""
        return [name for name, e in self.entries.items() if e.ok]

    @property
    def failed(self) -> dict[str, Entry]:
        """Bots left out, with their check."""
        return {name: e for name, e in self.entries.items() if not e.ok}

    def costs(self) -> dict[str, BotCost]:
        """What each bot costs beyond ``bots.caller``, for the estimate.

        Start-up: its check's time less every seat's decision time (start, stop, the
        referee's work), less the same of the reference check. Per decision: its median
        decision time less the reference's (medians: the first decisions' warm-up is
        start-up, not play).
        """
        if self.reference is None:
            return {}
        ref = self.reference
        return {
            name: BotCost(start_s=max(0.0, e.idle_s - ref.idle_s),
                          decision_s=max(0.0, e.decision_ms - ref.decision_ms) / 1000.0,
                          decisions_per_hand=e.decisions_per_hand or 3.0)
            for name, e in self.entries.items() if e.ok
        }


@dataclass(frozen=True, slots=True)
class CheckTable:
    """The table an entry check plays at, shaped as the tournament's matches.

    Attributes:
        seats: the tournament's table size (2..6).
        hands: the hands its matches play, announced by the check's ``match_start``.
        stack_mode: the tournament's stack mode.
        field: the names of the tournament's entries (the opponents are named after others of them).
        definition: the tournament's game (RULES.md R6).
    """

    seats: int = 3
    hands: int = CHECK_HANDS
    stack_mode: StackMode = StackMode.RESET
    field: tuple[str, ...] = ()
    definition: GameDefinition = SEVEN_CARD_DRAW

    @classmethod
    def of(cls, config: TournamentConfig) -> CheckTable:
        """The check table of a tournament."""
        return cls(config.schedule.table_size, config.schedule.hands, config.stack_mode,
                   tuple(b.name for b in config.bots), config.definition)


def entry_digest(config: TournamentConfig, bot: BotSpec) -> str:
    """Digest of what an entry check of ``bot`` depends on (its setup, the limits, the game, the table, the hands)."""
    table = CheckTable.of(config)
    data = {"setup": bot_setup(bot, shared=shared_cwds(config.bots)), "limits": dataclasses.asdict(config.limits),
            "game": config.game.to_dict(), "hands": CHECK_HANDS,
            "table": [table.seats, table.hands, str(table.stack_mode)]}
    if table.definition != SEVEN_CARD_DRAW:  # Seven Card Draw's digests stay those of before games existed
        data["game_name"] = table.definition.name
        if table.definition.openers != GAMES[table.definition.name].openers:  # R7.2: a rule other than the game's
            data["openers"] = str(table.definition.openers)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _reference_bots(candidate: str, table: CheckTable, rng: random.Random) -> list[BotSpec]:
    """The check's opponents: ``raiser``/``caller`` in turn, named after other entries drawn at random."""
    root = os.fspath(Path(__file__).resolve().parents[2])
    wanted = table.seats - 1
    others = [n for n in dict.fromkeys(table.field) if n != candidate]
    names = rng.sample(others, wanted) if len(others) >= wanted else others
    number = 1
    while len(names) < wanted:  # a field smaller than a table (its run stops after the check anyway)
        name = f"player{number}"
        number += 1
        if name != candidate and name not in names:
            names.append(name)
    return [BotSpec(name=name, command=(sys.executable, "-m", f"bots.{_OPPONENTS[i % len(_OPPONENTS)]}"), cwd=root)
            for i, name in enumerate(names)]


def run_check(bot: BotSpec, game: GameConfig, limits: Limits, starting_stack: int,
              directory: Path, sandbox: SandboxSettings | None = None,
              table: CheckTable | None = None) -> dict[str, Any]:
    """Worker side of one entry check: :func:`harness.match.checkbot.check_spec`, judged in one line.

    ``sandbox``: the tournament's ``[sandbox]`` (the bot is checked as it will play).
    ``table``: the shape of the tournament's matches (default: 3 seats, no field).

    Returns:
        ``{"ok", "reason", "stderr_tail", "log", "wall_s", "decision_ms"}`` (JSON-ready).
    """
    table = table or CheckTable()
    rng = random.SystemRandom()  # nothing of the check's shape is predictable from outside
    opponents = _reference_bots(bot.name, table, rng)
    seat = rng.randrange(len(opponents) + 1)
    seated = [o.name for o in opponents[:seat]] + [bot.name] + [o.name for o in opponents[seat:]]
    log = directory / "logs" / f"{seat}-{bot.name}.err"
    start = time.monotonic()
    try:
        report = check_spec(bot, opponents, game=game, limits=limits, hands=CHECK_HANDS,
                            seed=new_seed(), starting_stack=starting_stack, out_dir=directory,
                            sandbox=sandbox, seat=seat, stack_mode=table.stack_mode,
                            announced_hands=table.hands, match_id=f"{'+'.join(seated)}-{secrets.token_hex(4)}",
                            definition=table.definition)
    except BotStartError as exc:
        return {"ok": False, "reason": f"cannot be started: {exc}", "stderr_tail": "", "log": os.fspath(log),
                "wall_s": round(time.monotonic() - start, 3), "decision_ms": 0.0, "idle_s": 0.0,
                "decisions_per_hand": 0.0}
    wall = time.monotonic() - start
    mine, everyone, hands = _timings(directory, seat)
    tail = report.stderr_tail
    if not tail and report.tracebacks:
        tail = report.tracebacks[0]
    return {
        "ok": report.ok,
        "reason": "" if report.ok else _reason(report),
        "stderr_tail": "\n".join(tail.splitlines()[-STDERR_TAIL_LINES:]) if not report.ok else "",
        "log": os.fspath(log),
        "wall_s": round(wall, 3),
        "decision_ms": round(statistics.median(mine), 3) if mine else 0.0,
        "idle_s": round(max(0.0, wall - everyone / 1000.0), 3),
        "decisions_per_hand": round(len(mine) / hands, 2) if hands else 0.0,
    }


def _reason(report: Any) -> str:
    """What a failed check found, in one line: the failed start, the faults, being put out, tracebacks."""
    counts = dict(report.counts)
    problems = []
    if counts.pop(FaultKind.FAILED_START, 0):
        cause = f"; the cause: {report.start_cause}" if report.start_cause else ""
        problems.append(f"failed to start ({report.status.removeprefix('failed_start: ')}){cause}")
    elif report.status != "ok":
        problems.append(f"put out: {report.status}")
    if counts:
        first = next((v for v in report.violations if v.kind != FaultKind.FAILED_START), None)
        detail = ""
        if first is not None:
            where = "start-up" if first.hand is None else f"hand {first.hand}"
            detail = f" (first: {where}: {first.kind}: {first.detail})"
            detail = detail if len(detail) <= 240 else detail[:236] + "...)"
        problems.append(", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + detail)
    if report.tracebacks:
        last = _last_line(report.traces[0])
        problems.append(f"{describe_traces(report.traces)} on stderr (first: {last})")
    if report.lingered:
        problems.append(f"did not exit after match_end (stopped by {report.lingered.upper()})")
    return "; ".join(problems) or "failed"


def _last_line(trace: Trace) -> str:
    """The line of a trace that names the error: Python's last, the first line elsewhere (Java, Go, Rust...)."""
    lines = [line.strip() for line in trace.text.splitlines() if line.strip()]
    if trace.language == "Rust" and len(lines) > 1:
        return f"{lines[0]} {lines[1]}"
    if trace.language == "C++":
        return " ".join(lines[:2])
    return lines[-1] if trace.language == "Python" else lines[0]


def _hands(directory: Path) -> list[dict[str, Any]]:
    """The records of the check's hand history (whatever was readable)."""
    path = find_history(directory)
    out: list[dict[str, Any]] = []
    if path is None:
        return out
    try:
        for record in read_history(path):
            out.append(record)
    except (HistoryError, OSError):
        pass
    return out


def _timings(directory: Path, seat: int) -> tuple[list[float], float, int]:
    """The bot's decision times (ms), the sum of every seat's (ms) and the hands, from the check's history."""
    times: list[float] = []
    total = 0.0
    records = _hands(directory)
    for record in records:
        for s, ms in decision_times(record):  # by match seat, whatever the record's version
            total += ms
            if s == seat:
                times.append(ms)
    return times, total, len(records)


def check_entries(
    config: TournamentConfig,
    out_dir: Path,
    executor: Executor,
    *,
    func: Callable[..., dict[str, Any]] = run_check,
    on_entry: Callable[[Entry], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
) -> EntryReport:
    """Check every bot of ``config`` (new, changed or failed ones; the others keep their result).

    Args:
        config: the tournament (its bots, limits and game).
        out_dir: the output directory (``entries.json`` and ``entries/<bot>/`` are written there).
        executor: runs the checks in parallel (as matches run).
        func: the worker function (tests pass a fake with :func:`run_check`'s signature).
        on_entry: called at once with each finished check (to print failures as they happen).
        on_start: called before the checks with (bots to check, bots whose earlier pass is kept).

    Returns:
        The report; ``entries.json`` is written.

    Raises:
        KeyboardInterrupt: Ctrl-C, after the checks under way were stopped.
    """
    if func is run_check:  # checked in the sandbox the tournament will use, its output directory hidden
        hidden = (*config.sandbox.hidden, os.fspath(Path(out_dir).resolve()))
        func = functools.partial(run_check, sandbox=dataclasses.replace(config.sandbox, hidden=hidden),
                                 table=CheckTable.of(config))

    earlier = _read_entries(out_dir)
    entries: dict[str, Entry] = {}
    jobs: list[Job] = []
    base = Path(out_dir) / ENTRIES_DIR
    digests = {}
    candidates = list(config.bots)
    reference = earlier.get(REFERENCE)
    ref_bot = BotSpec(REFERENCE, (sys.executable, "-m", "bots.caller"), cwd=os.fspath(Path(__file__).parents[2]))
    ref_digest = entry_digest(config, ref_bot)
    if reference is None or reference.digest != ref_digest:
        candidates.append(ref_bot)
    for bot in candidates:
        digest = ref_digest if bot is ref_bot else entry_digest(config, bot)
        digests[bot.name] = digest
        old = earlier.get(bot.name)
        if bot is not ref_bot and old is not None and old.ok and old.digest == digest:
            entries[bot.name] = old
            continue
        directory = base / bot.name
        jobs.append(Job(key=f"entry:{bot.name}", func=func,
                        args=(bot, config.game, config.limits, config.starting_stack, directory),
                        directory=directory, info=bot.name))

    def prepare(job: Job) -> None:
        if job.directory.exists():
            shutil.rmtree(job.directory)
        job.directory.mkdir(parents=True)

    def finished(done: Done) -> None:
        nonlocal reference
        if done.storage is not None:  # the disk failed the check, not the bot
            raise StorageError(done.job.directory, done.storage)
        name = done.job.info
        data = done.result or {
            "ok": False, "reason": f"the check itself failed: {done.error}", "stderr_tail": "",
            "log": os.fspath(done.job.directory / "error.txt"), "wall_s": done.wall_s, "decision_ms": 0.0,
            "idle_s": 0.0, "decisions_per_hand": 0.0,
        }
        entry = Entry(bot=name, digest=digests[name], **data)
        if name == REFERENCE:
            reference = entry
            return
        entries[name] = entry
        if on_entry is not None:
            on_entry(entry)

    if on_start is not None:
        on_start(sum(1 for job in jobs if job.info != REFERENCE), len(entries))
    run_all(executor, jobs, finished, on_start=prepare)
    ordered = {b.name: entries[b.name] for b in config.bots if b.name in entries}
    report = EntryReport(ordered, reference)
    _write_entries(out_dir, report, earlier)
    return report


def _read_entries(out_dir: Path) -> dict[str, Entry]:
    try:
        data = json.loads((Path(out_dir) / ENTRIES_FILE).read_text(encoding="utf-8"))
        bots = dict(data.get("bots", {}))
        if isinstance(data.get(REFERENCE), dict):
            bots[REFERENCE] = data[REFERENCE]
        return {name: Entry.from_dict(name, e) for name, e in bots.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _write_entries(out_dir: Path, report: EntryReport, earlier: Mapping[str, Entry]) -> None:
    """Write ``entries.json``: this run's bots (and the reference check)."""
    data: dict[str, Any] = {"hands": CHECK_HANDS, "bots": {n: e.to_dict() for n, e in report.entries.items()}}
    if report.reference is not None:
        data[REFERENCE] = report.reference.to_dict()
    write_json_atomic(Path(out_dir) / ENTRIES_FILE, data)


def known_failures(config: TournamentConfig, out_dir: Path) -> dict[str, str]:
    """``{bot: reason}`` of the bots of ``config`` whose last entry check in ``out_dir`` failed, unchanged since.

    A run checks them again (:func:`check_entries`: a flaky bot may pass) and most
    likely leaves them out again: ``harness plan`` leaves them out of its plan, so
    that the plan and the run agree. Reads only; {} without ``entries.json``.
    """
    earlier = _read_entries(out_dir)
    return {b.name: e.reason for b in config.bots
            if (e := earlier.get(b.name)) is not None and not e.ok and e.digest == entry_digest(config, b)}


def unchecked(config: TournamentConfig) -> EntryReport:
    """The report of a run with ``--no-entry-check``: every bot may play, nothing measured."""
    return EntryReport({b.name: Entry(b.name, True, "", "", "", 0.0, 0.0, "", checked=False) for b in config.bots})


def describe_failure(entry: Entry) -> str:
    """What to print at once for a bot that failed its check (several lines with the stderr tail)."""
    lines = [f"entry check: bot {entry.bot!r} is left out: {visible(entry.reason)}; its stderr: {entry.log}"]
    # the bot's text, shown inert; tabs and indentation kept (a Java or Go trace is indented with tabs)
    lines += [f"  | {visible(line, multiline=True)}" for line in entry.stderr_tail.splitlines()]
    return "\n".join(lines)


def working(config: TournamentConfig, report: EntryReport) -> Sequence[BotSpec]:
    """The bots that passed, in file order."""
    ok = set(report.passed)
    return [b for b in config.bots if b.name in ok]
