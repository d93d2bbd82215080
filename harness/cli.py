"""Command-line interface: parses arguments, calls the library, prints.

Every command is a thin wrapper; the work lives in the modules it imports
(lazily, so that ``harness --help`` stays fast).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(
    help="Seven Card Draw bot harness: run tournaments, matches, and check bots.",
    no_args_is_help=True,
    add_completion=False,
)
bench_app = typer.Typer(help="Benchmarks that print speed figures.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


@app.command()
def run(
    config: Path = typer.Argument(..., help="Tournament TOML file, e.g. tournaments/league.toml."),
    out: Optional[Path] = typer.Option(None, "--out", help="Output directory (overrides [tournament] output)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", help="Parallel matches (default: number of cores)."),
    hands: Optional[int] = typer.Option(None, "--hands", help="Hands per match (overrides [schedule] hands)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Tournament seed (overrides [tournament] seed)."),
) -> None:
    """Run (or resume) a tournament and print its leaderboard."""
    typer.echo("harness run: the tournament runner is not built yet", err=True)
    raise typer.Exit(2)


@app.command()
def leaderboard(directory: Path = typer.Argument(..., help="A tournament output directory.")) -> None:
    """Recompute and print the leaderboard from stored results."""
    typer.echo("harness leaderboard: not built yet", err=True)
    raise typer.Exit(2)


@app.command()
def match(
    bot: List[str] = typer.Option(..., "--bot", help="NAME=COMMAND, once per seat (2-6)."),
    hands: int = typer.Option(100, "--hands", help="Hands to play."),
    seed: int = typer.Option(0, "--seed", help="Match seed (deals)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for hand history and bot logs."),
) -> None:
    """Play one match between bot commands and print the result table."""
    typer.echo("harness match: the referee is not built yet", err=True)
    raise typer.Exit(2)


@app.command()
def replay(file: Path = typer.Argument(..., help="A hand history file (JSON Lines, .jsonl or .jsonl.gz).")) -> None:
    """Re-run every hand of a hand history through the engine and report differences."""
    typer.echo("harness replay: not built yet", err=True)
    raise typer.Exit(2)


@app.command(
    "check-bot",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def check_bot(ctx: typer.Context) -> None:
    """Start a bot (harness check-bot -- CMD ARGS...), play scripted hands, report protocol violations."""
    typer.echo("harness check-bot: not built yet", err=True)
    raise typer.Exit(2)


@bench_app.command("engine")
def bench_engine(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Engine-only hands/s (heads-up, 6-handed) and seven-card evaluations/s."""
    typer.echo("not built yet", err=True)
    raise typer.Exit(2)


@bench_app.command("match")
def bench_match(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Hands/s of real matches over the protocol, referee memory, raw ZeroMQ round trip."""
    typer.echo("not built yet", err=True)
    raise typer.Exit(2)


@bench_app.command("league")
def bench_league(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Tournament hands/s with 1 and 2 jobs."""
    typer.echo("not built yet", err=True)
    raise typer.Exit(2)


if __name__ == "__main__":  # pragma: no cover
    app()
