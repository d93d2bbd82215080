"""Command-line interface: parses arguments, calls the library, prints.

Every command is a thin wrapper; the work lives in the modules it imports
(lazily, so that ``harness --help`` stays fast).

One style for everything written to stderr: ``harness COMMAND: message``
(``harness COMMAND: warning: ...``, ``harness COMMAND: notice: ...``), one
line each, through :func:`_say`; a usage error is one such line (exit
status 2); output cut short by a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click: its own copy raises these
    from typer._click import exceptions as _clickx
except ImportError:  # pragma: no cover - typer on the real click
    from click import exceptions as _clickx  # type: ignore[no-redef]


class _HarnessGroup(TyperGroup):
    """The root command: one-line usage errors, and a quiet end when stdout's reader goes away."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, "harness", complete_var, standalone_mode=False, **extra)
        except _clickx.NoArgsIsHelpError as exc:  # `harness` alone: the help, as asked for
            exc.show()
            code = exc.exit_code
        except _clickx.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "harness"
            text = " ".join(exc.format_message().split()).rstrip(".")
            _say(where.removeprefix("harness").strip() or None, f"{text[:1].lower()}{text[1:]}; see {where} -h")
            code = exc.exit_code
        except _clickx.ClickException as exc:
            _say(None, " ".join(exc.format_message().split()))
            code = exc.exit_code
        except typer.Abort:
            code = 130
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            code = _closed_pipe()
        try:
            sys.stdout.flush()
        except OSError:  # the reader went away after the last line
            code = _closed_pipe()
        sys.exit(code if isinstance(code, int) else 0)


def _closed_pipe() -> int:
    """stdout's reader is gone (``harness replay FILE -v | head``): stop quietly, as ``cat`` does."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing left to flush at exit, so no "Broken pipe"
    except (OSError, ValueError):
        pass
    return 1


def _echo(text: str) -> None:
    """Print ``text`` on stdout, what a bot could have put in it neutralised (:func:`harness.match.untrusted.visible`).

    Every line the CLI prints goes through here: bots' stderr tails, tracebacks
    and fault details reach the terminal only with their control characters
    (escape sequences, carriage returns, BiDi overrides) shown as escapes.
    """
    from harness.match.untrusted import visible

    typer.echo(visible(text, multiline=True))


def _say(command: str | None, message: str) -> None:
    """Print one line on stderr in the harness's one style: ``harness COMMAND: message``."""
    from harness.match.untrusted import visible

    message = visible(message)  # one line: a bot's text cannot start a forged line of its own
    typer.echo(f"harness {command}: {message}" if command else f"harness: {message}", err=True)


def _usage(command: str, message: str, code: int = 2) -> typer.Exit:
    """:func:`_say` the message; return the Exit (status 2, a usage error, unless ``code``) to raise."""
    _say(command, message)
    return typer.Exit(code)


def _out_of_bounds(*options: tuple[str, str, int | None]) -> str | None:
    """The first ``(option, setting, value)`` outside its bounds (:data:`harness.specs.BOUNDS`), as an error."""
    from harness.specs import bound_problem

    for option, setting, value in options:
        problem = None if value is None else bound_problem(setting, value, option)
        if problem:
            return problem
    return None


def _bots_and_sandbox_problem(specs: list[Any], sandbox: str) -> str | None:
    """The first problem of ``--bot`` commands (not found, not executable) or of ``--sandbox``, as an error."""
    from harness.match.botproc import BotStartError, resolve_command
    from harness.specs import SandboxMode

    for spec in specs:
        try:
            resolve_command(spec)
        except BotStartError as exc:
            return str(exc)
    if sandbox not in tuple(m.value for m in SandboxMode):
        return f"--sandbox must be auto, required or off, got {sandbox!r}"
    return None


def _bot_specs(items: list[str], cwd: Path | None, usage: Any) -> list[Any]:
    """The ``--bot NAME=COMMAND`` / ``NAME@DIR=COMMAND`` options as BotSpecs; ``usage(message)`` makes the error."""
    import os
    import shlex

    from harness.match.referee import BotSpec
    from harness.specs import BOT_NAME

    specs: list[Any] = []
    for item in items:
        name, sep, command = item.partition("=")
        name, at, folder = name.strip().partition("@")  # a name has no "@": NAME@DIR=COMMAND is unambiguous
        if not sep or not name or not command.strip() or (at and not folder):
            raise usage(f"--bot {item!r} must be NAME=COMMAND or NAME@DIR=COMMAND, e.g. --bot "
                        "caller='python -m bots.caller' or --bot java@bots/java='./run.sh'")
        bot_dir = Path(folder).expanduser() if at else cwd
        if bot_dir is not None and not bot_dir.is_dir():
            where = f"--bot {name}@{folder}" if at else "--cwd"
            raise usage(f"{where}: {bot_dir} is not a directory")
        if not BOT_NAME.match(name):
            raise usage(
                f"--bot {name!r}: a name is 1-32 letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        if any(s.name == name for s in specs):
            raise usage(f"--bot {name!r} is given twice; every bot needs its own name")
        try:
            argv = tuple(shlex.split(command))
        except ValueError as exc:
            raise usage(f"cannot split the command of --bot {name}: {exc}") from None
        specs.append(BotSpec(name, argv, cwd=None if bot_dir is None else os.fspath(bot_dir.resolve())))
    return specs


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from protocol.version import PROTOCOL_VERSION

        try:
            number = version("sevencard-harness")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown"
        _echo(f"harness {number} (bot protocol version {PROTOCOL_VERSION})")
        raise typer.Exit(0)


# rich_markup_mode=None: plain help text, so "[tournament] output" in a help string is
# printed as written instead of being swallowed as rich markup.
app = typer.Typer(
    cls=_HarnessGroup,
    help="Seven Card Draw bot harness: run tournaments, matches, and check bots.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True, callback=_version
    ),
) -> None:
    """Seven Card Draw bot harness: run tournaments, matches, and check bots."""


bench_app = typer.Typer(
    help="Benchmarks that print speed figures (one table; --json: one JSON object).",
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(bench_app, name="bench")


def _overrides(config: Path, out: Path | None, jobs: int | None, hands: int | None, seed: str | None,
               pin: bool | None, sandbox: str | None = None,
               cluster: str | None = None):  # noqa: ANN202 - a TournamentConfig, imported lazily
    from harness.tournament.config import load_config, with_overrides

    return with_overrides(load_config(config), out=out, jobs=jobs, hands=hands, seed=seed, pin=pin, sandbox=sandbox,
                          cluster=cluster)


def _sandbox_plan(settings):  # noqa: ANN001, ANN202 - SandboxSettings -> Plan, imported lazily
    """Decide the sandbox of a command's bots, printing nothing (see :func:`_sandbox_say`).

    Called while the options are checked, so that mode "required" on a machine
    without the sandbox is a usage error before anything is started or written.

    Raises:
        harness.match.sandbox.SandboxError: mode "required" and the sandbox cannot run here.
    """
    from harness.match.sandbox import plan

    return plan(settings)


def _sandbox_say(decided, command: str) -> None:  # noqa: ANN001 - a harness.match.sandbox.Plan
    """Print the sandbox's WARNING when bots are not isolated (a notice when it is off), on stderr.

    Called once every option and file has been checked, just before the bots
    start: a usage error stays one line (README), and the warning comes with
    every run that really starts bots.
    """
    if decided.warning:
        _say(command, f"WARNING: {decided.warning}")
    elif not decided.active:  # mode "off": chosen, so one quiet line
        _say(command, "notice: the sandbox is off ([sandbox] mode / --sandbox): bots run unisolated, as your user")


_CLUSTER_HELP = ("Play the matches on a Dask cluster: tcp://HOST:8786 (a running `dask scheduler`) or local:N "
                 "(N worker processes on this machine); overrides [schedule] backend and scheduler.")


@app.command()
def run(
    config: Path = typer.Argument(..., help="Tournament TOML file, e.g. tournaments/league.toml."),
    out: Path | None = typer.Option(None, "--out", help="Output directory (overrides [tournament] output)."),
    jobs: int | None = typer.Option(None, "--jobs", help="Parallel matches (default: the CPUs this process may use)."),
    pin: bool | None = typer.Option(
        None, "--pin/--no-pin", help="Each match on one CPU of its own (default: [schedule] pin, true)."
    ),
    hands: int | None = typer.Option(None, "--hands", help="Hands per match (overrides [schedule] hands)."),
    seed: str | None = typer.Option(
        None, "--seed", help="Tournament seed, decimal or hex (overrides [tournament] seed; default: a secret one)."
    ),
    no_entry_check: bool = typer.Option(
        False, "--no-entry-check", help="Skip the entry check (every bot plays a few hands before the first match)."
    ),
    sandbox: str | None = typer.Option(
        None, "--sandbox", help="auto, required or off (overrides [sandbox] mode; README \"Untrusted bots\")."
    ),
    cluster: str | None = typer.Option(None, "--cluster", metavar="ADDRESS", help=_CLUSTER_HELP),
) -> None:
    """Run (or resume) a tournament and print its leaderboard.

    Exit status 0 when every match is recorded, 2 on a mistake in the file or
    options or an output directory that is not the harness's (nothing is run),
    or when fewer than two bots pass the entry check; 3 if a bot failed to start
    in every match it played (results kept, but meaningless for it), 1 if
    matches failed (run again to retry them), 130 when interrupted (run again
    to resume); 1 also when the Dask cluster cannot be reached or is lost (run
    again to resume); 4 when the output's disk is full, over quota, read-only or
    failing (the run stops at once, every record so far is kept: free space and
    run again to resume).
    """
    from harness.deals import seed_warning
    from harness.match.outdir import StorageError
    from harness.match.sandbox import SandboxError
    from harness.tournament.cluster import ClusterError
    from harness.tournament.config import ConfigError
    from harness.tournament.leaderboard import plural
    from harness.tournament.results import ResultsError
    from harness.tournament.runner import run_tournament
    from harness.tournament.seeds import REVEAL_FILE

    try:
        cfg = _overrides(config, out, jobs, hands, seed, pin, sandbox, cluster=cluster)
        if not (cfg.schedule.scheduler and cfg.sandbox.mode == "required"):  # then each worker checks its own
            _sandbox_plan(cfg.sandbox)  # the runner prints its summary and warning when bots start
        warning = None
        if cfg.tournament.seed is not None:
            warning = seed_warning(cfg.tournament.seed, "--seed" if seed is not None else "[tournament] seed")

        def before_bots() -> None:  # every option and file checked: no usage error follows
            if warning:
                _say("run", f"warning: {warning}")

        summary = run_tournament(cfg, entry_check=False if no_entry_check else None, report=_running_report,
                                 before_bots=before_bots)
    except (ConfigError, ResultsError, SandboxError) as exc:
        raise _usage("run", str(exc)) from None
    except ClusterError as exc:
        raise _usage("run", str(exc), 1) from None
    except StorageError as exc:
        raise _usage("run", _storage_stop(str(exc)), DISK_EXIT) from None
    except KeyboardInterrupt:  # during the entry check
        raise _usage("run", "interrupted before the first match: run the same command again", 130) from None
    if summary.records and not summary.storage:
        _final_report(summary.out_dir, stopped=summary.interrupted)
    if summary.board_text is not None:
        _echo(summary.board_text)
    for notice in summary.notices:
        _say("run", f"notice: {notice}")
    _echo(
        f"{len(summary.records)}/{plural(summary.matches_total, 'match')} recorded in {summary.out_dir} "
        f"(this run: {plural(summary.matches_run, 'match')}, {plural(summary.hands_run, 'hand')}, "
        f"{summary.seconds:.1f} s, {summary.hands_per_s:.0f} hands/s)"
    )
    if summary.complete:
        _echo(f"deals: the seed is revealed in {summary.out_dir / REVEAL_FILE}; check every deal with "
                   f"`harness replay {summary.out_dir}`")
    for name, why in summary.never_started.items():
        _say(
            "run",
            f"warning: bot {name!r} failed to start in every match it played, so its results mean nothing. "
            f"First failure: {why}. Fix its command, cwd, env or [limits] (e.g. memory_mb), check it with "
            f"`harness check-bot -- COMMAND`, then run again: only its matches are played again.",
        )
    if summary.interrupted:
        raise _usage("run", "interrupted: run the same command again to resume", 130)
    if summary.storage:
        raise _usage("run", _storage_stop(summary.stopped), DISK_EXIT)
    if summary.stopped:
        raise _usage("run", summary.stopped, 1)
    if summary.failed:
        raise _usage(
            "run", f"{plural(len(summary.failed), 'match')} failed (see error.txt in their directories); "
            "run again to retry them", 1,
        )
    if summary.never_started:
        raise typer.Exit(3)


#: Exit status of `harness run` stopped by its output's disk (full, over quota, read-only, failing).
DISK_EXIT = 4


def _storage_stop(why: str) -> str:
    """The one line of a run stopped by its disk: the path and errno text, then what to do."""
    return (f"{why}; the run stopped (every match recorded so far is kept): free space on that disk, or make it "
            "writable, then run the same command again to resume")


def _running_report(out_dir: Path) -> None:
    """The report written while `harness run` plays (in a child of the runner)."""
    from harness.report.html import write_report

    write_report(out_dir, running=True)


def _final_report(out_dir: Path, *, stopped: bool) -> None:
    """Write the report at the end of `harness run`; a failure is a warning (the results are safe)."""
    from harness.report.html import write_report

    try:
        summary = write_report(out_dir, stopped=stopped)
    except Exception as exc:  # noqa: BLE001 - the results are on disk; `harness report DIR` can retry
        _say("run", f"warning: the report of {out_dir} could not be written: {exc}")
        return
    _say("run", f"report: {summary.path} (per-bot reports in {out_dir / 'reports'}/)")


@app.command()
def plan(
    config: Path = typer.Argument(..., help="Tournament TOML file, e.g. tournaments/league.toml."),
    out: Path | None = typer.Option(None, "--out", help="Output directory (overrides [tournament] output)."),
    jobs: int | None = typer.Option(None, "--jobs", help="Parallel matches (default: the CPUs this process may use)."),
    hands: int | None = typer.Option(None, "--hands", help="Hands per match (overrides [schedule] hands)."),
    seed: str | None = typer.Option(
        None, "--seed", help="Tournament seed, decimal or hex (overrides [tournament] seed; default: a secret one)."
    ),
    measure: bool = typer.Option(
        True, "--measure/--no-measure", help="Measure this machine's rate first (about a second) for the estimate."
    ),
    cluster: str | None = typer.Option(None, "--cluster", metavar="ADDRESS", help=_CLUSTER_HELP),
) -> None:
    """Print a tournament's plan without playing: tables, matches, hands, estimated time and disk use.

    With an existing output directory it also says what a run would reuse.
    Nothing is written. Exit status 0, or 2 on a mistake in the file or options, a
    plan above [schedule] max_matches, or an output directory that is not the harness's.
    On the dask backend the estimate counts the cluster's worker threads (asked
    of its scheduler; local:N has N).
    """
    from harness.tournament.config import ConfigError
    from harness.tournament.estimate import DEFAULT_RATES, calibrate, disk_warning
    from harness.tournament.results import ResultsError, check_out_dir
    from harness.tournament.runner import describe_plan, preview

    unreachable = None  # said after the checks: a usage error stays one line
    try:
        cfg = _overrides(config, out, jobs, hands, seed, None, cluster=cluster)
        check_out_dir(cfg.tournament.output)  # before the second of measuring
        rates = calibrate(cfg.schedule.table_size) if measure else DEFAULT_RATES
        parallel = None
        if cfg.schedule.scheduler is not None:
            from harness.tournament.cluster import ClusterError, cluster_threads

            try:
                parallel = cluster_threads(cfg.schedule.scheduler, jobs=cfg.schedule.jobs)
            except ClusterError as exc:
                unreachable = f"warning: {exc}; the estimate assumes 1 worker"
                parallel = 1
        view = preview(cfg, rates, parallel=parallel)
    except (ConfigError, ResultsError) as exc:
        raise _usage("plan", str(exc)) from None
    if unreachable:
        _say("plan", unreachable)
    _echo(describe_plan(cfg, view.plan))
    where = cfg.tournament.output
    _echo(f"output: {where} ({view.reuse.describe()})" if view.existing else f"output: {where} (new)")
    _echo(f"estimate: {view.estimate.matches:,} matches to play, {view.estimate.describe()}")
    short = disk_warning(view.estimate, where) if view.estimate.matches else None
    if short:
        _say("plan", f"warning: {short}")
    if view.left_out:
        _echo(f"entry check: left out of this plan, as they failed their entry check in {where} and are unchanged "
              f"since: {', '.join(view.left_out)} (a run checks them again)")
    if cfg.tournament.entry_check:
        _echo("entry check: every bot plays a few hands first; bots that fail are left out of the plan")


@app.command()
def leaderboard(directory: Path = typer.Argument(..., help="A tournament output directory.")) -> None:
    """Recompute and print the leaderboard from stored results (and rewrite leaderboard.md/.csv).

    The files are the same as those `harness run` wrote for the same directory.
    Exit status 0, or 2 when the directory or its files are missing or damaged.
    """
    from harness.tournament.leaderboard import write_leaderboard
    from harness.tournament.results import MARKER_FILE, ResultsError, is_ours

    try:
        if directory.is_dir() and not is_ours(directory):
            raise ResultsError(
                f"{directory}: not a tournament output directory of this harness (no {MARKER_FILE}); "
                "give the directory `harness run` wrote, e.g. results/league"
            )
        board, text = write_leaderboard(directory)
    except ResultsError as exc:
        raise _usage("leaderboard", str(exc)) from None
    except OSError as exc:
        why = exc.strerror or exc
        raise _usage("leaderboard", f"cannot write the leaderboard files in {directory}: {why}") from None
    for notice in board.notices:
        _say("leaderboard", f"notice: {notice}")
    _echo(text)


@app.command()
def report(
    directory: Path = typer.Argument(..., help="A tournament output directory, or one match's (harness match --out)."),
    all_hands: bool = typer.Option(False, "--all-hands", help="Keep every hand in the hand viewer (larger report)."),
    viewer_hands: int = typer.Option(12, "--viewer-hands", help="Hands per match kept in the hand viewer."),
) -> None:
    """Write DIR/report/ (an HTML report that opens offline) and DIR/reports/<bot>.md.

    A match's folder (its hands.jsonl, logs and result.json) gets the same report for its one match.
    Exit status 0, or 2 when the directory or its files are missing or damaged.
    """
    from harness.report.html import write_report
    from harness.tournament.results import ResultsError

    if viewer_hands < 0:
        raise _usage("report", f"--viewer-hands must be at least 0, got {viewer_hands}")
    extra: dict[str, Any] = {}
    if _is_match_folder(directory):
        record = _match_record(directory)
        extra = {"records": [record], "bots": record.result.bots, "match_dirs": {record.match_id: directory}}
    try:
        summary = write_report(directory, viewer_hands=None if all_hands else viewer_hands, **extra)
    except ResultsError as exc:
        raise _usage("report", str(exc)) from None
    except OSError as exc:
        raise _usage("report", f"cannot write the report in {directory}: {exc.strerror or exc}") from None
    _echo(f"report: {summary.path} ({summary.files} files, {summary.bytes / 1e6:.1f} MB, "
               f"{summary.seconds:.1f} s); per-bot reports: {directory / 'reports'}/<bot>.md")


def _is_match_folder(directory: Path) -> bool:
    """A folder of ``harness match --out`` (a hand history at its top, no tournament manifest)."""
    from harness.tournament.results import MANIFEST_FILE

    top = any((directory / name).is_file() for name in ("hands.jsonl", "hands.jsonl.gz"))
    return directory.is_dir() and top and not (directory / MANIFEST_FILE).exists()


def _match_record(directory: Path) -> Any:
    """The one record of a match folder, from its ``result.json`` (a usage error when missing or damaged)."""
    import json

    from harness.match.verdict import RESULT_FILE
    from harness.specs import MatchResult
    from harness.tournament.results import MatchRecord

    path = directory / RESULT_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = MatchResult.from_dict(data)
        big_blind = int(data["big_blind"])
    except FileNotFoundError:
        raise _usage("report", f"{path}: missing; a match folder gets it from harness match (this version) when "
                     "the match ends") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _usage("report", f"{path}: not a match result ({type(exc).__name__}: {exc})") from None
    return MatchRecord(table=result.match_id, rotation=0, big_blind=big_blind, result=result)


@app.command()
def match(
    bot: list[str] = typer.Option(
        ..., "--bot", help="NAME=COMMAND, once per seat (2-6); COMMAND is split like a shell does. "
        "NAME@DIR=COMMAND runs that bot in DIR."
    ),
    cwd: Path | None = typer.Option(
        None, "--cwd", help="Working directory of every bot without its own @DIR (default: this one); "
        "under the sandbox a bot sees only its directory."
    ),
    hands: int = typer.Option(100, "--hands", help="Hands to play (at least 1)."),
    seed: str | None = typer.Option(
        None, "--seed", help="Match seed (deals), decimal or hex; default: a secret one, printed after the match."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="New directory for hand history and bot logs (default: results/match-DATE-TIME)."
    ),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per decision in ms (at least 1)."),
    time_bank_ms: int = typer.Option(30000, "--time-bank-ms", help="Extra thinking time per bot for the match in ms."),
    max_faults: int = typer.Option(10, "--max-faults", help="Faults after which a bot is out (at least 1)."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips (at least 1)."),
    freezeout: bool = typer.Option(False, "--freezeout", help="Keep stacks across hands; busted bots leave."),
    pin: int | None = typer.Option(None, "--pin", help="Pin the referee and bots to this CPU (often faster on VMs)."),
    sandbox: str = typer.Option("auto", "--sandbox", help="Isolate each bot: auto, required or off."),
    gzip: bool = typer.Option(False, "--gzip", help="Write hands.jsonl.gz, compressed as hands are played."),
) -> None:
    """Play one match between bot commands and print the result table.

    Exit status 0 when the match was played, 1 if a bot failed to start, was put out or
    raised an error in every decision (its results mean nothing; one line says which),
    2 on a usage error (nothing is started or written), 130 on Ctrl-C.
    """
    import json
    import os

    from tabulate import tabulate

    from harness.deals import new_seed, parse_seed, seed_hex, seed_warning
    from harness.engine import GameConfig, GameConfigError
    from harness.engine.config import MAX_PLAYERS, MIN_PLAYERS
    from harness.history.files import history_name
    from harness.match.outdir import OutDirError, default_out_dir, prepare_out_dir
    from harness.match.referee import Limits, MatchSpec, StackMode, play_match
    from harness.match.sandbox import SandboxError
    from harness.match.verdict import RESULT_FILE, verdicts
    from harness.specs import SandboxMode, SandboxSettings
    from harness.tournament.stats import bb_per_100

    def usage(message: str) -> typer.Exit:
        return _usage("match", message)

    # Every argument is checked before anything is started or written.
    specs = _bot_specs(bot, cwd, usage)
    if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
        raise usage(f"a match needs {MIN_PLAYERS} to {MAX_PLAYERS} bots (R1.2), got {len(specs)}; "
                    "give --bot NAME=COMMAND once per seat")
    problem = _out_of_bounds(
        ("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
        ("--time-bank-ms", "time_bank_ms", time_bank_ms), ("--max-faults", "max_faults", max_faults),
        ("--stack", "starting_stack", stack),
    )
    if problem is None:  # PROTOCOL.md section 7: every message of the longest legal hand fits
        from harness.match.msgsize import message_problem

        problem = message_problem(GameConfig(), len(specs), stack, "--stack")
    if problem:
        raise usage(problem)
    try:
        match_seed = new_seed() if seed is None else parse_seed(seed)
    except ValueError as exc:
        raise usage(f"--seed: {exc}") from None
    if pin is not None:
        allowed = sorted(os.sched_getaffinity(0))
        if pin not in allowed:
            raise usage(f"--pin {pin}: no such CPU available here; use one of {', '.join(map(str, allowed))}")
    problem = _bots_and_sandbox_problem(specs, sandbox)
    if problem:
        raise usage(problem)
    box = SandboxSettings(mode=SandboxMode(sandbox))
    game = GameConfig()
    try:
        decided = _sandbox_plan(box)
        spec = MatchSpec(
            game=game, hands=hands, seed=match_seed, starting_stack=stack,
            stack_mode=StackMode.FREEZEOUT if freezeout else StackMode.RESET, compress=gzip,
        )
        limits = Limits(decision_ms=decision_ms, time_bank_ms=time_bank_ms, max_faults=max_faults)
    except (SandboxError, ValueError, GameConfigError) as exc:
        raise usage(str(exc)) from None
    try:
        out_dir = prepare_out_dir(out) if out is not None else default_out_dir("match")
    except OutDirError as exc:
        raise usage(str(exc)) from None
    # Everything checked: what is said from here on comes with a match that is played.
    _sandbox_say(decided, "match")
    if out is None:
        _say("match", f"hand history and logs go to {out_dir}/")
    warning = seed_warning(match_seed, "--seed") if seed is not None else None
    if warning:
        _say("match", f"warning: {warning}")

    history = out_dir / history_name(gzip)
    try:
        result = play_match(specs, spec, limits, out_dir, cpus=None if pin is None else {pin}, sandbox=box)
    except (ValueError, GameConfigError) as exc:
        raise usage(str(exc)) from None
    except OSError as exc:
        raise _usage("match", f"cannot write to {out_dir}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt:
        raise _usage("match", f"interrupted; bots stopped; hands so far in {history}", 130) from None
    rows = []
    for seat, name in enumerate(result.bots):
        faults = ", ".join(f"{k} {v}" for k, v in sorted(result.faults[seat].items())) or "-"
        bb100 = bb_per_100(result.net[seat], result.hands_played, game.unit)
        rows.append([name, seat, result.net[seat], f"{bb100:+.1f}", faults, result.status[seat]])
    _echo(
        tabulate(
            rows,
            headers=["bot", "seat", "net chips", "bb/100", "faults", "status"],
            colalign=("left", "right", "right", "right", "left", "left"),
        )
    )
    _echo(f"{result.hands_played} hands in {result.duration_s:.1f} s; hand history: {history}")
    if seed is None:  # the secret seed, revealed now that the match is over
        _echo(f"seed: {seed_hex(match_seed)} (check the deals: harness replay {history} "
                   f"--seed {seed_hex(match_seed)})")
    try:  # for harness report DIR
        record = {**result.to_dict(), "big_blind": game.unit}
        (out_dir / RESULT_FILE).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        _say("match", f"warning: cannot write {out_dir / RESULT_FILE}: {exc.strerror or exc}")
    said = verdicts(result, out_dir, history, limits)
    for verdict in said:
        if verdict.line:
            _say("match", verdict.line)
    if any(v.failed for v in said):
        raise typer.Exit(1)


@app.command()
def replay(
    file: Path = typer.Argument(
        ...,
        help="A hand history (JSON Lines, .jsonl or .jsonl.gz), a match's directory (harness match --out), "
        "or a finished tournament's directory.",
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every hand, not only those that differ."),
    seed: str | None = typer.Option(
        None, "--seed", help="The match seed (revealed after the match): also check each hand's deal derives from it."
    ),
    html_file: Path | None = typer.Option(
        None, "--html", help="Also write FILE: one self-contained HTML page with every hand of the match in the "
        "table viewer (data, script and styles inline; opens from disk, fetches nothing), to attach to a mail or "
        "a ticket.",
    ),
) -> None:
    """Re-run every hand of a hand history through the engine and report differences.

    Prints each hand that differs (every hand with --verbose) and a summary. Exit status 0 when
    every hand replays identically, 1 if any hand differs, 2 if the file is not a hand history.
    Given a tournament directory, checks its revealed seed against the commitment made before
    play and every match's deals against the seed. With --html FILE (a match's directory or
    hand history), also writes the match's hands as one HTML page.
    """
    from harness.deals import parse_seed
    from harness.history.files import HistoryError
    from harness.history.replay import check_history

    if file.is_dir():
        histories = [file / name for name in ("hands.jsonl", "hands.jsonl.gz") if (file / name).is_file()]
        if not histories:  # a tournament's directory: its deals against the revealed seed
            if html_file is not None:
                raise _usage("replay", f"--html: {file} holds no hands.jsonl or hands.jsonl.gz: give a match's "
                             "directory (a tournament's are under matches/) or a hand history")
            _replay_tournament(file, verbose)
            return
        file = histories[0]  # a match's directory (harness match --out DIR)
    if html_file is not None:
        _write_replay_html(file, html_file)
    try:
        match_seed = None if seed is None else parse_seed(seed)
    except ValueError as exc:
        raise _usage("replay", f"--seed: {exc}") from None
    bad = total = earlier = 0

    def summary(where: str = "") -> str:
        differ = f"; {bad} differ{'s' if bad == 1 else ''}" if bad else ""
        rule = f" ({earlier} under the earlier raise rule, RULES.md E14)" if earlier else ""
        return f"{total - bad} of {total} hands{where} replay identically{rule}{differ}"

    try:
        for check in check_history(file, match_seed=match_seed):
            total += 1
            if not check.ok:
                bad += 1
                _echo(f"hand {check.hand_id}: DIFFERS: {check.detail}")
            elif check.note:
                earlier += 1
                _echo(f"hand {check.hand_id}: OK with {check.note}")
            elif verbose:
                _echo(f"hand {check.hand_id}: OK")
    except BrokenPipeError:
        raise  # stdout's reader is gone: not a problem with the file
    except OSError as exc:
        raise _usage("replay", f"cannot read {file}: {exc.strerror or exc}") from None
    except HistoryError as exc:
        if total:
            where = f" before line {exc.line}" if exc.line is not None else ""
            _echo(summary(where))
        raise _usage("replay", str(exc)) from None
    if not total:
        raise _usage("replay", f"no hands in {file} (the file is empty)")
    _echo(summary())
    raise typer.Exit(1 if bad else 0)


def _write_replay_html(history: Path, target: Path) -> None:
    """``harness replay --html``: every hand of ``history`` as one self-contained page (exit 2 on bad input)."""
    from harness.history.files import HistoryError
    from harness.report.hands import read_hand_views
    from harness.report.viewer import replay_html

    try:
        hands = list(read_hand_views(history))
    except HistoryError as exc:
        raise _usage("replay", str(exc)) from None
    except OSError as exc:
        raise _usage("replay", f"cannot read {history}: {exc.strerror or exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise _usage("replay", f"{history}: not a hand history of this harness ({type(exc).__name__}: {exc})") from None
    if not hands:
        raise _usage("replay", f"no hands in {history} (the file is empty)")
    match_id = str(hands[0]["match_id"]) or history.parent.name
    bots = " vs ".join(dict.fromkeys(b for h in hands for b in h["bots"]))
    page = replay_html(hands, title=f"Match {match_id}",
                       note=f"{bots}: {len(hands)} hands, from {history.name}. Written by harness replay --html.")
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise _usage("replay", f"--html: cannot write {target}: {exc.strerror or exc}") from None
    _echo(f"replay page: {target} ({len(hands)} hands, {len(page.encode()) / 1e6:.1f} MB)")


def _replay_tournament(directory: Path, verbose: bool) -> None:
    """``harness replay DIR``: verify a finished tournament's deals (exit 0 / 1 / 2)."""
    from harness.history.files import HistoryError
    from harness.tournament.results import ResultsError
    from harness.tournament.seeds import verify_deals

    bad = matches = hands = 0
    try:
        for verdict in verify_deals(directory):
            matches += 1
            hands += verdict.hands
            if not verdict.ok:
                bad += 1
                _echo(f"match {verdict.match_id}: DIFFERS: " + "; ".join(verdict.problems[:5]))
            elif verbose:
                _echo(f"match {verdict.match_id}: OK ({verdict.hands} hands)")
    except (ResultsError, HistoryError) as exc:
        raise _usage("replay", str(exc)) from None
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _usage("replay", f"cannot read {directory}: {exc.strerror or exc}") from None
    _echo(
        f"{matches - bad} of {matches} matches ({hands} hands) were dealt from the committed seed(s) and replay "
        f"identically" + (f"; {bad} differ" if bad else "")
    )
    raise typer.Exit(1 if bad else 0)


@app.command(
    "check-bot",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def check_bot(
    ctx: typer.Context,
    hands: int = typer.Option(6, "--hands", help="Hands to play against the reference bots."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per reply in ms."),
    time_bank_ms: int = typer.Option(0, "--time-bank-ms", help="Time bank in ms (default 0: every reply in time)."),
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
    structure: str = typer.Option("no-limit", "--structure", help="no-limit or fixed-limit (R3.6, R3.7)."),
    big_blind: int = typer.Option(10, "--big-blind", help="Big blind in chips (the small blind is half)."),
    ante: int = typer.Option(0, "--ante", help="Ante in chips (R2.4)."),
    min_bet: int | None = typer.Option(
        None, "--min-bet", help="Ante-only game (no blinds, R2.5) with this minimum bet; needs --ante."
    ),
    cap: int = typer.Option(4, "--cap", help="Fixed-limit bets per round, 0 = no cap (R3.7)."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips, every hand."),
    seed: int = typer.Option(1, "--seed", help="Match seed (deals)."),
    out: Path | None = typer.Option(None, "--out", help="Keep the hand history and logs in this new directory."),
    sandbox: str = typer.Option("auto", "--sandbox", help="Run the bots sandboxed: auto, required or off."),
) -> None:
    """Start a bot (harness check-bot [OPTIONS] -- CMD ARGS...), play a few hands, report what is wrong.

    Reports every protocol violation with its hand and a hint, and every traceback in the bot's
    stderr. Exit status 0 when the bot passes, 1 on any violation or traceback, 2 on a usage error.
    """
    from harness.deals import parse_seed
    from harness.engine import GameConfig, GameConfigError
    from harness.match.botproc import BotStartError
    from harness.match.checkbot import check_bot as run_check
    from harness.match.sandbox import SandboxError
    from harness.specs import SandboxMode, SandboxSettings

    extra = list(ctx.args)
    command = extra[1:] if extra[:1] == ["--"] else extra
    if not command:
        raise _usage("check-bot", "give the bot's command after --, e.g. harness check-bot -- python mybot.py")
    problem = _out_of_bounds(  # the game's options; check_bot checks the rest
        ("--big-blind", "big_blind", big_blind), ("--ante", "ante", ante), ("--min-bet", "min_bet", min_bet),
        ("--cap", "cap", cap),
    )
    if problem:
        raise _usage("check-bot", problem)
    try:
        parse_seed(seed)
    except ValueError as exc:
        raise _usage("check-bot", f"--seed: {exc}") from None
    if command[0].startswith("-") and extra[:1] != ["--"]:
        raise _usage("check-bot", f"no such option: {command[0]} (the bot's command goes after --)")
    variables = {}
    for item in env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _usage("check-bot", f"--env {item!r} must be NAME=VALUE, e.g. --env SEED=3")
        variables[name] = value
    if sandbox not in tuple(m.value for m in SandboxMode):
        raise _usage("check-bot", f"--sandbox must be auto, required or off, got {sandbox!r}")
    box = SandboxSettings(mode=SandboxMode(sandbox))
    try:
        decided = _sandbox_plan(box)
        if min_bet is None:
            game = GameConfig(structure=structure, small_blind=big_blind // 2, big_blind=big_blind, ante=ante, cap=cap)
        else:
            game = GameConfig(structure=structure, ante=ante, blinds=False, min_bet=min_bet, cap=cap)
        report = run_check(
            command, cwd=cwd, env=variables, hands=hands, opponents=opponent, decision_ms=decision_ms,
            time_bank_ms=time_bank_ms, startup_ms=startup_ms, memory_mb=memory_mb, max_processes=max_processes,
            game=game, starting_stack=stack, seed=seed, out_dir=out, sandbox=box,
            on_start=lambda: _sandbox_say(decided, "check-bot"),
        )
    except SandboxError as exc:
        raise _usage("check-bot", str(exc)) from None
    except GameConfigError as exc:
        raise _usage("check-bot", f"game options: {exc}") from None
    except (BotStartError, ValueError) as exc:
        raise _usage("check-bot", str(exc)) from None
    except OSError as exc:  # e.g. the disk is full: the check could not run, the bot is not judged
        raise _usage("check-bot", f"cannot write the hand history or logs: {exc.strerror or exc}") from None
    _echo(report.render())
    raise typer.Exit(0 if report.ok else 1)


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


@app.command()
def sprt(
    bot: list[str] = typer.Option(
        ..., "--bot", help="NAME=COMMAND, twice: the new version first, then the old one."
    ),
    bb0: float = typer.Option(0.0, "--bb0", help="H0: new is at most this many bb/100 better than old."),
    bb1: float = typer.Option(10.0, "--bb1", help="H1: new is at least this many bb/100 better than old."),
    alpha: float = typer.Option(0.05, "--alpha", help="Chance of accepting H1 when H0 holds."),
    beta: float = typer.Option(0.05, "--beta", help="Chance of accepting H0 when H1 holds."),
    max_hands: int | None = typer.Option(None, "--max-hands", help="Stop as inconclusive after this many hands."),
    hands: int = typer.Option(100, "--hands", help="Hands per seat rotation; a block is twice this."),
    min_blocks: int = typer.Option(16, "--min-blocks", help="Blocks before the test may stop (at least 2)."),
    seed: str | None = typer.Option(None, "--seed", help="Seed of the deals (default: a secret one, kept in --out)."),
    out: Path | None = typer.Option(
        None, "--out", help="Directory of the test; the same command with the same --out continues it."
    ),
    structure: str = typer.Option("no-limit", "--structure", help="no-limit or fixed-limit."),
    stack: int = typer.Option(1000, "--stack", help="Starting stack in chips, reset every hand."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Time per decision in ms (at least 1)."),
    sandbox: str = typer.Option("auto", "--sandbox", help="Isolate each bot: auto, required or off."),
    json_out: bool = typer.Option(False, "--json", help="End with one JSON object line (result, llr, ...)."),
) -> None:
    """Is the new bot better? Play duplicate blocks until a sequential probability ratio test decides.

    After each block (both seatings on the same deals) prints the log-likelihood ratio, its bounds, the hands and
    bb/100 with its 95% interval. Exit status 0 when H1 or H0 is accepted, 3 when inconclusive at --max-hands,
    1 when a bot failed to start, 2 on a usage error, 130 on Ctrl-C (the blocks played are kept: run the same
    command again to continue).
    """
    import json
    import shlex

    from harness.deals import new_seed, parse_seed
    from harness.engine import GameConfig, GameConfigError
    from harness.match.outdir import OutDirError, default_out_dir
    from harness.match.referee import play_match
    from harness.match.sandbox import SandboxError
    from harness.specs import BOT_NAME, BotSpec, Limits, SandboxMode, SandboxSettings
    from harness.tournament.sprt import SETTINGS_FILE, SprtError, SprtSettings, hidden_out, open_test, run_sprt
    from harness.tournament.sprt import status as sprt_status

    def usage(message: str) -> typer.Exit:
        return _usage("sprt", message)

    specs = []
    for item in bot:
        name, sep, command = item.partition("=")
        name = name.strip()
        if not sep or not name or not command.strip():
            raise usage(f"--bot {item!r} must be NAME=COMMAND, e.g. --bot new='python -m bots.solid'")
        if not BOT_NAME.match(name):
            raise usage(f"--bot {name!r}: a name is 1-32 letters, digits, '_', '.' or '-', "
                        "starting with a letter or digit")
        if any(s.name == name for s in specs):
            raise usage(f"--bot {name!r} is given twice; the two bots need different names")
        try:
            specs.append(BotSpec(name, tuple(shlex.split(command))))
        except ValueError as exc:
            raise usage(f"cannot split the command of --bot {name}: {exc}") from None
    if len(specs) != 2:
        raise usage(f"sprt compares two bots: give --bot NEW=COMMAND --bot OLD=COMMAND, got {len(specs)}")
    problem = _out_of_bounds(("--hands", "hands", hands), ("--decision-ms", "decision_ms", decision_ms),
                             ("--stack", "starting_stack", stack))
    if problem:
        raise usage(problem)
    if min_blocks < 2:
        raise usage(f"--min-blocks must be at least 2 (the variance needs two blocks), got {min_blocks}")
    if max_hands is not None and max_hands < 1:
        raise usage(f"--max-hands must be at least 1, got {max_hands}")
    problem = _bots_and_sandbox_problem(specs, sandbox)
    if problem:
        raise usage(problem)
    stored: dict[str, Any] = {}
    if out is not None and (out / SETTINGS_FILE).is_file():
        try:
            stored = json.loads((out / SETTINGS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise usage(f"{out / SETTINGS_FILE}: cannot read the test ({exc})") from None
    try:
        test_seed = parse_seed(seed) if seed is not None else parse_seed("0x" + stored["seed"]) if "seed" in stored \
            else new_seed()
    except (ValueError, TypeError) as exc:
        raise usage(f"--seed: {exc}") from None
    try:
        game = GameConfig(structure=structure)
        settings = SprtSettings(new=specs[0], old=specs[1], bb0=bb0, bb1=bb1, alpha=alpha, beta=beta, hands=hands,
                                seed=test_seed, starting_stack=stack, game=game, max_hands=max_hands)
        sprt_status([], 0, bb0, bb1, alpha, beta)  # checks the hypotheses and error rates
        limits = Limits(decision_ms=decision_ms)
        decided = _sandbox_plan(SandboxSettings(mode=SandboxMode(sandbox)))
    except (SprtError, GameConfigError, SandboxError, ValueError) as exc:
        raise usage(str(exc)) from None
    try:
        out_dir = out if out is not None else default_out_dir("sprt")
    except OutDirError as exc:
        raise usage(str(exc)) from None
    box = hidden_out(SandboxSettings(mode=SandboxMode(sandbox)), out_dir)
    again = shlex.join(["harness", "sprt", *sys.argv[2:]] + ([] if out is not None else ["--out", str(out_dir)]))

    def play(bots, spec, limits_, match_dir):  # noqa: ANN001, ANN202 - play_match's arguments
        return play_match(bots, spec, limits_, match_dir, sandbox=box)

    try:
        open_test(out_dir, settings)  # another test in --out is a usage error before any bot starts
    except SprtError as exc:
        raise usage(str(exc)) from None
    except OSError as exc:
        raise usage(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    _sandbox_say(decided, "sprt")
    _say("sprt", f"test in {out_dir}/ (new = {specs[0].name}, old = {specs[1].name}; "
                 f"H0: <= {bb0:g} bb/100, H1: >= {bb1:g} bb/100, alpha {alpha:g}, beta {beta:g})")
    try:
        final = run_sprt(settings, out_dir, play, limits, report=lambda st: _echo(st.line()),
                          min_blocks=min_blocks)
    except SprtError as exc:
        raise _usage("sprt", str(exc), 1) from None
    except OSError as exc:
        raise _usage("sprt", f"cannot write to {out_dir}: {exc.strerror or exc}", 1) from None
    except KeyboardInterrupt:
        raise _usage("sprt", f"interrupted; bots stopped; to continue: {again}", 130) from None
    verdict = {"H1": f"H1 accepted: {specs[0].name} is better than {specs[1].name} by at least {bb1:g} bb/100",
               "H0": f"H0 accepted: {specs[0].name} is better than {specs[1].name} by at most {bb0:g} bb/100",
               "inconclusive": f"inconclusive after {final.hands:,} hands (--max-hands); to play on, raise it: "
                               f"{again}"}[final.result]
    _echo(verdict)
    if json_out:
        _echo(json.dumps(final.to_dict()))
    raise typer.Exit(3 if final.result == "inconclusive" else 0)


@app.command()
def serve(
    contest: Path = typer.Argument(..., help="The contest file (TOML)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
    links: bool = typer.Option(False, "--links", help="Print CSV student,url of new login links and exit "
                               "(earlier links stop working)."),
    student: list[str] = typer.Option([], "--student", help="With --links: only these students' links."),
    url: str = typer.Option("", "--url", help="With --links: the address students use (default http://HOST:PORT)."),
) -> None:
    """Run a contest server: submissions, admission checks, a ladder that never stops, live pages."""
    try:
        from harness.server.contest import load_contest
        from harness.server.serve import base_url, print_links
        from harness.server.serve import serve as run_server
    except ImportError as exc:
        raise _usage("serve", f"the server needs its libraries: pip install 'sevencard-harness[server]' "
                     f"({exc})") from None
    from harness.tournament.config import ConfigError

    if not 0 < port < 65536:
        raise _usage("serve", f"--port must be 1..65535, got {port}")
    try:
        if links:
            cfg = load_contest(contest)
            print_links(cfg, url or base_url(host, port), only=tuple(student))
            return
        run_server(contest, host, port)
    except ConfigError as exc:
        raise _usage("serve", str(exc)) from None
    except OSError as exc:
        raise _usage("serve", f"cannot start: {exc.strerror or exc}", code=1) from None


@app.command()
def submit(
    path: Path = typer.Argument(..., help="The bot: a folder, a .zip, a .tar.gz or a single file."),
    server: str = typer.Option(..., "--server", help="The contest server, e.g. http://lab-server:8000"),
    token: str = typer.Option(..., "--token", help="Your token (the last part of your login link)."),
    command: str = typer.Option("", "--command", help="How to start the bot (default: its bot.toml)."),
    build: str = typer.Option("", "--build", help="A build command run once in the sandbox (default: bot.toml)."),
) -> None:
    """Submit a version to a contest server and wait for its admission check (exit 0 admitted, 1 refused)."""
    from harness.server.client import SubmitError
    from harness.server.client import submit as send

    if not path.exists():
        raise _usage("submit", f"{path} does not exist")
    token = token.rsplit("/login/", 1)[-1]  # the whole login link works too
    try:
        ok = send(server, token, path, command, build, say=_echo)
    except SubmitError as exc:
        raise _usage("submit", str(exc)) from None
    raise typer.Exit(0 if ok else 1)


@bench_app.command("serve")
def bench_serve(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """The contest server with 100 students, 300 versions, 10,000 matches: p95 per route, ladder, first block."""
    from harness.bench import TARGETS
    from harness.bench.serve import run as run_bench

    _print_figures(run_bench(), json_out, {**TARGETS, "p95_ms_worst": "< 200", "slots_busy_pct": ">= 90",
                                           "first_block_s": "<= 60"})


@bench_app.command("engine")
def bench_engine(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Engine-only hands/s (heads-up, 6-handed) and seven-card evaluations/s."""
    from harness.bench import TARGETS
    from harness.bench.engine import run as run_engine_bench

    figures = run_engine_bench()
    _print_figures(figures, json_out, {**TARGETS, "hands_per_s_heads_up": ">= 20,000"})


@bench_app.command("match")
def bench_match(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    hands: int = typer.Option(4000, "--hands", help="Hands of the heads-up match (the 4-handed one plays half)."),
    acpc: str = typer.Option("", "--acpc", metavar="DIR", envvar="HARNESS_ACPC_DIR",
                             help="A built project_acpc_server (dealer, example_player) to measure beside the C bots."),
) -> None:
    """Hands/s of real matches over the protocol, referee memory, raw ZeroMQ round trip, overhead ratio."""
    from harness.bench import TARGETS
    from harness.bench.acpc import problem as acpc_problem
    from harness.bench.match import run as run_bench

    problem = _out_of_bounds(("--hands", "hands", hands)) or (acpc and acpc_problem(acpc))
    if problem:
        raise _usage("bench match", problem)
    figures = run_bench(hands_heads_up=hands, hands_four=max(1, hands // 2), acpc_dir=acpc or None)
    _print_figures(figures, json_out, TARGETS)


@bench_app.command("league")
def bench_league(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    quick: bool = typer.Option(False, "--quick", help="Leave out the class contest (about 40 s)."),
) -> None:
    """Tournament hands/s with 1 and 2 jobs, the cost of a match beyond its hands, a class contest."""
    from harness.bench import TARGETS
    from harness.bench.league import bench_league as run_bench

    _print_figures(run_bench(quick=quick), json_out, TARGETS)


@bench_app.command("plan")
def bench_plan(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Seconds to plan 60 bots at 6 seats (sampled), fit a late entry, refuse the round-robin."""
    from harness.bench import TARGETS
    from harness.bench.plan import bench_plan as run_bench

    _print_figures(run_bench(), json_out, TARGETS)


@bench_app.command("env")
def bench_env(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    seconds: float = typer.Option(3.0, "--seconds", help="CPU seconds per figure."),
) -> None:
    """Steps/s of the PettingZoo environment and of 64 tables vectorised, and the cost of clone() (needs '.[rl]')."""
    try:
        from harness.rl.bench import TARGETS as RL_TARGETS  # the rl extra: imported here only
        from harness.rl.bench import run as run_bench
    except ImportError as exc:
        raise _usage("bench env", f"needs the optional extra 'rl' ({exc.name} is missing): pip install -e '.[rl]'",
                     1) from None
    if not 0 < seconds <= 600:
        raise _usage("bench env", f"--seconds must be above 0 and at most 600, got {seconds}")
    _print_figures(run_bench(seconds), json_out, RL_TARGETS)


def _print_figures(figures: dict[str, Any], json_out: bool, targets: dict[str, str]) -> None:
    """The one output of the bench commands: a table (figure, value, target), or one JSON object."""
    import json

    from harness.bench import render

    _echo(json.dumps(figures) if json_out else render(figures, targets))


if __name__ == "__main__":  # pragma: no cover
    app()
