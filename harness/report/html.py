"""The HTML report: ``<out>/report/`` and ``<out>/reports/<bot>.md``.

Pages are Jinja2 templates (``harness/report/templates``); charts are
plotly figures (the JSON figure format of plotly.js: ``{"data": [traces],
"layout": {...}}``, built here as plain dicts, which is much faster than
``plotly.graph_objects`` over hundreds of pages; the tests validate them with
it) drawn in the page by plotly.js, copied from the installed ``plotly``
Python package into ``report/static/`` (no CDN: the report opens from disk,
offline, and requests nothing from any other host). Bot pages render the Markdown report
with markdown-it-py.

Layout::

    report/index.html            leaderboard, interval bars, rank groups, run-off or rating,
                                 crosstable and LOS heatmaps, list of matches
    report/bots/<bot>.html       the per-bot report
    report/matches/<id>.html     seats, cumulative chips per seat, hands kept for the viewer
    report/hand.html             the hand viewer (?match=<id>&hand=<n>)
    report/hands/<id>.js         the hands kept of each match (hand views)
    report/static/               plotly.min.js, report.js, viewer.js, report.css, and the table viewer
                                 component table-viewer.js/.css (harness.report.viewer)
    reports/<bot>.md             the per-bot report as Markdown
    stats.csv                    poker statistics per bot (harness.report.pokerstats)
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.report.collect import VIEWER_HANDS_PER_MATCH, BotReport, ReportData, collect, safe_name
from harness.report.markdown import bot_markdown
from harness.report.pokerstats import COLUMNS, HEADINGS, shown_cells, stats_csv
from harness.report.trend import Series, bb_history, rating_history
from harness.report.viewer import STATIC_FILES, script_json, static_text, viewer_view
from harness.tournament.leaderboard import EXPLANATION, Board, load_board, make_board, ranked, to_csv
from harness.tournament.ratings import MIN_RESAMPLED_SETS, Rankings
from harness.tournament.results import MatchRecord
from harness.tournament.stats import FAULT_COLUMNS, crosstable

REPORT_DIR = "report"
#: Poker statistics per bot (harness.report.pokerstats), beside leaderboard.csv.
STATS_FILE = "stats.csv"
BOT_REPORTS_DIR = "reports"
#: Seconds between reloads of a report written while the tournament runs.
RELOAD_S = 30
#: The Content-Security-Policy of every page (a ``<meta http-equiv>``, W3C CSP Level 3): scripts,
#: styles, images and fonts from the report's own folder only (plotly.js draws with inline styles
#: and data: images, which fetch nothing); no connection, form, frame, object or <base> anywhere,
#: so bot-controlled text that slipped into a page could not make it request another host.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'")


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """What :func:`write_report` wrote.

    Attributes:
        path: the report's index page.
        files: files written under ``report/`` and ``reports/``.
        bytes: their total size.
        seconds: wall time taken.
        damaged: one line per match whose hand history cannot be read to its end (naming the file, the
            line and what is wrong); the report is written all the same, with what could be read.
    """

    path: Path
    files: int
    bytes: int
    seconds: float
    damaged: tuple[str, ...] = ()


def _env() -> Any:
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader("harness.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
    env.filters["safe_name"] = safe_name
    return env


def _figure_json(data: list[dict[str, Any]], layout: dict[str, Any]) -> str:
    """A plotly figure as JSON that is safe inside a <script> element (NaN as null, as plotly.js expects)."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and value != value:
            return None
        if isinstance(value, list):
            return [clean(v) for v in value]
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        return value

    return script_json({"data": clean(data), "layout": clean(layout)})


def _layout(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"margin": {"l": 140, "r": 20, "t": 30, "b": 50}}
    base.update(extra)
    return base


def _board(board: Board, ranks: Rankings) -> list[dict[str, str]]:
    """The leaderboard rows exactly as ``leaderboard.csv`` has them (same function, same text)."""
    return list(csv.DictReader(io.StringIO(to_csv(board, ranks=ranks))))


#: The leaderboard as the index page shows it: (key, heading, tooltip defining it). The folded
#: section under it has every column of leaderboard.csv, as the file has them.
LEADERBOARD_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("rank", "#", "Position on the leaderboard (by bb/100)."),
    ("bot", "bot", "The bot; its page has its statistics, where its chips went and its faults."),
    ("hands", "hands", "Hands it played in the scored matches."),
    ("bb", "bb/100", "Big blinds won per 100 hands, over complete duplicate sets."),
    ("ci", "95% CI", "95% confidence interval of bb/100 (Student's t over duplicate sets: one deal played in "
                     "every seat rotation of a table is one observation); blank with fewer than 2 sets."),
    ("group", "rank group", "Bots whose bootstrap 95% rank intervals overlap share a group: their order is not "
                            "established."),
    ("ranks", "rank range", "The 2.5-97.5% range of its rank over bootstrap resamples of the duplicate sets."),
    ("los", "LOS next", "Likelihood of superiority over the bot in the next row (bootstrap)."),
    ("third", "run-off", "Instant run-off position (heads-up, ACPC): drop the bot with the lowest total bankroll "
                         "against those still in, repeat."),
    ("won", "won/lost", "Matches finished ahead / behind."),
    ("faults", "faults", "Replies the referee replaced by the default action (timeouts, illegal, malformed, ...); "
                         "one column per kind in the folded table and leaderboard.csv."),
    ("out", "put out", "Matches in which the referee put the bot out."),
)


def _num(text: str, fmt: str) -> str:
    try:
        return format(float(text), fmt)
    except ValueError:
        return ""


def readable_board(rows: Sequence[Mapping[str, str]]) -> tuple[list[tuple[str, str, str]], list[dict[str, str]]]:
    """The leaderboard rows (leaderboard.csv's text) as the index page shows them: headers and cells.

    bb/100 to 2 decimals, the interval as one ``"low..high"`` cell to 1 decimal, LOS to 2, a rating as
    mu +- 1.96 sigma (3-6 seats: the column is headed "rating"), faults summed.
    """
    rated = any(row.get("rating_mu") for row in rows)
    headers = [(k, h, t) for k, h, t in LEADERBOARD_COLUMNS]
    if rated:
        headers = [(k, "rating", "Plackett-Luce rating mu +- 1.96 sigma (openskill): a skill rating from each "
                    "match's finishing order, not bb/100.") if k == "third" else (k, h, t) for k, h, t in headers]
    elif not any(row.get("runoff_rank") for row in rows):
        headers = [h for h in headers if h[0] != "third"]
    out = []
    for row in rows:
        low, high = _num(row.get("ci95_low", ""), "+.1f"), _num(row.get("ci95_high", ""), "+.1f")
        rank_low, rank_high = row.get("rank_low", ""), row.get("rank_high", "")
        if rated:
            mu, sigma = row.get("rating_mu", ""), row.get("rating_sigma", "")
            third = f"{float(mu):.1f} ± {1.96 * float(sigma):.1f}" if mu and sigma else ""
        else:
            third = row.get("runoff_rank", "")
        faults = sum(int(row.get(column) or 0) for _, column in FAULT_COLUMNS)
        out.append({
            "rank": row.get("rank", "") or "-", "bot": row["bot"], "hands": row.get("hands", ""),
            "bb": _num(row.get("bb_per_100", ""), "+.2f"), "ci": f"{low}..{high}" if low and high else "",
            "group": row.get("rank_group", ""),
            "ranks": "" if not rank_low else rank_low if rank_low == rank_high else f"{rank_low}-{rank_high}",
            "los": _num(row.get("los_next", ""), ".2f"), "third": third,
            "won": f"{row.get('matches_won', '')}/{row.get('matches_lost', '')}",
            "faults": str(faults) if faults else "", "out": row.get("put_out", "") if row.get("put_out") != "0" else "",
            "note": row.get("note", ""),
        })
    return headers, out


def _figures(order: list[str], ranks: Rankings, records: Sequence[MatchRecord],
             rows: list[dict[str, str]]) -> dict[str, str]:
    """The index page's figures: interval bars, crosstable and LOS heatmaps, ratings."""
    boot = ranks.bootstrap
    board = {row["bot"]: row for row in rows if row.get("hands") not in ("", "0")}
    shown = [b for b in order if b in board]
    ys = list(reversed(shown))

    def num(bot: str, key: str) -> float:
        value = board[bot].get(key, "")
        return float(value) if value not in ("", None) else float("nan")

    mids = [num(b, "bb_per_100") for b in ys]
    lows = [num(b, "ci95_low") for b in ys]
    highs = [num(b, "ci95_high") for b in ys]
    labels = [f"{b}  [{ranks.groups.get(b, '')}]" for b in ys]
    intervals = _figure_json(
        [{"type": "scatter", "x": mids, "y": labels, "mode": "markers",
          "error_x": {"type": "data", "symmetric": False,
                      "array": [h - m for h, m in zip(highs, mids, strict=True)],
                      "arrayminus": [m - lo for m, lo in zip(mids, lows, strict=True)]},
          "hovertemplate": "%{y}: %{x:.2f} bb/100<extra></extra>"}],
        _layout(xaxis={"title": {"text": "bb/100 (95% CI); [rank group]"}, "zeroline": True},
                yaxis={"type": "category"}, height=max(300, 28 * len(ys) + 80),
                shapes=[{"type": "line", "x0": 0, "x1": 0, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
                         "line": {"dash": "dot", "color": "#888"}}]))

    cells = crosstable(records, shown)
    z = [[None if r == c or (r, c) not in cells else round(cells[(r, c)].bb_per_100, 1) for c in shown]
         for r in shown]
    text = [["" if v is None else f"{v:+.1f}" for v in row] for row in z]
    square = _layout(yaxis={"autorange": "reversed", "type": "category"}, xaxis={"side": "top", "type": "category"})
    cross = _figure_json(
        [{"type": "heatmap", "z": z, "x": shown, "y": shown, "text": text, "texttemplate": "%{text}",
          "colorscale": "RdBu", "zmid": 0, "colorbar": {"title": {"text": "bb/100"}},
          "hovertemplate": "%{y} vs %{x}: %{z} bb/100<extra></extra>"}], square)

    ranked_bots = [b for b in shown if b in boot.bb_per_100]
    los_z = [[None if r == c else boot.los.get((r, c)) for c in ranked_bots] for r in ranked_bots]
    los_text = [["" if v is None else f"{v:.2f}" for v in row] for row in los_z]
    los = _figure_json(
        [{"type": "heatmap", "z": los_z, "x": ranked_bots, "y": ranked_bots, "text": los_text,
          "texttemplate": "%{text}", "colorscale": "RdBu", "zmin": 0, "zmax": 1, "zmid": 0.5,
          "colorbar": {"title": {"text": "LOS"}},
          "hovertemplate": "P(%{y} better than %{x}) = %{z:.3f}<extra></extra>"}], square)
    figures = {"intervals": intervals, "crosstable": cross, "los": los}
    if ranks.ratings is not None:
        r = ranks.ratings
        rated = sorted(r, key=lambda b: r[b].mu)
        figures["ratings"] = _figure_json(
            [{"type": "scatter", "x": [r[b].mu for b in rated], "y": rated, "mode": "markers",
              "error_x": {"type": "data", "array": [1.96 * r[b].sigma for b in rated]},
              "hovertemplate": "%{y}: mu %{x:.2f}<extra></extra>"}],
            _layout(xaxis={"title": {"text": "Plackett-Luce rating mu (+- 1.96 sigma)"}},
                    yaxis={"type": "category"}, height=max(300, 28 * len(rated) + 80)))
    return figures


#: plotly's default colour sequence, so a bot's line and its band share a colour.
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf")


def _band(colour: str) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},0.15)"


def history_figure(steps: Sequence[str], series: Sequence[Series], *, x_title: str, y_title: str,
                   marks: Sequence[tuple[float, str]] = ()) -> str:
    """Lines of each bot over the steps with their interval as a band (a plotly figure as JSON).

    Used by the report (bb/100 and ratings over a tournament) and by the contest server's student page
    (ratings over the ladder's blocks). ``marks``: ``(x, label)`` dashed vertical lines, x counted in steps
    from 1 (e.g. 2.5: between steps 2 and 3), such as the uploads of a new version.
    """
    traces: list[dict[str, Any]] = []
    x = list(range(1, len(steps) + 1))
    for k, line in enumerate(series):
        colour = _COLOURS[k % len(_COLOURS)]
        nan = float("nan")
        low = [nan if v is None else v for v in line.low]
        high = [nan if v is None else v for v in line.high]
        traces.append({"type": "scatter", "x": x, "y": high, "mode": "lines", "line": {"width": 0},
                       "legendgroup": line.bot, "showlegend": False, "hoverinfo": "skip"})
        traces.append({"type": "scatter", "x": x, "y": low, "mode": "lines", "line": {"width": 0},
                       "fill": "tonexty", "fillcolor": _band(colour), "legendgroup": line.bot, "showlegend": False,
                       "hoverinfo": "skip"})
        traces.append({"type": "scatter", "x": x, "y": [nan if v is None else v for v in line.value],
                       "mode": "lines+markers", "name": line.bot, "legendgroup": line.bot,
                       "line": {"color": colour}, "marker": {"size": 4}, "text": list(steps),
                       "hovertemplate": f"{line.bot}: %{{y:.2f}} after %{{text}}<extra></extra>"})
    shapes = [{"type": "line", "xref": "x", "yref": "paper", "x0": at, "x1": at, "y0": 0, "y1": 1,
               "line": {"color": "#999", "dash": "dash", "width": 1}} for at, _ in marks]
    notes = [{"xref": "x", "yref": "paper", "x": at, "y": 1, "text": label, "showarrow": False,
              "font": {"size": 10, "color": "#666"}, "yanchor": "bottom"} for at, label in marks]
    return _figure_json(traces, _layout(xaxis={"title": {"text": x_title}}, yaxis={"title": {"text": y_title}},
                                        margin={"l": 60, "r": 20, "t": 20, "b": 50}, shapes=shapes,
                                        annotations=notes))


def _opponents_figure(bot: BotReport) -> str | None:
    """Bars of the bot's bb/100 against each opponent with their 95% intervals."""
    with_est = [(o.name, o.estimate) for o in bot.opponents if o.estimate is not None]
    if not with_est:
        return None
    return _figure_json(
        [{"type": "bar", "x": [n for n, _ in with_est], "y": [e.bb_per_100 for _, e in with_est],
          "error_y": {"type": "data", "symmetric": False,
                      # no interval (fewer than 2 sets): no bar, not one of zero width
                      "array": [None if e.high is None else e.high - e.bb_per_100 for _, e in with_est],
                      "arrayminus": [None if e.low is None else e.bb_per_100 - e.low for _, e in with_est]}}],
        _layout(yaxis={"title": {"text": "bb/100 (95% CI)"}}, xaxis={"type": "category"},
                margin={"l": 60, "r": 20, "t": 20, "b": 80}))


def _chips_figure(res: Any) -> str:
    """Cumulative chips of each seat over the hands of a match (from its record's hand_nets)."""
    cumulative = [[0] for _ in res.bots]
    for row in res.hand_nets:
        for seat, net in enumerate(row):
            cumulative[seat].append(cumulative[seat][-1] + net)
    return _figure_json(
        [{"type": "scatter", "mode": "lines", "x": list(range(len(c))), "y": c, "name": f"{seat} {name}"}
         for seat, (name, c) in enumerate(zip(res.bots, cumulative, strict=True))],
        _layout(xaxis={"title": {"text": "hands played"}}, yaxis={"title": {"text": "cumulative chips"}},
                margin={"l": 60, "r": 20, "t": 20, "b": 50}))


def _status(data: ReportData, running: bool, stopped: bool) -> dict[str, Any]:
    done, total = len(data.records), data.matches_total
    if running:
        text = f"running, {done} of {total} matches (this page reloads every {RELOAD_S} s)"
    elif done < total:
        text = f"stopped: {done} of {total} matches recorded (partial results)"
    else:
        text = f"finished: {done} of {total} matches"
    if stopped and done < total and not running:
        text += "; run the same command again to resume"
    return {"running": running, "text": text, "reload_s": RELOAD_S}


def _write(path: Path, text: str, written: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    written.append(path)


def _copy_static(target: Path, written: list[Path]) -> str:
    """Copy plotly.js (from the installed plotly package) and our static files; return plotly.js's version."""
    import plotly
    from plotly.offline import get_plotlyjs_version

    target.mkdir(parents=True, exist_ok=True)
    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    dest = target / "plotly.min.js"
    if not dest.exists() or dest.stat().st_size != source.stat().st_size:
        shutil.copyfile(source, dest)
    written.append(dest)
    for name in ("report.js", "viewer.js", "report.css", *STATIC_FILES):
        _write(target / name, static_text(name), written)
    return str(get_plotlyjs_version())


def _bot_pages(data: ReportData, board: list[dict[str, str]], ranks: Rankings, env: Any, common: dict[str, Any],
               out_dir: Path, written: list[Path]) -> None:
    """Each bot's page (``report/bots/<bot>.html``) and Markdown report (``reports/<bot>.md``)."""
    from markdown_it import MarkdownIt

    report = out_dir / REPORT_DIR
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    rows = {row["bot"]: row for row in board}
    for name, bot in data.bot_reports.items():
        standing = dict(rows.get(name, {}))
        if name in ranks.groups:
            standing["rank_group"] = ranks.groups[name]
        text = bot_markdown(bot, data, standing or None)
        _write(out_dir / BOT_REPORTS_DIR / f"{safe_name(name)}.md", text, written)
        text = bot_markdown(bot, data, standing or None, viewer="../hand.html")
        opp_fig = _opponents_figure(bot)
        page = env.get_template("bot.html.j2").render(
            **common, root="../", bot=bot, body=md.render(text.split("\n", 2)[2] if text.count("\n") > 1 else text),
            figures={"opponents": opp_fig})
        _write(report / "bots" / f"{safe_name(name)}.html", page, written)


def _match_pages(data: ReportData, env: Any, common: dict[str, Any], report: Path, written: list[Path]) -> None:
    """Each match's page (``report/matches/<id>.html``) and its viewer hands (``report/hands/<id>.js``)."""
    for info in data.matches:
        res = info.record.result
        kept = []
        for view in info.hands:
            kept.append({"hand_id": view["hand_id"], "pot": sum(p["amount"] for p in view["pots"]),
                         "net": ", ".join(f"{n:+d}" for n in view["net"]),
                         "shown": ", ".join(f"{view['bots'][s['seat']]}: {s['category']}" for s in view["shown"]),
                         "faults": "; ".join(f"{f['bot']} {f['kind']}" for f in view["faults"])})
        if info.problem:
            kept_text = f"The hand history cannot be read: {info.problem}"
        elif not info.table_complete:  # its files are private until then (harness.tournament.results)
            kept_text = (f"The hands of table {info.record.table} are shown once all its rotations are played: "
                         "the others replay the same deals (duplicate).")
        elif info.history is None:
            kept_text = "No hand history was found for this match."
        else:
            kept_text = (f"{len(info.hands)} of {info.hand_count} hands are in the viewer (the first, those with "
                         f"faults and the largest pots; `harness report --all-hands` keeps every hand); all are in "
                         f"{info.history}.") if len(info.hands) < info.hand_count else \
                f"All {info.hand_count} hands are in the viewer."
        match = {"id": res.match_id, "table": info.record.table, "rotation": info.record.rotation,
                 "hands": res.hands_played,
                 "seed": res.seed if info.table_complete else "not shown until every rotation of the table is played",
                 "duration": res.duration_s,
                 "history": str(info.history) if info.history else "(none)", "kept": kept, "kept_text": kept_text,
                 "seats": [{"seat": s, "bot": b, "net": f"{res.net[s]:+d}",
                            "faults": ", ".join(f"{k} {v}" for k, v in sorted(res.faults[s].items()) if v),
                            "status": res.status[s]} for s, b in enumerate(res.bots)]}
        page = env.get_template("match.html.j2").render(**common, root="../", match=match,
                                                        figures={"chips": _chips_figure(res)})
        _write(report / "matches" / f"{safe_name(res.match_id)}.html", page, written)
        payload = script_json([viewer_view(v) for v in info.hands])
        _write(report / "hands" / f"{safe_name(res.match_id)}.js",
               "window.REPORT_HANDS = window.REPORT_HANDS || {};\n"
               f"window.REPORT_HANDS[{json.dumps(res.match_id)}] = {payload};\n", written)


def _runoff_rows(ranks: Rankings) -> list[dict[str, Any]]:
    """The instant run-off's table: each bot's rank, the round it dropped out in and its bankroll then."""
    runoff_rows = []
    if ranks.runoff is not None:
        for number, rnd in enumerate(ranks.runoff.rounds, start=1):
            for bot in rnd.dropped:
                runoff_rows.append({"bot": bot, "rank": ranks.runoff.rank[bot], "round": number,
                                    "bankroll": rnd.bankroll[bot],
                                    "bankroll_rank": (ranks.bankroll or {}).get(bot, "")})
        runoff_rows.sort(key=lambda row: (row["rank"], row["bot"]))
    return runoff_rows


def _race_rows(race: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A racing final's standings for the index (None: not a race): its rule, whether it is over, and per bot
    its place, mean bb/100 with the 95% interval, pairs ahead/behind/level and tables."""
    if not race or not isinstance(race.get("standings"), list):
        return None
    rows = []
    for place, row in enumerate(race["standings"], start=1):
        half = row.get("half_width")
        mean = float(row.get("bb_per_100", 0.0))
        rows.append({"place": place if row.get("tables") else "", "bot": str(row.get("bot", "")),
                     "bb_per_100": f"{mean:+.2f}",
                     "interval": f"{mean - half:+.2f}..{mean + half:+.2f}" if half is not None else "",
                     "ahead": row.get("wins", 0), "behind": row.get("losses", 0), "level": row.get("level", 0),
                     "tables": row.get("tables", 0)})
    rule = race.get("rule") or {}
    return {"over": bool(race.get("over")), "rows": rows, "error_rate": rule.get("delta"),
            "max_tables": rule.get("max_tables")}


def write_report(out_dir: Path, *, running: bool = False, stopped: bool = False,
                 viewer_hands: int | None = VIEWER_HANDS_PER_MATCH,
                 records: Sequence[MatchRecord] | None = None, bots: Sequence[str] | None = None,
                 match_dirs: Mapping[str, Path] | None = None, board: Board | None = None,
                 race: Mapping[str, Any] | None = None) -> ReportSummary:
    """Write ``<out_dir>/report/`` (HTML, offline) and ``<out_dir>/reports/<bot>.md``.

    Args:
        out_dir: a tournament output directory.
        running: the tournament is still running: pages say "running, n of m
            matches" and reload every :data:`RELOAD_S` seconds.
        stopped: the run was interrupted (said on the pages when matches are missing).
        viewer_hands: hands per match kept for the hand viewer (None: all).
        records: the records to report (default: those of the plan in ``tournament.json``, as
            the leaderboard counts them: :func:`harness.tournament.leaderboard.load_board`).
        bots: the field (default: the manifest's bots).
        match_dirs: a match's folder by id when not under ``matches/`` (:func:`harness.report.collect.collect`).
        board: the leaderboard the caller has scored (the end of ``harness run``: its records, notices
            and rankings are reused, not read and resampled again); None: read as the leaderboard does.
        race: a racing final's state (``race.json``, :func:`harness.server.race.state`): the index then heads
            with the race's own standings, the final's order (each bot's mean duplicate bb/100 over its
            opponents), and the leaderboard below is labelled as every hand pooled.

    Raises:
        harness.tournament.results.ResultsError: no such directory or damaged results.
        OSError: the report cannot be written.
    """
    started = time.monotonic()
    out_dir = Path(out_dir)
    if records is None:
        # the leaderboard's own reading: plan records, complete tables scored
        lboard = board if board is not None else load_board(out_dir)
        data = collect(out_dir, viewer_hands=viewer_hands, records=lboard.records)
        data.notices = [*lboard.notices, *data.notices]
    else:
        data = collect(out_dir, viewer_hands=viewer_hands, records=records, match_dirs=match_dirs)
        lboard = make_board(data.records, title=data.name, bots=list(bots) if bots is not None else data.bots)
    field = list(bots) if bots is not None else data.bots
    scored = lboard.scoring.scored
    ranks = lboard.ranks if lboard.ranks is not None else ranked(scored, lboard.standings())
    standing_rows = _board(lboard, ranks)
    order = [row["bot"] for row in standing_rows]
    report = out_dir / REPORT_DIR
    written: list[Path] = []
    plotly_version = _copy_static(report / "static", written)
    env = _env()
    common = {"name": data.name, "status": _status(data, running, stopped), "out_dir": str(out_dir), "csp": CSP,
              "plotly_version": plotly_version, "charts": True}
    figures = _figures(order, ranks, scored, standing_rows)
    played = [b for b in order if b in ranks.bootstrap.bb_per_100] or order
    tables, bb_lines = bb_history(scored, played)
    if tables:
        figures["bb_history"] = history_figure(tables, bb_lines, x_title="tables played (schedule order)",
                                               y_title="cumulative bb/100 (95% CI)")
    if ranks.ratings is not None:
        ids, rating_lines = rating_history(scored, played)
        if ids:
            figures["rating_history"] = history_figure(ids, rating_lines, x_title="matches played (schedule order)",
                                                       y_title="Plackett-Luce mu (+- 1.96 sigma)")
    hands_total = sum(r.result.hands_played for r in data.records)
    summary = (f"{len(data.records)} of {data.matches_total} matches, {hands_total} hands, "
               f"{len(field)} bots, {data.table_size} seats per table.")
    runoff_rows = _runoff_rows(ranks)
    match_rows = []
    for info in data.matches:
        res = info.record.result
        faults = sum(sum(f.values()) for f in res.faults)
        match_rows.append({"id": res.match_id, "table": info.record.table, "rotation": info.record.rotation,
                           "nets": ", ".join(f"{b} {n:+d}" for b, n in zip(res.bots, res.net, strict=True)),
                           "hands": res.hands_played, "faults": faults or ""})
    stats_rows = data.stats.rows(order + [b for b in field if b not in order])
    stats_table = [{"bot": row["bot"], **shown_cells(row)} for row in stats_rows if row["hands"]]
    lb_headers, lb_rows = readable_board(standing_rows)
    index = env.get_template("index.html.j2").render(
        lb_headers=lb_headers, lb_rows=lb_rows, stats_headers=[(c, *HEADINGS[c]) for c in COLUMNS[1:]],
        stats_rows=stats_table,
        **common, root="", summary=summary, notices=data.notices,
        board_headers=list(standing_rows[0]) if standing_rows else [], board_rows=standing_rows,
        explanation=EXPLANATION, figures=figures, runoff=runoff_rows,
        ratings=ranks.ratings is not None, resamples=ranks.bootstrap.resamples, seed=ranks.bootstrap.seed,
        too_few=list(ranks.bootstrap.too_few), min_resampled=MIN_RESAMPLED_SETS,
        matches=match_rows, race=_race_rows(race))
    _write(report / "index.html", index, written)
    _write(out_dir / STATS_FILE, stats_csv(stats_rows), written)

    _bot_pages(data, standing_rows, ranks, env, common, out_dir, written)

    _match_pages(data, env, common, report, written)
    hand_index = {info.match_id: {"file": safe_name(info.match_id), "bots": list(info.record.result.bots)}
                  for info in data.matches}
    hand_page = env.get_template("hand.html.j2").render(**{**common, "charts": False}, root="",
                                                        hand_index=script_json(hand_index))
    _write(report / "hand.html", hand_page, written)
    size = sum(p.stat().st_size for p in written)
    return ReportSummary(report / "index.html", len(written), size, time.monotonic() - started,
                         tuple(info.problem for info in data.matches if info.problem))
