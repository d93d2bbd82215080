"""Leaderboard tables: text (tabulate), Markdown and CSV from match records.

The numbers come from :mod:`harness.tournament.stats` and
:mod:`harness.tournament.ratings`; this module only lays them out and
writes ``leaderboard.md``, ``leaderboard.csv`` and ``los.csv`` (the
likelihood of superiority of every bot over every other) into the output
directory. The files carry every column (:data:`COLUMNS`, one per fault
kind); the text printed on a terminal keeps to :data:`SCREEN_COLUMNS`
(at most about 100 characters wide), with the interval in one cell, the
faults summed, and the crosstable only for up to :data:`SCREEN_CROSSTABLE_BOTS` bots.
"""

from __future__ import annotations

import csv
import io
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from harness.tournament.ratings import Rankings, rankings
from harness.tournament.results import MatchRecord, read_records
from harness.tournament.stats import FAULT_COLUMNS, Standing, crosstable, standings

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
)

#: Columns of the printed (terminal) table, as headed there; the files have all of :data:`COLUMNS`.
SCREEN_COLUMNS: tuple[str, ...] = ("rank", "bot", "bb/100", "95% CI", "ranks", "LOS", "IRO", "won", "lost",
                                   "faults", "out")
#: The printed crosstable is left out above this many bots (it is in leaderboard.md and the report).
SCREEN_CROSSTABLE_BOTS = 10

SCREEN_EXPLANATION = (
    "bb/100: big blinds won per 100 hands; 95% CI: its confidence interval over "
    "duplicate sets (one deal in every seat rotation of a table is one observation). rank: the rank group "
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
    "observation: the bot's net summed over those hands), Student's t on their standard error. "
    "rank_low..rank_high: the 2.5-97.5% range of the bot's rank over bootstrap resamples of the duplicate sets "
    "(stratified by table, seeded); rank_group: the positions spanned by the run of bots whose rank intervals "
    "overlap. los_next: likelihood of superiority over the next bot (los.csv has every pair). runoff_rank and "
    "bankroll_rank (heads-up): ACPC instant run-off and total-bankroll positions. rating_mu, rating_sigma "
    "(3-6 seats): Plackett-Luce rating (openskill), a skill rating, not bb/100. "
    "matches_won/lost: matches finished ahead/behind. Fault columns count replies the referee "
    "replaced by the default action; put_out: matches in which the bot was put out. "
    "Crosstable: row bot's bb/100 at tables shared with the column bot; * = the 95% CI excludes 0."
)


def ranked(records: Sequence[MatchRecord], table: Sequence[Standing]) -> Rankings:
    """The statistics of :mod:`harness.tournament.ratings` for the bots of ``table`` that played, in its order."""
    return rankings(records, [s.bot for s in table if s.hands > 0])


def rows(table: Sequence[Standing], ranks: Rankings | None = None) -> list[dict[str, Any]]:
    """Leaderboard rows as dicts keyed by :data:`COLUMNS` (floats rounded to 0.01, missing values as None)."""
    out = []
    for s in table:
        est = s.estimate
        row: dict[str, Any] = {
            "rank": s.rank,
            "bot": s.bot,
            "hands": s.hands,
            "net_chips": s.net_chips,
            "bb_per_100": round(est.bb_per_100, 2),
            "ci95_low": None if est.low is None else round(est.low, 2),
            "ci95_high": None if est.high is None else round(est.high, 2),
            **_ranking_cells(s.bot, ranks),
            "matches_won": s.matches_won,
            "matches_lost": s.matches_lost,
        }
        for kind, column in FAULT_COLUMNS:
            row[column] = s.faults.get(kind, 0)
        row["put_out"] = s.put_out
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
            row["rank_group"] or row["rank"], row["bot"], f"{row['bb_per_100']:+.2f}",
            "" if low is None or high is None else f"{low:+.1f}..{high:+.1f}",
            ranks_cell, "" if row["los_next"] is None else f"{row['los_next']:.2f}", third,
            row["matches_won"], row["matches_lost"], sum(row[column] for _, column in FAULT_COLUMNS), row["put_out"],
        )
        out.append(dict(zip(SCREEN_COLUMNS, values, strict=True)))
    return out


def los_rows(ranks: Rankings) -> tuple[list[str], list[list[str]]]:
    """The likelihood-of-superiority matrix: headers and rows (row bot better than column bot), 3 decimals."""
    order = [b for b in ranks.order if b in ranks.bootstrap.bb_per_100]
    body = [[row, *("" if row == col else f"{ranks.bootstrap.los[(row, col)]:.3f}" for col in order)]
            for row in order]
    return ["bot", *order], body


def split_foreign(
    records: Sequence[MatchRecord], bots: Sequence[str] | None
) -> tuple[list[MatchRecord], list[MatchRecord]]:
    """Split records into those of the given bots and those with any other bot ("foreign").

    With ``bots`` None every record is kept. A foreign record (e.g. a line
    pasted from another tournament) would count in the totals but have no
    row, so it is left out everywhere.
    """
    if bots is None:
        return list(records), []
    names = set(bots)
    kept = [r for r in records if set(r.result.bots) <= names]
    return kept, [r for r in records if not set(r.result.bots) <= names]


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


def _screen_table(data: list[dict[str, Any]], headers: Sequence[str]) -> str:
    """The terminal table: tabulate's "simple" look without its padding of headers (2 spaces between columns)."""
    body = [[screen_name(v) if h == "bot" else v for h, v in zip(headers, r.values(), strict=True)] for r in data]
    texts = [[str(h) for h in headers], *[["" if v is None else str(v) for v in row] for row in body]]
    widths = [max(len(row[i]) for row in texts) for i in range(len(headers))]
    rule = ["-" * w for w in widths]
    align = ["left" if h == "bot" else "right" for h in headers]
    return tabulate([texts[0], rule, *texts[1:]], tablefmt="plain", disable_numparse=True, colalign=align)


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


def _table(data: list[dict[str, Any]], headers: Sequence[str], tablefmt: str, *, as_text: bool = False) -> str:
    body = [list(r.values()) for r in data]
    align = tuple("left" if h == "bot" else "right" for h in headers) if data else None
    return tabulate(body, headers=list(headers), tablefmt=tablefmt, floatfmt=".2f", missingval="",
                    colalign=align, disable_numparse=as_text)


def render(records: Sequence[MatchRecord], *, title: str = "Leaderboard", tablefmt: str = "simple",
           bots: Sequence[str] | None = None, wide: bool | None = None, ranks: Rankings | None = None) -> str:
    """Render the leaderboard and crosstable as text.

    Args:
        records: match records of one tournament.
        title: first line.
        tablefmt: a tabulate format ("simple" for terminals, "github" for Markdown).
        bots: names to list (default: every bot in the records); records
            with any other bot are left out (see :func:`split_foreign`).
        wide: every column of :data:`COLUMNS` (default: only for Markdown);
            otherwise the narrower :data:`SCREEN_COLUMNS`.
        ranks: the statistics of :func:`ranked` if already computed for these records.
    """
    records, _ = split_foreign(records, bots)
    if wide is None:
        wide = tablefmt == "github"
    table = standings(records, bots)
    if ranks is None:
        ranks = ranked(records, table)
    total_hands = sum(r.result.hands_played for r in records)
    md = tablefmt == "github"
    if wide:
        board = _table(rows(table, ranks), COLUMNS, tablefmt)
    else:
        screen = screen_rows(table, ranks)
        headers_shown = [("rating" if h == "IRO" and ranks.ratings is not None else h) for h in SCREEN_COLUMNS]
        board = _screen_table(screen, headers_shown) if tablefmt == "simple" else \
            _table(screen, headers_shown, tablefmt, as_text=True)
    note = EXPLANATION if wide else SCREEN_EXPLANATION
    parts = [f"# {title}" if md else title, "", f"{plural(len(records), 'match')}, {plural(total_hands, 'hand')}.",
             "", board, ""]
    cross_title = ("## " if md else "") + "Crosstable (row bot's bb/100 against column bot)"
    screen_cross = None if md or len(table) > SCREEN_CROSSTABLE_BOTS else _screen_crosstable(records, table)
    if md or tablefmt != "simple":
        headers, body = crosstable_rows(records, [s.bot for s in table])
        parts += [cross_title, "", tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                                            colalign=("left", *("right" for _ in headers[1:]))), ""]
    elif screen_cross is not None:
        parts += [cross_title + "; columns by row number", "", screen_cross, ""]
    else:
        parts += [textwrap.fill(f"Crosstable and likelihoods of superiority of {len(table)} bots: in "
                                "leaderboard.md, los.csv and the report (harness report DIR).", width=100), ""]
    if md and ranks.bootstrap.bots:
        headers, body = los_rows(ranks)
        parts += ["## Likelihood of superiority (row bot better than column bot)", "",
                  tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                           colalign=("left", *("right" for _ in headers[1:]))), ""]
    parts.append(note if md else textwrap.fill(note, width=100))
    return "\n".join(parts) + "\n"


def to_csv(records: Sequence[MatchRecord], bots: Sequence[str] | None = None, *,
           ranks: Rankings | None = None) -> str:
    """The leaderboard as CSV text with a header row of :data:`COLUMNS`."""
    records, _ = split_foreign(records, bots)
    table = standings(records, bots)
    if ranks is None:
        ranks = ranked(records, table)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows(table, ranks):
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


def write_leaderboard(out_dir: Path, records: Sequence[MatchRecord] | None = None, *,
                      title: str = "Leaderboard", bots: Sequence[str] | None = None) -> str:
    """Write ``leaderboard.md``, ``leaderboard.csv`` and ``los.csv`` into ``out_dir``; return the text rendering.

    Args:
        out_dir: tournament output directory.
        records: the records (default: read from ``out_dir/results.jsonl``).
        title: heading (the tournament's name).
        bots: names to list (default: every bot in the records).

    Raises:
        harness.tournament.results.ResultsError: no readable results in ``out_dir``.
    """
    out_dir = Path(out_dir)
    recs = list(records) if records is not None else read_records(out_dir)
    ranks = ranked(split_foreign(recs, bots)[0], standings(split_foreign(recs, bots)[0], bots))
    _write(out_dir / "leaderboard.md", render(recs, title=title, tablefmt="github", bots=bots, ranks=ranks))
    _write(out_dir / "leaderboard.csv", to_csv(recs, bots, ranks=ranks))
    _write(out_dir / "los.csv", los_csv(ranks))
    return render(recs, title=title, bots=bots, ranks=ranks)
