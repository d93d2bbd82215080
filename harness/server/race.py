"""The racing final's runner: rounds of the tournament runner over the pairs still racing.

The rule is :mod:`harness.tournament.racing`.

The server starts it in a child process instead of ``harness run`` when ``[final] format = "racing"``
(:func:`harness.server.final.start_final`)::

    python -c "from harness.server.race import main; main()" FINAL_TOML DELTA MIN_TABLES MAX_TABLES

Each round is one :func:`harness.tournament.runner.run_tournament` on the same output directory
with a plan that grows (every pair's tables so far, plus one for each pair still racing): the runner reuses
every recorded match and plays only the new tables, each dealt from a seed committed before it is
played. After each round it writes ``race.json`` (the rule, every pair's state, the standings)
beside the output directory (in the contest's data folder), for the server's pages. Stopped
(SIGTERM) and started again, it makes the same decisions from the same records
(:func:`harness.tournament.racing.replay`) and goes on.

Exit status as ``harness run``: 0 when the race is over, 130 when interrupted, 1 when matches failed
or the cluster was lost, 4 when the disk is full, 2 for a mistake in the file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.report.html import write_report
from harness.server.final import RACE_FILE, read_race
from harness.tournament.cluster import DaskExecutor
from harness.tournament.config import Backend, ConfigError, ScheduleSettings, TournamentConfig, load_config
from harness.tournament.racing import PairState, RaceRule, Racing, replay, standings
from harness.tournament.results import RESULTS_FILE, ResultsError, read_manifest, read_records
from harness.tournament.runner import RunOutcome, run_tournament
from harness.tournament.schedule import PairingStrategy
from harness.tournament.voice import StderrVoice, Voice


@dataclasses.dataclass(frozen=True, slots=True)
class RacingSchedule(ScheduleSettings):
    """``[schedule]`` of one round of the race: a round robin whose pairs play ``plays`` tables each."""

    plays: tuple[tuple[str, str, int], ...] = ()

    def strategy(self, seed: int = 0, previous: tuple[tuple[str, ...], ...] | None = None) -> PairingStrategy:
        """The round's tables (:class:`harness.tournament.racing.Racing`); ``seed`` and ``previous`` unused."""
        return Racing(plays=self.plays, table_size=self.table_size)

    @property
    def label(self) -> str:
        """``racing`` in ``tournament.json`` and the plan's line (its tables are a round robin's, grown by round)."""
        return "racing"


def state(rule: RaceRule, plays: dict[tuple[str, str], int], states: Sequence[PairState], bots: Sequence[str],
          over: bool, hands: int) -> dict[str, Any]:
    """``race.json``'s content: the rule, whether the race is over, each pair and the standings."""
    return {
        "rule": dataclasses.asdict(rule), "over": over, "hands": hands, "bots": list(bots),
        "worst_case_matches": 2 * len(plays) * rule.max_tables,
        "planned_matches": 2 * sum(plays.values()),
        "pairs": [{"pair": list(s.pair), "tables": s.tables, "bb_per_100": s.bb_per_100, "half_width": s.half_width,
                   "racing": s.racing, "separated": s.separated} for s in states],
        "standings": [dataclasses.asdict(r) for r in standings(states, bots)],
    }


def write_state(out: Path, content: dict[str, Any]) -> None:
    """Write ``race.json`` beside the output directory ``out``, whole (a reader never sees half of it)."""
    tmp = out.parent / (RACE_FILE + ".tmp")
    tmp.write_text(json.dumps(content), encoding="utf-8")
    os.replace(tmp, out.parent / RACE_FILE)


def run_race(path: Path, rule: RaceRule) -> int:
    """Play the race of tournament file ``path`` to its end (or an interrupt); the exit status (module docstring)."""
    voice = StderrVoice()
    try:
        config = load_config(path)
    except ConfigError as exc:
        voice.warn(str(exc))
        return 2
    try:
        return _rounds(config, rule, voice)
    except HarnessError as exc:  # a damaged or foreign output directory, a lost cluster before any match
        voice.warn(str(exc))
        return 2 if isinstance(exc, ResultsError) else 1


def _report(out_dir: Path, *, running: bool = False, voice: Voice | None = None) -> None:
    """The final's report of ``out_dir`` (while it plays: ``running``), headed by the race's own standings
    (``race.json``: the final's order); a failure is one warning (the results are safe: the next round, or
    ``harness report``, writes it again)."""
    try:
        write_report(out_dir, running=running, race=read_race(out_dir.parent))
    except Exception as exc:  # noqa: BLE001 - e.g. a full disk: the run says so on its own
        (voice or StderrVoice()).warn(f"the report of {out_dir} could not be written: {exc}")


def _running_report(out_dir: Path) -> None:
    _report(out_dir, running=True)


def _rounds(config: TournamentConfig, rule: RaceRule, voice: Voice) -> int:
    """The rounds of :func:`run_race`, its exit status."""
    out = config.tournament.output
    bots = list(config.bot_names)
    with contextlib.suppress(ResultsError, OSError, KeyError, TypeError):  # resumed: the bots that raced
        bots = [str(b) for b in read_manifest(out)["bots"]]  # (an entry check may have left some out)
    executor = DaskExecutor.for_config(config) if config.schedule.backend is Backend.DASK else None
    try:
        while True:
            records = read_records(out) if (out / RESULTS_FILE).exists() else []
            plays, states, over = replay(records, bots, rule)
            out.parent.mkdir(parents=True, exist_ok=True)
            write_state(out, state(rule, plays, states, bots, over, config.schedule.hands))
            if over:
                _report(out, voice=voice)
                return 0
            fields = {f.name: getattr(config.schedule, f.name) for f in dataclasses.fields(ScheduleSettings)}
            schedule = RacingSchedule(**fields, plays=tuple((a, b, n) for (a, b), n in sorted(plays.items())))
            summary = run_tournament(dataclasses.replace(config, schedule=schedule), report=_running_report,
                                     executor=executor, voice=voice)
            if summary.outcome is RunOutcome.INTERRUPTED:
                return 130
            if summary.outcome is RunOutcome.STORAGE:
                return 4
            if summary.outcome is RunOutcome.STOPPED or summary.failed:
                voice.warn(summary.stopped or f"{len(summary.failed)} matches failed; the final stops here")
                return 1
            if list(summary.bots) != bots:  # the entry check left some out: they race no more
                bots = list(summary.bots)
            elif not summary.matches_run:  # nothing new played and nothing decided: never loop
                plays_now, _, over_now = replay(read_records(out), bots, rule)
                if not over_now and plays_now == plays:
                    voice.warn("a round played no match and decided nothing; the final stops here")
                    return 1
    finally:
        if executor is not None:
            executor.close()


def main() -> None:
    """The child process's entry: ``FINAL_TOML DELTA MIN_TABLES MAX_TABLES`` (module docstring)."""
    path, delta, least, most = sys.argv[1:5]
    sys.exit(run_race(Path(path), RaceRule(delta=float(delta), min_tables=int(least), max_tables=int(most))))
