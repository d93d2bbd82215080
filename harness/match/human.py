"""A human seat: a person answers the referee's requests instead of a bot process.

:class:`HumanSeat` implements the :class:`~harness.match.seat.Seat` protocol, so the
referee drives it as it drives a bot's seat: the referee binds the seat's channel,
checks its ``hello``, sends it the same ``match_start``, ``hand_start``, requests, ``hand_end`` and ``match_end``
over the same ZeroMQ connection, times it with a :class:`~harness.match.clock.Clock`
and validates every reply as a bot's (PROTOCOL.md). What differs is the
other end: :class:`HumanProcess` stands where a :class:`~harness.host.botproc.BotProcess`
stands, a thread of this process that speaks the protocol (a pyzmq DEALER, as
the SDK's) and hands each message to a :class:`HumanLink`, where a user
interface (the terminal, a web page) reads them and posts the person's answer.

The clock is the seat's own (:class:`HumanSpec`): by default no limit per
decision, only an idle limit (10 minutes) after which the referee plays the
default action, check if free, else fold; stand pat in the draw (PROTOCOL.md
section 7), records a ``timeout`` fault naming the idle limit and tells the
seat with a non-fatal ``error``, which the interface shows.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.match.clock import Clock
from harness.match.seat import SeatLaunch
from harness.specs import Limits
from protocol import codec
from protocol.errors import ProtocolError
from protocol.messages import ActionReply, ActRequest, DiscardReply, DrawRequest, Error, Hello, MatchEnd, Message

__all__ = ["DEFAULT_IDLE_MS", "HumanLink", "HumanProcess", "HumanSeat", "HumanSpec", "LEFT"]

#: Default idle limit of a human seat (ms): ten minutes, after which the default action is played.
DEFAULT_IDLE_MS = 600_000
#: How often the seat's thread looks for the person's answer between messages (ms).
_POLL_MS = 20
#: What :meth:`HumanLink.events` yields after the seat's thread has ended (the match is over or the seat left).
LEFT = "left"


@dataclass(frozen=True, slots=True)
class HumanSpec:
    """A seat answered by a person (``harness play``).

    Attributes:
        name: the seat's name in the match, like a bot's (letters, digits, ``-_.``).
        link: where the person's interface reads the messages and posts answers.
        decision_ms: time per decision (ms), None = no limit per decision (the default).
        idle_ms: the idle limit (ms): no answer for this long and the referee
            plays the default action (check, else fold; stand pat) and records a
            ``timeout`` fault saying so. The deadline of a decision is the
            smaller of the two.

    Raises:
        ValueError: a limit below 1 ms.
    """

    name: str
    link: HumanLink = field(compare=False)
    decision_ms: int | None = None
    idle_ms: int = DEFAULT_IDLE_MS

    #: A human seat runs no command and has no directory: the referee's checks and the sandbox skip it.
    command: tuple[str, ...] = ()
    cwd: None = None
    env: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for what, value in (("decision_ms", self.decision_ms), ("idle_ms", self.idle_ms)):
            if value is not None and value < 1:
                raise ValueError(f"a human seat's {what} must be at least 1 ms, got {value}")

    @property
    def deadline_ms(self) -> int:
        """The time one decision may take (ms): the decision limit or the idle limit, whichever is smaller."""
        return self.idle_ms if self.decision_ms is None else min(self.decision_ms, self.idle_ms)

    def timeout_detail(self) -> str:
        """The ``timeout`` fault's detail for this seat (what the hand history and the person are told)."""
        if self.decision_ms is not None and self.decision_ms < self.idle_ms:
            return (f"the human seat gave no answer within its decision limit of {self.decision_ms} ms: "
                    "the default action was played (check if free, else fold; stand pat)")
        return (f"the human seat was idle for {self.idle_ms} ms (its idle limit): "
                "the default action was played (check if free, else fold; stand pat)")

    def clock_record(self, seat: int) -> dict[str, Any]:
        """The seat's entry in a hand record's ``match.humans`` (docs/HISTORY.md)."""
        return {"seat": seat, "name": self.name, "decision_ms": self.decision_ms, "idle_ms": self.idle_ms}


class HumanLink:
    """The person's side of a human seat: the messages the referee sent, and the answer.

    The seat's thread :meth:`post` s every decoded message (``match_start``,
    ``hand_start``, ``act``/``draw``, ``hand_end``, ``error``, ``match_end``);
    the interface takes them from :meth:`next` in order and answers the
    pending request with :meth:`answer`. Thread-safe.
    """

    def __init__(self) -> None:
        self._events: queue.Queue[Message | str] = queue.Queue()
        self._answers: queue.Queue[ActionReply | DiscardReply] = queue.Queue()
        self._lock = threading.Lock()
        self._pending: ActRequest | DrawRequest | None = None
        self._leave = threading.Event()
        #: Called by the seat's thread with every ``error`` the referee sends (an idle limit passed), at
        #: once: an interface blocked on the person's input can say so without waiting for it.
        self.on_error: Any = None

    # ---- the seat's side

    def post(self, msg: Message | str) -> None:
        """Queue a message for the interface (the seat's thread); a request becomes the pending one."""
        with self._lock:
            if isinstance(msg, (ActRequest, DrawRequest)):
                self._pending = msg
            elif isinstance(msg, Error) and self._pending is not None and msg.seq == self._pending.seq:
                self._pending = None  # timed out: the referee has played the default action
        self._events.put(msg)
        if isinstance(msg, Error) and self.on_error is not None:
            self.on_error(msg)

    def take_answer(self) -> ActionReply | DiscardReply | None:
        """The person's answer to the pending request, if one came (the seat's thread); stale ones are dropped."""
        while True:
            try:
                reply = self._answers.get_nowait()
            except queue.Empty:
                return None
            with self._lock:
                if self._pending is not None and reply.seq == self._pending.seq:
                    self._pending = None
                    return reply

    @property
    def leaving(self) -> bool:
        """The person left the table (:meth:`leave`)."""
        return self._leave.is_set()

    # ---- the interface's side

    def next(self, timeout_s: float | None = None) -> Message | str | None:
        """The next message the seat received, :data:`LEFT` once the seat has ended; None after ``timeout_s``."""
        try:
            return self._events.get(timeout=timeout_s)
        except queue.Empty:
            return None

    @property
    def pending(self) -> ActRequest | DrawRequest | None:
        """The request waiting for the person's answer (None: nothing to answer now)."""
        with self._lock:
            return self._pending

    def answer(self, reply: ActionReply | DiscardReply) -> bool:
        """Send the person's answer to the pending request.

        Returns:
            False when it answers no pending request (it came after the idle
            limit, or for an older request): it is not sent.
        """
        with self._lock:
            if self._pending is None or reply.seq != self._pending.seq:
                return False
        self._answers.put(reply)
        return True

    def leave(self) -> None:
        """The person leaves the table: the seat closes its connection (the referee puts it out)."""
        self._leave.set()


class HumanProcess:
    """Where a bot's process stands, for a human seat: a thread that speaks the protocol.

    It connects a DEALER to the seat's endpoint, sends the ``hello`` with the
    seat's secret, and relays every message to the :class:`HumanLink` and the
    person's answers to the referee, until ``match_end``, a fatal ``error``,
    :meth:`HumanLink.leave` or :meth:`stop`. The interface the referee uses is
    the subset of :class:`~harness.host.botproc.BotProcess` it calls:
    :meth:`start`, :meth:`poll`, :meth:`stop`, :meth:`describe_exit`,
    :meth:`run_queue_wait_s`, ``returncode`` and ``jail`` (None).

    Args:
        spec: the seat.
        env: the launch environment a bot would get (``HARNESS_ENDPOINT``, ``HARNESS_SECRET``, ...).
    """

    jail = None

    def __init__(self, spec: HumanSpec, env: Mapping[str, str]) -> None:
        self.spec = spec
        self.link = spec.link
        self._endpoint = env["HARNESS_ENDPOINT"]
        self._hello = codec.encode(Hello(secret=env["HARNESS_SECRET"], name=spec.name))
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.returncode: int | None = None
        self._why = ""

    def start(self) -> None:
        """Start the seat's thread (it connects and says hello at once)."""
        self._thread = threading.Thread(target=self._run, name=f"human-seat-{self.spec.name}", daemon=True)
        self._thread.start()

    def poll(self) -> int | None:
        """None while the seat plays; 0 once it has ended (match over, the person left, stopped)."""
        return self.returncode

    def run_queue_wait_s(self) -> float:
        """A thread of the referee's own process: it never waits for a CPU on its own account (s)."""
        return 0.0

    def stop(self, grace_ms: int = 500) -> str:
        """End the seat: wait up to ``grace_ms`` for it to finish by itself, then tell it to stop.

        Returns:
            ``"exited"`` (a thread cannot be signalled; it stops at its next poll, within 20 ms).
        """
        if self._thread is not None:
            self._thread.join(grace_ms / 1000.0)
            self._stop.set()
            self._thread.join(1.0)
        if self.returncode is None:
            self.returncode = 0
            self._why = self._why or "stopped by the referee"
        return "exited"

    def describe_exit(self) -> str:
        """Why the seat ended, in words (the fault detail if the referee was still asking it)."""
        return f"the human seat ended: {self._why or 'it is still playing'}"

    def _run(self) -> None:
        import zmq

        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        link = self.link
        try:
            sock.connect(self._endpoint)
            sock.send(self._hello)
            while not self._stop.is_set():
                if link.leaving:
                    self._why = "the person left the table"
                    break
                reply = link.take_answer()
                if reply is not None:
                    sock.send(codec.encode(reply))
                if not sock.poll(_POLL_MS):
                    continue
                try:
                    msg = codec.decode(sock.recv())
                except ProtocolError as exc:  # the referee is trusted; say it rather than guess
                    link.post(Error(reason="malformed", message=f"unreadable message from the referee: {exc}",
                                    fatal=False))
                    continue
                link.post(msg)
                if isinstance(msg, MatchEnd):
                    self._why = "the match ended"
                    break
                if isinstance(msg, Error) and msg.fatal:
                    self._why = f"the referee ended the seat ({msg.reason}: {msg.message})"
                    break
        finally:
            sock.close(linger=0)
            ctx.term()
            self.returncode = 0
            link.post(LEFT)


class HumanSeat:
    """A seat a person answers: the :class:`~harness.match.seat.Seat` of a :class:`HumanSpec`.

    What differs from a bot's seat: its own clock (:attr:`HumanSpec.deadline_ms`, no time bank; recorded
    in the hand records' ``match.humans``); it starts a :class:`HumanProcess` (a thread: no jail, no control
    group, never kept from a CPU); no catch-up wait after a timeout (the seat drops the request it was idle
    on); a timeout's detail names its idle or decision limit (:meth:`HumanSpec.timeout_detail`).

    Args:
        spec: the seat.
    """

    def __init__(self, spec: HumanSpec) -> None:
        self.spec = spec
        self.name = spec.name
        #: The seat's thread once launched.
        self.proc: HumanProcess | None = None

    def clock(self, limits: Limits) -> Clock:
        """The seat's own clock: its deadline per decision, no time bank (``limits`` bind the bots)."""
        return Clock(self.spec.deadline_ms, 0)

    def own_clock(self, seat: int) -> dict[str, Any] | None:
        """Its entry in ``match.humans`` (:meth:`HumanSpec.clock_record`)."""
        return self.spec.clock_record(seat)

    def launch(self, how: SeatLaunch) -> None:
        """Start the seat's thread (it connects and says hello); no sandbox (``how.confine`` is not called)."""
        self.proc = HumanProcess(self.spec, how.env)
        self.proc.start()

    @property
    def has_process(self) -> bool:
        """True once the seat's thread started."""
        return self.proc is not None

    def poll(self) -> int | None:
        """None while the seat plays; 0 once its thread ended (:meth:`HumanProcess.poll`)."""
        return None if self.proc is None else self.proc.poll()

    def describe_exit(self) -> str:
        """Why the seat ended, in words."""
        return "the human seat never started" if self.proc is None else self.proc.describe_exit()

    def cpu_wait_s(self) -> float:
        """0.0: a thread of the referee's process waits for no CPU on its own account."""
        return 0.0

    def startup_hint(self, code: int | None = None) -> str:
        """'': nothing of a sandbox to explain."""
        return ""

    def catch_up_ms(self, decision_ms: int) -> int:
        """No wait: the seat drops the request it was idle on, there is no late reply to wait for."""
        return 0

    def timeout_detail(self, detail: str) -> str:
        """The seat's own words (its idle or decision limit), whatever the channel said."""
        return self.spec.timeout_detail()

    def stop(self, grace_ms: int) -> str:
        """``grace_ms`` for the thread to end by itself, then it is told to stop (:meth:`HumanProcess.stop`)."""
        return "exited" if self.proc is None else self.proc.stop(grace_ms)

    @classmethod
    def stop_all(cls, seats: Sequence[Any], grace_ms: int) -> list[str]:
        """Each seat's thread in turn: it ends by itself once it has read ``match_end`` (a thread is not signalled)."""
        return [s.stop(grace_ms) for s in seats]

    @property
    def log_error(self) -> OSError | None:
        """None: a human seat writes no log of its own."""
        return None
