"""Write protocol/vectors/: the shared test vectors every bot SDK and starter runs (protocol/vectors/README.md).

Usage::

    python tools/protocol_vectors.py           # (re)write protocol/vectors/*.json and *.msgpack
    python tools/protocol_vectors.py --check   # exit 1, naming the file, when one is not current

The messages come from the protocol's own codec (``protocol.codec``: every request decodes, every
bad reply is refused with the field it names) and the hands from the engine's evaluator
(``harness.engine.evaluator.best_hand``), so the files say what the referee does. Deterministic:
the same code writes the same bytes (a fixed seed, sorted keys), and tests/test_protocol_vectors.py
fails when the files are not current. Each JSON file has a MessagePack twin with the same content
(``.msgpack``), for languages whose standard library reads no JSON (C, Java).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from harness.engine.cards import cards_str, parse_cards  # noqa: E402
from harness.engine.evaluator import Category, best_hand  # noqa: E402
from protocol.codec import decode  # noqa: E402
from protocol.errors import ProtocolError  # noqa: E402

VECTORS = ROOT / "protocol" / "vectors"
FORMAT = 1
RANKS = "23456789TJQKA"

# --------------------------------------------------------------------------- messages

_GAME = {"structure": "no-limit", "small_blind": 5, "big_blind": 10, "ante": 0, "blinds": True,
         "min_bet": None, "cap": 4, "replacements": "stock"}
_LIMITS = {"decision_ms": 1000, "time_bank_ms": 30000, "startup_ms": 10000, "max_faults": 10,
           "max_message_bytes": 65536}
_H1 = [{"seat": 0, "action": "small_blind", "amount": 5}, {"seat": 1, "action": "big_blind", "amount": 10}]
_H2 = [*_H1, {"seat": 0, "action": "raise", "amount": 30}, {"seat": 1, "action": "call", "amount": 20}]
_H3 = [*_H2, {"seat": 0, "action": "draw", "count": 2}, {"seat": 1, "action": "draw", "count": 1},
       {"seat": 1, "action": "check"}]
_HAND1 = ["Ah", "Kh", "Qh", "7c", "7d", "3s", "2c"]
_HAND2 = ["Ah", "Kh", "Qh", "7c", "7d", "Jh", "7s"]


def _state(phase: str, cards: list[str], stacks: list[int], bets: list[int], pot: int,
           draws: list[int | None], history: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    seats = len(stacks)
    state = {"hand_id": 0, "seat": 0, "button": 0, "phase": phase, "cards": cards, "stacks": stacks,
             "bets": bets, "pot": pot, "folded": [False] * seats, "all_in": [False] * seats, "draws": draws,
             "history": history, "to_act": 0, "small_blind": 5, "big_blind": 10, "ante": 0,
             "structure": "no-limit", "min_bet": None, "shown": []}
    state.update(more)
    return state


def _request(type_: str, seq: int, state: dict[str, Any], legal: dict[str, Any],
             time: dict[str, int] | None = None) -> dict[str, Any]:
    return {"type": type_, "v": 1, "seq": seq, "state": state, "legal": legal,
            "time": time or {"decision_ms": 1000, "bank_ms": 30000}}


def _read(msg: dict[str, Any]) -> dict[str, Any]:
    """The fields of a request every SDK must read, flat (README.md, "requests")."""
    s, legal = msg["state"], msg["legal"]
    return {"type": msg["type"], "seq": msg["seq"], "phase": s["phase"], "seat": s["seat"],
            "button": s["button"], "cards": s["cards"], "stacks": s["stacks"], "bets": s["bets"],
            "pot": s["pot"], "actions": legal["actions"], "call_amount": legal["call_amount"],
            "min_to": legal["min_to"], "max_to": legal["max_to"], "max_discards": legal["max_discards"],
            "decision_ms": msg["time"]["decision_ms"], "bank_ms": msg["time"]["bank_ms"],
            "game": s.get("game", "seven-card-draw")}


def _requests() -> list[dict[str, Any]]:
    """PROTOCOL.md section 9's hand, then requests that stretch a reader (wide ints, nil, unknown keys)."""
    no_bet = {"actions": ["fold", "call", "raise"], "call_amount": 5, "min_to": 20, "max_to": 1000,
              "max_discards": 0}
    draw_legal = {"actions": ["draw"], "call_amount": 0, "min_to": 0, "max_to": 0, "max_discards": 4}
    three = _state("bet2", ["2c", "2d", "9h", "9s", "Kd", "Ks", "Kh"], [0, 21000, 4000], [3000, 0, 3000],
                   76000, [0, 4, 1], [{"seat": 2, "action": "bet", "amount": 3000},
                                       {"seat": 0, "action": "call", "amount": 3000, "all_in": True}],
                   seat=1, button=2, to_act=1, all_in=[True, False, False], folded=[False, False, False])
    deep = _state("bet1", ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "2c"], [4294967296, 1099511627776],
                  [0, 0], 70000, [None, None], [{"seat": 1, "action": "ante", "amount": 35000},
                                               {"seat": 0, "action": "ante", "amount": 35000}],
                  seat=0, button=1, small_blind=0, big_blind=0, ante=35000, min_bet=70000,
                  a_key_added_later={"nested": [1, 2.5, None]})
    messages = [
        ("act_bet1", _request("act", 1, _state("bet1", _HAND1, [995, 990], [5, 10], 15, [None, None], _H1),
                              no_bet)),
        ("draw", _request("draw", 2, _state("draw", _HAND1, [970, 970], [0, 0], 60, [None, None], _H2),
                          draw_legal)),
        ("act_bet2", _request("act", 3, _state("bet2", _HAND2, [970, 970], [0, 0], 60, [2, 1], _H3),
                              {"actions": ["fold", "check", "bet"], "call_amount": 0, "min_to": 60,
                               "max_to": 970, "max_discards": 0})),
        ("act_three_seats_all_in_event", _request("act", 17, three, {
            "actions": ["fold", "call", "raise"], "call_amount": 3000, "min_to": 6000, "max_to": 21000,
            "max_discards": 0}, {"decision_ms": 250, "bank_ms": 0})),
        # A game other than Seven Card Draw (PROTOCOL.md section 6, "Other games"): five cards, up to five drawn.
        ("draw_triple_draw_second_draw", _request("draw", 6, _state(
            "draw", ["Kd", "7h", "5s", "3c", "2d"], [990, 990], [0, 0], 20, [2, 5],
            [*_H1, {"seat": 0, "action": "call", "amount": 5}, {"seat": 1, "action": "check"},
             {"seat": 1, "action": "draw", "count": 3}, {"seat": 0, "action": "draw", "count": 2},
             {"seat": 1, "action": "check"}, {"seat": 0, "action": "check"}, {"seat": 1, "action": "draw", "count": 5}],
            game="deuce-to-seven-triple-draw", structure="fixed-limit"),
            {"actions": ["draw"], "call_amount": 0, "min_to": 0, "max_to": 0, "max_discards": 5})),
        # Five Card Draw (R7): antes only, 6 chips carried from a passed-out deal in the pot; no openers (a pair of
        # jacks or better, state.openers), so no bet is offered (R7.3).
        ("act_five_card_draw_carried_antes", _request("act", 1, _state(
            "bet1", ["Td", "Th", "8c", "4s", "2d"], [97, 97, 97], [0, 0, 0], 15, [None, None, None],
            [{"seat": 1, "action": "ante", "amount": 3}, {"seat": 2, "action": "ante", "amount": 3},
             {"seat": 0, "action": "ante", "amount": 3}],
            seat=1, to_act=1, small_blind=0, big_blind=0, ante=3, min_bet=6, game="five-card-draw",
            openers="jacks", carried=6),
            {"actions": ["fold", "check"], "call_amount": 0, "min_to": 0, "max_to": 0, "max_discards": 0})),
        ("act_wide_ints_and_an_unknown_state_key", _request("act", 1099511627776, deep, {
            "actions": ["fold", "check", "bet"], "call_amount": 0, "min_to": 70000, "max_to": 1099511627776,
            "max_discards": 0}, {"decision_ms": 86400000, "bank_ms": 70000})),
    ]
    out = []
    for name, msg in messages:
        data = msgpack.packb(msg)
        decode(data)  # the referee's codec accepts it
        out.append({"name": name, "hex": data.hex(), "read": _read(msg)})
    return out


def _five_card_hand_end() -> dict[str, Any]:
    """A ``hand_end`` of Five Card Draw (R7): seat 1 opened with a pair of jacks and nobody called, so no
    hand is shown but the openers are (``opener``, R7.7)."""
    return {"type": "hand_end", "v": 1, "hand_id": 3, "history": [
        {"seat": 0, "action": "ante", "amount": 1}, {"seat": 1, "action": "ante", "amount": 1},
        {"seat": 2, "action": "ante", "amount": 1}, {"seat": 1, "action": "bet", "amount": 2},
        {"seat": 2, "action": "fold"}, {"seat": 0, "action": "fold"}],
        "shown": [], "pots": [{"amount": 5, "eligible": [1], "winners": [1], "shares": [5]}],
        "net": [-1, 2, -1], "stacks": [99, 102, 99], "opener": {"seat": 1, "cards": ["Jh", "Jc"]}}


def _notifications() -> list[dict[str, Any]]:
    """The messages that get no reply; ``exit`` says whether the bot stops after it (match_end, fatal error)."""
    hand_end = {"type": "hand_end", "v": 1, "hand_id": 0, "history": [
        *_H3, {"seat": 0, "action": "bet", "amount": 60}, {"seat": 1, "action": "call", "amount": 60}],
        "shown": [{"seat": 0, "cards": _HAND2, "five": ["7s", "7d", "7c", "Ah", "Kh"],
                   "category": "three_of_a_kind"},
                  {"seat": 1, "cards": ["9s", "9d", "5c", "5h", "Kc", "8d", "Td"],
                   "five": ["9s", "9d", "5h", "5c", "Kc"], "category": "two_pair"}],
        "pots": [{"amount": 180, "eligible": [0, 1], "winners": [0], "shares": [180]}],
        "net": [90, -90], "stacks": [1090, 910]}
    messages = [
        ("welcome", {"type": "welcome", "v": 1}, False),
        ("match_start", {"type": "match_start", "v": 1, "match_id": "demo", "seat": 0, "names": ["mybot", "solid"],
                         "game": _GAME, "hands": 1, "starting_stack": 1000, "stack_mode": "reset",
                         "limits": _LIMITS}, False),
        ("match_start_triple_draw", {"type": "match_start", "v": 1, "match_id": "td", "seat": 1,
                                     "names": ["mybot", "caller"],
                                     "game": {**_GAME, "structure": "fixed-limit",
                                              "name": "deuce-to-seven-triple-draw"},
                                     "hands": 1, "starting_stack": 1000, "stack_mode": "reset", "limits": _LIMITS},
         False),
        ("hand_start", {"type": "hand_start", "v": 1, "hand_id": 0, "seat": 0, "button": 0,
                        "names": ["mybot", "solid"], "stacks": [1000, 1000], "cards": _HAND1}, False),
        ("hand_end", hand_end, False),
        ("hand_end_five_card_draw_opener", _five_card_hand_end(), False),
        ("error_not_fatal", {"type": "error", "v": 1, "reason": "illegal", "seq": 3, "fatal": False,
                             "message": "raise to 15 is below min_to 20"}, False),
        ("match_end", {"type": "match_end", "v": 1, "hands_played": 1, "net": [90, -90],
                       "status": ["ok", "ok"]}, True),
        ("error_fatal", {"type": "error", "v": 1, "reason": "out", "seq": None, "fatal": True,
                         "message": "10 faults: out for the rest of the match"}, True),
    ]
    out = []
    for name, msg, stop in messages:
        data = msgpack.packb(msg)
        decode(data)
        out.append({"name": name, "hex": data.hex(), "type": msg["type"], "exit": stop})
    return out


def _replies() -> list[dict[str, Any]]:
    """A decision and the reply map it must give (``amount`` 0 for fold/check/call, as every starter sends)."""
    decisions: list[tuple[str, dict[str, Any]]] = [
        ("raise_to_30", {"seq": 1, "action": "raise", "amount": 30}),
        ("discard_two", {"seq": 2, "cards": ["3s", "2c"]}),
        ("stand_pat", {"seq": 2, "cards": []}),
        ("bet_60", {"seq": 3, "action": "bet", "amount": 60}),
        ("fold", {"seq": 3, "action": "fold"}),
        ("check", {"seq": 3, "action": "check"}),
        ("call_with_a_wide_seq", {"seq": 1099511627776, "action": "call"}),
        ("all_in_wide_amount", {"seq": 70000, "action": "bet", "amount": 1099511627776}),
    ]
    out = []
    for name, decision in decisions:
        if "cards" in decision:
            value = {"type": "discard", "v": 1, "seq": decision["seq"], "cards": decision["cards"]}
        else:
            value = {"type": "action", "v": 1, "seq": decision["seq"], "action": decision["action"],
                     "amount": decision.get("amount", 0)}
        decode(msgpack.packb(value))
        out.append({"name": name, "decision": decision, "value": value})
    return out


def _bad_replies() -> list[dict[str, Any]]:
    """Replies the referee refuses, with the fault and the field it names (``malformed``: protocol.codec)."""
    ok = {"type": "action", "v": 1, "seq": 1, "action": "raise", "amount": 30}
    pack = msgpack.packb
    raw: list[tuple[str, bytes, str]] = [
        ("struct_as_array", pack(["action", 1, 1, "raise", 30]),
         "a struct packed as an array (Rust rmp_serde::to_vec; use to_vec_named)"),
        ("keys_as_binary", msgpack.packb({k.encode(): (v.encode() if isinstance(v, str) else v)
                                          for k, v in ok.items()}, use_bin_type=True),
         "text packed as binary (bytes keys; msgpack_pack_bin, Python bytes, Go []byte)"),
        ("value_as_binary", pack({**ok, "action": b"raise"}, use_bin_type=True),
         "a string field packed as binary"),
        ("go_field_names", pack({"Type": "action", "V": 1, "Seq": 1, "Action": "raise", "Amount": 30}),
         "Go struct fields without `msgpack:\"type\"` tags: their keys are the field names"),
        ("nil_cards", pack({"type": "discard", "v": 1, "seq": 2, "cards": None}),
         "stand pat sent as nil (a Go nil slice, a Rust Option::None): send an empty array"),
        ("cards_as_one_string", pack({"type": "discard", "v": 1, "seq": 2, "cards": "3s 2c"}),
         "the cards as one string, not an array of strings"),
        ("card_ten_as_10", pack({"type": "discard", "v": 1, "seq": 2, "cards": ["10s"]}),
         "a card that is not rank+suit (ten is T)"),
        ("missing_v", pack({"type": "action", "seq": 1, "action": "call"}), "no protocol version"),
        ("missing_seq", pack({"type": "action", "v": 1, "action": "call", "amount": 0}), "no seq"),
        ("seq_as_string", pack({**ok, "seq": "1"}), "a number sent as a string"),
        ("amount_as_float", pack({**ok, "amount": 30.0}), "chips as a float (JavaScript 30.5, Go float64)"),
        ("amount_as_bool", pack({**ok, "amount": True}), "a boolean where an int is due"),
        ("amount_negative", pack({**ok, "amount": -30}), "a negative amount"),
        ("raise_without_amount", pack({"type": "action", "v": 1, "seq": 1, "action": "raise"}),
         "a bet or raise needs its \"to\" total"),
        ("unknown_field", pack({**ok, "name": "mybot"}), "a field the reply does not have"),
        ("unknown_action", pack({**ok, "action": "allin"}), "an action name the protocol does not have"),
        ("wrong_type", pack({**ok, "type": "act"}), "the request's type echoed instead of the reply's"),
        ("two_values", pack(ok) + pack(ok), "two MessagePack values in one frame"),
        ("empty_frame", b"", "an empty frame (a REQ socket's delimiter)"),
    ]
    out = []
    for name, data, why in raw:
        try:
            decode(data)
        except ProtocolError as exc:
            field = exc.field
        else:  # pragma: no cover - the generator's own check
            raise AssertionError(f"bad reply {name} is accepted by protocol.codec.decode")
        out.append({"name": name, "hex": data.hex(), "fault": "malformed", "field": field, "why": why})
    # Valid messages that the pending request (by name, in "requests") makes illegal (PROTOCOL.md section 7).
    illegal: list[tuple[str, str, dict[str, Any], str]] = [
        ("raise_below_min_to", "act_bet1", {**ok, "amount": 15}, "a raise below legal.min_to"),
        ("raise_above_max_to", "act_bet1", {**ok, "amount": 1001}, "a raise above legal.max_to"),
        ("check_facing_a_bet", "act_bet1", {**ok, "action": "check", "amount": 0}, "check not in legal.actions"),
        ("bet_when_raise_is_due", "act_bet1", {**ok, "action": "bet"}, "bet is offered only with no bet to face"),
        ("wrong_seq", "act_bet1", {**ok, "seq": 2}, "a seq that is not the pending request's"),
        ("discard_a_card_not_held", "draw", {"type": "discard", "v": 1, "seq": 2, "cards": ["As"]},
         "a card the bot does not hold"),
        ("discard_a_card_twice", "draw", {"type": "discard", "v": 1, "seq": 2, "cards": ["3s", "3s"]},
         "the same card twice"),
        ("discard_five", "draw", {"type": "discard", "v": 1, "seq": 2,
                                  "cards": ["Ah", "Kh", "Qh", "3s", "2c"]}, "more than legal.max_discards"),
    ]
    for name, request, msg, why in illegal:
        data = pack(msg)
        decode(data)
        out.append({"name": name, "hex": data.hex(), "fault": "illegal", "request": request, "why": why})
    return out


def _bad_requests() -> list[dict[str, Any]]:
    """Frames no referee sends but a bot must survive: ignore each (no reply, no crash) and read on."""
    pack = msgpack.packb
    raw = [
        ("not_msgpack", b"\xc1"),
        ("truncated_map", pack({"type": "act", "v": 1, "seq": 5})[:-1]),
        ("an_array", pack(["act", 1, 5])),
        ("unknown_type", pack({"type": "showdown", "v": 1, "seq": 5})),
        ("act_without_seq", pack({"type": "act", "v": 1})),
        ("act_with_a_string_seq", pack({"type": "act", "v": 1, "seq": "5"})),
        ("empty_frame", b""),
    ]
    return [{"name": name, "hex": data.hex(), "expect": "ignore"} for name, data in raw]


def messages() -> dict[str, Any]:
    """The content of messages.json (README.md describes every key)."""
    return {"format": FORMAT, "requests": _requests(), "notifications": _notifications(), "replies": _replies(),
            "bad_replies": _bad_replies(), "bad_requests": _bad_requests()}


# --------------------------------------------------------------------------- hands

_HANDS = 3000


def _hand(cards: list[int]) -> dict[str, Any]:
    best = best_hand(cards)
    value = best.value
    ranks = "".join(RANKS[value >> shift & 15] for shift in (16, 12, 8, 4, 0))
    return {"cards": cards_str(cards), "category": best.category.name.lower(), "ranks": ranks,
            "five": cards_str(best.five)}


def hands() -> dict[str, Any]:
    """The content of hands.json: random 7-card hands and made ones of every category, by the engine."""
    rng = random.Random(20261206)
    deck = list(range(52))
    out = []
    fixed = ["Ah 5c 4d 3s 2h Kc Kd", "5h 4h 3h 2h Ah Ks Kd", "As Ks Qs Js Ts 9s 8s", "6c 5d 4h 3s 2c Ad Ah",
             "9s 9d 9c 5h 5s 5c 2d", "Kh Kd Ks Kc 2h 2d 2s", "Ah Kh Qh Jh 9h 8h 7h", "Ad Ac Kd Kc Qd Qc 2s",
             "7c 7d 7h 7s Ac Ad Ah", "Tc Jd Qh Ks Ac 2d 3h"]
    for text in fixed:
        out.append(_hand(parse_cards(text)))
    # Made hands of every category (random 7-card deals rarely give a straight flush or quads).
    for category in Category:
        for _ in range(60):
            out.append(_hand(_made(rng, category)))
    while len(out) < _HANDS:
        out.append(_hand(rng.sample(deck, 7)))
    return {"format": FORMAT, "hands": out}


def _made(rng: random.Random, category: Category) -> list[int]:
    """Seven distinct cards holding a five of ``category`` (they may hold a better one)."""
    suits = rng.sample(range(4), 4)
    ranks = rng.sample(range(13), 13)
    r, s = ranks, suits
    five = {
        Category.HIGH_CARD: [r[0] * 4 + s[0], r[1] * 4 + s[1], r[2] * 4 + s[0], r[3] * 4 + s[2], r[4] * 4 + s[3]],
        Category.ONE_PAIR: [r[0] * 4 + s[0], r[0] * 4 + s[1], r[1] * 4 + s[0], r[2] * 4 + s[2], r[3] * 4 + s[3]],
        Category.TWO_PAIR: [r[0] * 4 + s[0], r[0] * 4 + s[1], r[1] * 4 + s[2], r[1] * 4 + s[3], r[2] * 4 + s[0]],
        Category.THREE_OF_A_KIND: [r[0] * 4 + s[0], r[0] * 4 + s[1], r[0] * 4 + s[2], r[1] * 4 + s[3],
                                   r[2] * 4 + s[0]],
        Category.FULL_HOUSE: [r[0] * 4 + s[0], r[0] * 4 + s[1], r[0] * 4 + s[2], r[1] * 4 + s[3], r[1] * 4 + s[0]],
        Category.FOUR_OF_A_KIND: [r[0] * 4 + 0, r[0] * 4 + 1, r[0] * 4 + 2, r[0] * 4 + 3, r[1] * 4 + s[0]],
    }.get(category)
    if five is None:
        top = rng.randrange(3, 13)  # 3: the wheel, 5-high
        run = [12, 0, 1, 2, 3] if top == 3 else list(range(top - 4, top + 1))
        if category == Category.FLUSH:
            five = [x * 4 + s[0] for x in rng.sample([x for x in range(13)], 5)]
        elif category == Category.STRAIGHT:
            five = [x * 4 + rng.randrange(4) for x in run]
        else:
            five = [x * 4 + s[0] for x in run]
    rest = [c for c in range(52) if c not in five]
    return rng.sample(five + rng.sample(rest, 2), 7)


# --------------------------------------------------------------------------- files


def files() -> dict[str, bytes]:
    """Every generated file of protocol/vectors/ by name, with its exact bytes."""
    out = {}
    for name, content in (("messages", messages()), ("hands", hands())):
        out[f"{name}.json"] = _dump(content).encode()
        out[f"{name}.msgpack"] = msgpack.packb(content)
    return out


def _dump(content: dict[str, Any]) -> str:
    """JSON with one list item a line (diffs stay readable), keys sorted."""
    parts = []
    for key in sorted(content):
        value = content[key]
        if isinstance(value, list):
            items = ",\n".join("  " + json.dumps(item, sort_keys=True) for item in value)
            parts.append(f" {json.dumps(key)}: [\n{items}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value, sort_keys=True)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def stale() -> list[str]:
    """The generated files that are missing or differ from what this script writes."""
    return [name for name, data in files().items()
            if not (VECTORS / name).is_file() or (VECTORS / name).read_bytes() != data]


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        names = stale()
        for name in names:
            print(f"protocol_vectors: protocol/vectors/{name} is not current: run python tools/protocol_vectors.py",
                  file=sys.stderr)
        return 1 if names else 0
    if argv[1:]:
        print("usage: python tools/protocol_vectors.py [--check]", file=sys.stderr)
        return 2
    VECTORS.mkdir(exist_ok=True)
    for name, data in files().items():
        (VECTORS / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
