"""Leaderboard arithmetic: CI over duplicate sets, standings, crosstable, files vs hand histories."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from pathlib import Path

import pytest

from harness.history.files import seat_nets
from harness.tournament.leaderboard import COLUMNS, SCREEN_COLUMNS, make_board, plural, render, to_csv
from harness.tournament.results import hand_history_path, read_hands, read_records
from harness.tournament.runner import run_tournament
from harness.tournament.stats import crosstable, duplicate_sets, estimate, standings, t_quantile_975
from tests.leaderboard_helpers import rec
from tests.runner_helpers import fake_config, fake_play


def test_estimate_matches_hand_computation() -> None:
    est = estimate([(1.0, 2), (3.0, 2), (-1.0, 2)])
    # r = 3/6 bb per hand; residuals 0, 2, -2; se = sqrt(8 / 6) / 2; t(2) = 4.303
    assert est.bb_per_100 == pytest.approx(50.0)
    half = 100 * 4.303 * math.sqrt(8 / 6) / 2
    assert (est.low, est.high) == (pytest.approx(50 - half), pytest.approx(50 + half))
    assert (est.sets, est.hands) == (3, 6)
    assert not est.significant
    one = estimate([(2.0, 2)])
    assert one.bb_per_100 == pytest.approx(100.0) and one.low is None and not one.significant
    assert estimate([]).hands == 0


def test_t_quantiles() -> None:
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(30) == pytest.approx(2.042)
    assert t_quantile_975(60) == pytest.approx(2.000, abs=1e-3)
    assert t_quantile_975(10**6) == pytest.approx(1.960, abs=1e-3)


def test_duplicate_sets_sum_a_deal_over_its_rotations() -> None:
    records = [
        rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]]),
        rec(0, 1, ["y", "x"], [[25, -25], [10, -10]]),  # x lost 25 on deal 0 from the other seat
    ]
    assert duplicate_sets(records, "x") == [(-0.5, 2), (-2.0, 2)]
    assert duplicate_sets(records, "y") == [(0.5, 2), (2.0, 2)]
    assert duplicate_sets(records, "x", with_bot="z") == []
    table = standings(records)
    assert [s.bot for s in table] == ["y", "x"]
    y, x = table
    assert (y.hands, y.net_chips, y.matches_won, y.matches_lost) == (4, 25, 1, 1)
    assert (x.hands, x.net_chips, x.matches_won, x.matches_lost) == (4, -25, 1, 1)
    assert x.estimate.bb_per_100 == pytest.approx(100 * -2.5 / 4)
    assert y.faults["crash"] == 1 and y.put_out == 1 and x.put_out == 1 and x.faults["crash"] == 1
    cross = crosstable(records, ["x", "y"])
    assert cross[("x", "y")].bb_per_100 == pytest.approx(-cross[("y", "x")].bb_per_100)


def test_csv_and_text_layout() -> None:
    records = [rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]]), rec(0, 1, ["y", "x"], [[25, -25], [10, -10]])]
    rows = list(csv.DictReader(to_csv(make_board(records)).splitlines()))
    assert list(rows[0]) == list(COLUMNS)
    for required in ("rank", "bot", "hands", "net_chips", "bb_per_100", "ci95_low", "ci95_high", "matches_won",
                     "matches_lost", "timeouts", "illegal", "malformed", "oversized", "crashes", "disconnections",
                     "failed_starts"):
        assert required in COLUMNS
    assert [r["bot"] for r in rows] == ["y", "x"] and rows[0]["rank"] == "1"
    text = render(make_board(records, title="T"))
    assert text.startswith("T\n") and "Crosstable" in text and "duplicate sets" in " ".join(text.split())


def test_fake_tournament_leaderboard_agrees_with_hand_histories(tmp_path: Path) -> None:
    names = ["weak", "middle", "strong"]
    out = tmp_path / "out"
    summary = run_tournament(fake_config(out, names, hands=30), play=fake_play, quiet=True)
    assert summary.complete and not summary.failed

    # Recount everything from the hand histories alone.
    hands: dict[str, int] = defaultdict(int)
    net: dict[str, int] = defaultdict(int)
    for record in read_records(out):
        path = hand_history_path(out / "matches" / record.match_id)
        assert path is not None
        for hand in read_hands(path):
            nets = seat_nets(hand)  # by match seat, whatever the record's version
            assert sum(nets.values()) == 0
            for seat, name in enumerate(record.result.bots):
                hands[name] += 1
                net[name] += nets[seat]

    rows = {r["bot"]: r for r in csv.DictReader((out / "leaderboard.csv").read_text().splitlines())}
    assert sum(int(r["net_chips"]) for r in rows.values()) == 0
    for name in names:
        assert int(rows[name]["hands"]) == hands[name] == 2 * 2 * 30  # 2 opponents x 2 rotations x 30 hands
        assert int(rows[name]["net_chips"]) == net[name]
        assert float(rows[name]["bb_per_100"]) == pytest.approx(100 * net[name] / hands[name] / 10, abs=0.01)
        assert int(rows[name]["matches_won"]) + int(rows[name]["matches_lost"]) <= 4
    assert [rows[n]["rank"] for n in ("strong", "middle", "weak")] == ["1", "2", "3"]
    assert rows["weak"]["timeouts"] == "8" and rows["weak"]["illegal"] == "4" and rows["strong"]["timeouts"] == "0"
    # duplicate cancels the fake's seat luck; what is left is the spread between opponents
    low, mid, high = (float(rows["strong"][k]) for k in ("ci95_low", "bb_per_100", "ci95_high"))
    assert low < mid < high and low > float(rows["weak"]["ci95_high"])
    md = (out / "leaderboard.md").read_text()
    assert md.startswith("# fake") and "| strong" in md and "*" in md


def test_printed_table_is_narrow_and_the_markdown_has_every_column() -> None:
    names = ["strongest_bot_01", "weakest_bot_02"]
    records = [rec(0, 0, names, [[20, -20], [-10, 10]]), rec(0, 1, names[::-1], [[25, -25], [10, -10]])]
    text = render(make_board(records, title="T"))
    table = text.split("\n\n")[2].splitlines()
    assert table[0].split() == ["rank", "bot", "bb/100", "95%", "CI", "ranks", "LOS", "IRO", "won", "lost", "faults",
                                "out"]
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "+" in table[2] and ".." in table[2]  # signed bb/100 and the interval in one cell
    md = render(make_board(records, title="T"), tablefmt="github")
    header = md.split("\n\n")[2].splitlines()[0]
    assert [c.strip() for c in header.strip("|").split("|")] == list(COLUMNS)
    assert set(SCREEN_COLUMNS).isdisjoint({"ci95_low", "timeouts"})


def test_printed_table_of_24_bots_with_long_names_fits_100_columns_and_leaves_the_crosstable_to_the_files(
        tmp_path: Path) -> None:
    names = [f"student_bot_with_a_long_name_{i:02d}" for i in range(24)]  # 32 characters, the longest allowed
    records = []
    for table, (a, b) in enumerate([(a, b) for i, a in enumerate(names) for b in names[i + 1:]]):
        x = (table % 7) - 3 + names.index(b) - names.index(a)  # later names are stronger
        records += [rec(table, 0, [a, b], [[x, -x], [-2 * x, 2 * x]] * 3),
                    rec(table, 1, [b, a], [[-x - 1, x + 1], [2 * x, -2 * x]] * 3)]
    for r in records:
        r.result.faults[1].clear()
        r.result.status[1] = "ok"
    board = make_board(records, title="T", bots=names)
    text = render(board)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "student_bot_wit~_name_23" in text  # long names keep their start and end on screen
    assert "Crosstable (row" not in text and "leaderboard.md, los.csv" in text
    from harness.tournament.leaderboard import los_csv, ranked
    md = render(board, tablefmt="github")
    assert "## Crosstable" in md and "## Likelihood of superiority" in md
    los = list(csv.reader(los_csv(ranked(board.scoring.scored, board.standings())).splitlines()))
    assert len(los) == 25 and len(los[0]) == 25
    assert float(los[1][2]) + float(los[2][1]) == pytest.approx(1.0, abs=0.0011)  # 3 decimals each


def test_counts_are_singular_for_one() -> None:
    assert (plural(1, "match"), plural(2, "match"), plural(0, "hand"), plural(1, "hand")) == (
        "1 match", "2 matches", "0 hands", "1 hand")
    one = rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]], rotations=1)
    assert "\n1 match, 2 hands scored. " in render(make_board([one]))


def test_records_not_in_the_plan_are_left_out_of_every_count() -> None:
    ours = [rec(0, 0, ["x", "y"], [[20, -20], [-10, 10]]), rec(0, 1, ["y", "x"], [[20, -20], [-10, 10]])]
    stray = rec(1, 0, ["x", "qq"], [[5, -5], [5, -5], [5, -5]], rotations=1)
    plan = {r.match_id: (r.table, r.fingerprint) for r in ours}
    board = make_board([*ours, stray], bots=["x", "y"], plan=plan)
    assert board.scoring.foreign == [stray] and board.scoring.scored == ours
    text = render(board)
    assert "\n2 matches, 4 hands scored. " in text and "qq" not in text
    rows = list(csv.DictReader(to_csv(board).splitlines()))
    assert {r["bot"]: r["hands"] for r in rows} == {"x": "4", "y": "4"}
    assert any("1 record not in the current plan" in n and "t1r0" in n for n in board.notices)


def test_every_fault_kind_has_its_column() -> None:
    """A new FaultKind must reach the leaderboard (one column per kind)."""
    from harness.specs import FaultKind
    from harness.tournament.stats import FAULT_COLUMNS

    assert sorted(kind for kind, _ in FAULT_COLUMNS) == sorted(str(k) for k in FaultKind)


def test_bb_per_100_is_one_formula_for_chips_and_big_blinds() -> None:
    """100 * net / big_blind / hands: 150 chips at a 10-chip big blind over 300 hands is +5 bb/100."""
    from harness.tournament.stats import bb_per_100

    assert bb_per_100(150, 300, 10) == 5.0
    assert bb_per_100(-15.0, 300) == -5.0  # net already in big blinds
    assert bb_per_100(40, 0, 10) == 0.0  # no hand played
    import numpy as np

    assert list(bb_per_100(np.array([30.0, -6.0]), np.array([600, 200]))) == [5.0, -3.0]
