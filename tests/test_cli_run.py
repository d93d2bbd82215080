"""``harness run`` and ``harness leaderboard`` through typer's test runner."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from harness.runner import run_tournament
from tests.test_runner_fakes import fake_config, fake_play

runner = CliRunner()


def test_run_config_error_exits_2_with_the_key_and_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[schedule]\ntable_size = 7\n[[bots]]\nname = "a"\ncommand = "x"\n')
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 2
    assert "[schedule] table_size" in result.output and str(path) in result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


def test_run_bad_override_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('[[bots]]\nname = "a"\ncommand = "x"\n[[bots]]\nname = "b"\ncommand = "x"\n')
    result = runner.invoke(app, ["run", str(path), "--hands", "0"])
    assert result.exit_code == 2 and "--hands" in result.output


def test_run_refuses_another_tournaments_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_tournament(fake_config(out, ["a", "b"], hands=3), play=fake_play, quiet=True)
    path = tmp_path / "other.toml"
    path.write_text('[[bots]]\nname = "x"\ncommand = "x"\n[[bots]]\nname = "y"\ncommand = "x"\n')
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
    table = [line.split() for line in lines if line.split()[:1] in (["1"], ["2"], ["3"])]
    assert [row[1] for row in table] == ["strong", "middle", "weak"]
    assert (out / "leaderboard.csv").read_text() == csv_before
    assert (out / "leaderboard.md").exists()


def test_leaderboard_of_a_non_tournament_directory_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["leaderboard", str(tmp_path)])
    assert result.exit_code == 2 and "no results file" in result.output
