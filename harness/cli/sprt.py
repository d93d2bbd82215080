"""``harness sprt``: is a new version better? Matches until the sequential test decides."""

from __future__ import annotations

import errno
import shlex
import sys
from pathlib import Path
from typing import Any

import typer

from harness.cli.boundary import EXIT_FAILED, UsageError, exit_code
from harness.cli.common import app, sandbox_isolation, sandbox_say
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
    out_of_bounds,
    sandbox_option,
    sandbox_settings,
    secret_seed_option,
    structure_option,
)
from harness.cli.voice import echo, say, stdout_gone, usage
from harness.errors import HarnessError


@app.command()
def sprt(
    bot: list[str] = bot_option("twice: the new version first, then the old one"),
    cwd: Path | None = bots_cwd_option(),
    bb0: float = typer.Option(0.0, "--bb0", help="H0: new is at most this many bb/100 better than old."),
    bb1: float = typer.Option(10.0, "--bb1", help="H1: new is at least this many bb/100 better than old."),
    alpha: float = typer.Option(0.05, "--alpha", help="Chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, "--beta", help="Chance of accepting H0 when H1 holds."),
    max_hands: int | None = typer.Option(None, "--max-hands", help="Stop as inconclusive after this many hands."),
    hands: int = typer.Option(100, "--hands", help="Hands per seat rotation; a block is twice this."),
    min_blocks: int = typer.Option(16, "--min-blocks", help="Blocks before the test may stop (at least 2)."),
    seed: str | None = secret_seed_option("Seed of the deals, decimal or hex (default: a secret one, kept in --out)."),
    out: Path | None = typer.Option(
        None, "--out", help="Directory of the test; the same command with the same --out continues it."
    ),
    structure: str = structure_option(),
    game_name: str = game_option(),
    openers: str | None = openers_option(),
    ante: int = ante_option(),
    min_bet: int | None = min_bet_option(),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips, reset every hand."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per decision in ms (at least 1)."),
    sandbox: str = sandbox_option(),
    json_out: bool = typer.Option(False, "--json", help="End with one JSON object line (result, llr, ...)."),
) -> None:
    """Is the new bot better? Play duplicate blocks until a sequential probability ratio test decides.

    After each block (both seatings on the same deals) prints the log-likelihood ratio, its bounds, the hands and
    bb/100 with its 95% interval. Exit status 0 when H1 or H0 is accepted, 3 when inconclusive at --max-hands,
    1 when a block means nothing for a bot (it failed to start, was put out, or raised an error in every
    decision: named in one line, the block not counted), 2 on a usage error, 130 on Ctrl-C, 143 on SIGTERM (the
    blocks played are kept: run the same command again to continue).
    """
    from harness.deals import seed_warning
    from harness.match.msgsize import message_problem
    from harness.match.outdir import default_out_dir
    from harness.match.referee import play_match
    from harness.specs import BotSpec, Limits, MatchResult, MatchSpec
    from harness.tournament.sprt import SETTINGS_FILE, SprtError, SprtSettings, hidden_out

    specs = bot_specs(bot, cwd)
    if len(specs) != 2:
        raise UsageError(f"sprt compares two bots: give --bot NEW=COMMAND --bot OLD=COMMAND, got {len(specs)}")
    problem = out_of_bounds(("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
                            ("--stack", "starting_stack", stack))
    if problem:
        raise UsageError(problem)
    if min_blocks < 2:
        raise UsageError(f"--min-blocks must be at least 2 (the variance needs two blocks), got {min_blocks}")
    if max_hands is not None and max_hands < 1:
        raise UsageError(f"--max-hands must be at least 1, got {max_hands}")
    problem = bots_problem(specs, sandbox)
    if problem:
        raise UsageError(problem)
    test_seed = _test_seed(seed, out)
    game = forced_bets_game(structure, ante, min_bet)
    definition = game_definition(game_name, game, 2, openers)
    problem = message_problem(game, 2, stack, "--stack", definition=definition)  # else the referee refuses it
    if problem:
        raise SprtError(problem)
    settings = SprtSettings(new=specs[0], old=specs[1], bb0=bb0, bb1=bb1, alpha=alpha, beta=beta, hands=hands,
                            seed=test_seed, starting_stack=stack, game=game, max_hands=max_hands,
                            limits=Limits(decision_ms=decision_ms), sandbox=sandbox,
                            min_blocks=min_blocks, definition=definition)  # checks the hypotheses and error rates
    decided = sandbox_isolation(sandbox_settings(sandbox))
    out_dir = out if out is not None else default_out_dir("sprt")
    box = hidden_out(sandbox_settings(sandbox), out_dir)
    again = shlex.join(["harness", "sprt", *sys.argv[2:]] + ([] if out is not None else ["--out", str(out_dir)]))

    def play(bots: list[BotSpec], spec: MatchSpec, limits_: Limits, match_dir: Path) -> MatchResult:
        if stdout_gone():  # `| head` has its lines: stop before the next match, quietly (as a closed pipe does)
            raise BrokenPipeError(errno.EPIPE, "stdout's reader is gone")
        return play_match(bots, spec, limits_, match_dir, sandbox=box)

    where = "--seed" if seed is not None else f"the seed in {out_dir / SETTINGS_FILE}"
    _play_test(settings, out_dir, play, decided, seed_warning(test_seed, where), json_out, again)


def _play_test(settings: Any, out_dir: Path, play: Any, decided: Any, warning: str | None, json_out: bool,
               again: str) -> None:
    """Everything checked: lock ``out_dir``, open the test, play it and say how it ended (raises typer.Exit).

    Args:
        settings: the :class:`~harness.tournament.sprt.SprtSettings`.
        play: the match function, as :func:`~harness.tournament.sprt.run_sprt` takes it.
        decided: the sandbox's plan (its warning is printed once the test is open).
        warning: a guessable seed's warning (:func:`harness.deals.seed_warning`), printed with the sandbox's.
        again: the command that continues the test.
    """
    import json
    from contextlib import ExitStack

    from harness.tournament.sprt import BlockFailed, SprtError, lock_test, open_test, run_sprt
    from harness.tournament.sprt import status as sprt_status

    new, old, bb0, bb1 = settings.new.name, settings.old.name, settings.bb0, settings.bb1
    with ExitStack() as held:  # the directory's lock, for the run's life: one run of a test at a time
        try:
            held.enter_context(lock_test(out_dir))
            open_test(out_dir, settings)  # another test in --out is a usage error before any bot starts
        except OSError as exc:
            raise usage("sprt", f"cannot write to {out_dir}: {exc.strerror or exc}") from None
        sandbox_say(decided, "sprt")
        if warning:
            say("sprt", f"warning: {warning}")
        say("sprt", f"test in {out_dir}/ (new = {new}, old = {old}; H0: <= {bb0:g} bb/100, H1: >= {bb1:g} "
                     f"bb/100, alpha {settings.alpha:g}, beta {settings.beta:g})")
        last = [sprt_status([], 0, bb0, bb1, settings.alpha, settings.beta)]  # for the --json line of a stop

        def report(st: Any) -> None:
            last[0] = st
            echo(st.line())

        def stop(message: str, code: int, result: str) -> typer.Exit:
            """One line on stderr and, with --json, the last line on stdout: what stopped the test, where it
            stands."""
            stopped = usage("sprt", message, code)  # said first: stdout may be a closed pipe
            if json_out:
                echo(json.dumps({**last[0].to_dict(), "result": result, "error": message}, allow_nan=False))
            return stopped

        try:
            final = run_sprt(settings, out_dir, play, report=report, locked=True)
        except BlockFailed as exc:
            raise stop(f"{exc}; the blocks before it are kept in {out_dir}/; to play it again: {again}", 1,
                       "error") from None
        except SprtError as exc:  # the test's own files, while it runs
            raise stop(str(exc), EXIT_FAILED, "error") from None
        except HarnessError as exc:  # e.g. a setting the referee refuses: the boundary's status, with the --json line
            raise stop(str(exc), exit_code(exc), "error") from None
        except BrokenPipeError:
            raise  # stdout's reader is gone (`| head`): the blocks are stored; the CLI ends quietly
        except OSError as exc:
            raise stop(f"cannot write to {out_dir}: {exc.strerror or exc}", 1, "error") from None
        except KeyboardInterrupt:
            raise stop(f"interrupted; bots stopped; to continue: {again}", 130, "interrupted") from None
        echo(_verdict(final, new, old, bb0, bb1, again))
        if json_out:
            echo(json.dumps(final.to_dict(), allow_nan=False))
        raise typer.Exit(3 if final.result == "inconclusive" else 0)

def _test_seed(seed: str | None, out: Path | None) -> int:
    """The test's seed: ``--seed``, else the one a test in ``--out`` was started with, else a new one.

    A damaged ``sprt.json`` is a usage error naming the file, whether or not ``--seed`` is given.
    """
    from harness.tournament.sprt import read_settings

    stored = read_settings(out) if out is not None and out.is_dir() else None  # SprtError: damaged (exit 2)
    if seed is None and stored is not None:
        return int(stored["seed"], 16)
    return match_seed(seed)


def _verdict(final: Any, new: str, old: str, bb0: float, bb1: float, again: str) -> str:
    """The test's last line: which hypothesis was accepted, or how to play on."""
    if final.result == "inconclusive":
        more = _with_max_hands(again, 2 * max(final.hands, 1))
        return f"inconclusive after {final.hands:,} hands (--max-hands); to play on, raise it: {more}"
    return str(final.verdict(new, old, bb0, bb1))


def _with_max_hands(command: str, hands: int) -> str:
    """``command`` (a shell line) with its ``--max-hands`` set to ``hands`` (given, replaced or added)."""
    words = shlex.split(command)
    for i, word in enumerate(words):
        if word == "--max-hands" and i + 1 < len(words):
            words[i + 1] = str(hands)
            return shlex.join(words)
        if word.startswith("--max-hands="):
            words[i] = f"--max-hands={hands}"
            return shlex.join(words)
    return shlex.join([*words, "--max-hands", str(hands)])
