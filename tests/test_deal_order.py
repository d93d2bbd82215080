"""A secret deal order in each rotation of a duplicate set (harness.deals.deal_of).

Every rotation plays the same deals, each once, with the button on the same
seat, in an order keyed by the match seed: a bot cannot line up what it
stored in one rotation with the next by hand number. Histories still replay
with the revealed seed, and duplicate sets still pair the same deal exactly.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

from harness.deals import deal_of, deals_of, hand_seed, new_seed
from harness.engine import GameConfig
from harness.history.files import read_history
from harness.history.replay import check_history
from harness.match.referee import BotSpec, Limits, MatchSpec, play_match
from harness.specs import MatchResult, SandboxMode, SandboxSettings
from harness.tournament.ratings import head_to_head, table_sets
from harness.tournament.results import MatchRecord, check_record
from harness.tournament.schedule import rotate
from harness.tournament.stats import duplicate_sets, set_deal_numbers, set_deals

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"


def test_each_rotation_plays_every_deal_once_with_its_button_seat() -> None:
    for hands, seats in itertools.product((1, 2, 3, 7, 60, 1001), (2, 3, 6)):
        for rotation in range(seats):
            order = deals_of(99, rotation, hands, seats, 0, hands)
            assert sorted(order) == list(range(hands)), (hands, seats, rotation)
            assert all(d % seats == h % seats for h, d in enumerate(order))  # the button's seat (R2.1)
            assert order == [deal_of(99, rotation, hands, seats, h) for h in range(hands)]
    assert deals_of(99, None, 10, 2, 0, 10) == list(range(10))  # a match outside a duplicate set
    with pytest.raises(ValueError):
        deal_of(99, 0, 10, 2, 10)


def test_the_order_differs_between_rotations_and_is_not_guessable_without_the_seed() -> None:
    hands, seats = 200, 2
    orders = [deals_of(2**200 + 5, r, hands, seats, 0, hands) for r in range(seats)]
    assert orders[0] != orders[1] and orders[0] != list(range(hands))
    # Where one rotation deals a deal says nothing about where the other does: about 1 hand in 100 agrees
    # by chance (a deal has 100 places of its residue); never a run of them.
    agree = sum(a == b for a, b in zip(*orders, strict=True))
    assert agree < 12
    # Keyed: across fresh secret seeds the deal at a fixed hand takes every value of its residue about
    # equally often (no public rule predicts it). 400 seeds, 10 values: each expected 40; bound at 10.
    counts = [0] * 10
    for _ in range(400):
        counts[deal_of(new_seed(), 1, 20, 2, 6) // 2] += 1
    assert min(counts) > 10, counts


def match_records(orders: dict[int, list[int] | None], nets: dict[int, list[list[int]]]) -> list[MatchRecord]:
    """A heads-up table of x and y, rotation r dealing ``orders[r]`` with nets per hand ``nets[r]``."""
    out = []
    for r in (0, 1):
        bots = ["x", "y"] if r == 0 else ["y", "x"]
        rows = nets[r]
        res = MatchResult(match_id=f"r{r}", seed=3, hands_played=len(rows), bots=bots,
                          net=[sum(c) for c in zip(*rows, strict=True)], hand_nets=rows, faults=[{}, {}],
                          status=["ok", "ok"], deals=orders[r])
        out.append(MatchRecord(table="t", rotation=r, unit=10, result=res, rotations=2))
    return out


def test_duplicate_sets_pair_the_same_deal_across_permuted_rotations_exactly() -> None:
    hands = 12
    natural = {0: [[10 * d + 1, -(10 * d + 1)] for d in range(hands)],
               1: [[10 * d, -(10 * d)] for d in range(hands)]}
    plain = match_records({0: None, 1: None}, natural)
    orders = {r: deals_of(77, r, hands, 2, 0, hands) for r in (0, 1)}
    # The same results of every deal, each rotation played in its own secret order.
    permuted = match_records(orders, {r: [natural[r][d] for d in orders[r]] for r in (0, 1)})
    for record in permuted:
        check_record(record)
        assert MatchResult.from_dict(json.loads(json.dumps(record.result.to_dict()))) == record.result
    assert set_deal_numbers(permuted) == list(range(hands)) == set_deal_numbers(plain)
    assert duplicate_sets(permuted, "x") == duplicate_sets(plain, "x")  # exactly the same sets, in deal order
    assert [k for _, k in duplicate_sets(permuted, "x")] == [2] * hands
    assert [x for x, _ in duplicate_sets(permuted, "x")] == pytest.approx([0.1] * hands)
    assert table_sets(permuted) == table_sets(plain)
    assert head_to_head(permuted) == head_to_head(plain)
    # Paired by hand number instead, the sets would be wrong: the test can fail.
    assert [r.result.hand_nets for r in permuted] != [r.result.hand_nets for r in plain]


def test_a_freezeout_set_needs_every_bot_seated_where_each_rotation_dealt_the_deal() -> None:
    orders = {0: [0, 3, 2, 1], 1: [2, 1, 0, 3]}
    # Rotation 1's bust at its hand 1 (deal 1): y (seat 0) loses everything; deals 0 and 3 come later there.
    nets = {0: [[5, -5], [-5, 5], [5, -5], [-5, 5]], 1: [[10, -10], [-110, 110]]}
    records = match_records({0: orders[0], 1: orders[1][:2]}, nets)
    records = [dataclasses.replace(r, freezeout_stack=100) for r in records]
    assert set_deal_numbers(records) == [1, 2] and set_deals(records) == 2


def test_results_with_deals_that_break_the_order_are_refused() -> None:
    rows = [[1, -1], [-1, 1]]
    good = match_records({0: [0, 1], 1: [0, 1]}, {0: rows, 1: rows})[0]
    for deals in ([0, 0], [1, 0], [0]):
        bad = dataclasses.replace(good, result=dataclasses.replace(good.result, deals=deals))
        with pytest.raises(ValueError, match="deals"):
            check_record(bad)


def bot(name: str, module: str) -> BotSpec:
    return BotSpec(name=name, command=(sys.executable, "-m", f"bots.{module}"), cwd=str(ROOT))


@pytest.mark.slow
def test_two_permuted_rotations_replay_and_deal_each_deal_to_the_same_seats(tmp_path: Path) -> None:
    seed, hands = new_seed(), 16
    table = (bot("solid", "solid"), bot("caller", "caller"))
    results, histories = [], []
    for rotation in (0, 1):
        out = tmp_path / f"r{rotation}"
        spec = MatchSpec(GameConfig(), hands=hands, seed=seed, rotation=rotation, match_id=f"r{rotation}")
        result = play_match(list(rotate(table, rotation)), spec, Limits(decision_ms=2000), out)
        assert result.hands_played == hands and result.deals is not None
        results.append(result)
        histories.append(list(read_history(out / "hands.jsonl")))
        checks = list(check_history(out / "hands.jsonl", match_seed=seed))  # replays with the revealed seed
        assert [c.ok for c in checks] == [True] * hands, [c.detail for c in checks if not c.ok]
    assert results[0].deals != results[1].deals and sorted(results[0].deals or []) == list(range(hands))
    by_deal = [{d: rec for d, rec in zip(res.deals or [], hist, strict=True)} for res, hist in zip(results, histories,
                                                                                                strict=True)]
    for d in range(hands):
        first, second = by_deal[0][d], by_deal[1][d]
        assert first["seed"] == second["seed"] == hand_seed(seed, d) and first["button"] == second["button"]
        hole = [[p["dealt"] for p in r["players"]] for r in (first, second)]
        assert hole[0] == hole[1]  # the same cards to the same seats: the bots swapped seats
        assert first["players"][0]["bot"] == second["players"][1]["bot"]
    # A hand whose seed belongs to another hand of the order differs (the deals were fixed in advance).
    path = tmp_path / "r1" / "hands.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    recs[2]["seed"], recs[4]["seed"] = recs[4]["seed"], recs[2]["seed"]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    bad = [c for c in check_history(path, match_seed=seed) if not c.ok]
    assert bad and "seed" in bad[0].detail and bad[0].hand_id == 2
    sys.path.insert(0, str(TOOLS))
    try:
        import hhcheck  # the standalone checker (standard library only)
    finally:
        sys.path.remove(str(TOOLS))
    good = tmp_path / "r0" / "hands.jsonl"
    assert all(not problems for _, _, problems in hhcheck.check_file(good, match_seed=seed))
    assert any("seed" in " ".join(p) for _, _, p in hhcheck.check_file(path, match_seed=seed))


@pytest.mark.slow
@pytest.mark.parametrize("orders", [pytest.param((None, None), id="same-order"),
                                    pytest.param((0, 1), id="secret-orders")])
def test_a_perfect_channel_across_rotations_reads_cards_only_by_chance_under_secret_orders(
        tmp_path: Path, orders: tuple[int | None, int | None]) -> None:
    """The rotation oracle with a perfect channel (a file both bots write, sandbox off): a bot records its
    seven cards of every hand in one rotation and reads them back in the next, seats swapped, as its
    opponent's. In the same order that is every hand; under each rotation's secret order it is right only
    where two random orders agree (about one hand per button seat, whatever the match's length), which a
    guesser that picks one of the recorded hands of the same seat matches: Binomial(hands, 2 / hands),
    bound at 1e-6."""
    hands = 60
    home = tmp_path / "oracle"
    shutil.copytree(ROOT / "tests" / "fixtures" / "hostile", home,
                    ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    channel = tmp_path / "channel.txt"
    env = {"PAGECACHE_CHANNEL": "file", "PAGECACHE_FILE": str(channel), "PAGECACHE_HANDS": str(hands),
           "HOSTILE_CALLS": "1"}
    off = SandboxSettings(mode=SandboxMode.OFF)
    seed = new_seed()
    solid = bot("solid", "solid")
    recorder = BotSpec(name="oracle", command=(sys.executable, "pagecache.py"), cwd=str(home),
                       env={**env, "PAGECACHE_ROLE": "record"})
    reader = dataclasses.replace(recorder, env={**env, "PAGECACHE_ROLE": "read"})
    for rotation, seats in ((0, [recorder, solid]), (1, [solid, reader])):
        spec = MatchSpec(GameConfig(), hands=hands, seed=seed, rotation=orders[rotation], match_id=f"r{rotation}")
        result = play_match(seats, spec, Limits(decision_ms=2000, startup_ms=20_000), tmp_path / f"r{rotation}",
                            sandbox=off)
        assert result.status == ["ok", "ok"], result.status
    truth = {r["hand_id"]: r["players"][0]["dealt"] for r in read_history(tmp_path / "r1" / "hands.jsonl")}
    named = {}
    for line in (tmp_path / "r1" / "logs" / "1-oracle.err").read_text().splitlines():
        if line.startswith("ORACLE "):
            _, hand, *cards = line.split()
            named[int(hand)] = cards
    exact = sum(named.get(h) == truth[h] for h in truth)
    print(f"perfect channel across rotations, orders {orders}: {exact} of {hands} hands exact")
    if orders == (None, None):
        assert exact == hands  # the control: the channel is perfect
    else:
        p, bound, tail = 2 / hands, 0, 1.0
        while tail > 1e-6:
            tail -= math.comb(hands, bound) * p**bound * (1 - p) ** (hands - bound)
            bound += 1
        assert exact < bound, (exact, bound)
