"""The referee's side of one bot's channel (PROTOCOL.md "Transport", DESIGN.md "Referee promises").

Per bot the referee binds a ZeroMQ ROUTER on a private endpoint (an ipc path
in a private 0700 directory, or tcp on loopback); the bot connects a DEALER
and proves itself with ``hello`` carrying the per-match secret. From then on
only that peer (its ROUTER routing id) is listened to: anything from another
peer on the same endpoint is ignored and logged, so a process without the
secret can neither block nor impersonate the bot.

Guards, all per message, none trusting the bot:

- size: ``ZMQ_MAXMSGSIZE`` makes libzmq drop a peer that sends more than
  ``max_message_bytes`` before buffering it, so a 50 MB reply never reaches
  memory; the socket monitor reports the drop as a disconnection of that
  peer's file descriptor (known from the ``hello``'s ``ZMQ_SRCFD``). Frame
  lengths are checked here as well.
- time: one deadline per decision (from :class:`harness.match.clock.Clock`);
  polling asks only for what remains, in whole milliseconds, so a flooding
  bot cannot extend it.
- order: every request carries ``seq``; a reply must echo it. A reply to a
  request that timed out is discarded (never applied to a later request);
  any other reply that answers nothing is an "illegal" fault (acting out of
  turn or twice).
- LINGER=0 on every socket, so closing never waits on a dead bot.
"""

from __future__ import annotations

import hmac
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

# Plain ints: pyzmq's enum flags cost an enum operation per call on the hot path.
_NOBLOCK = int(zmq.NOBLOCK)
_MORE_NOBLOCK = int(zmq.SNDMORE) | _NOBLOCK
_POLLIN = int(zmq.POLLIN)
_EVENTS = int(zmq.EVENTS)
_RCVMORE = int(zmq.RCVMORE)
_EVENT_DISCONNECTED = int(zmq.EVENT_DISCONNECTED)


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


class Connection:
    """One bot's ROUTER socket, its handshake and its request/reply exchange.

    Args:
        ctx: the referee's ZeroMQ context.
        endpoint: where to bind: ``ipc:///private/dir/name`` or ``tcp://127.0.0.1:0``
            (port 0 = any free port; :attr:`endpoint` then holds the real one).
        secret: the per-match secret the bot must present (``HARNESS_SECRET``).
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
        sock.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
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
        self._poller = zmq.Poller()
        self._poller.register(sock, _POLLIN)
        self._poller.register(self._monitor, _POLLIN)
        self.identity: bytes | None = None
        self._fd: int | None = None
        self.gone = False
        self.failure: HandshakeFailure | None = None
        self._timed_out: set[int] = set()
        self._answered = 0  # highest seq answered or given up on
        self._ignored = 0
        #: Faults noticed outside a pending request (out-of-turn replies): drained by the referee.
        self.strays: list[ChannelFault] = []
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
            if event["event"] == _EVENT_DISCONNECTED and self._fd is not None and event["value"] == self._fd:
                if not self.gone:
                    self._log(f"{self.name}: connection of the authenticated peer dropped")
                self.gone = True
                self._fd = None

    # ------------------------------------------------------------------ handshake

    def poll_handshake(self) -> bool:
        """Process whatever arrived, without blocking, until the bot is authenticated.

        A valid ``hello`` with the right secret and version authenticates its
        peer (answered ``welcome``); the right secret with another version is
        answered with a fatal ``error`` and recorded in :attr:`failure`.
        Everything else is ignored and logged.

        Returns:
            True once authenticated.
        """
        self._drain_monitor()
        sock = self.sock
        while self.identity is None and self.failure is None:
            try:
                frames = sock.recv_multipart(_NOBLOCK, copy=False)
            except zmq.Again:
                break
            ident = frames[0].bytes
            if len(frames) != 2:
                self._ignore(f"a {len(frames) - 1}-part message before hello")
                continue
            data = frames[1]
            try:
                msg = codec.decode(data.buffer, self._max_bytes)
            except ProtocolError as exc:
                self._ignore(f"an invalid message before hello ({exc})")
                continue
            if not isinstance(msg, Hello):
                self._ignore(f"a {type(msg).TYPE!s} message before hello")
                continue
            if not hmac.compare_digest(msg.secret.encode(), self._secret):
                self._ignore(f"a hello with a wrong secret (name {msg.name!r})")
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
        return self.identity is not None

    @property
    def poller_items(self) -> tuple[zmq.Socket[Any], zmq.Socket[Any]]:
        """The sockets to poll while waiting for this bot's hello."""
        return self.sock, self._monitor

    # ------------------------------------------------------------------ sending

    def _send_to(self, ident: bytes, payload: bytes) -> bool:
        try:
            sock = self.sock
            sock.send(ident, _MORE_NOBLOCK)  # two plain sends: send_multipart costs enum arithmetic per call
            sock.send(payload, _NOBLOCK)
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
                previous hand's record there).

        Returns:
            The decoded reply echoing ``seq``.

        Raises:
            Disconnected: the peer is gone (before or while waiting).
            ChannelFault: timeout, malformed or oversized reply (kind and detail).
        """
        # A vanished peer shows up below: the send fails (ROUTER_MANDATORY) or the
        # monitor socket wakes the poll; no monitor read is needed on the hot path.
        ident = self.identity
        if self.gone or ident is None:
            raise Disconnected(self.name)
        sock = self.sock
        if sock.getsockopt(_EVENTS) & _POLLIN:
            # Whatever is queued was sent before this request existed: it cannot answer it,
            # even if it guessed the seq (PROTOCOL.md: requests are answered, never anticipated).
            self._drain_unsolicited()
        try:
            sock.send(ident, _MORE_NOBLOCK)
            sock.send(payload, _NOBLOCK)
        except zmq.Again:
            self._give_up(seq)
            raise ChannelFault(
                FaultKind.TIMEOUT, "request not delivered: the bot is not reading its messages"
            ) from None
        except zmq.ZMQError:
            self.gone = True
            raise Disconnected(self.name) from None
        if after_send is not None:
            after_send()
        poll = self._poller.poll
        getsockopt = sock.getsockopt
        recv = sock.recv
        while True:
            left = deadline()
            if left <= 0:
                self._give_up(seq)
                raise ChannelFault(FaultKind.TIMEOUT, "no reply within the time limit")
            # Wait at most until the deadline (zmq_poll is level-triggered: a queued reply returns at once).
            events = poll(left if left < POLL_SLICE_MS else POLL_SLICE_MS)
            if len(events) != 1 or events[0][0] is not sock:  # quiet slice, or a socket event
                self._drain_monitor()
                if self.gone or (not events and is_dead is not None and is_dead()):
                    self.gone = True
                    raise Disconnected(self.name)
                if not getsockopt(_EVENTS) & _POLLIN:
                    continue
            try:
                frames = [recv(_NOBLOCK)]
                while getsockopt(_RCVMORE):
                    frames.append(recv(_NOBLOCK))
            except zmq.Again:
                continue
            try:
                reply = self._take(frames, seq, expect)
            except ChannelFault:
                self._give_up(seq)  # a correct second try would answer nothing
                raise
            if reply is not None:
                return reply

    def _drain_unsolicited(self) -> None:
        """Judge every queued message while no request is pending (late, out of turn, garbage)."""
        sock = self.sock
        while sock.getsockopt(_EVENTS) & _POLLIN:
            try:
                frames = [sock.recv(_NOBLOCK)]
                while sock.getsockopt(_RCVMORE):
                    frames.append(sock.recv(_NOBLOCK))
            except zmq.Again:
                return
            try:
                self._take(frames, None, None)
            except ChannelFault as fault:
                self.strays.append(fault)

    def _give_up(self, seq: int) -> None:
        self._timed_out.add(seq)
        self._answered = max(self._answered, seq)

    def _take(self, frames: list[bytes], seq: int | None, expect: type | None) -> Any:
        """Judge one incoming message while ``seq`` is pending (None: no request pending).

        Returns the reply for ``seq``, or None if the message was discarded.
        Raises ChannelFault for a malformed or oversized reply.
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
            self._ignore("a second hello")
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
            return None
        # Answers nothing: a second reply, a reply to a future request, or a bot message type.
        self.strays.append(ChannelFault(FaultKind.ILLEGAL, f"acted out of turn (message {msg.TYPE!s} with seq {rseq})"))
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
