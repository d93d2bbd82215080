"""``harness run`` and ``harness plan``: a tournament from its file, and its plan without playing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from harness.cli.boundary import EXIT_DISK
from harness.cli.common import app, sandbox_isolation, tournament_config
from harness.cli.options import CLUSTER_HELP, sandbox_option, secret_seed_option
from harness.cli.voice import CommandVoice, echo, say, usage

if TYPE_CHECKING:  # commands load their modules lazily: `harness --help` stays fast
    from collections.abc import Callable

    from harness.tournament.config import TournamentConfig
    from harness.tournament.leaderboard import Board
    from harness.tournament.runner import RunSummary


@app.command()
def run(
    config: Path = typer.Argument(..., help="Tournament TOML file, e.g. tournaments/league.toml."),
    out: Path | None = typer.Option(None, "--out", help="Output directory (overrides [tournament] output)."),
    jobs: int | None = typer.Option(None, "--jobs", help="Parallel matches (default: the CPUs this process may use)."),
    pin: bool | None = typer.Option(
        None, "--pin/--no-pin", help="Each match on one CPU of its own (default: [schedule] pin, true)."
    ),
    hands: int | None = typer.Option(None, "--hands", help="Hands per match (overrides [schedule] hands)."),
    seed: str | None = secret_seed_option(
        "Tournament seed, decimal or hex (overrides [tournament] seed; default: a secret one)."
    ),
    no_entry_check: bool = typer.Option(
        False, "--no-entry-check", help="Skip the entry check (every bot plays a few hands before the first match)."
    ),
    sandbox: str | None = sandbox_option(None, "auto, required or off (overrides [sandbox] mode; docs/security.md)."),
    cluster: str | None = typer.Option(None, "--cluster", metavar="ADDRESS", help=CLUSTER_HELP),
) -> None:
    """Run (or resume) a tournament and print its leaderboard.

    Exit status 0 when every match is recorded, 2 on a mistake in the file or
    options or an output directory that is not the harness's (nothing is run),
    or when fewer than two bots pass the entry check; 3 if a bot failed to start
    in every match it played (results kept, but meaningless for it), 1 if
    matches failed (run again to retry them), 130 when interrupted (143 by SIGTERM; run again
    to resume); 1 also when the Dask cluster cannot be reached or is lost (run
    again to resume); 4 when the output's disk is full, over quota, read-only or
    failing (the run stops at once, every record so far is kept: free space and
    run again to resume).
    """
    from harness.deals import seed_warning
    from harness.match.outdir import StorageError
    from harness.tournament.leaderboard import plural
    from harness.tournament.runner import RunOutcome
    from harness.tournament.seeds import REVEAL_FILE

    try:
        cfg = tournament_config(config, out, jobs, hands, seed, pin, sandbox, cluster=cluster)
        if not (cfg.schedule.scheduler and cfg.sandbox.mode == "required"):  # then each worker checks its own
            sandbox_isolation(cfg.sandbox)  # the runner prints its summary and warning when bots start
        warning = None
        if cfg.tournament.seed is not None:
            warning = seed_warning(cfg.tournament.seed, "--seed" if seed is not None else "[tournament] seed")

        def before_bots() -> None:  # every option and file checked: no usage error follows
            if warning:
                say("run", f"warning: {warning}")

        summary = _play(cfg, no_entry_check, before_bots)
    except StorageError as exc:  # what to do next: only `harness run` knows (exit status 4, as the boundary's)
        raise usage("run", _storage_stop(str(exc)), DISK_EXIT) from None
    except KeyboardInterrupt:  # during the entry check
        raise usage("run", "interrupted before the first match: run the same command again", 130) from None
    if summary.records and not summary.storage:
        final_report(summary.out_dir, stopped=summary.interrupted, board=summary.board)
    if summary.board_text is not None:
        echo(summary.board_text)
    for notice in summary.notices:
        say("run", f"notice: {notice}")
    echo(
        f"{len(summary.records)}/{plural(summary.matches_total, 'match')} recorded in {summary.out_dir} "
        f"(this run: {plural(summary.matches_run, 'match')}, {plural(summary.hands_run, 'hand')}, "
        f"{summary.seconds:.1f} s, {summary.hands_per_s:.0f} hands/s)"
    )
    if summary.complete:
        echo(f"deals: the seed is revealed in {summary.out_dir / REVEAL_FILE}; check every deal with "
             f"`harness replay {summary.out_dir}`")
    for name, why in summary.never_started.items():
        say(
            "run",
            f"warning: bot {name!r} failed to start in every match it played, so its results mean nothing. "
            f"First failure: {why}. Fix its command, cwd, env or [limits] (e.g. memory_mb), check it with "
            f"`harness check-bot -- COMMAND`, then run again: only its matches are played again.",
        )
    if summary.outcome is RunOutcome.INTERRUPTED:
        raise usage("run", "interrupted: run the same command again to resume", 130)
    if summary.outcome is RunOutcome.STORAGE:
        raise usage("run", _storage_stop(summary.stopped), DISK_EXIT)
    if summary.outcome is RunOutcome.STOPPED:
        raise usage("run", summary.stopped, 1)
    if summary.failed:
        raise usage(
            "run", f"{plural(len(summary.failed), 'match')} failed (see error.txt in their directories); "
            "run again to retry them", 1,
        )
    if summary.never_started:
        raise typer.Exit(3)


def _play(cfg: TournamentConfig, no_entry_check: bool, before_bots: Callable[[], None]) -> RunSummary:
    """:func:`run_tournament` on the executor of ``[schedule] backend``: a Dask one is made here, closed after.

    Raises:
        What :func:`run_tournament` and :meth:`DaskExecutor.for_config` raise.
    """
    from harness.tournament.cluster import DaskExecutor
    from harness.tournament.config import Backend
    from harness.tournament.runner import run_tournament

    executor = DaskExecutor.for_config(cfg) if cfg.schedule.backend is Backend.DASK else None
    try:
        return run_tournament(cfg, entry_check=False if no_entry_check else None, report=running_report,
                              before_bots=before_bots, executor=executor, voice=CommandVoice("run"))
    finally:
        if executor is not None:
            executor.close()


#: Exit status of `harness run` stopped by its output's disk (full, over quota, read-only, failing).
DISK_EXIT = EXIT_DISK


def _storage_stop(why: str) -> str:
    """The one line of a run stopped by its disk: the path and errno text, then what to do."""
    return (f"{why}; the run stopped (every match recorded so far is kept): free space on that disk, or make it "
            "writable, then run the same command again to resume")


def running_report(out_dir: Path) -> None:
    """The report written while `harness run` plays (in a child of the runner); a failure is one warning line
    (the run goes on: the results are safe, the final report tries again)."""
    from harness.report.html import write_report

    try:
        write_report(out_dir, running=True)
    except Exception as exc:  # noqa: BLE001 - e.g. a full disk: the run says so on its own, once
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        say("run", f"warning: the running report of {out_dir} could not be written: {why}")


def final_report(out_dir: Path, *, stopped: bool, board: Board | None) -> None:
    """Write the report at the end of `harness run` over the run's own scoring (``board``; None: read the
    directory); a failure is a warning (the results are safe)."""
    from harness.report.html import write_report

    try:
        summary = write_report(out_dir, stopped=stopped, board=board)
    except Exception as exc:  # noqa: BLE001 - the results are on disk; `harness report DIR` can retry
        say("run", f"warning: the report of {out_dir} could not be written: {exc}")
        return
    say("run", f"report: {summary.path} (per-bot reports in {out_dir / 'reports'}/)")


@app.command()
def plan(
    config: Path = typer.Argument(..., help="Tournament TOML file, e.g. tournaments/league.toml."),
    out: Path | None = typer.Option(None, "--out", help="Output directory (overrides [tournament] output)."),
    jobs: int | None = typer.Option(None, "--jobs", help="Parallel matches (default: the CPUs this process may use)."),
    hands: int | None = typer.Option(None, "--hands", help="Hands per match (overrides [schedule] hands)."),
    seed: str | None = secret_seed_option(
        "Tournament seed, decimal or hex (overrides [tournament] seed; default: a secret one)."
    ),
    measure: bool = typer.Option(
        True, "--measure/--no-measure", help="Measure this machine's rate first (about a second) for the estimate."
    ),
    cluster: str | None = typer.Option(None, "--cluster", metavar="ADDRESS", help=CLUSTER_HELP),
) -> None:
    """Print a tournament's plan without playing: tables, matches, hands, estimated time and disk use; of a
    contest file (``[contest]``), its final's.

    With an existing output directory it also says what a run would reuse.
    Nothing is written. Exit status 0, or 2 on a mistake in the file or options, a
    plan above [schedule] max_matches, or an output directory that is not the harness's.
    On the dask backend the estimate counts the cluster's worker threads (asked
    of its scheduler; local:N has N).
    """
    from harness.tournament.estimate import DEFAULT_RATES, calibrate, disk_warning
    from harness.tournament.results import check_out_dir
    from harness.tournament.runner import describe_plan, preview

    if _is_contest(config):
        _plan_final(config)
        return
    unreachable = None  # said after the checks: a usage error stays one line
    cfg = tournament_config(config, out, jobs, hands, seed, None, cluster=cluster)
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
    if unreachable:
        say("plan", unreachable)
    echo(describe_plan(cfg, view.plan))
    where = cfg.tournament.output
    echo(f"output: {where} ({view.reuse.describe()})" if view.existing else f"output: {where} (new)")
    echo(f"estimate: {view.estimate.matches:,} matches to play, {view.estimate.describe()}")
    short = disk_warning(view.estimate, where) if view.estimate.matches else None
    if short:
        say("plan", f"warning: {short}")
    if view.left_out:
        echo(f"entry check: left out of this plan, as they failed their entry check in {where} and are unchanged "
             f"since: {', '.join(view.left_out)} (a run checks them again)")
    if cfg.tournament.entry_check:
        echo("entry check: every bot plays a few hands first; bots that fail are left out of the plan")


def _is_contest(path: Path) -> bool:
    """True when ``path`` reads as a contest file (a ``[contest]`` table); anything else is a tournament's."""
    import tomllib

    try:
        return "contest" in tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):  # the tournament's reader says what is wrong
        return False


def _plan_final(path: Path) -> None:
    """``harness plan CONTEST.toml``: the final's size and estimated time, before it starts (nothing written)."""
    from harness.server.contest import load_contest
    from harness.server.final import plan_before_start

    final, counted = plan_before_start(load_contest(path))
    echo(f"final: {final.describe()}")
    echo(f"entrants: {final.bots}, from {counted}")
