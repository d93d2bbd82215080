"""Reports of a small real tournament: per-bot Markdown, the HTML files, and the report in headless Chromium.

One tournament (module fixture, `harness run` through the CLI) is shared by every test here,
and the browser test opens one Chromium.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.match.untrusted import md_cell
from harness.report.hands import hand_view
from harness.tournament.results import hand_history_path, read_hands, read_records
from harness.tournament.runner import run_tournament
from tests.test_runner_fakes import fake_config, fake_play

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """5 bots heads-up (duplicate, 20 matches of 16 hands): a caller, a solid bot, a flaky one
    (illegal actions), one whose act() raises (tracebacks in its stderr, no protocol fault) and a
    hostile one whose action names and stderr are Markdown/HTML payloads pointing at another host."""
    tmp = tmp_path_factory.mktemp("report")
    bots = [
        ("caller", "python -m bots.caller", ""),
        ("solid", "python -m bots.solid", ""),
        ("flaky", "python -m bots.flaky", 'FLAKY_ILLEGAL_RATE = "0.25", FLAKY_TIMEOUT_RATE = "0", FLAKY_SEED = "2"'),
        ("buggy", "python -m tests.fixtures.broken_bots.buggy_act", ""),
        ("markup", "python -m tests.fixtures.hostile.markup", ""),
    ]
    text = '[tournament]\nname = "report-test"\nseed = 5\n[schedule]\nhands = 16\njobs = 2\n' \
           '[limits]\ndecision_ms = 2000\nmax_faults = 1000\n'
    for name, command, env in bots:
        text += f'[[bots]]\nname = "{name}"\ncommand = "{command}"\ncwd = "{ROOT}"\nenv = {{ {env} }}\n'
    config = tmp / "report.toml"
    config.write_text(text)
    out = tmp / "out"
    # No entry check: it would leave "buggy" out (tracebacks on stderr), and its report is what is tested here.
    result = CliRunner().invoke(app, ["run", str(config), "--out", str(out), "--no-entry-check"])
    assert result.exit_code == 0, result.output
    return out


def test_harness_run_writes_the_report_and_per_bot_reports(contest: Path) -> None:
    assert (contest / "report" / "index.html").is_file()
    assert (contest / "report" / "static" / "plotly.min.js").stat().st_size > 1_000_000
    for bot in ("caller", "solid", "flaky", "buggy"):
        assert (contest / "reports" / f"{bot}.md").is_file()
        assert (contest / "report" / "bots" / f"{bot}.html").is_file()
    for rec in read_records(contest):
        assert (contest / "report" / "matches" / f"{rec.match_id}.html").is_file()
        assert (contest / "report" / "hands" / f"{rec.match_id}.js").is_file()


def first_fault(out: Path, bot: str, kind: str) -> tuple[str, int, str]:
    """(match, hand, detail) of the bot's first fault of a kind, in schedule order, from the raw hand histories."""
    for rec in sorted(read_records(out), key=lambda r: (r.table, r.rotation)):
        for record in read_hands(hand_history_path(out / "matches" / rec.match_id)):
            for fault in record["faults"]:
                if record["match"]["bots"][fault["seat"]] == bot and fault["kind"] == kind:
                    return rec.match_id, record["hand_id"], fault["detail"]
    raise AssertionError(f"{bot} has no {kind} fault")


def test_bot_report_lists_faults_with_the_first_example_and_its_counts(contest: Path) -> None:
    text = (contest / "reports" / "flaky.md").read_text()
    match_id, hand_id, detail = first_fault(contest, "flaky", "illegal")
    illegal = sum(r.result.faults[r.result.bots.index("flaky")].get("illegal", 0)
                  for r in read_records(contest) if "flaky" in r.result.bots)
    assert illegal > 0
    row = next(line for line in text.splitlines() if line.startswith("| illegal"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:4] == ["illegal", str(illegal), match_id, str(hand_id)]
    assert cells[5] == md_cell(detail)
    assert "## End of its stderr in its first failing match" in text
    assert "No faults." in (contest / "reports" / "caller.md").read_text()


def test_bot_report_has_opponents_tracebacks_times_and_a_replay_command_that_works(contest: Path) -> None:
    text = (contest / "reports" / "buggy.md").read_text()
    for opponent in ("caller", "solid", "flaky"):
        assert re.search(rf"^\| {opponent} +\| 2 ", text, re.M), opponent
    assert re.search(r"^\d+ traceback\(s\) \(Python \d+\) over its matches", text, re.M)
    assert "ZeroDivisionError" in text and "Traceback (most recent call last):" in text
    assert re.search(r"\d+ decisions: median [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms\. Time bank used", text)
    command = re.search(r"^harness replay (\S+)$", text, re.M)
    assert command, text
    result = CliRunner().invoke(app, ["replay", command.group(1)])
    assert result.exit_code == 0, result.output
    assert "None recognised" in (contest / "reports" / "solid.md").read_text()  # no traceback: none reported


def test_every_chart_is_a_valid_plotly_figure(contest: Path) -> None:
    import json

    import plotly.graph_objects as go

    pages = [contest / "report" / "index.html", contest / "report" / "bots" / "flaky.html",
             next((contest / "report" / "matches").glob("*.html"))]
    found = 0
    for page in pages:
        for spec in re.findall(r'<script type="application/json" id="fig-[a-z]+">(.*?)</script>', page.read_text(),
                               re.S):
            go.Figure(json.loads(spec))  # raises on any property plotly.js does not know
            found += 1
    assert found == 3 + 1 + 1  # intervals, crosstable, LOS; opponents; chips (heads-up: no rating)


def test_pages_request_nothing_from_another_host(contest: Path) -> None:
    for page in (contest / "report").rglob("*.html"):
        html = page.read_text()
        for ref in re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)""", html):
            assert not re.match(r"^[a-z]+:|^//", ref), f"{page}: {ref}"
        assert "<script src=\"http" not in html


def test_bot_controlled_text_is_text_in_every_markdown_and_html_output(contest: Path) -> None:
    from markdown_it import MarkdownIt

    from harness.report.html import CSP
    from tests.fixtures.hostile.markup import PAYLOADS

    text = (contest / "reports" / "markup.md").read_text()
    assert "127.0.0.1:9/login" in text  # the payload is reported...
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)  # even with raw HTML on
    # ...as text: no image or script, and no link but the report's own links into its hand viewer
    assert not re.search(r"<(?:img|script)\b", html), html
    links = re.findall(r"<a\b[^>]*>", html)
    assert all(re.fullmatch(r'<a href="\.\./report/hand\.html\?match=[A-Za-z0-9_.%~-]+&amp;hand=\d+">', a)
               for a in links), links
    page = (contest / "report" / "bots" / "markup.html").read_text()
    assert not re.search(r"<(?:a[^>]*href=\"http|img|script[^>]*src=\"http)", page)
    shown = re.sub(r"<[^>]+>", "", page)
    import html as html_lib

    assert any(html_lib.unescape(p) in html_lib.unescape(shown) for p in PAYLOADS)
    for path in (contest / "report").rglob("*.html"):
        meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', path.read_text())
        assert meta and html_lib.unescape(meta.group(1)) == CSP, path
    assert "default-src 'none'" in CSP and "http" not in CSP


def test_harness_report_rewrites_the_report_and_refuses_a_missing_directory(contest: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(contest, copy, ignore=shutil.ignore_patterns("report", "reports"))
    result = CliRunner().invoke(app, ["report", str(copy), "--all-hands"])
    assert result.exit_code == 0, result.output
    assert "report:" in result.output and (copy / "report" / "index.html").is_file()
    first = next(r.match_id for r in read_records(copy) if r.result.bots == ["caller", "solid"])
    hands = (copy / "report" / "hands" / f"{first}.js").read_text()
    assert hands.count('"hand_id"') == 16  # --all-hands keeps every hand
    missing = CliRunner().invoke(app, ["report", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such directory" in missing.output


def test_deals_of_a_table_still_being_played_are_not_shown(contest: Path, tmp_path: Path) -> None:
    from harness.report.html import write_report

    copy = tmp_path / "copy"
    shutil.copytree(contest, copy, ignore=shutil.ignore_patterns("report", "reports"))
    lines = (copy / "results.jsonl").read_text().splitlines(keepends=True)
    records = read_records(copy)
    last = records[-1]
    (copy / "results.jsonl").write_text("".join(lines[:-1]))  # its other rotation is still to be played
    twin = next(r for r in records[:-1] if r.table == last.table)
    write_report(copy, running=True)
    assert '"hand_id"' not in (copy / "report" / "hands" / f"{twin.match_id}.js").read_text()
    assert "once all its rotations are played" in (copy / "report" / "matches" / f"{twin.match_id}.html").read_text()
    other = next(r for r in records if r.table != last.table)
    assert '"hand_id"' in (copy / "report" / "hands" / f"{other.match_id}.js").read_text()


def test_a_running_tournament_refreshes_its_report(tmp_path: Path) -> None:
    from harness.report.html import write_report

    out = tmp_path / "run"
    calls = tmp_path / "calls"

    def hook(directory: Path) -> None:
        write_report(directory, running=True)
        with open(calls, "a") as fh:
            fh.write("x")

    summary = run_tournament(fake_config(out, ["a", "b", "c"], table_size=3, hands=30), play=fake_play,
                             quiet=True, report=hook, report_every_s=0.0)
    assert summary.complete and calls.read_text()
    page = (out / "report" / "index.html").read_text()
    assert re.search(r"running, \d+ of 3 matches", page) and 'http-equiv="refresh"' in page
    final = write_report(out)
    page = final.path.read_text()
    assert "finished: 3 of 3 matches" in page and "refresh" not in page
    assert "Plackett-Luce" in page  # 3-seat tables: the rating is shown


def test_hand_view_adds_up_chips_step_by_step(contest: Path) -> None:
    rec = read_records(contest)[0]
    for record in read_hands(hand_history_path(contest / "matches" / rec.match_id)):
        view = hand_view(record)
        last = view["steps"][-1]
        returned = sum(r["amount"] for r in view["returned"])
        assert last["pot"] - returned == sum(p["amount"] for p in view["pots"])
        assert [s + c for s, c in zip(last["stacks"], [0] * len(last["stacks"]), strict=True)] == [
            start - put for start, put in zip(view["stacks"], _put_in(view), strict=True)]
        assert view["final"] == [p["final_cards"] for p in record["players"]]
        assert view["net"] == [p["net"] for p in record["players"]]
        assert all(s["added"] == a["added"] and s["to"] == a["to"] for s, a in
                   zip([s for s in view["steps"] if s["by"] != "post" and s["action"] != "draw"],
                       [a for a in record["actions"] if a["kind"] != "draw"], strict=True))
        for fault in view["faults"]:  # a fault points at the step of its decision
            assert fault["decision"] is None or view["steps"][fault["decision"]]["seat"] == fault["seat"]


def _put_in(view: dict[str, Any]) -> list[int]:
    put = [0] * len(view["bots"])
    for step in view["steps"]:
        put[step["seat"]] += step["added"]
    return put


# ---------------------------------------------------------------- the report in a real browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), shutil.which("chromium"), "/usr/bin/chromium",
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def skip_loudly(reason: str) -> None:
    message = (f"BROWSER TEST NOT RUN: {reason}. Install Debian's chromium (apt-get install -y chromium), "
               "as make test does when run as root.")
    warnings.warn(message, stacklevel=2)
    print(f"\n*** {message} ***\n")
    pytest.skip(message)


def test_report_in_headless_chromium(contest: Path, tmp_path: Path) -> None:
    executable = chromium_path()
    if executable is None:
        skip_loudly("no chromium executable found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_loudly("the playwright Python package is not installed (pip install -e '.[test]')")
    report = (contest / "report").resolve()
    errors: list[str] = []
    outside: list[str] = []

    def watch(page: Any) -> None:
        page.on("console", lambda msg: errors.append(f"{msg.type}: {msg.text}") if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))

        def request(req: Any) -> None:
            if not req.url.startswith(report.as_uri() + "/"):
                outside.append(req.url)
        page.on("request", request)

    with sync_playwright() as pw:
        # A fresh profile (--user-data-dir) for this test only.
        browser = pw.chromium.launch_persistent_context(tmp_path / "profile", executable_path=executable,
                                                        args=CHROMIUM_FLAGS, viewport={"width": 1200, "height": 900})
        try:
            page = browser.new_page()
            watch(page)
            # The leaderboard: rows equal leaderboard.csv, charts drawn.
            page.goto((report / "index.html").as_uri())
            page.wait_for_selector("#leaderboard tbody tr")
            page.wait_for_selector("[data-figure='crosstable'] .main-svg")
            shown = page.eval_on_selector_all(
                "#leaderboard-csv tr", "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))")
            with open(contest / "leaderboard.csv", newline="") as fh:
                expected = [list(row) for row in csv.reader(fh)]
            assert shown == expected
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=True)
            # A bot page lists that bot's faults.
            page.click("#leaderboard a:text-is('flaky')")
            page.wait_for_selector("h1:text-is('flaky')")
            match_id, hand_id, detail = first_fault(contest, "flaky", "illegal")
            fault_row = page.locator("table", has_text="what happened").locator("tr", has_text="illegal")
            assert detail in fault_row.inner_text() and match_id in fault_row.inner_text()
            # The hand viewer steps through a known hand: the first of a match with a showdown.
            rec = read_records(contest)[0]
            record = next(r for r in read_hands(hand_history_path(contest / "matches" / rec.match_id))
                          if r["shown"] and any(a["kind"] == "draw" and a["discards"] for a in r["actions"]))
            players = record["players"]
            page.goto((report / "hand.html").as_uri() + f"?match={rec.match_id}&hand={record['hand_id']}")
            page.wait_for_selector("#viewer:not([hidden])")

            def seat_cards(seat: int) -> list[str]:
                return page.eval_on_selector_all(f"#seat-table tr[data-seat='{seat}'] .card",
                                                 "cs => cs.map(c => c.textContent)")

            assert [seat_cards(s) for s in range(len(players))] == [p["dealt"] for p in players]
            page.uncheck("#show-hole")
            assert set(seat_cards(0)) == {"??"}  # the viewer's choice: hole cards hidden
            page.check("#show-hole")
            page.click("#next")
            steps = len(record["posts"]) + len(record["actions"])
            assert page.inner_text("#step-label") == f"step 1 of {steps}"
            assert page.inner_text("#actions li.current").startswith(f"seat {record['posts'][0]['seat']} ")
            page.click("#last")
            assert [seat_cards(s) for s in range(len(players))] == [p["final_cards"] for p in players]
            pots = page.eval_on_selector_all("#pots li.pot", "ps => ps.map(p => Number(p.dataset.amount))")
            assert pots == [p["chips"] for p in record["pots"]]
            winners = page.inner_text("#pots li.pot")
            assert all(record["match"]["bots"][w] in winners for w in record["pots"][0]["winners"])
            stacks = page.eval_on_selector_all("#seat-table .stack", "cs => cs.map(c => Number(c.textContent))")
            assert stacks == [p["final_stack"] for p in players]
            page.screenshot(path=str(ARTIFACTS / "report-hand.png"), full_page=True)
            # The hostile bot's pages: its payloads (images, links, raw HTML to 127.0.0.1:9) are text.
            page.goto((report / "bots" / "markup.html").as_uri())
            page.wait_for_selector("h1:text-is('markup')")
            assert "127.0.0.1:9/login" in page.inner_text("main")
            assert page.eval_on_selector_all("main a[href^='http'], main img", "es => es.length") == 0
            hostile = next(r for r in read_records(contest) if "markup" in r.result.bots)
            page.goto((report / "matches" / f"{hostile.match_id}.html").as_uri())
            page.wait_for_selector("[data-figure='chips'] .main-svg")
            kept = next(iter(read_hands(hand_history_path(contest / "matches" / hostile.match_id))))
            page.goto((report / "hand.html").as_uri() + f"?match={hostile.match_id}&hand={kept['hand_id']}")
            page.wait_for_selector("#viewer:not([hidden])")
            page.click("#last")
            # Players are labelled by match seat, not by their position among those dealt in
            # (a table whose seats 3 and 5 play the hand).
            view = hand_view(record)
            view["match_id"], view["seats"] = "seats-3-5", [3 + 2 * k for k in range(len(view["bots"]))]
            (report / "hands" / "seats-3-5.js").write_text(
                "window.REPORT_HANDS = {\"seats-3-5\": [" + json.dumps(view) + "]};\n")
            page.goto((report / "hand.html").as_uri() + f"?match=seats-3-5&hand={record['hand_id']}")
            page.wait_for_selector("#viewer:not([hidden])")
            page.click("#next")
            first = view["seats"][view["steps"][0]["seat"]]
            assert page.inner_text("#actions li.current").startswith(f"seat {first} ")
            assert page.inner_text("#seat-table tr[data-seat='1'] td").startswith("5")
        finally:
            browser.close()
    assert errors == []
    assert outside == []
    print(f"screenshots: {ARTIFACTS}/report-index.png, report-hand.png")


# ---------------------------------------------------------------- statistics and where the chips went


def test_stats_csv_has_every_bot_counted_from_the_raw_hand_histories(contest: Path) -> None:
    from harness.report.pokerstats import COLUMNS, PokerStats

    with open(contest / "stats.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(COLUMNS)
    stats = PokerStats()
    for rec in read_records(contest):
        for record in read_hands(hand_history_path(contest / "matches" / rec.match_id)):
            stats.add_hand(hand_view(record))
    for row in rows:
        counts = stats.bots[row["bot"]]
        hands = sum(r.result.hands_played for r in read_records(contest) if row["bot"] in r.result.bots)
        assert int(row["hands"]) == counts.hands == hands
        assert row["vpip"] == f"{counts.vpip / counts.round1:.4f}"
        assert float(row["pfr"]) <= float(row["vpip"])
    assert {r["bot"] for r in rows} == {"caller", "solid", "flaky", "buggy", "markup"}
    page = (contest / "report" / "index.html").read_text()
    assert '<table id="stats"' in page and 'title="Voluntarily put chips in the pot' in page


def test_counterpart_lines_are_what_the_duplicate_records_hold(contest: Path) -> None:
    from harness.report.collect import collect

    data = collect(contest)
    records = {r.match_id: r for r in read_records(contest)}
    raw = {m: {h["hand_id"]: h for h in read_hands(hand_history_path(contest / "matches" / m))} for m in records}
    checked = 0
    for bot in data.bot_reports.values():
        assert len(bot.costly) <= 20 and len(bot.best) <= 20 and bot.costly and bot.best
        assert [line.net for line in bot.costly] == sorted(line.net for line in bot.costly)
        assert all(line.net < 0 for line in bot.costly) and all(line.net > 0 for line in bot.best)
        for line in bot.costly + bot.best:
            record = raw[line.match_id][line.hand_id]
            mine = next(p for p in record["players"] if p["seat"] == line.seat)
            assert (mine["bot"], mine["net"], mine["dealt"]) == (bot.name, line.net, line.dealt)
            twins = [m for m, r in records.items() if r.table == line.table and m != line.match_id]
            assert [c.match_id for c in line.counterparts] == twins  # heads-up duplicate: one other rotation
            for c in line.counterparts:
                twin = raw[c.match_id][line.hand_id]
                held = next(p for p in twin["players"] if sorted(p["dealt"]) == sorted(line.dealt))
                assert (c.bot, c.seat, c.net, c.rotation) == (held["bot"], held["seat"], held["net"],
                                                              records[c.match_id].rotation)
                assert c.bot != bot.name  # the other rotation seats the other bot on these cards
                checked += 1
    assert checked >= 100
    text = (contest / "reports" / "solid.md").read_text()
    assert "## Poker statistics" in text and "## Where the chips went" in text
    assert "### The 20 hands that cost it most" in text and "(../report/hand.html?match=" in text
    # Every listed hand opens in the viewer: it is in the hands kept for its match.
    for bot in data.bot_reports.values():
        for line in bot.costly + bot.best:
            kept = (contest / "report" / "hands" / f"{line.match_id}.js").read_text()
            assert f'"hand_id":{line.hand_id},' in kept
