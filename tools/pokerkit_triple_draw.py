#!/usr/bin/env python3
"""Cross-check the harness's Deuce-to-Seven Triple Draw against PokerKit, hand by hand (RULES.md R8).

Each hand is played in both: the harness's ``TripleDrawHand`` chooses random legal actions (seeded);
PokerKit (0.7: ``FixedLimitDeuceToSevenLowballTripleDraw``; no-limit as a PokerKit ``State`` with the
same streets and ``BettingStructure.NO_LIMIT``) receives the same cards in the same order (dealt one at
a time from left of the button, the same replacements in each draw, reshuffled ones included) and the
same actions. At the end the final stacks must agree seat by seat, and so the winners and the pots.

Where the rules differ on purpose, the difference is bridged, never hidden in the chips:

- R3.4: the harness never asks a lone player with nothing to call; PokerKit may. Such a PokerKit turn is
  answered with a check (no chips move);
- R3.4: a raise the harness bounds to what the deepest opponent can match is sent to PokerKit as its
  own raise (to its minimum): the part above the bound comes back to the raiser in both (R3.9).

Antes are posted as PokerKit's "ante trimming" (an ante all-in for less makes a side pot), as R5.5 forms pots.

Usage: ``python tools/pokerkit_triple_draw.py [HANDS] [FIRST_SEED]`` (defaults 2000, 0): prints the hands
played per structure and every mismatch (seed, what differed), exit 1 if any. Needs pokerkit (the
``test`` extra).
"""

from __future__ import annotations

import random
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script from a checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import CARD_STRS
from harness.engine.config import GameConfig
from harness.engine.tripledraw import TripleDrawHand

FOLD, CHECK, CALL, BET, RAISE, DRAW = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                                       ActionKind.RAISE, ActionKind.DRAW)


@dataclass(frozen=True)
class Outcome:
    """One hand played in both: ``None`` as ``mismatch`` when they agree."""

    seed: int
    structure: str
    players: int
    mismatch: str | None
    by_design: str | None = None  # a rule the harness plays on purpose otherwise, when the hand used it


def _pokerkit_state(fixed: bool, n: int, sb: int, bb: int, ante: int, stacks: list[int]):  # noqa: ANN202
    import pokerkit as pk

    automations = (
        pk.Automation.ANTE_POSTING, pk.Automation.BET_COLLECTION, pk.Automation.BLIND_OR_STRADDLE_POSTING,
        pk.Automation.HAND_KILLING, pk.Automation.CHIPS_PUSHING, pk.Automation.CHIPS_PULLING,
        pk.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    )
    if fixed:
        return pk.FixedLimitDeuceToSevenLowballTripleDraw.create_state(
            automations, True, ante, (sb, bb), bb, 2 * bb, stacks, n)
    first = pk.Street(False, (False,) * 5, 0, False, pk.Opening.POSITION, bb, None)
    later = tuple(pk.Street(True, (), 0, True, pk.Opening.POSITION, bb, None) for _ in range(3))
    return pk.State(automations, pk.Deck.STANDARD, (pk.StandardLowHand,), (first, *later),
                    pk.BettingStructure.NO_LIMIT, True, ante, (sb, bb), 0, stacks, n)


def play_one(seed: int) -> Outcome:
    """Play the hand of ``seed`` in both engines; what differed, if anything."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    fixed = rng.random() < 0.5
    deep = rng.random() < 0.5
    stacks = [rng.randint(1, 40) if not deep and rng.random() < 0.5 else rng.randint(41, 600) for _ in range(n)]
    button = rng.randrange(n)
    ante = rng.choice((0, 0, 1, 2))
    cfg = GameConfig(small_blind=5, big_blind=10, ante=ante, structure="fixed-limit" if fixed else "no-limit")
    structure = str(cfg.structure)
    ours = TripleDrawHand.start(cfg, stacks, button, seed)

    def pk_of(s: int) -> int:  # PokerKit's player 0 is the first left of the button (the button is last)
        return (s - button - 1) % n

    pk_stacks = [0] * n
    for s in range(n):
        pk_stacks[pk_of(s)] = stacks[s]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns when it is dealt cards its own deck would not give
        theirs = _pokerkit_state(fixed, n, 5, 10, ante, pk_stacks)
        try:
            mismatch = _drive(ours, theirs, pk_of, rng)
        except Exception as exc:  # a refusal by either side is a mismatch to report
            mismatch = f"{type(exc).__name__}: {exc}"
    return Outcome(seed, structure, n, mismatch, _by_design(ours) if mismatch else None)


def _by_design(ours: TripleDrawHand) -> str | None:
    """The rule of the harness that PokerKit plays otherwise, if this hand used it (RULES.md ids)."""
    bb = ours.config.big_blind
    posted = [e["amount"] for e in ours.history if e["action"] == "big_blind"]
    if not posted or posted[0] < bb:  # short, or all-in from the ante before it
        # R2.6: a big blind posted short still sets the full big blind to call and to raise from;
        # PokerKit plays from the chips posted.
        return "R2.6 short big blind"
    high, unit, rnd = bb, bb, 1
    for entry in ours.action_log():
        if entry[1] is DRAW:
            high, rnd = 0, rnd + 1
            continue
        if entry[1] in (BET, RAISE):
            if ours.config.structure == "fixed-limit":
                unit = bb * (1 if rnd <= 2 else 2)
                if entry[6] and entry[2] - high < unit:
                    # R3.8: in fixed-limit an all-in of half a bet or more is a full raise (Robert's Rules);
                    # PokerKit reopens the betting only for a full bet.
                    return "R3.8 fixed-limit half-bet all-in"
            high = entry[2]
    return None


def _drive(ours: TripleDrawHand, theirs, pk_of, rng: random.Random) -> str | None:  # noqa: ANN001
    n = ours.n
    dealt = [None] * (5 * n)
    for s in range(n):
        for i, c in enumerate(ours.hole_cards[s]):
            dealt[pk_of(s) + i * n] = c
    for c in dealt:
        theirs.deal_hole(CARD_STRS[c])  # type: ignore[index]
    for s in range(n):
        got = [str(c.rank) + str(c.suit) for c in theirs.hole_cards[pk_of(s)]]
        if got != [CARD_STRS[c] for c in ours.hole_cards[s]]:
            return f"deal: seat {s} holds {got} in PokerKit"
    queue: dict[int, list[str]] = {}  # replacements PokerKit has yet to deal, per player
    while not ours.is_complete:
        s = ours.to_act
        assert s is not None
        legal = ours.legal()
        kind = rng.choice(legal.actions)
        if kind is FOLD and CHECK in legal.actions:
            kind = CHECK  # PokerKit refuses a fold with nothing to call; the harness allows it (R3.5)
        if kind is DRAW:
            _sync(theirs, None)
            held = ours.cards[s]
            discards = tuple(rng.sample(held, rng.choice((0, 0, 1, 1, 2, 3, 5))))
            if theirs.stand_patter_or_discarder_index is None and not theirs.status:
                # PokerKit ends an all-in hand after the draw under way; the harness still draws (R3.4):
                # the rest stand pat so that both show down the same cards.
                ours.apply(Action(DRAW, discards=()))
                continue
            before = len(ours.action_log())
            ours.apply(Action(DRAW, discards=discards))
            received = ours.action_log()[before][3]
            theirs.stand_pat_or_discard("".join(CARD_STRS[c] for c in discards))
            queue.setdefault(pk_of(s), []).extend(CARD_STRS[c] for c in received)
            _feed(theirs, queue)
            continue
        if kind in (BET, RAISE):
            to = rng.randint(legal.min_to, legal.max_to) if rng.random() < 0.6 else legal.min_to
            action = Action(kind, to)
        else:
            action = Action(kind)
        if any(queue.values()):
            return f"draw: PokerKit did not deal {queue} before round {ours.betting_round}"
        _sync(theirs, pk_of(s))
        if theirs.actor_index != pk_of(s):
            return f"turn: seat {s} to act, PokerKit asks player {theirs.actor_index} (round {ours.betting_round})"
        ours.apply(action)
        if kind is FOLD:
            theirs.fold()
        elif kind is CHECK or kind is CALL:
            theirs.check_or_call()
        else:
            lo = theirs.min_completion_betting_or_raising_to_amount
            hi = theirs.max_completion_betting_or_raising_to_amount
            if lo is None or hi is None:
                return (f"raise: seat {s} raises to {action.amount}, PokerKit offers no raise "
                        f"(round {ours.betting_round})")
            theirs.complete_bet_or_raise_to(min(max(action.amount, lo), hi))
    _sync(theirs, None)
    if theirs.status:
        return f"PokerKit's hand is not over (actor {theirs.actor_index})"
    result = ours.result()
    for s in range(n):
        if theirs.stacks[pk_of(s)] != result.final_stacks[s]:
            mine = list(result.final_stacks)
            pks = [theirs.stacks[pk_of(x)] for x in range(n)]
            return f"final stacks: harness {mine}, PokerKit {pks} (seat order)"
    return None


def _feed(theirs, queue: dict[int, list[str]]) -> None:  # noqa: ANN001
    """Burn and deal what PokerKit asks for in a draw: each player's replacements, as the harness dealt them."""
    while True:
        if theirs.can_burn_card():
            theirs.burn_card("??")
        elif theirs.can_deal_hole() and queue.get(theirs.hole_dealee_index):
            theirs.deal_hole(queue[theirs.hole_dealee_index].pop(0))
        else:
            return


def _sync(theirs, player: int | None) -> None:  # noqa: ANN001
    """Answer PokerKit's turns the harness does not ask (R3.4: a lone player with nothing to call)."""
    while theirs.status and theirs.actor_index is not None and theirs.actor_index != player:
        if theirs.checking_or_calling_amount:
            return  # chips would move: a real difference, reported by the caller
        theirs.check_or_call()


def run(hands: int, first: int = 0) -> list[Outcome]:
    """Play ``hands`` seeds from ``first``; every outcome."""
    return [play_one(seed) for seed in range(first, first + hands)]


def main(argv: list[str]) -> int:
    try:
        hands = int(argv[0]) if argv else 2000
        first = int(argv[1]) if len(argv) > 1 else 0
    except ValueError:
        print("pokerkit_triple_draw: usage: pokerkit_triple_draw.py [HANDS] [FIRST_SEED]", file=sys.stderr)
        return 2
    try:
        import pokerkit  # noqa: F401
    except ImportError:
        print("pokerkit_triple_draw: pokerkit is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    outcomes = run(hands, first)
    bad = [o for o in outcomes if o.mismatch and not o.by_design]
    for structure in ("fixed-limit", "no-limit"):
        played = [o for o in outcomes if o.structure == structure]
        designed = [o for o in played if o.mismatch and o.by_design]
        rules = sorted({o.by_design for o in designed if o.by_design})
        print(f"{structure}: {len(played)} hands, {sum(1 for o in played if not o.mismatch)} agree, "
              f"{len(designed)} differ by a rule the harness plays on purpose ({', '.join(rules) or 'none'}), "
              f"{sum(1 for o in played if o.mismatch and not o.by_design)} mismatches")
    for o in bad[:50]:
        print(f"  seed {o.seed} ({o.structure}, {o.players} players): {o.mismatch}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
