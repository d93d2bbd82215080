#!/usr/bin/env python3
"""Check Seven Card Draw, Deuce-to-Seven Triple Draw and Five Card Draw hand histories without the harness:
recompute every hand from its record alone.

A third party's checker, written from docs/HISTORY.md (the format) and
docs/RULES.md (the rules) with the Python standard library only: it imports
nothing of the harness, so a result it confirms does not rest on the
harness's own code. For each hand record (``record_version`` 3, or 2) it
reads the game from ``game.name`` (absent: Seven Card Draw; ``"deuce-to-seven-triple-draw"``:
five cards, three draws of 0-5 cards from left of the button, four betting rounds, fixed-limit
small bet in rounds 1-2 and big bet in 3-4, the lowest hand winning, RULES.md R6, R8; ``"five-card-draw"``:
five cards, antes only, 2 to 8 seats, one draw of 0-5 cards from left of the button, R7) and

- re-deals nothing (the deck's order is the harness's), but checks the cards:
  seven (five) distinct cards per player, no card held twice, discards held,
  ``final_cards`` = kept cards + replacements, replacements never seen
  before in the hand except those marked ``reshuffled``, which must come from
  the muck (earlier discards and folded hands) once the stock is used up (R4.4);
- replays the betting and the draw by the rules, independently of the harness: who is to act at
  every decision (round 1 from left of the big blind R3.2, round 2 from left of the button R3.3,
  the draw from left of the big blind R4.1, players folded or all-in skipped, no decision for a lone
  player with nothing to call R3.4, every round complete), which actions are legal (check only with
  nothing to call, bet or raise only when some opponent could answer it, R3.4), their sizes (no-limit
  minimum raises and round 2's first bet R3.6, fixed-limit sizes and cap R3.7, the reopening of the
  betting R3.8, never above what the deepest opponent can match R3.4), and the referee's default
  actions (``by`` ``fault``/``unsent``: check if free else fold, stand pat; ``out``: fold, stand pat);
- recomputes the chips: the posts (antes, blinds, all-in for less: R2.4-R2.6),
  for each decision the amount ``owed`` (the full big blind R2.6; at most
  what can be matched when nobody else can act, R3.4), the chips ``added``
  and the ``to`` total (fixed-limit sizes R3.7), the chips ``returned``
  unmatched (R3.9), the pots with their eligible seats (R5.5), the winners
  by an independent hand evaluator (best five of seven, R5.1-R5.4; deuce-to-seven low of the five
  held, the ace only high, R8.2), the
  split with odd chips from the left of the button (R5.6), the showing
  order (R5.7), each player's final stack and net;
- Five Card Draw (R7): round 1's first bet (the open) only with openers under ``game.openers``
  (jacks or better if absent, R7.2, R7.3), the opener and its proof, the least part of its cards
  that meets the rule (R7.7); a deal nobody opens is passed out: no draw, no showdown, empty pots,
  every chip put in plus those carried in left in the middle (``jackpot.carried_out``, R7.4);
  chips carried in go to the main pot; the opener acts first after the draw, or the next player
  still in left of it (R7.6); the nets sum to the chips carried in less those carried out;
- across a file: stacks reset to ``match.starting_stack`` (reset) or carried
  over with busted seats gone and the button moving on (freezeout, R2.1); in Five Card Draw each
  deal's ``jackpot.carried_in`` is the last deal's ``carried_out`` (R7.4);
- with ``--match-seed`` or ``--tournament-seed`` (revealed after the
  event): the match seed's SHA-256 is ``match.seed_sha256`` and every hand's
  ``seed`` is derived from it and the hand's deal (HMAC-SHA256, docs/HISTORY.md "Seeds"):
  the hand number, or the deal one seat rotation's secret order puts there.

It does not check what needs the harness's shuffle or the referee's clock: which cards the
seed deals (``harness replay`` re-deals them; here only that the cards are consistent), the
positions per-seat replacements take in the deck, the reshuffle's order, the times (``ms``
against ``decision_ms`` and the bank), whether a fault's ``put_out`` follows from
``max_faults`` and the bot's earlier faults, or ``out`` from earlier hands. Version 1 records
are not read (exit 2; ``harness replay`` checks them). A version-3 record is held to the raise
rule it names (``raise_rule``): under ``"capped"`` a bet or raise beyond what any opponent could
match (RULES.md R3.4, E14) does not check. A version-2 record names none: such a bet or raise,
which releases before R3.4's cap offered, checks with a note.

Usage::

    python3 tools/hhcheck.py hands.jsonl [more.jsonl.gz ...] [--match-seed HEX | --tournament-seed HEX]

Exit status: 0 every hand checks; 1 a hand does not; 2 a file cannot be read, or holds a record of
a version this checker does not read (the message names the line and the version), or of a game it does
not read (``game.name``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import hmac
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = {r + s for r in RANKS for s in SUITS}
CATEGORIES = ("high card", "one pair", "two pair", "three of a kind", "straight", "flush", "full house",
              "four of a kind", "straight flush")
FORMAT = "sevencard-hand-history"
#: The game of a record whose ``game`` names none (docs/HISTORY.md).
SEVEN_CARD_DRAW = "seven-card-draw"
TRIPLE_DRAW = "deuce-to-seven-triple-draw"
FIVE_CARD_DRAW = "five-card-draw"


class Rules(NamedTuple):
    """What the checker needs of a game (RULES.md R6), written from RULES.md, not from the engine.

    ``hole``: cards dealt each; ``draws``: how many; ``max_discards``: per draw (R6.4); ``draw_after_big_blind``:
    the draw starts left of the big blind (R4.1) or else left of the button (R6.5); ``limit_sizes``: each
    round's fixed-limit bet in units (R3.7, R6.6); ``doubled_first_bet``: no-limit rounds after the first open
    at twice round 1's final bet (R3.6) or else at the unit (R6.6); ``low``: deuce-to-seven (R8.2) or high;
    ``openers``: a game of openers (R7.2-R7.7): round 1's first bet needs openers, a deal nobody opens is
    passed out with its antes carried (R7.4), the opener acts first after the draw (R7.6).
    """

    hole: int
    draws: int
    max_discards: int
    draw_after_big_blind: bool
    limit_sizes: tuple[int, ...]
    doubled_first_bet: bool
    low: bool
    openers: bool = False


#: The games this checker reads, by ``game.name``.
GAMES = {
    SEVEN_CARD_DRAW: Rules(7, 1, 4, True, (1, 2), True, False),  # R1-R5
    TRIPLE_DRAW: Rules(5, 3, 5, False, (1, 1, 2, 2), False, True),  # R8.1
    FIVE_CARD_DRAW: Rules(5, 1, 5, False, (1, 2), False, False, True),  # R7.1
}
#: Five Card Draw's opening rules (R7.2): ``game.openers`` of a record; absent: the default, jacks or better.
OPENERS_RULES = ("jacks", "jack-card", "none")
#: Seats per table: 2 to 6, 2 to 8 in Five Card Draw (R1.2, R6.8, R7.1).
MAX_SEATS = {FIVE_CARD_DRAW: 8}


def opening_cards(cards: Sequence[str], rule: str) -> list[str] | None:
    """The least part of five cards that meets the opening rule ``rule`` (R7.2, R7.7), or None when they may not
    open: under ``jacks`` a pair of jacks or better (the higher pair of two pair when it is one), else the made
    part (two pair, trips, quads; all five of a straight, flush or full house); under ``jack-card`` one card of
    the highest rank if it is a jack or higher; under ``none`` nothing (anyone may open)."""
    if rule == "none":
        return []
    ranks = Counter(c[0] for c in cards)
    if rule == "jack-card":
        top = max(ranks, key=RANKS.index)
        if RANKS.index(top) < RANKS.index("J"):
            return None
        return [max((c for c in cards if c[0] == top), key=lambda c: SUITS.index(c[1]))]
    category = five_value(cards)[0]
    if category in (4, 5, 6, 8):  # straight, flush, full house, straight flush: all five
        return list(cards)
    pairs = sorted((r for r, k in ranks.items() if k == 2), key=RANKS.index, reverse=True)
    if category in (1, 2) and RANKS.index(pairs[0]) >= RANKS.index("J"):
        return [c for c in cards if c[0] == pairs[0]]
    if category == 2:
        return [c for c in cards if c[0] in pairs]
    if category in (3, 7):  # trips, quads
        return [c for c in cards if ranks[c[0]] >= 3]
    return None


# ----------------------------------------------------------------------------- hands (R5.1-R5.4)

def five_value(five: Sequence[str]) -> tuple[int, ...]:
    """Strength of five cards: (category index, ranks in order of significance); higher is better."""
    ranks = sorted((RANKS.index(c[0]) for c in five), reverse=True)
    flush = len({c[1] for c in five}) == 1
    distinct = sorted(set(ranks), reverse=True)
    high = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            high = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:  # the wheel: a five-high straight (R5.4)
            high = 3
    if high is not None:
        return (8 if flush else 4, high)
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [count for _, count in groups]
    order = [rank for rank, _ in groups]
    if shape[0] == 4:
        category = 7
    elif shape[:2] == [3, 2]:
        category = 6
    elif flush:
        category = 5
    elif shape[0] == 3:
        category = 3
    elif shape[:2] == [2, 2]:
        category = 2
    elif shape[0] == 2:
        category = 1
    else:
        category = 0
    return (category, *order)


def low_value(five: Sequence[str]) -> tuple[int, ...]:
    """Deuce-to-seven strength of five cards (R8.2, R8.3); higher is better (the lower hand).

    The high order reversed, the ace playing only high: A-2-3-4-5 is ace high (suited, an ace-high flush),
    not a straight. ``-value[0]`` is the R5.2 category index.
    """
    high = five_value(five)
    if high[0] in (4, 8) and high[1] == 3:  # the wheel read as ace high
        high = (5 if high[0] == 8 else 0, 12, 3, 2, 1, 0)
    return tuple(-x for x in high)


def _straight_high(ranks: set[int]) -> int | None:
    for high in range(12, 3, -1):
        if all(high - i in ranks for i in range(5)):
            return high
    return 3 if {12, 0, 1, 2, 3} <= ranks else None  # the wheel


def best_value(seven: Sequence[str]) -> tuple[int, ...]:
    """The strength of the best five of seven cards (R5.1): the best :func:`five_value` of its 21 fives, in one pass."""
    ranks = [RANKS.index(c[0]) for c in seven]
    suit, most = Counter(c[1] for c in seven).most_common(1)[0]
    flush = sorted((RANKS.index(c[0]) for c in seven if c[1] == suit), reverse=True) if most >= 5 else None
    if flush:
        high = _straight_high(set(flush))
        if high is not None:
            return (8, high)
    counts = Counter(ranks)
    quads = [r for r, k in counts.items() if k == 4]
    trips = sorted((r for r, k in counts.items() if k == 3), reverse=True)
    pairs = sorted((r for r, k in counts.items() if k == 2), reverse=True)
    if quads:
        return (7, quads[0], max(r for r in ranks if r != quads[0]))
    if trips and (len(trips) > 1 or pairs):
        return (6, trips[0], max(trips[1:] + pairs))
    if flush:
        return (5, *flush[:5])
    high = _straight_high(set(ranks))
    if high is not None:
        return (4, high)
    if trips:
        return (3, trips[0], *sorted((r for r in ranks if r != trips[0]), reverse=True)[:2])
    if len(pairs) >= 2:
        return (2, pairs[0], pairs[1], max(r for r in ranks if r not in pairs[:2]))
    if pairs:
        return (1, pairs[0], *sorted((r for r in ranks if r != pairs[0]), reverse=True)[:3])
    return (0, *sorted(ranks, reverse=True)[:5])


# ----------------------------------------------------------------------------- seeds

def seed_bytes(seed: int) -> bytes:
    return seed.to_bytes(32, "big")


def hand_seed(match_seed: int, hand: int) -> int:
    """A hand's seed: the first 8 bytes of HMAC-SHA256 keyed by the match seed's 32 bytes over b"hand\\0<h>"."""
    return int.from_bytes(hmac.digest(seed_bytes(match_seed), b"hand\x00%d" % hand, "sha256")[:8], "big")


def _permute(key: bytes, size: int, j: int) -> int:
    """j through the keyed permutation of range(size): 4 Feistel rounds of HMAC-SHA256, cycle-walking."""
    half = (max(2, (size - 1).bit_length()) + 1) // 2
    mask = (1 << half) - 1
    x = j
    while True:
        left, right = x >> half, x & mask
        for r in range(4):
            f = int.from_bytes(hmac.digest(key, b"%d\x00%d" % (r, right), "sha256")[:8], "big") & mask
            left, right = right, left ^ f
        x = (left << half) | right
        if x < size:
            return x


def deal_of(match_seed: int, rotation: int | None, hands: int, seats: int, hand: int) -> int:
    """The deal hand ``hand`` deals: itself (natural order) or a seat rotation's secret order (docs/HISTORY.md)."""
    if rotation is None:
        return hand
    c = hand % seats
    key = hmac.digest(seed_bytes(match_seed), b"order\x00%d\x00%d" % (rotation, c), "sha256")
    return c + seats * _permute(key, (hands - c + seats - 1) // seats, hand // seats)


def match_seeds(tournament_seed: int, bots: Sequence[str], copies: int = 64) -> Iterator[int]:
    """Candidate match seeds of a table of ``bots`` (its first copy, then the i-th copies of a sampled plan)."""
    for instance in range(copies):
        names = sorted([*bots, f"#{instance}"] if instance else bots)
        message = b"match\x00" + b"\x00".join(name.encode("utf-8") for name in names)
        yield int.from_bytes(hmac.digest(seed_bytes(tournament_seed), message, "sha256"), "big")


def sha256_of(seed: int) -> str:
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


# ----------------------------------------------------------------------------- one hand

class Problems(list):
    """The problems found in one hand (strings); ``notes``: what checks but is worth saying."""

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def expect(self, what: str, recorded: Any, computed: Any) -> None:
        if recorded != computed:
            self.append(f"{what}: recorded {recorded!r}, recomputed {computed!r}")


#: The note of a hand whose only departure is a bet or raise beyond what any opponent could match: releases
#: before RULES.md's R3.4 cap (E14) offered those; the excess came back (R3.9), so the chips are the same.
EARLIER_RAISE_RULE = "a bet or raise beyond what any opponent could match (R3.4), as earlier releases offered"
#: The record versions this checker reads (docs/HISTORY.md "Versions"): 3 is 2 with ``raise_rule``.
VERSIONS = (2, 3)
#: ``raise_rule`` of a version-3 record: whether R3.4 bounds bets and raises by what the deepest opponent
#: can match ("capped", RULES.md E14) or the player's all-in does (the earlier releases).
RAISE_RULES = {"capped": True, "all-in": False}


def version_problem(rec: Any) -> str | None:
    """Why a line is not a record this checker reads (another format or ``record_version``), or None."""
    if not isinstance(rec, dict) or rec.get("format", FORMAT) != FORMAT:
        return f"not a {FORMAT} record"
    version = rec.get("record_version", 1)  # a record without it is version 1 (docs/HISTORY.md "Versions")
    game = rec.get("game")
    name = game.get("name", SEVEN_CARD_DRAW) if isinstance(game, dict) else SEVEN_CARD_DRAW
    if name not in GAMES:
        return (f"game.name: {name!r} is not a game this checker reads ({', '.join(GAMES)}); `harness replay` "
                "checks it")
    if version in VERSIONS and not isinstance(version, bool):
        return None
    hint = "; version 1 is checked by `harness replay`" if version == 1 else ""
    return f"record_version: {version!r} is not a version this checker reads (2, 3){hint}"


def check_hand(rec: dict[str, Any]) -> Problems:
    """Recompute one hand record (version 2 or 3); return what disagrees (empty: the hand checks).

    The returned list's ``notes`` hold what checks but is worth saying (:data:`EARLIER_RAISE_RULE`).
    """
    out = Problems()
    problem = version_problem(rec)
    if problem:
        out.append(problem)
        return out
    try:
        _check_hand(rec, out)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        out.append(f"the record lacks or garbles a field ({type(exc).__name__}: {exc})")
    return out


def _check_hand(rec: dict[str, Any], out: Problems) -> None:
    game, players = rec["game"], rec["players"]
    if rec["record_version"] == 3 and rec["raise_rule"] not in RAISE_RULES:
        out.append(f"raise_rule: {rec['raise_rule']!r} is not one of {', '.join(RAISE_RULES)}")
        return
    if rec["record_version"] == 2 and "raise_rule" in rec:
        out.append("raise_rule: a version-2 record names no raise rule (version 3 does)")
        return
    seats = [p["seat"] for p in players]
    most = MAX_SEATS.get(game.get("name", SEVEN_CARD_DRAW), 6)
    if seats != sorted(set(seats)) or not 2 <= len(players) <= most:
        out.append(f"players: seats {seats} are not 2-{most} distinct seats in ascending order")
        return
    if GAMES[game.get("name", SEVEN_CARD_DRAW)].openers and game.get("openers", "jacks") not in OPENERS_RULES:
        out.append(f"game.openers: {game['openers']!r} is not one of {', '.join(OPENERS_RULES)} (R7.2)")
        return
    for p in players:
        out.expect(f"seat {p['seat']} bot", p["bot"], rec["match"]["bots"][p["seat"]])
    hand = _Hand(rec, game, seats, out)
    hand.post()
    hand.check_deal()
    hand.play(rec["actions"])
    hand.settle()


class _Hand:
    """One hand replayed by the rules: the chips, the cards and an independent betting state machine.

    ``stage`` is where the rules have the hand (bet1, draw, bet2, done; in Triple Draw draw and bet2
    three times, ``round`` counting the betting rounds from 0) and ``turn`` the index of who must decide
    (None: nobody). Indexes are positions in ``players``, ``seats`` their seat numbers.
    """

    def __init__(self, rec: dict[str, Any], game: dict[str, Any], seats: list[int], out: Problems) -> None:
        self.rec, self.game, self.seats, self.out = rec, game, seats, out
        self.rules = GAMES[game.get("name", SEVEN_CARD_DRAW)]
        n = self.n = len(seats)
        self.pos = {seat: k for k, seat in enumerate(seats)}
        self.button = self.pos[rec["button"]]
        self.start = [p["stack"] for p in rec["players"]]
        self.stack = list(self.start)
        self.contrib = [0] * n
        self.bet = [0] * n
        self.folded = [False] * n
        self.all_in = [False] * n
        self.returned: list[dict[str, int]] = []
        self.blinds = "big_blind" in game
        self.unit = game["big_blind"] if self.blinds else game["min_bet"]
        self.fixed = game["structure"] == "fixed-limit"
        self.high = 0
        self.cards = [list(p["dealt"]) for p in rec["players"]]
        self.seen: set[str] = set()
        self.stock_left = 52 - self.rules.hole * n
        self.muck: set[str] = set()
        self.per_seat = game["replacements"] == "per-seat"
        self.acted = [False] * n
        self.acted_high = [0] * n
        self.in_order = True  # False after the first turn-order problem: later turns would only repeat it
        self.stage = "bet1"
        self.turn: int | None = None
        self.inc = self.size = self.unit
        self.nbets = 0
        self.r1_high = self.unit
        self.drawers: list[int] = []
        self.drawn = 0
        self.round = 0
        self.draws = 0
        self.phase = "bet1"
        self.aggressor: int | None = None
        # A game of openers (R7): chips carried in (dead money in the main pot, R7.4), the opener and its proof.
        jackpot = rec["jackpot"] if self.rules.openers else {}
        self.carried = jackpot.get("carried_in", 0)
        self.opening_rule = game.get("openers", "jacks")
        self.opener: int | None = None
        self.proof: list[str] = []
        self.round1_decided = False
        self.passed_out = False

    def hand_value(self, cards: Sequence[str]) -> tuple[int, ...]:
        """A player's strength at showdown, higher better: best five of seven (R5.1) or the five low (R8.2)."""
        return low_value(cards) if self.rules.low else best_value(cards)

    def five_value(self, five: Sequence[str]) -> tuple[int, ...]:
        """The strength of the five cards a player shows (R5.2-R5.4, or R8.2); comparable to hand_value."""
        return low_value(five) if self.rules.low else five_value(five)

    def after(self, k: int) -> list[int]:
        return [(k + 1 + i) % self.n for i in range(self.n)]

    def post(self) -> None:
        """Posts (R2.4-R2.6): antes from left of the button, then the blinds (heads-up: the button is small, R2.3)."""
        game, button, n = self.game, self.button, self.n
        expected = []
        if game["ante"]:
            expected += [(k, "ante", game["ante"]) for k in self.after(button)]
        bb = button
        if self.blinds:
            sb, bb = (button, 1 - button) if n == 2 else ((button + 1) % n, (button + 2) % n)
            expected += [(sb, "small_blind", game["small_blind"]), (bb, "big_blind", game["big_blind"])]
        posts = []
        for k, kind, chips in expected:
            if self.stack[k] <= 0:
                continue
            chips = min(chips, self.stack[k])
            posts.append({"seat": self.seats[k], "kind": kind, "chips": chips, "all_in": chips == self.stack[k]})
            self.stack[k] -= chips
            self.contrib[k] += chips
            self.all_in[k] = self.stack[k] == 0
            if kind != "ante":  # antes are dead money (R2.4)
                self.bet[k] += chips
        self.out.expect("posts", self.rec["posts"], posts)
        self.high = game["big_blind"] if self.blinds else 0  # a short big blind still sets the full call (R2.6)
        self.lead = bb  # round 1 and the draw start after the big blind, or the button (R2.5)
        self.nbets = 1 if self.blinds else 0

    def check_deal(self) -> None:
        """Seven (five, R8.1) distinct cards per player, no card dealt twice (R2.7)."""
        hole = self.rules.hole
        for k, hand in enumerate(self.cards):
            if len(hand) != hole or len(set(hand)) != hole or not set(hand) <= DECK or self.seen & set(hand):
                self.out.append(f"seat {self.seats[k]} dealt: not {hole} distinct cards of one deck: {hand}")
            self.seen |= set(hand)

    def end_round(self) -> None:
        """The betting round is over: the part of the top bet nobody matched goes back (R3.9)."""
        top = max(self.bet)
        if top:
            second = sorted(self.bet)[-2]
            if top > second:
                owner = self.bet.index(top)
                self.stack[owner] += top - second
                self.contrib[owner] -= top - second
                self.returned.append({"seat": self.seats[owner], "chips": top - second})
                self.all_in[owner] = False
        self.bet = [0] * self.n
        self.high = 0

    def able(self) -> int:
        return sum(1 for o in range(self.n) if not self.folded[o] and not self.all_in[o])

    def to_call(self, k: int) -> int:
        """Chips seat k must add to call: the full big blind (R2.6), at most what can be matched (R3.4)."""
        call_to = self.high
        if self.able() < 2:
            others = (self.bet[o] for o in range(self.n) if o != k and not self.folded[o])
            call_to = min(self.high, max(others, default=0))
        return call_to - self.bet[k]

    def first_to_act(self, start: int) -> int | None:
        """The first seat after `start` able to act, or None when the round has no decision (R3.3, R3.4)."""
        first = next((k for k in self.after(start) if not self.folded[k] and not self.all_in[k]), None)
        if first is None or (self.able() < 2 and self.to_call(first) <= 0):
            return None
        return first

    def next_to_act(self, k: int) -> int | None:
        """Who acts after seat k in this round, or None when the round is over (R3.4)."""
        for s in self.after(k)[:-1]:
            if self.folded[s] or self.all_in[s]:
                continue
            if not self.acted[s] or self.bet[s] < self.high:
                return s if self.able() >= 2 or self.to_call(s) > 0 else None
        return None

    def advance(self) -> None:
        """The round (or the draw) is over: on to the next stage (R3.1, R4.1, R3.3, R6.5, R8.1)."""
        rules = self.rules
        if self.stage == "bet1":
            self.r1_high = max(self.high, self.unit)  # R3.6: round 2's first bet is at least twice it
            if rules.openers and self.opener is None and self.round1_decided and self.folded.count(False) > 1:
                self.stage, self.turn, self.passed_out = "done", None, True  # nobody opened: passed out (R7.4)
                return
        if self.stage in ("bet1", "bet2") and self.draws < rules.draws:
            start = self.lead if rules.draw_after_big_blind else self.button
            self.drawers = [k for k in self.after(start) if not self.folded[k]]
            self.stage, self.drawn, self.turn = "draw", 0, self.drawers[0]
            self.draws += 1
        elif self.stage == "draw":
            self.round += 1
            self.stage, self.nbets, self.size = "bet2", 0, rules.limit_sizes[self.round] * self.unit
            self.inc = (self.size if self.fixed else 2 * self.r1_high if rules.doubled_first_bet else self.unit)
            self.acted = [False] * self.n
            self.acted_high = [0] * self.n
            # R3.3: left of the button (bets are 0 by now); R7.6: the opener first, or the next still in left of it
            opened = rules.openers and self.opener is not None
            self.turn = self.first_to_act((self.opener - 1) % self.n if opened else self.button)
        else:
            self.stage, self.turn = "done", None

    def wager_range(self, k: int, capped: bool) -> tuple[int, int] | str:
        """The legal bet/raise "to" totals of seat k, or why none is legal (R3.4-R3.8)."""
        stack, high, game = self.stack, self.high, self.game
        if stack[k] <= self.to_call(k):
            return f"its {stack[k]} chips do not exceed the call (R3.5)"
        if self.able() < 2:
            return "no other player can still act (R3.4)"
        if self.fixed and game["cap"] and self.nbets >= game["cap"]:
            return f"the cap of {game['cap']} bets is reached (R3.7)"
        if self.acted[k] and high - self.acted_high[k] < (self.size if self.fixed else self.inc):
            return "the betting was not reopened since it acted: only an incomplete all-in raise (R3.8)"
        top = self.bet[k] + stack[k]
        if capped:
            top = min(top, max(self.bet[o] + stack[o] for o in range(self.n) if o != k and not self.folded[o]))
            if top <= high:
                return f"no opponent still in the hand can put in more than the {high} to call (R3.4)"
        low = high + (self.size if self.fixed else self.inc)
        if self.fixed:
            return (min(low, top), min(low, top))
        return (min(low, top), top)

    def play(self, actions: list[dict[str, Any]]) -> None:
        """Every recorded decision, in order, against the turn, the sizes and the chips."""
        self.turn = self.first_to_act(self.lead)
        self.round1_decided = self.turn is not None  # R7.4: a deal with no decision is never passed out
        if self.turn is None:
            self.advance()
        for a in actions:
            k = self.pos[a["seat"]]
            where = f"actions[{a['index']}] (seat {a['seat']} {a['kind']})"
            if self.folded.count(False) == 1:
                self.out.append(f"{where}: a decision after every other player folded")
                break
            if self.in_order:
                self.check_turn(a, k, where)
            if a["phase"] != self.phase:
                if self.phase != "draw":
                    self.end_round()
                if a["phase"] == "draw":
                    self.aggressor = None  # R5.7: the last bettor of the last betting round shows first
                self.phase = a["phase"]
            if a["kind"] == "draw":
                self.draw(a, k, where)
            else:
                self.wager(a, k, where)
        if self.in_order and self.folded.count(False) > 1:
            while self.turn is None and self.stage != "done":
                self.advance()
            if self.turn is not None:
                self.out.append(f"actions: the record ends with seat {self.seats[self.turn]} still to act "
                                f"in {self.stage}")
        self.end_round()
        for k in range(self.n):
            self.out.expect(f"seat {self.seats[k]} final_cards", self.rec["players"][k]["final_cards"], self.cards[k])

    def check_turn(self, a: dict[str, Any], k: int, where: str) -> None:
        """Is it this seat's decision, in this phase (R3.2, R3.3, R4.1, R3.4)?"""
        # A finished draw is followed by a betting round, even one without a decision (R3.4), then the next draw.
        while self.turn is None and self.stage != "done" and (self.stage != a["phase"] or self.stage == "draw"):
            self.advance()
        stage, turn = self.stage, self.turn
        if stage != a["phase"] or turn is None:
            if stage in ("bet1", "bet2") and turn is not None:
                why = f"seat {self.seats[turn]} is still to act in {stage}"
            elif a["phase"] in ("bet1", "bet2"):
                why = ("nobody is to act: every player has acted, or at most one can act and it has nothing "
                       "to call (R3.4)")
            else:
                why = f"the hand is in {stage}"
            self.out.append(f"{where}: a {a['phase']} decision but {why}")
            self.in_order = False
        elif turn != k:
            rule = "R4.1" if stage == "draw" else ("R3.3" if stage == "bet2" else "R3.2")
            self.out.append(f"{where}: seat {self.seats[turn]} is to act, not seat {a['seat']} ({rule}, R3.4)")
            self.in_order = False

    def draw(self, a: dict[str, Any], k: int, where: str) -> None:
        """A draw decision: discards held, replacements fresh or from the muck once the stock ran out (R4)."""
        out, cards = self.out, self.cards
        discards, received, again = a["discards"], a["received"], a["reshuffled"]
        if a["by"] != "bot" and discards:
            out.append(f"{where}: by {a['by']} is the default action, standing pat, yet it discards {discards}")
        if self.in_order:
            self.drawn += 1
            self.turn = self.drawers[self.drawn] if self.drawn < len(self.drawers) else None
        most = self.rules.max_discards
        if not set(discards) <= set(cards[k]) or len(set(discards)) != len(discards) or len(discards) > most:
            out.append(f"{where}: discards {discards} are not 0-{most} distinct cards of {cards[k]}")
            return
        if len(received) != len(discards) or received[len(received) - len(again):] != again:
            out.append(f"{where}: received {received} is not one card per discard ending with reshuffled {again}")
            return
        fresh = received[: len(received) - len(again)]
        if set(fresh) & self.seen or len(set(received)) != len(received):
            out.append(f"{where}: a replacement {fresh} was already dealt in this hand")
        if again:
            if self.per_seat:
                out.append(f"{where}: reshuffled cards {again} with per-seat replacements")
            elif not set(again) <= self.muck or len(fresh) != self.stock_left:
                out.append(f"{where}: reshuffled {again} are not muck cards dealt once the stock ran out (R4.4)")
            self.muck -= set(again)
        if not self.per_seat:
            if len(fresh) > self.stock_left:
                out.append(f"{where}: {len(fresh)} cards from a stock of {self.stock_left}")
            self.stock_left -= len(fresh)
        self.seen |= set(received)
        cards[k] = [c for c in cards[k] if c not in discards] + list(received)
        self.muck |= set(discards)  # after serving: never the player's own (R4.4)

    def wager(self, a: dict[str, Any], k: int, where: str) -> None:
        """A betting decision: what was owed (R2.6, R3.4), added and the "to" total."""
        out, by, kind = self.out, a["by"], a["kind"]
        owed = max(0, self.to_call(k))
        out.expect(f"{where} owed", a["owed"], owed)
        if by == "out" and kind != "fold":
            out.append(f"{where}: by out, yet not a fold (a bot that is out folds without being asked)")
        if by in ("fault", "unsent") and kind != ("fold" if owed else "check"):
            out.append(f"{where}: by {by} is the default action, {'fold' if owed else 'check'}, not {kind}")
        wager = None
        if kind in ("fold", "check"):
            added = 0
            if kind == "check" and owed:
                out.append(f"{where}: a check with {owed} to call")
            if kind == "fold":
                self.folded[k] = True
                self.muck |= set(self.cards[k])  # R4.4: folded hands join the muck
                if self.game.get("name", SEVEN_CARD_DRAW) != SEVEN_CARD_DRAW:  # and leave the seat (R6.9); Seven
                    self.cards[k] = []  # Card Draw's records keep them
        elif kind == "call":
            added = min(owed, self.stack[k])
            if not owed:
                out.append(f"{where}: a call with nothing to call")
        else:  # bet/raise: "to" is the seat's total this round (R3.5)
            if self.rules.openers and self.phase == "bet1" and self.opener is None:
                self.open(k, where)
            to = a["to"]
            added = to - self.bet[k]
            self.check_size(a, k, where)
            wager = to - self.high
            self.high = to
            if self.phase == "bet2":
                self.aggressor = k
        out.expect(f"{where} added", a["added"], added)
        self.stack[k] -= added
        self.bet[k] += added
        self.contrib[k] += added
        out.expect(f"{where} to", a["to"], self.bet[k])
        if added and self.stack[k] == 0:
            self.all_in[k] = True
        out.expect(f"{where} all_in", a["all_in"], bool(added) and self.stack[k] == 0)
        if self.in_order:
            self.reopen(k, kind, wager)

    def open(self, k: int, where: str) -> None:
        """Round 1's first bet in a game of openers: only with openers (R7.2, R7.3); they are the proof (R7.7)."""
        proof = opening_cards(self.cards[k], self.opening_rule)
        if proof is None:
            self.out.append(f"{where}: opens without openers ({self.opening_rule}) in {self.cards[k]} (R7.3)")
            proof = []
        self.opener, self.proof = k, proof

    def check_size(self, a: dict[str, Any], k: int, where: str) -> None:
        """A bet or raise: its kind and its "to" total against the legal range (R3.4-R3.8)."""
        out, kind, to, high = self.out, a["kind"], a["to"], self.high
        if (kind == "bet") != (high == 0):
            out.append(f"{where}: a {kind} with {high} the highest bet")
        if to <= high or to - self.bet[k] > self.stack[k]:
            out.append(f"{where}: to {to} with {high} the highest bet and {self.stack[k]} behind")
            return
        if not self.in_order:
            return
        named = RAISE_RULES.get(self.rec.get("raise_rule"))  # None: version 2 names no rule
        legal, earlier = self.wager_range(k, True), self.wager_range(k, False)
        if named is False:  # played under the earlier rule: judged by it alone
            legal = earlier
        if isinstance(legal, tuple) and legal[0] <= to <= legal[1]:
            return
        if named is None and isinstance(earlier, tuple) and earlier[0] <= to <= earlier[1]:
            out.notes.append(f"{where}: {EARLIER_RAISE_RULE}")  # version 2: either rule may have written it
            return
        judged = earlier if named is None else legal  # the rule the record is held to
        if isinstance(judged, str):
            out.append(f"{where}: no {kind} is legal here: {judged}")
        elif self.fixed:
            out.append(f"{where}: to {to}, but in fixed-limit a {kind} here is to exactly {judged[0]} (R3.7)")
        elif to > judged[1]:
            if judged[1] < self.bet[k] + self.stack[k]:
                out.append(f"{where}: to {to} is above {judged[1]}, the most an opponent still in the hand can "
                           "match (R3.4, E14: the referee plays a wager above it as one to it, R3.10)")
            else:
                out.append(f"{where}: to {to} is above its all-in {judged[1]}")
        else:
            first = ""
            if high == 0 and self.phase == "bet2" and self.rules.doubled_first_bet:
                first = " (round 2's first bet: at least twice round 1's final bet)"
            out.append(f"{where}: to {to} is below the minimum {judged[0]}{first} (R3.6)")

    def reopen(self, k: int, kind: str, wager: int | None) -> None:
        """After a decision: a full bet or raise reopens the betting for everyone (R3.4, R3.8); whose turn next."""
        if wager is not None:
            if self.fixed:
                full = wager >= self.size or (self.stack[k] == 0 and 2 * wager >= self.size)
                self.nbets += full
            else:
                full = wager >= self.inc
                if full:
                    self.inc = wager
            if full:
                self.acted = [False] * self.n
        if kind != "fold":
            self.acted[k], self.acted_high[k] = True, self.high
        self.turn = None if self.folded.count(False) == 1 else self.next_to_act(k)

    def settle(self) -> None:
        """The forced bets nobody could match (R3.9), the pots (R5.5), the showdown and the stacks."""
        contrib, stack, seats, out = self.contrib, self.stack, self.seats, self.out
        top = max(contrib)
        owner = contrib.index(top)
        second = max(c for o, c in enumerate(contrib) if o != owner)
        if top > second:
            if self.folded[owner]:
                out.append(f"seat {seats[owner]} folded with {top - second} chips nobody matched (R3.9)")
            stack[owner] += top - second
            contrib[owner] = second
            self.returned.append({"seat": seats[owner], "chips": top - second})
        out.expect("returned", self.rec["returned"], self.returned)
        live = [k for k in range(self.n) if not self.folded[k]]
        carried_out = 0
        if self.passed_out:  # R7.4: no draw, no showdown; every chip stays in the middle for the next deal
            carried_out = self.carried + sum(contrib)
            pots: list[dict[str, Any]] = []
            shown: list[tuple[int, str, tuple[int, ...]]] = []
        elif len(live) == 1:
            total = sum(contrib) + self.carried  # R1.3 with the chips carried in (R7.4)
            pots = [{"chips": total, "eligible": [seats[live[0]]], "winners": [seats[live[0]]], "shares": [total]}]
            stack[live[0]] += total
            shown = []
        else:
            pots, shown = self.showdown(live)
        out.expect("pots", self.rec["pots"], pots)
        recorded_shown = self.rec["shown"]
        out.expect("shown seats (showing order R5.7)", [s["seat"] for s in recorded_shown], [s[0] for s in shown])
        for s, (seat, category, best) in zip(recorded_shown, shown, strict=False):
            five, held = s["five"], self.cards[self.pos[seat]]
            if not set(five) <= set(held) or len(set(five)) != 5 or self.five_value(five) != best:
                out.append(f"shown seat {seat}: {five} is not the best five of {held}")
            out.expect(f"shown seat {seat} category", s["category"], category)
        for k, p in enumerate(self.rec["players"]):
            out.expect(f"seat {p['seat']} final_stack", p["final_stack"], stack[k])
            out.expect(f"seat {p['seat']} net", p["net"], stack[k] - self.start[k])
        nets = [p["net"] for p in self.rec["players"]]
        if self.rules.openers:
            jackpot = self.rec["jackpot"]
            out.expect("jackpot.passed_out", jackpot["passed_out"], self.passed_out)
            out.expect("jackpot.carried_out", jackpot["carried_out"], carried_out)
            out.expect("jackpot.opener", jackpot["opener"], None if self.opener is None else seats[self.opener])
            out.expect("jackpot.proof (R7.7)", sorted(jackpot["proof"]), sorted(self.proof))
        if sum(nets) != self.carried - carried_out:
            out.append(f"nets {nets} do not sum to {self.carried - carried_out} (the chips carried in less those "
                       "carried out, R7.4)" if self.rules.openers else f"nets {nets} do not sum to 0")

    def showdown(self, live: list[int]) -> tuple[list[dict[str, Any]], list[tuple[int, str, tuple[int, ...]]]]:
        """The pots with their eligible seats, winners and shares (R5.5, R5.6), and the showing order (R5.7)."""
        contrib, seats, n, button = self.contrib, self.seats, self.n, self.button
        value = {k: self.hand_value(self.cards[k]) for k in live}
        levels = sorted({contrib[k] for k in live})
        pots = []
        prev = 0
        for i, level in enumerate(levels):
            cap = level if i < len(levels) - 1 else max(contrib)
            chips = sum(min(c, cap) - min(c, prev) for c in contrib) + (self.carried if i == 0 else 0)  # R7.4
            prev = cap
            if not chips:
                continue
            eligible = [k for k in live if contrib[k] >= level]
            best = max(value[k] for k in eligible)
            # R5.6: odd chips one at a time from the first seat left of the button.
            tied = sorted((k for k in eligible if value[k] == best), key=lambda k: (k - button - 1) % n)
            share, odd = divmod(chips, len(tied))
            shares = [share + (1 if j < odd else 0) for j in range(len(tied))]
            for k, won in zip(tied, shares, strict=True):
                self.stack[k] += won
            pots.append({"chips": chips, "eligible": [seats[k] for k in eligible],
                         "winners": [seats[k] for k in tied], "shares": shares})
        # R5.7: the last bettor of round 2 shows first, else the first player left of the button.
        first = self.aggressor if self.aggressor is not None else next(k for k in self.after(button) if k in live)
        shown = [(seats[k], CATEGORIES[abs(value[k][0])], value[k]) for k in [(first + i) % n for i in range(n)]
                 if k in live]
        return pots, shown


# ----------------------------------------------------------------------------- a file

def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each line of a JSON Lines file, plain or gzip (recognised by content)."""
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rt", encoding="utf-8") if gz else open(path, encoding="utf-8")) as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                yield number, json.loads(line)


def check_file(path: Path, *, match_seed: int | None = None,
               tournament_seed: int | None = None) -> Iterator[tuple[int, int, list[str]]]:
    """``(line, hand_id, problems)`` per hand of one match's hand history, hands and the match checked.

    ``problems`` is a :class:`Problems` list; its ``notes`` are what checks but is worth saying.

    Raises:
        OSError, ValueError: the file cannot be read as JSON Lines, or a line is not a record of a
            version this checker reads (the message names the line and the version).
    """
    previous: dict[str, Any] | None = None
    seed = match_seed
    orders: list[int | None] | None = None  # the deal orders still consistent with the file's hands
    for line, rec in read_records(path):
        unread = version_problem(rec)
        if unread:  # not a tampered hand: a file this checker cannot read (exit 2)
            raise ValueError(f"line {line}: {unread}")
        problems = check_hand(rec)
        if not problems:
            problems += _check_sequence(previous, rec)
            if tournament_seed is not None and seed is None:
                seed = next((s for s in match_seeds(tournament_seed, rec["match"]["bots"])
                             if sha256_of(s) == rec["match"]["seed_sha256"]), None)
                if seed is None:
                    problems.append("match.seed_sha256: no match seed derived from the tournament seed has it")
            if seed is not None:
                if sha256_of(seed) != rec["match"]["seed_sha256"]:
                    problems.append("match.seed_sha256: not the SHA-256 of the match seed")
                seats, hands, h = len(rec["match"]["bots"]), rec["match"].get("hands"), rec["hand_id"]
                if not isinstance(hands, int):  # a first release's record: hand h dealt deal h
                    orders, hands = [None], h + 1
                fits = [order for order in (orders if orders is not None else [None, *range(seats)])
                        if h < hands and rec["seed"] == hand_seed(seed, deal_of(seed, order, hands, seats, h))]
                if fits:
                    orders = fits
                else:
                    problems.append("seed: not derived from the match seed (the hand's deal in the natural order "
                                    "or a seat rotation's)")
        yield line, rec.get("hand_id", -1), problems
        previous = rec


def _check_sequence(previous: dict[str, Any] | None, rec: dict[str, Any]) -> list[str]:
    """Stacks and button from one hand to the next (R2.1; reset or freezeout)."""
    out = Problems()
    match = rec["match"]
    n = len(match["bots"])
    players = rec["players"]
    if previous is not None:
        out.expect("match", match, previous["match"])
        out.expect("hand_id", rec["hand_id"], previous["hand_id"] + 1)
    if "jackpot" in rec:  # R7.4: a deal is dealt with what the last one left in the middle
        last = previous["jackpot"]["carried_out"] if previous is not None and "jackpot" in previous else 0
        out.expect("jackpot.carried_in (the last deal's carried_out, R7.4)", rec["jackpot"]["carried_in"], last)
    if match["stack_mode"] == "reset":
        out.expect("players' seats", [p["seat"] for p in players], list(range(n)))
        out.expect("stacks", [p["stack"] for p in players], [match["starting_stack"]] * len(players))
        out.expect("button", rec["button"], rec["hand_id"] % n)
        return list(out)
    if previous is None:
        stacks = {seat: match["starting_stack"] for seat in range(n)}
        last_button = -1
    else:
        stacks = {p["seat"]: p["final_stack"] for p in previous["players"] if p["final_stack"] > 0}
        last_button = previous["button"]
    out.expect("players (freezeout: the seats with chips)", {p["seat"]: p["stack"] for p in players}, stacks)
    out.expect("button (next seat still in, R2.1)", rec["button"],
               next((s for i in range(1, n + 1) if (s := (last_button + i) % n) in stacks), None))
    return list(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="hand histories (.jsonl or .jsonl.gz), one per match")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--match-seed", help="the match seed (hex), once revealed")
    group.add_argument("--tournament-seed", help="the tournament seed (hex, seed.json), once revealed")
    parser.add_argument("--quiet", action="store_true", help="print only the problems and the summary")
    args = parser.parse_args(argv)
    match_seed = int(args.match_seed, 16) if args.match_seed else None
    tournament_seed = int(args.tournament_seed, 16) if args.tournament_seed else None
    hands = bad = earlier = 0
    for path in args.files:
        try:
            for line, hand_id, problems in check_file(path, match_seed=match_seed, tournament_seed=tournament_seed):
                hands += 1
                if problems:
                    bad += 1
                    print(f"{path} line {line} hand {hand_id}: " + "; ".join(problems))
                elif getattr(problems, "notes", None):
                    earlier += 1
                    print(f"{path} line {line} hand {hand_id}: checks, with " + "; ".join(problems.notes))
        except (OSError, ValueError, EOFError) as exc:
            print(f"{path}: cannot be read: {exc}", file=sys.stderr)
            return 2
    rule = f" ({earlier} with the earlier raise rule, RULES.md E14)" if earlier else ""
    print(f"{hands - bad} of {hands} hands check{rule}" + (f"; {bad} do not" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
