"""Python bot SDK: subclass :class:`Bot`, implement ``act`` and ``draw``, call ``run()``.

Example (a complete bot)::

    from protocol.sdk import Bot, call, check

    class MyBot(Bot):
        def act(self, state):
            return check() if state.can("check") else call()

        def draw(self, state):
            return []  # stand pat

    if __name__ == "__main__":
        MyBot().run()

``run()`` reads the launch environment (PROTOCOL.md section 1), connects as a ZeroMQ
DEALER, sends ``hello``, answers ``act``/``draw`` requests, passes notifications to the
optional ``on_*`` hooks and returns at ``match_end``, on a fatal ``error``, or when the
referee disappears (connection closed, parent process gone, or silence for
``idle_timeout_s``). It imports nothing from ``harness``.

Transport: a pyzmq DEALER socket (libzmq), connected to ``HARNESS_ENDPOINT``.

Cost per message: the referee is trusted, so requests are not validated the way the
referee validates replies (``protocol.codec.decode``); a frame is unpacked with the
unpacker's size limits and read lazily through :class:`DecisionState`. Message dataclasses
(``HandStart``, ``HandEnd``, ...) are built only for a hook the bot overrides, or when
``bot.match`` / ``bot.hand`` is read. A request that cannot be used (a field missing or of
the wrong type) is logged to stderr and answered with the default action; other unusable
messages are logged and ignored. Nothing a referee sends can crash ``run()``.

Exceptions in your code: when ``act()`` or ``draw()`` raises (or returns something that
is not an action / a list of card strings), the traceback is printed to stderr after
``[bot] act() failed; sending the default action:`` and the default action is sent
(check if free, else fold; stand pat). The referee sees a valid reply, so no fault is
recorded: ``harness check-bot`` fails a bot on any traceback in its stderr.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections import namedtuple

import msgpack

from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES, PROTOCOL_VERSION

#: The game of a request without ``game`` (PROTOCOL.md section 6); ``protocol.messages.SEVEN_CARD_DRAW``.
SEVEN_CARD_DRAW = "seven-card-draw"

# Start-up time is CPU time per hand in a short match: typing and dataclasses (about
# 10 ms to import) stay out; mypy treats any name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:  # protocol.messages is imported on first use: most bots never build a message object
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, TypedDict

    from protocol.messages import (
        ActionReply,
        DiscardReply,
        Error,
        HandEnd,
        HandStart,
        Legal,
        MatchEnd,
        MatchStart,
        Message,
        TimeLeft,
    )

    class _StateMap(TypedDict, total=False):
        """The ``state`` map of a request (PROTOCOL.md section 6); a field the referee left out raises when read."""

        hand_id: int
        seat: int
        button: int
        phase: str
        cards: list[str]
        stacks: list[int]
        bets: list[int]
        pot: int
        folded: list[bool]
        all_in: list[bool]
        draws: list[int | None]
        history: list[dict[str, Any]]
        big_blind: int
        small_blind: int
        structure: str
        game: str
        openers: str
        carried: int

    class _LegalMap(TypedDict, total=False):
        """The ``legal`` map of a request (PROTOCOL.md section 6)."""

        actions: Sequence[str]
        call_amount: int
        min_to: int
        max_to: int
        max_discards: int

__all__ = [
    "Action",
    "Bot",
    "DecisionState",
    "bet",
    "call",
    "card_ints",
    "check",
    "fold",
    "raise_to",
]


# --------------------------------------------------------------------------- actions


class Action(namedtuple("Action", ("kind", "amount"), defaults=(0,))):
    """A betting decision: an immutable value (a named tuple, see TYPE_CHECKING above).

    Attributes:
        kind: ``"fold"``, ``"check"``, ``"call"``, ``"bet"`` or ``"raise"`` (R3.5).
        amount: For bet/raise the "to" total of the round in chips; 0 otherwise.
    """

    __slots__ = ()
    kind: str
    amount: int


_FOLD = Action("fold")
_CHECK = Action("check")
_CALL = Action("call")
_ACTION_NAMES = frozenset({"fold", "check", "call", "bet", "raise"})
_CARDS = frozenset(r + s for r in "23456789TJQKA" for s in "cdhs")
_MAX_CARDS = 7  # most cards a discard may name (R2.7)


def fold() -> Action:
    """Give up the hand (always legal, R3.5)."""
    return _FOLD


def check() -> Action:
    """Pass without betting (legal when there is nothing to call)."""
    return _CHECK


def call() -> Action:
    """Match the highest bet of the round (or go all-in for less)."""
    return _CALL


def bet(to: int) -> Action:
    """Open the betting of a round with a total of ``to`` chips this round."""
    return Action("bet", int(to))


def raise_to(to: int) -> Action:
    """Raise so that this round's total is ``to`` chips (not "by")."""
    return Action("raise", int(to))


_CARD_INT = {r + s: i * 4 + j for i, r in enumerate("23456789TJQKA") for j, s in enumerate("cdhs")}


def card_ints(cards: Sequence[str]) -> list[int]:
    """Cards as the ints the engine's evaluator takes: ``rank * 4 + suit`` (``2c`` = 0, ``As`` = 51).

    Rank 0..12 for 2..A, suit 0..3 for c d h s (PROTOCOL.md section 11), e.g.
    ``harness.engine.evaluator.evaluate(card_ints(state.cards))``.

    Raises:
        KeyError: a string that is not a card.
    """
    return [_CARD_INT[c] for c in cards]


# --------------------------------------------------------------------------- decision state


class DecisionState:
    """What the bot sees when asked to decide: a thin view over the request, read on demand.

    Attributes:
        seq: The request's sequence number (the SDK echoes it for you).
        kind: ``"act"`` or ``"draw"``.
        raw: The ``state`` map exactly as received (PROTOCOL.md section 6).
        legal: Legal actions and exact amounts (a ``protocol.messages.Legal``, built on first read).
        time: Remaining time in milliseconds (``decision_ms``, ``bank_ms``; built on first read).

    A field the referee left out or sent with the wrong type raises (``KeyError``,
    ``TypeError``) when read; ``run()`` then sends the default action.
    """

    __slots__ = ("_legal", "_lg", "_raw", "_time", "_tm", "kind", "seq")

    def __init__(
        self,
        seq: int,
        kind: str,
        raw: _StateMap,
        legal: Legal | _LegalMap,
        time: TimeLeft | Mapping[str, Any],
    ) -> None:
        """Wrap one request.

        Args:
            seq: The request's ``seq``.
            kind: ``"act"`` or ``"draw"``.
            raw: Its ``state`` map.
            legal: Its ``legal`` map as received, or a ``Legal``.
            time: Its ``time`` map as received, or a ``TimeLeft``.
        """
        self.seq = seq
        self.kind = kind
        self._raw = raw
        if type(legal) is dict:
            self._lg: _LegalMap = legal
            self._legal: Legal | None = None
        else:
            self._legal = legal  # type: ignore[assignment]
            self._lg = {
                "actions": legal.actions,  # type: ignore[union-attr]
                "call_amount": legal.call_amount,  # type: ignore[union-attr]
                "min_to": legal.min_to,  # type: ignore[union-attr]
                "max_to": legal.max_to,  # type: ignore[union-attr]
                "max_discards": legal.max_discards,  # type: ignore[union-attr]
            }
        self._tm = time
        self._time: TimeLeft | None = None if type(time) is dict else time  # type: ignore[assignment]

    @classmethod
    def of(cls, request: Any) -> DecisionState:
        """Wrap a decoded ``ActRequest`` or ``DrawRequest``."""
        return cls(request.seq, request.TYPE, request.state, request.legal, request.time)

    @property
    def raw(self) -> Mapping[str, Any]:
        """The ``state`` map exactly as received (an empty map if the request had none)."""
        return self._raw

    @property
    def legal(self) -> Legal:
        """Legal actions and exact amounts (PROTOCOL.md section 6, ``legal``)."""
        lg = self._legal
        if lg is None:
            m = self._lg
            lg = self._legal = _messages().Legal(
                tuple(m["actions"]), m["call_amount"], m["min_to"], m["max_to"], m["max_discards"]
            )
        return lg

    @property
    def time(self) -> TimeLeft:
        """Remaining time: ``decision_ms`` for this reply, ``bank_ms`` of the match's bank."""
        tm = self._time
        if tm is None:
            m: Any = self._tm
            tm = self._time = _messages().TimeLeft(m["decision_ms"], m["bank_ms"])
        return tm

    # The observation's fields, read on demand (no copying per request).
    @property
    def hand_id(self) -> int:
        return self._raw["hand_id"]

    @property
    def seat(self) -> int:
        return self._raw["seat"]

    @property
    def button(self) -> int:
        return self._raw["button"]

    @property
    def phase(self) -> str:
        """``"bet1"``, ``"draw"`` or ``"bet2"``."""
        return self._raw["phase"]

    @property
    def cards(self) -> list[str]:
        """This bot's current seven cards."""
        return self._raw["cards"]

    @property
    def stacks(self) -> list[int]:
        """Chips behind per seat."""
        return self._raw["stacks"]

    @property
    def bets(self) -> list[int]:
        """Chips bet in the current round per seat."""
        return self._raw["bets"]

    @property
    def pot(self) -> int:
        """All chips committed this hand, including the current round's bets."""
        return self._raw["pot"]

    @property
    def folded(self) -> list[bool]:
        return self._raw["folded"]

    @property
    def all_in(self) -> list[bool]:
        return self._raw["all_in"]

    @property
    def draws(self) -> list[int | None]:
        """Cards drawn per seat, None before that seat's draw."""
        return self._raw["draws"]

    @property
    def history(self) -> list[dict[str, Any]]:
        """Public events of the hand so far, oldest first."""
        return self._raw["history"]

    @property
    def big_blind(self) -> int:
        return self._raw["big_blind"]

    @property
    def small_blind(self) -> int:
        return self._raw["small_blind"]

    @property
    def structure(self) -> str:
        return self._raw["structure"]

    @property
    def game(self) -> str:
        """The game played: ``"seven-card-draw"``, ``"five-card-draw"`` or ``"deuce-to-seven-triple-draw"``
        (PROTOCOL.md section 6: a state without ``game`` is Seven Card Draw's)."""
        return self._raw.get("game", SEVEN_CARD_DRAW)

    @property
    def openers(self) -> str | None:
        """What opens round 1 in a game of openers (Five Card Draw, RULES.md R7.2): ``"jacks"`` (a pair of jacks
        or better), ``"jack-card"`` or ``"none"``; None in a game without openers. A bet is offered
        (``legal.actions``) only to a player who may open (R7.3)."""
        return self._raw.get("openers")

    @property
    def carried(self) -> int:
        """Chips carried into this deal from passed-out deals (R7.4), counted in ``pot``; 0 in other games."""
        return self._raw.get("carried", 0)

    @property
    def my_stack(self) -> int:
        return self._raw["stacks"][self._raw["seat"]]

    @property
    def to_call(self) -> int:
        """Chips to add to call (0 when nothing to call)."""
        return self._lg["call_amount"]

    @property
    def min_to(self) -> int:
        return self._lg["min_to"]

    @property
    def max_to(self) -> int:
        return self._lg["max_to"]

    @property
    def max_discards(self) -> int:
        return self._lg["max_discards"]

    @property
    def players_in(self) -> int:
        """Players who have not folded."""
        return sum(1 for f in self._raw["folded"] if not f)

    def can(self, action: str) -> bool:
        """True if ``action`` (``"fold"``, ``"check"``, ``"call"``, ``"bet"``, ``"raise"``) is legal."""
        return action in self._lg["actions"]

    def default_action(self) -> Action:
        """Check if free, else fold (what the referee does for a faulting bot); never raises."""
        try:
            free = "check" in self._lg["actions"]
        except Exception:  # noqa: BLE001 -- an unusable legal map: folding is always legal (R3.5)
            free = False
        return _CHECK if free is True else _FOLD

    def wager(self, to: int) -> Action:
        """Bet or raise to ``to`` (whichever is legal), clamped to ``min_to..max_to``.

        Falls back to call/check when neither bet nor raise is legal.
        """
        lg = self._lg
        actions = lg["actions"]
        if "raise" in actions or "bet" in actions:
            amount = max(lg["min_to"], min(int(to), lg["max_to"]))
            return Action("raise" if "raise" in actions else "bet", amount)
        return _CALL if "call" in actions else _CHECK if "check" in actions else _FOLD

    def __repr__(self) -> str:
        cards = self.raw.get("cards")
        return f"DecisionState(seq={self.seq}, kind={self.kind!r}, cards={cards}, legal={self._lg})"


# --------------------------------------------------------------------------- the bot

# Unpacker limits for referee frames: a small frame cannot declare a huge container.
_UNPACK_LIMITS: dict[str, Any] = {
    "max_str_len": MAX_MESSAGE_BYTES,
    "max_bin_len": MAX_MESSAGE_BYTES,
    "max_ext_len": 0,
    "max_array_len": 8192,
    "max_map_len": 64,
}
_HOOKS = ("on_match_start", "on_hand_start", "on_hand_end", "on_match_end")
# One packer for every reply (msgpack.packb builds a new one, with its buffer, per call).
_pack: Callable[[Any], bytes] = msgpack.Packer().pack



class Bot:
    """Base class of a Python bot. Override :meth:`act` and :meth:`draw`.

    Attributes:
        match: The ``match_start`` message once received (game settings, limits), else
            None. Built (strictly decoded) on first read.
        hand: The current hand's ``hand_start`` message, else None. Built on first read.
        idle_timeout_s: Seconds without any message after which ``run()`` assumes the
            referee is gone and returns.
        poll_ms: How often ``run()`` wakes up, when no message comes, to check that the
            referee is still there (milliseconds).
    """

    idle_timeout_s: float = 600.0
    poll_ms: int = 1000

    # Class defaults, so that a subclass that skips ``Bot.__init__`` still works.
    _match_frame: bytes | None = None  # match_start frame not decoded yet
    _match_msg: MatchStart | None = None
    _hand_frame: bytes | None = None  # hand_start frame not built yet
    _hand_msg: HandStart | None = None
    _handlers: dict[str, Callable[[dict[str, Any], bytes], bytes | None]] | None = None
    _exit: int | None = None  # run()'s status once the match is over

    def __init__(self) -> None:
        self.match = None
        self.hand = None

    # ---- to override

    def act(self, state: DecisionState) -> Action:
        """Return the betting decision. Default: check if free, else fold.

        If it raises, ``run()`` prints the traceback to stderr and sends the default action.
        """
        return state.default_action()

    def draw(self, state: DecisionState) -> Sequence[str]:
        """Return the cards to discard (at most ``state.max_discards``). Default: stand pat.

        If it raises, ``run()`` prints the traceback to stderr and stands pat.
        """
        return ()

    def on_match_start(self, msg: MatchStart) -> None:
        """Called on ``match_start``."""

    def on_hand_start(self, msg: HandStart) -> None:
        """Called on ``hand_start``."""

    def on_hand_end(self, msg: HandEnd) -> None:
        """Called on ``hand_end`` (every showdown, pots, net per seat; in Five Card Draw ``msg.opener``, who
        opened and the openers shown, R7.7)."""

    def on_match_end(self, msg: MatchEnd) -> None:
        """Called on ``match_end``, just before ``run()`` returns."""

    def on_error(self, msg: Error) -> None:
        """Called on ``error``; the default prints it to stderr."""
        _log(f"referee error ({msg.reason}{', fatal' if msg.fatal else ''}): {msg.message}")

    # ---- lazily built messages

    @property
    def match(self) -> MatchStart | None:
        """The ``match_start`` message (see the class docstring)."""
        if self._match_frame is not None:
            frame, self._match_frame = self._match_frame, None
            self._match_msg = _decode_strict(frame)  # type: ignore[assignment]
        return self._match_msg

    @match.setter
    def match(self, msg: MatchStart | None) -> None:
        self._match_frame = None
        self._match_msg = msg

    @property
    def hand(self) -> HandStart | None:
        """The current hand's ``hand_start`` message (see the class docstring)."""
        if self._hand_frame is not None:
            frame, self._hand_frame = self._hand_frame, None
            self._hand_msg = _build(_hand_start_of, _unpack(frame))
        return self._hand_msg

    @hand.setter
    def hand(self, msg: HandStart | None) -> None:
        self._hand_frame = None
        self._hand_msg = msg

    # ---- machinery

    def handle(self, msg: Message) -> ActionReply | DiscardReply | None:
        """Process one decoded message; return the reply to send, if any.

        The in-process twin of :meth:`handle_frame` (``run()`` uses that one). Exceptions
        raised by ``act``/``draw`` are printed to stderr and answered with the default
        action (check if free, else fold; stand pat), so one bug costs one hand.
        """
        m = _messages()
        t = type(msg)
        if t is m.ActRequest or t is m.DrawRequest:
            kind = "act" if t is m.ActRequest else "draw"
            request: Any = msg
            state = DecisionState(request.seq, kind, request.state, request.legal, request.time)
            if kind == "act":
                a = self._decide_act(state)
                reply: ActionReply = m.ActionReply(seq=state.seq, action=a.kind, amount=a.amount)
                return reply
            discard: DiscardReply = m.DiscardReply(seq=state.seq, cards=tuple(self._decide_draw(state)))
            return discard
        if t is m.HandStart:
            self.hand = msg  # type: ignore[assignment]
            _call_hook(self.on_hand_start, msg)
        elif t is m.HandEnd:
            _call_hook(self.on_hand_end, msg)
        elif t is m.MatchStart:
            self.match = msg  # type: ignore[assignment]
            _call_hook(self.on_match_start, msg)
        elif t is m.MatchEnd:
            _call_hook(self.on_match_end, msg)
        elif t is m.Error:
            _call_hook(self.on_error, msg)
        return None

    def handle_frame(self, data: bytes) -> bytes | None:
        """Process one frame from the referee; return the reply frame to send, if any.

        Args:
            data: One ZeroMQ frame (a msgpack map, PROTOCOL.md).

        Returns:
            The encoded ``action``/``discard`` reply to a request, else None. A request
            whose ``seq`` is usable but whose other fields are not is answered with the
            default action; anything else unusable is logged to stderr and ignored.
        """
        handlers = self._handlers
        if handlers is None:
            handlers = self._handlers = self._make_handlers()
        d = _unpack(data)
        if d is None:
            return None  # _unpack has said why
        t = d.get("type") if type(d) is dict else None
        handler = handlers.get(t) if type(t) is str else None
        if handler is None:
            _log(f"ignored an invalid message from the referee: unknown type {t!r}")
            return None
        return handler(d, data)

    def _make_handlers(self) -> dict[str, Callable[[dict[str, Any], bytes], bytes | None]]:
        """Frame handlers by message type; notifications whose hook is not overridden cost nothing."""
        cls = type(self)
        hooked = {name for name in _HOOKS if getattr(cls, name) is not getattr(Bot, name)}
        return {
            "act": self._on_act,
            "draw": self._on_draw,
            "hand_start": self._on_hand_start_hook if "on_hand_start" in hooked else self._on_hand_start,
            "hand_end": self._on_hand_end if "on_hand_end" in hooked else _ignore,
            "match_start": self._on_match_start_hook if "on_match_start" in hooked else self._on_match_start,
            "match_end": self._on_match_end_hook if "on_match_end" in hooked else self._on_match_end,
            "error": self._on_error,
            "welcome": _ignore,
        }

    def _on_act(self, d: dict[str, Any], data: bytes) -> bytes | None:
        state = _request_state(d, "act")
        if state is None:
            return None
        a = self._decide_act(state) if state.raw is not _UNUSABLE else state.default_action()
        return _pack({"type": "action", "v": PROTOCOL_VERSION, "seq": state.seq, "action": a.kind, "amount": a.amount})

    def _on_draw(self, d: dict[str, Any], data: bytes) -> bytes | None:
        state = _request_state(d, "draw")
        if state is None:
            return None
        cards = self._decide_draw(state) if state.raw is not _UNUSABLE else []
        return _pack({"type": "discard", "v": PROTOCOL_VERSION, "seq": state.seq, "cards": cards})

    def _decide_act(self, state: DecisionState) -> Action:
        """``act(state)`` checked to be sendable, else the default action (logged)."""
        try:
            a = self.act(state)
            if a is _CHECK or a is _CALL or a is _FOLD:  # what fold(), check(), call() return
                return a
            if type(a) is not Action:
                if isinstance(a, str):
                    a = Action(a)
                elif not isinstance(a, Action):
                    raise TypeError(f"act() must return an Action (fold(), call(), raise_to(n), ...), got {a!r}")
            amount = a.amount
            if a.kind not in _ACTION_NAMES or type(amount) is not int or not 0 <= amount <= MAX_AMOUNT:
                raise ValueError(
                    f"act() returned {a!r}: kind must be fold/check/call/bet/raise, amount an int of chips"
                )
        except Exception:  # noqa: BLE001 -- a bug in act() costs one decision, not the match
            _log("act() failed; sending the default action:\n" + _traceback())
            a = state.default_action()
        return a

    def _decide_draw(self, state: DecisionState) -> list[str]:
        """``draw(state)`` checked to be sendable, else standing pat (logged)."""
        try:
            cards = self.draw(state) or []
            if type(cards) is not list:
                cards = list(cards)
            if len(cards) > _MAX_CARDS:
                raise ValueError(f"draw() returned {len(cards)} cards; at most {_MAX_CARDS} are held")
            for c in cards:
                if type(c) is not str or c not in _CARDS:
                    raise TypeError(f"draw() must return card strings like 'As', got {cards!r}")
        except Exception:  # noqa: BLE001 -- a bug in draw() costs one decision, not the match
            _log("draw() failed; standing pat:\n" + _traceback())
            cards = []
        return cards

    def _on_hand_start(self, d: dict[str, Any], data: bytes) -> None:
        self._hand_frame = data
        self._hand_msg = None

    def _on_hand_start_hook(self, d: dict[str, Any], data: bytes) -> None:
        self._hand_frame = None
        self._hand_msg = msg = _build(_hand_start_of, d)
        if msg is not None:
            _call_hook(self.on_hand_start, msg)

    def _on_hand_end(self, d: dict[str, Any], data: bytes) -> None:
        msg = _build(_hand_end_of, d)
        if msg is not None:
            _call_hook(self.on_hand_end, msg)

    def _on_match_start(self, d: dict[str, Any], data: bytes) -> None:
        self._match_frame = bytes(data)
        self._match_msg = None

    def _on_match_start_hook(self, d: dict[str, Any], data: bytes) -> None:
        self._on_match_start(d, data)
        msg = self.match
        if msg is not None:
            _call_hook(self.on_match_start, msg)

    def _on_match_end(self, d: dict[str, Any], data: bytes) -> None:
        self._exit = 0

    def _on_match_end_hook(self, d: dict[str, Any], data: bytes) -> None:
        msg = _decode_strict(data)
        if msg is not None:
            _call_hook(self.on_match_end, msg)
        self._exit = 0

    def _on_error(self, d: dict[str, Any], data: bytes) -> None:
        msg: Any = _decode_strict(data)
        if msg is not None:
            _call_hook(self.on_error, msg)
            if msg.fatal:
                self._exit = 1

    def run(self, endpoint: str | None = None) -> int:
        """Play a match as launched by the harness; return an exit status.

        Args:
            endpoint: ZeroMQ endpoint; default ``HARNESS_ENDPOINT`` from the environment.

        Returns:
            0 after ``match_end`` or when the referee disappeared; 1 after a fatal ``error``
            (e.g. version mismatch); 2 when the launch environment is missing.
        """
        env = os.environ
        endpoint = endpoint or env.get("HARNESS_ENDPOINT")
        if not endpoint:
            _log(
                "HARNESS_ENDPOINT is not set: a bot is started by the harness, e.g. "
                "`harness check-bot -- python -m bots.caller` (see protocol/PROTOCOL.md)"
            )
            return 2
        secret = env.get("HARNESS_SECRET", "")
        name = env.get("HARNESS_BOT_NAME") or type(self).__name__
        referee_version = env.get("HARNESS_PROTOCOL_VERSION", str(PROTOCOL_VERSION))
        if referee_version != str(PROTOCOL_VERSION):
            _log(f"the referee speaks protocol {referee_version}, this SDK {PROTOCOL_VERSION}")
        hello = msgpack.packb({"type": "hello", "v": PROTOCOL_VERSION, "secret": secret, "name": name})
        self._exit = None
        try:
            status = self._run_libzmq(endpoint, hello)
        except KeyboardInterrupt:
            status = 0
        return status

    def _referee_gone(self, parent: int, quiet_s: float) -> bool:
        """The checks run when no message came for ``poll_ms``: parent process, idle time."""
        if os.getppid() != parent:
            _log("the parent process is gone; exiting")
            return True
        if quiet_s > self.idle_timeout_s:
            _log(f"no message from the referee for {self.idle_timeout_s:.0f} s; exiting")
            return True
        return False

    def _run_libzmq(self, endpoint: str, hello: bytes) -> int:
        """Play over a libzmq DEALER socket (any transport libzmq knows)."""
        import zmq

        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        # Blocking receives that give up after poll_ms: the referee-gone checks run only then.
        sock.setsockopt(zmq.RCVTIMEO, max(1, int(self.poll_ms)))
        monitor = sock.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        try:
            sock.connect(endpoint)
            sock.send(hello)
            return self._serve(zmq, sock, monitor)
        finally:
            sock.disable_monitor()
            monitor.close(linger=0)
            sock.close(linger=0)
            ctx.term()

    def _serve(self, zmq: Any, sock: Any, monitor: Any) -> int:
        """Answer frames until the match is over or the referee is gone; return the exit status."""
        recv = sock.recv
        send = sock.send
        handle = self.handle_frame
        again = zmq.Again
        events, pollin = zmq.EVENTS, zmq.POLLIN
        gc.freeze()  # what exists now lives for the match: spare the collector from walking it
        parent = os.getppid()
        connected = False
        quiet_since: float | None = None
        while True:
            try:
                data = recv()
            except again:  # poll_ms without a message: is the referee still there?
                now = time.monotonic()
                if quiet_since is None:
                    quiet_since = now - self.poll_ms / 1000
                while monitor.poll(0):
                    event = _monitor_event(monitor.recv_multipart())
                    if event == zmq.EVENT_CONNECTED:
                        connected = True
                    elif event == zmq.EVENT_DISCONNECTED and connected:
                        status = self._drain(zmq, sock)  # a final match_end may still be queued
                        if status is None:
                            _log("the referee closed the connection; exiting")
                            status = 0
                        return status
                if self._referee_gone(parent, now - quiet_since):
                    return 0
                continue
            quiet_since = None
            if sock.getsockopt(events) & pollin:  # more queued behind it: a slow decision (PROTOCOL.md section 8)
                frames = [data]
                while sock.getsockopt(events) & pollin:
                    frames.append(recv(zmq.NOBLOCK))
                for data in _newest_request_only(frames):
                    reply = handle(data)
                    if reply is not None:
                        send(reply)
                    elif self._exit is not None:
                        return self._exit
                continue
            reply = handle(data)
            if reply is not None:
                send(reply)
            elif self._exit is not None:
                return self._exit

    def _drain(self, zmq: Any, sock: Any) -> int | None:
        """Handle every frame still queued; return the exit status if the match ended."""
        while True:
            try:
                data = sock.recv(zmq.NOBLOCK)
            except zmq.Again:
                return None
            reply = self.handle_frame(data)
            if reply is not None:
                sock.send(reply, zmq.NOBLOCK)
            elif self._exit is not None:
                return self._exit


# --------------------------------------------------------------------------- helpers


def _newest_request_only(frames: list[bytes]) -> list[bytes]:
    """Frames queued together, without the requests that have more frames behind them (PROTOCOL.md section 8).

    While a request is pending the referee sends that bot nothing more, so a message queued behind a
    request means it timed out: answering it would only make the next request late too.
    Notifications are all kept, in order.
    """
    kept = []
    last = len(frames) - 1
    for i, frame in enumerate(frames):
        if i < last:
            try:
                d = msgpack.unpackb(frame, raw=False, strict_map_key=False)
            except Exception:  # noqa: BLE001 - handle_frame says why it is unusable
                d = None
            t = d.get("type") if type(d) is dict else None
            if t in ("act", "draw"):
                _log(f"skipped {t} request {d.get('seq')!r}: it timed out while this bot was busy")
                continue
        kept.append(frame)
    return kept


# The ``raw`` of a request that cannot be shown to act()/draw(): it gets the default action.
_UNUSABLE: _StateMap = {}
_UNUSABLE_LEGAL: _LegalMap = {}


def _request_state(d: dict[str, Any], kind: str) -> DecisionState | None:
    """The DecisionState of an ``act``/``draw`` map, or None (logged) when not even its ``seq`` is usable.

    When ``state``, ``legal`` or ``time`` is not a map the request is logged and its
    state's ``raw`` is ``_UNUSABLE``: the default action is sent (check only if the
    ``legal`` map says it is free).
    """
    seq = d.get("seq")
    if type(seq) is not int or not 0 <= seq <= MAX_AMOUNT:
        _log(f"ignored an invalid message from the referee: {kind} request with seq {seq!r}")
        return None
    state: Any = d.get("state")
    legal: Any = d.get("legal")
    tm: Any = d.get("time")
    legal_ok = type(legal) is dict
    maps = legal_ok and type(state) is dict and type(tm) is dict
    if maps:
        return DecisionState(seq, kind, state, legal, tm)
    _log(f"invalid {kind} request {seq} (state, legal or time is not a map); sending the default action")
    return DecisionState(seq, kind, _UNUSABLE, legal if legal_ok else _UNUSABLE_LEGAL, {})


def _unpack(data: bytes) -> Any:
    """The msgpack value of a frame, within the size limits; None (logged) if it is not one."""
    if len(data) > MAX_MESSAGE_BYTES:
        _log(f"ignored an invalid message from the referee: {len(data)} bytes exceeds {MAX_MESSAGE_BYTES}")
        return None
    try:
        return msgpack.unpackb(data, **_UNPACK_LIMITS)
    except Exception as exc:  # noqa: BLE001 -- msgpack raises many kinds (ValueError, FormatError, ExtraData, ...)
        _log(f"ignored an invalid message from the referee: not a msgpack value ({type(exc).__name__})")
        return None


def _ignore(d: dict[str, Any], data: bytes) -> None:
    return None


def _messages() -> Any:
    """``protocol.messages``, imported on first use (most bots never build a message object)."""
    import protocol.messages

    return protocol.messages


def _decode_strict(data: bytes) -> Message | None:
    """Decode a rare frame (match_start, match_end, error) with the strict codec; None (logged) if invalid."""
    from protocol.codec import decode
    from protocol.errors import ProtocolError

    try:
        return decode(data)
    except ProtocolError as exc:
        _log(f"ignored an invalid message from the referee: {exc}")
        return None


def _build(make: Callable[[dict[str, Any]], Any], d: Any) -> Any:
    """``make(d)``, or None (logged) when ``d`` is not a map, lacks a field or has a wrong type."""
    if type(d) is not dict:
        return None  # _unpack has said why
    try:
        return make(d)
    except Exception as exc:  # noqa: BLE001 -- a field missing or of the wrong type, at any depth
        _log(f"ignored an invalid {d.get('type')} message from the referee ({type(exc).__name__}: {exc})")
        return None


def _hand_start_of(d: dict[str, Any]) -> HandStart:
    start: HandStart = _messages().HandStart(
        hand_id=d["hand_id"],
        seat=d["seat"],
        button=d["button"],
        names=tuple(d["names"]),
        stacks=tuple(d["stacks"]),
        cards=tuple(d["cards"]),
    )
    return start


def _hand_end_of(d: dict[str, Any]) -> HandEnd:
    m = _messages()
    end: HandEnd = m.HandEnd(
        hand_id=d["hand_id"],
        history=tuple(d["history"]),
        shown=tuple(
            m.Shown(seat=s["seat"], cards=tuple(s["cards"]), five=tuple(s["five"]), category=s["category"])
            for s in d["shown"]
        ),
        pots=tuple(
            m.PotResult(
                amount=p["amount"],
                eligible=tuple(p["eligible"]),
                winners=tuple(p["winners"]),
                shares=tuple(p["shares"]),
            )
            for p in d["pots"]
        ),
        net=tuple(d["net"]),
        stacks=tuple(d["stacks"]),
        opener=_opened_of(m, d["opener"]) if "opener" in d else None,
    )
    return end


def _opened_of(m: Any, o: dict[str, Any]) -> Any:
    """``hand_end.opener`` as :class:`protocol.messages.Opened`: who opened and the openers shown (R7.7)."""
    return m.Opened(seat=o["seat"], cards=tuple(o["cards"]))


def _call_hook(hook: Callable[[Any], None], msg: Any) -> None:
    """Run an ``on_*`` hook; an exception is printed to stderr, the match goes on."""
    try:
        hook(msg)
    except Exception:  # noqa: BLE001 -- a bug in a hook costs nothing but a log line
        _log(f"{getattr(hook, '__name__', 'hook')}() failed:\n" + _traceback())


def _traceback() -> str:
    import traceback

    return traceback.format_exc()



def _monitor_event(frames: list[bytes]) -> int:
    """The event number of a libzmq socket-monitor message (``zmq_socket_monitor``: the first
    frame is the 16-bit event and a 32-bit value, native byte order).

    Read directly: ``zmq.utils.monitor`` imports asyncio, about 30 ms of a bot's start-up.
    """
    first = frames[0] if frames else b""
    return int.from_bytes(first[:2], sys.byteorder) if len(first) >= 2 else 0

def _log(text: str) -> None:
    print(f"[bot] {text}", file=sys.stderr, flush=True)
