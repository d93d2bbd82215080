"""The largest message any legal hand can make the referee send, and the settings that keep it in bounds.

Every message of the referee fits ``protocol.version.MAX_MESSAGE_BYTES``
(65,536 bytes, PROTOCOL.md section 7), and the referee never skips or cuts a
message the protocol promises. Requests (``act``/``draw``) and ``hand_end``
carry the hand's whole public history, so the settings are bounded instead:
a match whose longest legal hand could need a larger message is refused
before anything runs (:func:`message_problem`). The bound (RULES.md R3):

- ``T`` = seats x ``starting_stack`` is every chip at the table (a
  freezeout moves chips, never makes them); ``u`` is the unit, the big blind
  or ``min_bet`` (R2.5); every amount in a message is at most ``T``.
- Each bet, full raise, and call of a full raise adds at least ``u`` chips
  (R3.6, R3.7), and a chip put in a round is never put in again (what comes
  back at a round's end, R3.9, leaves nobody able to bet against it): at
  most ``T // u`` such actions per hand. Heads-up, where a call or check
  ends the round (but for the small blind's completion), every bet or raise
  but each player's first of a round adds at least ``2u`` (the call of a
  full raise and a raise of its own): at most ``T // 2u`` of them. Every other action is one of few:
  a fold (n - 1), checks (n per round), all-in calls and raises for less
  (one per player), the small blind's completion, the one raise capped at
  what the deepest opponent can match (R3.4), the calls after an
  incomplete raise (n - 1 each), the draws (n) and the posts (n + 2).
- Fixed-limit with a cap ``c`` (R3.7): a round has at most ``c + n``
  wagers, each followed by at most n - 1 other actions.
- The message's other fields are measured by encoding them with every
  amount at ``T`` (and ``-T`` for the nets), seven cards everywhere, the
  longest names and ``n`` pots of ``n`` seats; a history event is measured
  the same way (its longest action name, an amount of ``T``, all-in flags for
  each player once).

The result is an upper bound, not an estimate: tests play the longest hands
the rules allow and compare.
"""

from __future__ import annotations

from functools import cache

import msgpack

from harness.engine.config import MAX_TABLE, GameConfig, Structure, seat_count_problem
from harness.engine.games import SEVEN_CARD_DRAW, GameDefinition, Openers
from protocol.codec import encode_hand_end, encode_request
from protocol.messages import CATEGORY_NAMES
from protocol.version import MAX_AMOUNT, MAX_MESSAGE_BYTES

#: ``MatchSpec.hands`` is at most this (harness.specs.MAX_HANDS); the hand id fits in it.
_MAX_HAND_ID = 10_000_000
#: Times in a request (``decision_ms``, ``bank_ms``) are at most one day (harness.specs.BOUNDS).
_MAX_MS = 86_400_000
_CARDS7 = ["Ah", "Kh", "Qh", "Jh", "Th", "9h", "8h"]
_ALL_IN_FLAG = len(msgpack.packb({"all_in": True})) - 1  # a key and True, in an event map


def _event(action: str, amount: int | None, key: str = "amount") -> int:
    event: dict[str, object] = {"seat": MAX_TABLE - 1, "action": action}
    if amount is not None:
        event[key] = amount
    return len(msgpack.packb(event))


def betting_actions(game: GameConfig, seats: int, chips: int, rounds: int = 2) -> int:
    """The most betting decisions (fold, check, call, bet, raise) one hand can hold (R3.4-R3.8).

    Args:
        game: the settings (structure, cap, unit).
        seats: players at the table, 2..8 (R1.2, R6.8).
        chips: every chip at the table (``T``: seats x starting stack).
        rounds: betting rounds of the game (R6.5): each round past two adds its checks and each
            player's first wager of it (2n + 2 decisions, more than either bound needs).
    """
    n = seats
    more = (rounds - 2) * (2 * n + 2)
    unit = game.unit
    if n == 2:
        # Heads-up a call or check ends the round but for the small blind's completion, and every
        # wager but each player's first of a round calls a full raise and raises again: 2 units at least.
        by_chips = chips // (2 * unit) + 4 + 4 + 4 + 1 + 4  # first wagers, calls, checks, a fold, all-ins
    else:
        small = (n + 2) + (n + 2) * (n - 1) + 1 + n + 2  # for-less raises and their calls, the SB, all-in calls
        by_chips = chips // unit + small + (n - 1) + 2 * n  # plus folds and checks
    if game.structure is Structure.FIXED_LIMIT and game.cap:
        wagers = game.cap + n  # R3.7: the cap, and all-in raises for less
        by_cap = rounds * (wagers + (wagers + 1) * n)
        return min(by_chips + more, by_cap)
    return by_chips + more


def history_bytes(game: GameConfig, seats: int, chips: int, definition: GameDefinition = SEVEN_CARD_DRAW) -> int:
    """Bytes of the longest public history (PROTOCOL.md section 6) a legal hand of ``definition`` can have."""
    n = seats
    amount = chips
    posts = n * _event("ante", amount) + _event("small_blind", amount) + _event("big_blind", amount)
    draws = definition.draws * n * _event("draw", definition.max_discards, "count")
    widest = max(_event(a, amount) for a in ("raise", "call", "bet"))
    betting = betting_actions(game, n, chips, definition.betting_rounds) * widest
    return posts + draws + betting + 2 * n * _ALL_IN_FLAG + 5  # an array header of up to 5 bytes


@cache
def _overhead(game: GameConfig, seats: int, chips: int, definition: GameDefinition) -> int:
    """Bytes of the largest request or ``hand_end`` with an empty history (every field at its widest)."""
    n = seats
    big = chips
    state = {
        "hand_id": _MAX_HAND_ID, "seat": n - 1, "button": n - 1, "phase": "complete", "cards": _CARDS7,
        "stacks": [big] * n, "bets": [big] * n, "pot": big, "folded": [False] * n, "all_in": [False] * n,
        "draws": [4] * n, "history": [], "to_act": n - 1,
        "small_blind": game.small_blind if game.blinds else 0, "big_blind": game.big_blind if game.blinds else 0,
        "ante": game.ante, "structure": max((s.value for s in Structure), key=len), "min_bet": game.min_bet,
        "shown": [],
    }
    if definition != SEVEN_CARD_DRAW:
        state["game"] = definition.name
    pot = big
    if definition.passed_out:  # R7.4: chips carried from passed-out deals have no bound but the match's length
        pot = MAX_AMOUNT
        state.update(pot=pot, openers=max(map(str, Openers), key=len), carried=pot)
    request = len(encode_request(False, MAX_AMOUNT, state, ["fold", "check", "call", "bet", "raise"],
                                 big, big, big, 4, _MAX_MS, _MAX_MS))
    category = max(CATEGORY_NAMES, key=len)
    shown = [(s, _CARDS7, _CARDS7[:5], category) for s in range(n)]
    pots = [(pot, list(range(n)), list(range(n)), [pot] * n) for _ in range(n)]
    wide = max((pot, -big), key=lambda x: len(msgpack.packb(x)))
    opener = (n - 1, _CARDS7[:5]) if definition.passed_out else None  # R7.7: at most five openers shown
    hand_end = len(encode_hand_end(_MAX_HAND_ID, [], shown, pots, [wide] * n, [big] * n, opener))
    return max(request, hand_end)


def largest_message_bytes(game: GameConfig, seats: int, starting_stack: int,
                          definition: GameDefinition = SEVEN_CARD_DRAW) -> int:
    """An upper bound on the bytes of any message the referee sends in a match (module docstring).

    Args:
        game: the game's settings.
        seats: bots at the table: 2..6 (R1.2), 2..8 in Five Card Draw (R6.8, R7.1).
        starting_stack: chips per seat at the start (reset: every hand; freezeout: the match).
        definition: the game played (R6: its draws and betting rounds).

    Raises:
        ValueError: ``seats`` outside the game's table (R1.2, R6.8).
    """
    problem = seat_count_problem(seats, definition)
    if problem:
        raise ValueError(problem)
    chips = seats * starting_stack
    return _overhead(game, seats, chips, definition) + history_bytes(game, seats, chips, definition)


def deepest_stack(game: GameConfig, seats: int, definition: GameDefinition = SEVEN_CARD_DRAW) -> int:
    """The largest ``starting_stack`` (chips) whose every message fits ``MAX_MESSAGE_BYTES``; 0 if none does."""
    low, high = 0, 1
    while largest_message_bytes(game, seats, high, definition) <= MAX_MESSAGE_BYTES and high < MAX_AMOUNT:
        low, high = high, high * 2
    while high - low > 1:  # largest_message_bytes grows with the stack
        mid = (low + high) // 2
        if largest_message_bytes(game, seats, mid, definition) <= MAX_MESSAGE_BYTES:
            low = mid
        else:
            high = mid
    return low


def message_problem(game: GameConfig, seats: int, starting_stack: int, label: str = "starting_stack", *,
                    definition: GameDefinition = SEVEN_CARD_DRAW) -> str | None:
    """The one-line error when a legal hand could need a message over ``MAX_MESSAGE_BYTES``, else None.

    Args:
        game: the game's settings.
        seats: bots at the table, 2..8 (R1.2, R6.8).
        starting_stack: chips per seat.
        label: how the user named the stack (``"--stack"``, ``"[game] starting_stack"``).
        definition: the game played (R6).

    Returns:
        e.g. ``"--stack 1000000 is too deep for the protocol's 65,536-byte messages: at 2 seats and a
        big blind of 10 the longest legal hand could need a 3,201,164-byte message (PROTOCOL.md
        section 7); at most 21,479 chips (2,147 x the big blind), or a larger big blind"``.
    """
    if seats * starting_stack > MAX_AMOUNT:  # 7-8 seats (R7.1) only: config.MAX_CHIPS is 2**40 // 6
        return (f"{label} {starting_stack} is too deep for the protocol's amounts: the chips of {seats} seats must fit "
                f"2^40 (PROTOCOL.md section 8); at most {MAX_AMOUNT // seats:,} chips")
    need = largest_message_bytes(game, seats, starting_stack, definition)
    if need <= MAX_MESSAGE_BYTES:
        return None
    most = deepest_stack(game, seats, definition)
    unit = "big blind" if game.blinds else "min_bet"
    return (
        f"{label} {starting_stack} is too deep for the protocol's {MAX_MESSAGE_BYTES:,}-byte messages: at {seats} "
        f"seats and a {unit} of {game.unit} the longest legal hand could need a {need:,}-byte message "
        f"(PROTOCOL.md section 7); at most {most:,} chips ({most // game.unit:,} x the {unit}), or a larger {unit}"
        + (" or a fixed-limit cap" if game.structure is Structure.FIXED_LIMIT and not game.cap else "")
    )
