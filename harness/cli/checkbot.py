"""``harness check-bot``: the entry check a tournament runs, on one bot, with its report."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli.boundary import UsageError
from harness.cli.common import app, sandbox_isolation, sandbox_say
from harness.cli.options import (
    ante_option,
    fixed_seed_option,
    game_definition,
    game_of,
    game_option,
    match_seed,
    min_bet_option,
    openers_option,
    out_of_bounds,
    sandbox_option,
    sandbox_settings,
    structure_option,
)
from harness.cli.voice import echo


@app.command(
    "check-bot",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def check_bot(
    ctx: typer.Context,
    hands: int = typer.Option(6, "--hands", help="Hands to play against the reference bots."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per reply in ms."),
    time_bank_ms: int | None = typer.Option(
        None, "--time-bank-ms", help="Time bank in ms (default: a tournament's, [limits] time_bank_ms; 0: none)."
    ),
    startup_ms: int = typer.Option(10000, "--startup-ms", help="Time from launch to a valid hello in ms."),
    memory_mb: int = typer.Option(
        1024, "--memory-mb", help="Memory of all the bot's processes together in MiB (0 = no limit)."
    ),
    max_processes: int = typer.Option(
        0, "--max-processes", help="Processes and threads of the bot together (0 = the default, 256)."
    ),
    cwd: str | None = typer.Option(None, "--cwd", help="The bot's working directory."),
    env: list[str] = typer.Option(
        [], "--env", help="NAME=VALUE for the bot's environment (repeatable); other shell variables are not passed."
    ),
    opponent: list[str] = typer.Option(
        ["caller", "raiser"], "--opponent",
        help="Opponent: a module of bots/ (caller, raiser, solid, random_bot) or NAME=COMMAND (repeatable).",
    ),
    structure: str = structure_option(),
    game_name: str = game_option(),
    openers: str | None = openers_option(),
    big_blind: int = typer.Option(10, "--big-blind", help="Big blind in chips (the small blind is half)."),
    ante: int = ante_option(),
    min_bet: int | None = min_bet_option(),
    cap: int = typer.Option(4, "--cap", help="Fixed-limit bets per round, 0 = no cap (R3.7)."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips, every hand."),
    seed: str = fixed_seed_option("Match seed (deals), decimal or hex; default 1, so that the check is the same "
                                  "every time."),
    out: Path | None = typer.Option(None, "--out", help="Keep the hand history and logs in this new directory."),
    sandbox: str = sandbox_option(help_text="Run the bots sandboxed: auto, required or off."),
) -> None:
    """Start a bot (harness check-bot [OPTIONS] -- CMD ARGS...), play a few hands, report what is wrong.

    Reports every protocol violation with its hand and a hint, and every traceback in the bot's
    stderr. Exit status 0 when the bot passes, 1 on any violation or traceback, 2 on a usage error.
    """
    from harness.engine import GameConfigError
    from harness.match.checkbot import check_bot as run_check

    extra = list(ctx.args)
    command = extra[1:] if extra[:1] == ["--"] else extra
    if not command:
        raise UsageError("give the bot's command after --, e.g. harness check-bot -- python mybot.py")
    problem = out_of_bounds(  # the game's options; check_bot checks the rest
        ("--big-blind", "big_blind", big_blind), ("--ante", "ante", ante), ("--min-bet", "min_bet", min_bet),
        ("--cap", "cap", cap),
    )
    if problem:
        raise UsageError(problem)
    deal_seed = match_seed(seed)
    if command[0].startswith("-") and extra[:1] != ["--"]:
        raise UsageError(f"no such option: {command[0]} (the bot's command goes after --)")
    variables = {}
    for item in env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--env {item!r} must be NAME=VALUE, e.g. --env SEED=3")
        variables[name] = value
    box = sandbox_settings(sandbox)
    decided = sandbox_isolation(box)
    try:  # from the options' text and numbers as given: GameConfigError names what is wrong
        if min_bet is None:
            game = game_of(structure, small_blind=big_blind // 2, big_blind=big_blind, ante=ante, cap=cap)
        else:
            game = game_of(structure, ante=ante, blinds=False, min_bet=min_bet, cap=cap)
    except GameConfigError as exc:
        raise UsageError(f"game options: {exc}") from None
    definition = game_definition(game_name, game, 1 + len(opponent), openers)
    try:
        report = run_check(
            command, cwd=cwd, env=variables, hands=hands, opponents=opponent, decision_ms=decision_ms,
            time_bank_ms=time_bank_ms, startup_ms=startup_ms, memory_mb=memory_mb, max_processes=max_processes,
            game=game, starting_stack=stack, seed=deal_seed, out_dir=out, sandbox=box,
            on_start=lambda: sandbox_say(decided, "check-bot"), definition=definition,
        )
    except OSError as exc:  # e.g. the disk is full: the check could not run, the bot is not judged
        raise UsageError(f"cannot write the hand history or logs: {exc.strerror or exc}") from None
    echo(report.render())
    raise typer.Exit(0 if report.ok else 1)
