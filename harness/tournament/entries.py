"""Entry checks: every bot starts once and plays a few hands before the first match.

A bot whose command names a missing file, a misspelt module or a missing
import would fail in every one of its matches, and the organiser would learn
it at the end. So before the plan is made, each bot plays :data:`CHECK_HANDS`
hands through the real referee, under the tournament's limits and game,
against the reference bots ``caller`` and ``raiser`` (what ``harness check-bot``
does). A bot fails its entry check when it does not start, crashes, times out,
breaks the protocol, is put out, or writes a Python traceback to stderr; it is
then left out of the plan, and the reason with the tail of its stderr is
printed at once and kept in ``<out>/entries.json`` (its logs in
``<out>/entries/<bot>/logs/``).

A bot that passed keeps its result while its setup is unchanged (command,
cwd, env, the files its command names, the limits and the game): a rerun
checks only new, changed and failed bots. The check of ``bots.caller`` itself
is kept as ``reference``: what a bot costs beyond it (start-up, time per
decision) feeds the plan's time estimate.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.match.deals import new_seed
from harness.match.specs import BotSpec, FaultKind, Limits, MatchSpec
from harness.tournament.config import TournamentConfig
from harness.tournament.estimate import BotCost
from harness.tournament.leaderboard import ENTRIES_FILE
from harness.tournament.plan import bot_setup
from harness.tournament.results import write_json_atomic
from harness.tournament.workers import Done, Executor, Job, run_all

#: Hands of an entry check: with three seats each bot is on the button twice.
CHECK_HANDS = 6
#: Lines of stderr kept for a bot that failed.
STDERR_TAIL_LINES = 12
ENTRIES_DIR = "entries"
REFERENCE = "reference"
_OPPONENTS = ("caller", "raiser")
_TRACEBACK = "Traceback (most recent call last):"


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
        decision_ms: its mean time per decision in the check (ms).
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
                   digest=str(data["digest"]), checked=False)


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
        """What each bot costs beyond ``bots.caller`` (start-up and per decision), for the estimate."""
        if self.reference is None:
            return {}
        ref = self.reference
        return {
            name: BotCost(start_s=max(0.0, e.wall_s - ref.wall_s), decision_s=max(0.0, e.decision_ms - ref.decision_ms)
                          / 1000.0)
            for name, e in self.entries.items() if e.ok
        }


def entry_digest(config: TournamentConfig, bot: BotSpec) -> str:
    """Digest of what an entry check of ``bot`` depends on (its setup, the limits, the game, the hands)."""
    data = {"setup": bot_setup(bot), "limits": dataclasses.asdict(config.limits), "game": config.game.to_dict(),
            "hands": CHECK_HANDS}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _reference_bots(candidate: str) -> list[BotSpec]:
    root = os.fspath(Path(__file__).resolve().parents[2])
    taken = {candidate}
    bots = []
    for module in _OPPONENTS:
        name = f"check-{module}"
        while name in taken:
            name += "_"
        taken.add(name)
        bots.append(BotSpec(name=name, command=(sys.executable, "-m", f"bots.{module}"), cwd=root))
    return bots


def run_check(bot: BotSpec, spec: MatchSpec, limits: Limits, directory: Path) -> dict[str, Any]:
    """Worker side of one entry check: play the hands, judge the bot in seat 0 (a JSON-ready dict).

    Returns:
        ``{"ok", "reason", "stderr_tail", "log", "wall_s", "decision_ms"}``.
    """
    from harness.match.referee import play_match

    start = time.monotonic()
    result = play_match([bot, *_reference_bots(bot.name)], spec, limits, directory)
    wall = time.monotonic() - start
    err = directory / "logs" / f"0-{bot.name}.err"
    text = _read(err)
    faults = {k: v for k, v in result.faults[0].items() if v}
    problems = []
    if faults.get(FaultKind.FAILED_START):
        problems.append(f"failed to start ({result.status[0].removeprefix('failed_start: ')})")
    elif result.status[0] != "ok":
        problems.append(f"put out: {result.status[0]}")
    others = {k: v for k, v in faults.items() if k != FaultKind.FAILED_START}
    if others:
        detail = _first_fault(directory)
        problems.append(", ".join(f"{k} {v}" for k, v in sorted(others.items())) + (f" ({detail})" if detail else ""))
    tracebacks = text.count(_TRACEBACK)
    if tracebacks:
        problems.append(f"{tracebacks} Python traceback{'s' if tracebacks > 1 else ''} on stderr")
    timings = _timings(directory)
    tail = "\n".join(text.rstrip().splitlines()[-STDERR_TAIL_LINES:]) if problems else ""
    return {
        "ok": not problems,
        "reason": "; ".join(problems),
        "stderr_tail": tail,
        "log": os.fspath(err),
        "wall_s": round(wall, 3),
        "decision_ms": round(sum(timings) / len(timings), 3) if timings else 0.0,
    }


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _hands(directory: Path) -> list[dict[str, Any]]:
    out = []
    for line in _read(directory / "hands.jsonl").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _timings(directory: Path) -> list[float]:
    """Seat 0's decision times (ms) over the check's hand history."""
    times = []
    for record in _hands(directory):
        seats = record.get("match_seats") or []
        mine = seats.index(0) if 0 in seats else None
        times += [float(ms) for s, ms in record.get("timings_ms", []) if s == mine]
    return times


def _first_fault(directory: Path) -> str:
    """The referee's detail of seat 0's first fault, shortened."""
    for record in _hands(directory):
        seats = record.get("match_seats") or []
        mine = seats.index(0) if 0 in seats else None
        for fault in record.get("faults", []):
            if fault.get("seat") == mine:
                detail = f"hand {record.get('hand_id')}: {fault.get('kind')}: {fault.get('detail', '')}"
                return detail if len(detail) <= 160 else detail[:157] + "..."
    return ""


def check_entries(
    config: TournamentConfig,
    out_dir: Path,
    executor: Executor,
    *,
    func: Callable[..., dict[str, Any]] = run_check,
    on_entry: Callable[[Entry], None] | None = None,
) -> EntryReport:
    """Check every bot of ``config`` (new, changed or failed ones; the others keep their result).

    Args:
        config: the tournament (its bots, limits and game).
        out_dir: the output directory (``entries.json`` and ``entries/<bot>/`` are written there).
        executor: runs the checks in parallel (as matches run).
        func: the worker function (tests pass a fake with :func:`run_check`'s signature).
        on_entry: called at once with each finished check (to print failures as they happen).

    Returns:
        The report; ``entries.json`` is written.

    Raises:
        KeyboardInterrupt: Ctrl-C, after the checks under way were stopped.
    """
    import shutil

    from harness.match.referee import play_match  # noqa: F401 - imported before forking, shared by workers

    earlier = _read_entries(out_dir)
    # Fresh deals for every check: they are not scored, and a seed a bot could know decides nothing.
    spec = MatchSpec(game=config.game, hands=CHECK_HANDS, seed=new_seed(), match_id="entry-check",
                     starting_stack=config.starting_stack, stack_mode=config.stack_mode)
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
        jobs.append(Job(key=f"entry:{bot.name}", func=func, args=(bot, spec, config.limits, directory),
                        directory=directory, info=bot.name))

    def prepare(job: Job) -> None:
        if job.directory.exists():
            shutil.rmtree(job.directory)
        job.directory.mkdir(parents=True)

    def finished(done: Done) -> None:
        nonlocal reference
        name = done.job.info
        data = done.result or {
            "ok": False, "reason": f"the check itself failed: {done.error}", "stderr_tail": "",
            "log": os.fspath(done.job.directory / "error.txt"), "wall_s": done.wall_s, "decision_ms": 0.0,
        }
        entry = Entry(bot=name, digest=digests[name], **data)
        if name == REFERENCE:
            reference = entry
            return
        entries[name] = entry
        if on_entry is not None:
            on_entry(entry)

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


def unchecked(config: TournamentConfig) -> EntryReport:
    """The report of a run with ``--no-entry-check``: every bot may play, nothing measured."""
    return EntryReport({b.name: Entry(b.name, True, "", "", "", 0.0, 0.0, "", checked=False) for b in config.bots})


def describe_failure(entry: Entry) -> str:
    """What to print at once for a bot that failed its check (several lines with the stderr tail)."""
    lines = [f"entry check: bot {entry.bot!r} is left out: {entry.reason}; its stderr: {entry.log}"]
    lines += [f"  | {line}" for line in entry.stderr_tail.splitlines()]
    return "\n".join(lines)


def working(config: TournamentConfig, report: EntryReport) -> Sequence[BotSpec]:
    """The bots that passed, in file order."""
    ok = set(report.passed)
    return [b for b in config.bots if b.name in ok]
