"""``harness play`` and ``harness watch``: a person at the table, and a running match followed live."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from harness.cli.common import (
    _bot_specs,
    _bots_and_sandbox_problem,
    _echo,
    _out_of_bounds,
    _sandbox_plan,
    _sandbox_say,
    _say,
    _usage,
    app,
)


@app.command()
def play(
    bot: list[str] = typer.Option(
        ..., "--bot", help="NAME=COMMAND, once per opponent (1-5); COMMAND is split like a shell does. "
        "NAME@DIR=COMMAND runs that bot in DIR."
    ),
    hands: int = typer.Option(20, "--hands", help="Hands to play (at least 1)."),
    seat: int = typer.Option(0, "--seat", help="Your seat, 0 to the number of bots (hand h has the button at seat "
                             "h mod players)."),
    seed: str | None = typer.Option(
        None, "--seed", help="Match seed (deals), decimal or hex; default: a secret one, printed after the match."
    ),
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
    cwd: Path | None = typer.Option(None, "--cwd", help="Working directory of every bot without its own @DIR."),
    sandbox: str = typer.Option("auto", "--sandbox", help="Isolate each bot: auto, required or off."),
    web: bool = typer.Option(False, "--web", help="Play in the browser: serve the table on 127.0.0.1 (URL printed)."),
    port: int = typer.Option(0, "--port", help="With --web: the port (default: a free one)."),
    pace_ms: int | None = typer.Option(
        None, "--pace-ms", help="Pause after each bot event so it can be followed (ms; default 250 on a terminal)."
    ),
) -> None:
    """Play a match yourself against bots, in the terminal (or the browser with --web).

    Commands: f fold, c check/call, b N bet to N, r N raise to N, a all-in; in the draw d 2 5 7 (positions)
    or d 7h Kc (cards); an empty line checks if free, else calls, and stands pat in the draw; ? help.
    Works with stdin piped (plain text). Exit status 0, 2 on a usage error, 130 on Ctrl-C.
    """
    import json

    from tabulate import tabulate

    from harness.deals import new_seed, parse_seed, seed_hex
    from harness.engine import GameConfig, GameConfigError
    from harness.history.files import history_name
    from harness.match.human import HumanLink, HumanSpec
    from harness.match.outdir import OutDirError, default_out_dir, prepare_out_dir
    from harness.match.referee import Limits, MatchSpec, StackMode
    from harness.match.sandbox import SandboxError
    from harness.match.verdict import RESULT_FILE
    from harness.play.session import play_with_human
    from harness.specs import BOT_NAME, SandboxMode, SandboxSettings

    def usage(message: str) -> typer.Exit:
        return _usage("play", message)

    specs = _bot_specs(bot, cwd, usage)
    if not 1 <= len(specs) <= 5:
        raise usage(f"you play 1 to 5 bots (a table seats 2 to 6, R1.2), got {len(specs)}")
    if not BOT_NAME.match(name):
        raise usage(f"--name {name!r}: a name is 1-32 letters, digits, '_', '.' or '-', starting with a letter/digit")
    if any(s.name == name for s in specs):
        raise usage(f"--name {name!r} is also a bot's name; pick another")
    if not 0 <= seat <= len(specs):
        raise usage(f"--seat {seat}: with {len(specs)} bot(s) the seats are 0 to {len(specs)}")
    problem = _out_of_bounds(
        ("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
        ("--stack", "starting_stack", stack),
        ("--idle-ms", "decision_ms", idle_ms), ("--think-ms", "decision_ms", think_ms),
    )
    if problem is None and not 0 <= port <= 65535:
        problem = f"--port must be from 0 to 65535, got {port}"
    if problem is None and pace_ms is not None and not 0 <= pace_ms <= 10_000:
        problem = f"--pace-ms must be from 0 to 10000, got {pace_ms}"
    if problem is None:
        from harness.match.msgsize import message_problem

        problem = message_problem(GameConfig(), len(specs) + 1, stack, "--stack")
    if problem is None:
        problem = _bots_and_sandbox_problem(specs, sandbox)
    if problem:
        raise usage(problem)
    try:
        match_seed = new_seed() if seed is None else parse_seed(seed)
    except ValueError as exc:
        raise usage(f"--seed: {exc}") from None
    box = SandboxSettings(mode=SandboxMode(sandbox))
    game = GameConfig()
    try:
        decided = _sandbox_plan(box)
        spec = MatchSpec(game=game, hands=hands, seed=match_seed, starting_stack=stack, match_id="play",
                         stack_mode=StackMode.FREEZEOUT if freezeout else StackMode.RESET)
        limits = Limits(decision_ms=decision_ms)
        human = HumanSpec(name, HumanLink(), decision_ms=think_ms, idle_ms=idle_ms)
    except (SandboxError, ValueError, GameConfigError) as exc:
        raise usage(str(exc)) from None
    try:
        out_dir = prepare_out_dir(out) if out is not None else default_out_dir("play")
    except OutDirError as exc:
        raise usage(str(exc)) from None
    if web:
        from harness.play.web import WebTable

        try:
            interface: Any = WebTable(port=port)
        except OSError as exc:
            raise usage(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}") from None
        _say("play", f"open {interface.url} in your browser to play (Ctrl-C stops the match)")
    else:
        from harness.play.terminal import TerminalTable

        interface = TerminalTable(pace_ms=pace_ms)
    _sandbox_say(decided, "play")
    history = out_dir / history_name(False)
    try:
        result = play_with_human(specs, human, seat, spec, limits, out_dir, interface, sandbox=box)
    except (ValueError, GameConfigError) as exc:
        raise usage(str(exc)) from None
    except OSError as exc:
        raise _usage("play", f"cannot write to {out_dir}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt:
        raise _usage("play", f"interrupted; bots stopped; hands so far in {history}", 130) from None
    finally:
        close = getattr(interface, "close", None)
        if close is not None:
            close()
    rows = []
    for k, player in enumerate(result.bots):
        faults = ", ".join(f"{f} {v}" for f, v in sorted(result.faults[k].items())) or "-"
        bb100 = result.net[k] / game.unit / result.hands_played * 100 if result.hands_played else 0.0
        who = f"{player} (you)" if k == seat and player != "you" else player
        rows.append([who, k, result.net[k], f"{bb100:+.1f}", faults, result.status[k]])
    _echo(tabulate(rows, headers=["player", "seat", "net chips", "bb/100", "faults", "status"],
                   colalign=("left", "right", "right", "right", "left", "left")))
    _echo(f"{result.hands_played} hands in {result.duration_s:.1f} s; hand history: {history} "
          f"(see it in the report's hand viewer: harness report {out_dir})")
    if seed is None:
        _echo(f"seed: {seed_hex(match_seed)}")
    try:  # for harness report DIR
        record = {**result.to_dict(), "big_blind": game.unit}
        (out_dir / RESULT_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        _say("play", f"warning: cannot write {out_dir / RESULT_FILE}: {exc.strerror or exc}")


@app.command()
def watch(
    directory: Path = typer.Argument(..., help="A match folder (harness match/play --out) or a tournament's output."),
    port: int = typer.Option(0, "--port", help="Port on 127.0.0.1 (default: a free one)."),
    present: bool = typer.Option(False, "--present", help="Open in the presenter view: full screen, large, "
                                 "standings between matches, advancing by itself."),
) -> None:
    """Follow a running (or finished) match or tournament in the browser; any number of browsers may watch.

    Hands appear as they end (a tournament's once its table is revealed); hole cards are shown only at the
    end of each hand. Serves until Ctrl-C. Exit status 0, 2 on a usage error.
    """
    from harness.play.watch import Follower, WatchServer

    if not 0 <= port <= 65535:
        raise _usage("watch", f"--port must be from 0 to 65535, got {port}")
    try:
        follower = Follower(directory)
    except ValueError as exc:
        raise _usage("watch", str(exc)) from None
    try:
        server = WatchServer(follower, port=port, present=present)
    except OSError as exc:
        raise _usage("watch", f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}") from None
    _say("watch", f"open {server.url} in your browsers to watch {directory} (Ctrl-C stops)")
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
