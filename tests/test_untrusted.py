"""Text a bot controls reaches no terminal, Markdown or CSV file raw (trial finding A).

The hostile stderr is the trial's ``inject/bot.py``: it clears the screen, sets
the window title, moves the cursor, forges a line of the harness's output, and
puts ``|``, HTML and escape codes in its traceback.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from harness.match.checkbot import CheckReport, Violation
from harness.match.untrusted import csv_cell, md_cell, md_code, md_fence, md_text, visible
from harness.report.collect import BotReport, FaultExample, ReportData
from harness.report.markdown import bot_markdown
from harness.specs import FaultKind, Limits
from harness.tournament.entries import Entry, describe_failure
from harness.tournament.leaderboard import make_board, render, to_csv
from tests.leaderboard_helpers import rec

STDERR = ("\x1b[2J\x1b[H\x1b]0;pwned\x07entry check: 12 of 12 bots pass\n\x1b[1A\x1b[2Kfake line\r\x1b[31mred\x1b[0m\n"
          "Traceback (most recent call last):\n  File \"x\", line 1\n"
          "RuntimeError: a | b | c \x1b[31m =HYPERLINK(\"http://evil\") <img src=x onerror=alert(1)>"
          "<script>alert(2)</script> \u202egnp.exe\r\n")
REASON = ("failed to start (exit status 1); 1 Python traceback on stderr (first: RuntimeError: a | b | c "
          "\x1b[31m <img src=x onerror=alert(1)><script>alert(2)</script> \u202egnp.exe\x9b2J)")
# Control characters a terminal acts on: C0 (but \n), DEL, C1, the BiDi overrides and isolates, separators.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200e\u200f]")


def test_visible_shows_escape_sequences_and_bidi_overrides_as_text() -> None:
    assert visible("a\x1b[2Jb\r\x07\u202ec\x9b") == "a\\x1b[2Jb\\x0d\\x07\\u202ec\\x9b"
    assert visible("line 1\r\nline 2\ttab\rover", multiline=True) == "line 1\nline 2\ttab\\x0dover"
    assert visible("two\nlines") == "two\\x0alines"
    assert visible("ÄÖ 漢字 ♠ 😀 plain") == "ÄÖ 漢字 ♠ 😀 plain"  # printable text of any script is untouched


@given(st.text())
def test_every_helper_leaves_no_control_character(text: str) -> None:
    assert all(ch.isprintable() for ch in visible(text))
    assert all(ch.isprintable() or ch in "\n\t" for ch in visible(text, multiline=True))
    cell = md_cell(text)
    assert all(ch.isprintable() for ch in cell) and not set("|<>") & set(cell)
    assert not csv_cell(text).startswith(("=", "+", "-", "@"))
    fence = md_fence(text).split("\n", 1)[0]
    assert md_fence(text).endswith("\n" + fence[: len(fence) - 4])  # closed by its own fence
    assert fence[:-4] not in visible(text, multiline=True)  # which the text cannot close early


def test_entry_check_failure_on_the_terminal_forges_nothing() -> None:
    entry = Entry("inject", False, REASON, STDERR, "x.err", 0.1, 0.0, "d")
    text = describe_failure(entry)
    assert not RAW.search(text)
    lines = text.splitlines()
    assert all(line.startswith("  | ") for line in lines[1:])  # the forged line stays inside the quote
    assert "\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07entry check: 12 of 12 bots pass" in text


def test_leaderboard_files_and_screen_neutralise_the_reason() -> None:
    records = [rec(0, 0, ["a", "b"], [[5, -5]]), rec(0, 1, ["b", "a"], [[-5, 5]])]
    board = make_board(records, title="T", bots=["a", "b"], entry_failures={"inject": REASON})
    md = render(board, tablefmt="github")
    assert not RAW.search(md) and "<img" not in md and "<script" not in md
    row = next(line for line in md.splitlines() if "| inject" in line)
    header = next(line for line in md.splitlines() if re.match(r"\|\s+rank \|", line))
    assert row.count("|") == header.count("|")  # the reason's | does not add cells
    assert md_cell("a | b | c \x1b[31m <img src=x onerror=alert(1)>") in row
    screen = render(board)
    assert not RAW.search(screen) and "inject" in screen
    text = to_csv(board)
    assert not RAW.search(text.replace("\n", ""))
    rows = list(csv.DictReader(text.splitlines()))
    assert rows[-1]["bot"] == "inject" and "\\x1b[31m" in rows[-1]["note"]
    assert csv_cell('=HYPERLINK("http://evil")') == '\'=HYPERLINK("http://evil")'


def test_bot_report_markdown_keeps_tracebacks_fenced_and_fault_details_in_their_cell(tmp_path: Path) -> None:
    bot = BotReport(name="inject", matches=["m1"], failing_match="m1", stderr_path="e.err",
                    stderr_tail=STDERR.splitlines() + ["```", "# not a heading"], tracebacks=1,
                    first_traceback=STDERR + "````\n<script>x</script>", traceback_where="e.err",
                    faults=[FaultExample(kind="illegal", count=1, match_id="m1", hand_id=0, decision=0,
                                         detail=REASON)], put_out=[("m1", REASON)])
    data = ReportData(out_dir=tmp_path, name="T", bots=["inject"], records=[], matches_total=1, manifest={},
                      notices=[], matches=[], bot_reports={"inject": bot})
    text = bot_markdown(bot, data)
    assert not RAW.search(text)
    fault_row = next(line for line in text.splitlines() if line.startswith("| illegal"))
    assert fault_row.count("|") == 7 and "<img" not in fault_row
    # Each block is closed only by its own fence, longer than any backtick run inside it.
    for block in re.findall(r"^(`{3,})text\n(.*?)\n\1$", text, flags=re.S | re.M):
        assert block[0] not in block[1]
    assert "\n# not a heading" in text and "`````text\n" in text


def test_check_bot_report_and_referee_log_lines_are_inert() -> None:
    report = CheckReport(
        command=("python", "bot.py"), opponents=("caller",), hands=1, decisions=1,
        violations=(Violation(FaultKind.MALFORMED, 0, "unknown field '\x1b[2J'"),), status="crash: exit status 1",
        slowest_ms=1.0, net=0, limits=Limits(), stderr_tail=STDERR, counts={FaultKind.CRASH: 1},
        tracebacks=(STDERR,),
    )
    text = report.render()
    assert not RAW.search(text) and "\\x1b]0;pwned\\x07" in text


def test_cli_lines_are_inert_and_a_one_line_message_stays_one_line(capsys) -> None:  # noqa: ANN001
    from harness.cli.voice import echo, say

    say("run", "warning: bot 'x' failed: " + REASON + "\nharness run: all 12 bots pass")
    echo(STDERR)
    captured = capsys.readouterr()
    err, out = captured.err, captured.out
    assert err.count("\n") == 1 and not RAW.search(err.rstrip("\n"))
    assert not RAW.search(out) and "\\x1b[2J" in out


_MD = MarkdownIt("commonmark", {"html": False}).enable("table")  # as the report renders


def _render(text: str, *, inline: bool = True) -> str:
    """``text`` rendered by markdown-it as the report does (CommonMark, tables, raw HTML off)."""
    return _MD.renderInline(text) if inline else _MD.render(text)


@given(st.text())
def test_md_text_and_md_code_render_as_exactly_the_characters(text: str) -> None:
    import html

    shown = visible(text)
    assert _render(md_text(text)) == html.escape(shown, quote=False).replace('"', "&quot;")
    code = _render(md_code(text))
    assert code.startswith("<code>") and code.endswith("</code>") and code.count("<code>") == 1


MARKUP = (
    "![pixel](http://127.0.0.1:9/md-image.png) [Your grade is ready: log in here](http://127.0.0.1:9/login) "
    '<img src="http://127.0.0.1:9/raw.png"> <http://127.0.0.1:9/autolink> http://127.0.0.1:9/bare www.example.com '
    "a@example.com <script>x</script> &lt;b&gt; `` ` | *bold* _em_ [ref]\n\n[ref]: http://127.0.0.1:9/ref"
)


def test_markdown_payloads_in_every_bot_controlled_field_render_as_text(tmp_path: Path) -> None:
    bot = BotReport(name="inject", matches=["m1"], failing_match="m1", stderr_path="e`` `.err",
                    stderr_tail=[MARKUP, "```", "</code></pre><img src=x>"], tracebacks=1,
                    first_traceback="Traceback (most recent call last):\nValueError: " + MARKUP,
                    traceback_where=MARKUP,
                    faults=[FaultExample(kind=MARKUP, count=1, match_id=MARKUP, hand_id=0, decision=0,
                                         detail=f"unknown action {MARKUP!r}")], put_out=[(MARKUP, MARKUP)])
    data = ReportData(out_dir=tmp_path, name=MARKUP, bots=["inject"], records=[], matches_total=1, manifest={},
                      notices=[], matches=[], bot_reports={"inject": bot})
    page = _render(bot_markdown(bot, data), inline=False)
    assert not re.search(r"<(?!/?(?:h1|h2|p|code|pre|table|thead|tbody|tr|th|td)\b)", page), page
    assert "127.0.0.1:9/md-image.png" in page  # shown, as text
    fault_row = next(line for line in bot_markdown(bot, data).splitlines() if line.startswith("| " + md_cell(MARKUP)))
    assert fault_row.count("|") == 7
