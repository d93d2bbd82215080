"""Leaderboard tables: text (tabulate), Markdown and CSV from match records.

The numbers come from :mod:`harness.stats`; this module only lays them out
and writes ``leaderboard.md`` and ``leaderboard.csv`` into the output
directory.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any, Sequence

from tabulate import tabulate

from harness.results import MatchRecord, read_records
from harness.stats import FAULT_COLUMNS, Standing, crosstable, standings

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


def _table(data: list[dict[str, Any]], tablefmt: str) -> str:
    body = [list(r.values()) for r in data]
    return tabulate(body, headers=list(COLUMNS), tablefmt=tablefmt, floatfmt=".2f", missingval="")


def render(records: Sequence[MatchRecord], *, title: str = "Leaderboard", tablefmt: str = "simple",
           bots: Sequence[str] | None = None) -> str:
    """Render the leaderboard and crosstable as text.

    Args:
        records: match records of one tournament.
        title: first line.
        tablefmt: a tabulate format ("simple" for terminals, "github" for Markdown).
        bots: names to list (default: every bot in the records).
    """
    table = standings(records, bots)
    data = rows(table)
    total_hands = sum(r.result.hands_played for r in records)
    headers, body = crosstable_rows(records, [s.bot for s in table])
    md = tablefmt == "github"
    parts = [
        f"# {title}" if md else title,
        "",
        f"{len(records)} matches, {total_hands} hands.",
        "",
        _table(data, tablefmt),
        "",
        "## Crosstable (row bot's bb/100 against column bot)" if md else "Crosstable (row bot's bb/100 against column bot)",
        "",
        tabulate(body, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                 colalign=("left", *("right" for _ in headers[1:]))),
        "",
        EXPLANATION,
    ]
    return "\n".join(parts) + "\n"


def to_csv(records: Sequence[MatchRecord], bots: Sequence[str] | None = None) -> str:
    """The leaderboard as CSV text with a header row of :data:`COLUMNS`."""
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
        harness.results.ResultsError: no readable results in ``out_dir``.
    """
    out_dir = Path(out_dir)
    recs = list(records) if records is not None else read_records(out_dir)
    _write(out_dir / "leaderboard.md", render(recs, title=title, tablefmt="github", bots=bots))
    _write(out_dir / "leaderboard.csv", to_csv(recs, bots))
    return render(recs, title=title, bots=bots)
