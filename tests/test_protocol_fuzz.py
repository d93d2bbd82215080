"""Property tests: the decoder never raises anything but ProtocolError, and never accepts junk silently."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import decode, decode_reply, encode, to_wire
from protocol.errors import ProtocolError
from protocol.messages import MESSAGE_CLASSES, ActionReply, DiscardReply
from protocol.version import MAX_MESSAGE_BYTES
from tests.protocol_helpers import EXAMPLES
from tests.skip_helpers import NATIVE_CORE_MISSING, native_core_missing

if native_core_missing():
    native_decode_reply: Any = None
else:
    from harness.match.native_wire import decode_reply as native_decode_reply
#: The referee's fast reply decoders: the codec's, and the native core's (skipped, loudly, when not built).
REPLY_DECODERS = [
    pytest.param(decode_reply, id="python"),
    pytest.param(native_decode_reply, id="rust",
                 marks=pytest.mark.skipif(native_decode_reply is None, reason=NATIVE_CORE_MISSING)),
]

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=20)
    | st.sampled_from(["As", "Td", "7c", "fold", "raise", "hello", "action", "discard"])
)
values = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=6)
    | st.dictionaries(st.text(max_size=12) | st.sampled_from(["seq", "v", "type", "cards"]), children, max_size=6),
    max_leaves=30,
)
types = st.sampled_from(sorted(MESSAGE_CLASSES)) | st.text(max_size=8)


def _decode_or_protocol_error(data: bytes) -> Any:
    try:
        return decode(data)
    except ProtocolError as exc:
        assert isinstance(exc.field, str) and exc.field
        return None


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _decode_or_protocol_error(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(types, st.integers(-1, 3), st.dictionaries(st.text(max_size=12), values, max_size=8))
def test_random_maps_with_a_type(t: str, v: int, fields: dict[str, Any]) -> None:
    _decode_or_protocol_error(msgpack.packb({"type": t, "v": v, **fields}))


@FUZZ
@given(st.sampled_from(EXAMPLES), st.data())
def test_one_field_replaced(msg: Any, data: st.DataObject) -> None:
    wire = to_wire(msg)
    key = data.draw(st.sampled_from(sorted(wire)))
    wire[key] = data.draw(values)
    result = _decode_or_protocol_error(msgpack.packb(wire))
    if result is not None:  # accepted: it must encode back to the same map
        assert msgpack.unpackb(encode(result)) == {**to_wire(result)}


@FUZZ
@given(st.sampled_from(EXAMPLES), st.data())
def test_truncated_or_corrupted_valid_messages(msg: Any, data: st.DataObject) -> None:
    raw = bytearray(encode(msg))
    cut = data.draw(st.integers(0, len(raw) - 1))
    _decode_or_protocol_error(bytes(raw[:cut]))
    pos = data.draw(st.integers(0, len(raw) - 1))
    raw[pos] = data.draw(st.integers(0, 255))
    _decode_or_protocol_error(bytes(raw))


@FUZZ
@given(st.integers(0, 2**40), st.sampled_from(["fold", "check", "call", "bet", "raise"]), st.integers(1, 2**40))
def test_valid_replies_always_round_trip(seq: int, action: str, amount: int) -> None:
    msg = ActionReply(seq=seq, action=action, amount=amount)
    assert decode(encode(msg)) == msg
    cards = DiscardReply(seq=seq, cards=("As", "Kd", "2c"))
    assert decode(encode(cards)) == cards


def _outcome(fn: Any, data: bytes) -> Any:
    try:
        return ("ok", fn(data))
    except ProtocolError as exc:
        return ("error", exc.field, str(exc))


field_values = {
    "type": st.sampled_from(["action", "discard", "hello", "act"]) | st.text(max_size=4),
    "v": st.sampled_from([1, 0, 2, True, 1.0, -1, None]),
    "seq": st.integers(-2, 2**33) | st.booleans() | st.none() | st.floats(allow_nan=False),
    "action": st.sampled_from(["fold", "check", "call", "bet", "raise", "allin", ""]) | st.integers(0, 3),
    "amount": st.integers(-5, 5) | st.integers(-(2**40), 2**40) | st.booleans() | st.floats(allow_nan=False),
    "cards": st.lists(st.sampled_from(["As", "Td", "7c", "Xx", ""]) | st.integers(0, 51), max_size=9)
    | st.text(max_size=3),
    "extra": values,
}
valid_replies = st.sampled_from([
    {"type": "action", "v": 1, "seq": 3, "action": "call", "amount": 0},
    {"type": "action", "v": 1, "seq": 3, "action": "raise", "amount": 40},
    {"type": "action", "v": 1, "seq": 3, "action": "fold"},
    {"type": "discard", "v": 1, "seq": 3, "cards": ["As", "Td"]},
    {"type": "discard", "v": 1, "seq": 3, "cards": []},
])


@st.composite
def reply_fields(draw: Any) -> dict[str, Any]:
    """A valid reply with one or two fields replaced, added or removed."""
    fields = dict(draw(valid_replies))
    for _ in range(draw(st.integers(1, 2))):
        key = draw(st.sampled_from(sorted(field_values)))
        if key in fields and draw(st.booleans()) and draw(st.booleans()):
            del fields[key]
        else:
            fields[key] = draw(field_values[key])
    return fields


EDGE_VALUES: dict[str, list[Any]] = {
    "type": ["action", "discard", "hello", "act", "", 1, None],
    "v": [1, 0, 2, True, 1.0, -1, None, "1"],
    "seq": [0, 1, -1, 2**40, 2**40 + 1, True, None, 1.5, "3"],
    "action": ["fold", "check", "call", "bet", "raise", "allin", "", 1, None],
    "amount": [0, 1, -1, 2**40, 2**40 + 1, True, False, 1.0, None, "5"],
    "cards": [[], ["As"], ["As", "As"], ["As"] * 7, ["As"] * 8, ["Xx"], [51], "As", None, [["As"]]],
    "extra": [0],
}
VALID_REPLIES = [
    {"type": "action", "v": 1, "seq": 3, "action": "call", "amount": 0},
    {"type": "action", "v": 1, "seq": 3, "action": "raise", "amount": 40},
    {"type": "action", "v": 1, "seq": 3, "action": "bet", "amount": 40},
    {"type": "action", "v": 1, "seq": 3, "action": "fold"},
    {"type": "discard", "v": 1, "seq": 3, "cards": ["As", "Td"]},
]


def _one_field_changed() -> list[dict[str, Any]]:
    cases = []
    for base in VALID_REPLIES:
        cases.append(base)
        for key, edge in EDGE_VALUES.items():
            if key in base:
                cases.append({k: v for k, v in base.items() if k != key})
            cases.extend({**base, key: value} for value in edge)
    return cases


def _same(fast: Any, data: Any) -> None:
    """``fast`` gives exactly what decode gives (the message, its fields' types, or the error's field and text)."""
    ours, theirs = _outcome(fast, data), _outcome(decode, data)
    assert ours == theirs
    if ours[0] == "ok":
        assert [type(getattr(ours[1], f)) for f in ours[1].__slots__] == \
            [type(getattr(theirs[1], f)) for f in theirs[1].__slots__]


@pytest.mark.parametrize("fast", REPLY_DECODERS)
@pytest.mark.parametrize("fields", _one_field_changed())
def test_decode_reply_agrees_with_decode_on_each_edge(fast: Any, fields: dict[str, Any]) -> None:
    """The referee's fast reply decoders give exactly what the general decoder gives, errors included."""
    _same(fast, msgpack.packb(fields))


@pytest.mark.parametrize("fast", REPLY_DECODERS)
@FUZZ
@given(reply_fields())
def test_decode_reply_agrees_with_decode(fast: Any, fields: dict[str, Any]) -> None:
    _same(fast, msgpack.packb(fields))


@pytest.mark.parametrize("fast", REPLY_DECODERS)
@FUZZ
@given(st.binary(max_size=120))
def test_decode_reply_agrees_with_decode_on_bytes(fast: Any, data: bytes) -> None:
    _same(fast, data)


def _pack_int(n: int, width: int) -> bytes:
    """``n`` as MessagePack in one of its encodings (0: the shortest; 1-4: u8..u64 or i8..i64 when it fits)."""
    if width:
        for marker, size in ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8))[width - 1:] if n >= 0 else \
                ((0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8))[width - 1:]:
            try:
                return bytes((marker,)) + n.to_bytes(size, "big", signed=n < 0)
            except OverflowError:
                continue
    return msgpack.packb(n)


def _pack_str(s: str, width: int) -> bytes:
    """``s`` as MessagePack str in one of its encodings (fixstr, str8, str16, str32), or as bin (width 4)."""
    raw = s.encode()
    if width == 4:
        return msgpack.packb(raw, use_bin_type=True)
    if width and len(raw) < 256:
        return ((b"\xd9" + bytes((len(raw),)), b"\xda" + len(raw).to_bytes(2, "big"),
                 b"\xdb" + len(raw).to_bytes(4, "big"))[width - 1]) + raw
    return msgpack.packb(s)


@st.composite
def hand_packed_replies(draw: Any) -> bytes:
    """A reply packed by hand: every int and str encoding, map16/map32, repeated keys, cut or trailing bytes."""
    fields = list(draw(reply_fields()).items())
    if draw(st.booleans()) and fields:
        fields.append(draw(st.sampled_from(fields)))  # a key repeated
    body = b""
    for key, value in fields:
        body += _pack_str(key, draw(st.integers(0, 4)))
        if type(value) is int:
            body += _pack_int(value, draw(st.integers(0, 4)))
        elif type(value) is str:
            body += _pack_str(value, draw(st.integers(0, 4)))
        elif type(value) is list and draw(st.booleans()):
            body += b"\xdc" + len(value).to_bytes(2, "big") + b"".join(
                _pack_str(c, draw(st.integers(0, 3))) if type(c) is str else msgpack.packb(c) for c in value)
        else:
            body += msgpack.packb(value)
    n = len(fields) + draw(st.sampled_from([0, 0, 0, 1, -1]))
    head = draw(st.sampled_from([
        bytes((0x80 | n,)) if 0 <= n < 16 else b"\xde" + max(n, 0).to_bytes(2, "big"),
        b"\xde" + max(n, 0).to_bytes(2, "big"),
        b"\xdf" + max(n, 0).to_bytes(4, "big"),
    ]))
    data = head + body + draw(st.sampled_from([b"", b"", b"\xc0", b"\x00"]))
    return data[:draw(st.integers(0, len(data)))] if draw(st.integers(0, 9)) == 0 else data


@pytest.mark.parametrize("fast", REPLY_DECODERS)
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand_packed_replies(), st.sampled_from([MAX_MESSAGE_BYTES, 20, 0]), st.booleans())
def test_decode_reply_agrees_with_decode_on_any_encoding(fast: Any, data: bytes, max_bytes: int,
                                                         mutable: bool) -> None:
    """Non-shortest encodings, repeated keys, a wrong entry count, trailing bytes, a bytearray, a size limit."""
    buf = bytearray(data) if mutable else data
    ours, theirs = _outcome(lambda d: fast(d, max_bytes), buf), _outcome(lambda d: decode(d, max_bytes), buf)
    assert ours == theirs
