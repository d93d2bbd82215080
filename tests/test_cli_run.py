"""``harness run`` and ``harness leaderboard`` through typer's test runner."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.tournament.runner import run_tournament
from tests.runner_helpers import fake_config, fake_play

runner = CliRunner()


def test_run_config_error_exits_2_with_the_key_and_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[schedule]\ntable_size = 7\n[[bots]]\nname = "a"\ncommand = "true"\n')
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert "[schedule] table_size" in result.output and str(path) in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


def test_run_bad_override_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "b"\ncommand = "true"\n')
    result = runner.invoke(app, ["run", str(path), "--hands", "0"])
    assert result.exit_code == 2 and "--hands" in result.output


def test_run_and_plan_refuse_an_out_directory_with_files_of_their_own_untouched(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    (out / "matches" / "t000-r0-a-b").mkdir(parents=True)
    (out / "leaderboard.md").write_text("my own leaderboard\n")
    (out / "matches" / "t000-r0-a-b" / "notes.txt").write_text("keep me\n")
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    path = tmp_path / "ok.toml"
    path.write_text('[[bots]]\nname = "x"\ncommand = "true"\n[[bots]]\nname = "y"\ncommand = "true"\n')
    for command in ("run", "plan"):
        result = runner.invoke(app, [command, str(path), "--out", str(out), *(["--no-measure"] * (command == "plan"))])
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
        assert result.output.count("\n") == 1
        assert result.output.startswith(f"harness {command}: --out {out}: the directory holds")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_leaderboard_recomputes_from_stored_results(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["weak", "middle", "strong"], hands=10), play=fake_play, quiet=True)
    csv_before = (out / "leaderboard.csv").read_text()
    (out / "leaderboard.csv").unlink()
    (out / "leaderboard.md").unlink()
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("fake\n")
    lines = result.output.splitlines()
    table = [line.split() for line in lines if line.split()[:1] in (["1"], ["2"], ["3"])][:3]  # not the crosstable
    assert [row[1] for row in table] == ["strong", "middle", "weak"]
    assert (out / "leaderboard.csv").read_text() == csv_before
    assert (out / "leaderboard.md").exists()


def test_leaderboard_of_a_non_tournament_directory_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert result.exit_code == 2 and "not a tournament output directory of this harness" in result.output


def write_toml(tmp_path: Path, body: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


TWO_BOTS = '[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "b"\ncommand = "true"\n'


def test_help_of_every_command_shows_bracketed_words_as_written() -> None:
    import typer.main

    group = typer.main.get_command(app)
    commands = [([name], cmd) for name, cmd in group.commands.items()]  # type: ignore[attr-defined]
    while commands:
        path, cmd = commands.pop()
        if hasattr(cmd, "commands"):
            commands += [([*path, n], c) for n, c in cmd.commands.items()]
            continue
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "300"})
        assert result.exit_code == 0, path
        shown = "".join(result.output.split())  # ignore how the help is wrapped
        for param in cmd.params:
            if getattr(param, "help", None):
                assert "".join(param.help.split()) in shown, (path, param.help)
    assert "(overrides [tournament] output)" in runner.invoke(app, ["run", "--help"], env={"COLUMNS": "300"}).output


def test_a_bot_command_that_does_not_exist_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    path = write_toml(tmp_path, TWO_BOTS + '[[bots]]\nname = "bad"\ncommand = "nosuchcommand_xyz"\n')
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{path}: bots[2].command: bot 'bad': command 'nosuchcommand_xyz' not found on PATH" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("content", [b"# caf\xe9\n" + TWO_BOTS.encode(), bytes(range(256))])
def test_a_file_that_is_not_utf8_exits_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(content)
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2 and "not UTF-8 text" in result.output and isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("sub", ["", "sub"])
def test_out_that_is_a_file_exits_2(tmp_path: Path, sub: str) -> None:
    path = write_toml(tmp_path, TWO_BOTS, "base.toml")
    result = runner.invoke(app, ["run", str(path), "--out", str(path / sub if sub else path)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert f"{path} is a file, not a directory" in result.output


def test_an_output_directory_in_use_exits_2_naming_the_other_pid(tmp_path: Path) -> None:
    from harness.tournament.results import ResultsStore

    path = write_toml(tmp_path, TWO_BOTS)
    with ResultsStore(tmp_path / "out") as other:
        other.open()
        result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"out is in use by another harness run (pid {os.getpid()})" in result.output


def test_a_bot_that_never_starts_exits_3_and_fixing_it_replays_only_its_matches(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    broken = ["python", "-c", "import sys; sys.exit('cannot map segment')"]
    text = (f'[schedule]\nhands = 2\nduplicate = false\n[limits]\nstartup_ms = 5000\n'
            f'[[bots]]\nname = "caller"\ncommand = "python -m bots.caller"\ncwd = "{root}"\n'
            f'[[bots]]\nname = "broken"\ncommand = {json.dumps(broken)}\n')
    path = write_toml(tmp_path, text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--no-entry-check"])
    assert result.exit_code == 3, result.output
    assert "1/1 match recorded" in result.output and "(this run: 1 match, 2 hands," in result.output
    assert "harness run: warning: bot 'broken' failed to start in every match it played" in result.output
    assert "failed_start: exited before its hello (exit status 1)" in result.output
    assert "ends with: cannot map segment" in result.output
    assert "Not ranked" in result.output and "failed to start in 1 of 1 matches" in result.output
    # kept, but the command is part of the fingerprint: the fixed bot's match is played again
    assert len((out / "results.jsonl").read_text().splitlines()) == 1
    path.write_text(text.replace(json.dumps(broken), '"python -m bots.caller"\ncwd = "' + str(root) + '"'))
    again = runner.invoke(app, ["run", str(path), "--out", str(out), "--no-entry-check"])
    assert again.exit_code == 0, again.output
    assert "reused 0 matches, playing 1, dropped 1" in again.output and "Not ranked" not in again.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 2


def records_file(tmp_path: Path) -> tuple[Path, list[dict]]:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["a", "b", "c"], hands=3), play=fake_play, quiet=True)
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return out, lines


def test_leaderboard_names_a_damaged_manifest(tmp_path: Path) -> None:
    out, _ = records_file(tmp_path)
    (out / "tournament.json").write_text("{'name': 'x'}")
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 2 and f"{out / 'tournament.json'}: unreadable" in result.output


def test_leaderboard_refuses_nets_that_do_not_add_up(tmp_path: Path) -> None:
    out, lines = records_file(tmp_path)
    lines[1]["result"]["net"] = [1149, -149]
    (out / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 2
    expected = f"{out / 'results.jsonl'}, line 2: match {lines[1]['match_id']}: net [1149, -149] does not sum to zero"
    assert expected in result.output


def test_leaderboard_tells_what_it_left_out_and_never_counts_a_foreign_record(tmp_path: Path) -> None:
    out, lines = records_file(tmp_path)
    stray = json.loads(json.dumps(lines[0]))  # a copied line under an id the plan does not have
    stray["match_id"] = stray["result"]["match_id"] = "t000-r0-b-a"
    stray["result"]["bots"] = stray["result"]["bots"][::-1]
    text = "".join(json.dumps(line) + "\n" for line in [*lines, stray])
    (out / "results.jsonl").write_text(text + json.dumps(lines[0])[:25])
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 0, result.output
    assert "notice: " in result.output and "line 8: incomplete last line" in result.output
    assert "1 record not in the current plan of tournament.json" in result.output
    assert "not counted: t000-r0-b-a" in result.output
    assert "6 matches, 18 hands scored." in result.output
    clean = tmp_path / "clean"
    run_tournament(fake_config(clean, ["a", "b", "c"], hands=3), play=fake_play, quiet=True)
    assert (out / "leaderboard.csv").read_text() == (clean / "leaderboard.csv").read_text()


def test_leaderboard_of_a_missing_directory(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(tmp_path / "nosuchdir")])
    assert result.exit_code == 2 and "nosuchdir: no such directory" in result.output


def test_a_table_with_a_missing_rotation_is_not_scored(tmp_path: Path) -> None:
    # Three bots of equal strength: duplicate cancels the seat luck exactly, so each scores 0.00 -- also
    # when a run stopped after the first rotation of a table (that table is left out, not half counted).
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["p", "q", "r"], hands=7), play=fake_play, quiet=True)
    full = list(csv.DictReader((out / "leaderboard.csv").read_text().splitlines()))
    assert [row["bb_per_100"] for row in full] == ["0.0", "0.0", "0.0"]
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:-1]))  # the last rotation of a table is missing
    table = json.loads(lines[-1])["table"]
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader((out / "leaderboard.csv").read_text().splitlines()))
    assert [row["bb_per_100"] for row in rows] == ["0.0", "0.0", "0.0"]
    assert "fake (PARTIAL: 5 of 6 matches)\n" in result.output
    assert "4 matches, 28 hands scored. 1 table incomplete (not scored)." in result.output
    assert f"notice: 1 table with missing rotations not scored: {table} (1 of 2)" in result.output


def test_run_and_leaderboard_write_byte_identical_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["weak", "middle", "strong", "c"], hands=4), play=fake_play, quiet=True)
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:-1]))
    run_tournament(fake_config(out, ["weak", "middle", "strong", "c"], hands=4), play=fake_play, quiet=True)
    written = {name: (out / name).read_bytes() for name in ("leaderboard.md", "leaderboard.csv")}
    assert runner.invoke(app, ["leaderboard", str(out)]).exit_code == 0
    assert {name: (out / name).read_bytes() for name in written} == written


def test_an_interrupted_run_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.tournament.runner

    out = tmp_path / "out"
    done = run_tournament(fake_config(out, ["a", "b", "c"], hands=3), play=fake_play, quiet=True)
    partial = harness.tournament.runner.RunSummary(
        out_dir=out, name="league", bots=done.bots, matches_total=len(done.records) + 2, records=done.records,
        outcome=harness.tournament.runner.RunOutcome.INTERRUPTED, board_text="league (PARTIAL: ...)",
    )
    monkeypatch.setattr(harness.tournament.runner, "run_tournament", lambda cfg, **kwargs: partial)
    path = tmp_path / "ok.toml"
    path.write_text('[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "b"\ncommand = "true"\n')
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 130 and "interrupted: run the same command again to resume" in result.output


def test_plan_prints_counts_time_and_disk_and_what_a_rerun_would_reuse(tmp_path: Path) -> None:
    names = [f"bot{i:02d}" for i in range(24)]
    path = write_toml(tmp_path, "[schedule]\nhands = 100\n" + "".join(
        f'[[bots]]\nname = "{n}"\ncommand = "true"\n' for n in names))
    out = tmp_path / "out"
    result = runner.invoke(app, ["plan", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "plan: 24 bots, 276 tables, 552 matches, 55,200 hands (round-robin, 2 seats, duplicate)"
    assert lines[1] == f"output: {out} (new)" and not out.exists()  # nothing written
    assert lines[2].startswith("estimate: 552 matches to play, about ") and "(rates: measured now)" in lines[2]
    run_tournament(fake_config(out, names[:4], hands=100), play=fake_play, quiet=True)
    again = runner.invoke(app, ["plan", str(path), "--out", str(out), "--no-measure", "--seed", "1"])
    assert f"output: {out} (reused 12 matches, playing 540, dropped 0)" in again.output
    assert "estimate: 540 matches to play" in again.output


def test_a_plan_above_max_matches_is_refused_with_the_estimate_and_the_sampled_format(tmp_path: Path) -> None:
    body = "[schedule]\ntable_size = 6\n" + "".join(f'[[bots]]\nname = "b{i}"\ncommand = "true"\n' for i in range(24))
    path = write_toml(tmp_path, body)
    for command in ("plan", "run"):
        result = runner.invoke(app, [command, str(path), "--out", str(tmp_path / "out")])
        assert result.exit_code == 2 and result.output.count("\n") == 1
        assert result.output.startswith(f"harness {command}: {path}: [schedule] max_matches: the plan has "
                                        "807,576 matches (134,596 tables x 6 rotations, about ")
        assert 'use format = "sampled" (e.g. tables_per_bot = 10: 240 matches' in result.output
    assert not (tmp_path / "out").exists()
