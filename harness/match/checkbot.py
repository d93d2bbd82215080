"""``harness check-bot``: play a few hands with a bot and report every protocol violation.

The bot under test (the *candidate*) sits in seat 0 of a short match
against reference bots (``bots.caller`` and ``bots.raiser`` by default, so
it meets checks, calls, bets, raises and multi-way pots and sits in every
position as the button moves; any command can be an opponent). The match
is a real one, through :func:`harness.match.referee.play_match`, with the
real limits, the time bank included (by default the tournaments': ``Limits().time_bank_ms``,
what a tournament file without ``[limits] time_bank_ms`` gives); a timeout says the limit it
broke (decision time plus the bank left then) and the slowest reply so far. A tournament's
entry check (:mod:`harness.tournament.entries`) gives :func:`check_spec` its
own limits, seat, table, match id and announced hands. Faults come back from the hand history
(``faults`` per hand) and the match result; each becomes a
:class:`Violation` in words a bot author can act on. The bot's stderr is
searched for tracebacks in any language (:mod:`harness.host.tracebacks`): an SDK bot whose
``act()`` raises still plays (the SDK sends the default action), so a
traceback fails the check too. So does a bot that does not exit within the exit grace
after ``match_end`` (PROTOCOL.md section 4: the referee then stops it with SIGTERM or SIGKILL):
in a tournament that costs every one of its matches the grace and a kill. A message the codec
cannot read because of its MessagePack encoding (an array for a map, bin for a string, a float
for an integer) is named with its fix (:data:`protocol.codec.ENCODING_FIXES`); a hello so
encoded fails the start at once.

:func:`check_spec` is the library core (a :class:`BotSpec`, opponents,
game and limits in; a :class:`CheckReport` out), for callers such as a
tournament's entry check; :func:`check_bot` is the command-line flavour
(an argv, reference bots by name, options checked as usage errors).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.engine.config import GameConfig, Structure
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition
from harness.history.files import decision_times, find_history, read_history, record_faults
from harness.host.botproc import PASSED_ENV, PASSED_ENV_PREFIXES, resolve_command
from harness.host.startcause import start_cause
from harness.host.tracebacks import Trace, describe_traces, find_traces
from harness.match.msgsize import message_problem
from harness.match.outdir import prepare_out_dir
from harness.match.referee import Referee
from harness.match.seat import QUIT_GRACE_MS
from harness.match.untrusted import visible
from harness.specs import (
    BotSpec,
    FaultKind,
    Limits,
    MatchResult,
    MatchSpec,
    SandboxSettings,
    SettingsError,
    StackMode,
    bound_problem,
    parse_named_command,
)
from protocol.codec import encoding_fix

#: What each fault kind means to a bot author, and what to fix.
KIND_WORDS: dict[str, str] = {
    FaultKind.FAILED_START: "failed to start",
    FaultKind.TIMEOUT: "slow reply",
    FaultKind.MALFORMED: "bad message",
    FaultKind.ILLEGAL: "illegal action or message",
    FaultKind.OVERSIZED: "message too large",
    FaultKind.CRASH: "crashed",
    FaultKind.DISCONNECTED: "connection dropped",
}

KIND_HINTS: dict[str, str] = {
    FaultKind.FAILED_START: (
        "connect a DEALER to HARNESS_ENDPOINT and send hello with HARNESS_SECRET "
        "within startup_ms (PROTOCOL.md sections 1-2)"
    ),
    FaultKind.TIMEOUT: "reply within decision_ms of the request (PROTOCOL.md section 7)",
    FaultKind.MALFORMED: (
        "send one MessagePack map per frame (string keys, no empty first frame: use a DEALER socket) with exactly "
        "the fields of your reply type (PROTOCOL.md sections 5 and 8)"
    ),
    FaultKind.ILLEGAL: (
        "pick from legal.actions with an amount in min_to..max_to; discard only held cards, at most max_discards; "
        "echo the request's seq and send exactly one reply per request, nothing else (PROTOCOL.md section 8)"
    ),
    FaultKind.OVERSIZED: "keep every message under max_message_bytes (PROTOCOL.md section 7)",
    FaultKind.CRASH: "exit only after match_end",
    FaultKind.DISCONNECTED: (
        "keep one DEALER socket connected for the whole match: never close or reopen it before match_end "
        "(PROTOCOL.md section 7)"
    ),
}

#: The reference opponents, by module under ``bots``.
DEFAULT_OPPONENTS: tuple[str, ...] = ("caller", "raiser")
#: Hands played by default: with three seats each sits on the button twice.
DEFAULT_HANDS = 6
#: Lines of the bot's stderr shown when it crashed or failed to start.
STDERR_TAIL_LINES = 15
#: Lines of the first traceback shown.
TRACEBACK_LINES = 30
CANDIDATE = "candidate"

@dataclass(frozen=True, slots=True)
class Violation:
    """One protocol violation of the candidate.

    Attributes:
        kind: a :class:`FaultKind` value.
        hand: hand id where it happened, or None (start-up, between hands).
        detail: the referee's explanation (message received, rule broken).
    """

    kind: str
    hand: int | None
    detail: str

    def render(self) -> str:
        """One line: ``hand 3  illegal action: R3.6: raise to 15 is below ...``."""
        where = "start-up" if self.hand is None else f"hand {self.hand}"
        words = KIND_WORDS.get(self.kind, self.kind)
        return f"{where:>9}  {words} ({self.kind}): {self.detail}"


@dataclass(frozen=True, slots=True)
class CheckReport:
    """What :func:`check_spec` found.

    Attributes:
        command: the candidate's argv.
        opponents: names of the opponents.
        hands: hands played.
        decisions: replies the candidate was asked for.
        violations: every violation, in order.
        status: the candidate's status at match end ("ok" or why it was put out).
        slowest_ms: the candidate's slowest reply (ms), 0 without decisions.
        net: the candidate's net chips (informative only).
        limits: the limits applied.
        stderr_tail: last lines of the candidate's stderr when it crashed or failed to start.
        stdout_tail: the same of its stdout (a JVM prints why it cannot start there).
        out_dir: where the hand history and logs were kept, or None.
        counts: fault counts of the candidate by kind (the match result's).
        start_cause: why it failed to start, when its stderr tells (:func:`harness.host.startcause.start_cause`).
        traces: the same, each with its language (:mod:`harness.host.tracebacks`).
        tracebacks: every traceback (uncaught exception report) in the
            candidate's stderr, in order (:func:`find_tracebacks`); any fails the check.
        game: the game's settings.
        game_name: the game played (RULES.md R6), named in the report unless it is Seven Card Draw.
        env_dropped: names of variables of the caller's environment the bot
            did not get (only harmless ones and ``--env`` are passed).
        sandbox: how the bots ran (:attr:`harness.host.sandbox.Isolation.summary`).
        lingered: how the referee stopped a bot that had not exited within the exit grace after
            ``match_end`` (``"sigterm"`` or ``"sigkill"``), ``""`` when it exited (or was put out).
    """

    command: tuple[str, ...]
    opponents: tuple[str, ...]
    hands: int
    decisions: int
    violations: tuple[Violation, ...]
    status: str
    slowest_ms: float
    net: int
    limits: Limits
    stderr_tail: str = ""
    stdout_tail: str = ""
    out_dir: Path | None = None
    counts: dict[str, int] = field(default_factory=dict)
    tracebacks: tuple[str, ...] = ()
    traces: tuple[Trace, ...] = ()
    start_cause: str = ""
    game: GameConfig = field(default_factory=GameConfig)
    game_name: str = SEVEN_CARD_DRAW.name
    env_dropped: tuple[str, ...] = ()
    sandbox: str = ""
    lingered: str = ""

    @property
    def ok(self) -> bool:
        """True when the bot broke no rule of the protocol, wrote no traceback and exited after ``match_end``."""
        return (
            not self.violations and not any(self.counts.values()) and self.status == "ok" and not self.tracebacks
            and not self.lingered
        )

    def _fix(self, kind: str) -> str:
        """The fix of a wrong encoding that a violation of ``kind`` names (:func:`protocol.codec.encoding_fix`)."""
        return next((fix for v in self.violations if v.kind == kind and (fix := encoding_fix(v.detail))), "")

    def env_may_be_the_cause(self) -> bool:
        """Whether a variable of this shell the bot did not get can explain its failed start or crash.

        Only when it failed to start or crashed, no other cause is known (a limit or file its stderr names,
        a wrong encoding, a connection the referee dropped), and its output names a variable it did not get,
        or it wrote nothing at all.
        """
        if not self.env_dropped or not (self.counts.get(FaultKind.FAILED_START) or self.counts.get(FaultKind.CRASH)):
            return False
        known = self.start_cause or any(encoding_fix(v.detail) for v in self.violations) or any(
            "dropped:" in v.detail or "referee: ignored" in v.detail for v in self.violations)
        if known:
            return False
        said = "\n".join([self.stderr_tail, self.stdout_tail, *self.tracebacks])
        return not said.strip() or any(re.search(rf"\b{re.escape(name)}\b", said) for name in self.env_dropped)

    def _described_game(self) -> str:
        """The game in a few words (:func:`describe_game`), its name first unless it is Seven Card Draw."""
        words = describe_game(self.game)
        return words if self.game_name == SEVEN_CARD_DRAW.name else f"{self.game_name} {words}"

    def render(self) -> str:
        """The report printed by ``harness check-bot``."""
        lim = self.limits
        bank = f"time bank {lim.time_bank_ms} ms" if lim.time_bank_ms else "no time bank"
        lines = [
            f"check-bot: {shlex.join(self.command)}",
            f"  {self.hands} hands of {self._described_game()} against {', '.join(self.opponents)} "
            f"({len(self.opponents) + 1} seats), {self.decisions} decision(s); limits: start-up "
            f"{lim.startup_ms} ms, {lim.decision_ms} ms per decision ({bank}), {lim.max_message_bytes} bytes "
            f"per message, {f'{lim.memory_mb} MiB' if lim.memory_mb else 'no memory limit'}, "
            f"{lim.max_processes or 'the default'} processes and threads",
            "  environment: harmless variables of this shell (PATH, HOME, LANG, LC_*, PYTHON*, ...) and --env "
            f"only; {len(self.env_dropped)} other variable(s) of this shell not passed",
        ]
        if self.sandbox:
            lines.append(f"  sandbox: {self.sandbox}")
        if self.ok:
            lines.append(
                f"OK: no protocol violation, no traceback; slowest reply {self.slowest_ms:.1f} ms, "
                f"net {self.net:+d} chips"
            )
        else:
            listed = {v.kind for v in self.violations}
            extra = [(kind, n) for kind, n in sorted(self.counts.items()) if n and kind not in listed]
            if self.violations or extra or self.status != "ok" or self.lingered:
                lines.append("Violations:")
                lines += ["  " + v.render() for v in self.violations]
                for kind, n in extra:  # counted by the referee without a record
                    lines.append(f"  {KIND_WORDS.get(kind, kind)} ({kind}): {n} time(s)")
                if self.status != "ok" and not any(v.detail in self.status or self.status in v.detail
                                                   for v in self.violations):
                    lines.append(f"  the referee put the bot out: {self.status}")
                if self.lingered:
                    lines.append(f"  after match_end: did not exit within the exit grace ({QUIT_GRACE_MS} ms); "
                                 f"the referee stopped it with {self.lingered.upper()}")
            if self.tracebacks:
                n = len(self.tracebacks)
                what = describe_traces(self.traces) or f"{n} traceback(s)"
                lines.append(
                    f"Tracebacks in the bot's stderr: {what}. Your code raised an error {n} time(s); an SDK bot "
                    "then plays the default action (check if free, else fold; stand pat), so it loses hands "
                    "without a protocol fault. The first one:"
                )
                first = self.tracebacks[0].splitlines()
                if len(first) > TRACEBACK_LINES:
                    first = first[: TRACEBACK_LINES // 2] + ["..."] + first[-TRACEBACK_LINES // 2 :]
                lines += ["  | " + line for line in first]
            lines.append("How to fix:")
            for kind in sorted({v.kind for v in self.violations} | {k for k, n in self.counts.items() if n}):
                hint = KIND_HINTS.get(kind, "")
                fix = self._fix(kind)
                if fix:  # the codec named the encoding: its fix, not the generic hint
                    hint = f"the encoding: {fix} (PROTOCOL.md section 5)"
                elif kind == FaultKind.FAILED_START and self.start_cause:
                    hint = f"the cause: {self.start_cause}"  # told by its stderr: no generic hint
                if kind == FaultKind.CRASH:
                    # Point at the stderr only when there is some to show.
                    hint += ("; see the bot's stderr below" if self.stderr_tail else "; see the bot's stdout below"
                         if self.stdout_tail else "; the bot wrote nothing to stderr or stdout")
                lines.append(f"  {kind}: {hint}")
            if self.tracebacks:
                lines.append("  traceback: fix the error shown above (run the bot's code on the request that raised)")
            if self.lingered:
                lines.append(f"  exit: after match_end close the socket and exit with status 0 within {QUIT_GRACE_MS} "
                             "ms (PROTOCOL.md section 4); a tournament otherwise waits and kills it every match")
            if self.env_may_be_the_cause():
                names = ", ".join(self.env_dropped[:8]) + (", ..." if len(self.env_dropped) > 8 else "")
                lines.append(
                    f"  environment: the bot gets only harmless variables of this shell (PATH, HOME, LANG, LC_*, "
                    f"PYTHON*, ...) and --env; {len(self.env_dropped)} were not passed ({names}): give those it "
                    "needs with --env NAME=VALUE"
                )
            if self.stderr_tail:
                lines.append("Last lines of the bot's stderr:")
                lines += ["  | " + line for line in self.stderr_tail.splitlines()]
            if self.stdout_tail:
                lines.append("Last lines of the bot's stdout:")
                lines += ["  | " + line for line in self.stdout_tail.splitlines()]
            total = (sum(self.counts.values()) or len(self.violations)) + len(self.tracebacks) + bool(self.lingered)
            lines.append(f"FAIL: {total} problem(s); the bot does not pass.")
        if self.out_dir is not None:
            lines.append(f"  hand history and logs: {self.out_dir}")
        return visible("\n".join(lines), multiline=True)  # quotes the bot's stderr and messages: made inert


def describe_game(game: GameConfig) -> str:
    """A game in a few words: ``no-limit 5/10``, ``fixed-limit 5/10 ante 1``, ``no-limit ante-only 5, min bet 10``."""
    if game.blinds:
        text = f"{game.structure} {game.small_blind}/{game.big_blind}"
        if game.ante:
            text += f" ante {game.ante}"
    else:
        text = f"{game.structure} ante-only {game.ante}, min bet {game.min_bet}"
    if game.structure is Structure.FIXED_LIMIT:
        text += f" cap {game.cap}" if game.cap else " no cap"
    return text


def dropped_env(env: Mapping[str, str] | None = None, given: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Names of ``env`` (default: this process's environment) a bot does not receive, sorted.

    A bot gets only harmless variables (``botproc.PASSED_ENV``, ``LC_*``,
    ``PYTHON*``) plus its own ``env``; ``given`` names those.
    """
    env = os.environ if env is None else env
    given = given or {}
    return tuple(
        sorted(k for k in env if k not in PASSED_ENV and not k.startswith(PASSED_ENV_PREFIXES) and k not in given)
    )


def reference_bot(text: str) -> BotSpec:
    """An opponent from the command line: a module of ``bots/`` (``caller``) or ``NAME=COMMAND``.

    ``COMMAND`` is split like a shell does and may be any bot command
    (``c=./cbot``, ``node=node bots/node/bot.js``).

    Raises:
        harness.specs.SettingsError: an unknown module, a malformed ``NAME=COMMAND``.
    """
    if "=" in text:
        name, _, argv = parse_named_command(text, "--opponent", allow_dir=False)
        if name == CANDIDATE:
            raise SettingsError(f"--opponent {text!r}: the name {CANDIDATE!r} is the bot under test's; pick another")
        return BotSpec(name=name, command=argv)
    name = text.strip()
    if not name.isidentifier() or importlib.util.find_spec(f"bots.{name}") is None:
        raise SettingsError(
            f"--opponent {name!r}: no such reference bot; give a module of bots/ (caller, raiser, solid, "
            "random_bot) or NAME=COMMAND for any other bot"
        )
    return BotSpec(name=name, command=("python", "-m", f"bots.{name}"))


def _violations(out_dir: Path, seat: int, limits: Limits) -> tuple[list[Violation], int, float]:
    """Read the hand history: the seat's faults, its decision count and slowest reply.

    A timeout says which limit it broke and by how much: the decision time plus
    what was left of the match's time bank then (the clock of
    :class:`harness.match.clock.Clock`, replayed from the recorded times), and
    the slowest reply the bot had given so far.
    """
    violations: list[Violation] = []
    decisions = 0
    slowest = 0.0
    clock = {"bank": float(limits.time_bank_ms), "slowest": 0.0}
    path = find_history(out_dir)
    if path is None:
        return violations, decisions, slowest
    for record in read_history(path):
        for s, ms in decision_times(record):
            if s == seat:
                decisions += 1
                slowest = max(slowest, ms)
        said = _timeouts(record, seat, limits, clock)
        for fault in record_faults(record):
            if fault["seat"] == seat:
                detail = str(fault["detail"])
                if fault.get("action") in said:
                    detail = detail.replace(" within the time limit", said[fault["action"]], 1)
                violations.append(Violation(str(fault["kind"]), record.get("hand_id"), detail))
    return violations, decisions, slowest


def _timeouts(record: dict[str, Any], seat: int, limits: Limits, clock: dict[str, float]) -> dict[int, str]:
    """``{action index: the limit its timeout broke}`` for one record (none where a fault names no decision).

    ``clock`` carries the bank left and the slowest reply from hand to hand: each reply
    beyond ``decision_ms`` draws on the bank, a timeout empties it (PROTOCOL.md section 7).
    """
    timeouts = {f["action"] for f in record.get("faults", []) if f["seat"] == seat and f["kind"] == FaultKind.TIMEOUT}
    said: dict[int, str] = {}
    for index, action in enumerate(record.get("actions", [])):
        if action.get("seat") != seat or action.get("ms") is None:
            continue
        ms = float(action["ms"])
        if index in timeouts:
            bank = clock["bank"]
            slowest = f"; its slowest reply so far took {clock['slowest']:.0f} ms" if clock["slowest"] else ""
            said[index] = (f" within {limits.decision_ms + bank:.0f} ms ({limits.decision_ms} ms per decision + "
                           f"{bank:.0f} ms left of the {limits.time_bank_ms} ms time bank{slowest})")
            clock["bank"] = 0.0
        else:
            clock["bank"] = max(0.0, clock["bank"] - max(0.0, ms - limits.decision_ms))
            clock["slowest"] = max(clock["slowest"], ms)
    return said


def _referee_notes(out_dir: Path, seat: int) -> list[str]:
    """Lines of the referee's log about ``seat`` that say what it ignored or discarded.

    The log's lines read ``HH:MM:SS seat N NAME: text``; the wrong-secret
    hello of a bot that never got in is only visible here.
    """
    try:
        text = (out_dir / "logs" / "referee.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    prefix = f" seat {seat} "
    notes = []
    for line in text.splitlines():
        if prefix in line and (": ignored " in line or " discarded" in line):
            notes.append(line.split(": ", 1)[-1])
    return notes


def _lingered(out_dir: Path, seat: int, name: str) -> str:
    """How the referee stopped the bot when it did not exit by itself after ``match_end`` (``"sigterm"``,
    ``"sigkill"``), from the referee's log (``seat N NAME: stopped by STEP``); ``""`` when it exited."""
    try:
        text = (out_dir / "logs" / "referee.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    found = re.search(rf" seat {seat} {re.escape(name)}: stopped by (sigterm|sigkill)$", text, re.M)
    return found.group(1) if found else ""


def _tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _start_and_crash_violations(violations: list[Violation], counts: dict[str, int], status: str, where: Path,
                                seat: int) -> list[Violation]:
    """The hand-by-hand violations plus a failed start or a crash the referee counted, saying *why* no hello
    counted (e.g. "ignored a hello with a wrong secret") from the referee's notes."""
    if counts.get(FaultKind.FAILED_START) and not any(v.kind == FaultKind.FAILED_START for v in violations):
        violations.insert(0, Violation(FaultKind.FAILED_START, None, status))
    notes = _referee_notes(where, seat)
    if counts.get(FaultKind.FAILED_START):
        # Say *why* no hello counted (e.g. "ignored a hello with a wrong secret").
        violations = [
            Violation(v.kind, None, "; ".join([v.detail, *(f"referee: {n}" for n in dict.fromkeys(notes))]))
            if v.kind == FaultKind.FAILED_START
            else v
            for v in violations
        ]
    if counts.get(FaultKind.CRASH) and not any(v.kind == FaultKind.CRASH for v in violations):
        violations.append(Violation(FaultKind.CRASH, None, status))
    return violations


def _report(bot: BotSpec, opponents: Sequence[BotSpec], result: MatchResult, seat: int, violations: list[Violation],
            decisions: int, slowest: float, counts: dict[str, int], limits: Limits, game: GameConfig, *,
            where: Path | None, logs: Path, sandbox: str) -> CheckReport:
    """The check's report from the match it played (``logs``: its folder; ``where``: kept for the caller)."""
    stderr_path = logs / "logs" / f"{seat}-{bot.name}.err"
    tail = out_tail = ""
    if counts.get(FaultKind.CRASH) or counts.get(FaultKind.FAILED_START):
        tail = _tail(stderr_path)
        out_tail = _tail(stderr_path.with_suffix(".out"))
    try:
        stderr = stderr_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        stderr = ""
    traces = find_traces(stderr)
    return CheckReport(
        command=tuple(bot.command),
        opponents=tuple(o.name for o in opponents),
        hands=result.hands_played,
        decisions=decisions,
        violations=tuple(violations),
        status=result.status[seat],
        slowest_ms=slowest,
        net=result.net[seat],
        limits=limits,
        stderr_tail=tail,
        stdout_tail=out_tail,
        out_dir=where,
        counts=counts,
        tracebacks=tuple(t.text for t in traces),
        traces=tuple(traces),
        start_cause=start_cause(stderr, result.status[0], limits) if counts.get(FaultKind.FAILED_START) else "",
        game=game,
        env_dropped=dropped_env(given=bot.env),
        sandbox=sandbox,
        # A bot put out is stopped as it is: only one that played on to match_end must exit by itself.
        lingered=_lingered(logs, seat, bot.name) if result.status[seat] == "ok" else "",
    )


def check_spec(
    bot: BotSpec,
    opponents: Sequence[BotSpec],
    *,
    game: GameConfig | None = None,
    limits: Limits | None = None,
    hands: int = DEFAULT_HANDS,
    seed: int = 1,
    starting_stack: int = 1000,
    out_dir: Path | None = None,
    sandbox: SandboxSettings | None = None,
    on_start: Callable[[], None] | None = None,
    seat: int = 0,
    stack_mode: StackMode = StackMode.RESET,
    announced_hands: int | None = None,
    match_id: str = "check-bot",
    definition: GameDefinition = SEVEN_CARD_DRAW,
) -> CheckReport:
    """Play ``hands`` hands with ``bot`` in seat ``seat`` among ``opponents`` and collect its violations.

    The library core of ``harness check-bot`` (and of a tournament's entry
    check): no argument checks beyond the referee's own.

    Args:
        bot: the bot under test (its ``name`` labels its logs: ``logs/0-<name>.err``).
        opponents: 1 to 5 bots for the other seats.
        game: the game (default: no-limit 5/10).
        limits: the limits (default: ``Limits()``, a tournament's defaults, its time bank included).
        hands: hands to play (>= 1).
        seed: match seed (the deals).
        starting_stack: chips per seat every hand.
        out_dir: keep the hand history and logs here (created; must not hold a
            hand history); None = a temporary directory removed afterwards.
        sandbox: how the bots run (default: mode auto, as in a tournament); the
            report says what the sandbox did.
        on_start: called once every argument is checked and the output
            directory made, just before the bots start (``harness check-bot``
            prints the sandbox's warning there, so a usage error stays one line).
        seat: the bot's match seat (0 .. len(opponents)); the opponents fill the others in order.
        stack_mode: reset (default) or freezeout.
        announced_hands: the hands ``match_start`` announces (default ``hands``); when more,
            the match ends after ``hands`` as a freezeout may end early (an entry check
            announces its tournament's hands).
        match_id: the id ``match_start`` gives (an entry check gives one shaped like its matches').
        definition: the game played (RULES.md R6), Seven Card Draw by default.

    Returns:
        The :class:`CheckReport`: violations per hand, fault counts, the
        tracebacks of the bot's stderr; ``report.ok`` is False on any.

    Raises:
        harness.host.botproc.BotStartError: a command cannot be launched at all.
        ValueError: bad arguments (2..6 bots, unique names), an ``out_dir`` that
            cannot be used (:class:`harness.match.outdir.OutDirError`).
        harness.engine.GameConfigError: a stack below what the game needs.
        harness.host.sandbox.SandboxError: the sandbox is required and cannot run here.
    """
    game = game or GameConfig()
    limits = limits or Limits()
    if not 0 <= seat <= len(opponents):
        raise SettingsError(f"seat {seat} is not a seat of a table of {len(opponents) + 1}")
    bots = [*opponents[:seat], bot, *opponents[seat:]]
    for spec in bots:
        resolve_command(spec)  # a command that cannot start at all is a usage error
    match = MatchSpec(game=game, hands=max(hands, announced_hands or 0), seed=seed, starting_stack=starting_stack,
                      stack_mode=stack_mode, match_id=match_id, definition=definition)
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="check-bot-")
        where = Path(tmp.name)
    else:
        where = prepare_out_dir(Path(out_dir))
    try:
        referee = Referee(bots, match, limits, where, sandbox=sandbox, stop_after=hands)
        if on_start is not None:
            on_start()
        result: MatchResult = referee.run()
        violations, decisions, slowest = _violations(where, seat, limits)
        counts = {k: v for k, v in result.faults[seat].items() if v}
        violations = _start_and_crash_violations(violations, counts, result.status[seat], where, seat)
        report = _report(bot, opponents, result, seat, violations, decisions, slowest, counts, limits, game,
                         where=None if tmp is not None else where, logs=where, sandbox=referee.isolation.summary)
        return report if definition == SEVEN_CARD_DRAW else replace(report, game_name=definition.name)
    finally:
        if tmp is not None:
            tmp.cleanup()


def check_bot(
    command: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    hands: int = DEFAULT_HANDS,
    opponents: Sequence[str] = DEFAULT_OPPONENTS,
    decision_ms: int = 1000,
    startup_ms: int = 10000,
    time_bank_ms: int | None = None,
    memory_mb: int = 1024,
    max_processes: int = 0,
    game: GameConfig | None = None,
    starting_stack: int = 1000,
    seed: int = 1,
    out_dir: Path | None = None,
    sandbox: SandboxSettings | None = None,
    on_start: Callable[[], None] | None = None,
    definition: GameDefinition = SEVEN_CARD_DRAW,
) -> CheckReport:
    """Play ``hands`` hands with the bot ``command`` in seat 0 and collect its violations.

    Args:
        command: the bot's argv, e.g. ``["python", "mybot.py"]``.
        cwd: the bot's working directory (None: the current one).
        env: extra environment variables for the bot (as ``[[bots]] env``).
        hands: hands to play (>= 1).
        opponents: 1 to 5 opponents: modules under ``bots`` (``"caller"``) or
            ``"NAME=COMMAND"`` (:func:`reference_bot`).
        decision_ms: time per reply (ms).
        startup_ms: time from launch to a valid hello (ms).
        time_bank_ms: the time bank (ms); None (default): the tournaments' default (``Limits().time_bank_ms``,
            what a tournament file without ``[limits] time_bank_ms`` gives); 0: every reply within decision_ms.
        memory_mb: memory of all the bot's processes together (MiB, 0 = none; ``[limits] memory_mb``).
        max_processes: processes and threads of the bot together (0 = the sandbox's default;
            ``[limits] max_processes``).
        game: the game (default: no-limit 5/10); fixed-limit and ante-only games too.
        starting_stack: chips per seat every hand.
        seed: match seed (the deals).
        out_dir: keep the hand history and logs here; None = a temporary
            directory removed afterwards.
        sandbox: how the bots run (default: mode auto); see :func:`check_spec`.
        on_start: called just before the bots start, every argument checked (:func:`check_spec`).
        definition: the game played (RULES.md R6), Seven Card Draw by default.

    Returns:
        The :class:`CheckReport`; ``report.ok`` is False on any violation or traceback.

    Raises:
        harness.host.botproc.BotStartError: the command cannot be launched at all
            (not found, not executable, no ``#!`` line, cwd missing).
        harness.specs.SettingsError: bad arguments (no command, hands, decision_ms, startup_ms,
            time_bank_ms, memory_mb, max_processes or starting_stack outside :data:`harness.specs.BOUNDS`,
            0 opponents or more than the game's table holds (R1.2, R6.8), unknown opponent, a stack that cannot
            pay the forced bets or too deep for the
            protocol's messages (:func:`harness.match.msgsize.message_problem`), a bad env name); ``out_dir``
            is a file, lies under one or already holds a hand history
            (:class:`harness.match.outdir.OutDirError`).
    """
    if not command:
        raise SettingsError("no bot command given; use: harness check-bot -- CMD ARGS...")
    if time_bank_ms is None:
        time_bank_ms = Limits().time_bank_ms  # one source: the default of every tournament
    for option, setting, value in (
        ("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
        ("--startup-ms", "startup_ms", startup_ms), ("--time-bank-ms", "time_bank_ms", time_bank_ms),
        ("--stack", "starting_stack", starting_stack), ("--memory-mb", "memory_mb", memory_mb),
        ("--max-processes", "max_processes", max_processes),
    ):
        problem = bound_problem(setting, value, option)
        if problem:
            raise SettingsError(problem)
    if not definition.min_seats - 1 <= len(opponents) <= definition.max_seats - 1:  # R1.2; R6.8 (R7.1: 8 seats)
        where = "" if definition == SEVEN_CARD_DRAW else f" in {definition.name}"
        raise SettingsError(f"{definition.min_seats - 1} to {definition.max_seats - 1} opponents are needed{where}, "
                            f"got {len(opponents)}")
    game = game or GameConfig()
    forced = game.ante + (game.big_blind if game.blinds else 0)
    if starting_stack < max(1, forced):
        raise SettingsError(f"--stack must cover the ante and big blind ({forced} chips), got {starting_stack}")
    problem = message_problem(game, 1 + len(opponents), starting_stack, "--stack", definition=definition)
    if problem:  # PROTOCOL.md section 7: every message of the longest legal hand fits
        raise SettingsError(problem)
    env = dict(env or {})
    for name in env:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise SettingsError(f"--env {name!r}: a variable name is letters, digits and '_', e.g. --env SEED=3")
    others = [reference_bot(o) for o in opponents]
    names = [o.name for o in others]
    for i, name in enumerate(names):  # the same reference bot twice gets a numbered name
        if names.count(name) > 1:
            others[i] = replace(others[i], name=f"{name}{names[:i].count(name) + 1}")
    if len({o.name for o in others}) != len(others):
        raise SettingsError(f"--opponent names must differ, got {', '.join(o.name for o in others)}")
    limits = Limits(decision_ms=decision_ms, time_bank_ms=time_bank_ms, startup_ms=startup_ms, memory_mb=memory_mb,
                    max_processes=max_processes)
    bot = BotSpec(name=CANDIDATE, command=tuple(command), cwd=cwd, env=env)
    return check_spec(
        bot, others, game=game, limits=limits, hands=hands, seed=seed, starting_stack=starting_stack,
        out_dir=out_dir, sandbox=sandbox, on_start=on_start, definition=definition,
    )
