"""Leaderboard tables: text (tabulate), Markdown and CSV from match records.

The numbers come from :mod:`harness.tournament.stats`; this module only lays them out
and writes ``leaderboard.md`` and ``leaderboard.csv`` into the output
directory. The files carry every column (:data:`COLUMNS`, one per fault
kind); the text printed on a terminal keeps to :data:`SCREEN_COLUMNS`
(about 90 characters wide), with the interval in one cell and the faults
summed.
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
    "matches_won",
    "matches_lost",
    *(column for _, column in FAULT_COLUMNS),
    "put_out",
)

#: Columns of the printed (terminal) table, as headed there; the files have all of :data:`COLUMNS`.
SCREEN_COLUMNS: tuple[str, ...] = ("rank", "bot", "hands", "net", "bb/100", "95% CI", "won", "lost", "faults", "out")

SCREEN_EXPLANATION = (
    "net: chips won. bb/100: big blinds won per 100 hands; 95% CI: its confidence interval over "
    "duplicate sets (one deal in every seat rotation of a table is one observation). won/lost: "
    "matches finished ahead/behind. faults: replies replaced by the default action (timeouts, "
    "illegal, malformed, oversized, crashes, disconnections, failed starts: one column each in leaderboard.csv "
    "and leaderboard.md); out: matches in which the bot was put out. Crosstable: row bot's bb/100 "
    "at tables shared with the column bot; * = the 95% CI excludes 0."
)

EXPLANATION = (
    "bb_per_100: big blinds won per 100 hands. ci95_low..ci95_high: 95% confidence interval "
    "computed over duplicate sets (one deal played in every seat rotation of a table is one "
    "observation: the bot's net summed over those hands), Student's t on their standard error. "
    "matches_won/lost: matches finished ahead/behind. Fault columns count replies the referee "
    "replaced by the default action; put_out: matches in which the bot was put out. "
    "Crosstable: row bot's bb/100 at tables shared with the column bot; * = the 95% CI excludes 0."
)


def rows(table: Sequence[Standing]) -> list[dict[str, Any]]:
    """Leaderboard rows as dicts keyed by :data:`COLUMNS` (floats rounded to 0.01, missing CI as None)."""
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
            "matches_won": s.matches_won,
            "matches_lost": s.matches_lost,
        }
        for kind, column in FAULT_COLUMNS:
            row[column] = s.faults.get(kind, 0)
        row["put_out"] = s.put_out
        out.append(row)
    return out


def screen_rows(table: Sequence[Standing]) -> list[dict[str, Any]]:
    """Rows keyed by :data:`SCREEN_COLUMNS`: bb/100 signed, the interval as ``"low..high"``, faults summed."""
    out = []
    for row in rows(table):
        low, high = row["ci95_low"], row["ci95_high"]
        values = (
            row["rank"], row["bot"], row["hands"], row["net_chips"], f"{row['bb_per_100']:+.2f}",
            "" if low is None or high is None else f"{low:+.2f}..{high:+.2f}",
            row["matches_won"], row["matches_lost"], sum(row[column] for _, column in FAULT_COLUMNS), row["put_out"],
        )
        out.append(dict(zip(SCREEN_COLUMNS, values, strict=True)))
    return out


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


def _table(data: list[dict[str, Any]], headers: Sequence[str], tablefmt: str, *, as_text: bool = False) -> str:
    body = [list(r.values()) for r in data]
    align = tuple("left" if h == "bot" else "right" for h in headers) if data else None
    return tabulate(body, headers=list(headers), tablefmt=tablefmt, floatfmt=".2f", missingval="",
                    colalign=align, disable_numparse=as_text)


def render(records: Sequence[MatchRecord], *, title: str = "Leaderboard", tablefmt: str = "simple",
           bots: Sequence[str] | None = None, wide: bool | None = None) -> str:
    """Render the leaderboard and crosstable as text.

    Args:
        records: match records of one tournament.
        title: first line.
        tablefmt: a tabulate format ("simple" for terminals, "github" for Markdown).
        bots: names to list (default: every bot in the records); records
            with any other bot are left out (see :func:`split_foreign`).
        wide: every column of :data:`COLUMNS` (default: only for Markdown);
            otherwise the narrower :data:`SCREEN_COLUMNS`.
    """
    records, _ = split_foreign(records, bots)
    if wide is None:
        wide = tablefmt == "github"
    table = standings(records, bots)
    total_hands = sum(r.result.hands_played for r in records)
    headers, body = crosstable_rows(records, [s.bot for s in table])
    md = tablefmt == "github"
    board = (
        _table(rows(table), COLUMNS, tablefmt)
        if wide
        else _table(screen_rows(table), SCREEN_COLUMNS, tablefmt, as_text=True)
    )
    note = EXPLANATION if wide else SCREEN_EXPLANATION
    parts = [
        f"# {title}" if md else title,
        "",
        f"{plural(len(records), 'match')}, {plural(total_hands, 'hand')}.",
        "",
        board,
        "",
        ("## " if md else "") + "Crosstable (row bot's bb/100 against column bot)",
        "",
        tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                 colalign=("left", *("right" for _ in headers[1:]))),
        "",
        note if md else textwrap.fill(note, width=100),
    ]
    return "\n".join(parts) + "\n"


def to_csv(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> str:
    """The leaderboard as CSV text with a header row of :data:`COLUMNS`."""
    records, _ = split_foreign(records, bots)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    for row in rows(standings(records, bots)):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_leaderboard(out_dir: Path, records: Sequence[MatchRecord] | None = None, *,
                      title: str = "Leaderboard", bots: Sequence[str] | None = None) -> str:
    """Write ``leaderboard.md`` and ``leaderboard.csv`` into ``out_dir``; return the text rendering.

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
    _write(out_dir / "leaderboard.md", render(recs, title=title, tablefmt="github", bots=bots))
    _write(out_dir / "leaderboard.csv", to_csv(recs, bots))
    return render(recs, title=title, bots=bots)
