"""Every message of the wire protocol, defined once (PROTOCOL.md is the prose version).

Each message is a frozen dataclass whose ``TYPE`` class attribute is its wire ``type``
tag; ``v`` is the protocol version. The referee and the Python SDK import these same
definitions; ``protocol.codec`` turns them into bytes and back with strict validation.

Direction:
    bot -> referee: :class:`Hello`, :class:`ActionReply`, :class:`DiscardReply`.
    referee -> bot: :class:`Welcome`, :class:`Error`, :class:`MatchStart`,
    :class:`HandStart`, :class:`HandEnd`, :class:`MatchEnd` (notifications, no reply) and
    :class:`ActRequest`, :class:`DrawRequest` (requests: the bot must reply, echoing ``seq``).

Chips are ints; times are milliseconds; cards are two-character strings (``"As"``,
``"Td"``, ``"7c"``; R1.1); seats are 0-based indices.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from protocol.version import PROTOCOL_VERSION

RANKS = "23456789TJQKA"
SUITS = "cdhs"
#: Every valid card string; membership is the card-string check used by the codec.
CARD_STRINGS: frozenset[str] = frozenset(r + s for r in RANKS for s in SUITS)


class MessageType(StrEnum):
    """The wire ``type`` tag of each message."""

    HELLO = "hello"
    WELCOME = "welcome"
    ERROR = "error"
    MATCH_START = "match_start"
    HAND_START = "hand_start"
    ACT = "act"
    DRAW = "draw"
    HAND_END = "hand_end"
    MATCH_END = "match_end"
    ACTION = "action"
    DISCARD = "discard"


class ActionName(StrEnum):
    """Betting actions a bot may send in an ``action`` reply (R3.5)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"


class ErrorReason(StrEnum):
    """Machine-readable reason of an ``error`` message."""

    VERSION_MISMATCH = "version_mismatch"  # hello.v differs from the referee's version; fatal
    MALFORMED = "malformed"  # a reply could not be decoded; default action applied
    ILLEGAL = "illegal"  # a reply broke a rule; default action applied
    TIMEOUT = "timeout"  # a reply came too late; default action applied
    OVERSIZED = "oversized"  # a reply exceeded MAX_MESSAGE_BYTES; default action applied
    OUT = "out"  # too many faults: the bot is folded for the rest of the match; fatal


class HandCategory(StrEnum):
    """Made-hand categories on the wire, low to high (R5.2).

    Names and order match the engine's ``Category`` IntEnum (HIGH_CARD=0 .. STRAIGHT_FLUSH=8):
    the wire name is ``category.name.lower()``, or ``CATEGORY_NAMES[int(category)]``.
    """

    HIGH_CARD = "high_card"
    ONE_PAIR = "one_pair"
    TWO_PAIR = "two_pair"
    THREE_OF_A_KIND = "three_of_a_kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full_house"
    FOUR_OF_A_KIND = "four_of_a_kind"
    STRAIGHT_FLUSH = "straight_flush"


#: Wire category names indexed by the engine's ``Category`` value.
CATEGORY_NAMES: tuple[str, ...] = tuple(c.value for c in HandCategory)

#: Actions that may appear in ``Legal.actions`` (the draw request lists only ``"draw"``).
LEGAL_ACTION_NAMES: frozenset[str] = frozenset({"fold", "check", "call", "bet", "raise", "draw"})


# --------------------------------------------------------------------------- parts


#: The games a match may play (RULES.md R6-R8), by the name ``match_start`` and ``state`` give them.
SEVEN_CARD_DRAW = "seven-card-draw"
GAME_NAMES: tuple[str, ...] = (SEVEN_CARD_DRAW, "five-card-draw", "deuce-to-seven-triple-draw")


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The game played in a match (mirrors the engine's ``GameConfig``).

    Attributes:
        structure: ``"no-limit"`` or ``"fixed-limit"`` (R3.6, R3.7).
        small_blind: Chips (R2.2).
        big_blind: Chips (R2.2).
        ante: Chips per player per hand, 0 for none (R2.4).
        blinds: False for an ante-only game (R2.5).
        min_bet: Chips; the big blind's role in an ante-only game, else None (R2.5).
        cap: Fixed-limit bets per round, 0 = no cap (R3.7).
        replacements: How draw replacements are dealt: ``"stock"`` or ``"per-seat"`` (R4.4).
        name: The game played, one of :data:`GAME_NAMES` (R6); on the wire only when it is not
            ``"seven-card-draw"`` (PROTOCOL.md section 5, ``match_start``).
    """

    structure: str
    small_blind: int
    big_blind: int
    ante: int
    blinds: bool
    min_bet: int | None
    cap: int
    replacements: str
    name: str = "seven-card-draw"

    @classmethod
    def of(cls, config: Any, name: str = "seven-card-draw") -> GameSettings:
        """Build from any object with ``GameConfig``'s attribute names (the engine's config) and a game's name."""
        return cls(
            name=name,
            structure=str(config.structure),
            small_blind=config.small_blind,
            big_blind=config.big_blind,
            ante=config.ante,
            blinds=config.blinds,
            min_bet=config.min_bet,
            cap=config.cap,
            replacements=str(config.replacements),
        )


@dataclass(frozen=True, slots=True)
class MatchLimits:
    """Limits a bot must respect during a match (PROTOCOL.md "Limits").

    Attributes:
        decision_ms: Time for one reply, measured by the referee from sending the request.
        time_bank_ms: Extra time for the whole match, drawn on when a reply exceeds decision_ms.
        startup_ms: Time from launch until the ``hello`` must have arrived.
        max_faults: Faults after which the bot is out for the rest of the match.
        max_message_bytes: Largest reply accepted, in bytes.
    """

    decision_ms: int
    time_bank_ms: int
    startup_ms: int
    max_faults: int
    max_message_bytes: int


@dataclass(frozen=True, slots=True)
class Legal:
    """The legal moves of the seat to act (mirrors the engine's ``Legal``).

    Attributes:
        actions: Subset of ``fold check call bet raise`` in a betting request, ``("draw",)``
            in a draw request.
        call_amount: Chips to add to call; 0 when there is nothing to call.
        min_to: Smallest legal bet/raise "to" total for this round; 0 when none is legal.
        max_to: Largest legal bet/raise "to" total: the all-in, or what the deepest opponent
            still in the hand can match when that is less (RULES.md R3.4); 0 when none is legal.
        max_discards: Cards that may be discarded: 4 in the draw (R4.1), else 0.
    """

    actions: tuple[str, ...]
    call_amount: int = 0
    min_to: int = 0
    max_to: int = 0
    max_discards: int = 0

    @classmethod
    def of(cls, legal: Any) -> Legal:
        """Build from any object with the engine ``Legal``'s attribute names."""
        return cls(
            actions=tuple(str(a) for a in legal.actions),
            call_amount=legal.call_amount,
            min_to=legal.min_to,
            max_to=legal.max_to,
            max_discards=legal.max_discards,
        )


@dataclass(frozen=True, slots=True)
class TimeLeft:
    """The bot's clock at the moment a request is sent.

    Attributes:
        decision_ms: Time for this reply before the bank is touched.
        bank_ms: What is left of the match's time bank.
    """

    decision_ms: int
    bank_ms: int


@dataclass(frozen=True, slots=True)
class Shown:
    """One hand revealed at showdown (R5.1, R5.7).

    Attributes:
        seat: Hand seat.
        cards: The player's seven final cards.
        five: The five kept, most significant first.
        category: A :class:`HandCategory` value, e.g. ``"full_house"``.
    """

    seat: int
    cards: tuple[str, ...]
    five: tuple[str, ...]
    category: str


@dataclass(frozen=True, slots=True)
class PotResult:
    """One pot and how it was awarded (R5.5, R5.6).

    Attributes:
        amount: Chips in the pot.
        eligible: Seats that could win it.
        winners: Seats that won a share.
        shares: Chips won, parallel to ``winners``.
    """

    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Opened:
    """Who opened a deal of a game of openers and the openers shown at its end (R7.2, R7.7; Five Card Draw only).

    Attributes:
        seat: Hand seat of the opener.
        cards: The opening cards shown as proof, most significant first: the least part of the opener's five
            cards when it opened that meets the rule (a pair of jacks, two pair...; one card under
            ``jack-card``); empty under ``none`` (nothing to prove).
    """

    seat: int
    cards: tuple[str, ...]


# --------------------------------------------------------------------------- bot -> referee


@dataclass(frozen=True, slots=True)
class Hello:
    """First message of a bot: proves its identity with the launch secret.

    Attributes:
        secret: Value of ``HARNESS_SECRET``.
        name: Value of ``HARNESS_BOT_NAME`` (informative).
        v: The protocol version the bot speaks.
    """

    TYPE: ClassVar[str] = MessageType.HELLO
    secret: str
    name: str
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class ActionReply:
    """Reply to an ``act`` request.

    Attributes:
        seq: The request's ``seq``.
        action: An :class:`ActionName` value.
        amount: For bet/raise the "to" total of the round in chips (R3.5); 0 otherwise.
    """

    TYPE: ClassVar[str] = MessageType.ACTION
    seq: int
    action: str
    amount: int = 0
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class DiscardReply:
    """Reply to a ``draw`` request.

    Attributes:
        seq: The request's ``seq``.
        cards: Cards to discard (card strings held by the bot); empty = stand pat (R4.2).
    """

    TYPE: ClassVar[str] = MessageType.DISCARD
    seq: int
    cards: tuple[str, ...]
    v: int = PROTOCOL_VERSION


# --------------------------------------------------------------------------- referee -> bot


@dataclass(frozen=True, slots=True)
class Welcome:
    """The referee accepted the ``hello``."""

    TYPE: ClassVar[str] = MessageType.WELCOME
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class Error:
    """Something went wrong; if ``fatal`` the bot should exit.

    Attributes:
        reason: An :class:`ErrorReason` value.
        message: Human-readable explanation.
        seq: The request it concerns, if any.
        fatal: True when the referee will not talk to the bot any more.
    """

    TYPE: ClassVar[str] = MessageType.ERROR
    reason: str
    message: str
    seq: int | None = None
    fatal: bool = True
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class MatchStart:
    """Start of a match.

    Attributes:
        match_id: The match's name.
        seat: This bot's match seat.
        names: Bot names by match seat.
        game: The game settings.
        hands: Hands to be played.
        starting_stack: Chips each seat starts with.
        stack_mode: ``"reset"`` (stacks reset every hand) or ``"freezeout"``.
        limits: Time and fault limits.
    """

    TYPE: ClassVar[str] = MessageType.MATCH_START
    match_id: str
    seat: int
    names: tuple[str, ...]
    game: GameSettings
    hands: int
    starting_stack: int
    stack_mode: str
    limits: MatchLimits
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class HandStart:
    """Start of a hand, after blinds/antes are posted and cards dealt.

    Attributes:
        hand_id: Hand number in the match (0-based).
        seat: This bot's seat in the hand.
        button: Seat of the button.
        names: Bot names by hand seat (equals the match's unless players busted).
        stacks: Chips per hand seat at the start of the hand, before blinds/antes.
        cards: This bot's seven cards.
    """

    TYPE: ClassVar[str] = MessageType.HAND_START
    hand_id: int
    seat: int
    button: int
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    cards: tuple[str, ...]
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class ActRequest:
    """Betting decision request; reply with :class:`ActionReply`.

    Attributes:
        seq: Request number; echo it.
        state: The seat's observation (see PROTOCOL.md "The state map"); a plain dict.
        legal: Legal actions with exact amounts.
        time: The bot's remaining time.
    """

    TYPE: ClassVar[str] = MessageType.ACT
    seq: int
    state: Mapping[str, Any]
    legal: Legal
    time: TimeLeft
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class DrawRequest:
    """Draw decision request; reply with :class:`DiscardReply`.

    Attributes: as :class:`ActRequest`; ``legal.max_discards`` bounds the discards.
    """

    TYPE: ClassVar[str] = MessageType.DRAW
    seq: int
    state: Mapping[str, Any]
    legal: Legal
    time: TimeLeft
    v: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class HandEnd:
    """End of a hand: the public result.

    Attributes:
        hand_id: Hand number.
        history: Every public event of the hand (PROTOCOL.md "Events").
        shown: Hands revealed at showdown, in showing order (R5.7); empty if nobody showed.
        pots: Pots, main pot first, with winners and shares.
        net: Chips won (+) or lost (-) per hand seat; sums to 0.
        stacks: Chips per hand seat after the hand.
        opener: Who opened and the openers shown (R7.7), in a deal of Five Card Draw that someone opened;
            None otherwise (every other game, a deal passed out).
    """

    TYPE: ClassVar[str] = MessageType.HAND_END
    hand_id: int
    history: tuple[Mapping[str, Any], ...]
    shown: tuple[Shown, ...]
    pots: tuple[PotResult, ...]
    net: tuple[int, ...]
    stacks: tuple[int, ...]
    v: int = PROTOCOL_VERSION
    opener: Opened | None = None


@dataclass(frozen=True, slots=True)
class MatchEnd:
    """End of the match; the bot should exit.

    Attributes:
        hands_played: Hands played.
        net: Chips won per match seat over the match.
        status: Per match seat, ``"ok"`` or why the bot was put out.
    """

    TYPE: ClassVar[str] = MessageType.MATCH_END
    hands_played: int
    net: tuple[int, ...]
    status: tuple[str, ...]
    v: int = PROTOCOL_VERSION


BotMessage = Hello | ActionReply | DiscardReply
RefereeMessage = Welcome | Error | MatchStart | HandStart | ActRequest | DrawRequest | HandEnd | MatchEnd
Message = BotMessage | RefereeMessage

#: Message classes by wire type.
MESSAGE_CLASSES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        ActionReply,
        DiscardReply,
        Welcome,
        Error,
        MatchStart,
        HandStart,
        ActRequest,
        DrawRequest,
        HandEnd,
        MatchEnd,
    )
}
