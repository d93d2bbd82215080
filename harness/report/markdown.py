"""Per-bot reports as Markdown: ``reports/<bot>.md``, what a teacher sends a student.

The same text (rendered to HTML by :mod:`harness.report.html`) is the body of
the bot's page in the HTML report. Every text a bot or an organiser's file
controls (names, ids, fault details, statuses, paths, stderr) goes through
:mod:`harness.match.untrusted` (escaped text, code span or fenced block), so
it is shown, never rendered as a link, an image or HTML.
"""

from __future__ import annotations

from urllib.parse import quote

from tabulate import tabulate

from harness.match.untrusted import md_cell, md_code, md_fence, md_text
from harness.report.chips import ENDINGS, HandLine
from harness.report.collect import BotReport, ReportData
from harness.report.pokerstats import COLUMNS, HEADINGS, DrawCounts, shown_cells

#: Order of the categories in the draw table (R5.2, low to high).
_CATEGORIES = ("high card", "one pair", "two pair", "three of a kind", "straight", "flush", "full house",
               "four of a kind", "straight flush")


def hand_link(viewer: str, match_id: str, hand_id: int, text: str | None = None) -> str:
    """A Markdown link to a hand in the viewer (``viewer``: the path of ``hand.html`` from the page)."""
    label = text or f"{md_text(match_id)} #{hand_id}"
    return f"[{label}]({viewer}?match={quote(match_id, safe='')}&hand={hand_id})"


def _draw_rows(groups: dict[str, DrawCounts], order: list[str]) -> list[list[str]]:
    return [[md_cell(key), str(g.draws), f"{100 * g.stand_pat / g.draws:.1f}%", f"{g.discarded / g.draws:.2f}"]
            for key in order if (g := groups.get(key)) is not None and g.draws]


def statistics_markdown(bot: BotReport) -> list[str]:
    """The "Poker statistics" section: the bot's statistics overall and against each opponent, its draws."""
    lines = ["## Poker statistics", ""]
    if not bot.stats.hands:
        return lines + ["No hand recorded yet.", ""]
    columns = list(COLUMNS[1:])
    overall = shown_cells(bot.stats.row(bot.name))
    versus = [(name, shown_cells(c.row(bot.name))) for name, c in bot.versus.items()]
    # One row per opponent (a column each would not fit a window in a large field).
    headers = ["hands of", *(HEADINGS[c][0] for c in columns)]
    rows = [["all hands", *(overall[c] for c in columns)],
            *([f"vs {md_cell(name)}", *(cells[c] for c in columns)] for name, cells in versus)]
    lines += [tabulate(rows, headers=headers, tablefmt="pipe", disable_numparse=True,
                       colalign=("left", *("right" for _ in headers[1:]))), ""]
    lines += ["Against an opponent: over the hands both were dealt in. "
              + " ".join(f"**{HEADINGS[c][0]}**: {HEADINGS[c][1]}" for c in columns if c not in ("hands",)), ""]
    positions = sorted(bot.stats.by_position, key=lambda k: ("button" not in k, "small" not in k, k))
    lines += ["### The draw", "", "By position:", "",
              tabulate(_draw_rows(bot.stats.by_position, positions),
                       headers=["position", "draws", "stand pat", "cards drawn"], tablefmt="pipe",
                       disable_numparse=True, colalign=("left", "right", "right", "right")), "",
              "By the hand before the draw (the category of the best five of its seven cards, R5.2):", "",
              tabulate(_draw_rows(bot.stats.by_category, list(_CATEGORIES)),
                       headers=["hand before the draw", "draws", "stand pat", "cards drawn"], tablefmt="pipe",
                       disable_numparse=True, colalign=("left", "right", "right", "right")), ""]
    return lines


def _hand_rows(lines: list[HandLine], viewer: str) -> list[list[str]]:
    rows = []
    for line in lines:
        others = "; ".join(
            f"{hand_link(viewer, c.match_id, c.hand_id, f'rotation {c.rotation}')}: {md_cell(c.bot)} "
            f"(seat {c.seat}) {c.net:+d}: {md_cell(c.summary)}" for c in line.counterparts)
        rows.append([hand_link(viewer, line.match_id, line.hand_id), f"{line.net:+d}",
                     md_cell(", ".join(line.opponents)), " ".join(line.dealt), md_cell(line.category),
                     md_cell(line.ending), md_cell(line.summary), others])
    return rows


def chips_markdown(bot: BotReport, viewer: str) -> list[str]:
    """The "Where the chips went" section: net by ending and by opponent, the costliest and best hands."""
    lines = ["## Where the chips went", ""]
    if not bot.stats.hands:
        return lines + ["No hand recorded yet.", ""]
    split = bot.chips.by_end
    rows = [[e, split[e].won_hands, f"{split[e].won_chips:+d}", split[e].lost_hands, f"{split[e].lost_chips:+d}",
             f"{split[e].net:+d}"] for e in ENDINGS]
    every = list(split.values())
    rows.append(["all hands", sum(s.won_hands for s in every), f"{sum(s.won_chips for s in every):+d}",
                 sum(s.lost_hands for s in every), f"{sum(s.lost_chips for s in every):+d}",
                 f"{sum(s.net for s in every):+d}"])
    lines += ["Hands won and lost by how they ended (\"before/after the draw\": all but one player folded then):", "",
              tabulate(rows, headers=["ended", "hands won", "chips won", "hands lost", "chips lost", "net chips"],
                       tablefmt="pipe", disable_numparse=True,
                       colalign=("left", "right", "right", "right", "right", "right")), ""]
    if bot.chips.by_opponent:
        rows = [[md_cell(name), *(f"{ends[e].net:+d}" for e in ENDINGS), f"{sum(s.net for s in ends.values()):+d}"]
                for name, ends in bot.chips.by_opponent.items()]
        lines += ["Net chips by opponent (the hands both were dealt in) and by how the hand ended:", "",
                  tabulate(rows, headers=["opponent", *ENDINGS, "net chips"], tablefmt="pipe",
                           disable_numparse=True, colalign=("left", "right", "right", "right", "right")), ""]
    headers = ["hand", "net chips", "against", "dealt", "before the draw", "ended", "what it did",
               "the same cards in the other rotations (duplicate)"]
    for title, hands in ((f"The {len(bot.costly)} hands that cost it most", bot.costly),
                         (f"The {len(bot.best)} hands that won it most", bot.best)):
        lines += [f"### {title}", ""]
        if hands:
            lines += [tabulate(_hand_rows(hands, viewer), headers=headers, tablefmt="pipe",
                               disable_numparse=True), ""]
        else:
            lines += ["None (a duplicate table's hands are listed once all its rotations are played).", ""]
    return lines


def bot_markdown(bot: BotReport, data: ReportData, standing: dict[str, str] | None = None, *,
                 viewer: str = "../report/hand.html") -> str:
    """The report of one bot in Markdown.

    Args:
        bot: what :func:`harness.report.collect.collect` gathered for it.
        data: the whole tournament (name, output directory).
        standing: its leaderboard row (column -> text), if ranked.
        viewer: the path of the report's ``hand.html`` from where the text is read (hand links).
    """
    lines = [f"# {md_text(bot.name)}: report for {md_text(data.name)}", ""]
    if standing and not standing.get("rank"):  # listed below the ranked bots (failed its entry check, no hands)
        note = standing.get("note", "")
        lines += [f"Leaderboard: not ranked{': ' + md_cell(note) if note else ''}.", ""]
    elif standing:
        group = standing.get("rank_group") or standing.get("rank", "")
        low, high = standing.get("ci95_low", ""), standing.get("ci95_high", "")
        ci = f"95% CI {low} .. {high}" if low and high else "no 95% CI: fewer than 2 duplicate sets"
        lines += [
            f"Leaderboard: position {standing.get('rank', '')} (rank group {group}), "
            f"{standing.get('bb_per_100', '')} bb/100 ({ci}).",
            "",
        ]
    lines += [f"Matches played: {len(bot.matches)}; hands played: {bot.hands}; net chips: {bot.net_chips:+d}.", ""]

    lines += ["## Result per opponent", ""]
    if bot.opponents:
        rows = []
        for opp in bot.opponents:
            est = opp.estimate
            ci = "" if est is None or est.low is None else f"{est.low:+.1f} .. {est.high:+.1f}"
            rows.append([md_cell(opp.name), opp.matches, opp.won, opp.lost, f"{opp.net_chips:+d}",
                         "" if est is None else f"{est.bb_per_100:+.1f}", ci])
        lines += [tabulate(rows, headers=["opponent", "matches", "won", "lost", "net chips", "bb/100", "95% CI"],
                           tablefmt="github", disable_numparse=True), "",
                  "bb/100 at the tables shared with that opponent (heads-up: against it).", ""]
    else:
        lines += ["No match recorded yet.", ""]

    lines += statistics_markdown(bot)
    lines += chips_markdown(bot, viewer)

    lines += ["## Faults", ""]
    if bot.faults:
        rows = [[md_cell(f.kind), f.count, md_cell(f.match_id), "" if f.hand_id is None else f.hand_id,
                 "not recorded" if f.decision is None else f.decision, md_cell(f.detail)] for f in bot.faults]
        lines += [tabulate(rows, headers=["kind", "count", "first in match", "hand", "decision", "what happened"],
                           tablefmt="github", disable_numparse=True), ""]
    else:
        lines += ["No faults.", ""]
    if bot.put_out:
        lines += [f"Put out by the referee in {len(bot.put_out)} of {len(bot.matches)} matches; first: "
                  f"match {md_text(bot.put_out[0][0])}: {md_text(bot.put_out[0][1])}.", ""]

    if bot.failing_match:
        lines += [f"## End of its stderr in its first failing match ({md_text(bot.failing_match)})", "",
                  md_code(bot.stderr_path or ""), ""]
        lines += [md_fence("\n".join(bot.stderr_tail)) if bot.stderr_tail else "(empty)", ""]
    lines += ["## Tracebacks in its stderr", ""]
    if bot.tracebacks:
        where = md_code(bot.traceback_where or "")
        langs = ", ".join(f"{md_text(lang)} {n}" for lang, n in bot.trace_languages.items())
        lines += [f"{bot.tracebacks} traceback(s) ({langs}) over its matches; the first, in {where}:", "",
                  md_fence(bot.first_traceback), ""]
    else:
        lines += ["None recognised (Python, Java, Node.js, C++, Go, .NET and Rust reports are).", ""]

    lines += ["## Decision time", ""]
    if bot.decision_ms:
        median, p99, worst = bot.decision_ms
        bank = f" of {bot.bank_ms} ms" if bot.bank_ms is not None else ""
        lines += [f"{bot.decisions} decisions: median {median:.2f} ms, p99 {p99:.2f} ms, max {worst:.2f} ms. "
                  f"Time bank used: at most {bot.bank_used_ms:.0f} ms{bank} in one match.", ""]
    else:
        lines += ["No decision recorded.", ""]

    lines += ["## Replay", ""]
    if bot.replay_command:
        lines += ["Re-deal and re-play every hand of its first match from the hand history, "
                  "checking each against the record:", "", md_fence(bot.replay_command), ""]
    else:
        lines += ["No hand history recorded.", ""]
    return "\n".join(lines)
