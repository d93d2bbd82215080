"""Per-bot reports as Markdown: ``reports/<bot>.md``, what a teacher sends a student.

The same text (rendered to HTML by :mod:`harness.report.html`) is the body of
the bot's page in the HTML report. Every text a bot or an organiser's file
controls (names, ids, fault details, statuses, paths, stderr) goes through
:mod:`harness.match.untrusted` (escaped text, code span or fenced block), so
it is shown, never rendered as a link, an image or HTML.
"""

from __future__ import annotations

from tabulate import tabulate

from harness.match.untrusted import md_cell, md_code, md_fence, md_text
from harness.report.collect import BotReport, ReportData


def bot_markdown(bot: BotReport, data: ReportData, standing: dict[str, str] | None = None) -> str:
    """The report of one bot in Markdown.

    Args:
        bot: what :func:`harness.report.collect.collect` gathered for it.
        data: the whole tournament (name, output directory).
        standing: its leaderboard row (column -> text), if ranked.
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
