"""ZMTP 3.1 as the referee speaks it: a pure incremental parser and the few frames it sends.

The ZeroMQ Message Transport Protocol (RFC 23, ZMTP 3.0; RFC 37, ZMTP 3.1,
rfc.zeromq.org) over one stream connection: a 64-byte greeting each way
(signature ``FF 00*8 7F``, version 3.x, mechanism, as-server, filler), then
the NULL mechanism's handshake (each side sends a ``READY`` command with
its ``Socket-Type`` and optionally an ``Identity``), then frames. A frame is
a flags byte (bit 0 MORE, bit 1 LONG, bit 2 COMMAND; the other bits are
zero), a size (one byte, or eight big-endian with LONG) and the body. ZMTP
3.1 adds the ``PING``/``PONG`` commands (heartbeats); a 3.0 peer never sends
them, and is served the same way.

:class:`Parser` is a state machine with no I/O: :meth:`Parser.feed` takes
bytes as they arrive, split anywhere, and :meth:`Parser.next` hands out one
event at a time, parsing only what it returns, so bytes not yet looked at
stay bytes (a caller that reads the socket only when ``next`` returns None
holds at most one read plus one partial frame). Every bound is checked as
soon as the bytes that break it are seen (a long frame's size before any of
its body): the parser never buffers more than ``frame_limit`` bytes of one
frame, skips (without buffering) a message frame over ``frame_limit`` but
within ``skip_limit`` and reports its size, and ends in a fault for
anything else. After a fault the parser is finished: it reports the same
fault again and takes no more bytes.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "COMMAND_LIMIT",
    "GREETING",
    "GREETING_BYTES",
    "Parser",
    "command",
    "frame",
    "ready",
    "EV_GREETING",
    "EV_READY",
    "EV_MESSAGE",
    "EV_SKIPPED",
    "EV_COMMAND",
    "EV_FAULT",
]

GREETING_BYTES = 64
#: The referee's greeting: ZMTP 3.1, mechanism NULL, as-server 0 (RFC 23 section "Greeting"); the
#: padding is libzmq's (a length of 1, for ZMTP 1.0 peers to read as a one-byte identity).
GREETING = b"\xff" + b"\0" * 7 + b"\x01\x7f" + b"\x03\x01" + b"NULL".ljust(20, b"\0") + b"\0" + b"\0" * 31
#: Largest command frame accepted (bytes): a READY with its properties, a PING with its context.
COMMAND_LIMIT = 4096
#: Socket types a ROUTER talks to (RFC 28 / libzmq): anything else is refused at READY.
ROUTER_PEERS = frozenset({b"DEALER", b"REQ", b"ROUTER"})

# Events, as tuples (kind, a, b): kinds are small ints, cheap to compare on the hot path.
#: (EV_GREETING, (major, minor), None): the peer's greeting was valid.
EV_GREETING = 0
#: (EV_READY, properties {name lower-cased: value bytes}, None): the NULL handshake is done.
EV_READY = 1
#: (EV_MESSAGE, body bytes, None): one single-frame message.
EV_MESSAGE = 2
#: (EV_SKIPPED, size in bytes, None): a single-frame message over ``frame_limit`` (within ``skip_limit``), not kept.
EV_SKIPPED = 3
#: (EV_COMMAND, name bytes, data bytes): a command after the handshake (PING, PONG, ERROR, SUBSCRIBE, ...).
EV_COMMAND = 4
#: (EV_FAULT, what, detail str): the peer broke the protocol or a bound ("what": "malformed" or "oversized").
EV_FAULT = 5
#: One event: its payloads' types depend on its kind (above), so they are typed Any.
Event = tuple[int, Any, Any]

_GREET, _HANDSHAKE, _TRAFFIC, _SKIP, _DONE = range(5)
_RESERVED = 0xF8  # flag bits a sender must leave zero


def frame(body: bytes, more: bool = False) -> bytes:
    """One message frame carrying ``body`` (short under 256 bytes, else long)."""
    n = len(body)
    if n < 256:
        return bytes((1 if more else 0, n)) + body
    return bytes((3 if more else 2,)) + n.to_bytes(8, "big") + body


def command(name: bytes, data: bytes = b"") -> bytes:
    """One command frame: ``name`` (1-255 bytes) and its data (RFC 23 "Commands")."""
    body = bytes((len(name),)) + name + data
    n = len(body)
    if n < 256:
        return bytes((4, n)) + body
    return b"\x06" + n.to_bytes(8, "big") + body


def ready(socket_type: bytes = b"ROUTER", **properties: bytes) -> bytes:
    """The NULL mechanism's READY command with ``Socket-Type`` and any other properties (RFC 23)."""
    props = [(b"Socket-Type", socket_type), *((k.replace("_", "-").encode(), v) for k, v in properties.items())]
    data = b"".join(bytes((len(k),)) + k + len(v).to_bytes(4, "big") + v for k, v in props)
    return command(b"READY", data)


def _properties(data: bytes) -> dict[str, bytes] | str:
    """A READY's metadata as {name lower-cased: value}, or why it is malformed."""
    props: dict[str, bytes] = {}
    i, n = 0, len(data)
    while i < n:
        k = data[i]
        if k == 0 or i + 1 + k + 4 > n:
            return "a READY property cut short"
        name = data[i + 1 : i + 1 + k]
        j = i + 1 + k
        v = int.from_bytes(data[j : j + 4], "big")
        if j + 4 + v > n:
            return "a READY property value cut short"
        props[name.decode("latin-1").lower()] = data[j + 4 : j + 4 + v]
        i = j + 4 + v
    return props


def _printable(raw: bytes | bytearray) -> str:
    text = raw.rstrip(b"\0").decode("ascii", "replace")
    return "".join(c if c.isprintable() else "?" for c in text)[:40]


class Parser:
    """The bytes one peer sends, as ZMTP events (see the module docstring).

    Args:
        frame_limit: most bytes of one message frame kept (larger ones are skipped or a fault).
        skip_limit: most bytes of one message frame skipped; a frame announcing more is a fault
            (``oversized``) at its header. At least ``frame_limit``.

    :attr:`buffered` is the bytes held: after :meth:`next` returns None it is
    at most ``max(frame_limit, COMMAND_LIMIT) + 9`` (one partial frame).
    """

    __slots__ = ("_buf", "_pos", "_state", "_fault", "_skip", "frame_limit", "skip_limit", "version")

    def __init__(self, frame_limit: int, skip_limit: int | None = None) -> None:
        self.frame_limit = frame_limit
        self.skip_limit = max(frame_limit, skip_limit if skip_limit is not None else frame_limit)
        self._buf: bytes | bytearray = b""
        self._pos = 0
        self._state = _GREET
        self._fault: tuple[int, str, str] | None = None
        self._skip = 0  # body bytes of a skipped frame still to come
        #: The peer's ZMTP version (major, minor) once its greeting is read.
        self.version: tuple[int, int] | None = None

    @property
    def buffered(self) -> int:
        """Bytes fed and not yet handed out as an event (the parser holds at most twice this, bar a constant)."""
        return len(self._buf) - self._pos

    @property
    def done(self) -> bool:
        """True after a fault: the parser takes no more bytes."""
        return self._state == _DONE

    def feed(self, data: bytes) -> None:
        """Add bytes as they arrived (any split). Ignored after a fault."""
        if self._state == _DONE or not data:
            return
        if self._state == _SKIP:
            data = self._skipping(data)
            if not data:
                return
        buf, pos = self._buf, self._pos
        if pos == len(buf):
            # The common case: nothing left over, no copy (a caller's mutable buffer is copied once).
            self._buf, self._pos = (data if type(data) is bytes else bytes(data)), 0
        elif type(buf) is bytearray:
            # Bytes left over are kept in one growing buffer: each byte is copied in once (amortised),
            # so a frame fed one byte at a time costs linear work, never a copy of the whole buffer
            # per feed. The consumed head is dropped only once it is at least half the buffer.
            if pos and pos * 2 >= len(buf):
                del buf[:pos]
                self._pos = 0
            buf += data
        else:
            self._buf = bytearray(memoryview(buf)[pos:])  # what is left of one read: at most a frame
            self._buf += data
            self._pos = 0

    def _skipping(self, data: bytes) -> bytes:
        """Drop the body of a skipped frame from ``data``; what follows it, if any."""
        n = self._skip
        if len(data) < n:
            self._skip = n - len(data)
            return b""
        self._skip = 0
        self._state = _TRAFFIC
        return data[n:]

    def _fail(self, what: str, detail: str) -> tuple[int, str, str]:
        self._fault = (EV_FAULT, what, detail)
        self._state = _DONE
        self._buf, self._pos = b"", 0
        return self._fault

    def next(self) -> Event | None:
        """The next event, or None until more bytes come (see the EV_* constants)."""
        state = self._state
        buf, pos = self._buf, self._pos
        have = len(buf) - pos
        if state == _TRAFFIC:
            # Hot path: one short message frame.
            if have < 2:
                return None
            flags = buf[pos]
            if flags == 0:
                end = pos + 2 + buf[pos + 1]
                if end > len(buf):
                    return None
                self._pos = end
                body = buf[pos + 2 : end]
                return (EV_MESSAGE, body if type(body) is bytes else bytes(body), None)
            return self._frame(flags, buf, pos, have)
        if state == _DONE:
            return self._fault
        if state == _SKIP:
            return None
        if state == _GREET:
            return self._greeting(buf, pos, have)
        # _HANDSHAKE: the peer's READY (or an ERROR).
        if have < 2:
            return None
        flags = buf[pos]
        if flags & _RESERVED:
            return self._fail("malformed", f"a frame with flags 0x{flags:02x} (reserved bits set): not ZMTP")
        if not flags & 4:
            return self._fail("malformed", "a message frame before the handshake's READY command")
        ev = self._frame(flags, buf, pos, have)
        if ev is None or ev[0] != EV_COMMAND:
            return ev
        name, data = ev[1], ev[2]
        if name == b"ERROR":
            return self._fail("malformed", f"the peer sent ERROR in the handshake ({_printable(data[1:])})")
        if name != b"READY":
            return self._fail("malformed", f"a {_printable(name)!r} command instead of READY (mechanism NULL)")
        props = _properties(data)
        if isinstance(props, str):
            return self._fail("malformed", props)
        kind = props.get("socket-type", b"")
        if kind not in ROUTER_PEERS:
            return self._fail(
                "malformed", f"Socket-Type {_printable(kind)!r} cannot talk to the referee's ROUTER: connect a DEALER"
            )
        self._state = _TRAFFIC
        return (EV_READY, props, None)

    def _greeting(self, buf: bytes | bytearray, pos: int, have: int) -> Event | None:
        """Check the greeting as far as it has come; the event once all 64 bytes are there."""
        g = buf[pos : pos + GREETING_BYTES]
        if g[:1] and g[0] != 0xFF:
            return self._fail("malformed", "not a ZMTP greeting (the first byte is not 0xFF): speak ZeroMQ")
        if len(g) > 9 and not g[9] & 1:
            return self._fail("malformed", "a ZMTP 1.0 greeting: ZMTP 3.0 or later is needed (libzmq 4 or later)")
        if len(g) > 10 and g[10] < 3:
            return self._fail("malformed", f"ZMTP version {g[10]}: 3.0 or later is needed (libzmq 4 or later)")
        if len(g) >= 32 and g[12:32] != GREETING[12:32]:
            return self._fail("malformed", f"mechanism {_printable(g[12:32])!r}: the referee speaks only NULL")
        if have < GREETING_BYTES:
            return None
        self._pos = pos + GREETING_BYTES
        self.version = (g[10], g[11])
        self._state = _HANDSHAKE
        return (EV_GREETING, self.version, None)

    def _frame(self, flags: int, buf: bytes | bytearray, pos: int, have: int) -> Event | None:
        """Any frame but a short message frame with no flags (the hot path's)."""
        if flags & _RESERVED:
            return self._fail("malformed", f"a frame with flags 0x{flags:02x} (reserved bits set): not ZMTP")
        if flags & 2:
            if have < 9:
                return None
            size = int.from_bytes(buf[pos + 1 : pos + 9], "big")
            head = 9
        else:
            size = buf[pos + 1]
            head = 2
        if flags & 4:
            if flags & 1:
                return self._fail("malformed", "a command frame with the MORE flag")
            if size > COMMAND_LIMIT:
                return self._fail("oversized", f"a command frame of {size} bytes (at most {COMMAND_LIMIT})")
        elif flags & 1:
            return self._fail(
                "malformed",
                f"a message of more than one frame (its first frame: {size} bytes): send one frame per message",
            )
        elif size > self.frame_limit:
            if size > self.skip_limit:
                return self._fail("oversized", f"a frame announcing {size} bytes (the transport's limit is "
                                               f"{self.skip_limit})")
            rest = have - head
            if rest >= size:
                self._pos = pos + head + size
            else:
                self._buf, self._pos = b"", 0
                self._skip = size - rest
                self._state = _SKIP
            return (EV_SKIPPED, size, None)
        end = pos + head + size
        if end > len(buf):
            return None
        self._pos = end
        body = bytes(buf[pos + head : end]) if type(buf) is bytearray else buf[pos + head : end]
        if flags & 4:
            k = body[0] if body else 0
            if k == 0 or k + 1 > len(body):
                return self._fail("malformed", "a command frame without a valid name")
            return (EV_COMMAND, body[1 : 1 + k], body[1 + k :])
        return (EV_MESSAGE, body, None)
