"""``harness play`` and ``harness watch``: a person at the table, and a running match followed live."""

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
    sandbox_option,
    sandbox_settings,
    secret_seed_option,
    stack_problem,
    structure_option,
)
from harness.cli.voice import echo, say, usage


@app.command()
def play(
    bot: list[str] = bot_option("once per opponent (1-5)"),
    hands: int = typer.Option(20, "--hands", help="Hands to play (at least 1)."),
    seat: int = typer.Option(0, "--seat", help="Your seat, 0 to the number of bots (hand h has the button at seat "
                             "h mod players)."),
    seed: str | None = secret_seed_option(),
    out: Path | None = typer.Option(
        None, "--out", help="New directory for the hand history and logs (default: results/play-DATE-TIME)."
    ),
    name: str = typer.Option("you", "--name", help="Your name at the table and in the hand history."),
    idle_ms: int = typer.Option(
        600_000, "--idle-ms", help="Your idle limit in ms: no answer this long and you check/fold/stand pat."
    ),
    think_ms: int | None = typer.Option(
        None, "--think-ms", help="Your time per decision in ms (default: no limit, only the idle limit)."
    ),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="The bots' time per decision in ms."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips (at least 1)."),
    freezeout: bool = typer.Option(False, "--freezeout", help="Keep stacks across hands; busted players leave."),
    cwd: Path | None = bots_cwd_option("Working directory of every bot without its own @DIR."),
    sandbox: str = sandbox_option(),
    structure: str = structure_option(),
    game_name: str = game_option(),
    openers: str | None = openers_option(),
    ante: int = ante_option(),
    min_bet: int | None = min_bet_option(),
    web: bool = typer.Option(False, "--web", help="Play in the browser: serve the table on 127.0.0.1 (URL printed)."),
    port: int = typer.Option(0, "--port", help="With --web: the port (default: a free one)."),
    pace_ms: int | None = typer.Option(
        None, "--pace-ms", help="Pause after each bot event so it can be followed (ms; default 250 on a terminal)."
    ),
    trace: Path | None = typer.Option(
        None, "--trace", metavar="FILE", help="Write every message to and from every seat to FILE (JSON Lines)."
    ),
) -> None:
    """Play a match yourself against bots, in the terminal (or the browser with --web).

    Commands: f fold, c check/call, b N bet to N, r N raise to N, a all-in; in the draw d 2 5 7 (positions)
    or d 7h Kc (cards); an empty line checks if free, else calls, and stands pat in the draw; ? help.
    Works with stdin piped (plain text). Exit status 0, 2 on a usage error, 130 on Ctrl-C, 143 on SIGTERM.
    """


    from harness.deals import seed_hex
    from harness.history.files import history_name
    from harness.match.human import HumanLink, HumanSpec
    from harness.match.referee import Limits, MatchSpec, StackMode
    from harness.match.trace import WireTrace
    from harness.play.session import play_with_human

    specs = bot_specs(bot, cwd)
    game = forced_bets_game(structure, ante, min_bet)
    definition = game_definition(game_name, game, len(specs) + 1, openers)
    problem = _seat_problem(specs, name, seat, definition) or out_of_bounds(
        ("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
        ("--stack", "starting_stack", stack),
        ("--idle-ms", "decision_ms", idle_ms), ("--think-ms", "decision_ms", think_ms),
    )
    if problem is None and not 0 <= port <= 65535:
        problem = f"--port must be from 0 to 65535, got {port}"
    if problem is None and pace_ms is not None and not 0 <= pace_ms <= 10_000:
        problem = f"--pace-ms must be from 0 to 10000, got {pace_ms}"
    problem = problem or stack_problem(len(specs) + 1, stack, game, definition) or bots_problem(specs, sandbox)
    if problem:
        raise UsageError(problem)
    seed_of_match = match_seed(seed)
    box = sandbox_settings(sandbox)
    decided = sandbox_isolation(box)
    spec = MatchSpec(game=game, hands=hands, seed=seed_of_match, starting_stack=stack, match_id="play",
                     stack_mode=StackMode.FREEZEOUT if freezeout else StackMode.RESET, definition=definition)
    limits = Limits(decision_ms=decision_ms)
    human = HumanSpec(name, HumanLink(), decision_ms=think_ms, idle_ms=idle_ms)
    folder = out_dir(out, "play")
    try:
        wire = WireTrace.open(trace) if trace is not None else None
    except OSError as exc:
        raise UsageError(f"--trace {trace}: cannot write it: {exc.strerror or exc}") from None
    interface = _interface(web, port, pace_ms)
    sandbox_say(decided, "play")
    history = folder / history_name(False)
    try:
        result = play_one_match("play", folder, history, lambda: play_with_human(
            specs, human, seat, spec, limits, folder, interface, sandbox=box, trace=wire))
    finally:
        close = getattr(interface, "close", None)
        if close is not None:
            close()
        if wire is not None:
            wire.close()
    if wire is not None and wire.error is not None:
        say("play", f"warning: the wire trace {trace} stopped early: {wire.error}")
    print_result(result, game.unit, first="player", you=seat)
    echo(f"{result.hands_played} hands in {result.duration_s:.1f} s; hand history: {history} "
         f"(see it in the report's hand viewer: harness report {folder})")
    if seed is None:
        echo(f"seed: {seed_hex(seed_of_match)}")
    write_result("play", folder, result, game.unit)


def _seat_problem(specs: list[Any], name: str, seat: int, definition: Any) -> str | None:
    """Why the person cannot sit at this table of ``definition``'s game (bots, ``--name``, ``--seat``), or None."""
    from harness.engine.config import seat_count_problem
    from harness.specs import BOT_NAME, BOT_NAME_RULE

    problem = seat_count_problem(len(specs) + 1, definition)  # R1.2; R6.8: 8 seats in Five Card Draw (R7.1)
    if not specs or problem:
        return f"you play 1 to {definition.max_seats - 1} bots ({problem or 'R1.2'})"
    if not BOT_NAME.match(name):
        return f"--name {name!r}: a name is {BOT_NAME_RULE}"
    if any(s.name == name for s in specs):
        return f"--name {name!r} is also a bot's name; pick another"
    if not 0 <= seat <= len(specs):
        return f"--seat {seat}: with {len(specs)} bot(s) the seats are 0 to {len(specs)}"
    return None


def _interface(web: bool, port: int, pace_ms: int | None) -> Any:
    """The person's side of the table: the browser page (``--web``, its URL said) or the terminal."""
    if web:
        from harness.play.web import WebTable

        try:
            table = WebTable(port=port)
        except OSError as exc:
            raise UsageError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}") from None
        say("play", f"open {table.url} in your browser to play (Ctrl-C stops the match)")
        return table
    from harness.play.terminal import TerminalTable

    return TerminalTable(pace_ms=pace_ms)


@app.command()
def watch(
    directory: Path = typer.Argument(..., help="A match folder (harness match/play --out) or a tournament's output."),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (default: a free one)."),
    present: bool = typer.Option(False, "--present", help="Open in the presenter view: full screen, large, "
                                 "standings between matches, advancing by itself."),
) -> None:
    """Follow a running (or finished) match or tournament in the browser; any number of browsers may watch.

    Hands appear as they end (a tournament's once its table is revealed); hole cards are shown only at the
    end of each hand. A damaged line of a hand history (any but the last line, still being written) is said
    once, on stderr and on the page, naming the file, the line and what is wrong; the hands after it are
    shown when they can be read. Serves until Ctrl-C (exit status 130) or SIGTERM (143); 2 on a usage error.
    """
    if not 0 <= port <= 65535:
        raise usage("watch", f"--port must be from 0 to 65535, got {port}")
    if not directory.is_dir():  # before the web server's imports: a usage error stays fast
        raise usage("watch", f"{directory} is not a directory")
    from harness.play.watch import Follower, WatchServer

    follower = Follower(directory, notify=lambda notice: say("watch", f"notice: {notice}"))
    try:
        server = WatchServer(follower, port=port, present=present)
    except OSError as exc:
        raise usage("watch", f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}") from None
    say("watch", f"open {server.url} in your browsers to watch {directory} (Ctrl-C stops)")
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
