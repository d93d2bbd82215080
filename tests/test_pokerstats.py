"""Poker statistics and "where the chips went" on hands worked by hand, and invariants over random hands.

Three heads-up hands between alice (seat 0) and bob (seat 1), blinds 5/10, stacks 1000, worked by hand:

- A (button alice, who posts the small blind, draws first and acts second after the draw, E8): alice
  raises to 30, bob calls 20; alice stands pat, bob draws 2; bob checks, alice bets 60, bob folds.
  alice +30, bob -30; ended after the draw.
- B (button bob): bob calls 5 (a limp), alice raises to 40, bob re-raises to 120, alice calls 80;
  bob (one pair of queens) draws 3, alice (two pair, As Ad Kc Kd) draws 1 and makes aces full;
  both check; showdown, alice wins 240: alice +120, bob -120.
- C (button alice): alice folds her small blind; bob is not asked (a walk). alice -5, bob +5.

alice: 3 hands, 3 with a round-1 decision; VPIP 2/3 (A, B), PFR 2/3; no 3-bet chance (she never
faced exactly one raise of the big blind); AF (raise A, bet A, raise B) / (call B) = 3; c-bet 1/1 (A);
in at the draw 2 (A, B), one showdown: WTSD 1/2, W$SD 1/1; never faced a bet after the draw;
draws: pat (A), 1 card (B): stand pat 1/2, 0.5 cards drawn.
bob: 3 hands, 2 with a round-1 decision (C was a walk): VPIP 2/2, PFR 1/2 (the re-raise of B);
3-bet chances 2 (A: facing alice's raise he called; B: facing alice's raise he re-raised): 1/2;
AF 1 raise / 2 calls = 0.5; c-bet 0/1 (B: last raiser of round 1, he checked); WTSD 1/2, W$SD 0/1;
fold to a bet after the draw 1/1 (A); draws 2 and 3 cards: stand pat 0/2, 2.5 cards drawn.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from harness.engine import GameConfig, HandState
from harness.engine.cards import parse_cards, stacked_deck
from harness.history import record as handrecord
from harness.report.chips import ChipsTally, actions_summary, counterpart, ending_of, hand_line
from harness.report.hands import hand_view
from harness.report.pokerstats import COLUMNS, Counts, PokerStats, hand_counts, stats_csv
from tests.history_helpers import GAMES, random_match

MATCH = handrecord.match_dict(bots=["alice", "bob"], hands=3, stack_mode="reset", starting_stack=1000,
                              seed_sha256="0" * 64, decision_ms=100, time_bank_ms=1000, max_faults=5)
ALICE_B = "As Ad Kc Kd 7h 5s 2c"
BOB_B = "Qs Qh 9c 8d 6h 4s 3c"


def play(hand_id: int, button: int, hands: list[str], script: list[tuple[str, Any]], stock: str = "",
         match_id: str = "worked", match: dict[str, Any] = MATCH) -> dict[str, Any]:
    """A version-2 record of a scripted hand: ``script`` is (method of HandState, argument) in order."""
    deck = stacked_deck(hands, button, stock)
    state = HandState.start(GameConfig(), [1000, 1000], button, 1, hand_id, deck=deck)
    for method, arg in script:
        if method == "draw":
            getattr(state, method)(parse_cards(arg))
        elif arg is None:
            getattr(state, method)()
        else:
            getattr(state, method)(arg)
    assert state.is_complete
    decisions = [(handrecord.BY_BOT, None, 1.0) for _ in state.action_log()]
    return handrecord.build(state, match_id=match_id, match=match, seated=[0, 1], out=[False, False],
                            decisions=decisions, faults=[])


def worked_hands() -> list[dict[str, Any]]:
    a = play(0, 0, ["2h 3h 4d 8c 9s Js Kh", "5d 6d 7c Tc Qd Ah 3s"],
             [("raise_to", 30), ("call", None), ("draw", ""), ("draw", "5d 6d"), ("check", None), ("bet", 60),
              ("fold", None)])
    b = play(1, 1, [ALICE_B, BOB_B],
             [("call", None), ("raise_to", 40), ("raise_to", 120), ("call", None), ("draw", "6h 4s 3c"),
              ("draw", "2c"), ("check", None), ("check", None)], stock="2d 5c 9h Ah")
    c = play(2, 0, ["2h 3h 4d 8c 9s Js Kh", "5d 6d 7c Tc Qd Ah 3s"], [("fold", None)])
    return [a, b, c]


def test_the_worked_hands_are_what_the_docstring_says() -> None:
    a, b, c = (hand_view(r) for r in worked_hands())
    assert b["net"] == [120, -120] and a["net"] == [30, -30] and c["net"] == [-5, 5]
    assert sorted(s["category"] for s in b["shown"]) == ["full house", "two pair"]
    assert [ending_of(v) for v in (a, b, c)] == ["after the draw", "at showdown", "before the draw"]


def test_statistics_of_the_worked_hands() -> None:
    stats = PokerStats()
    for record in worked_hands():
        stats.add_hand(hand_view(record))
    alice, bob = stats.rows(["alice", "bob"])
    assert alice == {"bot": "alice", "hands": 3, "vpip": 2 / 3, "pfr": 2 / 3, "three_bet": None,
                     "aggression_factor": 3.0, "cbet": 1.0, "wtsd": 0.5, "won_at_showdown": 1.0,
                     "fold_to_bet_after_draw": None, "stand_pat": 0.5, "mean_discards": 0.5,
                     "showdowns": 1, "draws": 2}
    assert bob == {"bot": "bob", "hands": 3, "vpip": 1.0, "pfr": 0.5, "three_bet": 0.5,
                   "aggression_factor": 0.5, "cbet": 0.0, "wtsd": 0.5, "won_at_showdown": 0.0,
                   "fold_to_bet_after_draw": 1.0, "stand_pat": 0.0, "mean_discards": 2.5,
                   "showdowns": 1, "draws": 2}
    # Heads-up, the statistics against the one opponent are the bot's statistics.
    assert stats.versus[("alice", "bob")].row("alice") == alice
    # The draw by position and by the category of the best five before it (hand B).
    counts = stats.bots["alice"]
    assert {k: (v.draws, v.stand_pat, v.discarded) for k, v in counts.by_position.items()} == {
        "button (small blind)": (1, 1, 0), "big blind": (1, 0, 1)}
    assert counts.by_category["two pair"].discarded == 1
    assert {k: v.discarded for k, v in stats.bots["bob"].by_category.items() if k == "one pair"} == {"one pair": 3}
    text = stats_csv(stats.rows(["alice", "bob"]))
    assert text.splitlines()[0] == ",".join(COLUMNS)
    assert text.splitlines()[1] == "alice,3,0.6667,0.6667,,3.0000,1.0000,0.5000,1.0000,,0.5000,0.5000,1,2"


def test_where_the_chips_went_in_the_worked_hands() -> None:
    tally = ChipsTally()
    views = [hand_view(r) for r in worked_hands()]
    for view in views:
        tally.add(view, 0)
    ends = {e: (s.won_hands, s.won_chips, s.lost_hands, s.lost_chips) for e, s in tally.by_end.items()}
    assert ends == {"before the draw": (0, 0, 1, -5), "after the draw": (1, 30, 0, 0), "at showdown": (1, 120, 0, 0)}
    assert sum(s.net for s in tally.by_opponent["bob"].values()) == 145
    assert tally.extremes("best") == [("worked", 1, 0), ("worked", 0, 0)]
    assert tally.extremes("costly") == [("worked", 2, 0)]
    assert actions_summary(views[1], 0) == "round 1: raise to 40, call 80; draw 1; round 2: check; showdown: full house"
    assert actions_summary(views[0], 1) == "round 1: call 20; draw 2; round 2: check, fold"
    line = hand_line(views[1], 0, table="t", rotation=0)
    assert (line.net, line.category, line.ending, line.opponents) == (120, "two pair", "at showdown", ["bob"])


def test_the_costliest_hands_keep_the_twenty_largest() -> None:
    tally = ChipsTally()
    for h, net in enumerate([-1, -50, 7, -3, *range(-100, -60)]):
        tally.add({"match_id": "m", "hand_id": h, "bots": ["a", "b"], "net": [net, -net], "shown": [],
                   "steps": []}, 0)
    costly = tally.extremes("costly")
    assert len(costly) == 20 and costly[0] == ("m", 4, 0)  # -100 first
    assert [h for _, h, _ in costly] == list(range(4, 24))
    assert tally.extremes("best") == [("m", 2, 0)]


def test_a_counterpart_is_the_seat_with_the_same_cards_in_the_other_rotation() -> None:
    b = worked_hands()[1]
    swapped = handrecord.match_dict(bots=["bob", "alice"], hands=3, stack_mode="reset", starting_stack=1000,
                                    seed_sha256="0" * 64, decision_ms=100, time_bank_ms=1000, max_faults=5)
    # The other rotation: bob sits in seat 0 with alice's cards of hand B; alice, on the button, folds at once.
    twin = hand_view(play(1, 1, [ALICE_B, BOB_B], [("fold", None)], stock="2d 5c 9h Ah", match_id="twin",
                          match=swapped))
    line = hand_line(hand_view(b), 0, table="t", rotation=0)
    found = counterpart(twin, line.dealt, rotation=1)
    assert found is not None and (found.bot, found.seat, found.net) == ("bob", 0, 5)  # alice folded her small blind
    assert found.summary == "no decision (before the draw)"  # as big blind, the button's fold ended the hand
    assert counterpart(twin, ["2h", "3h", "4d", "8c", "9s", "Js", "Kh"], rotation=1) is None


@settings(max_examples=25, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)), seats=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_invariants_over_random_hands(game: str, seats: int, seed: int) -> None:
    # 25 examples of 120 hands each: 3,000 random hands, every game type, 2-6 seats, faults and bots put out.
    assume(GAMES[game].replacements != "per-seat" or seats <= 4)  # R4.4: per-seat replacements, 4 players at most
    records = random_match(GAMES[game], seats=seats, hands=120, seed=seed, fault_rate=0.05)
    stats = PokerStats()
    for record in records:
        view = hand_view(record)
        for counts in hand_counts(view):
            for name in ("vpip", "pfr", "three_bets", "cbets", "showdowns", "won_showdown", "folded_bet2",
                         "saw_draw", "stand_pat"):
                assert getattr(counts, name) in (0, 1), name
        stats.add_hand(view)
    for row in stats.rows(sorted(stats.bots)):
        for column in COLUMNS[2:]:
            value = row[column]
            if column in ("aggression_factor", "mean_discards", "showdowns", "draws"):
                assert value is None or value >= 0
            else:
                assert value is None or 0 <= value <= 1, (column, value)
        assert row["pfr"] is None or row["pfr"] <= row["vpip"]
        assert row["mean_discards"] is None or row["mean_discards"] <= 4
        assert row["showdowns"] <= row["draws"] <= row["hands"]
    total = Counts()
    for counts in stats.bots.values():
        total.add(counts)
    assert total.hands == sum(len(r["players"]) for r in records)


def test_random_hands_chips_add_up() -> None:
    rng = random.Random(3)
    records = random_match(GAMES["no-limit"], seats=3, hands=200, seed=rng.getrandbits(32))
    tallies = {f"bot{i}": ChipsTally() for i in range(3)}
    for record in records:
        view = hand_view(record)
        for pos, name in enumerate(view["bots"]):
            tallies[name].add(view, pos)
    nets = {f"bot{i}": sum(p["net"] for r in records for p in r["players"] if p["bot"] == f"bot{i}")
            for i in range(3)}
    assert {n: sum(s.net for s in t.by_end.values()) for n, t in tallies.items()} == nets
    for tally in tallies.values():
        costly = tally.extremes("costly")
        assert len(costly) == 20


@pytest.mark.parametrize("count", [5])
def test_category_needs_five_cards(count: int) -> None:
    from harness.report.pokerstats import category_before_draw

    assert category_before_draw(["As", "Ad", "Ac", "Kd", "Ks"][:count]) == "full house"
    assert category_before_draw(["As"]) == ""
