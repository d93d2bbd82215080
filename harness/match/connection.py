"""The referee's side of one bot's channel (PROTOCOL.md "Transport", DESIGN.md "Referee promises").

Per bot the referee binds a ZeroMQ ROUTER on a private endpoint (an ipc path
in a directory of its own, or tcp on loopback); the bot connects a DEALER
and proves itself with ``hello`` carrying its seat's secret. From then on
only that peer (its ROUTER routing id) is listened to, so a process without
the secret can neither block nor impersonate the bot.

Unauthenticated peers (issue 10 point 7): a connection whose first message
is not a ``hello`` with the seat's secret is dropped at once (the referee
shuts its socket down; it is never answered), at most
:data:`MAX_UNAUTHENTICATED` silent connections are kept open before the
bot's hello (the oldest go first), and once the bot is authenticated every other connection is dropped,
the ipc path is unlinked so that nobody can connect any more (a tcp peer is
dropped as soon as it is accepted), and whatever the others had queued is
discarded before any clock runs. ZeroMQ has no call to close one peer of a
ROUTER: the connection's descriptor comes from the monitor
(``EVENT_ACCEPTED``) or the message (``ZMQ_SRCFD``, checked against the
sender's pid in ``Peer-Address`` with ``SO_PEERCRED`` so that a descriptor
reused by another connection is never hit), and ``shutdown(2)`` on it makes
libzmq close that connection as if the peer had gone.

Guards, all per message, none trusting the bot:

- size: a message over ``max_message_bytes`` is an ``oversized`` fault,
  judged here from its length. libzmq itself refuses anything over
  :func:`transport_limit` (``ZMQ_MAXMSGSIZE``, 4x the limit, at least
  256 KiB) by dropping the peer before buffering it, so a 50 MB reply never
  reaches memory; the socket monitor reports the drop as a disconnection of
  that peer's file descriptor (known from the ``hello``'s ``ZMQ_SRCFD``),
  the same event as a bot closing its socket: both are ``disconnected``.
- time: one deadline per decision (from :class:`harness.match.clock.Clock`);
  polling asks only for what remains, in whole milliseconds, so a flooding
  bot cannot extend it.
- order (PROTOCOL.md section 8, stated once there): every request carries
  ``seq``; a reply must echo it. A late reply to a request that timed out is
  discarded (never applied to a later request, never a second fault); a
  reply whose ``seq`` answers no request at all fails the pending request
  at once (``illegal``, naming the seq expected); anything else the bot
  sends out of turn (a second reply, a repeated hello, garbage between
  requests) is counted, and the counts become *one* fault record per
  request (:meth:`Connection.take_strays`).
- floods: the referee's time per request is bounded whatever the bot
  sends: at most :data:`MAX_QUEUED_STRAYS` queued messages are read before
  a request (more is a flood: the request fails, unsent), messages read
  while a request is pending cost the bot's own deadline, and ``RCVHWM``
  keeps the queue short (libzmq then stops reading the bot's socket).
- clock: a reply that arrived before the deadline is never late. At the
  deadline the referee looks once more (and, if it was not watching the
  socket when the deadline passed, because it was writing a record,
  collecting garbage, descheduled or stopped, it first gives libzmq's I/O
  thread :data:`LATE_GRACE_MS` to hand over what arrived meanwhile, and
  waits while the kernel still holds unread bytes of the bot). The time
  charged ends when the reply is known to have arrived, or, when the
  referee was not watching, at the last moment it knew the queue empty
  (:attr:`Connection.answered_at`).
- LINGER=0 on every socket, so closing never waits on a dead bot.
"""

from __future__ import annotations

import contextlib
import fcntl
import hmac
import os
import socket
import struct
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq
from zmq.utils.monitor import parse_monitor_message

from harness.match.specs import FaultKind
from protocol import codec
from protocol.errors import ProtocolError
from protocol.messages import ActionReply, DiscardReply, Error, Hello, Welcome
from protocol.version import PROTOCOL_VERSION

#: Longest single poll while waiting (ms): between slices the bot's process is checked.
POLL_SLICE_MS = 50
#: Ignored messages logged per connection before the log goes quiet (then only counted).
MAX_IGNORED_LOGGED = 20
#: Most messages of the bot read from its queue before a request is sent; a bot
#: only ever answers requests, so more than this waiting is a flood.
MAX_QUEUED_STRAYS = 64
#: Messages read per batch while a request is pending, between deadline checks.
READ_BATCH = 64
#: Messages libzmq queues per peer before it stops reading that peer's socket (``ZMQ_RCVHWM``).
#: Twice MAX_QUEUED_STRAYS: a flood is then seen in what is already queued, not only once
#: libzmq's I/O thread has refilled the queue (which a loaded machine may not have done yet).
RCV_HWM = 2 * MAX_QUEUED_STRAYS
#: Extra look at the deadline when the referee was not watching the socket as it passed (ms):
#: time for libzmq's I/O thread to hand over what arrived while the referee was busy or stopped.
LATE_GRACE_MS = 50
#: Longest wait at the deadline while the kernel still holds unread bytes from the bot (ms).
LATE_KERNEL_MS = 200
#: A poll that returns this much later than asked (ms) means the referee was not running.
OVERSLEEP_MS = 5
#: Batches of messages read in the look at the deadline, at most.
_LATE_BATCHES = 4
#: Kinds of out-of-turn message told apart in a fault's detail (more are counted as "other").
MAX_STRAY_KINDS = 6
#: Connections kept open before the bot's hello; more are dropped as they are accepted.
MAX_UNAUTHENTICATED = 4

_now = time.perf_counter
_zmq_poll = zmq.zmq_poll
# pyzmq's Socket.send is a Python method over its compiled base class's (it adds draft-socket
# options this channel never uses); the base's, called directly, saves a Python frame per frame sent.
_send = zmq.backend.Socket.send

# Plain ints: pyzmq's enum flags cost an enum operation per call on the hot path.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE) | _NOBLOCK
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_RCVMORE = int(zmq.RCVMORE)
_EVENT_DISCONNECTED = int(zmq.EVENT_DISCONNECTED)
_EVENT_ACCEPTED = int(zmq.EVENT_ACCEPTED)
_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid (SO_PEERCRED)


class Disconnected(Exception):
    """The authenticated peer's connection is gone (bot exited, or libzmq dropped it).

    libzmq drops a peer that sends a message over ``ZMQ_MAXMSGSIZE``; a bot
    process that exits closes its socket. The caller tells the two apart by
    looking at the process.
    """


class ChannelFault(Exception):
    """A reply that cannot be used: ``kind`` is the fault, ``detail`` says why (for the history)."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True, slots=True)
class HandshakeFailure:
    """Why a peer that had the right secret still cannot play (version mismatch)."""

    detail: str


def transport_limit(max_message_bytes: int) -> int:
    """Largest message libzmq reads from a bot (``ZMQ_MAXMSGSIZE``, bytes); it drops a peer sending more.

    Messages between ``max_message_bytes`` and this are read and judged
    ``oversized``; the margin keeps that verdict exact for any realistic
    mistake while a 50 MB message never reaches memory.
    """
    return max(4 * max_message_bytes, 262_144)


def _shutdown(fd: int) -> bool:
    """``shutdown(2)`` a connection libzmq owns (libzmq then closes it as a departed peer); False if gone."""
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:  # a duplicate: libzmq keeps its own descriptor
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        return False
    return True


def _peer_pid(fd: int) -> int | None:
    """The pid of the process at the other end of a unix-socket descriptor (``SO_PEERCRED``), or None."""
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            if sock.family != socket.AF_UNIX:
                return None
            return _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))[0]
    except OSError:
        return None


def _recv_frames(sock: zmq.Socket[Any]) -> list[bytes] | None:
    """One whole message (every frame: the routing id first) without blocking, or None if none is queued."""
    try:
        frames = [sock.recv(_NOBLOCK)]
        while sock.getsockopt(_RCVMORE):
            frames.append(sock.recv(_NOBLOCK))
    except zmq.Again:
        return None
    return frames


def _describe(msg: Any, rseq: Any) -> str:
    """Short words for an out-of-turn message, e.g. ``"action with seq 7"``."""
    return f"{msg.TYPE!s} with seq {rseq}"


class Connection:
    """One bot's ROUTER socket, its handshake and its request/reply exchange.

    Args:
        ctx: the referee's ZeroMQ context.
        endpoint: where to bind: ``ipc:///private/dir/name`` or ``tcp://127.0.0.1:0``
            (port 0 = any free port; :attr:`endpoint` then holds the real one).
        secret: the seat's secret the bot must present (``HARNESS_SECRET``).
        name: the bot's name, for log lines.
        max_message_bytes: largest message accepted from the bot (bytes).
        log: called with one line of text for every event worth keeping
            (ignored peers, late replies, drops).

    Raises:
        zmq.ZMQError: the endpoint cannot be bound.
    """

    def __init__(
        self,
        ctx: zmq.Context[Any],
        endpoint: str,
        secret: str,
        name: str,
        max_message_bytes: int,
        log: Callable[[str], None],
    ) -> None:
        self.name = name
        self._secret = secret.encode()
        self._max_bytes = max_message_bytes
        self._log = log
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        self.transport_limit = transport_limit(max_message_bytes)
        sock.setsockopt(zmq.MAXMSGSIZE, self.transport_limit)
        # A bot sends one reply per request: a short queue makes a flood stop at the socket.
        sock.setsockopt(zmq.RCVHWM, RCV_HWM)
        # Sending to a vanished peer raises EHOSTUNREACH instead of vanishing silently.
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._monitor = sock.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        self._monitor.setsockopt(zmq.LINGER, 0)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError:
            self._monitor.close()
            sock.close()
            raise
        self.sock = sock
        self.endpoint: str = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        #: Open connections by descriptor, oldest first (from the monitor), the bot's included once known.
        self._peers: dict[int, None] = {}
        #: Messages of the bot read while discarding the others' queue: judged at the first request.
        self._early: list[list[bytes]] = []
        #: Routing ids of connections dropped before the hello: their queued messages are ignored.
        self._banned: set[bytes] = set()
        #: Connections dropped because they did not present the secret, or came too many or too late.
        self.dropped_peers = 0
        #: What a request polls: the bot's socket and its monitor (``zmq_poll`` items, built once).
        self._items = [(sock, _POLLIN), (self._monitor, _POLLIN)]
        self.identity: bytes | None = None
        self._fd: int | None = None
        self.gone = False
        self.failure: HandshakeFailure | None = None
        self._timed_out: set[int] = set()  # requests given up on whose late reply may still come
        self._answered = 0  # highest seq answered or given up on
        self._ignored = 0
        # Out-of-turn messages of the bot since the last take_strays(): words -> count, and the
        # kind of the first (malformed for garbage, illegal for a valid message out of turn).
        self._strays: dict[str, int] = {}
        self._stray_kind: FaultKind | None = None
        self._stray_total = 0
        self._late: list[int] = []  # late replies discarded during the pending request
        #: perf_counter() time the last reply is charged up to (set by :meth:`request`).
        self.answered_at = 0.0
        #: Notifications not queued because the bot stopped reading.
        self.dropped = 0
        self.messages_in = 0
        self.bytes_in = 0

    # ------------------------------------------------------------------ logging

    def _ignore(self, what: str) -> None:
        self._ignored += 1
        if self._ignored <= MAX_IGNORED_LOGGED:
            self._log(f"{self.name}: ignored {what}")
        elif self._ignored == MAX_IGNORED_LOGGED + 1:
            self._log(f"{self.name}: more ignored messages; no longer logging them")

    @property
    def ignored(self) -> int:
        """Messages ignored so far (unauthenticated peers, stale or stray input)."""
        return self._ignored

    # ------------------------------------------------------------------ monitor

    def _drain_monitor(self) -> None:
        """Read pending socket events; mark the channel gone if the bot's peer disconnected."""
        mon = self._monitor
        while mon.getsockopt(_EVENTS) & _POLLIN:  # checked first: an empty read raises, which is slow
            try:
                frames = mon.recv_multipart(_NOBLOCK)
            except zmq.Again:
                return
            except zmq.ZMQError:
                return
            try:
                event = parse_monitor_message(frames)
            except Exception:  # malformed monitor frames cannot come from a bot; be safe
                continue
            kind, fd = event["event"], int(event["value"])
            if kind == _EVENT_ACCEPTED:
                self._peers[fd] = None
                if self.identity is not None:
                    self._drop(fd, "a connection after the bot's hello")
            elif kind == _EVENT_DISCONNECTED:
                self._peers.pop(fd, None)
                if self._fd is not None and fd == self._fd:
                    if not self.gone:
                        self._log(f"{self.name}: connection of the authenticated peer dropped")
                    self.gone = True
                    self._fd = None

    # ------------------------------------------------------------------ unauthenticated peers

    def _drop_identity(self, ident: bytes, frame: zmq.Frame, why: str) -> None:
        """Drop a message's connection and ignore whatever else it queued (it can never authenticate)."""
        if len(self._banned) < 4 * MAX_UNAUTHENTICATED * RCV_HWM:
            self._banned.add(ident)
        self._drop_sender(frame, why)

    def _drop(self, fd: int, why: str) -> None:
        """Close one connection that is not the bot's (never the authenticated one)."""
        if fd == self._fd:
            return
        self._peers.pop(fd, None)
        if _shutdown(fd):
            self.dropped_peers += 1
            self._ignore(f"{why}: dropped")

    def _drop_sender(self, frame: zmq.Frame, why: str) -> None:
        """Drop the connection a message came from, unless its descriptor now belongs to another one.

        An ipc descriptor is checked against the sender's pid (``Peer-Address``
        ends ``:uid:gid:pid``); a tcp one must still be open as the monitor knows it.
        """
        self._drain_monitor()
        try:
            fd = int(frame.get(zmq.SRCFD))
            address = frame.get("Peer-Address")
        except (zmq.ZMQError, ValueError, TypeError):
            self._ignore(why)
            return
        if self.endpoint.startswith("ipc://"):
            sender = address.rsplit(":", 1)[-1]
            same = sender.isdigit() and _peer_pid(fd) == int(sender)
        else:
            same = fd in self._peers
        if same and fd != self._fd:
            self._drop(fd, why)
        else:
            self._ignore(why)

    def _cap_peers(self) -> None:
        """Before the hello: keep at most :data:`MAX_UNAUTHENTICATED` connections, dropping the oldest.

        Every connection still open sent nothing yet (any message but the
        hello drops its sender), and a bot sends its hello as it connects, so
        the oldest silent connections go first. Called after the queued
        messages are read, so a hello that has arrived is never dropped.
        """
        self._drain_monitor()
        while self.identity is None and len(self._peers) > MAX_UNAUTHENTICATED:
            self._drop(next(iter(self._peers)), f"a silent connection beyond {MAX_UNAUTHENTICATED} without the secret")

    def _seal(self) -> None:
        """After the bot's hello: drop every other connection, stop new ones, discard what the others sent.

        The bot's own messages found in the queue are kept for the first
        request (:meth:`_drain_unsolicited` judges them). Runs before any clock.
        """
        if self.endpoint.startswith("ipc://"):
            with contextlib.suppress(OSError):  # nobody can connect any more; the bot is connected
                os.unlink(self.endpoint[len("ipc://"):])
        self._drain_monitor()
        for fd in list(self._peers):
            if fd != self._fd:
                self._drop(fd, "a connection without the secret, at the bot's hello")
        sock = self.sock
        foreign = 0
        for _ in range(MAX_UNAUTHENTICATED * RCV_HWM + MAX_QUEUED_STRAYS):
            if not sock.getsockopt(_EVENTS) & _POLLIN:
                break
            frames = _recv_frames(sock)
            if frames is None:
                break
            if frames[0] == self.identity:
                self._early.append(frames)
            else:
                foreign += 1
        self._banned.clear()
        if foreign:
            self._ignored += foreign
            self._log(f"{self.name}: discarded {foreign} message(s) of peers without the secret")

    # ------------------------------------------------------------------ handshake

    def poll_handshake(self) -> bool:
        """Process what arrived, without blocking, until the bot is authenticated.

        A valid ``hello`` with the right secret and version authenticates its
        peer (answered ``welcome``, then every other connection is dropped:
        :meth:`_seal`); the right secret with another version is answered
        with a fatal ``error`` and recorded in :attr:`failure`. Any other
        message drops the connection it came from, unanswered, and is
        logged. At most :data:`READ_BATCH`
        messages are read per call, so a peer flooding its socket cannot hold
        up the other seats' handshakes (the caller polls again).

        Returns:
            True once authenticated.
        """
        self._drain_monitor()
        sock = self.sock
        for _ in range(READ_BATCH):
            if self.identity is not None or self.failure is not None:
                break
            try:
                frames = sock.recv_multipart(_NOBLOCK, copy=False)
            except zmq.Again:
                break
            ident = frames[0].bytes
            if ident in self._banned:  # queued by a connection already dropped
                self._ignored += 1
                continue
            if len(frames) != 2:
                hint = ""
                if len(frames) == 3 and not frames[1].bytes:
                    # A REQ socket puts an empty delimiter frame before each message.
                    hint = " (an empty first frame, as a REQ socket sends: connect a DEALER, PROTOCOL.md section 1)"
                self._drop_identity(ident, frames[-1], f"a {len(frames) - 1}-part message before hello{hint}")
                continue
            data = frames[1]
            try:
                msg = codec.decode(data.buffer, self._max_bytes)
            except ProtocolError as exc:
                self._drop_identity(ident, data, f"an invalid message before hello ({exc})")
                continue
            if not isinstance(msg, Hello):
                self._drop_identity(ident, data, f"a {type(msg).TYPE!s} message before hello")
                continue
            if not hmac.compare_digest(msg.secret.encode(), self._secret):
                self._drop_identity(ident, data, f"a hello with a wrong secret (name {msg.name[:64]!r})")
                continue
            if msg.v != PROTOCOL_VERSION:
                self.failure = HandshakeFailure(
                    f"speaks protocol version {msg.v}, the referee speaks {PROTOCOL_VERSION}"
                )
                self._send_to(
                    ident,
                    codec.encode(Error(reason="version_mismatch", message=self.failure.detail)),
                )
                break
            self.identity = ident
            self._fd = int(data.get(zmq.SRCFD))
            self._send_to(ident, codec.encode(Welcome()))
            self._seal()
        if self.identity is None:
            self._cap_peers()
        return self.identity is not None

    @property
    def poller_items(self) -> tuple[zmq.Socket[Any], zmq.Socket[Any]]:
        """The sockets to poll while waiting for this bot's hello."""
        return self.sock, self._monitor

    # ------------------------------------------------------------------ sending

    def _send_to(self, ident: bytes, payload: bytes) -> bool:
        try:
            sock = self.sock
            _send(sock, ident, _MORE_NOBLOCK)  # two plain sends: send_multipart costs enum arithmetic per call
            _send(sock, payload, _NOBLOCK)
            return True
        except zmq.Again:
            self.dropped += 1
            if self.dropped <= MAX_IGNORED_LOGGED:
                self._log(f"{self.name}: message dropped, the bot is not reading (queue full)")
        except zmq.ZMQError:
            self._log(f"{self.name}: message dropped, the peer is gone")
            if ident == self.identity:
                self.gone = True
        return False

    def send(self, payload: bytes) -> bool:
        """Send a notification (no reply expected); never blocks.

        Returns:
            False if it could not be queued (peer gone, or not reading).
        """
        if self.identity is None or self.gone:
            return False
        return self._send_to(self.identity, payload)

    # ------------------------------------------------------------------ requests

    def request(
        self,
        payload: bytes,
        seq: int,
        expect: type,
        deadline: Callable[[], int],
        is_dead: Callable[[], bool] | None = None,
        after_send: Callable[[], None] | None = None,
    ) -> ActionReply | DiscardReply:
        """Send one request and wait for its reply until the decision's deadline.

        Messages the bot sent out of turn meanwhile are counted, not raised:
        read them with :meth:`take_strays` after the call, whatever its outcome.
        :attr:`answered_at` is set to the time the reply (or the faulty message
        that ended the request) is charged up to.

        Args:
            payload: the encoded ``act``/``draw`` request carrying ``seq``.
            seq: the request's sequence number (increasing per connection).
            expect: the reply class, :class:`ActionReply` or :class:`DiscardReply`.
            deadline: returns the whole ms left before the deadline (0 = past it);
                :meth:`harness.match.clock.Clock.remaining_ms`.
            is_dead: optional check that the bot's process has ended (called
                between poll slices, to notice a crash whose socket stays open).
            after_send: optional work to do while the bot thinks (called once,
                right after the request is queued; the referee writes the
                previous hand's record there). The bot is never charged for it:
                a reply found waiting afterwards counts as on time.

        Returns:
            The decoded reply echoing ``seq``.

        Raises:
            Disconnected: the peer is gone (before or while waiting).
            ChannelFault: timeout, malformed, illegal (a ``seq`` that answers no
                request, a flood of messages before the request) or oversized
                reply; the kind and the detail for the hand history.
        """
        # A vanished peer shows up below: the send fails (ROUTER_MANDATORY) or the
        # monitor socket wakes the poll; no monitor read is needed on the hot path.
        ident = self.identity
        if self.gone or ident is None:
            raise Disconnected(self.name)
        sock = self.sock
        if self._late:
            self._late = []
        if self._early or sock.getsockopt(_EVENTS) & _POLLIN:
            # Whatever is queued was sent before this request existed: it cannot answer it,
            # even if it guessed the seq (PROTOCOL.md: requests are answered, never anticipated).
            self._drain_unsolicited(seq, deadline)
        try:
            _send(sock, ident, _MORE_NOBLOCK)
            _send(sock, payload, _NOBLOCK)
        except zmq.Again:
            self._give_up(seq)
            self.answered_at = _now()
            raise ChannelFault(
                FaultKind.TIMEOUT, "request not delivered: the bot is not reading its messages"
            ) from None
        except zmq.ZMQError:
            self.gone = True
            raise Disconnected(self.name) from None
        # The last moment the queue is known to hold no reply: the bot is charged from
        # here at least, never for the referee's own work (after_send, being descheduled).
        known_empty = _now()
        # True when the referee did work since known_empty (the queue must be looked at
        # before polling, so that what arrived meanwhile is charged up to known_empty).
        busy = False
        watched = False  # True while the last poll returned on time with nothing queued
        if after_send is not None:
            after_send()
            busy = True
        items = self._items
        getsockopt = sock.getsockopt
        while True:
            left = deadline()
            if left <= 0:
                reply = self._last_look(seq, expect, watched, known_empty)
                if reply is not None:
                    return reply
                self._give_up(seq)
                raise ChannelFault(FaultKind.TIMEOUT, self._timeout_detail(seq))
            if busy:
                if getsockopt(_EVENTS) & _POLLIN:
                    # Queued while the referee was not looking: it arrived after known_empty at the earliest.
                    reply = self._read(seq, expect, known_empty)
                    if reply is not None:
                        return reply
                    known_empty = _now()
                    watched = False
                    continue
                known_empty = _now()
                busy = False
            # Nothing but this loop ran since known_empty: the poll starts from a queue known empty.
            entered = known_empty
            asked = left if left < POLL_SLICE_MS else POLL_SLICE_MS
            # Wait at most until the deadline (zmq_poll is level-triggered: a queued reply returns at once).
            events = _zmq_poll(items, asked)
            back = _now()
            on_time = (back - entered) * 1000.0 <= asked + OVERSLEEP_MS
            if len(events) != 1 or events[0][0] is not sock:  # quiet slice, or a socket event
                self._drain_monitor()
                if self.gone or (not events and is_dead is not None and is_dead()):
                    self.gone = True
                    raise Disconnected(self.name)
                if not getsockopt(_EVENTS) & _POLLIN:
                    watched = on_time
                    if on_time:
                        known_empty = back
                    else:  # the referee was not running: look before the next poll, charge from known_empty
                        busy = True
                    continue
            # Arrived during the poll: at its return if the referee was running, else any time in it.
            arrived = back if on_time else entered
            # The common case, inline: one message from the bot, of one frame (a routing id and
            # the frame: a ROUTER message has both); anything else goes through _take as well.
            try:
                first = sock.recv(_NOBLOCK)
                frames = [first, sock.recv(_NOBLOCK)]
            except zmq.Again:
                frames = None
            if frames is not None:
                while getsockopt(_RCVMORE):
                    frames.append(sock.recv(_NOBLOCK))
                reply = self._judge(frames, seq, expect, arrived)
                if reply is not None:
                    return reply
                # Not the reply (counted or discarded): the rest of the queue, as it stands.
                reply = self._read(seq, expect, arrived)
                if reply is not None:
                    return reply
            known_empty = _now()
            busy = True  # the referee read messages: look again before the next poll
            watched = False

    def _judge(
        self, frames: list[bytes], seq: int, expect: type, arrived: float
    ) -> ActionReply | DiscardReply | None:
        """One message read while ``seq`` is pending: its reply (charged up to ``arrived``) or None.

        Raises:
            ChannelFault: the message fails the request (charged up to ``arrived``).
        """
        try:
            reply = self._take(frames, seq, expect)
        except ChannelFault:
            self.answered_at = arrived
            self._give_up(seq)  # a correct second try would answer nothing
            raise
        if reply is not None:
            self.answered_at = arrived
        return reply

    def _read(self, seq: int, expect: type, arrived: float) -> ActionReply | DiscardReply | None:
        """Read up to :data:`READ_BATCH` queued messages while ``seq`` is pending.

        Returns the reply (charged up to ``arrived``), or None when none of them
        answered; raises ChannelFault for a message that fails the request.
        """
        sock = self.sock
        getsockopt = sock.getsockopt
        for _ in range(READ_BATCH):
            frames = _recv_frames(sock)
            if frames is None:
                return None
            reply = self._judge(frames, seq, expect, arrived)
            if reply is not None:
                return reply
            if not getsockopt(_EVENTS) & _POLLIN:
                return None
        return None

    def _last_look(
        self, seq: int, expect: type, watched: bool, known_empty: float
    ) -> ActionReply | DiscardReply | None:
        """At the deadline: take a reply that is already there, so that only a bot that is late is late.

        If the referee was not watching as the deadline passed (``watched``
        False), libzmq's I/O thread gets :data:`LATE_GRACE_MS` to hand over
        what arrived meanwhile; while the kernel holds bytes of the bot that
        libzmq has not read yet, the look lasts up to :data:`LATE_KERNEL_MS`.
        Bounded: at most a few batches of messages are read.
        """
        sock = self.sock
        start = _now()
        grace_end = start + (0.0 if watched else LATE_GRACE_MS / 1000.0)
        kernel_end = start + LATE_KERNEL_MS / 1000.0
        batches = 0
        while True:
            if sock.getsockopt(_EVENTS) & _POLLIN:
                if batches == _LATE_BATCHES:  # still flooding: the bot has had its chance
                    return None
                batches += 1
                reply = self._read(seq, expect, known_empty)
                if reply is not None:
                    return reply
                continue
            self._drain_monitor()
            if self.gone:
                raise Disconnected(self.name)
            now = _now()
            if now < grace_end:
                sock.poll(max(1, int((grace_end - now) * 1000.0)))
            elif now < kernel_end and self._kernel_pending():
                sock.poll(5)
            else:
                return None

    def _kernel_pending(self) -> bool:
        """True when the kernel holds bytes from the bot that libzmq has not read yet (``FIONREAD``)."""
        fd = self._fd
        if fd is None:
            return False
        try:
            return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0] > 0
        except OSError:
            return False

    def _timeout_detail(self, seq: int) -> str:
        detail = f"no reply with seq {seq} within the time limit"
        if self._late:
            seqs = ", ".join(map(str, self._late[:5])) + (", ..." if len(self._late) > 5 else "")
            detail += f" (meanwhile late replies to earlier requests arrived and were discarded: seq {seqs})"
        return detail

    def _drain_unsolicited(self, seq: int, deadline: Callable[[], int]) -> None:
        """Judge the messages queued while no request was pending (late, out of turn, garbage).

        Raises:
            ChannelFault: more than :data:`MAX_QUEUED_STRAYS` messages of the bot are
                queued (a flood), or the deadline passed while reading them: the
                request ``seq`` fails unsent.
        """
        sock = self.sock
        own = 0  # the bot's own messages (an unauthenticated peer's are only ignored)
        early, self._early = self._early, []
        for _ in range(4 * MAX_QUEUED_STRAYS + len(early)):
            if early:
                frames = early.pop(0)  # read at the hello, before the queue
            else:
                if not sock.getsockopt(_EVENTS) & _POLLIN or deadline() <= 0:
                    return  # past the deadline the request goes out and times out: the bot pays
                frames = _recv_frames(sock)
                if frames is None:
                    return
            if frames[0] == self.identity:
                own += 1
                if own > MAX_QUEUED_STRAYS:
                    self._give_up(seq)
                    self.answered_at = _now()
                    raise ChannelFault(
                        FaultKind.ILLEGAL,
                        f"flood: more than {MAX_QUEUED_STRAYS} messages sent out of turn were waiting; request "
                        f"{seq} was not sent (a bot sends one reply per request and nothing else)",
                    )
            try:
                self._take(frames, None, None)
            except ChannelFault as fault:
                self._stray(fault.kind, f"{fault.kind.value} message ({fault.detail})")

    def _give_up(self, seq: int) -> None:
        self._timed_out.add(seq)
        self._answered = max(self._answered, seq)

    def _stray(self, kind: FaultKind, words: str) -> None:
        """Count one out-of-turn message of the bot under ``words``."""
        self._stray_total += 1
        if len(words) > 160:  # a bot's text inside a detail: keep records small
            words = words[:157] + "..."
        if self._stray_kind is None:
            self._stray_kind = kind
        strays = self._strays
        if words in strays or len(strays) < MAX_STRAY_KINDS:
            strays[words] = strays.get(words, 0) + 1
        else:
            strays["other"] = strays.get("other", 0) + 1

    def take_strays(self) -> ChannelFault | None:
        """The messages the bot sent out of turn since the last call, as one fault (or None).

        Its kind is the first message's (``malformed`` for garbage, ``illegal``
        for a valid message out of turn, ``oversized``); its detail gives the
        count and what they were, e.g. ``"12 messages out of turn: hello x10,
        action with seq 4 (a second reply) x2"``. The referee records at most
        one such fault per request (PROTOCOL.md section 8).
        """
        if not self._stray_total:
            return None
        total, kind = self._stray_total, self._stray_kind
        what = ", ".join(f"{words} x{n}" if n > 1 else words for words, n in self._strays.items())
        self._strays = {}
        self._stray_kind = None
        self._stray_total = 0
        noun = "message" if total == 1 else "messages"
        return ChannelFault(kind or FaultKind.ILLEGAL, f"{total} {noun} out of turn: {what}")

    def _take(self, frames: list[bytes], seq: int | None, expect: type | None) -> Any:
        """Judge one incoming message while ``seq`` is pending (None: no request pending).

        Returns the reply for ``seq``, or None if the message was discarded or
        counted as out of turn. Raises ChannelFault for a message that fails
        the pending request: malformed, oversized, or a ``seq`` that answers no
        request (a message that fails nothing when no request is pending).
        """
        if frames[0] != self.identity:
            self._ignore("a message from a peer that did not present the secret")
            return None
        if len(frames) != 2:
            raise ChannelFault(FaultKind.MALFORMED, f"a {len(frames) - 1}-part message (send one frame per message)")
        data = frames[1]
        self.messages_in += 1
        self.bytes_in += len(data)
        if len(data) > self._max_bytes:
            raise ChannelFault(FaultKind.OVERSIZED, f"{len(data)} bytes exceeds the limit {self._max_bytes}")
        try:
            msg = codec.decode_reply(data, self._max_bytes)
        except ProtocolError as exc:
            raise ChannelFault(FaultKind.MALFORMED, str(exc)) from None
        if isinstance(msg, Hello):
            self._stray(FaultKind.ILLEGAL, "hello (a second one)")
            return None
        rseq = getattr(msg, "seq", None)
        if seq is not None and rseq == seq:
            if type(msg) is not expect:
                raise ChannelFault(
                    FaultKind.MALFORMED,
                    f"a {msg.TYPE!s} reply to a {'act' if expect is ActionReply else 'draw'} request",
                )
            self._answered = seq
            return msg
        if rseq in self._timed_out:
            self._timed_out.discard(rseq)
            self._log(f"{self.name}: late reply to request {rseq} discarded")
            if seq is not None:
                self._late.append(rseq)
            return None
        if type(rseq) is int and 0 < rseq <= self._answered:
            self._stray(FaultKind.ILLEGAL, f"{_describe(msg, rseq)} (a second reply)")
            return None
        if seq is not None and type(rseq) is int:
            # Answers no request ever sent: the bot's reply to the pending one, with a wrong seq.
            raise ChannelFault(
                FaultKind.ILLEGAL,
                f"a reply with seq {rseq}, but the pending request is seq {seq}: echo the request's seq",
            )
        self._stray(FaultKind.ILLEGAL, f"{_describe(msg, rseq)} (no such request)")
        return None

    # ------------------------------------------------------------------ end

    def close(self) -> None:
        """Close the socket and its monitor (LINGER=0: never waits). Idempotent."""
        if not self.sock.closed:
            try:
                self.sock.disable_monitor()
            except zmq.ZMQError:
                pass
            self._monitor.close(0)
            self.sock.close(0)
