"""One match with a human seat: the referee in this thread, the person's interface beside it.

The referee runs in the calling (main) thread, as in ``harness match``, so
Ctrl-C stops every bot and cleans up exactly as there. The interface (the
terminal's prompt loop, or the web page's server) reads the seat's
:class:`~harness.match.human.HumanLink` in a thread of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.match.human import HumanLink, HumanSpec
from harness.match.referee import play_match
from harness.match.trace import WireTrace
from harness.specs import BotSpec, Limits, MatchResult, MatchSpec, SandboxSettings, SettingsError

__all__ = ["play_with_human"]

#: How long the interface may take to finish drawing the end of the match (s).
_UI_GRACE_S = 10.0


def play_with_human(
    bots: Sequence[BotSpec],
    human: HumanSpec,
    seat: int,
    spec: MatchSpec,
    limits: Limits,
    out_dir: Path,
    interface: Callable[[HumanLink], None],
    *,
    sandbox: SandboxSettings | None = None,
    trace: WireTrace | None = None,
) -> MatchResult:
    """Play one match in which ``human`` sits at match seat ``seat`` among ``bots``.

    Args:
        bots: the bots, in seat order around the human (1-5 of them).
        human: the person's seat (its clock, its link).
        seat: the human's match seat, 0..len(bots).
        spec, limits, out_dir, sandbox, trace: as :func:`harness.match.referee.play_match` (limits bind the
            bots).
        interface: called in its own thread with the seat's link; it returns once the link says
            :data:`~harness.match.human.LEFT` (the match is over or the person left).

    Returns:
        The match result (match seats, the human's included).

    Raises:
        harness.specs.SettingsError: ``seat`` out of range, or what :func:`play_match` raises.
        KeyboardInterrupt: after every bot has been stopped.
    """
    if not 0 <= seat <= len(bots):
        raise SettingsError(f"--seat {seat}: the seats are 0 to {len(bots)} with {len(bots)} bot(s)")
    seats: list[BotSpec | HumanSpec] = list(bots)
    seats.insert(seat, human)
    ui = threading.Thread(target=interface, args=(human.link,), name="human-interface", daemon=True)
    ui.start()
    result = play_match(seats, spec, limits, out_dir, sandbox=sandbox, trace=trace)
    ui.join(_UI_GRACE_S)
    return result
