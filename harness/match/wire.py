"""The referee's per-hand messages, encoded straight from the hand (the hot path of a match).

A request (``act``/``draw``) carries the whole public history of the hand
(PROTOCOL.md section 6), and most of its bytes do not change within a hand
or a match: the keys, the game settings, the seat's hand id and cards, the
events already sent. :class:`HandWire` keeps them encoded and packs only
what changed since the last message (stacks, bets, the new events, the
legal actions, the clock), so a request costs a few MessagePack calls
instead of building the observation map and packing it whole.

The bytes are exactly those of ``protocol.codec`` (``encode_request`` of
``state.observation(seat)``, ``encode_hand_start``, ``encode_hand_end``):
MessagePack encodes a map as its header followed by its keys and values in
order, so pieces packed separately and joined are the same bytes as the
whole map packed at once. tests/test_wire.py compares every message of
random hands with the codec's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgpack

from harness.engine import HandState, Phase
from harness.engine.actions import Legal
from harness.engine.cards import CARD_STRS
from harness.engine.config import GameConfig
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition
from protocol.codec import encode_hand_end
from protocol.messages import CATEGORY_NAMES
from protocol.version import MAX_MESSAGE_BYTES, PROTOCOL_VERSION

__all__ = ["HandWire", "MatchWire", "encode_hand_end_of", "opener_of"]

# One packer for every piece (msgpack.packb makes a new packer, with its buffer, per call).
_pack: Callable[[Any], bytes] = msgpack.Packer().pack  # msgpack has no types


def _map_header(n: int) -> bytes:
    """The MessagePack header of a map of ``n`` pairs."""
    return bytes((0x80 | n,)) if n < 16 else b"\xde" + n.to_bytes(2, "big")


def _array_header(n: int) -> bytes:
    """The MessagePack header of an array of ``n`` items (fixarray, array 16, array 32)."""
    if n < 16:
        return bytes((0x90 | n,))
    if n < 0x10000:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


def _pairs(*items: Any) -> bytes:
    """Keys and values packed one after another (the body of a map), without any header."""
    return b"".join(map(_pack, items))


_ARRAY_HEADERS = [_array_header(n) for n in range(64)]
_HISTORY_KEY = _pack("history")
_PHASES = {p: _pairs("phase", str(p)) for p in Phase}
_CARDS_KEY = _pack("cards")
#: Each card's string (``CARD_STRS``), packed once.
_CARD_PACKED = [_pack(c) for c in CARD_STRS]
_V = _pairs("v", PROTOCOL_VERSION)
#: Start of a request up to its ``seq`` value: map of 6, type, v, seq key.
_REQUEST_HEAD = {
    False: _map_header(6) + _pairs("type", "act") + _V + _pack("seq"),
    True: _map_header(6) + _pairs("type", "draw") + _V + _pack("seq"),
}
#: The ``state`` key and the header of the observation map (19 keys, ``HandState.observation``; 20 with
#: ``game``, a game other than Seven Card Draw).
_STATE_HEAD = _pack("state") + _map_header(19)
_STATE_HEAD_GAME = _pack("state") + _map_header(20)
#: With ``openers`` and ``carried`` too: a game of openers (Five Card Draw, R7.2, R7.4).
_STATE_HEAD_OPENERS = _pack("state") + _map_header(22)
_LEGAL_HEAD = _pack("legal") + _map_header(5)
_HAND_START_HEAD = _map_header(8) + _pairs("type", "hand_start") + _V
_HAND_END_HEAD = _map_header(8) + _pairs("type", "hand_end") + _V
#: With ``opener`` too: a deal of a game of openers that someone opened (R7.7).
_HAND_END_HEAD_OPENER = _map_header(9) + _pairs("type", "hand_end") + _V


class MatchWire:
    """What every message of a match shares: the game settings' pairs of the observation.

    Args:
        game: the match's game settings.
        decision_ms: the decision limit of every bot (``time.decision_ms``), ms.
        definition: the game played (R6); a game other than Seven Card Draw adds ``game`` to the state.
    """

    __slots__ = ("decision_ms", "suffix", "state_head", "openers")

    def __init__(self, game: GameConfig, decision_ms: int, definition: GameDefinition = SEVEN_CARD_DRAW) -> None:
        self.decision_ms = decision_ms
        other = definition != SEVEN_CARD_DRAW
        self.state_head = _STATE_HEAD_GAME if other else _STATE_HEAD
        #: A game of openers adds ``openers`` (the rule) and, per hand, ``carried`` (R7.2, R7.4).
        self.openers = definition.openers if definition.passed_out else None
        if self.openers is not None:
            self.state_head = _STATE_HEAD_OPENERS
        # The observation's keys after ``to_act``, as HandState.observation gives them for a hand
        # in play (``shown`` is empty until the hand is complete, and requests come before that).
        self.suffix = _pairs(
            "small_blind", game.small_blind if game.blinds else 0,
            "big_blind", game.big_blind if game.blinds else 0,
            "ante", game.ante,
            "structure", str(game.structure),
            "min_bet", game.min_bet,
            "shown", [],
        ) + (_pairs("game", definition.name) if other else b"") + (
            _pairs("openers", str(definition.openers)) if definition.passed_out else b"")


class HandWire:
    """The messages of one hand, from its :class:`HandState` (see the module docstring).

    Args:
        match: the match's :class:`MatchWire`.
        state: the hand, as it is played (read, never changed).
    """

    __slots__ = ("_head", "_hist", "_nev", "_state", "_cards", "_tail", "_match")

    def __init__(self, match: MatchWire, state: HandState) -> None:
        self._match = match
        self._state = state
        hid, button = state.hand_id, state.button
        #: Per hand seat: the ``state`` key, the observation's header and first pairs (hand_id, seat, button).
        self._head = [match.state_head + _pairs("hand_id", hid, "seat", s, "button", button) for s in range(state.n)]
        #: Per hand seat: ``to_act`` (the seat itself, in its requests), the game, ``legal`` key and header.
        carried = b"" if match.openers is None else _pairs("carried", state.carried)
        self._tail = [_pairs("to_act", s) + match.suffix + carried + _LEGAL_HEAD for s in range(state.n)]
        #: Per hand seat: (cards list object, its encoded pair): re-encoded when the draw replaces the list.
        self._cards: list[tuple[Any, bytes] | None] = [None] * state.n
        self._hist = b""  # the events encoded so far, joined
        self._nev = 0

    def _history(self) -> bytes:
        """The ``history`` pair: the events encoded once each, as they are added."""
        events = self._state.history
        n = len(events)
        if n != self._nev:
            self._hist += b"".join(map(_pack, events[self._nev :]))
            self._nev = n
        return _HISTORY_KEY + (_ARRAY_HEADERS[n] if n < 64 else _array_header(n)) + self._hist

    def request(self, draw: bool, seq: int, seat: int, legal: Legal, bank_ms: int) -> bytes:
        """An ``act`` (or, with ``draw``, a ``draw``) request to hand seat ``seat``, the seat to act.

        The bytes of ``codec.encode_request(draw, seq, state.observation(seat), legal.actions,
        legal.call_amount, legal.min_to, legal.max_to, legal.max_discards, decision_ms,
        bank_ms)``. Times are ms.
        """
        st = self._state
        cards = st.cards[seat]
        held = self._cards[seat]
        if held is None or held[0] is not cards:  # dealt, or replaced by the draw
            held = self._cards[seat] = (
                cards,
                _CARDS_KEY + _ARRAY_HEADERS[len(cards)] + b"".join(map(_CARD_PACKED.__getitem__, cards)),
            )
        events = st.history
        n = len(events)
        if n != self._nev:  # the history pair's events, each encoded once (as _history)
            self._hist += b"".join(map(_pack, events[self._nev :]))
            self._nev = n
        return b"".join((
            _REQUEST_HEAD[draw],
            _pack(seq),
            self._head[seat],
            _PHASES[st.phase],
            held[1],
            _pack((
                "stacks", st.stacks, "bets", st.bets, "pot", sum(st.contrib) + st.carried, "folded", st.folded,
                "all_in", st.all_in, "draws", st.draws,
            ))[1:],  # a fixarray of 12: its one-byte header off, the pairs stay
            _HISTORY_KEY,
            _ARRAY_HEADERS[n] if n < 64 else _array_header(n),
            self._hist,
            self._tail[seat],
            _pack((
                "actions", legal.actions, "call_amount", legal.call_amount, "min_to", legal.min_to,
                "max_to", legal.max_to, "max_discards", legal.max_discards,
                "time", {"decision_ms": self._match.decision_ms, "bank_ms": bank_ms},
            ))[1:],
        ))

    def hand_start(self, seat: int, names: Sequence[str], stacks: Sequence[int]) -> bytes:
        """The ``hand_start`` of hand seat ``seat`` (``codec.encode_hand_start``); stacks in chips before the posts."""
        st = self._state
        return _HAND_START_HEAD + _pack((
            "hand_id", st.hand_id, "seat", seat, "button", st.button, "names", names, "stacks", stacks,
            "cards", [CARD_STRS[c] for c in st.hole_cards[seat]],
        ))[1:]

    def hand_end(self) -> bytes:
        """The ``hand_end`` of the complete hand (``codec.encode_hand_end``; R5.7 showing order).

        Raises:
            RuntimeError: the hand is not complete.
            ValueError: the message would exceed ``MAX_MESSAGE_BYTES`` (a history of thousands of events).
        """
        st = self._state
        result = st.result()
        cards = st.cards
        shown = [
            {"seat": s, "cards": [CARD_STRS[c] for c in cards[s]], "five": [CARD_STRS[c] for c in r.five],
             "category": CATEGORY_NAMES[r.category]}
            for s, r in result.shown.items()
        ]
        pots = [
            {"amount": p.amount, "eligible": list(p.eligible), "winners": list(p.winners), "shares": list(p.shares)}
            for p in result.pots
        ]
        tail: tuple[Any, ...] = ("shown", shown, "pots", pots, "net", result.net, "stacks", result.final_stacks)
        opener = opener_of(st)
        if opener is not None:  # R7.7: who opened and the openers shown, last
            tail += ("opener", {"seat": opener[0], "cards": list(opener[1])})
        data = b"".join((
            _HAND_END_HEAD if opener is None else _HAND_END_HEAD_OPENER,
            _pairs("hand_id", st.hand_id),
            self._history(),
            _pack(tail)[1:],
        ))
        if len(data) > MAX_MESSAGE_BYTES:
            raise ValueError(f"hand_end of {len(data)} bytes exceeds the limit {MAX_MESSAGE_BYTES}")
        return data


def opener_of(state: HandState) -> tuple[int, list[str]] | None:
    """``hand_end.opener`` of a complete hand: (hand seat of the opener, the openers shown as proof, R7.7), or
    None: a game without openers, or a deal nobody opened (passed out, R7.4)."""
    if not state.game.passed_out:
        return None
    result = state.result()
    return None if result.opener is None else (result.opener, [CARD_STRS[c] for c in result.proof])


def encode_hand_end_of(state: HandState, hand_id: int) -> bytes:
    """The ``hand_end`` notification of a complete hand, encoded by the codec (PROTOCOL.md; R5.7 showing order).

    The reference :meth:`HandWire.hand_end` is checked against (tests/test_wire.py) and the benchmark's.

    Raises:
        RuntimeError: the hand is not complete.
    """
    result = state.result()
    cards = state.cards
    return encode_hand_end(
        hand_id,
        state.history,
        [
            (s, [CARD_STRS[c] for c in cards[s]], [CARD_STRS[c] for c in r.five], CATEGORY_NAMES[r.category])
            for s, r in result.shown.items()
        ],
        [(pt.amount, pt.eligible, pt.winners, pt.shares) for pt in result.pots],
        result.net,
        result.final_stacks,
        opener_of(state),
    )
