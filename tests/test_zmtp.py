"""The referee's ZMTP parser (harness.match.zmtp) and its Rust twin (harness.match.native_wire): any bytes,
any split, bounded; their verdicts; and the same events from both for any bytes in any split."""

from __future__ import annotations

from typing import Any

import pytest
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
from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing

if native_core_missing():
    NativeParser: Any = None
else:
    from harness.match.native_wire import Parser as NativeParser
#: Both parsers, each test run on each (the native one skipped, loudly, when the core is not built).
PARSERS = [
    pytest.param(Parser, id="python"),
    pytest.param(NativeParser, id="rust", marks=pytest.mark.skipif(NativeParser is None, reason=NATIVE_CORE_MISSING)),
]

LIMIT = 300  # small, so that random data reaches every bound
SKIP = 1000
KINDS = {EV_GREETING, EV_READY, EV_MESSAGE, EV_SKIPPED, EV_COMMAND, EV_FAULT}
GREETING_30 = GREETING[:11] + b"\x00" + GREETING[12:]  # a ZMTP 3.0 peer


def drain(p: Any) -> list[tuple[Any, ...]]:
    events = []
    while (ev := p.next()) is not None:
        events.append(ev)
        if ev[0] == EV_FAULT:
            break
    return events


def run(
    chunks: list[bytes], limit: int = LIMIT, skip: int = SKIP, cls: Any = Parser
) -> tuple[Any, list[tuple[Any, ...]]]:
    p = cls(limit, skip)
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


@pytest.mark.parametrize("cls", PARSERS)
@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.integers(min_value=0), max_size=30), st.booleans())
def test_any_bytes_in_any_split_end_in_events_a_fault_or_a_wait(
    cls: Any, data: bytes, cuts: list[int], prefix: bool
) -> None:
    """Never an exception, never more than one partial frame held; after a fault, only that fault."""
    stream = (ready_peer() + data) if prefix else data
    p, events = run(splits(stream, cuts), cls=cls)
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


@pytest.mark.parametrize("cls", PARSERS)
@settings(max_examples=300, deadline=None)
@given(st.lists(frames, max_size=20), st.lists(st.integers(min_value=0), max_size=40), st.booleans())
def test_a_valid_stream_in_any_split_gives_its_frames_in_order(
    cls: Any, items: list[tuple[int, Any]], cuts: list[int], v30: bool
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
    p, events = run(splits(stream, cuts), cls=cls)
    assert events[0] == (EV_GREETING, (3, 0 if v30 else 1), None)
    assert events[1][0] == EV_READY and events[1][1] == {"socket-type": b"DEALER", "identity": b"me"}
    assert [tuple(e) for e in events[2:]] == expected
    assert p.buffered == 0


def fault_of(stream: bytes, cls: Any = Parser) -> tuple[str, str]:
    p, events = run([stream], cls=cls)
    assert events and events[-1][0] == EV_FAULT, events
    return events[-1][1], events[-1][2]


@pytest.mark.parametrize("cls", PARSERS)
def test_a_long_header_announcing_2_to_the_63_is_refused_at_its_nine_bytes(cls: Any) -> None:
    head = b"\x02" + (1 << 63).to_bytes(8, "big")
    what, detail = fault_of(ready_peer() + head, cls)  # no byte of the body was needed
    assert what == "oversized" and str(1 << 63) in detail


@pytest.mark.parametrize("cls", PARSERS)
def test_the_verdicts(cls: Any) -> None:
    assert fault_of(ready_peer() + zmtp.frame(b"a", more=True), cls)[1].startswith("a message of more than one frame")
    assert fault_of(ready_peer() + b"\x08\x01x", cls)[1].startswith("a frame with flags 0x08")
    assert fault_of(ready_peer() + b"\x05\x05\x04PING", cls)[1] == "a command frame with the MORE flag"
    assert fault_of(ready_peer() + b"\x06" + (COMMAND_LIMIT + 1).to_bytes(8, "big"), cls)[0] == "oversized"
    assert "mechanism 'PLAIN'" in fault_of(GREETING[:12] + b"PLAIN".ljust(20, b"\0"), cls)[1]  # at byte 32
    assert "ZMTP version 2" in fault_of(GREETING[:10] + b"\x02", cls)[1]
    assert "not a ZMTP greeting" in fault_of(b"GET / HTTP/1.1\r\n", cls)[1]
    assert "Socket-Type 'PUB'" in fault_of(ready_peer(b"PUB"), cls)[1]
    assert "instead of READY" in fault_of(GREETING + zmtp.command(b"HELLO", b"x"), cls)[1]
    assert "before the handshake" in fault_of(GREETING + zmtp.frame(b"hi"), cls)[1]
    cut = GREETING + zmtp.command(b"READY", b"\x0bSocket-Type\x00\x00")
    assert fault_of(cut, cls)[1].startswith("a READY property")


@pytest.mark.parametrize("cls", PARSERS)
def test_a_greeting_that_never_finishes_is_only_a_wait(cls: Any) -> None:
    p, events = run([GREETING[:63]], cls=cls)
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


@pytest.mark.parametrize("cls", PARSERS)
def test_a_mutable_buffer_fed_is_never_changed_by_the_parser(cls: Any) -> None:
    """The parser copies a caller's bytearray rather than growing it in place."""
    mine = bytearray(GREETING[:10])
    p = cls(LIMIT)
    p.feed(mine)
    p.feed(GREETING[10:])
    assert mine == GREETING[:10]
    assert drain(p)[0][0] == EV_GREETING


# A stream from pieces that reach every branch: valid frames, bad flags, long headers, commands, cut greetings.
pieces = st.one_of(
    st.binary(max_size=40),
    st.binary(max_size=LIMIT + 20).map(zmtp.frame),
    st.builds(zmtp.frame, st.binary(max_size=8), st.just(True)),
    st.builds(zmtp.command, st.sampled_from([b"PING", b"PONG", b"ERROR", b"READY", b"SUBSCRIBE", b"x"]),
              st.binary(max_size=20)),
    st.integers(0, 255).map(lambda f: bytes((f,))),
    st.integers(0, 2**64 - 1).map(lambda n: b"\x02" + n.to_bytes(8, "big")),
    st.integers(0, 5000).map(lambda n: b"\x06" + n.to_bytes(8, "big")),
    st.sampled_from([GREETING, GREETING_30, GREETING[:12] + b"PLAIN".ljust(20, b"\0") + GREETING[32:],
                     GREETING[:10] + b"\x02" + GREETING[11:], GREETING[:9] + b"\x00" + GREETING[10:],
                     zmtp.ready(b"DEALER"), zmtp.ready(b"PUB"), zmtp.ready(b"REQ", Identity=b"\xc0\xffA'\\"),
                     zmtp.command(b"READY", b"\x0bSocket-Type\x00\x00"), zmtp.command(b"\x01'\x80\"", b"")]),
)


@pytest.mark.skipif(NativeParser is None, reason=NATIVE_CORE_MISSING)
@settings(max_examples=500, deadline=None)
@given(st.booleans(), st.lists(pieces, max_size=12), st.lists(st.integers(min_value=0), max_size=30),
       st.integers(0, 600), st.integers(0, 1200), st.booleans())
def test_the_rust_parser_gives_the_python_parsers_events(
    prefix: bool, parts: list[bytes], cuts: list[int], limit: int, skip: int, bytearrays: bool
) -> None:
    """Any bytes in any split, any limits: the same events (faults' texts included), buffered, done and version."""
    stream = (ready_peer() if prefix else b"") + b"".join(parts)
    ours, theirs = Parser(limit, skip), NativeParser(limit, skip)
    for chunk in splits(stream, cuts):
        for p in (ours, theirs):
            p.feed(bytearray(chunk) if bytearrays else chunk)
        while True:
            a, b = ours.next(), theirs.next()
            assert a == b
            assert (ours.buffered, ours.done, ours.version) == (theirs.buffered, theirs.done, theirs.version)
            if a is None or a[0] == EV_FAULT:
                break
    assert (ours.frame_limit, ours.skip_limit) == (theirs.frame_limit, theirs.skip_limit)
