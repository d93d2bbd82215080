"""The sampled format: balanced tables for 3-6 seats, seeded, repaired locally when bots come and go."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from math import ceil, floor
from pathlib import Path

import pytest

from harness.tournament.config import ConfigError, parse_config
from harness.tournament.design import (
    PAIR_SLACK,
    REPAIR_SLACK,
    DesignError,
    balance,
    build,
    check_parameters,
    repair,
    table_count,
)
from harness.tournament.runner import run_tournament
from harness.tournament.schedule import Sampled, build_schedule, default_tables_per_bot
from tests.runner_helpers import fake_config, fake_play

CLASS = [f"s{i:02d}" for i in range(10)]


def pair_counts(tables: list[tuple[str, ...]], bots: list[str]) -> list[int]:
    meet = Counter(frozenset(p) for t in tables for p in itertools.combinations(t, 2))
    return [meet[frozenset(p)] for p in itertools.combinations(bots, 2)]


def assert_balanced(tables: list[tuple[str, ...]], bots: list[str], slack: int = PAIR_SLACK) -> None:
    per_bot = Counter(b for t in tables for b in t)
    assert max(per_bot[b] for b in bots) - min(per_bot[b] for b in bots) <= 1
    pairs = pair_counts(tables, bots)
    lam = sum(pairs) / len(pairs)
    assert floor(lam) - slack <= min(pairs) and max(pairs) <= ceil(lam) + slack, (lam, min(pairs), max(pairs))
    assert balance(tables, bots).within_bounds(slack)


def test_the_class_of_ten_at_six_seats_is_balanced_in_tables_pairs_and_seats() -> None:
    strategy = Sampled(table_size=6, seed=7, tables_per_bot=6)
    matches = build_schedule(strategy, CLASS, seed=7)
    tables = {m.table: tuple(sorted(m.bots)) for m in matches}
    assert len(tables) == table_count(10, 6, 6) == 10 and len(matches) == 60
    assert_balanced(list(tables.values()), CLASS)
    per_bot = Counter(b for t in tables.values() for b in t)
    assert set(per_bot.values()) == {6}
    # every bot sits in every seat equally often through the duplicate rotations
    seats = Counter((name, seat) for m in matches for seat, name in enumerate(m.bots))
    assert set(seats.values()) == {6} and len(seats) == 10 * 6  # 6 tables each, every seat once per table
    for table in tables:
        rotations = [m for m in matches if m.table == table]
        assert sorted(m.rotation for m in rotations) == list(range(6)) and len({m.seed for m in rotations}) == 1
    # same seed, same plan; another seed, other tables
    assert build_schedule(Sampled(table_size=6, seed=7, tables_per_bot=6), CLASS[::-1], seed=7) == matches
    assert {m.table for m in build_schedule(Sampled(6, seed=8, tables_per_bot=6), CLASS, seed=8)} != set(tables)


@pytest.mark.parametrize(("bots", "seats", "per_bot"), [
    (7, 3, 3), (9, 3, 4), (12, 4, 4), (13, 4, 4), (16, 6, 3), (21, 6, 8), (24, 6, 10), (24, 3, 6), (30, 5, 7),
])
def test_the_stated_bound_holds(bots: int, seats: int, per_bot: int) -> None:
    names = [f"b{i}" for i in range(bots)]
    tables = build(names, seats, table_count(bots, seats, per_bot), seed=3)
    assert_balanced(tables, names)
    assert balance(tables, names).repeated_tables == 0


def test_an_exact_design_is_found_where_a_small_one_exists() -> None:
    fano = build([f"b{i}" for i in range(7)], 3, 7, seed=1)  # the Fano plane: every pair exactly once
    assert set(pair_counts(fano, [f"b{i}" for i in range(7)])) == {1}


def changed(old: list[tuple[str, ...]], new: list[tuple[str, ...]]) -> tuple[int, int]:
    before, after = Counter(map(tuple, old)), Counter(map(tuple, new))
    return sum((after - before).values()), sum((before - after).values())


def test_a_late_entry_changes_only_the_tables_it_sits_at() -> None:
    names = [f"b{i:02d}" for i in range(24)]
    tables = build(names, 6, table_count(24, 6, 10), seed=5)
    bigger = repair(tables, [*names, "late"], 6, table_count(25, 6, 10), seed=5)
    added, removed = changed(tables, bigger)
    assert added == sum("late" in t for t in bigger) == 10  # the minimum: each of its tables is new or changed
    assert removed == 8 and all("late" in t for t in bigger if t not in tables)
    assert_balanced(bigger, [*names, "late"], REPAIR_SLACK)
    # a bot that leaves (or fails its entry check) changes only its own tables
    fewer = [n for n in names if n != "b03"]
    smaller = repair(tables, fewer, 6, table_count(23, 6, 10), seed=5)
    added, removed = changed(tables, smaller)
    assert removed == sum("b03" in t for t in tables) == 10 and added <= 10
    assert_balanced(smaller, fewer, REPAIR_SLACK)


def test_parameters_no_design_can_meet_are_refused() -> None:
    assert check_parameters(10, 6, tables_per_bot=6) == 10
    with pytest.raises(DesignError, match=r"tables_per_bot = 200 cannot be met with 7 bots at 6 seats: a bot can "
                                          r"sit at only 6 different tables; expected 1 to 6"):
        check_parameters(7, 6, tables_per_bot=200)
    with pytest.raises(DesignError, match=r"tables = 1 cannot be met with 10 bots at 6 seats: expected 2"):
        check_parameters(10, 6, tables=1)
    with pytest.raises(DesignError, match="5 bots cannot fill a table of 6"):
        check_parameters(5, 6, tables_per_bot=1)
    assert default_tables_per_bot(24, 6) == 10 and default_tables_per_bot(7, 6) == 3


def sampled_file(tmp_path: Path, names: list[str], **schedule: object) -> Path:
    text = "[schedule]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in schedule.items())
    text += "".join(f'[[bots]]\nname = "{n}"\ncommand = "true"\n' for n in names)
    path = tmp_path / "sampled.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(("schedule", "key", "words"), [
    ({"format": "sampled", "table_size": 6, "tables_per_bot": 99}, "[schedule] tables_per_bot",
     "tables_per_bot = 99 cannot be met with 8 bots at 6 seats: a bot can sit at only 21 different tables"),
    ({"format": "sampled", "table_size": 6, "tables": 1}, "[schedule] tables", "expected 2 (every bot plays) to 28"),
    ({"format": "sampled", "table_size": 6, "tables": 3, "tables_per_bot": 2}, "[schedule] tables",
     "give tables_per_bot or tables, not both"),
    ({"format": "round-robin", "tables_per_bot": 2}, "[schedule] tables_per_bot", 'only used with format = "sampled"'),
    ({"format": "sampled", "table_size": 6, "max_matches": 10}, "[schedule] max_matches",
     "the plan has 24 matches (4 tables x 6 rotations, about"),
])
def test_bad_sampled_settings_are_one_line_errors(tmp_path: Path, schedule: dict, key: str, words: str) -> None:
    from typer.testing import CliRunner

    from harness.cli import app

    path = sampled_file(tmp_path, [f"b{i}" for i in range(8)], **schedule)
    with pytest.raises(ConfigError) as info:
        parse_config(__import__("tomllib").loads(path.read_text()), path)
    assert info.value.key == key and words in info.value.problem
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and f"{path}: {key}: " in result.output
    assert not (tmp_path / "out").exists()


def test_a_sampled_contest_plays_only_a_late_entrys_tables(tmp_path: Path) -> None:
    out = tmp_path / "out"
    options = {"table_size": 6, "hands": 3, "format": "sampled", "tables_per_bot": 6}
    first = run_tournament(fake_config(out, CLASS, **options), play=fake_play, quiet=True)
    assert first.complete and first.matches_run == 60
    before = (out / "results.jsonl").read_text().splitlines()
    late = run_tournament(fake_config(out, [*CLASS, "late"], **options), play=fake_play, quiet=True)
    tables_of_late = {r.table for r in late.records if "late" in r.result.bots}
    assert late.matches_run == 6 * len(tables_of_late)  # only the late entry's tables are played
    assert late.reuse.reused == len(late.records) - late.matches_run
    assert (out / "results.jsonl").read_text().splitlines()[: len(before)] == before
    assert late.complete
