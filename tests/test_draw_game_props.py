"""Invariants of every draw game (RULES.md R1.1, R1.4, R6.9, R7.4), by hypothesis, through the one hand
factory ``games.start_hand``: Seven Card Draw, Five Card Draw with openers and Deuce-to-Seven Triple
Draw, at tables that play several deals (the button moves, busted seats leave, carried chips go on):

- chips are conserved: after every action, chips behind plus chips put in are the stacks the deal began
  with; at the end ``sum(net) + carried_out == carried_in``, and over a table chips plus carried chips
  never change;
- cards are never repeated: the hands still in, the stock and the muck hold each of the 52 cards exactly
  once (a folded hand is in the muck), and every hand still in holds the game's number of cards;
- passed-out deals carry their antes: a deal nobody opened leaves every ante (and what it was carried)
  for the next deal, whose pot starts with them; a game without openers never passes a deal out.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import DECK_SIZE
from harness.engine.config import GameConfig
from harness.engine.games import GAMES, GameDefinition, Openers, start_hand, with_openers
from harness.engine.state import HandState


def where_cards_are(hand: HandState) -> list[int]:
    """Every card held by a seat still in, left in the stock, or in the muck (R6.9), sorted."""
    live = [c for s in range(hand.n) if not hand.folded[s] for c in hand.cards[s]]
    stock = hand._deck.upto(DECK_SIZE)[hand._pos:] + hand._stock
    return sorted(live + stock + hand._muck)


def random_action(hand: HandState, rng: random.Random) -> Action:
    legal = hand.legal()
    weights = {ActionKind.FOLD: 1, ActionKind.CHECK: 5, ActionKind.CALL: 4, ActionKind.BET: 2,
               ActionKind.RAISE: 2, ActionKind.DRAW: 1}
    kind = rng.choices(legal.actions, [weights[k] for k in legal.actions])[0]
    if kind is ActionKind.DRAW:
        held = hand.cards[hand.to_act]  # type: ignore[index]
        return Action(kind, 0, tuple(rng.sample(held, rng.randint(0, legal.max_discards))))
    if kind in (ActionKind.BET, ActionKind.RAISE):
        return Action(kind, rng.choice([legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to)]))
    return Action(kind)


def config_for(game: GameDefinition, fixed: bool, ante: int, antes_only: bool) -> GameConfig:
    structure = "fixed-limit" if fixed else "no-limit"
    if game.name == "five-card-draw" or (antes_only and game.name == "seven-card-draw"):
        return GameConfig(structure=structure, blinds=False, ante=ante, min_bet=10)
    return GameConfig(structure=structure, ante=ante - 1)  # blinds 5/10, an ante or none


@settings(max_examples=250, deadline=None)
@given(name=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**31), seats=st.integers(2, 8),
       fixed=st.booleans(), ante=st.integers(1, 4), antes_only=st.booleans(),
       openers=st.sampled_from(list(Openers)), short=st.booleans())
def test_chips_conserved_cards_never_repeated_passed_out_deals_carry_their_antes(
        name: str, seed: int, seats: int, fixed: bool, ante: int, antes_only: bool, openers: Openers,
        short: bool) -> None:
    game = GAMES[name]
    if game.passed_out:
        game = with_openers(game, openers)
    rng = random.Random(seed)
    n = min(seats, game.max_seats)
    chips = [rng.randint(1, 30) if short and rng.random() < 0.5 else rng.randint(30, 500) for _ in range(n)]
    config = config_for(game, fixed, ante, antes_only)
    table_total, carried, button = sum(chips), 0, 0
    for deal in range(5):
        hand = start_hand(game, config, chips, button, seed + deal, carried=carried)
        start = sum(hand.stacks) + sum(hand.contrib)
        assert start == sum(chips) and hand.pot == sum(hand.contrib) + carried
        if game.passed_out:  # R7.4: everyone antes again, on top of what was carried
            assert hand.pot == carried + sum(min(config.ante, c) for c in chips)
        antes = sum(hand.contrib)
        while not hand.is_complete:
            assert where_cards_are(hand) == list(range(DECK_SIZE))  # R1.1, R6.9
            assert all(len(hand.cards[s]) == game.hole_cards for s in range(n) if not hand.folded[s])
            assert sum(hand.stacks) + sum(hand.contrib) == start  # R1.4
            hand.apply(random_action(hand, rng))
        r = hand.result()
        assert where_cards_are(hand) == list(range(DECK_SIZE))
        assert sum(r.net) + r.carried_out == r.carried_in == carried  # R1.4, R7.4
        assert all(c >= 0 for c in r.final_stacks)
        if r.passed_out:  # R7.4: no draw, no showdown; every ante stays in the middle
            assert game.passed_out and r.opener is None and r.pots == () and not r.shown
            assert r.carried_out == carried + antes and list(r.net) == [-a for a in hand.contrib]
            assert all(d is None for d in hand.draws)
        else:
            assert r.carried_out == 0 and sum(p.amount for p in r.pots) == carried + sum(hand.contrib)
        assert sum(r.final_stacks) + r.carried_out == table_total  # over the table, nothing made or lost
        carried = r.carried_out
        kept = [c for c in r.final_stacks if c > 0]
        if len(kept) < max(2, game.min_seats):
            break
        table_total = sum(kept) + carried  # R7.4: a player who busts loses any share of the carried chips
        button = (button + 1) % len(kept)
        chips, n = kept, len(kept)
