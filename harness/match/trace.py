"""The wire trace: every message to and from every seat of a match, one JSON line each (opt-in).

As python-chess logs every line to and from an engine tagged with its direction,
a match run with a trace (``harness match --trace FILE``, ``harness play --trace
FILE``, or ``Referee(..., trace=WireTrace(stream))``) writes one line per message
its channels carry (:class:`harness.match.connection.Connection`), in the order the
referee sent or read them::

    {"t_ms": 12.804, "seat": 0, "name": "caller", "dir": "out", "bytes": 61, "left_ms": 1000,
     "msg": {"type": "act", "seq": 1, ...}}
    {"t_ms": 13.117, "seat": 0, "name": "caller", "dir": "in", "bytes": 38, "ms": 0.297,
     "msg": {"type": "action", "seq": 1, "action": "call", "v": 1}}

- ``t_ms``: milliseconds since the trace was opened (the referee's clock, ``time.perf_counter``).
- ``seat``, ``name``: the match seat and its name; ``dir``: ``"out"`` (referee to seat) or ``"in"``.
- ``bytes``: the message's size on the wire (MessagePack, without the ZMTP frame header).
- ``left_ms`` (a request): the time the seat's clock had left when it was sent (decision time plus what
  is left of its bank). ``ms`` (a message read while a request is pending): milliseconds from the
  request's send to the moment the message was read (the decision's timing as the referee saw it; the
  time charged, in the hand history, can be less: :attr:`Connection.answered_at`).
- ``msg``: the message as MessagePack decoded it, whether or not it is a valid protocol message; a
  ``hello``'s ``secret`` is replaced by ``"<secret>"``. ``problem``: why the codec refused a message
  that came in (the same words as the fault). ``raw``: what could not be decoded at all, its first
  :data:`RAW_BYTES` bytes, one character per byte. ``skipped``: a message over the size limit, not read.

A bot's text is never written as it came: the file is ASCII JSON (every control character, escape
sequence and non-ASCII character is a ``\\u`` escape), strings are cut at :data:`MAX_STRING_CHARS`,
lists at :data:`MAX_ITEMS`, a line at :data:`MAX_LINE_CHARS`, and the whole trace at ``max_bytes``
(a line ``{"truncated": ...}`` then says so). Reading the file in a terminal is safe.

Off (the default), the channels hold ``None`` for their trace and pay one attribute test per message.
A write that fails (a full disk) stops the trace, never the match: :attr:`WireTrace.error`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import msgpack

from protocol import codec
from protocol.errors import ProtocolError

__all__ = ["MAX_ITEMS", "MAX_LINE_CHARS", "MAX_STRING_CHARS", "RAW_BYTES", "SeatTrace", "WireTrace"]

#: Longest string of a traced message kept (characters); longer ones end with ``"..."``.
MAX_STRING_CHARS = 200
#: Most items of a list or map of a traced message kept; the rest are counted.
MAX_ITEMS = 64
#: Longest trace line (characters): a message whose JSON is longer is written cut, as text (``msg_cut``).
MAX_LINE_CHARS = 8192
#: Bytes of an undecodable message kept in ``raw``.
RAW_BYTES = 256
#: Default cap of a whole trace file (bytes): a flooding bot cannot fill the disk through it.
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
#: Deepest nesting of a traced message shown.
_MAX_DEPTH = 8
_UNPACK = {"strict_map_key": False, "raw": False, "unicode_errors": "surrogateescape"}


def _view(obj: Any, depth: int = 0) -> Any:
    """A JSON-ready, bounded view of what MessagePack decoded (bytes as one character per byte)."""
    if obj is None or isinstance(obj, (bool, int, float)):
        return obj
    if isinstance(obj, str):
        return obj if len(obj) <= MAX_STRING_CHARS else obj[: MAX_STRING_CHARS - 3] + "..."
    if isinstance(obj, (bytes, bytearray)):
        return {"bin": _view(bytes(obj[:MAX_STRING_CHARS]).decode("latin-1"), depth), "bytes": len(obj)}
    if depth >= _MAX_DEPTH:
        return "..."
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for i, (k, v) in enumerate(obj.items()):
            if i >= MAX_ITEMS:
                out["..."] = f"{len(obj) - MAX_ITEMS} more"
                break
            key = k if isinstance(k, str) else json.dumps(_view(k, depth + 1))
            out[_view(key, depth)] = _view(v, depth + 1)
        return out
    if isinstance(obj, (list, tuple)):
        items = [_view(v, depth + 1) for v in obj[:MAX_ITEMS]]
        if len(obj) > MAX_ITEMS:
            items.append(f"... {len(obj) - MAX_ITEMS} more")
        return items
    return _view(repr(obj), depth)  # a MessagePack extension type


class WireTrace:
    """One trace file for a match (module docstring for the format); :meth:`seat` gives each channel its part.

    Args:
        stream: a text stream opened for writing (the caller closes it).
        max_bytes: the most the trace writes (bytes, about); then one ``truncated`` line and nothing more.

    Attributes:
        error: the OSError that stopped the trace (a full disk), or None.
        lines: lines written.
    """

    def __init__(self, stream: TextIO, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._stream: TextIO | None = stream
        self._owned: TextIO | None = None
        self._max_bytes = max_bytes
        self._written = 0
        self._t0 = time.perf_counter()
        self.error: OSError | None = None
        self.lines = 0

    @classmethod
    def open(cls, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> WireTrace:
        """A trace written to a new file at ``path`` (replaced if it exists), closed by :meth:`close`.

        Raises:
            OSError: the file cannot be written.
        """
        stream = open(path, "w", encoding="ascii", buffering=1 << 16)  # noqa: SIM115 (closed by close())
        trace = cls(stream, max_bytes)
        trace._owned = stream
        return trace

    def close(self) -> None:
        """Flush, and close the file :meth:`open` opened (idempotent); a failure is kept in :attr:`error`."""
        self.flush()
        owned, self._owned, self._stream = self._owned, None, None
        if owned is not None:
            try:
                owned.close()
            except OSError as exc:
                self.error = self.error or exc

    def __enter__(self) -> WireTrace:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def seat(self, index: int, name: str, secret: str = "") -> SeatTrace:
        """The trace of match seat ``index`` (its channel's :attr:`Connection.trace`); ``secret``, the seat's,
        never appears in the file."""
        return SeatTrace(self, index, name, secret)

    def write(self, record: dict[str, Any], secret: str = "") -> None:
        """Write one record as a line (``t_ms`` first), ``secret`` (if given) replaced by ``<secret>``;
        never raises (a failed write stops the trace)."""
        stream = self._stream
        if stream is None:
            return
        line = json.dumps({"t_ms": round((time.perf_counter() - self._t0) * 1000.0, 3), **record},
                          ensure_ascii=True, separators=(",", ":"))
        if len(line) > MAX_LINE_CHARS:
            msg = json.dumps(record.pop("msg", None), ensure_ascii=True, separators=(",", ":"))
            record["msg_cut"] = msg[: MAX_LINE_CHARS // 2] + "..."
            line = json.dumps({"t_ms": round((time.perf_counter() - self._t0) * 1000.0, 3), **record},
                              ensure_ascii=True, separators=(",", ":"))[:MAX_LINE_CHARS]
        if secret and secret in line:
            line = line.replace(secret, "<secret>")
        try:
            if self._written + len(line) + 1 > self._max_bytes:
                stream.write(json.dumps({"truncated": f"the trace reached {self._max_bytes} bytes"}) + "\n")
                stream.flush()
                self._stream = None
                return
            stream.write(line + "\n")
        except OSError as exc:
            self.error = exc
            self._stream = None
            return
        self._written += len(line) + 1
        self.lines += 1

    def flush(self) -> None:
        """Push what is written to the file (at the end of a match); a failure is kept in :attr:`error`."""
        if self._stream is not None:
            try:
                self._stream.flush()
            except OSError as exc:
                self.error = exc
                self._stream = None


class SeatTrace:
    """One seat's part of a :class:`WireTrace`: what its channel calls for each message (ms, bytes)."""

    __slots__ = ("_trace", "seat", "name", "_secret")

    def __init__(self, trace: WireTrace, seat: int, name: str, secret: str = "") -> None:
        self._trace = trace
        self.seat = seat
        self.name = name
        self._secret = secret

    def sent(self, payload: bytes, left_ms: int | None = None) -> None:
        """A message the referee sent (or queued to leave with the next request); ``left_ms`` for a request."""
        record = self._head("out", len(payload))
        if left_ms is not None:
            record["left_ms"] = left_ms
        try:
            record["msg"] = _view(msgpack.unpackb(payload, **_UNPACK))
        except Exception:  # the referee's own message: never, but a trace never stops a match
            record["raw"] = bytes(payload[:RAW_BYTES]).decode("latin-1")
        self._trace.write(record)

    def received(self, data: bytes, ms: float | None = None) -> None:
        """A message the seat sent; ``ms`` since the pending request was sent (None: none pending)."""
        record = self._head("in", len(data))
        if ms is not None:
            record["ms"] = round(ms, 3)
        try:
            msg = msgpack.unpackb(data, **_UNPACK)
        except Exception as exc:  # msgpack raises many kinds
            record["problem"] = f"not a single valid msgpack value ({type(exc).__name__})"
            record["raw"] = bytes(data[:RAW_BYTES]).decode("latin-1")
            self._trace.write(record, self._secret)
            return
        if type(msg) is dict and "secret" in msg:
            msg = {**msg, "secret": "<secret>"}  # a trace is shared; no secret is written, the seat's or another
        record["msg"] = _view(msg)
        try:
            codec.decode(data, len(data))
        except ProtocolError as exc:
            record["problem"] = str(exc)
        self._trace.write(record, self._secret)

    def skipped(self, size: int, limit: int) -> None:
        """A message of ``size`` bytes over the limit (``limit``), skipped unread."""
        record = self._head("in", size)
        record["skipped"] = f"over the limit of {limit} bytes: not read"
        self._trace.write(record)

    def _head(self, direction: str, size: int) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "dir": direction, "bytes": size}
