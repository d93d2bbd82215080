"""A minimal ZeroMQ DEALER peer in pure Python, for the bot SDK's run loop.

Standard: ZMTP 3.0 (https://rfc.zeromq.org/spec/23/) with the NULL security mechanism,
over ``ipc://`` (Unix stream sockets) or ``tcp://`` endpoints; it talks to a libzmq
ROUTER like a libzmq DEALER does, so the wire is unchanged.

Why not libzmq here: a libzmq socket moves every message through a background I/O thread
(two thread wake-ups and about ten system calls per message). A bot answers one request
at a time, so reading and writing the socket from its own thread costs about half as
much CPU per hand. Scope: one connection, no reconnection, single-frame messages (each
frame of a multi-frame message is delivered on its own, like ``zmq.Socket.recv``),
PING answered with PONG, other commands ignored.
"""

from __future__ import annotations

import socket
import struct
import time

__all__ = ["Dealer", "FrameTooLarge", "HandshakeError"]

_MORE, _LONG, _COMMAND = 0x01, 0x02, 0x04
# Signature (0xFF, 8 bytes of padding, 0x7F), version 3.0, mechanism NULL, as-server 0, filler.
_GREETING = b"\xff" + bytes(7) + b"\x01\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + bytes(31)
_BUFFER_BYTES = 1 << 16


class HandshakeError(ConnectionError):
    """The peer is not a ZMTP 3 peer with the NULL mechanism, or refused us (ERROR command)."""


class FrameTooLarge(Exception):
    """A frame above ``max_frame`` bytes arrived; it was skipped unread.

    Attributes:
        size: Its size in bytes.
    """

    def __init__(self, size: int) -> None:
        super().__init__(f"a frame of {size} bytes was skipped")
        self.size = size


def _command(name: bytes, body: bytes) -> bytes:
    data = bytes([len(name)]) + name + body
    if len(data) < 256:
        return bytes([_COMMAND, len(data)]) + data
    return bytes([_COMMAND | _LONG]) + len(data).to_bytes(8, "big") + data


def _prop(name: bytes, value: bytes) -> bytes:
    return bytes([len(name)]) + name + struct.pack(">I", len(value)) + value


_READY = _command(b"READY", _prop(b"Socket-Type", b"DEALER") + _prop(b"Identity", b""))


def open_stream(endpoint: str, timeout_s: float) -> socket.socket:
    """A connected stream socket for a ZeroMQ endpoint.

    Args:
        endpoint: ``ipc:///path`` (``ipc://@name`` for Linux's abstract namespace) or
            ``tcp://host:port``.
        timeout_s: Connect timeout in seconds.

    Raises:
        ValueError: Another transport (the caller may use libzmq instead).
        OSError: The connection failed (e.g. ``FileNotFoundError``, ``ConnectionRefusedError``).
    """
    scheme, sep, address = endpoint.partition("://")
    if not sep or not address:
        raise ValueError(f"not a ZeroMQ endpoint: {endpoint!r}")
    if scheme == "ipc":
        path = "\0" + address[1:] if address.startswith("@") else address
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout_s)
            sock.connect(path)
        except BaseException:
            sock.close()
            raise
    elif scheme == "tcp":
        host, _, port = address.rpartition(":")
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as libzmq does
    else:
        raise ValueError(f"transport {scheme!r} is not supported here (ipc and tcp are)")
    sock.settimeout(None)
    return sock


class Dealer:
    """One ZMTP 3.0 connection, speaking as a DEALER.

    Args:
        sock: A connected stream socket (see :func:`open_stream`); the Dealer owns it.
        timeout_ms: How long :meth:`recv` waits for a frame before raising ``TimeoutError``.
        max_frame: Largest frame delivered, in bytes; larger ones are skipped.

    Raises:
        HandshakeError: The peer's greeting or READY is not acceptable.
        TimeoutError: The handshake did not finish within ``timeout_ms`` (each read).
        ConnectionError: The peer closed the connection during the handshake.
    """

    def __init__(self, sock: socket.socket, timeout_ms: int, max_frame: int) -> None:
        self._sock = sock
        self.max_frame = max_frame
        # A kernel receive timeout keeps each wait a single recv() call (a Python socket
        # timeout would poll() first).
        ms = max(1, int(timeout_ms))
        self._timeout_s = ms / 1000
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, struct.pack("ll", ms // 1000, ms % 1000 * 1000))
        self._recv_into = sock.recv_into
        self._buf = bytearray(_BUFFER_BYTES)
        self._view = memoryview(self._buf)
        self._start = 0  # unread bytes are _buf[_start:_end]
        self._end = 0
        self._skip = 0  # bytes of an oversized frame still to throw away
        sock.sendall(_GREETING)
        greeting = self._take(64)
        if greeting[0] != 0xFF or not greeting[9] & 1 or greeting[10] < 3:
            raise HandshakeError("the peer is not a ZeroMQ peer speaking ZMTP 3")
        if greeting[12:32].rstrip(b"\x00") != b"NULL":
            raise HandshakeError(f"the peer wants security mechanism {greeting[12:32].rstrip(bytes(1))!r}, not NULL")
        sock.sendall(_READY)
        flags, body = self._frame()
        if not flags & _COMMAND or body[:6] != b"\x05READY":
            reason = body[7:].decode(errors="replace") if body[:6] == b"\x05ERROR" else repr(body[:16])
            raise HandshakeError(f"the peer did not accept the handshake: {reason}")

    def send(self, data: bytes) -> None:
        """Send one single-frame message (blocks until the kernel has taken it)."""
        n = len(data)
        self._sock.sendall((bytes((0, n)) if n < 256 else b"\x02" + n.to_bytes(8, "big")) + data)

    def recv(self) -> bytes:
        """The next message frame.

        Raises:
            TimeoutError: No frame within ``timeout_ms``.
            FrameTooLarge: A frame above ``max_frame`` bytes was skipped.
            ConnectionResetError: The peer closed the connection.
        """
        if self._start == self._end and not self._skip:
            # The usual case: nothing buffered, and one read brings exactly one frame.
            try:
                n = self._recv_into(self._view)
            except BlockingIOError:  # SO_RCVTIMEO expired
                raise TimeoutError("no data from the peer") from None
            if not n:
                raise ConnectionResetError("the peer closed the connection")
            buf = self._buf
            flags = buf[0]
            if flags == 0:
                if buf[1] + 2 == n:
                    return bytes(self._view[2:n])
            elif flags == _LONG and n >= 9 and int.from_bytes(buf[1:9], "big") + 9 == n and n - 9 <= self.max_frame:
                return bytes(self._view[9:n])
            self._start, self._end = 0, n
        return self._recv_buffered()

    def _recv_buffered(self) -> bytes:
        deadline = 0.0
        while True:
            flags, body = self._frame()
            if not flags & _COMMAND:
                return body
            if body[:5] == b"\x04PING" and len(body) >= 7:
                self._sock.sendall(_command(b"PONG", body[7:]))  # echo the ping's context (ZMTP 3.1)
            # Commands do not count as traffic: time out even if the peer keeps pinging.
            now = time.monotonic()
            if not deadline:
                deadline = now + self._timeout_s
            elif now > deadline:
                raise TimeoutError("no message from the peer")

    def close(self) -> None:
        """Close the connection (unsent data is dropped, like LINGER 0)."""
        self._sock.close()

    def fileno(self) -> int:
        """The socket's file descriptor."""
        return self._sock.fileno()

    # ---- reading

    def _fill(self) -> None:
        """Read at least one more byte into the buffer, making room as needed."""
        buf = self._buf
        if self._start == self._end:
            self._start = self._end = 0
        elif self._end == len(buf):
            if self._start > 0:  # move the partial frame to the front
                n = self._end - self._start
                buf[:n] = buf[self._start : self._end]
                self._start, self._end = 0, n
            else:  # one frame larger than the buffer: grow it
                self._view.release()  # a bytearray cannot resize while a view exists
                buf.extend(bytes(len(buf)))
                self._view = memoryview(buf)
        try:
            n = self._sock.recv_into(self._view[self._end :])
        except BlockingIOError:  # SO_RCVTIMEO expired
            raise TimeoutError("no data from the peer") from None
        if n == 0:
            raise ConnectionResetError("the peer closed the connection")
        self._end += n

    def _take(self, n: int) -> bytes:
        while self._end - self._start < n:
            self._fill()
        data = bytes(self._view[self._start : self._start + n])
        self._start += n
        return data

    def _frame(self) -> tuple[int, bytes]:
        """The next frame's flags and body (commands included)."""
        while True:
            while self._skip:
                if self._start == self._end:
                    self._fill()
                k = min(self._skip, self._end - self._start)
                self._start += k
                self._skip -= k
            start = self._start
            avail = self._end - start
            if avail >= 2:
                buf = self._buf
                flags = buf[start]
                if flags & _LONG:
                    size = int.from_bytes(buf[start + 1 : start + 9], "big") if avail >= 9 else -1
                    head = 9
                else:
                    size = buf[start + 1]
                    head = 2
                if size > self.max_frame:
                    self._start = start + head
                    self._skip = size
                    raise FrameTooLarge(size)
                if 0 <= size <= avail - head:
                    self._start = start + head + size
                    return flags, bytes(self._view[start + head : self._start])
            self._fill()
