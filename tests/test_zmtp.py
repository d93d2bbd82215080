"""The referee's ZMTP parser (harness.match.zmtp): any bytes, any split, bounded; and its verdicts."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.match import zmtp
from harness.match.zmtp import (
    COMMAND_LIMIT,
    EV_COMMAND,
    EV_FAULT,
    EV_GREETING,
    EV_MESSAGE,
    EV_READY,
    EV_SKIPPED,
    GREETING,
    Parser,
)

LIMIT = 300  # small, so that random data reaches every bound
SKIP = 1000
KINDS = {EV_GREETING, EV_READY, EV_MESSAGE, EV_SKIPPED, EV_COMMAND, EV_FAULT}
GREETING_30 = GREETING[:11] + b"\x00" + GREETING[12:]  # a ZMTP 3.0 peer


def drain(p: Parser) -> list[tuple[Any, ...]]:
    events = []
    while (ev := p.next()) is not None:
        events.append(ev)
        if ev[0] == EV_FAULT:
            break
    return events


def run(chunks: list[bytes], limit: int = LIMIT, skip: int = SKIP) -> tuple[Parser, list[tuple[Any, ...]]]:
    p = Parser(limit, skip)
    events: list[tuple[Any, ...]] = []
    for chunk in chunks:
        was_done = p.done
        p.feed(chunk)
        if not was_done:
            events += drain(p)
        # After the events are drained the parser holds at most one partial frame.
        assert p.buffered <= max(LIMIT, COMMAND_LIMIT, zmtp.GREETING_BYTES) + 9
    return p, events


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, last = [], 0
    for c in points:
        out.append(data[last:c])
        last = c
    out.append(data[last:])
    return out


def ready_peer(kind: bytes = b"DEALER", **props: bytes) -> bytes:
    return GREETING + zmtp.ready(kind, **props)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(min_value=0), max_size=30), st.booleans())
def test_any_bytes_in_any_split_end_in_events_a_fault_or_a_wait(data: bytes, cuts: list[int], prefix: bool) -> None:
    """Never an exception, never more than one partial frame held; after a fault, only that fault."""
    stream = (ready_peer() + data) if prefix else data
    p, events = run(splits(stream, cuts))
    assert all(ev[0] in KINDS for ev in events)
    faults = [i for i, ev in enumerate(events) if ev[0] == EV_FAULT]
    if faults:
        assert faults == [len(events) - 1]  # the fault is the last event, and the parser is done
        assert p.done and p.next() == events[-1]
        p.feed(b"\0" * 100_000)
        assert p.buffered == 0
    for ev in events:
        if ev[0] == EV_MESSAGE:
            assert len(ev[1]) <= LIMIT
        if ev[0] == EV_SKIPPED:
            assert LIMIT < ev[1] <= SKIP


frames = st.one_of(
    st.binary(max_size=LIMIT).map(lambda b: (EV_MESSAGE, b)),
    st.integers(min_value=LIMIT + 1, max_value=SKIP).map(lambda n: (EV_SKIPPED, n)),
    st.binary(max_size=16).map(lambda c: (EV_COMMAND, c)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(frames, max_size=20), st.lists(st.integers(min_value=0), max_size=40), st.booleans())
def test_a_valid_stream_in_any_split_gives_its_frames_in_order(
    items: list[tuple[int, Any]], cuts: list[int], v30: bool
) -> None:
    stream = (GREETING_30 if v30 else GREETING) + zmtp.ready(b"DEALER", Identity=b"me")
    expected: list[tuple[Any, ...]] = []
    for kind, x in items:
        if kind == EV_MESSAGE:
            stream += zmtp.frame(x)
            expected.append((EV_MESSAGE, x, None))
        elif kind == EV_SKIPPED:
            stream += zmtp.frame(b"s" * x)
            expected.append((EV_SKIPPED, x, None))
        else:
            stream += zmtp.command(b"PING", b"\x00\x0a" + x)
            expected.append((EV_COMMAND, b"PING", b"\x00\x0a" + x))
    p, events = run(splits(stream, cuts))
    assert events[0] == (EV_GREETING, (3, 0 if v30 else 1), None)
    assert events[1][0] == EV_READY and events[1][1] == {"socket-type": b"DEALER", "identity": b"me"}
    assert [tuple(e) for e in events[2:]] == expected
    assert p.buffered == 0


def fault_of(stream: bytes) -> tuple[str, str]:
    p, events = run([stream])
    assert events and events[-1][0] == EV_FAULT, events
    return events[-1][1], events[-1][2]


def test_a_long_header_announcing_2_to_the_63_is_refused_at_its_nine_bytes() -> None:
    head = b"\x02" + (1 << 63).to_bytes(8, "big")
    what, detail = fault_of(ready_peer() + head)  # no byte of the body was needed
    assert what == "oversized" and str(1 << 63) in detail


def test_the_verdicts() -> None:
    assert fault_of(ready_peer() + zmtp.frame(b"a", more=True))[1].startswith("a message of more than one frame")
    assert fault_of(ready_peer() + b"\x08\x01x")[1].startswith("a frame with flags 0x08")
    assert fault_of(ready_peer() + b"\x05\x05\x04PING")[1] == "a command frame with the MORE flag"
    assert fault_of(ready_peer() + b"\x06" + (COMMAND_LIMIT + 1).to_bytes(8, "big"))[0] == "oversized"
    assert "mechanism 'PLAIN'" in fault_of(GREETING[:12] + b"PLAIN".ljust(20, b"\0"))[1]  # at byte 32
    assert "ZMTP version 2" in fault_of(GREETING[:10] + b"\x02")[1]
    assert "not a ZMTP greeting" in fault_of(b"GET / HTTP/1.1\r\n")[1]
    assert "Socket-Type 'PUB'" in fault_of(ready_peer(b"PUB"))[1]
    assert "instead of READY" in fault_of(GREETING + zmtp.command(b"HELLO", b"x"))[1]
    assert "before the handshake" in fault_of(GREETING + zmtp.frame(b"hi"))[1]
    assert fault_of(GREETING + zmtp.command(b"READY", b"\x0bSocket-Type\x00\x00"))[1].startswith("a READY property")


def test_a_greeting_that_never_finishes_is_only_a_wait() -> None:
    p, events = run([GREETING[:63]])
    assert events == [] and not p.done and p.buffered == 63


def test_a_frame_fed_one_byte_at_a_time_is_never_copied_whole_per_byte() -> None:
    """64 KiB fed byte by byte: the bytes left over live in one buffer that grows in place (each
    byte is copied in once, amortised), never rebuilt from the whole buffer per feed, which cost
    quadratic work (about 11 us per byte at 64 KiB). Work, not time: the buffer object is checked."""
    body = bytes(range(256)) * 256  # 64 KiB
    data = ready_peer() + zmtp.frame(body)
    p = Parser(len(body), len(body))
    kept = None
    rebuilt = 0
    events: list[tuple[Any, ...]] = []
    for i in range(len(data)):
        p.feed(data[i : i + 1])
        events += drain(p)
        buf = p._buf  # the parser's buffer, inspected: the property is about its copies
        if p.buffered > 1 and buf is not kept:
            rebuilt += 1
        kept = buf if p.buffered else None
    assert [e[0] for e in events] == [EV_GREETING, EV_READY, EV_MESSAGE]
    assert events[-1][1] == body and type(events[-1][1]) is bytes
    # One new buffer per event at most (each frame's leftover starts one), not one per byte fed.
    assert rebuilt <= 3, rebuilt


def test_a_mutable_buffer_fed_is_never_changed_by_the_parser() -> None:
    """The parser copies a caller's bytearray rather than growing it in place."""
    mine = bytearray(GREETING[:10])
    p = Parser(LIMIT)
    p.feed(mine)
    p.feed(GREETING[10:])
    assert mine == GREETING[:10]
    assert drain(p)[0][0] == EV_GREETING
