"""Secret deals: seeds, their keyed derivation per match and per hand, and commitments.

A bot that learns the seed of a hand knows every card of it, so the seeds
are secrets: the deal stays secret until the event ends. The chain,
keyed at every step with HMAC-SHA256 (RFC 2104):

- the *tournament seed*: 256 bits from :func:`secrets.randbits` unless the
  organiser gives one (research runs that must be repeated);
- a *match seed* per table: ``HMAC-SHA256(key=tournament seed, "match" +
  the table's bot names, sorted)``, 256 bits; every seat rotation of a
  duplicate set uses it, and a table keeps it when bots are added to the
  field;
- a *hand seed* per deal: the first 8 bytes of ``HMAC-SHA256(key=match
  seed, "hand" + deal number)``, the engine's ``random.Random`` seed,
  written in each hand record so any hand can be replayed;
- a *deal order* per seat rotation (:func:`deal_of`): the rotation's hand h
  deals deal ``deal_of(match seed, rotation, hands, seats, h)``, a keyed
  permutation of the match's deals that keeps ``deal % seats == h % seats``
  (the button's seat, R2.1). Every rotation plays every deal once, with the
  button where duplicate play needs it, in an order nobody can tell without
  the match seed: what a bot stored in one rotation cannot be lined up with
  the next by hand number. A match outside a duplicate set (``rotation``
  None) deals deal h at hand h.

Knowing some hand seeds (a finished match's history) tells nothing about
the others: each is a keyed function of a 256-bit secret. The commitment
:func:`commitment` (SHA-256 of the seed) is published before play and the
seed itself after the last match, so anyone can check that every deal was
fixed in advance (``harness replay``).

A seed is an ``int`` in ``0 .. 2**256 - 1``; it is written as 64 hex digits
(:func:`seed_hex`) and read back from decimal or hex text (:func:`parse_seed`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

__all__ = [
    "GUESSABLE_BELOW",
    "SEED_BITS",
    "commitment",
    "deal_of",
    "deals_of",
    "guessable",
    "hand_seed",
    "hand_seeds",
    "match_seed",
    "new_seed",
    "parse_seed",
    "seed_hex",
    "seed_warning",
]

#: Bits of a seed drawn by the harness.
SEED_BITS = 256
_SEED_BYTES = SEED_BITS // 8
#: Seeds below this are short enough to be found by trying them one by one
#: (every number a person types, dates, timestamps).
GUESSABLE_BELOW = 2**64


def new_seed() -> int:
    """A fresh secret seed: 256 bits from the operating system's CSPRNG (:mod:`secrets`)."""
    return secrets.randbits(SEED_BITS)


def _check(seed: int) -> bytes:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
        raise ValueError(f"a seed is a whole number from 0 to 2**{SEED_BITS} - 1, got {seed!r}")
    return seed.to_bytes(_SEED_BYTES, "big")


def parse_seed(value: int | str) -> int:
    """Read a seed given by a user: an int, or text in decimal or hex (``0x...``, or 64 hex digits).

    Raises:
        ValueError: not a whole number in ``0 .. 2**256 - 1`` (the message says what is expected).
    """
    if isinstance(value, int) and not isinstance(value, bool):
        _check(value)
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected a whole number or a hex string, got {value!r}")
    text = value.strip().lower().replace("_", "")
    try:
        if text.startswith("0x"):
            seed = int(text[2:], 16)
        elif text.isdigit() and len(text) < 2 * _SEED_BYTES:
            seed = int(text, 10)
        else:  # e.g. the 64 hex digits of a revealed seed
            seed = int(text, 16)
    except ValueError:
        raise ValueError(
            f"expected a whole number (decimal, or hex as 0x... or 64 hex digits), got {value!r}"
        ) from None
    if seed < 0:
        raise ValueError(f"a seed is a whole number from 0 up, not negative, got {value!r}")
    if seed >= 2**SEED_BITS:
        raise ValueError(f"a seed is at most {SEED_BITS} bits (64 hex digits), got {value!r}")
    return seed


def seed_hex(seed: int) -> str:
    """The seed as 64 lower-case hex digits (how it is revealed and can be given back)."""
    return _check(seed).hex()


def guessable(seed: int) -> bool:
    """True when the seed is short enough to be found by trying seeds (below 2**64)."""
    return seed < GUESSABLE_BELOW


def seed_warning(seed: int, where: str) -> str | None:
    """The warning for a user-given seed that can be guessed, or None.

    Args:
        seed: the seed given.
        where: where it was given, e.g. ``"[tournament] seed"``, ``"--seed"``.
    """
    if not guessable(seed):
        return None
    return (
        f"{where} = {seed} is short enough to guess: a bot that finds it can deal every hand in advance. "
        "Fine for repeatable research; for a contest leave the seed out (a secret 256-bit seed is drawn, "
        "committed before play and revealed after the last match)."
    )


def commitment(seed: int) -> str:
    """SHA-256 of the seed's 32 bytes (big-endian), hex: published before play, checked after the reveal."""
    return hashlib.sha256(_check(seed)).hexdigest()


def match_seed(seed: int, table: Sequence[str]) -> int:
    """The seed of a table's matches: HMAC-SHA256 keyed by ``seed`` over the sorted bot names.

    Args:
        seed: the tournament seed.
        table: the table's bot names (any order: every rotation gets the same deals).

    Returns:
        An int of 256 bits, the same on every machine and run.
    """
    message = b"match\x00" + b"\x00".join(name.encode("utf-8") for name in sorted(table))
    return int.from_bytes(hmac.digest(_check(seed), message, "sha256"), "big")


def hand_seed(match_seed: int, hand: int) -> int:
    """The deal seed of hand ``hand`` of a match: 64 bits of HMAC-SHA256 keyed by the match seed.

    A function of the two numbers only, so duplicate rotations (the same
    match seed) get the same cards; keyed,
    so the seeds of some hands do not reveal the others'.
    """
    digest = hmac.digest(_check(match_seed), b"hand\x00%d" % hand, "sha256")
    return int.from_bytes(digest[:8], "big")


def hand_seeds(match_seed: int, first: int, count: int) -> list[int]:
    """``[hand_seed(match_seed, h) for h in range(first, first + count)]``, computed in one go.

    The referee takes its seeds in blocks: one tight loop costs a fraction of
    the same calls spread between bot decisions (cold caches).
    """
    key = _check(match_seed)
    digest = hmac.digest
    return [int.from_bytes(digest(key, b"hand\x00%d" % h, "sha256")[:8], "big") for h in range(first, first + count)]


#: Feistel rounds of the deal order's permutation (four make a pseudorandom permutation from a
#: pseudorandom function: Luby and Rackoff, 1988).
_ORDER_ROUNDS = 4


def _order_key(match_seed: int, rotation: int, residue: int) -> bytes:
    """The key of one rotation's permutation of the deals ``residue, residue + seats, ...``."""
    return hmac.digest(_check(match_seed), b"order\x00%d\x00%d" % (rotation, residue), "sha256")


def _permute(key: bytes, size: int, j: int) -> int:
    """``j`` (``0 <= j < size``) through a keyed permutation of ``range(size)``.

    A balanced Feistel network of HMAC-SHA256 rounds on the smallest even number of bits that holds
    ``size``, cycle-walking until the value falls inside ``range(size)`` (Black and Rogaway, "Ciphers
    with arbitrary finite domains", 2002): at most 4 values per walk on average, no table, any ``size``.
    """
    bits = max(2, (size - 1).bit_length())
    half = (bits + 1) // 2
    mask = (1 << half) - 1
    digest = hmac.digest
    x = j
    while True:
        left, right = x >> half, x & mask
        for r in range(_ORDER_ROUNDS):
            f = int.from_bytes(digest(key, b"%d\x00%d" % (r, right), "sha256")[:8], "big") & mask
            left, right = right, left ^ f
        x = (left << half) | right
        if x < size:
            return x


def deal_of(match_seed: int, rotation: int | None, hands: int, seats: int, hand: int) -> int:
    """The deal that hand ``hand`` of a match deals: its hand seed is ``hand_seed(match_seed, deal)``.

    Args:
        match_seed: the match seed (secret until revealed).
        rotation: the seat rotation of the duplicate set this match plays (0, 1, ...): each gets its own
            keyed permutation of ``range(hands)``; None: the natural order (deal ``hand``).
        hands: the match's hands (every rotation of a set plays the same number).
        seats: the match's seats; the deal keeps the hand's residue (``deal % seats == hand % seats``),
            so the button of a hand with stacks reset (seat ``hand % seats``) is where every rotation
            puts it for that deal.
        hand: the hand number, ``0 <= hand < hands``.

    Raises:
        ValueError: ``hand`` outside ``range(hands)``, ``seats`` below 1, a bad seed.
    """
    if not 0 <= hand < hands or seats < 1:
        raise ValueError(f"hand {hand} of a match of {hands} hands at {seats} seats")
    if rotation is None:
        return hand
    residue = hand % seats
    size = (hands - residue + seats - 1) // seats
    return residue + seats * _permute(_order_key(match_seed, rotation, residue), size, hand // seats)


def deals_of(match_seed: int, rotation: int | None, hands: int, seats: int, first: int, count: int) -> list[int]:
    """``[deal_of(match_seed, rotation, hands, seats, h) for h in range(first, first + count)]``, keys made once."""
    if rotation is None:
        return list(range(first, first + count))
    keys = [_order_key(match_seed, rotation, c) for c in range(seats)]
    out = []
    for h in range(first, first + count):
        if not 0 <= h < hands:
            raise ValueError(f"hand {h} of a match of {hands} hands")
        c = h % seats
        out.append(c + seats * _permute(keys[c], (hands - c + seats - 1) // seats, h // seats))
    return out
