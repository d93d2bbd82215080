"""``harness run`` and ``harness leaderboard`` through typer's test runner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.tournament.runner import run_tournament
from tests.test_runner_fakes import fake_config, fake_play

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


def test_run_refuses_another_tournaments_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["a", "b"], hands=3), play=fake_play, quiet=True)
    path = tmp_path / "other.toml"
    path.write_text('[[bots]]\nname = "x"\ncommand = "true"\n[[bots]]\nname = "y"\ncommand = "true"\n')
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 2 and "different tournament" in result.output


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
    assert result.exit_code == 2 and "no results file" in result.output


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
        other.open({"fingerprint": "x"})
        result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"out is in use by another harness run (pid {os.getpid()})" in result.output


def test_a_bot_that_never_starts_exits_3_and_fixing_it_needs_a_new_out(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    broken = ["python", "-c", "import sys; sys.exit('cannot map segment')"]
    text = (f'[schedule]\nhands = 2\nduplicate = false\n[limits]\nstartup_ms = 5000\n'
            f'[[bots]]\nname = "caller"\ncommand = "python -m bots.caller"\ncwd = "{root}"\n'
            f'[[bots]]\nname = "broken"\ncommand = {json.dumps(broken)}\n')
    path = write_toml(tmp_path, text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 3, result.output
    assert "1/1 match recorded" in result.output and "(this run: 1 match, 2 hands," in result.output
    assert "WARNING: bot 'broken' failed to start in every match it played" in result.output
    assert "failed_start: exited before its hello (exit status 1)" in result.output
    assert "ends with: cannot map segment" in result.output
    # kept, but the command is part of the fingerprint
    assert len((out / "results.jsonl").read_text().splitlines()) == 1
    path.write_text(text.replace(json.dumps(broken), '"python -m bots.caller"\ncwd = "' + str(root) + '"'))
    again = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert again.exit_code == 2 and "bot broken (command, cwd or env) changed since it was started" in again.output


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


def test_leaderboard_tells_what_it_left_out(tmp_path: Path) -> None:
    out, lines = records_file(tmp_path)
    stray = json.loads(json.dumps(lines[0]))
    stray["match_id"] = stray["result"]["match_id"] = "t099-r0-a-zz"
    stray["result"]["bots"] = ["a", "zz"]
    text = "".join(json.dumps(line) + "\n" for line in [*lines, stray])
    (out / "results.jsonl").write_text(text + json.dumps(lines[0])[:25])
    result = runner.invoke(app, ["leaderboard", str(out)])
    assert result.exit_code == 0, result.output
    assert "notice: " in result.output and "line 8: incomplete last line" in result.output
    expected = "1 match with bots not in this tournament (zz; tournament.json lists a, b, c) left out: t099-r0-a-zz"
    assert expected in result.output
    assert "6 matches, 18 hands." in result.output


def test_leaderboard_of_a_missing_directory(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(tmp_path / "nosuchdir")])
    assert result.exit_code == 2 and "nosuchdir: no such directory" in result.output


def test_an_interrupted_run_labels_its_leaderboard_partial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.tournament.runner

    out = tmp_path / "out"
    done = run_tournament(fake_config(out, ["a", "b", "c"], hands=3), play=fake_play, quiet=True)
    n = len(done.records)
    assert n == done.matches_total
    partial = harness.tournament.runner.RunSummary(
        out_dir=out, name="league", bots=done.bots, matches_total=n + 2, records=done.records, interrupted=True
    )
    monkeypatch.setattr(harness.tournament.runner, "run_tournament", lambda cfg, **kw: partial)
    path = tmp_path / "ok.toml"
    path.write_text('[[bots]]\nname = "a"\ncommand = "true"\n[[bots]]\nname = "b"\ncommand = "true"\n')
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 130 and f"PARTIAL: {n} of {n + 2} matches" in result.output
    monkeypatch.setattr(harness.tournament.runner, "run_tournament", lambda cfg, **kw: done)
    result = runner.invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 0 and "PARTIAL" not in result.output
