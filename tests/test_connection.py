"""The referee's side of a bot channel: handshake, secret, seq, deadlines, size guard.

Real ZeroMQ sockets over ipc in a private directory; the "bots" are DEALER
sockets driven by the test itself (the full subprocess path is covered by
tests/test_referee_*.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq

from harness.match.clock import Clock
from harness.match.connection import Connection
from harness.match.endpoint import ChannelFault, Disconnected
from harness.specs import FaultKind
from protocol import codec
from protocol.messages import ActionReply, ActRequest, DiscardReply, Hello, Legal, TimeLeft

SECRET = "s3cr3t"


@pytest.fixture()
def ctx() -> Iterator[zmq.Context[Any]]:
    c = zmq.Context()
    yield c
    c.destroy(linger=0)


@pytest.fixture()
def conn(ctx: zmq.Context[Any], tmp_path: Path) -> Iterator[Connection]:
    lines: list[str] = []
    c = Connection(f"ipc://{tmp_path}/bot.sock", SECRET, "bot", 4096, lines.append)
    c.log_lines = lines  # type: ignore[attr-defined]
    yield c
    c.close()


def dealer(ctx: zmq.Context[Any], conn: Connection) -> zmq.Socket[Any]:
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.RCVTIMEO, 120_000)  # an outer limit only: a loaded machine delivers late
    s.connect(conn.endpoint)
    return s


def handshake(conn: Connection, timeout_s: float = 120.0) -> bool:
    """True once the handshake is done; False if not within ``timeout_s`` (generous by default: the outer limit
    of a wait for an event; the short ones given by tests that expect no handshake only make them fast)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if conn.poll_handshake():
            return True
        conn.wait(20)
    return False


def hello(secret: str = SECRET, v: int = 1) -> bytes:
    return codec.encode(Hello(secret=secret, name="bot", v=v))


def request(seq: int) -> bytes:
    return codec.encode(
        ActRequest(seq=seq, state={}, legal=Legal(actions=("fold", "call")), time=TimeLeft(100, 0))
    )


def test_handshake_welcomes_the_right_secret(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    assert codec.decode(bot.recv()).TYPE == "welcome"


def test_wrong_secret_is_ignored_and_cannot_answer(ctx: zmq.Context[Any], conn: Connection) -> None:
    intruder = dealer(ctx, conn)
    intruder.send(hello("wrong"))
    intruder.send(b"garbage")
    assert not handshake(conn, 0.2)
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()  # welcome
    assert any("wrong secret" in line for line in conn.log_lines)  # type: ignore[attr-defined]
    clock = Clock(150, 0)
    clock.start()
    # The intruder answers first with a well-formed reply for seq 1: ignored.
    intruder.send(codec.encode(ActionReply(seq=1, action="fold")))
    time.sleep(0.05)  # ignored whether it arrives before the request or during it
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    assert err.value.kind == FaultKind.TIMEOUT
    with pytest.raises(zmq.Again):
        intruder.recv(zmq.NOBLOCK)  # the intruder never got the request


def test_version_mismatch_is_refused(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello(v=99))
    assert not handshake(conn, 0.3)
    assert conn.failure is not None and "99" in conn.failure.detail
    err = codec.decode(bot.recv())
    assert err.TYPE == "error" and err.reason == "version_mismatch"


def test_late_reply_is_discarded_not_applied_to_next_request(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    clock = Clock(30, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    assert err.value.kind == FaultKind.TIMEOUT
    assert msgpack.unpackb(bot.recv())["seq"] == 1
    # The bot answers seq 1 late, and again correctly for seq 2 only after it is asked.
    bot.send(codec.encode(ActionReply(seq=1, action="fold")))
    clock.start()
    sent = conn.request  # keep the call readable
    import threading

    def answer() -> None:
        msg = msgpack.unpackb(bot.recv())
        bot.send(codec.encode(ActionReply(seq=msg["seq"], action="call")))

    t = threading.Thread(target=answer)
    t.start()
    reply = sent(request(2), 2, ActionReply, clock.remaining_ms)
    t.join()
    assert (reply.seq, reply.action) == (2, "call")
    assert conn.take_strays() is None  # a late reply is discarded, never a second fault
    assert any("late reply to request 1" in line for line in conn.log_lines)  # type: ignore[attr-defined]


def test_replies_sent_before_the_request_never_answer_it(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    bot.send(codec.encode(ActionReply(seq=7, action="fold")))  # never asked
    bot.send(codec.encode(ActionReply(seq=1, action="raise", amount=20)))  # guesses the next seq
    assert conn.wait(120_000)  # they have arrived before the request is sent (the event, not a time)
    import threading

    def answer() -> None:
        msg = msgpack.unpackb(bot.recv())
        bot.send(codec.encode(ActionReply(seq=msg["seq"], action="call")))

    t = threading.Thread(target=answer)
    t.start()
    clock = Clock(1000, 0)
    clock.start()
    reply = conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    t.join()
    assert reply.action == "call"
    stray = conn.take_strays()
    assert stray is not None and stray.kind == FaultKind.ILLEGAL
    assert stray.detail.startswith("2 messages out of turn: ")
    assert "action with seq 1 (no such request)" in stray.detail
    assert conn.take_strays() is None


@pytest.mark.parametrize(
    "payload, kind",
    [
        (b"\xc1garbage", FaultKind.MALFORMED),
        (msgpack.packb({"type": "action", "v": 1, "seq": 1, "action": "raise", "amount": 2.5}), FaultKind.MALFORMED),
        (msgpack.packb({"type": "action", "v": 1, "seq": 1, "action": "raise", "amount": True}), FaultKind.MALFORMED),
        (msgpack.packb({"type": "action", "v": 1, "seq": 1, "action": "raise", "amount": -5}), FaultKind.MALFORMED),
        (msgpack.packb({"type": "action", "v": 1, "seq": 1, "action": "raise", "amount": 2**62}), FaultKind.MALFORMED),
        (codec.encode(DiscardReply(seq=1, cards=())), FaultKind.MALFORMED),
    ],
)
def test_bad_replies_are_faults(ctx: zmq.Context[Any], conn: Connection, payload: bytes, kind: FaultKind) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    clock = Clock(1000, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms, after_send=lambda: (bot.recv(), bot.send(payload)))
    assert err.value.kind == kind


def test_garbage_sent_between_requests_is_a_stray_fault(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    bot.send(b"\xc1garbage")
    assert conn.wait(120_000)  # it has arrived before the request is sent (the event, not a time)
    clock = Clock(1000, 0)
    clock.start()
    reply = conn.request(
        request(1), 1, ActionReply, clock.remaining_ms,
        after_send=lambda: (bot.recv(), bot.send(codec.encode(ActionReply(seq=1, action="fold")))),
    )
    stray = conn.take_strays()
    assert reply.action == "fold" and stray is not None and stray.kind == FaultKind.MALFORMED
    assert stray.detail.startswith("1 message out of turn: malformed message")


def test_a_reply_far_over_the_limit_is_fatal_at_its_header(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    bot.send(b"x" * 1_000_000)  # over the transport's limit (256 KiB for a 4096-byte limit): never buffered
    clock = Clock(2000, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    assert err.value.kind == FaultKind.OVERSIZED and err.value.fatal
    assert "announcing 1000000 bytes" in err.value.detail
    assert clock.remaining_ms() > 0  # noticed before the deadline, not by timing out
    with pytest.raises(Disconnected):  # the connection is closed: the bot is out
        conn.request(request(2), 2, ActionReply, clock.remaining_ms)


def test_flooding_cannot_extend_the_deadline(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    clock = Clock(40, 0)
    clock.start()
    stale = codec.encode(ActionReply(seq=0, action="fold"))

    def flood() -> None:  # sent once the request is out: read on the bot's own clock
        bot.recv()
        for _ in range(2000):
            try:
                bot.send(stale, zmq.NOBLOCK)
            except zmq.Again:
                break

    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms, after_send=flood)
    # seq 0 answers no request: the first one read fails the request at once.
    assert err.value.kind == FaultKind.ILLEGAL
    assert "seq 0, but the pending request is seq 1" in err.value.detail


def ready(ctx: zmq.Context[Any], conn: Connection) -> zmq.Socket[Any]:
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()  # welcome
    return bot


def test_a_reply_with_a_seq_that_answers_no_request_fails_it_at_once(ctx: zmq.Context[Any], conn: Connection) -> None:
    """PROTOCOL.md section 8: one fault (illegal) naming the seq expected, not a timeout as well."""
    bot = ready(ctx, conn)
    clock = Clock(5000, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(
            request(1), 1, ActionReply, clock.remaining_ms,
            after_send=lambda: (bot.recv(), bot.send(codec.encode(ActionReply(seq=2, action="call")))),
        )
    assert err.value.kind == FaultKind.ILLEGAL
    assert err.value.detail == "a reply with seq 2, but the pending request is seq 1: echo the request's seq"
    assert clock.remaining_ms() > 0  # judged when it came, not at the deadline
    assert conn.take_strays() is None


def test_messages_out_of_turn_become_one_count(ctx: zmq.Context[Any], conn: Connection) -> None:
    """Repeated hellos and second replies, before and during a request: one fault with a count."""
    bot = ready(ctx, conn)
    clock = Clock(5000, 0)
    clock.start()

    def answer(seq: int, hellos: int) -> None:
        bot.recv()
        for _ in range(hellos):
            bot.send(hello())
        bot.send(codec.encode(ActionReply(seq=seq, action="call")))
        bot.send(codec.encode(ActionReply(seq=seq, action="fold")))  # a second reply

    assert conn.request(request(1), 1, ActionReply, clock.remaining_ms, after_send=lambda: answer(1, 10)).seq == 1
    stray = conn.take_strays()
    assert stray is not None and stray.detail == "10 messages out of turn: hello (a second one) x10"
    time.sleep(0.05)  # the second reply to request 1 is queued before request 2
    clock.start()
    assert conn.request(request(2), 2, ActionReply, clock.remaining_ms, after_send=lambda: answer(2, 0)).seq == 2
    stray = conn.take_strays()
    assert stray is not None and stray.detail == "1 message out of turn: action with seq 1 (a second reply)"


def test_a_flood_before_a_request_fails_it_unsent_in_bounded_time(ctx: zmq.Context[Any], conn: Connection) -> None:
    bot = ready(ctx, conn)
    for _ in range(300):  # far more than MAX_QUEUED_STRAYS, within the test's own send queue
        bot.send(hello(), zmq.NOBLOCK)
    assert conn.wait(5000)
    time.sleep(0.3)  # the I/O thread delivers the batch once it runs: slow on a loaded machine
    clock = Clock(5000, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    assert err.value.kind == FaultKind.ILLEGAL and err.value.detail.startswith("flood: more than 64 messages")
    assert clock.remaining_ms() > 0  # not by waiting for the deadline
    with pytest.raises(zmq.Again):
        bot.recv(zmq.NOBLOCK)  # the request was never sent
    stray = conn.take_strays()
    assert stray is not None and stray.detail.startswith("64 messages out of turn: hello (a second one) x64")


def test_a_reply_waiting_when_the_referee_comes_back_is_on_time(ctx: zmq.Context[Any], conn: Connection) -> None:
    """The referee busy past the deadline (a slow disk write): the reply it finds then is not late,
    and the bot is charged only up to the moment the referee stopped watching (PROTOCOL.md section 7)."""
    bot = ready(ctx, conn)
    clock = Clock(30, 0)
    marks: list[float] = []

    def busy() -> None:
        bot.recv()
        bot.send(codec.encode(ActionReply(seq=1, action="call")))  # answered at once
        marks.append(time.perf_counter())
        time.sleep(0.15)  # the referee's own work, past the 30 ms deadline

    clock.start()
    reply = conn.request(request(1), 1, ActionReply, clock.remaining_ms, after_send=busy)
    assert reply.action == "call"
    assert clock.remaining_ms() == 0  # the deadline had passed when it was read
    assert conn.answered_at <= marks[0]  # charged from before the referee's work, not after it


# ---------------------------------------------------------------------- unauthenticated peers


def intruder(ctx: zmq.Context[Any], conn: Connection) -> zmq.Socket[Any]:
    """A DEALER that stays away once dropped (a DEALER reconnects by default)."""
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.RECONNECT_IVL, -1)
    s.connect(conn.endpoint)
    return s


def watch(sock: zmq.Socket[Any]) -> zmq.Socket[Any]:
    """A monitor of a test-side socket, to see the referee drop its connection."""
    return sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)


def dropped(monitor: zmq.Socket[Any], conn: Connection, timeout_s: float = 2.0) -> bool:
    """True once the test-side socket saw its connection closed by the referee."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        conn.poll_handshake()
        if monitor.poll(20):
            return True
    return False


def test_a_peer_without_the_secret_is_dropped_at_once_and_never_answered(
    ctx: zmq.Context[Any], conn: Connection
) -> None:
    for first in (hello("wrong"), b"garbage", codec.encode(ActionReply(seq=1, action="fold"))):
        peer = intruder(ctx, conn)
        seen = watch(peer)
        peer.send(first)
        assert dropped(seen, conn), first
        with pytest.raises(zmq.Again):
            peer.recv(zmq.NOBLOCK)
        seen.close()
        peer.close()
    assert conn.dropped_peers == 3 and conn.identity is None
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)


def test_silent_peers_are_capped_and_all_dropped_at_the_hello_and_nobody_connects_after(
    ctx: zmq.Context[Any], conn: Connection, tmp_path: Path
) -> None:
    from harness.match.endpoint import MAX_UNAUTHENTICATED

    silent = []
    for _ in range(MAX_UNAUTHENTICATED + 2):
        peer = intruder(ctx, conn)
        silent.append((peer, watch(peer)))
    time.sleep(0.2)
    conn.poll_handshake()  # reads the monitor: the oldest connections beyond the cap go at once
    assert [dropped(m, conn, 0.1) for _, m in silent] == [True, True] + [False] * MAX_UNAUTHENTICATED
    silent = silent[2:]
    flooder = silent[0][0]
    for _ in range(50):
        flooder.send(b"x" * 2000, zmq.NOBLOCK)  # queued while the bot starts: must cost it nothing
    bot = dealer(ctx, conn)
    bot.send(hello())
    bot.send(codec.encode(ActionReply(seq=7, action="fold")))  # the bot's own stray, queued with its hello
    time.sleep(0.2)
    assert handshake(conn)
    assert all(dropped(m, conn, 0.5) for _, m in silent)
    assert not (tmp_path / "bot.sock").exists()  # nobody can connect any more
    late = dealer(ctx, conn)
    late.send(hello())
    assert not conn.wait(200)  # the others' queue was discarded at the hello; nothing new arrives
    bot.recv()  # welcome

    def answer() -> None:
        bot.recv()  # the request
        bot.send(codec.encode(ActionReply(seq=1, action="fold")))

    replier = threading.Thread(target=answer)
    replier.start()
    clock = Clock(2000, 0)
    clock.start()
    assert conn.request(request(1), 1, ActionReply, clock.remaining_ms).action == "fold"
    replier.join()
    stray = conn.take_strays()  # kept for the bot, not discarded with the others' messages
    assert stray is not None and "seq 7" in stray.detail
    for peer, monitor in silent:
        with pytest.raises(zmq.Again):
            peer.recv(zmq.NOBLOCK)
        monitor.close()
        peer.close()
    late.close()


# ---------------------------------------------------------------------- ZMTP on the raw socket


def raw_bot(conn: Connection) -> Any:
    """A hand-written ZMTP 3.1 DEALER on a raw Unix socket, welcomed; returns (socket, bytes read so far)."""
    import socket as so

    from harness.match import zmtp

    s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    s.settimeout(2)
    s.connect(conn.endpoint[len("ipc://"):])
    s.sendall(zmtp.GREETING + zmtp.ready(b"DEALER") + zmtp.frame(hello()))
    assert handshake(conn)
    return s


def read_events(s: Any, parser: Any, want: int) -> list[Any]:
    events: list[Any] = []
    while len(events) < want:
        parser.feed(s.recv(65536))
        while (ev := parser.next()) is not None:
            events.append(ev)
    return events


def test_ping_gets_pong_with_its_context_and_a_command_flood_is_fatal(conn: Connection) -> None:
    from harness.match import zmtp
    from harness.match.endpoint import COMMAND_BURST

    s = raw_bot(conn)
    theirs = zmtp.Parser(1 << 20)
    events = read_events(s, theirs, 3)  # the referee's greeting, READY (Socket-Type ROUTER), welcome
    assert [e[0] for e in events] == [zmtp.EV_GREETING, zmtp.EV_READY, zmtp.EV_MESSAGE]
    assert events[1][1]["socket-type"] == b"ROUTER" and codec.decode(events[2][1]).TYPE == "welcome"
    s.sendall(zmtp.command(b"PING", b"\x00\x64ctx-42"))
    conn.wait(1000)
    conn.hub.serve(0)
    assert read_events(s, theirs, 1) == [(zmtp.EV_COMMAND, b"PONG", b"ctx-42")]
    s.sendall(zmtp.command(b"X") * (COMMAND_BURST + 5))
    clock = Clock(2000, 0)
    clock.start()
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms)
    assert err.value.kind == FaultKind.ILLEGAL and err.value.fatal and "command frames" in err.value.detail
    # The hint names the limit and what a heartbeat may be, not only "one reply per request".
    assert "100 a second, heartbeats included" in err.value.detail and "ZMQ_HEARTBEAT_IVL" in err.value.detail
    assert "10 ms or more" in err.value.detail
    assert clock.remaining_ms() > 0
    s.close()


def test_a_zmtp_30_peer_and_a_second_frame(conn: Connection) -> None:
    import socket as so

    from harness.match import zmtp

    s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    s.settimeout(2)
    s.connect(conn.endpoint[len("ipc://"):])
    s.sendall(zmtp.GREETING[:11] + b"\x00" + zmtp.GREETING[12:] + zmtp.ready(b"DEALER") + zmtp.frame(hello()))
    assert handshake(conn)
    clock = Clock(2000, 0)
    clock.start()
    reply = codec.encode(ActionReply(seq=1, action="fold"))
    with pytest.raises(ChannelFault) as err:
        conn.request(request(1), 1, ActionReply, clock.remaining_ms,
                     after_send=lambda: s.sendall(zmtp.frame(reply, more=True) + zmtp.frame(b"")))
    assert err.value.kind == FaultKind.MALFORMED and err.value.fatal
    assert "more than one frame" in err.value.detail
    s.close()


def test_a_deadline_already_past_never_waits_for_ever() -> None:
    """The start-up loop asks for ``deadline - now`` ms, which can come out negative when the referee was
    descheduled: epoll takes a negative timeout as "wait for ever", so the hub must take it as "now". Before,
    a bot sleeping past its start-up limit was accepted when it finally connected (the loop was stuck in epoll)."""
    from harness.match.endpoint import Hub

    hub = Hub()
    done = threading.Event()

    def wait() -> None:
        hub.serve(-5)  # nothing registered: only a timeout ends it
        done.set()

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    try:
        assert done.wait(120), "Hub.serve(-5) waited for an event that never comes"  # an outer limit only
    finally:
        hub.close()


def test_a_bot_silent_since_its_catch_up_ran_out_is_not_waited_for_again(
    ctx: zmq.Context[Any], conn: Connection
) -> None:
    """Once per stall (PROTOCOL.md section 8): a bot that stays silent after its catch-up wait ran out gets
    its later requests at once (a bot that never answers again must not cost 5 x decision_ms per request);
    its late reply ends the stall, and the next timeout is waited for again."""
    bot = dealer(ctx, conn)
    bot.send(hello())
    assert handshake(conn)
    bot.recv()
    waits: list[int] = []

    def is_dead() -> bool:  # called between the wait's poll slices: counts the waits entered
        waits.append(1)
        return False

    def time_out(seq: int) -> None:
        clock = Clock(1, 0)
        clock.start()
        with pytest.raises(ChannelFault) as err:
            conn.request(request(seq), seq, ActionReply, clock.remaining_ms)
        assert err.value.kind == FaultKind.TIMEOUT and conn.behind == seq
        assert msgpack.unpackb(bot.recv())["seq"] == seq

    time_out(1)
    assert conn.catch_up(1, is_dead) is False  # the wait ran out: the stall goes on
    time_out(2)
    before = len(waits)
    assert conn.catch_up(600_000, lambda: waits.append(1) or True) is False
    assert len(waits) == before, "a second wait within the same stall"
    time_out(3)
    bot.send(codec.encode(ActionReply(seq=1, action="fold")))  # the late reply: the stall is over
    for _ in range(10_000):  # until the referee has read it (an outer bound only)
        if conn.catch_up(600_000, lambda: waits.append(1) or True) is not False or len(waits) > before:
            break
        conn.behind = 3
        conn.wait(20)
    assert len(waits) > before, "the next timeout after a late reply is waited for again"
