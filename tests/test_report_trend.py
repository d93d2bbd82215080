"""The report's charts over the tournament: cumulative bb/100 with its interval after each table, and
Plackett-Luce ratings after each match, ending on the leaderboard's numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.report.trend import bb_history, rating_history
from harness.tournament.ratings import plackett_luce_ratings
from harness.tournament.results import read_records
from harness.tournament.runner import run_tournament
from harness.tournament.stats import by_table, duplicate_sets, estimate
from tests.runner_helpers import fake_config, fake_play


@pytest.mark.parametrize("table_size", [2, 3])
def test_histories_end_on_the_leaderboard_numbers(tmp_path: Path, table_size: int) -> None:
    out = tmp_path / "run"
    names = ["a", "b", "c", "d"]
    summary = run_tournament(fake_config(out, names, table_size=table_size, hands=30), play=fake_play, quiet=True)
    assert summary.complete
    records = read_records(out)
    tables, series = bb_history(records, names)
    assert tables == sorted(by_table(records))
    for line in series:
        assert len(line.value) == len(tables)
        final = estimate(duplicate_sets(records, line.bot))
        assert line.value[-1] == pytest.approx(final.bb_per_100)
        assert line.low[-1] == pytest.approx(final.low) and line.high[-1] == pytest.approx(final.high)
        # After each table: the estimate over the tables so far.
        for k in range(1, len(tables) + 1):
            upto = [r for r in records if r.table in tables[:k]]
            sets = duplicate_sets(upto, line.bot)
            if not sets:
                assert line.value[k - 1] is None
                continue
            now = estimate(sets)
            assert line.value[k - 1] == pytest.approx(now.bb_per_100)
            assert (line.low[k - 1] is None) == (now.low is None)
            if now.low is not None:
                assert line.low[k - 1] == pytest.approx(now.low)
    ids, ratings = rating_history(records, names)
    assert len(ids) == len(records)
    last = plackett_luce_ratings(records, names)
    for line in ratings:
        assert line.value[-1] == pytest.approx(last[line.bot].mu)
        assert line.high[-1] - line.value[-1] == pytest.approx(1.96 * last[line.bot].sigma)
