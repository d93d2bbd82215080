"""``harness match``: one match between bots, its hand history and result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from harness.cli.boundary import UsageError
from harness.cli.common import app, play_one_match, print_result, sandbox_isolation, sandbox_say, write_result
from harness.cli.options import (
    ante_option,
    bot_option,
    bot_specs,
    bots_cwd_option,
    bots_problem,
    forced_bets_game,
    game_definition,
    game_option,
    match_seed,
    min_bet_option,
    openers_option,
    out_dir,
    out_of_bounds,
    pin_problem,
    sandbox_option,
    sandbox_settings,
    secret_seed_option,
    stack_problem,
    structure_option,
)
from harness.cli.voice import echo, say


@app.command()
def match(
    bot: list[str] = bot_option("once per seat (2-6)"),
    cwd: Path | None = bots_cwd_option(),
    hands: int = typer.Option(100, "--hands", help="Hands to play (at least 1)."),
    seed: str | None = secret_seed_option(),
    out: Path | None = typer.Option(
        None, "--out", help="New directory for hand history and bot logs (default: results/match-DATE-TIME)."
    ),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per decision in ms (at least 1)."),
    time_bank_ms: int = typer.Option(30000, "--time-bank-ms", help="Extra thinking time per bot for the match in ms."),
    max_faults: int = typer.Option(10, "--max-faults", help="Faults after which a bot is out (at least 1)."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips (at least 1)."),
    freezeout: bool = typer.Option(False, "--freezeout", help="Keep stacks across hands; busted bots leave."),
    pin: int | None = typer.Option(None, "--pin", help="Pin the referee and bots to this CPU (often faster on VMs)."),
    sandbox: str = sandbox_option(),
    structure: str = structure_option(),
    game_name: str = game_option(),
    openers: str | None = openers_option(),
    ante: int = ante_option(),
    min_bet: int | None = min_bet_option(),
    gzip: bool = typer.Option(False, "--gzip", help="Write hands.jsonl.gz, compressed as hands are played."),
    trace: Path | None = typer.Option(
        None, "--trace", metavar="FILE", help="Write every message to and from every bot to FILE (JSON Lines, "
        "escaped; docs/bot-authors.md)."
    ),
) -> None:
    """Play one match between bot commands and print the result table.

    Exit status 0 when the match was played, 1 if a bot failed to start, was put out or
    raised an error in every decision (its results mean nothing; one line says which),
    2 on a usage error (nothing is started or written), 130 on Ctrl-C and 143 on SIGTERM (the hands
    played kept, with their result.json marked interrupted and the seed).
    """


    from harness.deals import seed_warning
    from harness.engine.games import SEVEN_CARD_DRAW
    from harness.history.files import history_name
    from harness.match.referee import Limits, MatchSpec, StackMode, play_match
    from harness.match.trace import WireTrace

    # Every argument is checked before anything is started or written; the boundary says what is refused.
    specs = bot_specs(bot, cwd)
    game = forced_bets_game(structure, ante, min_bet)
    definition = game_definition(game_name, game, len(specs), openers)
    if not definition.min_seats <= len(specs) <= definition.max_seats:  # R1.2; R6.8: 8 in Five Card Draw (R7.1)
        rule = "R1.2" if definition == SEVEN_CARD_DRAW else f"R6.8, {definition.name}"
        raise UsageError(f"a match needs {definition.min_seats} to {definition.max_seats} bots ({rule}), got "
                         f"{len(specs)}; give --bot NAME=COMMAND once per seat")
    problem = out_of_bounds(
        ("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
        ("--time-bank-ms", "time_bank_ms", time_bank_ms), ("--max-faults", "max_faults", max_faults),
        ("--stack", "starting_stack", stack),
    )
    problem = problem or stack_problem(len(specs), stack, game, definition)
    if problem:
        raise UsageError(problem)
    seed_of_match = match_seed(seed)
    problem = pin_problem(pin) or bots_problem(specs, sandbox)
    if problem:
        raise UsageError(problem)
    box = sandbox_settings(sandbox)
    decided = sandbox_isolation(box)
    spec = MatchSpec(
        game=game, hands=hands, seed=seed_of_match, starting_stack=stack,
        stack_mode=StackMode.FREEZEOUT if freezeout else StackMode.RESET, compress=gzip, definition=definition,
    )
    limits = Limits(decision_ms=decision_ms, time_bank_ms=time_bank_ms, max_faults=max_faults)
    folder = out_dir(out, "match")
    try:
        wire = WireTrace.open(trace) if trace is not None else None
    except OSError as exc:
        raise UsageError(f"--trace {trace}: cannot write it: {exc.strerror or exc}") from None
    # Everything checked: what is said from here on comes with a match that is played.
    sandbox_say(decided, "match")
    if out is None:
        say("match", f"hand history and logs go to {folder}/")
    warning = seed_warning(seed_of_match, "--seed") if seed is not None else None
    if warning:
        say("match", f"warning: {warning}")

    history = folder / history_name(gzip)
    try:
        result = play_one_match("match", folder, history, lambda: play_match(
            specs, spec, limits, folder, cpus=None if pin is None else {pin}, sandbox=box, trace=wire),
            on_interrupt=lambda partial: _keep_interrupted(partial, spec, folder, history, revealed=seed is None))
    finally:
        if wire is not None:
            wire.close()
    if wire is not None and wire.error is not None:
        say("match", f"warning: the wire trace {trace} stopped early: {wire.error}")
    _report_match(result, spec, limits, folder, history, revealed=seed is None)


def _keep_interrupted(result: Any, spec: Any, out_dir: Path, history: Path, *, revealed: bool) -> None:
    """A match stopped by Ctrl-C: its ``result.json`` (marked interrupted, the hands played) and its seed if it
    was secret, so that ``harness report`` and ``harness replay --seed`` work on what was played."""
    from harness.deals import seed_hex

    write_result("match", out_dir, result, spec.game.unit)
    if revealed:
        echo(f"seed: {seed_hex(spec.seed)} (check the deals: harness replay {history} --seed {seed_hex(spec.seed)})")


def _report_match(result: Any, spec: Any, limits: Any, out_dir: Path, history: Path, *, revealed: bool) -> None:
    """What ``harness match`` prints after the match: the table, the seed if it was secret, the verdicts
    (exit status 1 when a bot's results mean nothing); writes ``result.json``."""
    from harness.deals import seed_hex
    from harness.match.verdict import verdicts

    unit = spec.game.unit
    print_result(result, unit)
    echo(f"{result.hands_played} hands in {result.duration_s:.1f} s; hand history: {history}")
    if revealed:  # the secret seed, revealed now that the match is over
        echo(f"seed: {seed_hex(spec.seed)} (check the deals: harness replay {history} "
              f"--seed {seed_hex(spec.seed)})")
    write_result("match", out_dir, result, unit)
    said = verdicts(result, out_dir, history, limits)
    for verdict in said:
        if verdict.line:
            say("match", verdict.line)
    if any(v.failed for v in said):
        raise typer.Exit(1)
