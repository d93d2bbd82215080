"""What a duplicate set is (freezeouts included) and no statistic printed from fewer observations than it needs."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import re
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.specs import MatchResult
from harness.tournament.leaderboard import los_csv, make_board, ranked, render, to_csv, write_leaderboard
from harness.tournament.ratings import (
    MIN_RESAMPLED_SETS,
    bootstrap_ranks,
    finish_keys,
    instant_runoff,
    plackett_luce_ratings,
    seat_ranks,
    table_sets,
)
from harness.tournament.results import MatchRecord
from harness.tournament.stats import MIN_SETS, duplicate_sets, estimate, set_deals, standings

ROOT = Path(__file__).resolve().parents[1]


def rec(table: int, rotation: int, bots: list[str], hand_nets: list[list[int]], *, rotations: int = 2,
        bb: int = 10, stack: int | None = None) -> MatchRecord:
    net = [sum(col) for col in zip(*hand_nets, strict=True)] if hand_nets else [0] * len(bots)
    res = MatchResult(match_id=f"t{table}r{rotation}", seed=table, hands_played=len(hand_nets), bots=bots, net=net,
                      hand_nets=hand_nets, faults=[{} for _ in bots], status=["ok"] * len(bots))
    return MatchRecord(table=f"t{table}", rotation=rotation, unit=bb, result=res, rotations=rotations,
                       freezeout_stack=stack)


def csv_rows(records: list[MatchRecord]) -> dict[str, dict[str, str]]:
    return {r["bot"]: r for r in csv.DictReader(to_csv(make_board(records)).splitlines())}


# --- point 8: a duplicate set in a freezeout -------------------------------------------------------------------

def heads_up_freezeout() -> list[MatchRecord]:
    """Heads-up freezeout, big blind 10, stacks 100, x against y in both seats.

    Rotation 0 (x in seat 0): x +20, -30, +110: y's stack 80, 110, 0 (busted at hand 2).
    Rotation 1 (y in seat 0): x +40, +60: y's stack 60, 0 (busted at hand 1): deal 2 is never played here.
    """
    return [rec(0, 0, ["x", "y"], [[20, -20], [-30, 30], [110, -110]], stack=100),
            rec(0, 1, ["y", "x"], [[-40, 40], [-60, 60]], stack=100)]


def test_a_freezeout_deal_played_in_one_rotation_is_no_duplicate_set() -> None:
    records = heads_up_freezeout()
    # Deals 0 and 1 were played in both rotations: x's nets (20 + 40) / 10 = 6 bb and (-30 + 60) / 10 = 3 bb,
    # 2 hands each. Deal 2 (x +110, only in rotation 0) is no set. bb/100 = 100 * 9 / 4 = +225.00; counting
    # deal 2 as a one-hand set (as before) gave 100 * 20 / 5 = +400.00.
    assert set_deals(records) == 2
    assert duplicate_sets(records, "x") == [(6.0, 2), (3.0, 2)]
    x = estimate(duplicate_sets(records, "x"))
    assert x.bb_per_100 == pytest.approx(225.0) and (x.sets, x.hands) == (2, 4)
    # r = 9 / 4 bb per hand; residuals 6 - 4.5 = 1.5 and 3 - 4.5 = -1.5; se = sqrt(4.5 / (2 * 1)) / 2 = 0.75;
    # t(1) = 12.706: half width 100 * 12.706 * 0.75 = 952.95
    assert (x.low, x.high) == (pytest.approx(225.0 - 952.95), pytest.approx(225.0 + 952.95))
    (t,) = table_sets(records)
    assert t.nets == ((60, -60), (30, -30)) and t.hands == ((2, 2), (2, 2))
    rows = csv_rows(records)
    assert (rows["x"]["bb_per_100"], rows["y"]["bb_per_100"]) == ("225.0", "-225.0")
    # two sets, both won by x: every resample has x ahead, yet its interval spans -727.95..+1177.95: no ranks apart
    # and no LOS 1.00 from them
    assert rows["x"]["rank_group"] == rows["y"]["rank_group"] == "1-2" and rows["x"]["los_next"] == ""
    # the match results themselves are whole: every hand played counts in hands and net chips
    assert (rows["x"]["hands"], rows["x"]["net_chips"], rows["y"]["net_chips"]) == ("5", "200", "-200")
    # the ACPC rules' total bankroll counts the same sets: +225 bb/100 (over whole matches: 20 bb / 5 hands, +400)
    assert instant_runoff(records).rounds[0].bankroll == pytest.approx({"x": 225.0, "y": -225.0})
    text = render(make_board(records, title="T"))
    assert "5 hands; bb/100 over the 4 hands in duplicate sets" in " ".join(text.split())
    # the same records read as stacks reset every hand would wrongly keep nothing more: deal 2 is still unmatched
    assert set_deals([as_reset(r) for r in records]) == 2


def as_reset(record: MatchRecord) -> MatchRecord:
    """The record read as if stacks reset every hand."""
    return dataclasses.replace(record, freezeout_stack=None)


def test_a_bust_at_a_three_seat_freezeout_ends_its_sets_where_the_deals_reach_other_seats() -> None:
    # Stacks 30. Rotation 0: z loses 30 at hand 1 (stacks 30/30/30 -> z 20 -> z 0) and leaves; hands 2 and 3 are
    # dealt to x and y alone, so they are no duplicate of the other rotations' hands 2 and 3 (all three seated).
    r0 = rec(0, 0, ["x", "y", "z"], [[5, 5, -10], [10, 10, -20], [7, -7, 0], [-3, 3, 0]], rotations=3, stack=30)
    r1 = rec(0, 1, ["y", "z", "x"], [[4, -2, -2], [1, 1, -2], [2, -1, -1], [0, 3, -3]], rotations=3, stack=30)
    r2 = rec(0, 2, ["z", "x", "y"], [[-1, 2, -1], [6, -3, -3], [2, 2, -4], [1, -2, 1]], rotations=3, stack=30)
    records = [r0, r1, r2]
    assert set_deals(records) == 2
    # x's sets: deal 0: 5 - 2 + 2 = 5 chips, deal 1: 10 - 2 - 3 = 5 chips; 3 hands each, bb 10
    assert duplicate_sets(records, "x") == [(0.5, 3), (0.5, 3)]
    assert set_deals([as_reset(r) for r in records]) == 4  # stacks reset: every seat is dealt in


def test_a_freezeout_finish_ranks_busted_bots_by_when_they_busted() -> None:
    # Stacks 30, four seats. Nets x +90, y, z and w -30 each: chips alone tie the three losers.
    r = rec(0, 0, ["x", "y", "z", "w"], [[30, -30, 0, 0], [10, 0, 10, -20], [50, 0, -40, -10]], rotations=1, stack=30)
    assert r.result.net == [90, -30, -30, -30]
    # stacks after each hand: y 0 at hand 0; z 30, 40, 0 (busts at hand 2 from 40); w 30, 10, 0 (hand 2 from 10)
    assert seat_ranks(finish_keys(r)) == [1, 4, 2, 3]
    assert seat_ranks(finish_keys(as_reset(r))) == [1, 2, 2, 2]
    rated = plackett_luce_ratings([r])
    assert rated["x"].mu > rated["z"].mu > rated["w"].mu > rated["y"].mu


def test_without_duplicate_a_freezeout_hand_counts_for_the_bots_dealt_in() -> None:
    # One rotation (no duplicate), stacks 30: z busts at hand 1; hands 2 and 3 are x against y. Each hand is a
    # set of one hand for the bots dealt in: z has 2 hands (-10, -20: -1.5 bb per hand, -150 bb/100), not 4
    # (the 0s of hands it did not play would make it -75); x has 4: 5 + 10 + 7 - 3 = 19 chips, +47.5 bb/100.
    r = rec(0, 0, ["x", "y", "z"], [[5, 5, -10], [10, 10, -20], [7, -7, 0], [-3, 3, 0]], rotations=1, stack=30)
    assert set_deals([r]) == 4
    assert duplicate_sets([r], "z") == [(-1.0, 1), (-2.0, 1)]
    rows = csv_rows([r])
    assert (rows["z"]["bb_per_100"], rows["x"]["bb_per_100"]) == ("-150.0", "47.5")
    (t,) = table_sets([r])
    assert [row[t.bots.index("z")] for row in t.hands] == [1, 1, 0, 0]
    assert (rows["z"]["hands"], rows["x"]["hands"]) == ("2", "4")  # the hands each was dealt in


def test_the_leaderboard_reads_a_freezeout_from_its_plan(tmp_path: Path) -> None:
    records = [as_reset(r) for r in heads_up_freezeout()]
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    manifest = {"format": 3, "name": "fz", "bots": ["x", "y"],
                "settings": {"[game] stack_mode": "freezeout", "[game] starting_stack": 100},
                "matches": [[r.match_id, r.table, r.rotation, r.fingerprint] for r in records]}
    (out / "tournament.json").write_text(json.dumps(manifest))
    write_leaderboard(out)
    rows = {r["bot"]: r for r in csv.DictReader((out / "leaderboard.csv").read_text().splitlines())}
    assert rows["x"]["bb_per_100"] == "225.0"
    # the stored lines do not carry the stack: the plan's settings do
    assert "freezeout_stack" not in (out / "results.jsonl").read_text()


def test_a_table_of_no_complete_set_shows_no_bb_per_100() -> None:
    # rotation 1 played no hand (a bot failed to start): no deal was played in both rotations
    records = [rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]], stack=100), rec(0, 1, ["y", "x"], [], stack=100)]
    rows = csv_rows(records)
    assert rows["x"]["bb_per_100"] == rows["x"]["ci95_low"] == rows["x"]["rank_low"] == ""
    assert rows["x"]["hands"] == "2"
    assert "x" in render(make_board(records))  # the printed table has no "+0.00" and does not crash


def test_a_table_with_a_rotation_missing_has_no_set_whoever_asks() -> None:
    # one of two rotations recorded: the report asks for the crosstable over the plan's records, not only scored ones
    records = [rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]])]
    assert duplicate_sets(records, "x") == [] and set_deals(records) == 0
    assert all(s.estimate.sets == 0 for s in standings(records))


# --- point 3: no certainty from one deal --------------------------------------------------------------------------

def test_one_deal_heads_up_claims_no_certainty() -> None:
    # raiser vs solid, hands = 1, duplicate: one set per bot. Before: CI blank, yet rank groups "1" and "2",
    # rank intervals 1 and 2, LOS 1.00.
    records = [rec(0, 0, ["raiser", "solid"], [[15, -15]]), rec(0, 1, ["solid", "raiser"], [[-5, 5]])]
    board = make_board(records, title="T")
    rows = {r["bot"]: r for r in csv.DictReader(to_csv(board).splitlines())}
    for bot in ("raiser", "solid"):
        row = rows[bot]
        assert row["ci95_low"] == row["ci95_high"] == ""
        assert row["rank_low"] == row["rank_high"] == row["los_next"] == ""
        assert row["rank_group"] == "1-2"
    assert rows["raiser"]["bb_per_100"] == "100.0"  # the point estimate is still shown: 2 bb over 2 hands
    ranks = ranked(board.scoring.scored, board.standings())
    assert ranks.bootstrap.too_few == ("raiser", "solid") and ranks.bootstrap.los == {}
    assert list(csv.reader(los_csv(ranks).splitlines()))[1:] == [["raiser", "", ""], ["solid", "", ""]]
    text = render(board)
    table = text.split("\n\n")[2].splitlines()
    assert [line.split()[0] for line in table[2:]] == ["1-2", "1-2"] and "1.00" not in text
    assert "No rank interval and no LOS for raiser, solid" in " ".join(text.split())


def test_one_deal_per_table_is_no_resampling_either() -> None:
    # a round robin of three bots with hands = 1: two sets per bot (a CI, wide), but each table has one set, the
    # same in every bootstrap resample: intervals of one rank and LOS 0/1 would be certainty from one deal a pair
    records = []
    for t, (a, b) in enumerate(itertools.combinations(["a", "b", "c"], 2)):
        records += [rec(t, 0, [a, b], [[10 * (t + 1), -10 * (t + 1)]]), rec(t, 1, [b, a], [[-5, 5]])]
    rows = csv_rows(records)
    assert all(r["ci95_low"] != "" for r in rows.values())  # 2 sets each: Student's t with 1 degree of freedom
    assert all(r["rank_low"] == r["los_next"] == "" and r["rank_group"] == "1-3" for r in rows.values())


def field_records(nets: list[list[int]], bots: int, seats: int) -> list[MatchRecord]:
    """Tables of ``seats`` of ``bots`` bots, one per combination, each with its rotations and the deals given."""
    names = [f"b{i}" for i in range(bots)]
    records = []
    for t, table in enumerate(itertools.combinations(names, seats)):
        for r in range(seats):
            order = list(table[r:] + table[:r])
            deals = nets[(t * seats + r) % len(nets)]
            rows = []
            for h in range(len(deals)):
                row = [deals[(h + s) % len(deals)] for s in range(seats)]
                row[-1] -= sum(row)
                rows.append(row)
            records.append(rec(t, r, order, rows, rotations=seats))
    return records


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bots=st.integers(2, 4), seats=st.integers(2, 3),
       nets=st.lists(st.lists(st.integers(-30, 30), min_size=1, max_size=3), min_size=1, max_size=4))
def test_no_statistic_from_fewer_sets_than_it_needs(bots: int, seats: int, nets: list[list[int]]) -> None:
    seats = min(seats, bots)
    records = field_records(nets, bots, seats)
    tables = table_sets(records)
    sets = {b: sum(len(t.nets) for t in tables if b in t.bots) for b in {n for t in tables for n in t.bots}}
    varying = {b: sum(len(t.nets) for t in tables if b in t.bots and len(t.nets) >= MIN_SETS) for b in sets}
    rows = csv_rows(records)
    for bot, row in rows.items():
        if sets[bot] < MIN_SETS:
            assert row["ci95_low"] == row["ci95_high"] == "", (bot, row)
        else:
            assert row["ci95_low"] != "" and row["ci95_high"] != ""
        if varying[bot] < MIN_RESAMPLED_SETS:
            assert row["rank_low"] == row["los_next"] == "", (bot, row)
    if any(v < MIN_RESAMPLED_SETS for v in varying.values()):
        assert {r["rank_group"] for r in rows.values()} == {f"1-{len(rows)}"}
        assert all(r["rank_low"] == "" for r in rows.values())
    else:  # enough sets everywhere: every statistic is there
        assert all(r["rank_low"] != "" and r["rank_high"] != "" for r in rows.values())
    boot = bootstrap_ranks(records, resamples=50)
    for a, b in boot.los:
        assert varying[a] >= MIN_RESAMPLED_SETS and varying[b] >= MIN_RESAMPLED_SETS


@pytest.mark.slow
def test_a_real_one_hand_league_prints_no_certainty(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli import app
    from tests.runner_helpers import wait_no_bots

    mark = uuid.uuid4().hex
    config = tmp_path / "one.toml"
    text = "[tournament]\nname = \"one\"\nseed = 5\n[schedule]\nhands = 1\n[limits]\ndecision_ms = 2000\n" \
           "startup_ms = 10000\n"
    for name in ("raiser", "solid"):
        text += (f'[[bots]]\nname = "{name}"\ncommand = "python -m bots.{name}"\ncwd = "{ROOT}"\n'
                 f'env = {{ TEST_MARK = "{mark}" }}\n')
    config.write_text(text)
    try:
        result = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "out")])
    finally:
        assert wait_no_bots(mark) == []
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((tmp_path / "out" / "leaderboard.csv").read_text().splitlines()))
    assert len(rows) == 2
    for row in rows:
        assert row["ci95_low"] == row["rank_low"] == row["rank_high"] == row["los_next"] == ""
        assert row["rank_group"] == "1-2"
    assert "No rank interval and no LOS for" in " ".join(result.output.split())
    report = CliRunner().invoke(app, ["report", str(tmp_path / "out")])
    assert report.exit_code == 0, report.output
    index = (tmp_path / "out" / "report" / "index.html").read_text()
    assert "[1-2]" in index  # the interval figure's labels carry the one shared rank group
    assert re.search(r"No LOS and no rank interval for (raiser, solid|solid, raiser): fewer than 6", index)
    bot_md = (tmp_path / "out" / "reports" / "raiser.md").read_text()
    assert "no 95% CI: fewer than 2 duplicate sets" in bot_md and "rank group 1-2" in bot_md
