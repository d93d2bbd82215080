"""What every command of the ``harness`` CLI shares: the typer app and the steps of a match's commands.

Its neighbours hold the rest, one job each: :mod:`harness.cli.voice` what is written (stdout, and the one
stderr style ``harness COMMAND: message``), :mod:`harness.cli.boundary` the one error boundary (error classes
to exit statuses; a usage error is one line, exit status 2), :mod:`harness.cli.options` the options several
commands share and their conversion.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from harness.cli.boundary import HarnessGroup
from harness.cli.voice import echo, say, usage

if TYPE_CHECKING:  # for the annotations only: the commands import these lazily, to keep `harness --help` fast
    from harness.host.sandbox import Isolation
    from harness.specs import SandboxSettings
    from harness.tournament.config import TournamentConfig

__all__ = ["app", "bench_app", "play_one_match", "print_figures", "print_result", "sandbox_isolation", "sandbox_say",
           "tournament_config", "write_result"]


def show_version(value: bool) -> None:
    """``--version``: the version from :data:`harness.__version__` (the package's one home of it; no metadata
    lookup, which costs a scan of every installed distribution)."""
    if value:
        from harness import __version__
        from protocol.version import PROTOCOL_VERSION

        echo(f"harness {__version__} (bot protocol version {PROTOCOL_VERSION})")
        raise typer.Exit(0)


# rich_markup_mode=None: plain help text, so "[tournament] output" in a help string is
# printed as written instead of being swallowed as rich markup.
app = typer.Typer(
    cls=HarnessGroup,
    help="Seven Card Draw bot harness: run tournaments, matches, and check bots.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True, callback=show_version
    ),
) -> None:
    """Seven Card Draw bot harness: run tournaments, matches, and check bots."""


bench_app = typer.Typer(
    cls=HarnessGroup,
    help="Benchmarks that print speed figures (one table; --json: one JSON object).",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(bench_app, name="bench")


def tournament_config(config: Path, out: Path | None, jobs: int | None, hands: int | None, seed: str | None,
                      pin: bool | None, sandbox: str | None = None,
                      cluster: str | None = None) -> TournamentConfig:
    """The tournament file with the command's options over it (``harness run``, ``harness plan``).

    Raises:
        harness.tournament.config.ConfigError: the file or an option is wrong (exit status 2).
    """
    from harness.tournament.config import load_config, with_overrides

    return with_overrides(load_config(config), out=out, jobs=jobs, hands=hands, seed=seed, pin=pin, sandbox=sandbox,
                          cluster=cluster)


def sandbox_isolation(settings: SandboxSettings) -> Isolation:
    """Decide the sandbox of a command's bots, printing nothing (see :func:`sandbox_say`).

    Called while the options are checked, so that mode "required" on a machine
    without the sandbox is a usage error before anything is started or written.

    Raises:
        harness.host.sandbox.SandboxError: mode "required" and the sandbox cannot run here.
    """
    from harness.host.sandbox import decide_isolation

    return decide_isolation(settings)


def sandbox_say(decided: Isolation, command: str) -> None:
    """Print the sandbox's WARNING when bots are not isolated (a notice when it is off), on stderr.

    Called once every option and file has been checked, just before the bots
    start: a usage error stays one line (README's front), and the warning comes with
    every run that really starts bots.
    """
    if decided.warning:
        say(command, f"WARNING: {decided.warning}")
    elif not decided.active:  # mode "off": chosen, so one quiet line
        say(command, "notice: the sandbox is off ([sandbox] mode / --sandbox): bots run unisolated, as your user")


def print_figures(figures: dict[str, Any], json_out: bool, targets: dict[str, str]) -> None:
    """The one output of the bench commands: a table (figure, value, target), or one JSON object."""
    import json

    from harness.bench import render

    echo(json.dumps(figures) if json_out else render(figures, targets))


def print_result(result: Any, unit: int, *, first: str = "bot", you: int | None = None) -> None:
    """The result table of one match (a :class:`harness.specs.MatchResult`): net chips, bb/100 (``unit``:
    the big blind in chips), faults and status per seat; ``you`` marks the person's seat."""
    from tabulate import tabulate

    from harness.tournament.stats import bb_per_100

    rows = []
    for seat, name in enumerate(result.bots):
        faults = ", ".join(f"{k} {v}" for k, v in sorted(result.faults[seat].items())) or "-"
        bb100 = bb_per_100(result.net[seat], result.hands_played, unit)
        who = f"{name} (you)" if seat == you and name != "you" else name
        rows.append([who, seat, result.net[seat], f"{bb100:+.1f}", faults, result.status[seat]])
    echo(tabulate(rows, headers=[first, "seat", "net chips", "bb/100", "faults", "status"],
                  colalign=("left", "right", "right", "right", "left", "left")))


def write_result(command: str, out_dir: Path, result: Any, unit: int) -> None:
    """``result.json`` of a match directory (what ``harness report DIR`` reads); a failure is a warning."""
    import json

    from harness.match.verdict import RESULT_FILE
    from harness.tournament.results import MatchRecord

    try:
        record = MatchRecord(table=result.match_id, rotation=0, unit=unit, result=result).to_match_folder()
        (out_dir / RESULT_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        say(command, f"warning: cannot write {out_dir / RESULT_FILE}: {exc.strerror or exc}")


def play_one_match(command: str, out_dir: Path, history: Path, play: Callable[[], Any],
                   on_interrupt: Callable[[Any], None] | None = None) -> Any:
    """Run ``play()`` (one match, its result returned) with what only the command knows how to say:
    an output directory it cannot write (exit status 1), Ctrl-C (130, every bot stopped, the hands so far
    kept in ``history``; ``on_interrupt`` gets their result, marked interrupted:
    :class:`harness.match.referee.MatchInterrupted`). Settings the referee refuses are
    :class:`harness.specs.SettingsError` errors, said by the boundary (exit status 2)."""
    try:
        return play()
    except OSError as exc:
        raise usage(command, f"cannot write to {out_dir}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt as exc:
        result = getattr(exc, "result", None)
        if result is not None and on_interrupt is not None:
            on_interrupt(result)
        raise usage(command, f"interrupted; bots stopped; hands so far in {history}", 130) from None
