"""``harness leaderboard`` and ``harness report``: the tables and the HTML report of an output directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from harness.cli.boundary import UsageError
from harness.cli.common import app
from harness.cli.voice import echo, say, usage


def _is_match_folder(directory: Path) -> bool:
    """A folder of ``harness match --out`` (a hand history at its top, no tournament manifest)."""
    from harness.tournament.results import MANIFEST_FILE

    top = any((directory / name).is_file() for name in ("hands.jsonl", "hands.jsonl.gz"))
    return directory.is_dir() and top and not (directory / MANIFEST_FILE).exists()


def _match_record(directory: Path) -> Any:
    """The one record of a match folder, from its ``result.json`` (a usage error when missing or damaged)."""
    import json

    from harness.match.verdict import RESULT_FILE
    from harness.tournament.results import MANIFEST_FILE, MatchRecord

    path = directory / RESULT_FILE
    tournament = directory.parent.parent
    if (tournament / MANIFEST_FILE).is_file():  # matches/<id> of a tournament: its result.json is the runner's
        raise UsageError(f"{directory} is one match of the tournament in {tournament}: run harness report "
                         f"{tournament} (its report has a page for every match)")
    try:
        record: MatchRecord = MatchRecord.from_match_folder(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise UsageError(f"{path}: missing; a match folder gets it from harness match (this version) when "
                         "the match ends") from None
    except KeyError as exc:  # a tournament's result.json (no big_blind), copied out of its tournament, or damaged
        raise UsageError(f"{path}: not a result of harness match (no field {exc.args[0]!r}); a match of a tournament "
                         "is reported with its tournament: harness report TOURNAMENT_DIR") from None
    except (OSError, ValueError, TypeError) as exc:  # the file's text, not our code: bad input
        raise UsageError(f"{path}: not a match result ({type(exc).__name__}: {exc})") from None
    return record


@app.command()
def leaderboard(directory: Path = typer.Argument(..., help="A tournament output directory.")) -> None:
    """Recompute and print the leaderboard from stored results (and rewrite leaderboard.md/.csv).

    The files are the same as those `harness run` wrote for the same directory.
    Exit status 0, or 2 when the directory or its files are missing or damaged.
    """
    from harness.tournament.leaderboard import write_leaderboard
    from harness.tournament.results import MARKER_FILE, ResultsError, is_ours

    if directory.is_dir() and not is_ours(directory):
        raise ResultsError(
            f"{directory}: not a tournament output directory of this harness (no {MARKER_FILE}); "
            "give the directory `harness run` wrote, e.g. results/league"
        )
    try:
        board, text = write_leaderboard(directory)
    except OSError as exc:
        why = exc.strerror or exc
        raise usage("leaderboard", f"cannot write the leaderboard files in {directory}: {why}") from None
    for notice in board.notices:
        say("leaderboard", f"notice: {notice}")
    echo(text)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="A tournament output directory, or one match's (harness match --out)."),
    all_hands: bool = typer.Option(False, "--all-hands", help="Keep every hand in the hand viewer (larger report)."),
    viewer_hands: int = typer.Option(12, "--viewer-hands", help="Hands per match kept in the hand viewer."),
) -> None:
    """Write DIR/report/ (an HTML report that opens offline) and DIR/reports/<bot>.md.

    A match's folder (its hands.jsonl, logs and result.json) gets the same report for its one match.
    Exit status 0; 1 when a match's hand history is damaged: the report is written all the same, with
    what could be read, and each damaged history is one line on stderr naming the file, the line and
    what is wrong; 2 when the directory or its results are missing or damaged (nothing written).
    """
    from harness.report.html import write_report

    if viewer_hands < 0:
        raise UsageError(f"--viewer-hands must be at least 0, got {viewer_hands}")
    extra: dict[str, Any] = {}
    if _is_match_folder(directory):
        record = _match_record(directory)
        extra = {"records": [record], "bots": record.result.bots, "match_dirs": {record.match_id: directory}}
    try:
        summary = write_report(directory, viewer_hands=None if all_hands else viewer_hands, **extra)
    except OSError as exc:
        raise usage("report", f"cannot write the report in {directory}: {exc.strerror or exc}") from None
    echo(f"report: {summary.path} ({summary.files} files, {summary.bytes / 1e6:.1f} MB, "
         f"{summary.seconds:.1f} s); per-bot reports: {directory / 'reports'}/<bot>.md")
    for problem in summary.damaged:  # written all the same; said, and the exit status says it too
        say("report", problem)
    if summary.damaged:
        raise typer.Exit(1)
