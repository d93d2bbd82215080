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

``run()`` reads the launch environment (PROTOCOL.md section 1), connects a ZeroMQ DEALER
socket, sends ``hello``, answers ``act``/``draw`` requests, passes notifications to the
optional ``on_*`` hooks and returns at ``match_end``, on a fatal ``error``, or when the
referee disappears (socket disconnected, parent process gone, or silence for
``idle_timeout_s``). It imports nothing from ``harness``.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from protocol.codec import decode, encode
from protocol.errors import ProtocolError
from protocol.messages import (
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    HandEnd,
    HandStart,
    Hello,
    Legal,
    MatchEnd,
    MatchStart,
    Message,
    TimeLeft,
)
from protocol.version import PROTOCOL_VERSION

__all__ = [
    "Action",
    "Bot",
    "DecisionState",
    "bet",
    "call",
    "check",
    "fold",
    "raise_to",
]


# --------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Action:
    """A betting decision.

    Attributes:
        kind: ``"fold"``, ``"check"``, ``"call"``, ``"bet"`` or ``"raise"`` (R3.5).
        amount: For bet/raise the "to" total of the round in chips; 0 otherwise.
    """

    kind: str
    amount: int = 0


_FOLD = Action("fold")
_CHECK = Action("check")
_CALL = Action("call")


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


# --------------------------------------------------------------------------- decision state


class DecisionState:
    """What the bot sees when asked to decide: a thin typed view over the request.

    Attributes:
        seq: The request's sequence number (the SDK echoes it for you).
        kind: ``"act"`` or ``"draw"``.
        raw: The ``state`` map exactly as received (PROTOCOL.md section 6).
        legal: Legal actions and exact amounts.
        time: Remaining time in milliseconds (``decision_ms``, ``bank_ms``).
    """

    __slots__ = ("seq", "kind", "raw", "legal", "time")

    def __init__(self, seq: int, kind: str, raw: Mapping[str, Any], legal: Legal, time: TimeLeft) -> None:
        self.seq = seq
        self.kind = kind
        self.raw = raw
        self.legal = legal
        self.time = time

    @classmethod
    def of(cls, request: ActRequest | DrawRequest) -> "DecisionState":
        """Wrap a decoded ``act`` or ``draw`` request."""
        return cls(request.seq, request.TYPE, request.state, request.legal, request.time)

    # The observation's fields, read on demand (no copying per request).
    @property
    def hand_id(self) -> int:
        return self.raw["hand_id"]

    @property
    def seat(self) -> int:
        return self.raw["seat"]

    @property
    def button(self) -> int:
        return self.raw["button"]

    @property
    def phase(self) -> str:
        """``"bet1"``, ``"draw"`` or ``"bet2"``."""
        return self.raw["phase"]

    @property
    def cards(self) -> list[str]:
        """This bot's current seven cards."""
        return self.raw["cards"]

    @property
    def stacks(self) -> list[int]:
        """Chips behind per seat."""
        return self.raw["stacks"]

    @property
    def bets(self) -> list[int]:
        """Chips bet in the current round per seat."""
        return self.raw["bets"]

    @property
    def pot(self) -> int:
        """All chips committed this hand, including the current round's bets."""
        return self.raw["pot"]

    @property
    def folded(self) -> list[bool]:
        return self.raw["folded"]

    @property
    def all_in(self) -> list[bool]:
        return self.raw["all_in"]

    @property
    def draws(self) -> list[int | None]:
        """Cards drawn per seat, None before that seat's draw."""
        return self.raw["draws"]

    @property
    def history(self) -> list[dict[str, Any]]:
        """Public events of the hand so far, oldest first."""
        return self.raw["history"]

    @property
    def big_blind(self) -> int:
        return self.raw["big_blind"]

    @property
    def small_blind(self) -> int:
        return self.raw["small_blind"]

    @property
    def structure(self) -> str:
        return self.raw["structure"]

    @property
    def my_stack(self) -> int:
        return self.raw["stacks"][self.raw["seat"]]

    @property
    def to_call(self) -> int:
        """Chips to add to call (0 when nothing to call)."""
        return self.legal.call_amount

    @property
    def min_to(self) -> int:
        return self.legal.min_to

    @property
    def max_to(self) -> int:
        return self.legal.max_to

    @property
    def max_discards(self) -> int:
        return self.legal.max_discards

    @property
    def players_in(self) -> int:
        """Players who have not folded."""
        return sum(1 for f in self.raw["folded"] if not f)

    def can(self, action: str) -> bool:
        """True if ``action`` (``"fold"``, ``"check"``, ``"call"``, ``"bet"``, ``"raise"``) is legal."""
        return action in self.legal.actions

    def default_action(self) -> Action:
        """Check if free, else fold (what the referee does for a faulting bot)."""
        return _CHECK if "check" in self.legal.actions else _FOLD

    def wager(self, to: int) -> Action:
        """Bet or raise to ``to`` (whichever is legal), clamped to ``min_to..max_to``.

        Falls back to call/check when neither bet nor raise is legal.
        """
        lg = self.legal
        if "raise" in lg.actions or "bet" in lg.actions:
            amount = max(lg.min_to, min(int(to), lg.max_to))
            return Action("raise" if "raise" in lg.actions else "bet", amount)
        return _CALL if "call" in lg.actions else _CHECK if "check" in lg.actions else _FOLD

    def __repr__(self) -> str:
        return f"DecisionState(seq={self.seq}, kind={self.kind!r}, cards={self.raw.get('cards')}, legal={self.legal})"


# --------------------------------------------------------------------------- the bot


class Bot:
    """Base class of a Python bot. Override :meth:`act` and :meth:`draw`.

    Attributes:
        match: The ``match_start`` message once received (game settings, limits), else None.
        hand: The current hand's ``hand_start`` message, else None.
        idle_timeout_s: Seconds without any message after which ``run()`` assumes the
            referee is gone and returns.
        poll_ms: How often ``run()`` wakes up to check that the referee is still there.
    """

    idle_timeout_s: float = 600.0
    poll_ms: int = 1000

    def __init__(self) -> None:
        self.match: MatchStart | None = None
        self.hand: HandStart | None = None

    # ---- to override

    def act(self, state: DecisionState) -> Action:
        """Return the betting decision. Default: check if free, else fold."""
        return state.default_action()

    def draw(self, state: DecisionState) -> Sequence[str]:
        """Return the cards to discard (at most ``state.max_discards``). Default: stand pat."""
        return ()

    def on_match_start(self, msg: MatchStart) -> None:
        """Called on ``match_start``."""

    def on_hand_start(self, msg: HandStart) -> None:
        """Called on ``hand_start``."""

    def on_hand_end(self, msg: HandEnd) -> None:
        """Called on ``hand_end`` (every showdown, pots, net per seat)."""

    def on_match_end(self, msg: MatchEnd) -> None:
        """Called on ``match_end``, just before ``run()`` returns."""

    def on_error(self, msg: Error) -> None:
        """Called on ``error``; the default prints it to stderr."""
        _log(f"referee error ({msg.reason}{', fatal' if msg.fatal else ''}): {msg.message}")

    # ---- machinery

    def handle(self, msg: Message) -> ActionReply | DiscardReply | None:
        """Process one message from the referee; return the reply to send, if any.

        Exceptions raised by ``act``/``draw`` are printed to stderr and answered with the
        default action (check if free, else fold; stand pat), so one bug costs one hand.
        """
        if type(msg) is ActRequest:
            state = DecisionState(msg.seq, "act", msg.state, msg.legal, msg.time)
            try:
                a = self.act(state)
                if isinstance(a, str):
                    a = Action(a)
                elif not isinstance(a, Action):
                    raise TypeError(f"act() must return an Action (fold(), call(), raise_to(n), ...), got {a!r}")
            except Exception:
                _log("act() failed; sending the default action:\n" + traceback.format_exc())
                a = state.default_action()
            return ActionReply(seq=msg.seq, action=str(a.kind), amount=a.amount)
        if type(msg) is DrawRequest:
            state = DecisionState(msg.seq, "draw", msg.state, msg.legal, msg.time)
            try:
                cards = tuple(self.draw(state) or ())
                if not all(type(c) is str for c in cards):
                    raise TypeError(f"draw() must return card strings like 'As', got {cards!r}")
            except Exception:
                _log("draw() failed; standing pat:\n" + traceback.format_exc())
                cards = ()
            return DiscardReply(seq=msg.seq, cards=cards)
        if type(msg) is HandStart:
            self.hand = msg
            self.on_hand_start(msg)
        elif type(msg) is HandEnd:
            self.on_hand_end(msg)
        elif type(msg) is MatchStart:
            self.match = msg
            self.on_match_start(msg)
        elif type(msg) is MatchEnd:
            self.on_match_end(msg)
        elif type(msg) is Error:
            self.on_error(msg)
        return None

    def run(self, endpoint: str | None = None) -> int:
        """Play a match as launched by the harness; return an exit status.

        Args:
            endpoint: ZeroMQ endpoint; default ``HARNESS_ENDPOINT`` from the environment.

        Returns:
            0 after ``match_end`` or when the referee disappeared; 1 after a fatal ``error``
            (e.g. version mismatch); 2 when the launch environment is missing.
        """
        import zmq  # imported here so that importing the SDK for tests stays cheap
        from zmq.utils.monitor import recv_monitor_message

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

        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        monitor = sock.get_monitor_socket(zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED)
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        poller.register(monitor, zmq.POLLIN)
        parent = os.getppid()
        connected = False
        status: int | None = None
        try:
            sock.connect(endpoint)
            sock.send(encode(Hello(secret=secret, name=name)))
            last_seen = time.monotonic()
            while status is None:
                ready = dict(poller.poll(self.poll_ms))
                if sock in ready:
                    last_seen = time.monotonic()
                    status = self._drain(sock, zmq)
                    if status is not None:
                        break
                if monitor in ready:
                    event = recv_monitor_message(monitor)["event"]
                    if event == zmq.EVENT_CONNECTED:
                        connected = True
                    elif event == zmq.EVENT_DISCONNECTED and connected:
                        status = self._drain(sock, zmq)  # a final match_end may still be queued
                        if status is None:
                            _log("the referee closed the connection; exiting")
                            status = 0
                if not ready:
                    if os.getppid() != parent:
                        _log("the parent process is gone; exiting")
                        status = 0
                    elif time.monotonic() - last_seen > self.idle_timeout_s:
                        _log(f"no message from the referee for {self.idle_timeout_s:.0f} s; exiting")
                        status = 0
        except KeyboardInterrupt:
            status = 0
        finally:
            sock.disable_monitor()
            monitor.close(linger=0)
            sock.close(linger=0)
            ctx.term()
        return status

    def _drain(self, sock: Any, zmq: Any) -> int | None:
        """Handle every queued message; return an exit status when the match is over."""
        while True:
            try:
                data = sock.recv(zmq.NOBLOCK)
            except zmq.Again:
                return None
            try:
                msg = decode(data)
            except ProtocolError as exc:
                _log(f"ignored an invalid message from the referee: {exc}")
                continue
            reply = self.handle(msg)
            if reply is not None:
                try:
                    data = encode(reply)
                except (ProtocolError, OverflowError, TypeError, ValueError) as exc:
                    _log(f"could not encode the reply {reply!r} ({exc}); sending the default")
                    data = encode(_fallback(reply))
                sock.send(data)
            elif type(msg) is MatchEnd:
                return 0
            elif type(msg) is Error and msg.fatal:
                return 1


def _fallback(reply: ActionReply | DiscardReply) -> ActionReply | DiscardReply:
    """A reply that always encodes: fold (the referee checks instead when free) or stand pat."""
    if type(reply) is ActionReply:
        return ActionReply(seq=reply.seq, action="fold")
    return DiscardReply(seq=reply.seq, cards=())


def _log(text: str) -> None:
    print(f"[bot] {text}", file=sys.stderr, flush=True)
