"""Five Card Draw with openers, the engine against a second implementation written from RULES.md R7
(tests/oracles/five_card_draw.py): random tables of 2 to 8 seats, fixed-limit and no-limit, openers
``jacks``, ``jack-card`` and ``none``, deep and short stacks, several deals each so that passed-out deals
carry their antes into the next. After every action both must offer the same seat the same legal actions
(amounts included) and hold the same pot; every deal must end with the same pots, chips returned,
payouts, opener and proof, and a passed-out deal with the same carried chips. With ``foul``, an opened
deal is also declared foul (R7.8) at a random moment, the end included: both must give the same chips
back and carry the same chips, and the table plays on from that outcome."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.engine.actions import Action, ActionKind
from harness.engine.cards import parse_cards
from harness.engine.config import GameConfig
from harness.engine.games import FIVE_CARD_DRAW, start_hand, with_openers
from harness.engine.jackpots import foul_result
from harness.engine.state import HandState
from tests.oracles.five_card_draw import BET, CALL, CHECK, DRAW, FOLD, RAISE, Deal, opening_cards

MIN_BET = 10


def agree(hand: HandState, deal: Deal) -> None:
    """Same seat to act, same legal actions and amounts, same pot."""
    assert hand.to_act == deal.to_act
    assert hand.pot == deal.pot
    lg, want = hand.legal(), deal.legal()
    assert tuple(str(k) for k in lg.actions) == want.kinds
    if want.kinds == (DRAW,):
        assert lg.max_discards == 5
    else:
        assert (lg.call_amount, lg.min_to, lg.max_to) == (want.call, want.min_to, want.max_to)


def choose(deal: Deal, rng: random.Random) -> tuple[str, int, tuple[int, ...]]:
    """A random legal action, checks and calls most often (so deals are passed out, and reach the draw)."""
    want = deal.legal()
    seat = deal.to_act
    assert seat is not None
    if want.kinds == (DRAW,):
        held = deal.cards[seat]
        return DRAW, 0, tuple(rng.sample(held, rng.choice([0, 1, 2, 3, 3, 4, 5, 5])))
    weights = {FOLD: 1, CHECK: 5, CALL: 4, BET: 3, RAISE: 2}
    kind = rng.choices(want.kinds, [weights[k] for k in want.kinds])[0]
    if kind in (BET, RAISE):
        amount = rng.choice([want.min_to, want.max_to, rng.randint(want.min_to, want.max_to)])
        return kind, amount, ()
    return kind, 0, ()


def agree_on_foul(hand: HandState, deal: Deal, carried: int) -> tuple[tuple[int, ...], int]:
    """Both void the deal alike (R7.8); returns (stacks after, chips carried to the next deal)."""
    r = foul_result(hand)
    stacks, middle = deal.foul()
    assert r.foul and not r.passed_out and r.pots == () and not r.shown
    assert list(r.final_stacks) == stacks and r.carried_out == middle
    assert sum(r.net) + r.carried_out == r.carried_in == carried  # R1.4: no chip made or lost
    assert r.opener == deal.opener
    return r.final_stacks, r.carried_out


def play_table(seed: int, n: int, fixed: bool, rule: str, ante: int, cap: int, short: bool,
               deals: int = 4, foul: bool = False) -> tuple[int, int, int]:
    """Deals at one table, both implementations side by side; returns (deals, actions, passed out).

    With ``foul``, each deal someone opens is declared foul at a random moment after the open (or at its
    end) with chance 1/2, and the next deal starts from the foul's outcome."""
    rng = random.Random(seed)
    frng = random.Random(~seed)  # its own generator: the deals are the same with and without ``foul``
    chips = [rng.randint(1, 6 * ante + 25) if short and rng.random() < 0.5 else rng.randint(40, 400)
             for _ in range(n)]
    config = GameConfig(structure="fixed-limit" if fixed else "no-limit", blinds=False, ante=ante,
                        min_bet=MIN_BET, cap=cap)
    game = with_openers(FIVE_CARD_DRAW, rule)
    carried, button, played, actions, passed = 0, 0, 0, 0, 0
    for d in range(deals):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = start_hand(game, config, chips, button, seed + d, carried=carried, deck=deck)
        deal = Deal(list(chips), button, ante, MIN_BET, fixed, cap, rule, carried, deck, seed + d)
        agree(hand, deal)
        fouled: tuple[tuple[int, ...], int] | None = None
        while deal.to_act is not None:
            if foul and deal.opener is not None and frng.random() < 0.2:
                fouled = agree_on_foul(hand, deal, carried)
                break
            kind, amount, discards = choose(deal, rng)
            seat = deal.to_act
            if deal.stage == "round1" and deal.opener is None and opening_cards(deal.cards[seat], rule) is None:
                assert not hand.can(Action(ActionKind.BET, MIN_BET))  # R7.3: no openers, no open
            deal.act(kind, amount, discards)
            hand.apply(Action(ActionKind(kind), amount, discards))
            actions += 1
            assert sorted(map(sorted, hand.cards)) == sorted(map(sorted, deal.cards))
            agree(hand, deal)
        if foul and fouled is None and deal.opener is not None and frng.random() < 0.5:
            fouled = agree_on_foul(hand, deal, carried)  # found when the opener should show, at the end
        if fouled is not None:
            played += 1
            final, carried = fouled
            kept = [s for s in range(n) if final[s] > 0]
            if len(kept) < 2:
                break
            chips = [final[s] for s in kept]
            button = (button + 1) % len(chips)
            n = len(chips)
            continue
        assert hand.is_complete
        r = hand.result()
        assert r.passed_out == deal.passed_out and r.carried_out == deal.carried_out
        assert list(r.final_stacks) == deal.stacks and list(r.net) == deal.net
        assert r.uncalled == tuple(deal.returned)
        assert r.opener == deal.opener and set(r.proof) == set(deal.proof)
        if r.shown:  # a showdown: the same pots, eligible seats, winners and shares (R5.5, R5.6)
            assert [(p.amount, p.eligible, p.winners, p.shares) for p in r.pots] == deal.pots
            assert sorted(r.shown) == deal.live()
        elif not r.passed_out:  # won uncontested, carried chips included (R1.3, R7.4)
            assert sum(p.amount for p in r.pots) == deal.pot
        assert sum(r.net) + r.carried_out == r.carried_in == carried
        played += 1
        passed += r.passed_out
        carried = r.carried_out
        kept = [s for s in range(n) if r.final_stacks[s] > 0]
        if len(kept) < 2:
            break
        chips = [r.final_stacks[s] for s in kept]
        button = (button + 1) % len(chips)  # R7.4: the next deal is dealt by the next seat to the left
        n = len(chips)
    return played, actions, passed


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 8), fixed=st.booleans(),
       rule=st.sampled_from(["jacks", "jack-card", "none"]), ante=st.integers(1, 5),
       cap=st.sampled_from([0, 2, 4]), short=st.booleans(), foul=st.booleans())
def test_the_engine_deals_five_card_draw_as_the_rules_say(seed: int, n: int, fixed: bool, rule: str, ante: int,
                                                         cap: int, short: bool, foul: bool) -> None:
    play_table(seed, n, fixed, rule, ante, cap, short, foul=foul)


@pytest.mark.parametrize("n", [7, 8])
def test_full_tables_draw_through_the_reshuffle(n: int) -> None:
    """Eight seats all drawing five run the stock out (R6.9): the same reshuffled cards in both."""
    for seed in range(30):
        played, actions, _ = play_table(1000 * n + seed, n, seed % 2 == 0, "none", 1, 0, False, deals=2)
        assert played >= 1 and actions > 0


def test_the_comparison_can_fail() -> None:
    """Not vacuous: an engine hand under another opening rule than the oracle's is caught at once."""
    hands = ["2c 4d 6h 8s Tc", "3c 5d 7h 9s Qc", "2d 4h 6s 8c Td"]  # no pair of jacks anywhere
    deck = [parse_cards(hands[(i + 1) % 3])[i // 3] for i in range(15)]
    deck += [c for c in range(52) if c not in deck]
    config = GameConfig(blinds=False, ante=1, min_bet=MIN_BET)
    engine = start_hand(with_openers(FIVE_CARD_DRAW, "none"), config, [100] * 3, 0, 9, deck=deck)
    agree(engine, Deal([100] * 3, 0, 1, MIN_BET, False, 4, "none", 0, deck, 9))
    with pytest.raises(AssertionError):
        agree(engine, Deal([100] * 3, 0, 1, MIN_BET, False, 4, "jacks", 0, deck, 9))
