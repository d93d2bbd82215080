"""The :class:`Seat` protocol: what the referee needs of whatever answers one seat of a match.

Modelled on jupyter_client's kernel provisioner (a small interface of lifecycle
methods that a kernel manager drives, with one implementation per way of running a
kernel): the referee drives every seat through the same few calls, and each kind
of seat implements them its own way. Two implementations exist:

- :class:`harness.match.botseat.BotSeat`: a bot process in its sandbox
  (:class:`harness.host.botproc.BotProcess`);
- :class:`harness.match.human.HumanSeat`: a person, through a thread of the
  referee's process that relays the protocol to an interface.

Which one a launch spec gets is decided in one place,
:func:`harness.match.seathost.seat_for`; nothing else in a match asks what kind a
seat is.

What a seat does *not* implement is its messages: every seat, whatever runs behind
it, speaks the bot protocol (PROTOCOL.md) to the one channel the referee binds for it
(:class:`harness.match.connection.Connection`: a ZMTP endpoint, its handshake, its
bounds, every request and reply, the wire trace). A seat gets that endpoint and the
seat's secret in :attr:`SeatLaunch.env` and must see to it that something connects
there and says ``hello``: the bot process does it itself, the human seat's thread
does it for the person, and a remote bot would do it through a relay (or by being
handed the endpoint on a reachable transport). So the hand loop's I/O is the same
for every seat: a referee loop written natively (framing, MessagePack, the clock and
the hand loop in Rust) drives the same sockets and calls back into the seats only at
the lifecycle points below: start, a liveness check between slices of a wait and
between hands, the words of a fault, and the stop.

The order of calls in one match (:class:`harness.match.seathost.SeatHost`):
:meth:`Seat.clock` and :meth:`Seat.own_clock` when the match is set up;
:meth:`Seat.launch` once; :attr:`Seat.has_process`, :meth:`Seat.poll`,
:meth:`Seat.describe_exit`, :meth:`Seat.cpu_wait_s` and :meth:`Seat.startup_hint`
while waiting for the hello and during play; :meth:`Seat.catch_up_ms` and
:meth:`Seat.timeout_detail` around a decision that timed out; :meth:`Seat.stop_all`
(every seat of one class in one call, so the waits overlap) or :meth:`Seat.stop`
at the end, then :attr:`Seat.log_error`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from harness.errors import HarnessError
from harness.match.clock import Clock
from harness.specs import Limits

if TYPE_CHECKING:  # annotations only: the host's types of a confinement
    from harness.host.cgroups import BotGroup
    from harness.host.sandbox import BotJail
    from harness.host.treelimits import TreeBot

__all__ = ["QUIT_GRACE_MS", "Seat", "SeatLaunch", "SeatStartError", "stop_seats"]

#: The exit grace (PROTOCOL.md section 4): time a bot gets to exit by itself after ``match_end`` or a
#: fatal ``error`` before SIGTERM, and again before SIGKILL (ms); a JVM logs and shuts down well within it.
QUIT_GRACE_MS = 1000


class SeatStartError(HarnessError):
    """A seat could not be started; ``detail`` is its ``failed_start`` fault's detail (the hand history's)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True, slots=True)
class SeatLaunch:
    """What :meth:`Seat.launch` gets from the match's host.

    Attributes:
        env: the launch environment (PROTOCOL.md section 1): ``HARNESS_ENDPOINT`` (the seat's channel),
            ``HARNESS_SECRET`` (the seat's own secret), ``HARNESS_BOT_NAME``, ``HARNESS_PROTOCOL_VERSION``.
        label: ``"<seat>-<name>"``, names the seat's logs (``logs/<label>.out|.err``) and its control group.
        log_dir: the match's ``logs/`` directory.
        limits: the match's limits (memory, processes, CPU, log bytes).
        confine: makes the seat's sandbox on demand: its jail (None: none) and its control group or
            per-tree limits (None: none). A seat that runs no process of its own never calls it, and gets
            neither. Raises :class:`harness.host.sandbox.SandboxError` or
            :class:`harness.host.cgroups.CgroupError`.
    """

    env: Mapping[str, str]
    label: str
    log_dir: Path
    limits: Limits
    confine: Callable[[], tuple[BotJail | None, BotGroup | TreeBot | None]]


@runtime_checkable
class Seat(Protocol):
    """Whatever answers one seat: the lifecycle the referee drives (module docstring for the order).

    Times are in milliseconds unless a name says seconds (``_s``). No method may block for longer than it
    is told (``grace_ms``); none is called from another thread than the referee's.
    """

    #: The seat's name in the match (a bot's name rules: letters, digits, ``-_.``).
    name: str

    def clock(self, limits: Limits) -> Clock:
        """The seat's clock: the match's decision time and time bank, or a clock of its own."""
        ...

    def own_clock(self, seat: int) -> dict[str, Any] | None:
        """The seat's entry in a hand record's ``match.humans`` (docs/HISTORY.md) when it has a clock of its
        own; None when it plays under the match's limits."""
        ...

    def launch(self, how: SeatLaunch) -> None:
        """Start what answers the seat; it connects to ``HARNESS_ENDPOINT`` and says hello (not waited for).

        Raises:
            SeatStartError: it cannot start (recorded as the seat's ``failed_start`` fault; it is out).
        """
        ...

    @property
    def has_process(self) -> bool:
        """True once :meth:`launch` started something (False before, or after a failed start)."""
        ...

    def poll(self) -> int | None:
        """None while the seat runs; its exit status once it ended (``Popen.poll``'s meaning)."""
        ...

    def describe_exit(self) -> str:
        """How the seat ended, in words (a ``crash`` fault's detail)."""
        ...

    def cpu_wait_s(self) -> float:
        """Seconds the seat waited for a CPU that others held (not counted against its start-up time)."""
        ...

    def startup_hint(self, code: int | None = None) -> str:
        """Words appended to a ``failed_start`` detail: why it may not have started ('' if nothing is known).
        ``code``: its exit status, when it exited before its hello."""
        ...

    def catch_up_ms(self, decision_ms: int) -> int:
        """After a timeout, how long its next request waits for the late reply (PROTOCOL.md section 8)."""
        ...

    def timeout_detail(self, detail: str) -> str:
        """A ``timeout`` fault's detail for this seat, given the channel's (``detail``)."""
        ...

    def stop(self, grace_ms: int) -> str:
        """End the seat: ``grace_ms`` to exit by itself, then by force; idempotent.

        Returns:
            ``"exited"``, ``"sigterm"`` or ``"sigkill"``: the step that ended it.
        """
        ...

    @classmethod
    def stop_all(cls, seats: Sequence[Any], grace_ms: int) -> list[str]:
        """:meth:`stop` for several seats of this class at once, each step's wait shared; per seat, in order."""
        ...

    @property
    def log_error(self) -> OSError | None:
        """The first write to the seat's logs that failed (a full disk), once stopped; None if none."""
        ...


def stop_seats(seats: Sequence[Seat], grace_ms: int) -> list[str]:
    """Stop several seats, those of one class together (:meth:`Seat.stop_all`); per seat, in order, the step
    that ended it (``"exited"``, ``"sigterm"``, ``"sigkill"``)."""
    by_class: dict[type[Seat], list[int]] = {}
    for i, s in enumerate(seats):
        by_class.setdefault(type(s), []).append(i)
    steps = [""] * len(seats)
    for cls, indices in by_class.items():
        for i, step in zip(indices, cls.stop_all([seats[i] for i in indices], grace_ms), strict=True):
            steps[i] = step
    return steps
