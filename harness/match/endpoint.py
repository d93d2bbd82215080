"""The referee's side of one bot's channel (PROTOCOL.md "Transport").

The referee speaks ZMTP 3.1 itself (:mod:`harness.match.zmtp`): per bot it
listens on a private endpoint (a Unix socket in a directory of its own,
``ipc://``, or tcp on loopback) and plays a ZeroMQ ``ROUTER`` towards the
bot's ``DEALER`` (any ZeroMQ library: the wire is ZeroMQ's). Every socket of
every seat is non-blocking and watched by one ``epoll`` in the referee's main
thread (:class:`Hub`); no other thread reads them. The bot proves itself
with ``hello`` carrying its seat's secret; from then on only that
connection is listened to, so a process without the secret can neither
block nor impersonate the bot.

Unauthenticated peers: a connection whose first message is not a ``hello``
with the seat's secret is closed at once (never answered), at most
:data:`MAX_UNAUTHENTICATED` silent connections are kept open before the
bot's hello (the oldest go first), and once the bot is authenticated every
other connection is closed and the listening socket too (the ipc path is
unlinked), before any clock runs. Before its hello a peer's frames are at
most :data:`HELLO_FRAME_LIMIT` bytes.

Bounds, all checked as the bytes arrive, all the sender's fault:

- bytes per frame: a message over ``max_message_bytes`` is skipped unread
  and judged ``oversized`` (the bot stays in); a frame announcing more than
  :func:`transport_limit` (4x the limit, at least 256 KiB: far beyond any
  mistake) is a fatal ``oversized`` fault, seen at its header.
- frames per message: the protocol's messages are one frame; a frame with
  the MORE flag is a fatal ``malformed`` fault (nothing of it is kept).
- anything that is not ZMTP (a bad greeting, reserved flag bits, a command
  with MORE) is a fatal ``malformed`` fault.
- command frames (PING, SUBSCRIBE, anything) cost a token of a bucket of
  :data:`COMMAND_BURST` refilled at :data:`COMMANDS_PER_S`: more is a fatal
  ``illegal`` fault (a flood). PING is answered with PONG (ZMTP 3.1).
- messages out of turn: at most :data:`MAX_QUEUED_STRAYS` between two
  requests (more is a flood: the next request fails unsent, and the seat's
  socket is not read until then); messages read while a request is pending
  cost the bot's own deadline.
- what the referee queues for a bot that does not read is at most
  :data:`OUT_LIMIT` bytes (then notifications are dropped and a request is
  a ``timeout``, as the bot is not reading).

A fatal fault closes the sender's connection at once (its bytes are no
longer read) and the bot is put out (:attr:`Connection.violation`, raised by
its next :meth:`Connection.request`, or taken by the referee through
:attr:`Hub.pending` if it came while another seat was on move: it is never
charged to that seat). The referee's memory per seat is thus fixed: per
connection one read of :data:`READ_CHUNK` bytes, one partial frame of at
most ``max_message_bytes`` + 9 (:data:`HELLO_FRAME_LIMIT` before the hello),
and at most :data:`OUT_LIMIT` bytes queued out, for at most
:data:`MAX_UNAUTHENTICATED` + 1 connections before the hello and one after
(:func:`memory_bound`).

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
- clock: a reply that arrived before the deadline is never late. At the
  deadline the referee reads once more what the kernel holds; the time
  charged ends when the reply is known to have arrived, or, when the
  referee was not watching (writing a record, collecting garbage,
  descheduled or stopped), at the last moment it knew no reply had come
  (:attr:`Connection.answered_at`).
"""


from __future__ import annotations

import contextlib
import hmac
import os
import select
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.errors import HarnessError
from harness.match import zmtp
from harness.match.trace import SeatTrace
from harness.specs import FaultKind
from protocol import codec
from protocol.errors import ProtocolError
from protocol.messages import Error, Hello, Message, Welcome
from protocol.version import PROTOCOL_VERSION

#: Longest single poll while waiting (ms): between slices the bot's process is checked.
POLL_SLICE_MS = 50
#: After a request timed out, the bot's next request waits up to this many decision times for its late
#: reply before it is sent (once per stall; PROTOCOL.md section 8): one slow decision is one timeout, not
#: one per request that its stall overlapped.
CATCH_UP_DECISIONS = 5
#: Ignored messages logged per connection before the log goes quiet (then only counted).
MAX_IGNORED_LOGGED = 20
#: Most messages of the bot read between two requests; a bot only ever answers requests,
#: so more than this is a flood.
MAX_QUEUED_STRAYS = 64
#: Messages read per batch while a request is pending, between deadline checks.
READ_BATCH = 64
#: Longest wait at the deadline for the rest of a reply whose first bytes have come (ms).
LATE_KERNEL_MS = 200
#: A poll that returns this much later than asked (ms) means the referee was not running.
OVERSLEEP_MS = 5
#: Batches of messages read in the look at the deadline, at most.
LATE_BATCHES = 4
#: Kinds of out-of-turn message told apart in a fault's detail (more are counted as "other").
MAX_STRAY_KINDS = 6
#: Connections kept open before the bot's hello; more are dropped as they are accepted.
MAX_UNAUTHENTICATED = 4
#: Largest frame of a peer before its hello (bytes): a hello is a few hundred.
HELLO_FRAME_LIMIT = 8192
#: Bytes read from a socket at once.
READ_CHUNK = 65536
#: Most bytes queued for one connection that the bot has not read yet.
OUT_LIMIT = 1 << 20
#: Command frames a peer may send at once, and how many more per second (heartbeats every 10 ms pass).
COMMAND_BURST = 64
COMMANDS_PER_S = 100.0

_now = time.perf_counter
_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL
_EV_MESSAGE = zmtp.EV_MESSAGE
_GREETING_READY = zmtp.GREETING + zmtp.ready(b"ROUTER")
#: Headers of the short message frames (zmtp.frame), by body size.
SHORT_HEADS = [bytes((0, n)) for n in range(256)]
try:  # the native core's twins of the ZMTP parser and the reply decoder, when the crate is built
    from harness.match import native_wire
except ImportError:
    native_wire = None  # type: ignore[assignment]
#: The ZMTP parser of each peer: ``Parser(frame_limit, skip_limit)`` (:class:`harness.match.zmtp.Parser`'s API).
_Parser: Any = zmtp.Parser if native_wire is None else native_wire.Parser
#: A bot's reply while it decides: :func:`protocol.codec.decode_reply`, the same message or error.
read_reply: Callable[[bytes, int], Message] = (
    codec.decode_reply if native_wire is None else native_wire.decode_reply
)


class Disconnected(HarnessError):
    """The authenticated peer's connection is gone (the bot exited or closed its socket)."""


class ChannelFault(HarnessError):
    """A reply that cannot be used: ``kind`` is the fault, ``detail`` says why (for the history).

    ``fatal``: the bot broke a bound of the transport (its connection is closed): put it out.
    """

    def __init__(self, kind: FaultKind, detail: str, fatal: bool = False) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.fatal = fatal


@dataclass(frozen=True, slots=True)
class HandshakeFailure:
    """Why a peer that had the right secret still cannot play: a version mismatch, or a hello that holds
    the secret but that the codec cannot read (its error names a wrong encoding and the fix)."""

    detail: str


def transport_limit(max_message_bytes: int) -> int:
    """Largest frame skipped as a mere ``oversized`` message (bytes); a frame announcing more is fatal.

    Messages between ``max_message_bytes`` and this are skipped unread and
    judged ``oversized``; the margin keeps that verdict for any realistic
    mistake while a 50 MB message is refused at its header.
    """
    return max(4 * max_message_bytes, 262_144)


def memory_bound(max_message_bytes: int) -> int:
    """The most memory (bytes) the transport holds for one seat, whatever its peers send.

    Before the hello: :data:`MAX_UNAUTHENTICATED` + 1 connections of one read
    and one partial frame under :data:`HELLO_FRAME_LIMIT`; after: one
    connection with a frame under ``max_message_bytes``; each with
    :data:`OUT_LIMIT` queued out. Python objects' own overhead (a few KiB per
    connection) comes on top.
    """
    before = (MAX_UNAUTHENTICATED + 1) * (READ_CHUNK + HELLO_FRAME_LIMIT + 9 + OUT_LIMIT)
    after = READ_CHUNK + max_message_bytes + 9 + OUT_LIMIT
    return max(before, after)


class Hub:
    """One ``epoll`` over every socket of every seat, in the referee's main thread.

    Each socket's owner registers a handler, called as ``handler(fd, events)``
    when the socket is ready; :meth:`poll` returns what is ready without
    calling anything, :meth:`dispatch` hands one ready socket to its owner.
    :attr:`pending` lists connections whose bot broke a bound while it was
    not on move (the referee records the fault and puts it out).

    epoll rather than poll: the sockets are registered once (and changed
    only when a queue out starts or ends), not handed to the kernel on
    every wait; events are the ``select.POLL*`` bits (epoll's have the
    same values). Level-triggered, as poll.
    """

    __slots__ = ("_poll", "_handlers", "pending")

    def __init__(self) -> None:
        self._poll = select.epoll()
        self._handlers: dict[int, Callable[[int, int], None]] = {}
        self.pending: list[Endpoint] = []

    def add(self, fd: int, handler: Callable[[int, int], None], events: int = _POLLIN) -> None:
        self._handlers[fd] = handler
        self._poll.register(fd, events)

    def modify(self, fd: int, events: int) -> None:
        if fd in self._handlers:
            self._poll.modify(fd, events)

    def remove(self, fd: int) -> None:
        if self._handlers.pop(fd, None) is not None:
            with contextlib.suppress(OSError, ValueError):  # already closed: the kernel dropped it
                self._poll.unregister(fd)

    def poll(self, timeout_ms: int) -> list[tuple[int, int]]:
        """The sockets ready within ``timeout_ms`` (ms; 0 or less: now, no wait: a deadline already past never
        becomes epoll's negative "wait for ever")."""
        return self._poll.poll(timeout_ms / 1000.0 if timeout_ms > 0 else 0)  # PEP 475: EINTR is retried

    @property
    def wait(self) -> Callable[[float], list[tuple[int, int]]]:
        """:meth:`poll` taking seconds, with no wrapper (the request loop's one call per wait)."""
        return self._poll.poll

    def dispatch(self, fd: int, events: int) -> None:
        handler = self._handlers.get(fd)
        if handler is not None:
            handler(fd, events)

    def serve(self, timeout_ms: int) -> bool:
        """Wait up to ``timeout_ms`` and hand every ready socket to its owner; True if any was."""
        ready = self.poll(timeout_ms)
        for fd, ev in ready:
            self.dispatch(fd, ev)
        return bool(ready)

    def close(self) -> None:
        """Release the epoll descriptor (idempotent); the sockets are their owners' to close."""
        self._poll.close()


class Peer:
    """One accepted connection: its socket, parser, what is queued out, and its command tokens."""

    __slots__ = ("sock", "fd", "parser", "out", "ready", "eof", "tokens", "refilled", "peer_pid")

    def __init__(self, sock: socket.socket, frame_limit: int, skip_limit: int) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.parser = _Parser(frame_limit, skip_limit)
        self.out = bytearray()
        self.ready = False  # the NULL handshake is done
        self.eof = False
        self.tokens = float(COMMAND_BURST)
        self.refilled = _now()


def _bind(endpoint: str) -> tuple[socket.socket, str]:
    """A non-blocking listening socket for ``ipc://PATH`` or ``tcp://HOST:PORT`` and its real endpoint.

    Raises:
        OSError: it cannot be bound. ValueError: not an ipc or tcp endpoint.
    """
    if endpoint.startswith("ipc://"):
        path = endpoint[len("ipc://"):]
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        real = endpoint
    elif endpoint.startswith("tcp://"):
        host, _, port = endpoint[len("tcp://"):].rpartition(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((host, int(port)))
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        real = f"tcp://{host}:{sock.getsockname()[1]}"
    else:
        raise ValueError(f"endpoint {endpoint!r}: ipc:// or tcp:// expected")
    sock.setblocking(False)
    return sock, real


def describe_stray(msg: Any, rseq: Any) -> str:
    """Short words for an out-of-turn message, e.g. ``"action with seq 7"``."""
    return f"{msg.TYPE!s} with seq {rseq}"


class Endpoint:
    """One bot's endpoint and its handshake, in ZMTP (module docstring); :class:`harness.match.connection.Connection`
    adds the request/reply exchange.

    Args:
        endpoint: where to listen: ``ipc:///private/dir/name`` or ``tcp://127.0.0.1:0``
            (port 0 = any free port; :attr:`endpoint` then holds the real one).
        secret: the seat's secret the bot must present (``HARNESS_SECRET``).
        name: the bot's name, for log lines.
        max_message_bytes: largest message accepted from the bot (bytes).
        log: called with one line of text for every event worth keeping
            (ignored peers, late replies, drops).
        hub: the poll shared by every seat of the match (default: one of its own).

    Raises:
        OSError: the endpoint cannot be bound.
        ValueError: the endpoint is neither ipc:// nor tcp://.
    """

    def __init__(
        self,
        endpoint: str,
        secret: str,
        name: str,
        max_message_bytes: int,
        log: Callable[[str], None],
        hub: Hub | None = None,
    ) -> None:
        self.name = name
        self._secret = secret.encode()
        self._max_bytes = max_message_bytes
        self._log = log
        self._own_hub = hub is None  # closed with this connection
        self.hub = hub if hub is not None else Hub()
        self.transport_limit = transport_limit(max_message_bytes)
        self._listener: socket.socket | None
        self._listener, self.endpoint = _bind(endpoint)
        self._tcp = self.endpoint.startswith("tcp://")
        self._listener_fd = self._listener.fileno()
        self.hub.add(self._listener_fd, self._on_event)
        #: The seat's part of the match's wire trace (:mod:`harness.match.trace`); None: off (the default).
        self.trace: SeatTrace | None = None
        #: Connections that have not said hello, by descriptor, oldest first.
        self._peers: dict[int, Peer] = {}
        self._bot: Peer | None = None
        #: Connections dropped because they did not present the secret, or came too many or too late.
        self.dropped_peers = 0
        #: Why the last of them was dropped (for a failed start's detail).
        self.last_drop = ""
        #: The bot's Identity (ZMTP READY property, b"" if none) once it said hello; None before.
        self.identity: bytes | None = None
        self.gone = False
        self.failure: HandshakeFailure | None = None
        #: A bound of the transport the bot broke (fatal), not yet reported; see :meth:`take_violation`.
        self.violation: ChannelFault | None = None
        self._requesting = False
        self._held: list[bytes] = []  # notifications to send with the next write (hold())
        self._cut = False  # the last read stopped at READ_BATCH with events left in the parser
        self._unsolicited = 0  # the bot's messages since its last request
        self._flooded = False  # more than MAX_QUEUED_STRAYS of them: its socket is not read until its request
        self._timed_out: set[int] = set()  # requests given up on whose late reply may still come
        #: The request that timed out last while its late reply has not come (see :meth:`catch_up`), or None.
        self.behind: int | None = None
        #: The request whose catch-up wait ran out, while its late reply has not come: the same stall.
        self._stalled_on: int | None = None
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
        #: perf_counter() time taken right before the last request was written (set by :meth:`request`).
        self.sent_at = 0.0
        #: Notifications not queued because the bot stopped reading.
        self.dropped = 0
        self.messages_in = 0
        self.bytes_in = 0
        #: Command frames received (PING, ...) and PONGs sent.
        self.commands_in = 0

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

    # ------------------------------------------------------------------ sockets

    def wait(self, timeout_ms: int) -> bool:
        """Block up to ``timeout_ms`` until a socket of the hub is ready (nothing is read); True if one is."""
        return bool(self.hub.poll(timeout_ms))

    def _mask(self, peer: Peer) -> int:
        read = 0 if (peer is self._bot and self._flooded) else _POLLIN
        return read | _POLLOUT if peer.out else read

    def _write(self, peer: Peer, data: bytes) -> int:
        """Queue ``data`` to ``peer``: 1 sent or queued, 0 not (:data:`OUT_LIMIT` reached), -1 connection broken."""
        out = peer.out
        if out:
            if len(out) + len(data) > OUT_LIMIT:
                return 0
            out += data
            return 1
        try:
            n = peer.sock.send(data)
        except BlockingIOError:
            n = 0
        except OSError:
            return -1
        if n < len(data):
            out += memoryview(data)[n:]
            self.hub.modify(peer.fd, self._mask(peer))
        return 1

    def _flush(self, peer: Peer) -> None:
        out = peer.out
        if not out:
            return
        try:
            n = peer.sock.send(out)
        except BlockingIOError:
            return
        except OSError:
            out.clear()
            peer.eof = True
            return
        del out[:n]
        if not out:
            self.hub.modify(peer.fd, self._mask(peer))

    def _recv(self, peer: Peer) -> bool:
        """Feed what the kernel holds (one read); False if nothing came (``peer.eof`` set at the end)."""
        try:
            data = peer.sock.recv(READ_CHUNK)
        except BlockingIOError:
            return False
        except OSError:
            peer.eof = True
            return False
        if not data:
            peer.eof = True
            return False
        peer.parser.feed(data)
        return True

    def _close(self, peer: Peer) -> None:
        self.hub.remove(peer.fd)
        with contextlib.suppress(OSError):
            peer.sock.close()

    def _on_event(self, fd: int, events: int) -> None:
        """The hub's handler for every socket of this seat (while another seat is on move, or at start)."""
        if fd == self._listener_fd:
            self._accept()
            return
        bot = self._bot
        if bot is not None and fd == bot.fd:
            if events & _POLLOUT:
                self._flush(bot)
            if events & _GONE and self._flooded:  # not read until its request: a hang-up would wake every poll
                self._lost()
            elif events & (_POLLIN | _GONE):
                self._serve_bot()
            return
        peer = self._peers.get(fd)
        if peer is not None:
            if events & _POLLOUT:
                self._flush(peer)
            if events & (_POLLIN | _GONE):
                self._pump(peer)

    # ------------------------------------------------------------------ unauthenticated peers

    def _accept(self) -> None:
        """Accept waiting connections: each is greeted at once (ZMTP greeting and READY)."""
        listener = self._listener
        for _ in range(4 * MAX_UNAUTHENTICATED):
            if listener is None:
                return
            try:
                sock, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            if self.identity is not None:
                sock.close()
                self.dropped_peers += 1
                self._ignore("a connection after the bot's hello: dropped")
                continue
            sock.setblocking(False)
            if self._tcp:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            peer = Peer(sock, HELLO_FRAME_LIMIT, HELLO_FRAME_LIMIT)
            self._peers[peer.fd] = peer
            self.hub.add(peer.fd, self._on_event)
            if self._write(peer, _GREETING_READY) < 0:
                self._close(peer)
                del self._peers[peer.fd]
        self._cap_peers()

    def _drop(self, peer: Peer, why: str) -> None:
        """Close one connection that is not the bot's."""
        self._peers.pop(peer.fd, None)
        self._close(peer)
        self.dropped_peers += 1
        self.last_drop = why
        self._ignore(f"{why}: dropped")

    def _cap_peers(self) -> None:
        """Before the hello: keep at most :data:`MAX_UNAUTHENTICATED` connections, dropping the oldest.

        Every connection still open sent nothing but ZMTP's handshake (any
        message but the hello drops its sender), and a bot sends its hello as
        it connects, so the oldest silent connections go first.
        """
        while self.identity is None and len(self._peers) > MAX_UNAUTHENTICATED:
            oldest = next(iter(self._peers.values()))
            self._drop(oldest, f"a silent connection beyond {MAX_UNAUTHENTICATED} without the secret")

    def _command(self, peer: Peer, name: Any, data: Any) -> bool:
        """One command frame: a token of the peer's bucket, PING answered by PONG; False: a flood."""
        self.commands_in += 1
        now = _now()
        tokens = peer.tokens + (now - peer.refilled) * COMMANDS_PER_S
        peer.refilled = now
        if tokens > COMMAND_BURST:
            tokens = COMMAND_BURST
        if tokens < 1.0:
            peer.tokens = tokens
            return False
        peer.tokens = tokens - 1.0
        if name == b"PING" and peer.parser.version is not None:
            self._write(peer, zmtp.command(b"PONG", data[2:18]))  # RFC 37: the ping's context echoed
        return True

    def _pump(self, peer: Peer) -> None:
        """Read a peer that has not said hello: ZMTP's handshake, then its first message must be the hello."""
        parser = peer.parser
        for _ in range(READ_BATCH):
            if self.identity is not None or self.failure is not None or peer.fd not in self._peers:
                return
            ev = parser.next()
            if ev is None:
                if not peer.eof and self._recv(peer):
                    continue
                if peer.eof:  # it left before its hello
                    self._peers.pop(peer.fd, None)
                    self._close(peer)
                return
            kind = ev[0]
            if kind == _EV_MESSAGE:
                self._hello(peer, ev[1])
            elif kind == zmtp.EV_READY:
                peer.ready = True
                if ev[1].get("socket-type") == b"REQ":
                    peer.tokens = -1e9  # marks a REQ socket for the hint below (it sends no commands)
            elif kind == zmtp.EV_COMMAND:
                if not self._command(peer, ev[1], ev[2]):
                    self._drop(peer, "a flood of command frames before hello")
            elif kind == zmtp.EV_SKIPPED:
                self._drop(peer, f"a message of {ev[1]} bytes before hello")
            elif kind == zmtp.EV_FAULT:
                detail = str(ev[2])
                if peer.tokens < -1e8 and "more than one frame" in detail:
                    detail = ("a 2-part message before hello (an empty first frame, as a REQ socket sends: "
                              "connect a DEALER, PROTOCOL.md section 1)")
                self._drop(peer, f"{detail} (ZMTP)" if "before hello" not in detail else detail)

    def _hello(self, peer: Peer, data: bytes) -> None:
        """The first message of a connection: a hello with the secret authenticates it, anything else drops it."""
        trace = self.trace
        if trace is not None:
            trace.received(data)
        try:
            msg = codec.decode(data, self._max_bytes)
        except ProtocolError as exc:
            if self._secret in data:
                # It holds the seat's secret: the bot itself, with a hello the codec cannot read (an array
                # for the map, bin for its strings, a float for v...). Said at once, not after startup_ms.
                self.failure = HandshakeFailure(f"sent a hello the referee cannot read: {exc}")
                self._peers.pop(peer.fd, None)  # closed: the failure says why, the seat's fault records it
                self._close(peer)
                return
            self._drop(peer, f"an invalid message before hello ({exc})")
            return
        if not isinstance(msg, Hello):
            self._drop(peer, f"a {type(msg).TYPE!s} message before hello")
            return
        if not hmac.compare_digest(msg.secret.encode(), self._secret):
            self._drop(peer, f"a hello with a wrong secret (name {msg.name[:64]!r})")
            return
        if msg.v != PROTOCOL_VERSION:
            self.failure = HandshakeFailure(f"speaks protocol version {msg.v}, the referee speaks {PROTOCOL_VERSION}")
            refusal = codec.encode(Error(reason="version_mismatch", message=self.failure.detail))
            if trace is not None:
                trace.sent(refusal)
            self._write(peer, zmtp.frame(refusal))
            return
        del self._peers[peer.fd]
        self._bot = peer
        self.identity = b""
        peer.tokens = float(COMMAND_BURST)
        peer.parser.frame_limit = self._max_bytes
        peer.parser.skip_limit = self.transport_limit
        welcome = codec.encode(Welcome())
        if trace is not None:
            trace.sent(welcome)
        self._write(peer, zmtp.frame(welcome))
        self._seal()

    def _seal(self) -> None:
        """After the bot's hello: close every other connection and the listener, so nobody connects any more.

        What the bot sent after its hello is judged now (out of turn). Runs before any clock.
        """
        if self._listener is not None:
            if not self._tcp:
                with contextlib.suppress(OSError):
                    os.unlink(self.endpoint[len("ipc://"):])
            self._accept()  # whoever is waiting is counted as dropped
            self.hub.remove(self._listener_fd)
            self._listener.close()
            self._listener = None
        for peer in list(self._peers.values()):
            self._drop(peer, "a connection without the secret, at the bot's hello")
        self._serve_bot()

    # ------------------------------------------------------------------ handshake

    def poll_handshake(self) -> bool:
        """Process what arrived, without blocking, until the bot is authenticated.

        A valid ``hello`` with the right secret and version authenticates its
        connection (answered ``welcome``, then every other connection is
        closed: :meth:`_seal`); the right secret with another version is
        answered with a fatal ``error`` and recorded in :attr:`failure`; a
        message the codec refuses that holds the secret (only the bot has it)
        is recorded in :attr:`failure` too, unanswered. Any
        other message, or anything that is not ZMTP, closes the connection it
        came from, unanswered, and is logged. At most :data:`READ_BATCH`
        events are read per connection and call, so a peer flooding its
        socket cannot hold up the other seats' handshakes (the caller polls again).

        Returns:
            True once authenticated.
        """
        if self.identity is not None:
            return True
        if self.failure is not None:
            return False
        self._accept()
        for peer in list(self._peers.values()):
            if peer.out:
                self._flush(peer)
            self._pump(peer)
            if self.identity is not None or self.failure is not None:
                break
        if self.identity is None:
            self._cap_peers()
        return self.identity is not None

    # ------------------------------------------------------------------ the bot, between requests

    def _serve_bot(self) -> None:
        """Read the bot while it is not asked: out-of-turn messages counted, PINGs answered, bounds checked."""
        bot = self._bot
        if bot is None or self.gone or self._flooded:
            return
        parser = bot.parser
        for _ in range(READ_BATCH):
            ev = parser.next()
            if ev is None:
                if not bot.eof and self._recv(bot):
                    continue
                if bot.eof:
                    self._lost()
                return
            if not self._unsolicited_event(ev):
                return

    # The exchange judges messages: Connection implements these two (the endpoint only reads).
    def _take(self, data: bytes, seq: int | None, expect: type | None) -> Any:
        """Judge one incoming message (:meth:`harness.match.connection.Connection._take`)."""
        raise NotImplementedError

    def _stray(self, kind: FaultKind, words: str) -> None:
        """Count one out-of-turn message of the bot (:meth:`harness.match.connection.Connection._stray`)."""
        raise NotImplementedError

    def _unsolicited_event(self, ev: zmtp.Event) -> bool:
        """One event of the bot while no request is pending; False: stop reading it for now."""
        kind = ev[0]
        if kind == _EV_MESSAGE or kind == zmtp.EV_SKIPPED:
            self._unsolicited += 1
            if self._unsolicited > MAX_QUEUED_STRAYS:
                self._flooded = True  # its next request fails unsent; nothing more is read until then
                bot = self._bot
                assert bot is not None
                self.hub.modify(bot.fd, self._mask(bot))
                return False
            if kind == zmtp.EV_SKIPPED:
                self.messages_in += 1
                self.bytes_in += ev[1]
                if self.trace is not None:
                    self.trace.skipped(ev[1], self._max_bytes)
                words = f"oversized message ({ev[1]} bytes exceeds the limit {self._max_bytes})"
                self._stray(FaultKind.OVERSIZED, words)
                return True
            try:
                self._take(ev[1], None, None)
            except ChannelFault as fault:
                self._stray(fault.kind, f"{fault.kind.value} message ({fault.detail})")
            return True
        if kind == zmtp.EV_COMMAND:
            if self._command(self._bot, ev[1], ev[2]):  # type: ignore[arg-type]
                return True
            self._violate(FaultKind.ILLEGAL, self._flood_words())
            return False
        if kind == zmtp.EV_FAULT:
            self._violate(FaultKind(ev[1]), f"{ev[2]} (ZMTP)")
        return False

    @staticmethod
    def _flood_words() -> str:
        return (f"a flood of ZMTP command frames (more than {COMMAND_BURST} at once or {COMMANDS_PER_S:.0f} a "
                f"second, heartbeats included): a ZeroMQ heartbeat (ZMQ_HEARTBEAT_IVL) of "
                f"{1000 / COMMANDS_PER_S:.0f} ms or more, or none, stays within it (PROTOCOL.md section 7)")

    def _violate(self, kind: FaultKind, detail: str) -> None:
        """The bot broke a bound: close its connection (its bytes are read no more), keep the fault to report."""
        bot = self._bot
        self.violation = ChannelFault(kind, f"{detail}; the connection was closed", fatal=True)
        self.gone = True
        self._log(f"{self.name}: {kind.value}: {detail}; connection closed")
        if bot is not None:
            self._close(bot)
        if not self._requesting:
            self.hub.pending.append(self)

    def take_violation(self) -> ChannelFault | None:
        """The fatal fault of a bound the bot broke, once (None if none); the caller puts the bot out."""
        v = self.violation
        if v is not None:
            self.violation = None
            with contextlib.suppress(ValueError):
                self.hub.pending.remove(self)
        return v

    def _lost(self) -> None:
        """The bot's connection ended (it closed its socket or exited)."""
        if not self.gone:
            self._log(f"{self.name}: connection of the authenticated peer dropped")
        self.gone = True
        if self._bot is not None:
            self._close(self._bot)

    # ------------------------------------------------------------------ sending

    # ------------------------------------------------------------------ end

    def close(self) -> None:
        """Close every socket of this seat (never waits). Idempotent."""
        if self.commands_in:
            self._log(f"{self.name}: {self.commands_in} ZMTP command frame(s) received (PING answered with PONG)")
            self.commands_in = 0
        if self._listener is not None:
            self.hub.remove(self._listener_fd)
            self._listener.close()
            self._listener = None
        for peer in list(self._peers.values()):
            self._close(peer)
        self._peers.clear()
        if self._bot is not None:
            self._close(self._bot)
        with contextlib.suppress(ValueError):
            self.hub.pending.remove(self)
        if self._own_hub:
            self.hub.close()
