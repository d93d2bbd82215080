"""The request/reply exchange of one bot's channel (PROTOCOL.md "Requests and replies", section 7).

:class:`Connection` is an :class:`harness.match.endpoint.Endpoint` (the listening socket, ZMTP, the
handshake, the bounds) that sends one ``act``/``draw`` request at a time and waits for its reply
until the decision's deadline, serving the other seats' sockets meanwhile (one poll). The bot is
charged only for the time it had: from the moment its socket is known to hold no reply, never for
the referee's own work. A reply is judged (late, out of turn, malformed, oversized, illegal) as it
is taken; whatever the bot sent out of turn is counted as strays, read with
:meth:`Connection.take_strays`.
"""

from __future__ import annotations

import math
import select
import time
from collections.abc import Callable
from typing import Any

from harness.match import zmtp
from harness.match.endpoint import (
    LATE_BATCHES,
    LATE_KERNEL_MS,
    MAX_IGNORED_LOGGED,
    MAX_QUEUED_STRAYS,
    MAX_STRAY_KINDS,
    OVERSLEEP_MS,
    POLL_SLICE_MS,
    READ_BATCH,
    READ_CHUNK,
    SHORT_HEADS,
    ChannelFault,
    Disconnected,
    Endpoint,
    Peer,
    describe_stray,
    read_reply,
)
from harness.specs import FaultKind
from protocol.errors import ProtocolError
from protocol.messages import ActionReply, DiscardReply, Hello

# The hot path's names, bound once per module (as endpoint.py binds its own).
_now = time.perf_counter
_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT
_GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL
_EV_MESSAGE = zmtp.EV_MESSAGE
_decode_reply = read_reply


class Connection(Endpoint):
    """One bot's channel: its endpoint (:class:`Endpoint`, whose arguments it takes) and the request/reply
    exchange (module docstring)."""

    # ------------------------------------------------------------------ messages out

    def hold(self, payload: bytes) -> None:
        """Queue a notification to leave with the next request or notification, in the same write.

        The bot then wakes once for all of them (the referee sends a hand's
        notifications right before the bot's next request).
        """
        if self._bot is not None and not self.gone:
            if self.trace is not None:
                self.trace.sent(payload)
            self._held.append(zmtp.frame(payload))

    def _with_held(self, frame: bytes) -> bytes:
        held = self._held
        held.append(frame)
        data = b"".join(held)
        held.clear()
        return data

    def send(self, payload: bytes) -> bool:
        """Send a notification (no reply expected); never blocks. Notifications held go first.

        Returns:
            False if it could not be queued (peer gone, or not reading: :data:`OUT_LIMIT`).
        """
        bot = self._bot
        if bot is None or self.gone:
            return False
        if self.trace is not None:
            self.trace.sent(payload)
        frame = zmtp.frame(payload)
        r = self._write(bot, self._with_held(frame) if self._held else frame)
        if r > 0:
            return True
        if r == 0:
            self.dropped += 1
            if self.dropped <= MAX_IGNORED_LOGGED:
                self._log(f"{self.name}: message dropped, the bot is not reading (queue full)")
        else:
            self._log(f"{self.name}: message dropped, the peer is gone")
            self._lost()
        return False

    def exchange(self, payload: bytes, timeout_ms: int = 20_000) -> bytes:
        """Send ``payload`` and return the bot's next message, unjudged: no seq, clock or checks.

        The transport alone, for ``harness bench match``'s floor (the same
        sockets and parser as :meth:`request`).

        Raises:
            Disconnected: the bot is gone, or sent nothing within ``timeout_ms``.
        """
        bot = self._bot
        if bot is None or self.gone or self._write(bot, zmtp.frame(payload)) <= 0:
            raise Disconnected(self.name)
        parser = bot.parser
        while True:
            ev = parser.next()
            if ev is not None:
                if ev[0] == _EV_MESSAGE:
                    message: bytes = ev[1]
                    return message
                if ev[0] == zmtp.EV_FAULT:
                    raise Disconnected(self.name)
                continue
            if self._recv(bot):
                continue
            if bot.eof or not select.select([bot.fd], [], [], timeout_ms / 1000.0)[0]:
                raise Disconnected(self.name)

    # ------------------------------------------------------------------ requests

    # ------------------------------------------------------------------ requests

    def request(
        self,
        payload: bytes,
        seq: int,
        expect: type,
        deadline: Callable[[], int],
        is_dead: Callable[[], bool] | None = None,
        after_send: Callable[[], None] | None = None,
        sent: Callable[[float], object] | None = None,
    ) -> ActionReply | DiscardReply:
        """Send one request and wait for its reply until the decision's deadline.

        Messages the bot sent out of turn meanwhile are counted, not raised:
        read them with :meth:`take_strays` after the call, whatever its outcome.
        :attr:`answered_at` is set to the time the reply (or the faulty message
        that ended the request) is charged up to. While waiting, the other
        seats' sockets are served too (one poll).

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
            sent: optional, called once the request is out (before ``after_send``) with the time taken right
                before the write that sent it (``time.perf_counter()`` seconds): the referee starts the
                decision's clock there again, so a stall of the referee before the send (descheduled,
                stopped) is never the bot's time, and one after the write never shortens it.

        Returns:
            The decoded reply echoing ``seq``.

        Raises:
            Disconnected: the peer is gone (before or while waiting).
            ChannelFault: timeout, malformed, illegal (a ``seq`` that answers no
                request, a flood of messages before the request) or oversized
                reply; the kind and the detail for the hand history. ``fatal``
                when a bound of the transport was broken (the bot is to be put out).
        """
        if self.violation is not None:
            fault = self.take_violation()
            self._give_up(seq)
            self.answered_at = _now()
            raise fault  # type: ignore[misc]
        bot = self._bot
        if self.gone or bot is None:
            raise Disconnected(self.name)
        self._requesting = True
        try:
            return self._request(bot, payload, seq, expect, deadline, is_dead, after_send, sent)
        finally:
            self._requesting = False

    def _send_request(self, bot: Peer, payload: bytes, seq: int, deadline: Callable[[], int]) -> None:
        """Judge what the bot sent before the request, then send it (with any held notifications).

        ``deadline``: the request's (:meth:`request`), read only for the wire trace.

        Raises:
            ChannelFault: a violation found first, a flood of messages out of turn, or a request the bot does
                not read.
            Disconnected: the bot is gone.
        """
        hub = self.hub
        fd = bot.fd
        # Whatever the bot sent before this request cannot answer it, even if it guessed the seq
        # (PROTOCOL.md: requests are answered, never anticipated): judged as out of turn first.
        ready = hub.wait(0)
        if ready:
            for rfd, ev in ready:
                hub.dispatch(rfd, ev)
        if bot.parser.buffered and not self._flooded:
            self._serve_bot()
        if self.violation is not None:
            fault = self.take_violation()
            self._give_up(seq)
            self.answered_at = _now()
            raise fault  # type: ignore[misc]
        if self.gone:
            raise Disconnected(self.name)
        if self._flooded:
            self._flooded = False
            self._unsolicited = 0
            hub.modify(fd, self._mask(bot))
            self._give_up(seq)
            self.answered_at = _now()
            raise ChannelFault(
                FaultKind.ILLEGAL,
                f"flood: more than {MAX_QUEUED_STRAYS} messages sent out of turn were waiting; request "
                f"{seq} was not sent (a bot sends one reply per request and nothing else)",
            )
        self._unsolicited = 0
        if self.trace is not None:
            self.trace.sent(payload, deadline())
        n = len(payload)  # the frame (zmtp.frame), built here: one concatenation
        frame = (SHORT_HEADS[n] if n < 256 else b"\x02" + n.to_bytes(8, "big")) + payload
        if self._held:
            self._held.append(frame)
            frame = b"".join(self._held)
            self._held.clear()
        self.sent_at = _now()  # before the write: the bot cannot have the request earlier
        sent = self._write(bot, frame)
        if sent <= 0:
            if sent < 0:
                self._lost()
                raise Disconnected(self.name)
            self._give_up(seq)
            self.answered_at = _now()
            raise ChannelFault(FaultKind.TIMEOUT, "request not delivered: the bot is not reading its messages")

    def _request(
        self,
        bot: Peer,
        payload: bytes,
        seq: int,
        expect: type,
        deadline: Callable[[], int],
        is_dead: Callable[[], bool] | None,
        after_send: Callable[[], None] | None,
        sent: Callable[[float], object] | None = None,
    ) -> ActionReply | DiscardReply:
        if self._late:
            self._late = []
        hub = self.hub
        fd = bot.fd
        wait = hub.wait
        self._send_request(bot, payload, seq, deadline)
        if sent is not None:
            sent(self.sent_at)
        # The last moment the bot is known to have sent no reply: the bot is charged from
        # here at least, never for the referee's own work (after_send, being descheduled).
        known_empty = _now()
        # True when the referee did work since known_empty (the socket must be read
        # before polling, so that what arrived meanwhile is charged up to known_empty).
        busy = False
        if after_send is not None:
            after_send()
            busy = True
        checked = known_empty  # when is_dead was last asked (s)
        while True:
            left = deadline()
            if left <= 0:
                reply = self._last_look(seq, expect, known_empty)
                if reply is not None:
                    return reply
                self._give_up(seq)
                self.behind = seq
                raise ChannelFault(FaultKind.TIMEOUT, self._timeout_detail(seq))
            if busy:
                # Sent while the referee was not looking: it arrived after known_empty at the earliest.
                reply = self._take_available(seq, expect, known_empty)
                if reply is not None:
                    return reply
                if not self._cut:
                    known_empty = _now()
                    busy = False
                continue
            # Nothing but this loop ran since known_empty: the poll starts from a socket known empty.
            entered = known_empty
            asked = left if left < POLL_SLICE_MS else POLL_SLICE_MS
            events = wait(asked / 1000.0)  # whole ms (rounded up): never back before the deadline
            back = _now()
            on_time = (back - entered) * 1000.0 <= asked + OVERSLEEP_MS
            mine = 0
            for efd, ev in events:
                if efd == fd:
                    mine = ev
                else:
                    hub.dispatch(efd, ev)  # another seat's socket (or this seat's stray connection)
            if mine & _POLLOUT:
                self._flush(bot)
            if not mine & (_POLLIN | _GONE):
                if is_dead is not None and (not events or back - checked >= POLL_SLICE_MS / 1000.0):
                    checked = back  # a slice without the bot: has its process ended (its socket kept open)?
                    if is_dead():
                        self._lost()
                        raise Disconnected(self.name)
                if on_time:
                    known_empty = back
                else:  # the referee was not running: look before the next poll, charge from known_empty
                    busy = True
                if len(events) > (1 if mine else 0):
                    busy = True  # other sockets were served after back
                continue
            # Arrived during the poll: at its return if the referee was running, else any time in it.
            reply = self._take_available(seq, expect, back if on_time else entered)
            if reply is not None:
                return reply
            known_empty = _now()
            busy = self._cut  # events left unread: read them before the next poll

    def _take_available(self, seq: int, expect: type, arrived: float) -> ActionReply | DiscardReply | None:
        """Read what the bot sent (up to :data:`READ_BATCH` events) while ``seq`` is pending.

        Returns the reply (charged up to ``arrived``), or None when none of
        them answered (:attr:`_cut` True when events are left to read).

        Raises:
            ChannelFault: a message fails the request, or a bound was broken (``fatal``).
            Disconnected: the bot's connection ended (after everything it sent was read).
        """
        bot = self._bot
        assert bot is not None
        parser = bot.parser
        recv = bot.sock.recv
        for _ in range(READ_BATCH):
            ev = parser.next()
            if ev is None:
                if not bot.eof:  # one read (as _recv, inline: once or twice per reply)
                    try:
                        data = recv(READ_CHUNK)
                    except BlockingIOError:
                        data = None
                    except OSError:
                        data = b""
                    if data:
                        parser.feed(data)
                        continue
                    if data is not None:
                        bot.eof = True
                if bot.eof:
                    self._lost()
                    raise Disconnected(self.name)
                self._cut = False
                return None
            if ev[0] == _EV_MESSAGE:
                data = ev[1]
                # The common case first: a well-formed reply to this request (anything else is
                # judged again by _judge, the one place that says what is wrong).
                try:
                    msg = _decode_reply(data, self._max_bytes)
                except ProtocolError:
                    msg = None
                if type(msg) is expect and msg.seq == seq:  # type: ignore[union-attr]
                    if self.trace is not None:
                        self.trace.received(data, (arrived - self.sent_at) * 1000.0)
                    self.messages_in += 1
                    self.bytes_in += len(data)
                    self._answered = seq
                    self.answered_at = arrived
                    return msg  # type: ignore[return-value]
                reply = self._judge(data, seq, expect, arrived)
                if reply is not None:
                    return reply
                continue
            kind = ev[0]
            if kind == zmtp.EV_COMMAND:
                if self._command(bot, ev[1], ev[2]):
                    continue
                self._violate(FaultKind.ILLEGAL, self._flood_words())
            elif kind == zmtp.EV_SKIPPED:
                self.messages_in += 1
                self.bytes_in += ev[1]
                if self.trace is not None:
                    self.trace.skipped(ev[1], self._max_bytes)
                self.answered_at = arrived
                self._give_up(seq)
                raise ChannelFault(FaultKind.OVERSIZED, f"{ev[1]} bytes exceeds the limit {self._max_bytes}")
            else:
                self._violate(FaultKind(ev[1]), f"{ev[2]} (ZMTP)")
            fault = self.take_violation()
            self.answered_at = arrived
            self._give_up(seq)
            raise fault  # type: ignore[misc]
        self._cut = True
        return None

    def _judge(self, data: bytes, seq: int, expect: type, arrived: float) -> ActionReply | DiscardReply | None:
        """One message read while ``seq`` is pending: its reply (charged up to ``arrived``) or None.

        Raises:
            ChannelFault: the message fails the request (charged up to ``arrived``).
        """
        try:
            reply: ActionReply | DiscardReply | None = self._take(data, seq, expect)
        except ChannelFault:
            self.answered_at = arrived
            self._give_up(seq)  # a correct second try would answer nothing
            raise
        if reply is not None:
            self.answered_at = arrived
        return reply

    def _last_look(self, seq: int, expect: type, known_empty: float) -> ActionReply | DiscardReply | None:
        """At the deadline: take a reply that is already there, so that only a bot that is late is late.

        Everything the kernel holds from the bot is read (a few batches at
        most: a bot still flooding has had its chance); a reply whose first
        bytes are there gets up to :data:`LATE_KERNEL_MS` for the rest. A reply
        found is charged up to ``known_empty``.
        """
        bot = self._bot
        assert bot is not None
        end = _now() + LATE_KERNEL_MS / 1000.0
        batches = 0
        while True:
            reply = self._take_available(seq, expect, known_empty)
            if reply is not None:
                return reply
            if self._cut:
                batches += 1
                if batches >= LATE_BATCHES:
                    return None
                continue
            if bot.parser.buffered and _now() < end:  # part of a frame is here: the rest is on its way
                select.select([bot.fd], [], [], 0.005)
                continue
            return None

    def _timeout_detail(self, seq: int) -> str:
        detail = f"no reply with seq {seq} within the time limit"
        if self._late:
            seqs = ", ".join(map(str, self._late[:5])) + (", ..." if len(self._late) > 5 else "")
            detail += f" (meanwhile late replies to earlier requests arrived and were discarded: seq {seqs})"
        return detail

    def catch_up(self, wait_ms: int, is_dead: Callable[[], bool] | None = None) -> bool:
        """Before the request that follows a timeout: wait up to ``wait_ms`` for the bot's late reply.

        A bot that was slow once is still busy with the request that timed out; a request sent
        meanwhile would time out too, and the next one, however fast the bot is again. Its next
        request waits (unsent, no one's clock running) for that late reply, once per stall: a
        bot still silent at ``wait_ms`` gets its requests at once again, each timed as usual, and
        no further wait until its late reply to the request waited for comes (the same stall: a
        bot that never answers again costs each of its requests ``decision_ms``, not six times it).
        The other seats' sockets are served meanwhile.

        Returns:
            True when the bot caught up (or was not behind), False when it did not in time.
        """
        seq, self.behind = self.behind, None
        if seq is None:
            return True
        if self._stalled_on in self._timed_out:
            for fd, ev in self.hub.poll(0):  # its late reply may be waiting unread
                self.hub.dispatch(fd, ev)
            if self._stalled_on in self._timed_out:  # still silent since the last wait ran out: no second wait
                self._log(f"{self.name}: silent since request {self._stalled_on}, the same stall: no wait")
                return False
        self._stalled_on = None
        end = _now() + wait_ms / 1000.0
        hub = self.hub
        while seq in self._timed_out:
            left_ms = (end - _now()) * 1000.0
            if left_ms <= 0:
                self._stalled_on = seq
                return False
            if self.gone or self._bot is None or self.violation is not None or self._flooded:
                return False
            for fd, ev in hub.poll(max(1, min(POLL_SLICE_MS, math.ceil(left_ms)))):
                hub.dispatch(fd, ev)
            if is_dead is not None and seq in self._timed_out and is_dead():
                return False
        return True

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

    @property
    def has_strays(self) -> bool:
        """True when :meth:`take_strays` has a fault to give (messages were sent out of turn)."""
        return self._stray_total != 0

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

    def _take(self, data: bytes, seq: int | None, expect: type | None) -> Any:
        """Judge one incoming message while ``seq`` is pending (None: no request pending).

        Returns the reply for ``seq``, or None if the message was discarded or
        counted as out of turn. Raises ChannelFault for a message that fails
        the pending request: malformed, oversized, or a ``seq`` that answers no
        request (a message that fails nothing when no request is pending).
        """
        if self.trace is not None:
            self.trace.received(data, (_now() - self.sent_at) * 1000.0 if seq is not None else None)
        self.messages_in += 1
        self.bytes_in += len(data)
        if len(data) > self._max_bytes:
            raise ChannelFault(FaultKind.OVERSIZED, f"{len(data)} bytes exceeds the limit {self._max_bytes}")
        try:
            msg = _decode_reply(data, self._max_bytes)
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
            self._stray(FaultKind.ILLEGAL, f"{describe_stray(msg, rseq)} (a second reply)")
            return None
        if seq is not None and type(rseq) is int:
            # Answers no request ever sent: the bot's reply to the pending one, with a wrong seq.
            raise ChannelFault(
                FaultKind.ILLEGAL,
                f"a reply with seq {rseq}, but the pending request is seq {seq}: echo the request's seq",
            )
        self._stray(FaultKind.ILLEGAL, f"{describe_stray(msg, rseq)} (no such request)")
        return None
