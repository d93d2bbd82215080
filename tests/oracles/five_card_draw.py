"""Five Card Draw with openers, a second implementation written from docs/RULES.md (R7, with R1-R5 as R7
refers to them) for the differential test (tests/test_five_card_draw_oracle.py); tests only.

Nothing here comes from the engine but the card numbering (``harness.engine.cards``: card = rank * 4 +
suit, ranks 2..A as 0..12, suits c d h s as 0..3) and the high evaluator (``best_hand``, R5.2-R5.4). The
betting rules (R3), the openers (R7.2), passed-out deals (R7.4), the draw and its reshuffle (R7.5, R6.9),
who acts first after the draw (R7.6), the pots (R5.5, R5.6, R3.9) and a foul hand (R7.8) are read from
the rule text and written plainly, one seat list at a time, for clarity over speed.

Two conventions the rules leave to the dealer are fixed here so that both implementations deal the same
cards: the muck holds cards in the order they were thrown in (a folded hand as it was dealt, a draw's
discards as listed, after that player is served), and a reshuffle is ``random.Random(seed).shuffle`` of
it, one generator for the deal's reshuffles. The deck is always given (a stacked deck, R2.7's order).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.engine.evaluator import best_hand

FOLD, CHECK, CALL, BET, RAISE, DRAW = "fold", "check", "call", "bet", "raise", "draw"
JACK = 9  # the jack's rank index (2 is 0)


def opening_cards(cards: Sequence[int], rule: str) -> tuple[int, ...] | None:
    """R7.2/R7.7: the least part of five cards that may open under ``rule``, or None.

    ``jacks``: a pair of jacks or better (one pair of J, Q, K or A: that pair; any two pair: both pairs,
    but only the higher pair when it alone is jacks or better; trips: the three; a straight, flush, full
    house: all five; four of a kind: the four). ``jack-card``: the highest card, if a jack or higher.
    ``none``: anyone, nothing to show.
    """
    if rule == "none":
        return ()
    if rule == "jack-card":
        top = max(cards)  # highest rank; among equal ranks the last suit in c d h s
        return (top,) if top // 4 >= JACK else None
    ranks = [c // 4 for c in cards]
    counts = {r: ranks.count(r) for r in ranks}
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    hand = best_hand(cards)
    category = int(hand.category)
    if category in (4, 5, 6, 8):  # straight, flush, full house, straight flush: the made hand
        return tuple(cards)
    (top_rank, top_count) = groups[0]
    if top_count == 4:
        return tuple(c for c in cards if c // 4 == top_rank)
    if top_count == 3:
        return tuple(c for c in cards if c // 4 == top_rank)
    pairs = sorted((r for r, k in counts.items() if k == 2), reverse=True)
    if not pairs:
        return None
    if pairs[0] >= JACK:
        return tuple(c for c in cards if c // 4 == pairs[0])
    if len(pairs) == 2:
        return tuple(c for c in cards if c // 4 in pairs)
    return None


@dataclass
class OracleLegal:
    """What the seat to act may do: kinds, chips to call, the bet/raise range (0, 0 when none)."""

    kinds: tuple[str, ...]
    call: int = 0
    min_to: int = 0
    max_to: int = 0


@dataclass
class Deal:
    """One deal of Five Card Draw with openers (R7), as RULES.md words it.

    Args (fields): stacks (chips before the deal), button, ante, unit (``min_bet``), fixed (fixed-limit),
    cap (fixed-limit bets per round, 0 none), rule (``jacks``, ``jack-card``, ``none``), carried (chips
    in from passed-out deals), deck (52 card ints, dealt in R2.7's order), seed (the reshuffles).
    """

    stacks: list[int]
    button: int
    ante: int
    unit: int
    fixed: bool
    cap: int
    rule: str
    carried: int
    deck: list[int]
    seed: int
    n: int = 0
    start: list[int] = field(default_factory=list)
    cards: list[list[int]] = field(default_factory=list)
    put: list[int] = field(default_factory=list)  # chips put in this deal, antes included
    folded: list[bool] = field(default_factory=list)
    stage: str = "round1"  # round1, draw, round2, over
    to_act: int | None = None
    opener: int | None = None
    proof: tuple[int, ...] = ()
    passed_out: bool = False
    carried_out: int = 0
    pots: list[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    returned: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.n = len(self.stacks)
        self.start = list(self.stacks)
        self.cards = [[] for _ in range(n)]
        for i in range(5 * n):  # R2.7: one at a time, clockwise, from left of the button
            self.cards[(self.button + 1 + i) % n].append(self.deck[i])
        self.stock = list(self.deck[5 * n:])
        self.muck: list[int] = []
        self.rng = random.Random(self.seed)
        self.folded = [False] * n
        self.put = [0] * n
        for s in range(n):  # R2.4, R2.6: the ante, or all the player has
            a = min(self.ante, self.stacks[s])
            self.stacks[s] -= a
            self.put[s] += a
        self.decisions = 0
        self._open_round(first_after=self.button)

    # --- who is where ---------------------------------------------------------------------------
    def able(self, s: int) -> bool:
        """Still in the hand and not all-in (R3.4)."""
        return not self.folded[s] and self.stacks[s] > 0

    def live(self) -> list[int]:
        return [s for s in range(self.n) if not self.folded[s]]

    def left_of(self, s: int) -> list[int]:
        """Every seat, clockwise, starting left of ``s``."""
        return [(s + 1 + k) % self.n for k in range(self.n)]

    @property
    def pot(self) -> int:
        return sum(self.put) + self.carried

    # --- a betting round -----------------------------------------------------------------------
    def _open_round(self, first_after: int) -> None:
        self.bet = [0] * self.n
        self.high = 0
        self.size = self.unit * (2 if self.fixed and self.stage == "round2" else 1)  # R7.1
        self.last_full = self.unit  # no-limit: the least bet or raise increment (R3.6, R6.6)
        self.counted = 0  # fixed-limit: full bets this round (R3.7)
        self.acted: dict[int, int] = {}  # seat -> the highest bet when it last acted, since the last full raise
        self.turn_after = first_after
        self._advance()

    def _owed(self, s: int) -> int:
        """R3.4: what s must add to call; the only player able to act is never asked for more than the
        others still in have put in this round."""
        target = self.high
        if sum(map(self.able, range(self.n))) < 2:
            target = min(target, max((self.bet[o] for o in self.live() if o != s), default=0))
        return target - self.bet[s]

    def _must_act(self, s: int) -> bool:
        if not self.able(s):
            return False
        if sum(map(self.able, range(self.n))) < 2:  # R3.4: alone, asked only when something is owed
            return self._owed(s) > 0
        return s not in self.acted or self.bet[s] < self.high

    def _advance(self) -> None:
        """Give the turn to the next seat that must act after ``turn_after``, or end the round."""
        for s in self.left_of(self.turn_after):
            if self._must_act(s):
                self.to_act = s
                return
        self.to_act = None
        self._end_round()

    def legal(self) -> OracleLegal:
        """The seat to act's choices (R3.4-R3.8, R7.2, R7.3)."""
        s = self.to_act
        if s is None:
            return OracleLegal(())
        if self.stage == "draw":
            return OracleLegal((DRAW,))
        owed = self._owed(s)
        base = (FOLD, CALL) if owed > 0 else (FOLD, CHECK)
        call = min(owed, self.stacks[s]) if owed > 0 else 0
        if self.stage == "round1" and self.opener is None and opening_cards(self.cards[s], self.rule) is None:
            return OracleLegal(base, call)  # R7.3: no openers, no open
        if self.stacks[s] <= max(owed, 0):  # R3.5: chips that do not exceed the call
            return OracleLegal(base, call)
        if sum(map(self.able, range(self.n))) < 2:  # R3.4: nobody could answer
            return OracleLegal(base, call)
        if self.fixed and self.cap and self.counted >= self.cap:  # R3.7
            return OracleLegal(base, call)
        full = self.size if self.fixed else self.last_full
        if s in self.acted and self.high - self.acted[s] < full:  # R3.8: not reopened
            return OracleLegal(base, call)
        reach = max(self.bet[o] + self.stacks[o] for o in self.live() if o != s)  # R3.4: the deepest opponent
        top = min(self.bet[s] + self.stacks[s], reach)
        if top <= self.high:
            return OracleLegal(base, call)
        lo = min(self.high + full, top)
        hi = lo if self.fixed else top
        return OracleLegal((*base, BET if self.high == 0 else RAISE), call, lo, hi)

    def act(self, kind: str, amount: int = 0, discards: Sequence[int] = ()) -> None:
        """Play one legal action of the seat to act (amount: a bet or raise's total this round)."""
        s = self.to_act
        legal = self.legal()
        assert s is not None and kind in legal.kinds, (s, kind, legal)
        if kind == DRAW:
            self._draw(s, list(discards))
            return
        self.decisions += 1
        if kind == FOLD:
            self.folded[s] = True
            self.muck += self.cards[s]  # R6.9: folded hands join the muck
            self.cards[s] = []
            if len(self.live()) == 1:
                self._end_round(won=True)
                return
        elif kind == CALL:
            self._move(s, legal.call)
        elif kind in (BET, RAISE):
            assert legal.min_to <= amount <= legal.max_to, (amount, legal)
            if self.stage == "round1" and self.opener is None:  # the open (R7.2) and its proof (R7.7)
                self.opener = s
                self.proof = opening_cards(self.cards[s], self.rule) or ()
            by = amount - self.high
            self._move(s, amount - self.bet[s])
            all_in = self.stacks[s] == 0
            if self.fixed:
                is_full = by >= self.size or (all_in and 2 * by >= self.size)  # R3.8
            else:
                is_full = by >= self.last_full
            if is_full:
                self.acted = {}  # a full bet or raise reopens the betting for everyone (R3.4)
                if self.fixed:
                    self.counted += 1
                else:
                    self.last_full = by
            self.high = amount
        self.acted[s] = self.high
        self.turn_after = s
        self._advance()

    def _move(self, s: int, chips: int) -> None:
        self.stacks[s] -= chips
        self.bet[s] += chips
        self.put[s] += chips

    def _end_round(self, won: bool = False) -> None:
        # R3.9: the part of the top bet nobody matched goes back.
        order = sorted(range(self.n), key=lambda o: self.bet[o], reverse=True)
        back = self.bet[order[0]] - self.bet[order[1]]
        if back > 0:
            owner = order[0]
            self.stacks[owner] += back
            self.put[owner] -= back
            self.bet[owner] -= back
            self.returned.append((owner, back))
        if won:
            self._showdown()
            return
        if self.stage == "round1":
            if self.opener is None and self.decisions > 0:  # R7.4: nobody opened: passed out
                self.passed_out = True
                self.carried_out = self.carried + sum(self.put)
                self.stage, self.to_act = "over", None
                return
            self.stage = "draw"  # R7.5: from the first still in left of the button, the button last
            self.drawers = [s for s in self.left_of(self.button) if not self.folded[s]]
            self.to_act = self.drawers[0]
        else:
            self._showdown()

    # --- the draw -----------------------------------------------------------------------------
    def _draw(self, s: int, discards: list[int]) -> None:
        assert len(discards) == len(set(discards)) <= 5 and all(c in self.cards[s] for c in discards)
        new: list[int] = []
        while len(new) < len(discards):
            if not self.stock:  # R6.9: the muck, never this player's own discards, becomes the stock
                self.stock, self.muck = self.muck, []
                self.rng.shuffle(self.stock)
            new.append(self.stock.pop(0))
        self.cards[s] = [c for c in self.cards[s] if c not in discards] + new
        self.muck += discards
        self.drawers.pop(0)
        if self.drawers:
            self.to_act = self.drawers[0]
            return
        self.stage = "round2"
        # R7.6: the opener first, or the first still in left of it; nobody opened only when round 1 had
        # nobody to ask (R3.4): left of the button (R3.3).
        first = self.opener if self.opener is not None else (self.button + 1) % self.n
        self._open_round(first_after=(first - 1) % self.n)

    # --- the end ------------------------------------------------------------------------------
    def _showdown(self) -> None:
        self.stage, self.to_act = "over", None
        live = self.live()
        # R3.9: an ante (or any chips) above what every other player put in goes back to its owner.
        order = sorted(range(self.n), key=lambda o: self.put[o], reverse=True)
        back = self.put[order[0]] - self.put[order[1]]
        if back > 0:
            self.stacks[order[0]] += back
            self.put[order[0]] -= back
            self.returned.append((order[0], back))
        if len(live) == 1:  # R1.3: the last player in takes every chip, carried ones included (R7.4)
            self.stacks[live[0]] += self.pot
            return
        strength = {s: best_hand(self.cards[s]).value for s in live}
        levels = sorted({self.put[s] for s in live})
        below = 0
        for i, level in enumerate(levels):  # R5.5: the main pot first, then each side pot
            amount = sum(min(p, level) - min(p, below) for p in self.put)
            if i == len(levels) - 1:
                amount += sum(max(0, p - level) for p in self.put)  # folded chips above every live level
            if i == 0:
                amount += self.carried  # dead money of passed-out deals (R7.4)
            eligible = tuple(s for s in live if self.put[s] >= level)
            best = max(strength[s] for s in eligible)
            tied = [s for s in self.left_of(self.button) if s in eligible and strength[s] == best]  # R5.6
            shares = [amount // len(tied)] * len(tied)
            for k in range(amount % len(tied)):
                shares[k] += 1
            for w, chips in zip(tied, shares, strict=True):
                self.stacks[w] += chips
            self.pots.append((amount, eligible, tuple(tied), tuple(shares)))
            below = level

    def foul(self) -> tuple[list[int], int]:
        """R7.8: the opener cannot show openers, the hand is void. Returns (chips per seat afterwards, chips
        left in the middle for the next deal). Every player still in takes back every chip it put in except
        its ante; the antes, the folded players' chips and the chips carried in stay. Does not change the
        deal (it may be over or not)."""
        assert self.opener is not None, "only an opened deal has an opener to be foul"
        after, middle = [], self.carried
        for s in range(self.n):
            ante = min(self.ante, self.start[s])  # what it posted (R2.4, R2.6)
            kept = self.put[s] if self.folded[s] else min(self.put[s], ante)
            after.append(self.start[s] - kept)
            middle += kept
        return after, middle

    @property
    def net(self) -> list[int]:
        return [after - before for after, before in zip(self.stacks, self.start, strict=True)]
