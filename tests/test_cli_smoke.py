"""The CLI loads and lists its commands."""

from typer.testing import CliRunner

from harness.cli import app


def test_help_lists_commands() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("run", "leaderboard", "match", "replay", "check-bot", "bench"):
        assert name in result.output
