"""What a run prints while it plays: one line per match, trouble at once, running totals.

On a terminal a rich progress bar stays at the bottom and these lines scroll
above it; in a log file (stderr not a terminal) there is one line per
finished match, said through the run's :class:`harness.tournament.voice.Voice`. Either way:

- each match line flags the faults, the bots put out and the failed starts of
  that match (``faults: b timeout 2 | out: c (max_faults ...)``);
- the first failure of each bot (a failed start, a crash, being put out) is
  printed at once with the path of its log, not only in the final summary;
- every :func:`totals_every` matches a line gives each bot's running total
  (bb/100 so far, over the matches finished in this directory).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.match.untrusted import visible
from harness.specs import FaultKind
from harness.tournament.results import MatchRecord, match_files
from harness.tournament.stats import bb_per_100
from harness.tournament.voice import StderrVoice, Voice


def totals_every(total: int) -> int:
    """Matches between two running-total lines: a tenth of the run, at least 10."""
    return max(10, -(-total // 10))


def match_flags(record: MatchRecord) -> str:
    """The trouble of one match in words ("" when none): faults by bot, bots put out, failed starts."""
    res = record.result
    faults = []
    out = []
    failed = []
    for seat, name in enumerate(res.bots):
        counts = {k: v for k, v in res.faults[seat].items() if v}
        if counts.get(FaultKind.FAILED_START):
            failed.append(name)
            continue
        if counts:
            faults.append(f"{name} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        if res.status[seat] != "ok":
            out.append(f"{name} ({res.status[seat]})")
    parts = []
    if failed:
        parts.append("FAILED START: " + ", ".join(failed))
    if out:
        parts.append("OUT: " + "; ".join(out))
    if faults:
        parts.append("faults: " + "; ".join(faults))
    return " | ".join(parts)


class Display:
    """Progress on stderr: a rich live bar on a terminal, else one line per finished match.

    Args:
        name: the tournament's name.
        bots: bot names (for the running totals).
        total: matches in the plan.
        total_hands: hands in the plan.
        done: matches already recorded.
        done_hands: their hands.
        big_blind: chips per big blind.
        out_dir: the output directory (log paths in messages).
        enabled: live bar on/off (None: when stderr is a terminal).
        voice: where the lines go without the live bar (default: stderr); its ``quiet``, if it has one, is
            honoured by the bar too.
    """

    def __init__(self, name: str, bots: Sequence[str], total: int, total_hands: int, done: int, done_hands: int,
                 big_blind: int, out_dir: Path, enabled: bool | None, voice: Voice | None = None) -> None:
        from rich.console import Console

        self.voice: Voice = voice if voice is not None else StderrVoice()
        quiet = bool(getattr(self.voice, "quiet", False))
        self.console = Console(stderr=True, quiet=quiet)  # the live bar's terminal
        self.name = name
        self.bots = list(bots)
        self.total = total
        self.done = done
        self.big_blind = big_blind
        self.out_dir = Path(out_dir)
        self.live = not quiet and (self.console.is_terminal if enabled is None else enabled)
        self.progress: Any = None
        self.start = time.monotonic()
        self.base_hands = done_hands
        self.every = totals_every(total)
        self.finished_here = 0
        self.net: dict[str, int] = defaultdict(int)
        self.hands: dict[str, int] = defaultdict(int)
        self.warned: set[str] = set()
        self.leaders = ""
        if self.live:
            self._start_bar(total_hands, done_hands)

    def _start_bar(self, total_hands: int, done_hands: int) -> None:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.text import Text

        display = self

        class _Progress(Progress):
            def get_renderables(self):  # type: ignore[no-untyped-def]
                yield from super().get_renderables()
                if display.leaders:
                    yield Text("leaders (bb/100 so far): " + display.leaders)

        # auto_refresh=False: no refresh thread, so forking workers stays safe.
        self.progress = _Progress(
            TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[matches]} matches"),
            TextColumn("{task.completed:.0f}/{task.total:.0f} hands"),
            TextColumn("{task.fields[hps]:.0f} hands/s"),
            TimeElapsedColumn(), TimeRemainingColumn(),
            console=self.console, auto_refresh=False, transient=False,
        )
        self.task = self.progress.add_task(
            self.name, total=total_hands, completed=done_hands, matches=f"{self.done}/{self.total}", hps=0.0,
        )
        self.progress.start()

    def seed_totals(self, records: Sequence[MatchRecord]) -> None:
        """Start the running totals from the records already stored."""
        for record in records:
            self._add(record)

    def _add(self, record: MatchRecord) -> None:
        res = record.result
        for seat, name in enumerate(res.bots):
            self.net[name] += res.net[seat]
            self.hands[name] += res.hands_played

    def update(self, hands_done: int) -> None:
        """Move the bar (live mode only)."""
        if not self.live:
            return
        elapsed = max(time.monotonic() - self.start, 1e-9)
        self.progress.update(self.task, completed=hands_done, matches=f"{self.done}/{self.total}",
                             hps=(hands_done - self.base_hands) / elapsed)
        self.progress.refresh()

    def match_done(self, record: MatchRecord) -> None:
        """Report a recorded match: its line (with trouble flags), first failures, running totals."""
        self.done += 1
        self.finished_here += 1
        self._add(record)
        res = record.result
        nets = " ".join(f"{b} {n:+d}" for b, n in zip(res.bots, res.net, strict=True))
        flags = match_flags(record)
        if not self.live or flags:
            self.message(f"[{self.done}/{self.total}] {res.match_id}: {nets} "
                         f"({res.hands_played} hands, {res.duration_s:.1f} s)" + (f" | {flags}" if flags else ""))
        for seat, name in enumerate(res.bots):
            if res.status[seat] != "ok" and name not in self.warned:
                self.warned.add(name)
                log = match_files(self.out_dir, res.match_id) / "logs" / f"{seat}-{name}.err"
                what = "failed to start" if res.faults[seat].get(FaultKind.FAILED_START) else "was put out"
                self.message(f"first failure of bot {name!r}: it {what} in {res.match_id}: {res.status[seat]}; "
                             f"its log: {log}")
        ranked = self._ranked()
        self.leaders = "  ".join(f"{b} {v:+.1f}" for b, v in ranked[:3])
        if self.finished_here % self.every == 0 and self.done < self.total:
            self.message(f"totals after {self.done} of {self.total} matches (bb/100 so far): "
                         + "  ".join(f"{b} {v:+.1f}" for b, v in ranked))

    def match_failed(self, match_id: str, error: str, path: Path) -> None:
        """Report a match whose worker failed (a harness error, not a bot fault)."""
        self.message(f"match {match_id} FAILED: {error}; see {path}")

    def _ranked(self) -> list[tuple[str, float]]:
        values = [(b, bb_per_100(self.net[b], self.hands[b], self.big_blind)) for b in self.bots if self.hands[b]]
        return sorted(values, key=lambda item: (-item[1], item[0]))

    def message(self, text: str) -> None:
        """One line (never wrapped: a log file keeps one line per event); above the live bar when there is one."""
        if self.live:
            self.console.print(visible(text), highlight=False, markup=False, soft_wrap=True)
        else:
            self.voice.say(visible(text))

    def stop(self) -> None:
        """Leave the bar (live mode) in its final state."""
        if self.live:
            self.progress.refresh()
            self.progress.stop()
