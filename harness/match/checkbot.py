"""``harness check-bot``: play a few hands with a bot and report every protocol violation.

The bot under test (the *candidate*) sits in seat 0 of a short match
against reference bots (``bots.caller`` and ``bots.raiser`` by default, so
it meets checks, calls, bets, raises and multi-way pots and sits in every
position as the button moves). The match is a real one, through
:func:`harness.match.referee.play_match`, with the real limits except the time
bank, which is 0: any reply slower than ``decision_ms`` is reported. Faults
come back from the hand history (``faults`` per hand) and the match result;
each becomes a :class:`Violation` in words a bot author can act on.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.match.botproc import resolve_command
from harness.match.outdir import prepare_out_dir
from harness.match.specs import BotSpec, FaultKind, Limits, MatchResult

#: What each fault kind means to a bot author, and what to fix.
KIND_WORDS: dict[str, str] = {
    FaultKind.FAILED_START: "failed to start",
    FaultKind.TIMEOUT: "slow reply",
    FaultKind.MALFORMED: "bad message",
    FaultKind.ILLEGAL: "illegal action",
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
    """What :func:`check_bot` found.

    Attributes:
        command: the candidate's argv.
        opponents: names of the reference bots.
        hands: hands played.
        decisions: replies the candidate was asked for.
        violations: every violation, in order.
        status: the candidate's status at match end ("ok" or why it was put out).
        slowest_ms: the candidate's slowest reply (ms), 0 without decisions.
        net: the candidate's net chips (informative only).
        limits: the limits applied.
        stderr_tail: last lines of the candidate's stderr when it crashed or failed to start.
        out_dir: where the hand history and logs were kept, or None.
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
    out_dir: Path | None = None
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the bot broke no rule of the protocol."""
        return not self.violations and not any(self.counts.values()) and self.status == "ok"

    def render(self) -> str:
        """The report printed by ``harness check-bot``."""
        lim = self.limits
        lines = [
            f"check-bot: {shlex.join(self.command)}",
            f"  {self.hands} hands against {', '.join(self.opponents)} ({len(self.opponents) + 1} seats), "
            f"{self.decisions} decision(s); limits: start-up {lim.startup_ms} ms, "
            f"{lim.decision_ms} ms per decision (no time bank), {lim.max_message_bytes} bytes per message",
        ]
        if self.ok:
            lines.append(
                f"OK: no protocol violation; slowest reply {self.slowest_ms:.1f} ms, net {self.net:+d} chips"
            )
        else:
            lines.append("Violations:")
            lines += ["  " + v.render() for v in self.violations]
            listed = {v.kind for v in self.violations}
            for kind, n in sorted(self.counts.items()):
                if n and kind not in listed:  # counted by the referee without a record
                    lines.append(f"  {KIND_WORDS.get(kind, kind)} ({kind}): {n} time(s)")
            if self.status != "ok" and not any(v.detail in self.status for v in self.violations):
                lines.append(f"  the referee put the bot out: {self.status}")
            lines.append("How to fix:")
            for kind in sorted({v.kind for v in self.violations} | {k for k, n in self.counts.items() if n}):
                hint = KIND_HINTS.get(kind, "")
                if kind == FaultKind.CRASH:
                    # Point at the stderr only when there is some to show.
                    hint += "; see the bot's stderr below" if self.stderr_tail else "; the bot wrote nothing to stderr"
                lines.append(f"  {kind}: {hint}")
            if self.stderr_tail:
                lines.append("Last lines of the bot's stderr:")
                lines += ["  | " + line for line in self.stderr_tail.splitlines()]
            total = sum(self.counts.values()) or len(self.violations)
            lines.append(f"FAIL: {total} violation(s); the bot does not pass.")
        if self.out_dir is not None:
            lines.append(f"  hand history and logs: {self.out_dir}")
        return "\n".join(lines)


def _reference_bot(name: str) -> BotSpec:
    return BotSpec(name=name, command=("python", "-m", f"bots.{name}"))


def _violations(out_dir: Path, seat: int) -> tuple[list[Violation], int, float]:
    """Read the hand history: the seat's faults, its decision count and slowest reply."""
    violations: list[Violation] = []
    decisions = 0
    slowest = 0.0
    path = out_dir / "hands.jsonl"
    if not path.exists():
        return violations, decisions, slowest
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record: dict[str, Any] = json.loads(line)
        seats = record.get("match_seats") or list(range(len(record.get("bots", []))))
        mine = seats.index(seat) if seat in seats else None
        if mine is None:
            continue
        for s, ms in record.get("timings_ms", []):
            if s == mine:
                decisions += 1
                slowest = max(slowest, float(ms))
        for fault in record.get("faults", []):
            if fault.get("seat") == mine:
                violations.append(
                    Violation(str(fault.get("kind")), record.get("hand_id"), str(fault.get("detail", "")))
                )
    return violations, decisions, slowest


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


def _tail(path: Path, lines: int = STDERR_TAIL_LINES) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def check_bot(
    command: Sequence[str],
    *,
    cwd: str | None = None,
    hands: int = DEFAULT_HANDS,
    opponents: Sequence[str] = DEFAULT_OPPONENTS,
    decision_ms: int = 1000,
    startup_ms: int = 10000,
    seed: int = 1,
    out_dir: Path | None = None,
) -> CheckReport:
    """Play ``hands`` hands with the bot ``command`` in seat 0 and collect its violations.

    Args:
        command: the bot's argv, e.g. ``["python", "mybot.py"]``.
        cwd: the bot's working directory (None: the current one).
        hands: hands to play (>= 1).
        opponents: reference bots by module name under ``bots`` (1 to 5).
        decision_ms: time per reply (ms); there is no time bank.
        startup_ms: time from launch to a valid hello (ms).
        seed: match seed (the deals).
        out_dir: keep the hand history and logs here; None = a temporary
            directory removed afterwards.

    Returns:
        The :class:`CheckReport`; ``report.ok`` is False on any violation.

    Raises:
        harness.match.botproc.BotStartError: the command cannot be launched at all
            (not found, not executable, cwd missing).
        ValueError: bad arguments (no command, hands, decision_ms or startup_ms
            below 1, 0 or > 5 opponents, unknown opponent); ``out_dir`` is a
            file, lies under one or already holds a hand history
            (:class:`harness.match.outdir.OutDirError`).
    """
    from harness.engine.config import GameConfig
    from harness.match.referee import play_match
    from harness.match.specs import MatchSpec

    if not command:
        raise ValueError("no bot command given; use: harness check-bot -- CMD ARGS...")
    for option, value in (("--hands", hands), ("--decision-ms", decision_ms), ("--startup-ms", startup_ms)):
        if value < 1:
            raise ValueError(f"{option} must be at least 1, got {value}")
    if not 1 <= len(opponents) <= 5:
        raise ValueError(f"1 to 5 opponents are needed, got {len(opponents)}")
    for name in opponents:
        if not name.isidentifier() or importlib.util.find_spec(f"bots.{name}") is None:
            raise ValueError(
                f"--opponent {name!r}: no such reference bot; use a module of bots/, e.g. caller, raiser, solid"
            )
    limits = Limits(decision_ms=decision_ms, time_bank_ms=0, startup_ms=startup_ms)
    bots = [BotSpec(name=CANDIDATE, command=tuple(command), cwd=cwd)]
    resolve_command(bots[0])  # a command that cannot start at all is a usage error
    bots += [_reference_bot(name) for name in opponents]
    spec = MatchSpec(game=GameConfig(), hands=hands, seed=seed, match_id="check-bot")

    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="check-bot-")
        where = Path(tmp.name)
    else:
        where = prepare_out_dir(Path(out_dir))
    try:
        result: MatchResult = play_match(bots, spec, limits, where)
        violations, decisions, slowest = _violations(where, 0)
        counts = {k: v for k, v in result.faults[0].items() if v}
        if counts.get(FaultKind.FAILED_START) and not any(v.kind == FaultKind.FAILED_START for v in violations):
            violations.insert(0, Violation(FaultKind.FAILED_START, None, result.status[0]))
        notes = _referee_notes(where, 0)
        if counts.get(FaultKind.FAILED_START):
            # Say *why* no hello counted (e.g. "ignored a hello with a wrong secret").
            violations = [
                Violation(v.kind, None, "; ".join([v.detail, *(f"referee: {n}" for n in dict.fromkeys(notes))]))
                if v.kind == FaultKind.FAILED_START
                else v
                for v in violations
            ]
        if counts.get(FaultKind.CRASH) and not any(v.kind == FaultKind.CRASH for v in violations):
            violations.append(Violation(FaultKind.CRASH, None, result.status[0]))
        tail = ""
        if counts.get(FaultKind.CRASH) or counts.get(FaultKind.FAILED_START):
            tail = _tail(where / "logs" / f"0-{CANDIDATE}.err")
        return CheckReport(
            command=tuple(command),
            opponents=tuple(opponents),
            hands=result.hands_played,
            decisions=decisions,
            violations=tuple(violations),
            status=result.status[0],
            slowest_ms=slowest,
            net=result.net[0],
            limits=limits,
            stderr_tail=tail,
            out_dir=None if tmp is not None else where,
            counts=counts,
        )
    finally:
        if tmp is not None:
            tmp.cleanup()
