"""The codec: round trip of every message type, and each kind of rejection (PROTOCOL.md section 8)."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from protocol import PROTOCOL_VERSION
from protocol.codec import decode, encode, to_wire
from protocol.errors import ProtocolError
from protocol.messages import (
    CATEGORY_NAMES,
    MESSAGE_CLASSES,
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    HandEnd,
    HandStart,
    Hello,
    PotResult,
    Shown,
    TimeLeft,
)
from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES
from tests.protocol_helpers import EXAMPLES, _spec_example


@pytest.mark.parametrize("msg", EXAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip(msg: Any) -> None:
    data = encode(msg)
    assert decode(data) == msg
    wire = msgpack.unpackb(data)
    assert wire["type"] == msg.TYPE and wire["v"] == PROTOCOL_VERSION


def test_every_message_type_has_an_example() -> None:
    assert {type(m).TYPE for m in EXAMPLES} == set(MESSAGE_CLASSES)


def test_category_names_follow_the_engine_order() -> None:
    assert CATEGORY_NAMES[0] == "high_card" and CATEGORY_NAMES[6] == "full_house"
    assert len(CATEGORY_NAMES) == 9


def test_action_amount_may_be_omitted_for_call() -> None:
    data = msgpack.packb({"type": "action", "v": 1, "seq": 4, "action": "call"})
    assert decode(data) == ActionReply(seq=4, action="call", amount=0)


def test_hello_keeps_a_foreign_version_for_the_referee_to_answer() -> None:
    data = msgpack.packb({"type": "hello", "v": 2, "secret": "s", "name": "n"})
    assert decode(data).v == 2


def test_spec_example_exchange_is_valid() -> None:
    exchange = _spec_example()
    assert len(exchange) == 12
    for direction, wire in exchange:
        msg = decode(msgpack.packb(wire))
        assert to_wire(msg) == {**wire, **({"seq": None, "fatal": True} if wire["type"] == "error" else {})}
        assert (direction == "->") == (type(msg) in (Hello, ActionReply, DiscardReply))


def test_spec_example_is_what_the_referee_sends() -> None:
    """Every referee message of the example is the real one, field for field.

    The hand is dealt from a stacked deck (seat 1 discards its 2d for the Td it shows) and played
    as the example plays it; each request's state and legal, and the hand_end, are rebuilt from
    the engine with the referee's own encoders and compared with the example.
    """
    from harness.match.wire import encode_hand_end_of
    from protocol.codec import encode_request
    from tests.engine_helpers import new_hand

    exchange = [wire for _, wire in _spec_example()]
    state = new_hand(
        [1000, 1000], button=0, hands=["Ah Kh Qh 7c 7d 3s 2c", "9s 9d 5c 5h Kc 8d 2d"], stock="Jh 7s Td"
    )
    plays = iter([
        lambda: state.raise_to(30), lambda: state.call(),
        lambda: state.draw(parse_cards_("3s 2c")), lambda: state.draw(parse_cards_("2d")),
        lambda: state.check(), lambda: state.bet(60), lambda: state.call(),
    ])
    seen = 0
    for wire in exchange:
        if wire["type"] in ("act", "draw"):
            while state.to_act != 0:  # the opponent's moves, narrated in the example
                next(plays)()
            legal = state.legal()
            real = msgpack.unpackb(encode_request(
                wire["type"] == "draw", wire["seq"], state.observation(0), legal.actions, legal.call_amount,
                legal.min_to, legal.max_to, legal.max_discards, 1000, 30000,
            ))
            assert real == wire, wire["seq"]
            next(plays)()
            seen += 1
        elif wire["type"] == "hand_end":
            while not state.is_complete:
                next(plays)()
            assert msgpack.unpackb(encode_hand_end_of(state, 0)) == wire
            seen += 1
    assert seen == 4


def parse_cards_(text: str) -> list[int]:
    from harness.engine.cards import parse_cards

    return parse_cards(text)


def test_a_binary_type_key_is_named_as_such() -> None:
    err = _rejected(None, "<message>", raw=msgpack.packb({b"type": b"action", b"v": 1}, use_bin_type=True))
    assert "map keys must be strings" in str(err) and "binary b'type'" in str(err)


def test_a_nil_amount_is_no_amount() -> None:
    data = msgpack.packb({"type": "action", "v": 1, "seq": 4, "action": "check", "amount": None})
    assert decode(data) == ActionReply(seq=4, action="check", amount=0)
    _rejected({"type": "action", "v": 1, "seq": 4, "action": "raise", "amount": None}, "amount")


# --------------------------------------------------------------------------- rejections

GOOD_ACTION = {"type": "action", "v": 1, "seq": 3, "action": "raise", "amount": 40}
GOOD_DISCARD = {"type": "discard", "v": 1, "seq": 3, "cards": ["As", "2c"]}


def _rejected(obj: Any, field: str, raw: bytes | None = None) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode(raw if raw is not None else msgpack.packb(obj))
    assert info.value.field == field, str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({**GOOD_ACTION, "type": "shout"}, "type"),
        ({k: v for k, v in GOOD_ACTION.items() if k != "type"}, "type"),
        ({**GOOD_ACTION, "type": 7}, "type"),
        ({k: v for k, v in GOOD_ACTION.items() if k != "v"}, "v"),
        ({**GOOD_ACTION, "v": 2}, "v"),
        ({**GOOD_ACTION, "v": True}, "v"),
        ({k: v for k, v in GOOD_ACTION.items() if k != "seq"}, "seq"),
        ({**GOOD_ACTION, "extra": 1}, "extra"),
        ({**GOOD_ACTION, "amount": True}, "amount"),
        ({**GOOD_ACTION, "amount": 40.0}, "amount"),
        ({**GOOD_ACTION, "amount": "40"}, "amount"),
        ({**GOOD_ACTION, "amount": -1}, "amount"),
        ({**GOOD_ACTION, "amount": MAX_AMOUNT + 1}, "amount"),
        ({**GOOD_ACTION, "amount": 0}, "amount"),
        ({**GOOD_ACTION, "seq": False}, "seq"),
        ({**GOOD_ACTION, "seq": -3}, "seq"),
        ({**GOOD_ACTION, "action": "allin"}, "action"),
        ({**GOOD_ACTION, "action": None}, "action"),
        ({**GOOD_DISCARD, "cards": ["As", "1c"]}, "cards[1]"),
        ({**GOOD_DISCARD, "cards": ["as"]}, "cards[0]"),
        ({**GOOD_DISCARD, "cards": [51]}, "cards[0]"),
        ({**GOOD_DISCARD, "cards": "As"}, "cards"),
        ({**GOOD_DISCARD, "cards": ["As"] * 8}, "cards"),
        ({"type": "hello", "v": 1, "secret": b"bytes", "name": "n"}, "secret"),
        ({"type": "hello", "v": 1, "secret": "s", "name": "n" * 5000}, "name"),
        ({"type": "hello", "v": 1, "secret": "s"}, "name"),
        ({"type": "hello", "v": -1, "secret": "s", "name": "n"}, "v"),
    ],
)
def test_rejects_bad_fields(obj: dict[str, Any], field: str) -> None:
    _rejected(obj, field)


def test_rejects_oversized_before_parsing() -> None:
    err = _rejected(None, "<message>", raw=b"\x00" * (MAX_MESSAGE_BYTES + 1))
    assert "exceeds" in str(err)


def test_rejects_non_map_and_garbage() -> None:
    _rejected([1, 2], "<message>")
    _rejected(None, "<message>", raw=b"\xc1")  # never-used msgpack byte
    _rejected(None, "<message>", raw=b"")
    _rejected(None, "<message>", raw=msgpack.packb(GOOD_ACTION) + b"\x00")  # trailing data
    _rejected(None, "<message>", raw=b"\x85\xa4type")  # truncated


def test_rejects_huge_declared_containers() -> None:
    # An array header claiming 2**32-1 items in a few bytes must not allocate anything.
    _rejected(None, "<message>", raw=b"\xdd\xff\xff\xff\xff")
    # A map with more keys than any message has.
    big_map = {f"k{i}": i for i in range(100)}
    _rejected(None, "<message>", raw=msgpack.packb({**GOOD_ACTION, **big_map}))


def test_rejects_non_string_keys_and_extension_types() -> None:
    _rejected(None, "<message>", raw=msgpack.packb({1: 2}, strict_types=False))
    _rejected(None, "<message>", raw=msgpack.packb({**GOOD_ACTION, "amount": msgpack.ExtType(1, b"x")}))


def test_rejects_nested_errors_with_a_path() -> None:
    wire = to_wire(EXAMPLES[11])  # an act request
    bad_state = {**wire, "state": {**wire["state"], "stacks": [995, True]}}
    _rejected(bad_state, "state.stacks[1]")
    missing = {**wire, "state": {k: v for k, v in wire["state"].items() if k != "pot"}}
    _rejected(missing, "state.pot")
    bad_legal = {**wire, "legal": {**wire["legal"], "min_to": -5}}
    _rejected(bad_legal, "legal.min_to")
    bad_event = {**wire, "state": {**wire["state"], "history": [{"seat": 0, "action": "bet", "amount": 1.5}]}}
    _rejected(bad_event, "state.history[0].amount")


def test_extra_state_keys_are_allowed_for_forward_compatibility() -> None:
    wire = to_wire(EXAMPLES[11])
    wire["state"] = {**wire["state"], "new_thing": [1, 2]}
    assert decode(msgpack.packb(wire)).state["new_thing"] == [1, 2]


def test_protocol_error_is_a_value_error_with_field() -> None:
    err = _rejected({**GOOD_ACTION, "amount": -1}, "amount")
    assert isinstance(err, ValueError)
    assert str(err).startswith("amount:")


def test_encode_refuses_non_messages_and_oversized() -> None:
    with pytest.raises(TypeError):
        encode({"type": "hello"})  # type: ignore[arg-type]
    with pytest.raises(ProtocolError) as info:
        encode(Error(reason="x", message="m" * MAX_MESSAGE_BYTES))
    assert info.value.field == "<message>"


def test_hand_start_and_hand_end_encoders_give_the_same_bytes_as_the_dataclass_path() -> None:
    """The referee's per-hand notification encoders must not drift from the message definitions."""
    from harness.engine import Action, ActionKind, GameConfig, HandState
    from harness.engine.cards import CARD_STRS
    from protocol.codec import encode_hand_end, encode_hand_start
    from protocol.messages import CATEGORY_NAMES

    state = HandState.start(GameConfig(), [1000, 600, 300], 2, 99, 4)
    names, cards = ("a", "b", "c"), tuple(CARD_STRS[c] for c in state.hole_cards[1])
    fast = encode_hand_start(4, 1, 2, names, [1000, 600, 300], list(cards))
    assert fast == encode(HandStart(4, 1, 2, names, (1000, 600, 300), cards))
    while state.to_act is not None:  # check or call down, standing pat: a showdown of all three
        free = state.phase == "draw" or "check" in state.legal().actions
        state.apply(state.default_action() if free else Action(ActionKind.CALL))
    res = state.result()
    shown = [
        (s, [CARD_STRS[c] for c in state.cards[s]], [CARD_STRS[c] for c in r.five], CATEGORY_NAMES[r.category])
        for s, r in res.shown.items()
    ]
    assert len(shown) >= 2
    pots = [(p.amount, p.eligible, p.winners, p.shares) for p in res.pots]
    fast = encode_hand_end(4, state.history, shown, pots, res.net, res.final_stacks)
    slow = encode(
        HandEnd(
            hand_id=4,
            history=tuple(state.history),
            shown=tuple(Shown(s, tuple(c), tuple(f), cat) for s, c, f, cat in shown),
            pots=tuple(PotResult(*p) for p in pots),
            net=res.net,
            stacks=res.final_stacks,
        )
    )
    assert fast == slow
    assert decode(fast) == decode(slow)


def test_encode_request_gives_the_same_bytes_as_the_dataclass_path() -> None:
    """The referee's fast request encoder must not drift from the message definitions."""
    from harness.engine import Action, ActionKind, GameConfig, HandState
    from protocol.codec import encode_request
    from protocol.messages import Legal as WireLegal

    state = HandState.start(GameConfig(), [1000, 600, 300], 0, 99, 4)
    seen = set()
    while state.to_act is not None:
        seat, lg, draw = state.to_act, state.legal(), state.phase == "draw"
        obs = state.observation(seat)
        wl = WireLegal(tuple(lg.actions), lg.call_amount, lg.min_to, lg.max_to, lg.max_discards)
        cls = DrawRequest if draw else ActRequest
        slow = encode(cls(7, obs, wl, TimeLeft(900, 12345)))
        fast = encode_request(
            draw, 7, obs, lg.actions, lg.call_amount, lg.min_to, lg.max_to, lg.max_discards, 900, 12345
        )
        assert fast == slow
        assert decode(fast) == decode(slow)
        seen.add(draw)
        if draw or "check" in lg.actions:
            state.apply(state.default_action())  # stand pat / check
        else:
            state.apply(Action(ActionKind.CALL))
    assert seen == {True, False}
