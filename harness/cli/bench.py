"""``harness bench ...``: the benchmarks that print speed figures (a table, or one JSON object)."""

from __future__ import annotations

import typer

from harness.cli.boundary import EXIT_FAILED, UsageError
from harness.cli.common import bench_app, print_figures
from harness.cli.options import fixed_seed_option, match_seed, out_of_bounds
from harness.cli.voice import say, usage


@bench_app.command("serve")
def bench_serve(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    clients: int = typer.Option(100, "--clients", min=1, max=110,
                                help="Concurrent signed-in clients polling every 2 s (a tenth of them the admin)."),
    uploads: int = typer.Option(30, "--uploads", min=0, max=100, help="Students uploading a new version at once."),
    limit: float = typer.Option(300.0, "--limit", min=1.0, max=3600.0,
                                help="Seconds to wait after the uploads for every first block."),
    database: str = typer.Option("sqlite", "--db", help="The database: sqlite, or postgres (a throw-away "
                                 "PostgreSQL made with initdb; skipped in one line where it is not installed)."),
) -> None:
    """The contest server with 100 students, 300 versions, 10,000 matches under concurrent clients while the
    ladder plays: p95 per route, answers/s, errors, first block after a burst of uploads."""
    from harness.bench import TARGETS
    from harness.bench.postgres import PostgresUnavailable
    from harness.bench.serve import run as run_bench

    if database not in ("sqlite", "postgres"):
        raise usage("bench serve", f"--db {database}: expected sqlite or postgres")
    try:
        figures = run_bench(clients=clients, uploads=uploads, limit_s=limit, database=database)
    except PostgresUnavailable as exc:
        say("bench serve", f"--db postgres skipped: {exc}")
        return
    print_figures(figures, json_out,
                  {**TARGETS, "p95_ms_worst": "< 200", "errors": "0", "first_block_s_max": "<= 60"})


@bench_app.command("engine")
def bench_engine(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    differential: int = typer.Option(0, "--differential", metavar="N", min=0,
                                     help="Instead: play N random hands through the Python engine and the native "
                                          "core, compared after every action; print the count."),
    seed: str = fixed_seed_option("The differential run's seed (its hands and actions), decimal or hex."),
) -> None:
    """Engine-only hands/s (heads-up, 6-handed) and seven-card evaluations/s, the Python engine's and the native
    core's; or the differential test of the two (--differential N)."""
    from harness.bench import TARGETS

    seed_value = match_seed(seed)
    if differential:
        try:
            from harness.bench.differential import Mismatch
            from harness.bench.differential import run as run_differential
        except ImportError as exc:
            raise usage("bench engine", f"--differential needs the native core ({exc.name} is missing): "
                        "make install builds native/ with cargo", 1) from None
        try:
            figures = run_differential(differential, seed_value)
        except Mismatch as exc:
            raise usage("bench engine", f"the engines differ: {exc}", 1) from None
        print_figures({"differential_hands": figures["hands"], "differential_actions": figures["actions"],
                       "seed": seed_value, "mismatches": 0}, json_out, TARGETS)
        return
    from harness.bench.engine import run as run_engine_bench

    figures = run_engine_bench()
    print_figures(figures, json_out, {**TARGETS, "hands_per_s_heads_up": ">= 20,000",
                                      "native_over_python_heads_up": ">= 10"})


#: ``--load``'s most burners: beyond it the machine measures its scheduler more than the match.
MAX_LOAD = 64
#: The issue's targets of the anchored figures (docs/speed.md).
MATCH_TARGETS = {
    "total_cpu_over_mit": "<= 1 (the MIT Pokerbots engine with its Python bots, same run)",
    "hands_over_mit": ">= 1.5",
    "hands_per_s_heads_up_pinned_load4_over_idle": ">= 0.5 (4 CPU burners beside it)",
}


@bench_app.command("match")
def bench_match(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    hands: int = typer.Option(4000, "--hands", help="Hands of the heads-up match (the 4-handed one plays half)."),
    acpc: str = typer.Option("", "--acpc", metavar="DIR", envvar="HARNESS_ACPC_DIR",
                             help="A built project_acpc_server (dealer, example_player) to measure beside the C bots."),
    mit: str = typer.Option("", "--mit", metavar="DIR", envvar="HARNESS_MIT_DIR",
                            help="A checkout of MIT Pokerbots' engine (engine.py, python_skeleton) to measure beside "
                                 "our referee with Python bots."),
    load: int = typer.Option(0, "--load", metavar="N",
                             help=f"Also play the anchored rounds beside N CPU burners (0 to {MAX_LOAD}), "
                                  "alternated with the idle ones: each figure under load and its ratio to idle."),
) -> None:
    """Hands/s of real matches over the protocol, referee memory, raw ZeroMQ round trip, overhead ratio;
    beside the ACPC dealer and the MIT Pokerbots engine (docs/speed.md), idle and under --load."""
    from harness.bench import TARGETS
    from harness.bench.acpc import problem as acpc_problem
    from harness.bench.match import run as run_bench
    from harness.bench.mit import problem as mit_problem

    problem = (out_of_bounds(("--hands", "hands", hands)) or (acpc and acpc_problem(acpc))
               or (mit and mit_problem(mit, dependencies=False)))
    if not 0 <= load <= MAX_LOAD:
        problem = problem or f"--load must be 0 to {MAX_LOAD} CPU burners, got {load}"
    if problem:
        raise UsageError(problem)
    figures = run_bench(hands_heads_up=hands, hands_four=max(1, hands // 2), acpc_dir=acpc or None,
                        mit_dir=mit or None, load=load, notice=lambda line: say("bench match", f"notice: {line}"))
    print_figures(figures, json_out, {**TARGETS, **MATCH_TARGETS})


@bench_app.command("league")
def bench_league(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    quick: bool = typer.Option(False, "--quick", help="Leave out the class contest (about 40 s)."),
    hands: int = typer.Option(250, "--hands", min=1, help="Hands per match of the benchmark league."),
) -> None:
    """Tournament hands/s with 1 and 2 jobs, the cost of a match beyond its hands, a class contest."""
    from harness.bench import TARGETS
    from harness.bench.league import bench_league as run_bench

    print_figures(run_bench(quick=quick, hands=hands), json_out, TARGETS)


@bench_app.command("plan")
def bench_plan(json_out: bool = typer.Option(False, "--json", help="Print one JSON object.")) -> None:
    """Seconds to plan 60 bots at 6 seats (sampled), fit a late entry, refuse the round-robin."""
    from harness.bench import TARGETS
    from harness.bench.plan import bench_plan as run_bench

    print_figures(run_bench(), json_out, TARGETS)


@bench_app.command("env")
def bench_env(
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    seconds: float = typer.Option(3.0, "--seconds", help="CPU seconds per figure."),
    anchors: bool = typer.Option(False, "--anchors", help="Also OpenSpiel's and RLCard's limit hold'em in the same "
                                 "loop, alternated with ours, and the ratios (the extra 'bench')."),
    game: str = typer.Option("seven-card-draw", "--game", help="seven-card-draw or deuce-to-seven-triple-draw (the "
                             "Python engine only: no native figures, no targets)."),
) -> None:
    """Steps/s of the PettingZoo environment and of 64 tables at once (native, Python); clone()'s cost (needs .[rl]);
    with --anchors, beside OpenSpiel's and RLCard's limit hold'em."""
    try:
        from harness.rl.bench import TARGETS as RL_TARGETS  # the rl extra: imported here only
        from harness.rl.bench import run as run_bench
    except ImportError as exc:
        raise usage("bench env", f"needs the optional extra 'rl' ({exc.name} is missing): make rl, "
                    "or pip install --config-settings editable_mode=compat -e '.[rl]'",
                    EXIT_FAILED) from None
    if not 0 < seconds <= 600:
        raise UsageError(f"--seconds must be above 0 and at most 600, got {seconds}")
    from harness.rl.aec import CODECS

    benched = [g for g in CODECS if g != "five-card-draw"]  # its environment has no vector form yet
    if game not in benched:
        raise UsageError(f"--game must be one of {', '.join(benched)} (the games bench env measures), got {game!r}")
    seven = game == "seven-card-draw"
    if anchors and not seven:
        raise UsageError(f"--anchors compares Seven Card Draw's environment, not {game}'s: leave out one of them")
    figures = run_bench(seconds, game)
    if anchors:
        from harness.rl.anchors import run as run_anchors

        extra, notes = run_anchors(seconds)
        for note in notes:
            say("bench env", f"notice: {note}")
        figures.update(extra)
    print_figures(figures, json_out, RL_TARGETS if seven else {})
