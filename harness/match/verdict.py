"""What ``harness match`` says about each bot after a match, and whether its exit status is a failure.

A match that was played can still mean nothing for a bot: it failed to
start, the referee put it out (too many faults, a crash), or it raised an
error in every decision it was asked for (an SDK bot then plays the default
action each time, with no protocol fault, so the table alone reads "ok").
Each such bot gets one line, and ``harness match`` exits with status 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.history.files import HistoryError, decision_times, read_history
from harness.host.startcause import start_cause
from harness.host.tracebacks import describe_traces, find_traces
from harness.specs import FaultKind, Limits, MatchResult

__all__ = ["SeatVerdict", "verdicts", "RESULT_FILE"]

#: The match's :class:`MatchResult` as JSON, in its folder (what ``harness report DIR`` reads).
RESULT_FILE = "result.json"


@dataclass(frozen=True, slots=True)
class SeatVerdict:
    """One bot's standing after a match.

    Attributes:
        seat: its seat.
        bot: its name.
        failed: its result means nothing (failed start, put out, raised in every decision).
        line: what to print (``""`` when there is nothing to say).
    """

    seat: int
    bot: str
    failed: bool
    line: str


def _decisions(history: Path, seats: int) -> list[int]:
    counts = [0] * seats
    try:
        for record in read_history(history):
            for seat, _ms in decision_times(record):
                if 0 <= seat < seats:
                    counts[seat] += 1
    except (HistoryError, OSError):
        pass
    return counts


def verdicts(result: MatchResult, out_dir: Path, history: Path, limits: Limits) -> list[SeatVerdict]:
    """Every seat's :class:`SeatVerdict`, reading its stderr log and the hand history.

    Args:
        result: what the referee returned.
        out_dir: the match folder (``logs/<seat>-<name>.err``).
        history: its hand history (for the decisions per seat).
        limits: the match's limits (named when one made a start fail, :func:`start_cause`).
    """
    decisions = _decisions(history, len(result.bots))
    out = []
    for seat, name in enumerate(result.bots):
        err = out_dir / "logs" / f"{seat}-{name}.err"
        status = result.status[seat]
        try:
            text = err.read_text(encoding="utf-8", errors="replace") if err.is_file() else ""
        except OSError:
            text = ""
        traces = find_traces(text)
        said = describe_traces(traces)
        if result.faults[seat].get(FaultKind.FAILED_START):
            why = status.removeprefix(f"{FaultKind.FAILED_START}: ")
            cause = start_cause(text, status, limits)
            why += f"; the cause: {cause}" if cause else ""
            out.append(SeatVerdict(seat, name, True, f"bot {name!r} failed to start: {why}; its stderr: {err}"))
        elif status != "ok":
            out.append(SeatVerdict(seat, name, True, f"bot {name!r} was put out: {status}; its stderr: {err}"))
        elif traces and decisions[seat] and len(traces) >= decisions[seat]:
            out.append(SeatVerdict(seat, name, True, f"bot {name!r} raised an error in every one of its "
                                   f"{decisions[seat]} decision(s) ({said} on its stderr): {err}"))
        elif traces:
            out.append(SeatVerdict(seat, name, False, f"bot {name!r}: {said} on its stderr in "
                                   f"{decisions[seat]} decision(s): {err}"))
        else:
            out.append(SeatVerdict(seat, name, False, ""))
    return out
