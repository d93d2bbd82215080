"""How an action changes the hand: calls, raises, folds, the rounds, the draw, the showdown (R3-R5): the
:class:`Rounds` part of :class:`harness.engine.state.HandState`.

A mixin: it holds no state of its own (``__slots__ = ()``) and changes the hand's fields, declared on
``HandState``. Each method is called only after the action was fully validated, so a refused action
leaves the state as it was.
"""

from __future__ import annotations

from operator import sub

from harness.engine.actions import (
    CALL,
    DRAW,
    FOLD,
    NO_LEGAL,
    ActionKind,
)
from harness.engine.cards import DECK_SIZE
from harness.engine.config import (
    Replacements,
)
from harness.engine.constants import (
    BET1,
    BET2,
    COMPLETE,
    DRAW_PHASE,
    HOLE_CARDS,
    MAX_DISCARDS,
)
from harness.engine.evaluator import HandRank
from harness.engine.fields import HandFields
from harness.engine.games import FirstToAct
from harness.engine.legality import full_raise
from harness.engine.openers import openers
from harness.engine.pots import HandResult, Pot, build_pots, split_pot


class Rounds(HandFields):
    """The transitions of the hand (mixin of HandState)."""

    __slots__ = ()

    def _do_call(self, s: int) -> None:
        stacks = self.stacks
        add = owed = self._high - self.bets[s] if self._n_able >= 2 else self._to_call(s)
        stack = stacks[s]
        all_in = add >= stack
        if all_in:
            add = stack
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": "call", "amount": add, "all_in": True})
        else:
            self.history.append({"seat": s, "action": "call", "amount": add})
        stacks[s] = stack - add
        bet = self.bets[s] = self.bets[s] + add
        self.contrib[s] += add
        self._acted[s] = True
        self._acted_high[s] = self._high
        self._log.append((s, CALL, add, owed, add, bet, all_in))
        self._next(s)

    def _do_raise(self, s: int, kind: ActionKind, to: int) -> None:
        bet = self.bets[s]
        owed = self._high - bet  # a raise is never asked of the only player able to act (R3.4)
        add = to - bet
        stack = self.stacks[s] - add
        self.stacks[s] = stack
        self.bets[s] = to
        self.contrib[s] += add
        size = to - self._high
        full = full_raise(size, stack == 0, self._fl, self._unit, self._inc)  # R3.8
        if full:
            if self._fl:
                self._nbets += 1
            else:
                self._inc = size
        if full:  # a full bet/raise reopens the betting for everyone else (R3.4)
            acted = self._acted
            for o in range(self.n):
                acted[o] = False
        self._high = to
        self._acted[s] = True
        self._acted_high[s] = to
        if stack == 0:
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": str(kind), "amount": to, "all_in": True})
        else:
            self.history.append({"seat": s, "action": str(kind), "amount": to})
        if self.phase is BET2:
            self._aggressor = s
        elif self._open_rule is not None and self._opener is None:  # the open (R7.2), its proof (R7.7)
            self._opener = s
            self._proof = openers(self.cards[s], self._open_rule) or ()
        self._log.append((s, kind, to, owed if owed > 0 else 0, add, to, stack == 0))
        self._next(s)

    def _do_fold(self, s: int) -> None:
        owed = self._to_call(s)
        self._log.append((s, FOLD, 0, owed if owed > 0 else 0, 0, self.bets[s], False))
        self.folded[s] = True
        self._n_live -= 1
        self._n_able -= 1
        self._muck.extend(self.cards[s])  # R4.4: folded hands join the muck
        if self._fold_mucks:  # and leave the seat (R6.9); Seven Card Draw's records keep them
            self.cards[s] = []
        self.history.append({"seat": s, "action": "fold"})
        if self._n_live == 1:
            self._end_round()
            self._finish_uncontested()
        else:
            self._next(s)

    # --- betting flow ------------------------------------------------------------

    def _next(self, s: int) -> None:
        """Pass the turn after seat s, or end the round (R3.4)."""
        self._legal = None
        n = self.n
        folded, all_in, acted, bets = self.folded, self.all_in, self._acted, self.bets
        high = self._high
        for _ in range(n - 1):
            s += 1
            if s == n:
                s = 0
            if folded[s] or all_in[s]:
                continue
            if not acted[s] or bets[s] < high:
                # R3.4: the only player able to act, with nothing it could be matched on, has no decision.
                if self._n_able >= 2 or self._to_call(s) > 0:
                    self.to_act = s
                    return
                break
        self._end_round()
        self._after_round()

    def _begin_round(self, after: int) -> None:
        """Give the turn to the first seat after ``after`` able to act, or skip (R3.3, R3.4)."""
        self._legal = None
        n = self.n
        folded, all_in = self.folded, self.all_in
        first = None
        s = after
        for _ in range(n):
            s += 1
            if s == n:
                s = 0
            if not (folded[s] or all_in[s]):
                first = s
                break
        # R3.4: with at most one player able to act and nothing for them to
        # call, there is no betting in this round.
        if first is None or (self._n_able < 2 and self._to_call(first) <= 0):
            self._end_round()
            self._after_round()
            return
        self.to_act = first

    def _after_round(self) -> None:
        """After a betting round: the draw, or the showdown after the last round (R3.1, R6.5); a round 1 in
        which nobody opened passes the deal out (R7.4), unless nobody could act in it (R3.4)."""
        if self._round <= self.game.draws:
            if self._open_rule is not None and self._opener is None and self._log:
                self._complete((), {}, self._carried + sum(self.contrib), True)
                return
            self._begin_draw()
        else:
            self._showdown()

    def _end_round(self) -> None:
        """Return uncalled chips (R3.9) and close the round's bets."""
        bets = self.bets
        top = max(bets)
        if top:
            second = sorted(bets)[-2]
            if top > second:
                owner = bets.index(top)
                back = top - second
                self.stacks[owner] += back
                self.contrib[owner] -= back
                self._uncalled.append((owner, back))
                if self.all_in[owner]:
                    self.all_in[owner] = False
                    if not self.folded[owner]:
                        self._n_able += 1
        if self.phase is BET1:
            # R3.6: round 2's first bet is at least twice round 1's final bet
            self._r1_high = max(self._high, top, self._unit)
        self.bets = [0] * self.n

    # --- the draw ------------------------------------------------------------------

    def _begin_draw(self) -> None:
        """Every player still in draws once: from left of the big blind (R4.1; the button in an ante-only
        game, R2.5), or from left of the button, the button last (R6.5, R7.5, R8.1)."""
        n = self.n
        start = self._bb_seat if self.game.draw_order is FirstToAct.LEFT_OF_BIG_BLIND else self.button
        folded = self.folded
        self._draw_order = [(start + 1 + k) % n for k in range(n) if not folded[(start + 1 + k) % n]]
        self._draw_index = 0
        self.phase = DRAW_PHASE
        self.to_act = self._draw_order[0]
        self._legal = None

    def _do_draw(self, s: int, discards: tuple[int, ...]) -> None:
        k = len(discards)
        hand = self.cards[s]
        if k:
            kept = [c for c in hand if c not in discards]
            if self.config.replacements is Replacements.PER_SEAT:
                start = HOLE_CARDS * self.n + MAX_DISCARDS * ((s - self.button - 1) % self.n)
                new = self._deck.cards(start, k)
                reshuffled = 0
            else:
                # R4.4: what the first stock could not give came from a reshuffled muck (the last cards).
                left = DECK_SIZE - self._pos
                reshuffled = k - left if k > left else 0
                new = self._take_stock(k)
            self.cards[s] = kept + new
            self._muck.extend(discards)  # after serving: never the player's own (R4.4)
            received = self._received[s] = tuple(new)
        else:
            received = self._received[s] = ()
            reshuffled = 0
        self.draws[s] = k
        self.history.append({"seat": s, "action": "draw", "count": k})
        self._log.append((s, DRAW, discards, received, reshuffled))
        self._draw_index += 1
        self._legal = None
        if self._draw_index < len(self._draw_order):
            self.to_act = self._draw_order[self._draw_index]
        else:
            self._begin_bet2()

    def _take_stock(self, k: int) -> list[int]:
        """Next k cards of the stock, reshuffling the muck when it runs out (R4.4, E9)."""
        left = DECK_SIZE - self._pos
        if k <= left:
            pos = self._pos
            self._pos = pos + k
            return self._deck.cards(pos, k)
        out = self._deck.cards(self._pos, left) if left > 0 else []
        self._pos = DECK_SIZE
        stock = self._stock
        while len(out) < k:
            if not stock:
                if not self._muck:  # cannot happen with at most 6 players (R1.2)
                    raise RuntimeError("R4.4: no cards left in the stock or the muck")
                stock = self._muck
                self._rng.shuffle(stock)
                self._rng_saved = None
                self._muck = []
            take = min(k - len(out), len(stock))
            out.extend(stock[:take])
            del stock[:take]
        self._stock = stock
        return out

    def _begin_bet2(self) -> None:
        """The betting round after a draw (R3.3, R6.5, R6.6); the phase stays ``bet2`` in every later round."""
        rnd = self._round = self._round + 1
        self.phase = BET2
        n = self.n
        game = self.game
        self._high = 0
        if self._fl:
            self._unit = self.config.unit * game.limit_sizes[rnd - 1]  # R3.7: the small or big bet (R6.6)
            self._inc = self._unit
        elif game.doubled_first_bet:
            self._inc = 2 * self._r1_high  # R3.6, E1: Seven Card Draw's own (R6.6)
        else:
            self._inc = self.config.unit  # R6.6: the big blind (or min_bet) in every round
        self._nbets = 0
        self._acted = [False] * n
        self._acted_high = [0] * n
        self._aggressor = None  # R5.7: the last bettor of the last round shows first
        opener = self._opener
        if opener is not None and game.later_rounds_first is FirstToAct.OPENER:
            self._begin_round((opener - 1) % n)  # R7.6: the opener, or the first still in left of it
        else:
            self._begin_round(self.button)  # R3.3: first player left of the button

    # --- the end -------------------------------------------------------------

    def _return_unmatched(self) -> None:
        """Give back the chips nobody matched, before pots are formed (R3.9).

        Bets are returned as each round ends (``_end_round``); what can be
        left is a forced bet (an ante, R2.4) that no other player could match
        because they were all-in for less: it goes back to its owner, recorded
        as returned, never as a pot of one player.
        """
        contrib = self.contrib
        top = max(contrib)
        owner = contrib.index(top)
        second = 0
        for o in range(self.n):
            if o != owner and contrib[o] > second:
                second = contrib[o]
        if top > second:
            back = top - second
            contrib[owner] = second
            self.stacks[owner] += back
            self._uncalled.append((owner, back))

    def _finish_uncontested(self) -> None:
        """All but one folded: the last player takes every chip, shows nothing (R1.3)."""
        winner = self.folded.index(False)
        self._return_unmatched()
        amount = sum(self.contrib) + self._carried  # carried chips are the main pot's (R7.4)
        self.stacks[winner] += amount
        pot = Pot(amount, (winner,), (winner,), (amount,))
        self._complete((pot,), {})

    def _showdown(self) -> None:
        """Best five each, pots main first, split with odd chips (R5)."""
        n = self.n
        folded = self.folded
        live = [not f for f in folded]
        rank = self._rank_hand
        ranks: dict[int, HandRank] = {s: rank(self.cards[s]) for s in range(n) if live[s]}
        self._return_unmatched()
        contrib = self.contrib
        live_levels = {contrib[s] for s in ranks}
        if len(live_levels) == 1 and max(contrib) in live_levels:
            # the common case: one pot, every live player eligible (R5.5)
            layers = [(sum(contrib) + self._carried, tuple(ranks))]
        else:
            layers = build_pots(contrib, live)
            if self._carried:  # dead money of passed-out deals, the main pot's (R7.4)
                layers[0] = (layers[0][0] + self._carried, layers[0][1])
        pots = []
        for amount, eligible in layers:
            best = max(ranks[s].value for s in eligible)
            tied = [s for s in eligible if ranks[s].value == best]
            winners: tuple[int, ...]
            shares: tuple[int, ...]
            if len(tied) == 1:
                winners, shares = (tied[0],), (amount,)
            else:
                winners, shares = split_pot(amount, tied, self.button, n)
            for w, chips in zip(winners, shares, strict=True):
                self.stacks[w] += chips
            pots.append(Pot(amount, eligible, winners, shares))
        # R5.7: the last bettor/raiser of round 2 shows first, else the first
        # player left of the button; then clockwise.
        first = self._aggressor
        if first is None:
            first = next(s for k in range(n) if live[s := (self.button + 1 + k) % n])
        shown = {s: ranks[s] for k in range(n) if live[s := (first + k) % n]}
        self._complete(tuple(pots), shown)

    def _complete(self, pots: tuple[Pot, ...], shown: dict[int, HandRank], carried_out: int = 0,
                  passed_out: bool = False) -> None:
        self.phase = COMPLETE
        self.to_act = None
        self._legal = NO_LEGAL
        final = tuple(self.stacks)
        net = tuple(map(sub, final, self.starting_stacks))
        if self._open_rule is None:
            self._result = HandResult(net, pots, shown, tuple(self._uncalled), final)
        else:
            self._result = HandResult(net, pots, shown, tuple(self._uncalled), final, self._carried, carried_out,
                                      passed_out, self._opener, self._proof)
