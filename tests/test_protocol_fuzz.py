"""Property tests: the decoder never raises anything but ProtocolError, and never accepts junk silently."""

from __future__ import annotations

from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import decode, encode, to_wire
from protocol.errors import ProtocolError
from protocol.messages import MESSAGE_CLASSES, ActionReply, DiscardReply
from tests.test_protocol_codec import EXAMPLES

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
