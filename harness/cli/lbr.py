"""``harness lbr``: how exploitable is a bot? Local best response against it, heads-up (needs '.[rl]')."""

from __future__ import annotations

from collections.abc import Sequence

import typer

from harness.cli.boundary import UsageError
from harness.cli.common import app
from harness.cli.options import (
    fixed_seed_option,
    game_definition,
    game_of,
    game_option,
    match_seed,
    out_of_bounds,
    structure_option,
)
from harness.cli.voice import echo, say, usage


@app.command()
def lbr(
    bot: str = typer.Option(
        ..., "--bot", metavar="MODULE_OR_CMD", help="The bot, in this process (it must answer what it would do with "
        "other cards): a house bot (solid, caller, raiser, random_bot), check_fold or always_call, a module "
        "defining one protocol.sdk.Bot subclass (bots.solid), MODULE:NAME (a Bot class or a policy), a .py file, "
        "or 'python -m MODULE'. A bot over the protocol in its own process is refused."
    ),
    hands: int = typer.Option(200, "--hands", help="Deals, each played in both seats (twice as many hands)."),
    seed: str = fixed_seed_option("Match seed of the deals, as harness match --seed reads it."),
    particles: int = typer.Option(200, "--particles", help="Holdings in the bot's range (more: slower, sharper)."),
    rollouts: int = typer.Option(2, "--rollouts", help="Showdown samples per holding before the draw."),
    structure: str = structure_option(),
    game_name: str = game_option(),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips, reset every hand."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object (bb_per_100, low, high, hands, ...)."),
) -> None:
    """A lower bound on a bot's exploitability: local best response (Lisy and Bowling 2017) plays it heads-up on
    duplicate deals and prints what it wins in bb/100 with a 95% interval (docs/researchers.md); Seven Card Draw
    or, with --game, Deuce-to-Seven Triple Draw.

    Prints its progress on stderr every tenth of the deals. The bot's code runs in this process, unsandboxed:
    run it on code you trust. Exit status 0, 2 on a usage
    error (a bot that cannot be loaded or asked, a bad option), 1 without the optional extra 'rl'.
    """
    problem = out_of_bounds(("--hands", "hands", hands), ("--stack", "starting_stack", stack))
    if problem:
        raise UsageError(problem)
    if hands < 2:
        raise UsageError(f"--hands must be at least 2 (an interval needs two duplicate deals), got {hands}")
    if not 2 <= particles <= 100_000:
        raise UsageError(f"--particles must be 2..100000, got {particles}")
    if not 1 <= rollouts <= 1000:
        raise UsageError(f"--rollouts must be 1..1000, got {rollouts}")
    import json

    match_seed(seed)  # refused here, before the bot is loaded
    game = game_of(structure)
    try:
        from harness.rl.best_response import LBR_GAMES, BotSpecError, load_bot
        from harness.rl.best_response import lbr as run_lbr
    except ImportError as exc:
        raise usage("lbr", f"needs the optional extra 'rl' ({exc.name} is missing): make rl, "
                     "or pip install --config-settings editable_mode=compat -e '.[rl]'", 1) from None
    if game_name not in LBR_GAMES:  # Five Card Draw's passed-out deals and openers are not in LBR's model
        raise UsageError(f"--game must be one of {', '.join(LBR_GAMES)} (the games LBR plays), got {game_name!r}")
    definition = game_definition(game_name, game, 2)
    try:
        factory = load_bot(bot)
    except BotSpecError as exc:
        raise UsageError(str(exc)) from None
    step = max(1, hands // 10)

    def progress(done: int, nets: Sequence[float]) -> None:
        if done % step == 0 and done < hands:
            say("lbr", f"{done}/{hands} deals, {100 * sum(nets) / (2 * done):+.1f} bb/100 so far")

    try:
        result = run_lbr(factory, hands=hands, seed=seed, particles=particles, rollouts=rollouts, game=game,
                         starting_stack=stack, name=bot, progress=progress, definition=definition)
    except BotSpecError as exc:
        raise UsageError(str(exc)) from None
    echo(json.dumps(result.as_dict()) if json_out else result.summary())
