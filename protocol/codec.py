"""The one codec of the wire protocol: message dataclasses <-> MessagePack bytes.

``encode(msg) -> bytes`` and ``decode(data) -> Message``. Decoding is strict (PROTOCOL.md
"Validation"): the input must be at most ``MAX_MESSAGE_BYTES`` long, a msgpack map with a
known ``type`` and the right ``v``, exactly the fields of that type, each of the right
wire type (a bool is never an int, a float never an int), amounts in 0..2**40, cards as
two-character strings. Anything else raises :class:`ProtocolError` naming the field;
no other exception escapes ``decode``. Never pickle: only msgpack's plain types exist.

Validation is straight-line code per message type (no schema engine): the referee
decodes thousands of bot replies per second.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgpack

from protocol.errors import ProtocolError
from protocol.messages import (
    CARD_STRINGS,
    LEGAL_ACTION_NAMES,
    SEVEN_CARD_DRAW,
    ActionName,
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    GameSettings,
    HandEnd,
    HandStart,
    Hello,
    Legal,
    MatchEnd,
    MatchLimits,
    MatchStart,
    Message,
    Opened,
    PotResult,
    Shown,
    TimeLeft,
    Welcome,
)
from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES, PROTOCOL_VERSION

__all__ = ["encode", "decode", "decode_reply", "encoding_fix", "ENCODING_FIXES", "ProtocolError",
           "MAX_MESSAGE_BYTES"]

# Longest string accepted anywhere (names, secrets, error texts, match ids).
MAX_STRING_CHARS = 1024
# Most players per table of any game (R1.2: 6; R6.8: 8 in Five Card Draw, R7.1) and most cards a player
# holds (R2.7); harness.engine.config.MAX_TABLE (tests pin the two).
_MAX_SEATS = 8
_MAX_CARDS = 7
# Most cards one player draws in one draw (R4.1: 4 in Seven Card Draw; R6.4: 5 in the five-card games).
_MAX_DRAWN = 5
# Unpacker limits: they stop a small input from declaring a huge container.
_UNPACK_LIMITS = dict(
    max_str_len=MAX_MESSAGE_BYTES,
    max_bin_len=MAX_MESSAGE_BYTES,  # accepted here, refused by the field checks with a clear message
    max_ext_len=0,
    max_array_len=8192,
    max_map_len=64,
)
_ACTION_NAMES = frozenset(a.value for a in ActionName)
_MISSING: Any = object()


# --------------------------------------------------------------------------- encode


def _enc_hello(m: Hello) -> dict[str, Any]:
    return {"type": "hello", "v": m.v, "secret": m.secret, "name": m.name}


def _enc_action(m: ActionReply) -> dict[str, Any]:
    return {"type": "action", "v": m.v, "seq": m.seq, "action": str(m.action), "amount": m.amount}


def _enc_discard(m: DiscardReply) -> dict[str, Any]:
    return {"type": "discard", "v": m.v, "seq": m.seq, "cards": list(m.cards)}


def _enc_welcome(m: Welcome) -> dict[str, Any]:
    return {"type": "welcome", "v": m.v}


def _enc_error(m: Error) -> dict[str, Any]:
    return {
        "type": "error",
        "v": m.v,
        "reason": str(m.reason),
        "message": m.message,
        "seq": m.seq,
        "fatal": m.fatal,
    }


def _enc_match_start(m: MatchStart) -> dict[str, Any]:
    g, lim = m.game, m.limits
    return {
        "type": "match_start",
        "v": m.v,
        "match_id": m.match_id,
        "seat": m.seat,
        "names": list(m.names),
        "game": {
            "structure": str(g.structure),
            "small_blind": g.small_blind,
            "big_blind": g.big_blind,
            "ante": g.ante,
            "blinds": g.blinds,
            "min_bet": g.min_bet,
            "cap": g.cap,
            "replacements": str(g.replacements),
            **({} if g.name == SEVEN_CARD_DRAW else {"name": g.name}),
        },
        "hands": m.hands,
        "starting_stack": m.starting_stack,
        "stack_mode": m.stack_mode,
        "limits": {
            "decision_ms": lim.decision_ms,
            "time_bank_ms": lim.time_bank_ms,
            "startup_ms": lim.startup_ms,
            "max_faults": lim.max_faults,
            "max_message_bytes": lim.max_message_bytes,
        },
    }


def _hand_start_map(
    hand_id: int,
    seat: int,
    button: int,
    names: Sequence[str],
    stacks: Sequence[int],
    cards: Sequence[str],
    v: int = PROTOCOL_VERSION,
) -> dict[str, Any]:
    """The map of a ``hand_start`` notification (the one place its layout is written)."""
    return {
        "type": "hand_start",
        "v": v,
        "hand_id": hand_id,
        "seat": seat,
        "button": button,
        "names": list(names),
        "stacks": list(stacks),
        "cards": list(cards),
    }


def _enc_hand_start(m: HandStart) -> dict[str, Any]:
    return _hand_start_map(m.hand_id, m.seat, m.button, m.names, m.stacks, m.cards, m.v)


def _request_map(
    type_: str,
    seq: int,
    state: Mapping[str, Any],
    actions: Sequence[str],
    call_amount: int,
    min_to: int,
    max_to: int,
    max_discards: int,
    decision_ms: int,
    bank_ms: int,
    v: int = PROTOCOL_VERSION,
) -> dict[str, Any]:
    """The map of an ``act`` or ``draw`` request (the one place its layout is written)."""
    return {
        "type": type_,
        "v": v,
        "seq": seq,
        "state": state,
        "legal": {
            "actions": list(actions),
            "call_amount": call_amount,
            "min_to": min_to,
            "max_to": max_to,
            "max_discards": max_discards,
        },
        "time": {"decision_ms": decision_ms, "bank_ms": bank_ms},
    }


def _enc_request(type_: str, m: ActRequest | DrawRequest) -> dict[str, Any]:
    lg, t = m.legal, m.time
    return _request_map(
        type_, m.seq, m.state, lg.actions, lg.call_amount, lg.min_to, lg.max_to, lg.max_discards,
        t.decision_ms, t.bank_ms, m.v,
    )


def _enc_act(m: ActRequest) -> dict[str, Any]:
    return _enc_request("act", m)


def _enc_draw(m: DrawRequest) -> dict[str, Any]:
    return _enc_request("draw", m)


#: One shown hand of a ``hand_end``: (seat, cards, five, category).
ShownRow = tuple[int, Sequence[str], Sequence[str], str]
#: One pot of a ``hand_end``: (amount in chips, eligible seats, winners, shares in chips).
PotRow = tuple[int, Sequence[int], Sequence[int], Sequence[int]]
#: The opener of a ``hand_end`` of Five Card Draw: (seat, openers shown), R7.7.
OpenerRow = tuple[int, Sequence[str]]


def _hand_end_map(
    hand_id: int,
    history: Sequence[Mapping[str, Any]],
    shown: Sequence[ShownRow],
    pots: Sequence[PotRow],
    net: Sequence[int],
    stacks: Sequence[int],
    v: int = PROTOCOL_VERSION,
    opener: OpenerRow | None = None,
) -> dict[str, Any]:
    """The map of a ``hand_end`` notification (the one place its layout is written).

    ``shown`` holds ``(seat, cards, five, category)`` and ``pots``
    ``(amount, eligible, winners, shares)`` per entry; ``opener`` ``(seat, cards)``, last and only when a deal
    of Five Card Draw was opened (R7.7): every other ``hand_end`` keeps its bytes.
    """
    end = {
        "type": "hand_end",
        "v": v,
        "hand_id": hand_id,
        "history": list(history),
        "shown": [
            {"seat": seat, "cards": list(cards), "five": list(five), "category": str(category)}
            for seat, cards, five, category in shown
        ],
        "pots": [
            {"amount": amount, "eligible": list(eligible), "winners": list(winners), "shares": list(shares)}
            for amount, eligible, winners, shares in pots
        ],
        "net": list(net),
        "stacks": list(stacks),
    }
    if opener is not None:
        end["opener"] = {"seat": opener[0], "cards": list(opener[1])}
    return end


def _enc_hand_end(m: HandEnd) -> dict[str, Any]:
    return _hand_end_map(
        m.hand_id,
        m.history,
        [(x.seat, x.cards, x.five, x.category) for x in m.shown],
        [(p.amount, p.eligible, p.winners, p.shares) for p in m.pots],
        m.net,
        m.stacks,
        m.v,
        None if m.opener is None else (m.opener.seat, m.opener.cards),
    )


def _enc_match_end(m: MatchEnd) -> dict[str, Any]:
    return {
        "type": "match_end",
        "v": m.v,
        "hands_played": m.hands_played,
        "net": list(m.net),
        "status": list(m.status),
    }


_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    Hello: _enc_hello,
    ActionReply: _enc_action,
    DiscardReply: _enc_discard,
    Welcome: _enc_welcome,
    Error: _enc_error,
    MatchStart: _enc_match_start,
    HandStart: _enc_hand_start,
    ActRequest: _enc_act,
    DrawRequest: _enc_draw,
    HandEnd: _enc_hand_end,
    MatchEnd: _enc_match_end,
}


def encode_request(
    draw: bool,
    seq: int,
    state: dict[str, Any],
    actions: Sequence[str],
    call_amount: int,
    min_to: int,
    max_to: int,
    max_discards: int,
    decision_ms: int,
    bank_ms: int,
) -> bytes:
    """Encode an ``act`` (or, with ``draw``, a ``draw``) request without building its dataclass.

    The referee's hot path: the bytes are exactly those of
    ``encode(ActRequest(seq, state, Legal(...), TimeLeft(...)))`` (a test checks
    it), with no dataclass built. Amounts are chips, times milliseconds.
    """
    packed: bytes = msgpack.packb(
        _request_map(
            "draw" if draw else "act",
            seq,
            state,
            actions,
            call_amount,
            min_to,
            max_to,
            max_discards,
            decision_ms,
            bank_ms,
        )
    )
    return packed


def encode_hand_start(
    hand_id: int, seat: int, button: int, names: Sequence[str], stacks: Sequence[int], cards: Sequence[str]
) -> bytes:
    """Encode a ``hand_start`` without building its dataclass (the referee's per-hand path).

    The bytes equal ``encode(HandStart(...))`` with the same fields (a test checks it).
    Stacks are chips.
    """
    packed: bytes = msgpack.packb(_hand_start_map(hand_id, seat, button, names, stacks, cards))
    return packed


def encode_hand_end(
    hand_id: int,
    history: Sequence[Mapping[str, Any]],
    shown: Sequence[ShownRow],
    pots: Sequence[PotRow],
    net: Sequence[int],
    stacks: Sequence[int],
    opener: OpenerRow | None = None,
) -> bytes:
    """Encode a ``hand_end`` without building its dataclasses (the referee's per-hand path).

    ``shown`` holds ``(seat, cards, five, category)``, ``pots`` ``(amount,
    eligible, winners, shares)``, ``opener`` ``(seat, openers shown)`` or None (R7.7: Five Card Draw only);
    amounts are chips. The bytes equal ``encode(HandEnd(...))`` with the same fields (a test checks it).

    Raises:
        ProtocolError: the encoding exceeds ``MAX_MESSAGE_BYTES`` (field ``"<message>"``).
    """
    data: bytes = msgpack.packb(_hand_end_map(hand_id, history, shown, pots, net, stacks, opener=opener))
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("<message>", f"{len(data)} bytes exceeds the limit {MAX_MESSAGE_BYTES}")
    return data


def to_wire(msg: Message) -> dict[str, Any]:
    """The plain map (str/int/bool/None/list/dict only) that ``encode`` packs.

    Raises:
        TypeError: ``msg`` is not a protocol message.
    """
    try:
        enc = _ENCODERS[type(msg)]
    except KeyError:
        raise TypeError(f"not a protocol message: {type(msg).__name__}") from None
    return enc(msg)


def encode(msg: Message) -> bytes:
    """Encode one message as a msgpack map.

    Args:
        msg: Any message dataclass of ``protocol.messages``.

    Returns:
        The bytes to send as one ZeroMQ frame.

    Raises:
        TypeError: ``msg`` is not a protocol message.
        ProtocolError: The encoding exceeds ``MAX_MESSAGE_BYTES`` (field ``"<message>"``).
    """
    data: bytes = msgpack.packb(to_wire(msg))
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("<message>", f"{len(data)} bytes exceeds the limit {MAX_MESSAGE_BYTES}")
    return data


# --------------------------------------------------------------------------- decode helpers


def _tname(x: Any) -> str:
    return "nil" if x is None else type(x).__name__


#: The ways a MessagePack library packs this protocol's values wrongly, each with its fix (PROTOCOL.md
#: section 5): a struct packed as an array (Rust's ``rmp_serde::to_vec``), text packed as bin, whole
#: numbers packed as floats. A decode error names one as ``(msgpack KIND; FIX)`` (:func:`encoding_fix`).
ENCODING_FIXES: dict[str, str] = {
    "array": "pack every message as a map keyed by field name, not as an array (Rust: rmp_serde::to_vec_named, "
             "not rmp_serde::to_vec)",
    "bin": "pack text as str, not bin (e.g. msgpack_pack_str in C, use_bin_type=True in Python, no serde_bytes on "
           "text in Rust)",
    "float": "send whole numbers as msgpack integers, not floats (30, not 30.0)",
}


def _got(x: Any) -> str:
    """What a value is, naming a wrong encoding with its fix (array for a map, bin for a str, float for an int)."""
    if type(x) is list:
        return f"an array of {len(x)} items (msgpack array; {ENCODING_FIXES['array']})"
    if isinstance(x, (bytes, bytearray)):
        return f"binary of {len(x)} bytes (msgpack bin; {ENCODING_FIXES['bin']})"  # not shown: a secret?
    if type(x) is float:
        return f"a float {x!r} (msgpack float; {ENCODING_FIXES['float']})"
    return _tname(x)


def encoding_fix(detail: str) -> str:
    """The fix of the wrong encoding a decode error's text names (:data:`ENCODING_FIXES`), or ``""``."""
    for kind, fix in ENCODING_FIXES.items():
        if f"(msgpack {kind}; " in detail:
            return fix
    return ""


def _check_keys(d: dict[str, Any], allowed: frozenset[str], path: str) -> None:
    """Raise for the first key of ``d`` not in ``allowed`` (sorted, for stable messages)."""
    extra = sorted(k if type(k) is str and k.isidentifier() else repr(k) for k in d.keys() - allowed)
    if extra:
        raise ProtocolError(f"{path}{extra[0]}", "unknown field (remove it)")


def _req(d: dict[str, Any], key: str, path: str) -> Any:
    x = d.get(key, _MISSING)
    if x is _MISSING:
        raise ProtocolError(f"{path}{key}", "missing field")
    return x


def _int(x: Any, field: str, lo: int = 0, hi: int = MAX_AMOUNT) -> int:
    if type(x) is not int:
        raise ProtocolError(field, f"must be an integer, got {_got(x)}")
    if x < lo or x > hi:
        raise ProtocolError(field, f"{x} is outside {lo}..{hi}")
    return x


def _str(x: Any, field: str, max_chars: int = MAX_STRING_CHARS) -> str:
    if type(x) is not str:
        raise ProtocolError(field, f"must be a string, got {_got(x)}")
    if len(x) > max_chars:
        raise ProtocolError(field, f"string of {len(x)} characters exceeds {max_chars}")
    return x


def _bool(x: Any, field: str) -> bool:
    if type(x) is not bool:
        raise ProtocolError(field, f"must be a boolean, got {_tname(x)}")
    return x


def _map(x: Any, field: str) -> dict[str, Any]:
    if type(x) is not dict:
        raise ProtocolError(field, f"must be a map, got {_got(x)}")
    return x


def _list(x: Any, field: str, max_len: int) -> list[Any]:
    if type(x) is not list:
        raise ProtocolError(field, f"must be an array, got {_tname(x)}")
    if len(x) > max_len:
        raise ProtocolError(field, f"array of {len(x)} items exceeds {max_len}")
    return x


def _cards(x: Any, field: str, max_len: int = _MAX_CARDS) -> tuple[str, ...]:
    lst = _list(x, field, max_len)
    for i, c in enumerate(lst):
        if type(c) is not str or c not in CARD_STRINGS:
            if isinstance(c, (bytes, bytearray)):
                _str(c, f"{field}[{i}]")  # a card packed as bin: says so
            raise ProtocolError(
                f"{field}[{i}]",
                f"{c!r} is not a card (rank 23456789TJQKA then suit cdhs, e.g. 'As')",
            )
    return tuple(lst)


def _ints(x: Any, field: str, max_len: int = _MAX_SEATS, signed: bool = False) -> tuple[int, ...]:
    lst = _list(x, field, max_len)
    lo = -MAX_AMOUNT if signed else 0
    for i, n in enumerate(lst):
        if type(n) is not int or n < lo or n > MAX_AMOUNT:
            _int(n, f"{field}[{i}]", lo)
    return tuple(lst)


def _strs(x: Any, field: str, max_len: int = _MAX_SEATS) -> tuple[str, ...]:
    lst = _list(x, field, max_len)
    for i, s in enumerate(lst):
        _str(s, f"{field}[{i}]")
    return tuple(lst)


def _seq(d: dict[str, Any]) -> int:
    return _int(_req(d, "seq", ""), "seq")


# --------------------------------------------------------------------------- decode: bot -> referee

_HELLO_KEYS = frozenset({"type", "v", "secret", "name"})
_ACTION_KEYS = frozenset({"type", "v", "seq", "action", "amount"})
_DISCARD_KEYS = frozenset({"type", "v", "seq", "cards"})


def _dec_hello(d: dict[str, Any]) -> Hello:
    if not d.keys() <= _HELLO_KEYS:
        _check_keys(d, _HELLO_KEYS, "")
    return Hello(
        secret=_str(_req(d, "secret", ""), "secret"),
        name=_str(_req(d, "name", ""), "name"),
        v=d["v"],
    )


def _dec_action(d: dict[str, Any]) -> ActionReply:
    if not d.keys() <= _ACTION_KEYS:
        _check_keys(d, _ACTION_KEYS, "")
    seq = _seq(d)
    action = _req(d, "action", "")
    if type(action) is not str or action not in _ACTION_NAMES:
        if isinstance(action, (bytes, bytearray)):
            _str(action, "action")  # packed as bin: says so
        raise ProtocolError("action", f"{action!r} is not one of fold, check, call, bet, raise")
    amount = d.get("amount", 0)
    if amount is None:  # "no amount", as nil: fine where the amount is ignored
        amount = 0
    if type(amount) is not int or amount < 0 or amount > MAX_AMOUNT:
        _int(amount, "amount")
    if amount == 0 and (action == "bet" or action == "raise"):
        raise ProtocolError("amount", f"a {action} needs its 'to' total (a positive integer)")
    return ActionReply(seq=seq, action=action, amount=amount)


def _dec_discard(d: dict[str, Any]) -> DiscardReply:
    if not d.keys() <= _DISCARD_KEYS:
        _check_keys(d, _DISCARD_KEYS, "")
    seq = _seq(d)
    return DiscardReply(seq=seq, cards=_cards(_req(d, "cards", ""), "cards"))


# --------------------------------------------------------------------------- decode: referee -> bot

_WELCOME_KEYS = frozenset({"type", "v"})
_ERROR_KEYS = frozenset({"type", "v", "reason", "message", "seq", "fatal"})
_MATCH_START_KEYS = frozenset(
    {"type", "v", "match_id", "seat", "names", "game", "hands", "starting_stack", "stack_mode", "limits"}
)
_GAME_KEYS = frozenset(
    {"structure", "small_blind", "big_blind", "ante", "blinds", "min_bet", "cap", "replacements", "name"}
)
_LIMITS_KEYS = frozenset(
    {"decision_ms", "time_bank_ms", "startup_ms", "max_faults", "max_message_bytes"}
)
_HAND_START_KEYS = frozenset({"type", "v", "hand_id", "seat", "button", "names", "stacks", "cards"})
_REQUEST_KEYS = frozenset({"type", "v", "seq", "state", "legal", "time"})
_LEGAL_KEYS = frozenset({"actions", "call_amount", "min_to", "max_to", "max_discards"})
_TIME_KEYS = frozenset({"decision_ms", "bank_ms"})
_HAND_END_KEYS = frozenset({"type", "v", "hand_id", "history", "shown", "pots", "net", "stacks", "opener"})
_OPENER_KEYS = frozenset({"seat", "cards"})
_SHOWN_KEYS = frozenset({"seat", "cards", "five", "category"})
_POT_KEYS = frozenset({"amount", "eligible", "winners", "shares"})
_MATCH_END_KEYS = frozenset({"type", "v", "hands_played", "net", "status"})
_MAX_EVENTS = 4096


def _dec_welcome(d: dict[str, Any]) -> Welcome:
    _check_keys(d, _WELCOME_KEYS, "")
    return Welcome()


def _dec_error(d: dict[str, Any]) -> Error:
    _check_keys(d, _ERROR_KEYS, "")
    seq = d.get("seq")
    fatal = d.get("fatal", True)
    return Error(
        reason=_str(_req(d, "reason", ""), "reason"),
        message=_str(_req(d, "message", ""), "message", MAX_MESSAGE_BYTES),
        seq=None if seq is None else _int(seq, "seq"),
        fatal=_bool(fatal, "fatal"),
    )


def _dec_match_start(d: dict[str, Any]) -> MatchStart:
    _check_keys(d, _MATCH_START_KEYS, "")
    g = _map(_req(d, "game", ""), "game")
    _check_keys(g, _GAME_KEYS, "game.")
    min_bet = _req(g, "min_bet", "game.")
    game = GameSettings(
        structure=_str(_req(g, "structure", "game."), "game.structure"),
        small_blind=_int(_req(g, "small_blind", "game."), "game.small_blind"),
        big_blind=_int(_req(g, "big_blind", "game."), "game.big_blind"),
        ante=_int(_req(g, "ante", "game."), "game.ante"),
        blinds=_bool(_req(g, "blinds", "game."), "game.blinds"),
        min_bet=None if min_bet is None else _int(min_bet, "game.min_bet"),
        cap=_int(_req(g, "cap", "game."), "game.cap"),
        replacements=_str(_req(g, "replacements", "game."), "game.replacements"),
        name=_str(g.get("name", SEVEN_CARD_DRAW), "game.name"),
    )
    lm = _map(_req(d, "limits", ""), "limits")
    _check_keys(lm, _LIMITS_KEYS, "limits.")
    limits = MatchLimits(
        **{k: _int(_req(lm, k, "limits."), f"limits.{k}") for k in sorted(_LIMITS_KEYS)}
    )
    return MatchStart(
        match_id=_str(_req(d, "match_id", ""), "match_id"),
        seat=_int(_req(d, "seat", ""), "seat", 0, _MAX_SEATS - 1),
        names=_strs(_req(d, "names", ""), "names"),
        game=game,
        hands=_int(_req(d, "hands", ""), "hands"),
        starting_stack=_int(_req(d, "starting_stack", ""), "starting_stack"),
        stack_mode=_str(_req(d, "stack_mode", ""), "stack_mode"),
        limits=limits,
    )


def _dec_hand_start(d: dict[str, Any]) -> HandStart:
    _check_keys(d, _HAND_START_KEYS, "")
    return HandStart(
        hand_id=_int(_req(d, "hand_id", ""), "hand_id"),
        seat=_int(_req(d, "seat", ""), "seat", 0, _MAX_SEATS - 1),
        button=_int(_req(d, "button", ""), "button", 0, _MAX_SEATS - 1),
        names=_strs(_req(d, "names", ""), "names"),
        stacks=_ints(_req(d, "stacks", ""), "stacks"),
        cards=_cards(_req(d, "cards", ""), "cards"),
    )


def _event_ok(e: Any) -> bool:
    """Fast check of one public event (no strings built); the slow path explains failures."""
    if type(e) is not dict or type(e.get("action")) is not str:
        return False
    seat = e.get("seat")
    if type(seat) is not int or not 0 <= seat < _MAX_SEATS:
        return False
    for k, x in e.items():
        if k == "seat" or k == "action":
            continue
        if k == "all_in":
            if type(x) is not bool:
                return False
        elif type(x) is not int or x < 0 or x > MAX_AMOUNT:
            return False
    return True


def _dec_event(e: Any, field: str) -> None:
    """Raise the ProtocolError that explains why ``e`` is not a valid event."""
    e = _map(e, field)
    _int(_req(e, "seat", field + "."), field + ".seat", 0, _MAX_SEATS - 1)
    _str(_req(e, "action", field + "."), field + ".action")
    for k, x in e.items():
        if k == "seat" or k == "action":
            continue
        if k == "all_in":
            _bool(x, f"{field}.all_in")
        else:
            _int(x, f"{field}.{k}")


def _events(x: Any, field: str) -> list[Any]:
    events = _list(x, field, _MAX_EVENTS)
    for i, e in enumerate(events):
        if not _event_ok(e):
            _dec_event(e, f"{field}[{i}]")
    return events


_STATE_INTS = ("hand_id", "pot", "small_blind", "big_blind", "ante")
_STATE_SEATS = ("seat", "button")


def _dec_state(x: Any) -> dict[str, Any]:
    """Check the documented keys of the observation map; unknown extra keys are allowed."""
    s = _map(x, "state")
    for key in _STATE_INTS:
        x = s.get(key)
        if type(x) is not int or x < 0 or x > MAX_AMOUNT:
            _int(_req(s, key, "state."), "state." + key)
    for key in _STATE_SEATS:
        x = s.get(key)
        if type(x) is not int or not 0 <= x < _MAX_SEATS:
            _int(_req(s, key, "state."), "state." + key, 0, _MAX_SEATS - 1)
    _str(_req(s, "phase", "state."), "state.phase")
    _str(_req(s, "structure", "state."), "state.structure")
    _cards(_req(s, "cards", "state."), "state.cards")
    _ints(_req(s, "stacks", "state."), "state.stacks")
    _ints(_req(s, "bets", "state."), "state.bets")
    for key in ("folded", "all_in"):
        flags = _list(_req(s, key, "state."), "state." + key, _MAX_SEATS)
        for i, b in enumerate(flags):
            if type(b) is not bool:
                _bool(b, f"state.{key}[{i}]")
    for i, n in enumerate(_list(_req(s, "draws", "state."), "state.draws", _MAX_SEATS)):
        if n is not None and (type(n) is not int or not 0 <= n <= _MAX_DRAWN):
            _int(n, f"state.draws[{i}]", 0, _MAX_DRAWN)
    _events(_req(s, "history", "state."), "state.history")
    to_act = _req(s, "to_act", "state.")
    if to_act is not None:
        _int(to_act, "state.to_act", 0, _MAX_SEATS - 1)
    return s


def _dec_legal(x: Any) -> Legal:
    lg = _map(x, "legal")
    _check_keys(lg, _LEGAL_KEYS, "legal.")
    actions = _list(_req(lg, "actions", "legal."), "legal.actions", 6)
    for i, a in enumerate(actions):
        if type(a) is not str or a not in LEGAL_ACTION_NAMES:
            raise ProtocolError(f"legal.actions[{i}]", f"{a!r} is not an action name")
    return Legal(
        actions=tuple(actions),
        call_amount=_int(_req(lg, "call_amount", "legal."), "legal.call_amount"),
        min_to=_int(_req(lg, "min_to", "legal."), "legal.min_to"),
        max_to=_int(_req(lg, "max_to", "legal."), "legal.max_to"),
        max_discards=_int(_req(lg, "max_discards", "legal."), "legal.max_discards", 0, _MAX_CARDS),
    )


def _dec_time(x: Any) -> TimeLeft:
    t = _map(x, "time")
    _check_keys(t, _TIME_KEYS, "time.")
    return TimeLeft(
        decision_ms=_int(_req(t, "decision_ms", "time."), "time.decision_ms"),
        bank_ms=_int(_req(t, "bank_ms", "time."), "time.bank_ms"),
    )


def _dec_request(cls: type[ActRequest] | type[DrawRequest], d: dict[str, Any]) -> ActRequest | DrawRequest:
    _check_keys(d, _REQUEST_KEYS, "")
    return cls(
        seq=_seq(d),
        state=_dec_state(_req(d, "state", "")),
        legal=_dec_legal(_req(d, "legal", "")),
        time=_dec_time(_req(d, "time", "")),
    )


def _dec_act(d: dict[str, Any]) -> ActRequest:
    return _dec_request(ActRequest, d)  # type: ignore[return-value]


def _dec_draw(d: dict[str, Any]) -> DrawRequest:
    return _dec_request(DrawRequest, d)  # type: ignore[return-value]


def _dec_hand_end(d: dict[str, Any]) -> HandEnd:
    _check_keys(d, _HAND_END_KEYS, "")
    history = _events(_req(d, "history", ""), "history")
    shown = []
    for i, x in enumerate(_list(_req(d, "shown", ""), "shown", _MAX_SEATS)):
        f = f"shown[{i}]"
        s = _map(x, f)
        _check_keys(s, _SHOWN_KEYS, f + ".")
        shown.append(
            Shown(
                seat=_int(_req(s, "seat", f + "."), f + ".seat", 0, _MAX_SEATS - 1),
                cards=_cards(_req(s, "cards", f + "."), f + ".cards"),
                five=_cards(_req(s, "five", f + "."), f + ".five", 5),
                category=_str(_req(s, "category", f + "."), f + ".category"),
            )
        )
    pots = []
    for i, x in enumerate(_list(_req(d, "pots", ""), "pots", _MAX_SEATS)):
        f = f"pots[{i}]"
        p = _map(x, f)
        _check_keys(p, _POT_KEYS, f + ".")
        pots.append(
            PotResult(
                amount=_int(_req(p, "amount", f + "."), f + ".amount"),
                eligible=_ints(_req(p, "eligible", f + "."), f + ".eligible"),
                winners=_ints(_req(p, "winners", f + "."), f + ".winners"),
                shares=_ints(_req(p, "shares", f + "."), f + ".shares"),
            )
        )
    opener = None
    if "opener" in d:  # Five Card Draw, a deal someone opened (R7.7)
        o = _map(d["opener"], "opener")
        _check_keys(o, _OPENER_KEYS, "opener.")
        opener = Opened(seat=_int(_req(o, "seat", "opener."), "opener.seat", 0, _MAX_SEATS - 1),
                        cards=_cards(_req(o, "cards", "opener."), "opener.cards", 5))
    return HandEnd(
        hand_id=_int(_req(d, "hand_id", ""), "hand_id"),
        history=tuple(history),
        shown=tuple(shown),
        pots=tuple(pots),
        net=_ints(_req(d, "net", ""), "net", signed=True),
        stacks=_ints(_req(d, "stacks", ""), "stacks"),
        opener=opener,
    )


def _dec_match_end(d: dict[str, Any]) -> MatchEnd:
    _check_keys(d, _MATCH_END_KEYS, "")
    return MatchEnd(
        hands_played=_int(_req(d, "hands_played", ""), "hands_played"),
        net=_ints(_req(d, "net", ""), "net", signed=True),
        status=_strs(_req(d, "status", ""), "status"),
    )


_DECODERS: dict[str, Callable[[dict[str, Any]], Message]] = {
    "hello": _dec_hello,
    "action": _dec_action,
    "discard": _dec_discard,
    "welcome": _dec_welcome,
    "error": _dec_error,
    "match_start": _dec_match_start,
    "hand_start": _dec_hand_start,
    "act": _dec_act,
    "draw": _dec_draw,
    "hand_end": _dec_hand_end,
    "match_end": _dec_match_end,
}


# Replies of the fast path are built by setting their slots directly: a frozen dataclass's
# __init__ goes through object.__setattr__ once per field, twice the cost of the rest of the path.
_new = object.__new__
_SET_ACTION = tuple(ActionReply.__dict__[f].__set__ for f in ("seq", "action", "amount", "v"))
_SET_DISCARD = tuple(DiscardReply.__dict__[f].__set__ for f in ("seq", "cards", "v"))
_unpackb = msgpack.unpackb


def decode_reply(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Message:
    """:func:`decode` for the frames a bot sends while it is asked to decide (the referee's hot path).

    A well-formed ``action`` or ``discard`` reply is checked inline, with no
    helper calls; anything else takes :func:`decode`, so the result, and every
    error, is exactly what :func:`decode` gives (a property test checks it).
    The fast path unpacks without :func:`decode`'s explicit size limits: msgpack
    then bounds every container by the input's length, and a reply it accepts
    holds at most five short fields, so the strict limits would accept it too.

    Raises:
        ProtocolError: as :func:`decode`.
    """
    if len(data) <= max_bytes:
        try:
            d = _unpackb(data)
        except Exception:  # decode() below says what is wrong
            d = None
        if type(d) is dict:
            v, seq, t = d.get("v"), d.get("seq"), d.get("type")
            if type(v) is int and v == PROTOCOL_VERSION and type(seq) is int and 0 <= seq <= MAX_AMOUNT:
                if t == "action" and d.keys() <= _ACTION_KEYS:
                    action, amount = d.get("action"), d.get("amount", 0)
                    if (
                        type(action) is str
                        and action in _ACTION_NAMES
                        and type(amount) is int
                        and 0 <= amount <= MAX_AMOUNT
                        and (amount or (action != "bet" and action != "raise"))
                    ):
                        reply = _new(ActionReply)
                        set_seq, set_action, set_amount, set_v = _SET_ACTION
                        set_seq(reply, seq)
                        set_action(reply, action)
                        set_amount(reply, amount)
                        set_v(reply, v)
                        return reply
                elif t == "discard" and d.keys() <= _DISCARD_KEYS:
                    cards = d.get("cards")
                    if type(cards) is list and len(cards) <= _MAX_CARDS:
                        for c in cards:
                            if type(c) is not str or c not in CARD_STRINGS:
                                break
                        else:
                            discard = _new(DiscardReply)
                            set_seq, set_cards, set_v = _SET_DISCARD
                            set_seq(discard, seq)
                            set_cards(discard, tuple(cards))
                            set_v(discard, v)
                            return discard
    return decode(data, max_bytes)


def decode(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Message:
    """Decode and validate one message.

    Args:
        data: One ZeroMQ frame (bytes, bytearray or memoryview).
        max_bytes: Size limit; larger input is rejected before it is parsed.

    Returns:
        The message dataclass of its ``type``. ``v`` equals ``PROTOCOL_VERSION`` for all
        types but ``hello``, whose ``v`` is whatever the bot sent (the referee answers a
        mismatch with an ``error``).

    Raises:
        ProtocolError: The input is oversized, not a single msgpack map, has an unknown
            ``type``, a wrong ``v``, a missing or unknown field, a value of the wrong type
            or out of range; ``.field`` names the place (``"<message>"`` for the whole).
    """
    if len(data) > max_bytes:
        raise ProtocolError("<message>", f"{len(data)} bytes exceeds the limit {max_bytes}")
    try:
        d = msgpack.unpackb(data, **_UNPACK_LIMITS)
    except Exception as exc:  # msgpack raises many kinds (ValueError, FormatError, ExtraData, ...)
        raise ProtocolError("<message>", f"not a single valid msgpack value ({type(exc).__name__})") from None
    if type(d) is not dict:
        raise ProtocolError("<message>", f"must be a msgpack map, got {_got(d)}")
    for key in d:
        if type(key) is not str:
            what = f"binary {bytes(key)!r}" if isinstance(key, (bytes, bytearray)) else f"{_tname(key)} {key!r}"
            raise ProtocolError(
                "<message>",
                f"map keys must be strings (msgpack str), got the {what[:60]} key"
                + (f" (msgpack bin; {ENCODING_FIXES['bin']})" if isinstance(key, (bytes, bytearray)) else ""),
            )
    t = d.get("type", _MISSING)
    if t is _MISSING:
        raise ProtocolError("type", "missing field")
    dec = _DECODERS.get(t) if type(t) is str else None
    if dec is None and isinstance(t, (bytes, bytearray)):
        _str(t, "type")  # the type packed as bin: says so
    if dec is None:
        raise ProtocolError("type", f"unknown message type {t!r}")
    v = d.get("v", _MISSING)
    if v is _MISSING:
        raise ProtocolError("v", "missing field (the protocol version)")
    if type(v) is not int or v != PROTOCOL_VERSION:
        if type(v) is float:
            _int(v, "v", 0, MAX_AMOUNT)  # a whole number packed as a float: says so
        if t != "hello":
            raise ProtocolError("v", f"protocol version {v!r} is not {PROTOCOL_VERSION}")
        _int(v, "v", 0, MAX_AMOUNT)
    try:
        return dec(d)
    except ProtocolError:
        raise
    except Exception as exc:  # e.g. a non-str map key; never let anything else escape
        raise ProtocolError("<message>", f"invalid content ({type(exc).__name__})") from None
