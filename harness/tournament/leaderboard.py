"""Leaderboard tables: text (tabulate), Markdown and CSV from an output directory's records.

The numbers come from :mod:`harness.tournament.stats` and
:mod:`harness.tournament.ratings`; this module only lays them out and
writes ``leaderboard.md``, ``leaderboard.csv`` and ``los.csv`` (the
likelihood of superiority of every bot over every other) into the output
directory. The files carry every column (:data:`COLUMNS`, one per fault
kind); the text printed on a terminal keeps to :data:`SCREEN_COLUMNS`
(at most about 100 characters wide), with the interval in one cell, the
faults summed, and the crosstable only for up to :data:`SCREEN_CROSSTABLE_BOTS` bots.

One function reads a directory and writes its files (:func:`write_leaderboard`):
``harness run`` calls it at the end of a run and ``harness leaderboard`` on
demand, so both write byte-identical files for the same directory. What it
counts: the records the plan in ``tournament.json`` names, of tables whose
every rotation is recorded (:func:`harness.tournament.stats.score`). Bots that
failed their entry check (``entries.json``) or failed to start or were put out
in more than half their matches are listed below the ranked bots, with the reason.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabulate import tabulate

from harness.match.untrusted import csv_cell, md_cell, visible
from harness.tournament.ratings import MIN_RESAMPLED_SETS, Rankings, rankings
from harness.tournament.results import (
    MANIFEST_FILE,
    RESULTS_FILE,
    MatchRecord,
    ResultsError,
    StoredResults,
    read_manifest,
    read_results,
)
from harness.tournament.stats import (
    FAULT_COLUMNS,
    Scoring,
    Standing,
    crosstable,
    score,
    set_hands,
    standings,
    unranked,
)

#: The entry check's file in an output directory (written by harness.tournament.entries).
ENTRIES_FILE = "entries.json"
#: Incomplete tables named one by one in a notice (the rest are counted).
_NAMED_TABLES = 5

COLUMNS: tuple[str, ...] = (
    "rank",
    "bot",
    "hands",
    "net_chips",
    "bb_per_100",
    "ci95_low",
    "ci95_high",
    "rank_group",
    "rank_low",
    "rank_high",
    "los_next",
    "runoff_rank",
    "bankroll_rank",
    "rating_mu",
    "rating_sigma",
    "matches_won",
    "matches_lost",
    *(column for _, column in FAULT_COLUMNS),
    "put_out",
    "note",
)

#: Columns of the printed (terminal) table, as headed there; the files have all of :data:`COLUMNS`.
SCREEN_COLUMNS: tuple[str, ...] = ("rank", "bot", "bb/100", "95% CI", "ranks", "LOS", "IRO", "won", "lost",
                                   "faults", "out")
#: The printed crosstable is left out above this many bots (it is in leaderboard.md and the report).
SCREEN_CROSSTABLE_BOTS = 10

SCREEN_EXPLANATION = (
    "bb/100: big blinds won per 100 hands; 95% CI: its confidence interval over "
    "duplicate sets (one deal in every seat rotation of a table is one observation; blank with fewer than 2). "
    "rank: the rank group "
    "(bots whose bootstrap rank intervals overlap share one); ranks: the bot's own 95% rank interval. "
    "LOS: likelihood that the bot is better than the one below it. IRO: instant run-off position (heads-up, "
    "ACPC); rating: Plackett-Luce mu +- 1.96 sigma (3-6 seats). won/lost: "
    "matches finished ahead/behind. faults: replies replaced by the default action (timeouts, "
    "illegal, malformed, oversized, crashes, disconnections, failed starts: one column each in leaderboard.csv "
    "and leaderboard.md); out: matches in which the bot was put out. Crosstable: row bot's bb/100 "
    "at tables shared with the column bot; * = the 95% CI excludes 0."
)

EXPLANATION = (
    "bb_per_100: big blinds won per 100 hands. ci95_low..ci95_high: 95% confidence interval "
    "computed over duplicate sets (one deal played in every seat rotation of a table is one "
    "observation: the bot's net summed over those hands), Student's t on their standard error; blank with "
    f"fewer than 2 sets, and rank_low, rank_high and los_next blank (one rank group) with fewer than "
    f"{MIN_RESAMPLED_SETS} sets to resample. "
    "rank_low..rank_high: the 2.5-97.5% range of the bot's rank over bootstrap resamples of the duplicate sets "
    "(stratified by table, seeded); rank_group: the positions spanned by the run of bots whose rank intervals "
    "overlap. los_next: likelihood of superiority over the next bot (los.csv has every pair). runoff_rank and "
    "bankroll_rank (heads-up): ACPC instant run-off and total-bankroll positions. rating_mu, rating_sigma "
    "(3-6 seats): Plackett-Luce rating (openskill), a skill rating, not bb/100. "
    "matches_won/lost: matches finished ahead/behind. Fault columns count replies the referee "
    "replaced by the default action; put_out: matches in which the bot was put out; note: why a bot "
    "is not ranked. Only complete duplicate sets are scored (every rotation of a table recorded). "
    "Crosstable: row bot's bb/100 at tables shared with the column bot; * = the 95% CI excludes 0."
)


def ranked(records: Sequence[MatchRecord], table: Sequence[Standing]) -> Rankings:
    """The statistics of :mod:`harness.tournament.ratings` for the ranked bots of ``table`` that played, in order."""
    return rankings(records, [s.bot for s in table if s.hands > 0 and s.rank is not None])


def rows(table: Sequence[Standing], ranks: Rankings | None = None,
         notes: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Leaderboard rows as dicts keyed by :data:`COLUMNS` (floats rounded to 0.01, missing values as None).

    ``notes`` gives the reason a bot is not ranked (its ``note``; "" for ranked bots).
    """
    out = []
    for s in table:
        est = s.estimate
        row: dict[str, Any] = {
            "rank": s.rank,
            "bot": s.bot,
            "hands": s.hands,
            "net_chips": s.net_chips,
            "bb_per_100": round(est.bb_per_100, 2) if est.sets else None,  # no set: nothing measured
            "ci95_low": None if est.low is None else round(est.low, 2),
            "ci95_high": None if est.high is None else round(est.high, 2),
            **_ranking_cells(s.bot, ranks),
            "matches_won": s.matches_won,
            "matches_lost": s.matches_lost,
        }
        for kind, column in FAULT_COLUMNS:
            row[column] = s.faults.get(kind, 0)
        row["put_out"] = s.put_out
        row["note"] = notes.get(s.bot, "") if notes else ""
        out.append(row)
    return out


def _ranking_cells(bot: str, ranks: Rankings | None) -> dict[str, Any]:
    """The ranking columns of one bot (None where a statistic does not apply or the bot is not ranked)."""
    cells: dict[str, Any] = dict.fromkeys(
        ("rank_group", "rank_low", "rank_high", "los_next", "runoff_rank", "bankroll_rank", "rating_mu",
         "rating_sigma"))
    if ranks is None or bot not in ranks.order:
        return cells
    boot = ranks.bootstrap
    los = ranks.los_next(bot)
    cells.update(rank_group=ranks.groups.get(bot), rank_low=boot.rank_low.get(bot), rank_high=boot.rank_high.get(bot),
                 los_next=None if los is None else round(los, 3))
    if ranks.runoff is not None:
        cells.update(runoff_rank=ranks.runoff.rank.get(bot), bankroll_rank=(ranks.bankroll or {}).get(bot))
    if ranks.ratings is not None and bot in ranks.ratings:
        rating = ranks.ratings[bot]
        cells.update(rating_mu=round(rating.mu, 2), rating_sigma=round(rating.sigma, 2))
    return cells


def screen_rows(table: Sequence[Standing], ranks: Rankings | None = None) -> list[dict[str, Any]]:
    """Rows keyed by :data:`SCREEN_COLUMNS`: bb/100 signed, intervals as ``"low..high"``, faults summed.

    ``rank`` is the rank group, ``ranks`` the bot's rank interval, ``LOS`` its
    likelihood of superiority over the next row, ``IRO`` its instant run-off
    position (heads-up) or, headed ``rating``, its Plackett-Luce mu +- 1.96 sigma.
    """
    out = []
    for row in rows(table, ranks):
        low, high = row["ci95_low"], row["ci95_high"]
        if row["rating_mu"] is not None:
            third = f"{row['rating_mu']:.1f}+-{1.96 * row['rating_sigma']:.1f}"
        else:
            third = "" if row["runoff_rank"] is None else row["runoff_rank"]
        ranks_cell = "" if row["rank_low"] is None else (
            f"{row['rank_low']}" if row["rank_low"] == row["rank_high"] else f"{row['rank_low']}-{row['rank_high']}")
        values = (
            row["rank_group"] or ("-" if row["rank"] is None else row["rank"]), row["bot"],
            "" if row["bb_per_100"] is None else f"{row['bb_per_100']:+.2f}",
            "" if low is None or high is None else f"{low:+.1f}..{high:+.1f}",
            ranks_cell, "" if row["los_next"] is None else f"{row['los_next']:.2f}", third,
            row["matches_won"], row["matches_lost"], sum(row[column] for _, column in FAULT_COLUMNS), row["put_out"],
        )
        out.append(dict(zip(SCREEN_COLUMNS, values, strict=True)))
    return out


def los_rows(ranks: Rankings) -> tuple[list[str], list[list[str]]]:
    """The likelihood-of-superiority matrix: headers and rows (row bot better than column bot), 3 decimals.

    A pair without a LOS (a bot with too few duplicate sets: :class:`RankBootstrap` ``too_few``) is blank.
    """
    order = [b for b in ranks.order if b in ranks.bootstrap.bb_per_100]
    los = ranks.bootstrap.los
    body = [[row, *("" if (row, col) not in los else f"{los[(row, col)]:.3f}" for col in order)] for row in order]
    return ["bot", *order], body


def plural(count: int, word: str) -> str:
    """``"1 match"``, ``"2 matches"``, ``"0 hands"``."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{count} {word}s"


def crosstable_rows(records: Sequence[MatchRecord], order: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Crosstable as headers and string rows (bots in leaderboard order, '*' marks significance)."""
    cells = crosstable(records, order)
    headers = ["bot", *order]
    body = []
    for row in order:
        line = [row]
        for col in order:
            est = cells.get((row, col))
            if row == col or est is None:
                line.append("")
            else:
                line.append(f"{est.bb_per_100:+.1f}{'*' if est.significant else ''}")
        body.append(line)
    return headers, body


#: Longest bot name printed whole on a terminal; longer ones keep their start and end (files have them whole).
SCREEN_NAME_CHARS = 24


def screen_name(name: str) -> str:
    """A bot name shortened for the terminal table: ``"student_bot_wi~e_name_01"`` (start ~ end) if too long."""
    if len(name) <= SCREEN_NAME_CHARS:
        return name
    tail = 8
    return name[: SCREEN_NAME_CHARS - tail - 1] + "~" + name[-tail:]


def _screen_table(data: Sequence[Mapping[Any, Any]], headers: Sequence[str]) -> str:
    """The terminal table: tabulate's "simple" look without its padding of headers (2 spaces between columns)."""
    body = [[screen_name(v) if h == "bot" else v for h, v in zip(headers, r.values(), strict=True)] for r in data]
    texts = [[str(h) for h in headers], *[["" if v is None else str(v) for v in row] for row in body]]
    widths = [max(len(row[i]) for row in texts) for i in range(len(headers))]
    rule = ["-" * w for w in widths]
    align = ["left" if h == "bot" else "right" for h in headers]
    text: str = tabulate([texts[0], rule, *texts[1:]], tablefmt="plain", disable_numparse=True, colalign=align)
    return text


def _screen_crosstable(records: Sequence[MatchRecord], table: Sequence[Standing], width: int = 100) -> str | None:
    """The crosstable for a terminal, columns numbered by row, whole bb/100; None if wider than ``width``."""
    order = [s.bot for s in table]
    _, body = crosstable_rows(records, order)
    rows_ = []
    for number, line in enumerate(body, start=1):
        cells = []
        for cell in line[1:]:
            star = cell.endswith("*")
            cells.append(f"{float(cell.rstrip('*')):+.0f}{'*' if star else ''}" if cell else "")
        rows_.append([number, screen_name(line[0]), *cells])
    text = _screen_table([dict(enumerate(r)) for r in rows_], ["", "bot", *map(str, range(1, len(order) + 1))])
    return text if max(len(line) for line in text.splitlines()) <= width else None


def _shorten(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters, ending in "..." when cut."""
    return text if len(text) <= room else text[: room - 3] + "..."


def _table(data: list[dict[str, Any]], headers: Sequence[str], tablefmt: str, *, as_text: bool = False) -> str:
    body = [list(r.values()) for r in data]
    align = tuple("left" if h == "bot" else "right" for h in headers) if data else None
    text: str = tabulate(body, headers=list(headers), tablefmt=tablefmt, floatfmt=".2f", missingval="",
                         colalign=align, disable_numparse=as_text)
    return text


@dataclass(slots=True)
class Board:
    """Everything a leaderboard shows, read from one output directory (:func:`load_board`).

    Attributes:
        title: the tournament's name, with "(PARTIAL: n of m matches)" until every planned match is recorded.
        bots: the plan's bots, then bots left out by the entry check.
        scoring: which records count (:func:`harness.tournament.stats.score`).
        unranked: ``{bot: reason}`` for bots listed below the ranked ones.
        notices: what a reader should be told (incomplete tables, records not
            counted, a torn last line), one line each, for stderr.
        recorded: planned matches with a record.
        records: the plan's records (complete tables or not; never records outside the plan).
        ranks: the rankings (bootstrap, ratings), computed once by :func:`write_leaderboard` and
            reused by the report; None until then.
    """

    title: str
    bots: list[str]
    scoring: Scoring
    unranked: dict[str, str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    recorded: int = 0
    records: list[MatchRecord] = field(default_factory=list)
    ranks: Rankings | None = None

    def standings(self) -> list[Standing]:
        """Ranked bots by bb/100, then the others (rank None) in the order of :attr:`bots`."""
        ranked = [b for b in self.bots if b not in self.unranked]
        table = standings(self.scoring.scored, ranked)
        below = [standings(self.scoring.scored, [b], ranked=False)[0] for b in self.bots if b in self.unranked]
        return table + below


def read_entries(out_dir: Path) -> dict[str, dict[str, Any]]:
    """``entries.json`` of a directory, by bot ({} when there is none or it is unreadable)."""
    try:
        data = json.loads((Path(out_dir) / ENTRIES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    bots = data.get("bots") if isinstance(data, dict) else None
    return {str(k): v for k, v in bots.items() if isinstance(v, dict)} if isinstance(bots, dict) else {}


def entry_failures(entries: Mapping[str, Mapping[str, Any]], plan_bots: Sequence[str]) -> dict[str, str]:
    """``{bot: reason}`` of bots the entry check left out of the plan (those not in ``plan_bots``)."""
    return {name: str(e.get("reason") or "failed") for name, e in entries.items()
            if not e.get("ok") and name not in plan_bots}


def make_board(records: Sequence[MatchRecord], *, title: str = "Leaderboard", bots: Sequence[str] | None = None,
               plan: Mapping[str, tuple[str, str]] | None = None, entry_failures: Mapping[str, str] | None = None,
               notices: Sequence[str] = (), results_path: Path | None = None) -> Board:
    """Build a :class:`Board` from records (pure: no I/O).

    Args:
        records: stored records (first record per match id).
        title: the tournament's name.
        bots: the plan's bots (default: every bot in the records).
        plan: ``{match_id: (table, fingerprint)}`` of the plan (None: every record
            counts, tables grouped by their own ``rotations``).
        entry_failures: ``{bot: reason}`` of bots the entry check left out.
        notices: notices found while reading (e.g. a torn last line).
        results_path: the results file, named in the notice about records not counted.
    """
    scoring = score(records, plan)
    foreign = {id(r) for r in scoring.foreign}
    in_plan = [r for r in records if id(r) not in foreign]
    names = list(bots) if bots is not None else _names(records)
    failures = {b: why for b, why in (entry_failures or {}).items() if b not in names}
    everyone = names + list(failures)
    notes = list(notices)
    if scoring.incomplete:
        named = ", ".join(f"{t} ({got} of {want})" for t, got, want in scoring.incomplete[:_NAMED_TABLES])
        more = len(scoring.incomplete) - _NAMED_TABLES
        notes.append(
            f"{plural(len(scoring.incomplete), 'table')} with missing rotations not scored: {named}"
            + (f" and {more} more" if more > 0 else "") + "; `harness run` plays the missing matches"
        )
    if scoring.foreign:
        where = f"{results_path}: " if results_path is not None else ""
        notes.append(
            f"{where}{plural(len(scoring.foreign), 'record')} not in the current plan of "
            f"{MANIFEST_FILE} (earlier results of changed bots, or copied lines) not counted: "
            + ", ".join(r.match_id for r in scoring.foreign[:_NAMED_TABLES])
            + (f" and {len(scoring.foreign) - _NAMED_TABLES} more" if len(scoring.foreign) > _NAMED_TABLES else "")
        )
    recorded = len(in_plan)
    if scoring.planned is not None and recorded < scoring.planned:
        title = f"{title} (PARTIAL: {recorded} of {plural(scoring.planned, 'match')})"
    return Board(title=title, bots=everyone, scoring=scoring, unranked=unranked(in_plan, everyone, failures),
                 notices=notes, recorded=recorded, records=in_plan)


def load_board(out_dir: Path, stored: StoredResults | None = None) -> Board:
    """Read a tournament output directory into a :class:`Board` (reads only).

    ``stored``: what ``results.jsonl`` holds, when the caller has read it already (the end of
    ``harness run``); None reads it.

    Raises:
        ResultsError: no such directory, no results, a missing or damaged
            ``tournament.json`` or a damaged line in ``results.jsonl``.
    """
    out_dir = Path(out_dir)
    info = read_manifest(out_dir)
    if stored is None:
        stored = read_results(out_dir)
    if not info:
        # Without the plan, results superseded when a bot changed (still in results.jsonl: nothing
        # recorded is ever deleted) cannot be told from current ones: counting them all would
        # publish a wrong leaderboard over the right one.
        raise ResultsError(
            f"{out_dir / MANIFEST_FILE}: missing; without the tournament's plan, results superseded when a bot "
            "changed cannot be told from current ones, so no leaderboard is written (the files there are kept); "
            f"restore {MANIFEST_FILE}, or run `harness run CONFIG --out {out_dir}` with the tournament's file: "
            "it rewrites it and replays no recorded match still in the plan"
        )
    bots = info.get("bots")
    if bots is not None and not (isinstance(bots, list) and all(isinstance(b, str) for b in bots)):
        raise ResultsError(f"{out_dir / MANIFEST_FILE}: \"bots\" must be a list of names; restore the file")
    names = list(bots) if bots is not None else _names(stored.records)
    records = stored.records
    stack = freezeout_stack(info)
    if stack is not None:  # who was seated at each hand of a freezeout: a set needs every bot (stats.set_deals)
        records = [dataclasses.replace(r, freezeout_stack=stack) for r in records]
    return make_board(records, title=str(info.get("name", out_dir.name)), bots=names,
                      plan=_plan_of(info, out_dir), entry_failures=entry_failures(read_entries(out_dir), names),
                      notices=stored.notices, results_path=out_dir / RESULTS_FILE)


def freezeout_stack(info: Mapping[str, Any]) -> int | None:
    """The starting stack of a freezeout from ``tournament.json``'s settings (None: stacks reset every hand)."""
    settings = info.get("settings")
    if not isinstance(settings, Mapping) or settings.get("[game] stack_mode") != "freezeout":
        return None
    stack = settings.get("[game] starting_stack")
    return stack if isinstance(stack, int) and not isinstance(stack, bool) and stack > 0 else None


def _names(records: Sequence[MatchRecord]) -> list[str]:
    seen: dict[str, None] = {}
    for rec in records:
        for name in rec.result.bots:
            seen.setdefault(name, None)
    return list(seen)


def _plan_of(info: Mapping[str, Any], out_dir: Path) -> dict[str, tuple[str, str]] | None:
    """``{match_id: (table, fingerprint)}`` from ``tournament.json`` (None when it has no plan)."""
    matches = info.get("matches")
    if matches is None:
        return None
    plan: dict[str, tuple[str, str]] = {}
    try:
        for match_id, table, _rotation, fingerprint in matches:
            plan[str(match_id)] = (str(table), str(fingerprint))
    except (TypeError, ValueError):
        raise ResultsError(
            f"{out_dir / MANIFEST_FILE}: \"matches\" must list [id, table, rotation, fingerprint]; "
            "restore the file, or run `harness run` again to rewrite it"
        ) from None
    return plan


def render(board: Board, *, tablefmt: str = "simple", wide: bool | None = None,
           ranks: Rankings | None = None) -> str:
    """Render the leaderboard and crosstable as text.

    Args:
        board: what to show (:func:`load_board` or :func:`make_board`).
        tablefmt: a tabulate format ("simple" for terminals, "github" for Markdown).
        wide: every column of :data:`COLUMNS` (default: only for Markdown);
            otherwise the narrower :data:`SCREEN_COLUMNS`.
        ranks: the statistics of :func:`ranked` if already computed for this board.
    """
    if wide is None:
        wide = tablefmt == "github"
    records = board.scoring.scored
    table = board.standings()
    if ranks is None:
        ranks = ranked(records, table)
    ranked_rows = [s for s in table if s.rank is not None]
    below = [s for s in table if s.rank is None]
    played = [s for s in table if s.hands]
    total_hands = set_hands(records)
    played_hands = sum(r.result.hands_played for r in records)
    md = tablefmt == "github"
    headers_shown = [("rating" if h == "IRO" and ranks.ratings is not None else h) for h in SCREEN_COLUMNS]

    # Reasons quote bots' stderr and messages: inert in a Markdown cell, or on a terminal.
    cell = md_cell if md else visible
    notes = {bot: cell(why) for bot, why in board.unranked.items()}

    def layout(part: Sequence[Standing]) -> str:
        if wide:
            return _table(rows(part, ranks, notes), COLUMNS, tablefmt)
        screen = screen_rows(part, ranks)
        return _screen_table(screen, headers_shown) if tablefmt == "simple" else \
            _table(screen, headers_shown, tablefmt, as_text=True)

    note = EXPLANATION if wide else SCREEN_EXPLANATION
    counted = f"{plural(len(records), 'match')}, {plural(total_hands, 'hand')} scored."
    if played_hands != total_hands:
        counted = (f"{plural(len(records), 'match')}, {plural(played_hands, 'hand')}; bb/100 over the "
                   f"{plural(total_hands, 'hand')} in duplicate sets (a freezeout deal not played in every rotation "
                   "with every bot of the table seated is no set).")
    if board.scoring.incomplete:
        counted += f" {plural(len(board.scoring.incomplete), 'table')} incomplete (not scored)."
    if ranks.bootstrap.too_few:
        few = ranks.bootstrap.too_few
        counted += (f" No rank interval and no LOS for {', '.join(cell(b) for b in few[:_NAMED_TABLES])}"
                    + (f" and {len(few) - _NAMED_TABLES} more" if len(few) > _NAMED_TABLES else "")
                    + f": fewer than {MIN_RESAMPLED_SETS} duplicate sets to resample (so few would claim a "
                    + "certainty they do not give), so every bot shares one rank group.")
    parts = [f"# {cell(board.title)}", "", counted, "", layout(ranked_rows), ""] if md else \
        [visible(board.title), "", textwrap.fill(counted, width=100), "", layout(ranked_rows), ""]
    if below:
        parts += [("## " if md else "") + "Not ranked", ""]
        if wide:
            parts.append(layout(below))
        else:
            room = max(40, 98 - max(len(screen_name(s.bot)) for s in below))  # the files have it whole
            reasons = [[screen_name(s.bot), _shorten(notes[s.bot], room)] for s in below]
            parts.append(tabulate(reasons, headers=["bot", "why"], tablefmt=tablefmt, disable_numparse=True))
        parts.append("")
    if board.scoring.incomplete:
        parts += [("## " if md else "") + "Incomplete tables (not scored)", "",
                  ", ".join(f"{t} ({got} of {want} matches)" for t, got, want in board.scoring.incomplete), ""]
    cross_title = ("## " if md else "") + "Crosstable (row bot's bb/100 against column bot)"
    screen_cross = None if md or len(played) > SCREEN_CROSSTABLE_BOTS else _screen_crosstable(records, played)
    if md or tablefmt != "simple":
        headers, body = crosstable_rows(records, [s.bot for s in played])
        parts += [cross_title, "", tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                                            colalign=("left", *("right" for _ in headers[1:]))), ""]
    elif screen_cross is not None:
        parts += [cross_title + "; columns by row number", "", screen_cross, ""]
    else:
        parts += [textwrap.fill(f"Crosstable and likelihoods of superiority of {len(played)} bots: in "
                                "leaderboard.md, los.csv and the report (harness report DIR).", width=100), ""]
    if md and ranks.bootstrap.bots:
        headers, body = los_rows(ranks)
        parts += ["## Likelihood of superiority (row bot better than column bot)", "",
                  tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                           colalign=("left", *("right" for _ in headers[1:]))), ""]
    parts.append(note if md else textwrap.fill(note, width=100))
    return "\n".join(parts) + "\n"


def to_csv(board: Board, *, ranks: Rankings | None = None) -> str:
    """The leaderboard as CSV text with a header row of :data:`COLUMNS` (not-ranked bots last, rank empty)."""
    table = board.standings()
    if ranks is None:
        ranks = ranked(board.scoring.scored, table)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows(table, ranks, {bot: csv_cell(why) for bot, why in board.unranked.items()}):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


def los_csv(ranks: Rankings) -> str:
    """The likelihood-of-superiority matrix as CSV (``los.csv``): row bot better than column bot."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    headers, body = los_rows(ranks)
    writer.writerow(headers)
    writer.writerows(body)
    return buf.getvalue()


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_leaderboard(out_dir: Path, stored: StoredResults | None = None) -> tuple[Board, str]:
    """Read ``out_dir`` and write its ``leaderboard.md``, ``leaderboard.csv`` and ``los.csv``.

    The same directory always gives the same files, whoever calls this
    (``harness run`` at the end, ``harness leaderboard`` later). ``stored``: as :func:`load_board`.

    Returns:
        The board (its ``notices`` are for stderr; its ``ranks`` set) and the text for a terminal.

    Raises:
        ResultsError: see :func:`load_board`.
        OSError: the files cannot be written.
    """
    out_dir = Path(out_dir)
    board = load_board(out_dir, stored)
    ranks = board.ranks = ranked(board.scoring.scored, board.standings())
    _write(out_dir / "leaderboard.md", render(board, tablefmt="github", ranks=ranks))
    _write(out_dir / "leaderboard.csv", to_csv(board, ranks=ranks))
    _write(out_dir / "los.csv", los_csv(ranks))
    return board, render(board, ranks=ranks)
