"""Reports of a small real tournament: per-bot Markdown, the HTML files, and the report in headless Chromium.

One tournament (module fixture, `harness run` through the CLI) is shared by every test here,
and the browser test opens one Chromium.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.match.untrusted import md_cell
from harness.report.hands import hand_view
from harness.tournament.results import hand_history_path, read_hands, read_records
from harness.tournament.runner import run_tournament
from tests.browser_helpers import ARTIFACTS, ROOT, launch_browser, require_chromium
from tests.runner_helpers import fake_config, fake_play

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


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
        for spec in re.findall(r'<script type="application/json" id="fig-[a-z_]+">(.*?)</script>', page.read_text(),
                               re.S):
            go.Figure(json.loads(spec))  # raises on any property plotly.js does not know
            found += 1
    assert found == 4 + 1 + 1  # intervals, crosstable, LOS, bb/100 history; opponents; chips (heads-up: no rating)


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
    assert "Plackett-Luce" in page  # 3-seat tables: the rating is shown, and its history
    assert 'id="fig-rating_history"' in page and 'id="fig-bb_history"' in page


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


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One headless Debian chromium (Playwright) for the browser tests of this module, with a fresh profile."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        context = launch_browser(pw, executable, tmp_path_factory.mktemp("profile"), size=(1300, 900))
        try:
            yield context
        finally:
            context.close()


class Watched:
    """A page whose console errors and requests outside ``allowed`` (a URL prefix) are recorded."""

    def __init__(self, browser: Any, allowed: str) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"{m.type}: {m.text}") if m.type == "error" else None)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("request", lambda r: None if r.url.startswith(allowed) else self.outside.append(r.url))

    def close(self) -> None:
        self.page.close()
        assert self.errors == [] and self.outside == []


def seat_cards(page: Any, seat: int) -> list[str]:
    """The cards the viewer shows for a match seat ("" for a card face down)."""
    return page.eval_on_selector_all(f"#viewer .tv-seat[data-seat='{seat}'] .tv-card",
                                     "cs => cs.map(c => c.dataset.card)")


def showdown_hand(out: Path) -> tuple[str, dict[str, Any]]:
    """A known hand: the first of the first match with a showdown and a draw of some cards."""
    rec = read_records(out)[0]
    record = next(r for r in read_hands(hand_history_path(out / "matches" / rec.match_id))
                  if r["shown"] and any(a["kind"] == "draw" and a["discards"] for a in r["actions"]))
    return rec.match_id, record


def test_report_in_headless_chromium(contest: Path, browser: Any) -> None:
    report = (contest / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    # The leaderboard: the folded table's rows equal leaderboard.csv, charts drawn.
    page.goto((report / "index.html").as_uri())
    page.wait_for_selector("#leaderboard tbody tr")
    page.wait_for_selector("[data-figure='crosstable'] .main-svg")
    shown = page.eval_on_selector_all(
        "#leaderboard-csv tr", "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))")
    with open(contest / "leaderboard.csv", newline="") as fh:
        expected = [list(row) for row in csv.reader(fh)]
    assert shown == expected
    heads = page.eval_on_selector_all("#leaderboard th", "hs => hs.map(h => [h.textContent, h.title])")
    assert [h for h, _ in heads][:5] == ["#", "bot", "hands", "bb/100", "95% CI"] and all(t for _, t in heads)
    first = next(row for row in csv.DictReader(open(contest / "leaderboard.csv")) if row["ci95_low"])
    cells = page.eval_on_selector_all("#leaderboard tbody tr:first-child td", "cs => cs.map(c => c.textContent)")
    assert cells[4] == f"{float(first['ci95_low']):+.1f}..{float(first['ci95_high']):+.1f}"
    # A bot page lists that bot's faults.
    page.click("#leaderboard a:text-is('flaky')")
    page.wait_for_selector("h1:text-is('flaky')")
    match_id, hand_id, detail = first_fault(contest, "flaky", "illegal")
    fault_row = page.locator("table", has_text="what happened").locator("tr", has_text="illegal")
    assert detail in fault_row.inner_text() and match_id in fault_row.inner_text()
    # The hand viewer steps through a known hand.
    match_id, record = showdown_hand(contest)
    players = record["players"]
    page.goto((report / "hand.html").as_uri() + f"?match={match_id}&hand={record['hand_id']}")
    page.wait_for_selector("#viewer .tv-seat")
    assert [seat_cards(page, p["seat"]) for p in players] == [p["dealt"] for p in players]
    page.select_option("#viewer .tv-seen", str(players[1]["seat"]))
    assert set(seat_cards(page, players[0]["seat"])) == {""}  # seen from the other seat: face down
    page.select_option("#viewer .tv-seen", "")
    page.click("#viewer .tv-next")
    steps = len(record["posts"]) + len(record["actions"])
    assert page.inner_text("#viewer .tv-step") == f"step 1 of {steps}"
    assert page.inner_text("#viewer .tv-log li.tv-now").startswith(f"seat {record['posts'][0]['seat']} ")
    page.click("#viewer .tv-last")
    assert [seat_cards(page, p["seat"]) for p in players] == [p["final_cards"] for p in players]
    pots = page.eval_on_selector_all("#viewer .tv-pot-line", "ps => ps.map(p => Number(p.dataset.amount))")
    assert pots == [p["chips"] for p in record["pots"]]
    winners = page.inner_text("#viewer .tv-pot-line")
    assert all(record["match"]["bots"][w] in winners for w in record["pots"][0]["winners"])
    stacks = page.eval_on_selector_all("#viewer .tv-stack", "cs => cs.map(c => Number(c.textContent))")
    assert stacks == [p["final_stack"] for p in players]
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
    page.wait_for_selector("#viewer .tv-seat")
    page.click("#viewer .tv-last")
    # Players are labelled by match seat, not by their position among those dealt in
    # (a table whose seats 3 and 5 play the hand).
    view = hand_view(record)
    view["match_id"], view["seats"] = "seats-3-5", [3 + 2 * k for k in range(len(view["bots"]))]
    (report / "hands" / "seats-3-5.js").write_text(
        "window.REPORT_HANDS = {\"seats-3-5\": [" + json.dumps(view) + "]};\n")
    index = page.inner_text("#hand-index")
    html_page = (report / "hand.html").read_text()
    (report / "hand-3-5.html").write_text(html_page.replace(
        index, index[:-1] + ',"seats-3-5":{"file":"seats-3-5","bots":[]}}'))
    page.goto((report / "hand-3-5.html").as_uri() + f"?match=seats-3-5&hand={record['hand_id']}")
    page.wait_for_selector("#viewer .tv-seat")
    page.click("#viewer .tv-next")
    first_seat = view["seats"][view["steps"][0]["seat"]]
    assert page.inner_text("#viewer .tv-log li.tv-now").startswith(f"seat {first_seat} ")
    assert page.inner_text("#viewer .tv-seat[data-seat='5'] .tv-name").startswith("seat 5 ")
    watched.close()


def test_pages_fit_1300_pixels_without_horizontal_scroll(contest: Path, browser: Any) -> None:
    report = (contest / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    assert page.viewport_size == {"width": 1300, "height": 900}
    match_id, record = showdown_hand(contest)
    pages = ["index.html", "bots/solid.html", "bots/flaky.html", f"matches/{match_id}.html",
             f"hand.html?match={match_id}&hand={record['hand_id']}"]
    for name in pages:
        page.goto(report.as_uri() + "/" + name)
        page.wait_for_load_state("load")
        # plotly draws after load (and redraws on resize): measure once every chart is drawn
        page.wait_for_function("() => [...document.querySelectorAll('[data-figure]')]"
                               ".every(e => e.querySelector('.main-svg'))")
        page.wait_for_timeout(300)
        width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], (name, width)
    page.goto((report / "index.html").as_uri())
    assert page.eval_on_selector("#board-details", "d => d.open") is False  # the details are folded
    for table in ("#leaderboard", "#stats"):  # whole in the window, no scroll of their own either
        box = page.eval_on_selector(table, "t => [t.getBoundingClientRect().right, t.scrollWidth, t.clientWidth]")
        assert box[0] <= 1300 and box[1] <= box[2], (table, box)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=True)
    page.goto((report / "bots" / "solid.html").as_uri())
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "report-bot.png"), full_page=True)
    watched.close()


def test_a_10_kb_bot_name_in_a_hand_history_does_not_widen_the_pages(tmp_path: Path, browser: Any) -> None:
    """A ``harness match`` folder whose hands.jsonl was edited to name a bot with 10 kB and no space: its
    report's pages (the match page's showdown column, the viewer's seat list, table and log) stay the
    window's width (a long name wraps or is cut, instead of a page tens of thousands of pixels wide)."""
    import subprocess
    import sys

    out = tmp_path / "m"
    done = subprocess.run([sys.executable, "-m", "harness.cli", "match", "--sandbox", "off", "--hands", "6",
                           "--seed", "9", "--bot", f"a={sys.executable} -m bots.caller",
                           "--bot", f"b={sys.executable} -m bots.caller", "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    long = "W" * 10_000
    history = out / "hands.jsonl"
    records = [json.loads(line) for line in history.read_text().splitlines()]
    for record in records:
        record["match"]["bots"] = [long if b == "a" else b for b in record["match"]["bots"]]
        for player in record["players"]:
            player["bot"] = long if player["bot"] == "a" else player["bot"]
    history.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert any(r["shown"] for r in records)  # callers show down: the long name is in the showdown column
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    report = (out / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    for name, ready in [("matches/match.html", "#hands"),
                        (f"hand.html?match=match&hand={records[0]['hand_id']}", "#viewer .tv-seat"),
                        ("hand.html?bot=b", "#viewer .tv-item")]:  # its search: a list of hands and players
        page.goto(report.as_uri() + "/" + name)
        page.wait_for_selector(ready)
        assert long in page.content(), name  # the name is there, whole (a page without it would pass)
        width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width[0] <= width[1], (name, width)
    watched.close()


def test_viewer_plays_a_known_hand_to_its_end_at_x10(contest: Path, browser: Any) -> None:
    report = (contest / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    match_id, record = showdown_hand(contest)
    page.goto((report / "hand.html").as_uri() + f"?match={match_id}&hand={record['hand_id']}")
    page.wait_for_selector("#viewer .tv-seat")
    page.select_option("#viewer .tv-speed", "10")
    page.click("#viewer .tv-play")
    assert page.get_attribute("#viewer", "data-playing") == "1"
    page.wait_for_function("() => { const v = document.getElementById('viewer');"
                           " return v.dataset.pos === v.dataset.end && !v.dataset.playing; }", timeout=60_000)
    steps = len(record["posts"]) + len(record["actions"])
    assert page.get_attribute("#viewer", "data-end") == str(steps + 1)
    pot = sum(p["chips"] for p in record["pots"])
    assert page.get_attribute("#viewer .tv-pot", "data-amount") == str(pot)
    assert page.inner_text("#viewer .tv-pot") == f"pots {pot}"
    assert page.inner_text("#viewer .tv-step") == "showdown and pots"
    nets = page.eval_on_selector_all("#viewer .tv-net", "ns => ns.map(n => Number(n.textContent))")
    assert nets == [p["net"] for p in record["players"]]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-hand.png"), full_page=True)
    watched.close()


def test_seen_from_seat_1_never_shows_seat_0_before_the_showdown(contest: Path, browser: Any) -> None:
    report = (contest / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    match_id, record = showdown_hand(contest)
    zero = next(p for p in record["players"] if p["seat"] == 0)
    one = next(p for p in record["players"] if p["seat"] == 1)
    secret = set(zero["dealt"]) | set(zero["final_cards"])
    page.goto((report / "hand.html").as_uri() + f"?match={match_id}&hand={record['hand_id']}&seat=1")
    page.wait_for_selector("#viewer .tv-seat")
    assert page.eval_on_selector("#viewer .tv-seen", "s => s.value") == "1"
    end = int(page.get_attribute("#viewer", "data-end"))
    for pos in range(end + 1):
        assert int(page.get_attribute("#viewer", "data-pos")) == pos
        mine = seat_cards(page, 1)
        assert mine == (one["dealt"] if pos <= _draw_step(record, 1) else one["final_cards"]), pos
        theirs = seat_cards(page, 0)
        text = page.inner_text("#viewer")
        if pos < end:  # before the showdown: nothing of seat 0's cards, on the table or in the log
            assert set(theirs) == {""}, pos
            assert not [c for c in secret if re.search(rf"\b{c}\b", text)], pos
        else:  # at the showdown: the five cards it showed, no more
            five = next(s["five"] for s in record["shown"] if s["seat"] == 0)
            assert sorted(c for c in theirs if c) == sorted(five)
        page.click("#viewer .tv-next")
    watched.close()


def _draw_step(record: dict[str, Any], seat: int) -> int:
    """The viewer position after which a seat holds its cards after the draw (1-based steps)."""
    index = next(i for i, a in enumerate(record["actions"]) if a["kind"] == "draw" and a["seat"] == seat)
    return len(record["posts"]) + index


def test_the_search_finds_a_known_hand(contest: Path, browser: Any) -> None:
    from harness.engine.cards import parse_cards
    from harness.engine.evaluator import best_hand

    report = (contest / "report").resolve()
    watched = Watched(browser, report.as_uri() + "/")
    page = watched.page
    match_id, record = showdown_hand(contest)
    page.goto((report / "hand.html").as_uri() + f"?match={match_id}&hand=0")
    page.wait_for_selector("#viewer .tv-seat")
    page.fill("#viewer .tv-search", f"#{record['hand_id']}")
    listed = page.eval_on_selector_all("#viewer .tv-item", "ls => ls.map(l => Number(l.dataset.hand))")
    assert listed == [record["hand_id"]]
    assert page.inner_text("#viewer .tv-title").endswith(f"hand {record['hand_id']}")
    pot = sum(p["chips"] for p in record["pots"])
    winner = record["players"][0] if record["players"][0]["net"] > 0 else record["players"][1]
    category = best_hand(parse_cards(winner["final_cards"])).label
    page.fill("#viewer .tv-search", f"showdown pot>={pot} bot:{winner['bot']} {category}")
    listed = page.eval_on_selector_all("#viewer .tv-item", "ls => ls.map(l => Number(l.dataset.hand))")
    assert record["hand_id"] in listed
    kept = {h["hand_id"]: h for h in json.loads(
        (report / "hands" / f"{match_id}.js").read_text().splitlines()[1].split(" = ", 1)[1].rstrip(";"))}
    for hand_id in listed:  # every hand listed matches the search
        hand = kept[hand_id]
        seat = hand["bots"].index(winner["bot"])
        assert hand["shown"] and sum(p["amount"] for p in hand["pots"]) >= pot
        assert hand["categories"][seat] == category
    # A bot's hands: every match of the bot, searched with bot:<name>.
    page.goto((report / "hand.html").as_uri() + "?bot=solid")
    page.wait_for_selector("#viewer .tv-seat")
    matches = page.eval_on_selector_all("#viewer .tv-item", "ls => [...new Set(ls.map(l => l.dataset.match))]")
    assert sorted(matches) == sorted(r.match_id for r in read_records(contest) if "solid" in r.result.bots)
    assert page.input_value("#viewer .tv-search") == "bot:solid"
    watched.close()


def test_single_file_replay_opens_from_disk_and_requests_nothing_else(contest: Path, browser: Any,
                                                                      tmp_path: Path) -> None:
    match_id, record = showdown_hand(contest)
    target = tmp_path / "replay.html"
    result = CliRunner().invoke(app, ["replay", str(contest / "matches" / match_id), "--html", str(target)])
    assert result.exit_code == 0, result.output
    assert f"replay page: {target} (16 hands" in result.output
    html = target.read_text()
    assert not re.search(r"<(?:script|link|img)\b[^>]*\s(?:src|href)\s*=", html)  # every part is inline
    watched = Watched(browser, target.as_uri())
    page = watched.page
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(target.as_uri())
    page.wait_for_selector("#viewer .tv-seat")
    assert page.eval_on_selector_all("#viewer .tv-item", "ls => ls.length") == 16
    # One match's page: "hand N" (not "<match id> #N"), titled by its players and its id.
    labels = page.eval_on_selector_all("#viewer .tv-item a", "ls => ls.map(l => l.textContent)")
    assert labels == [f"hand {i}" for i in range(16)], labels
    assert page.title().endswith(f", match {match_id}") and " vs " in page.title()
    page.click(f"#viewer .tv-item[data-hand='{record['hand_id']}'] a")
    page.select_option("#viewer .tv-speed", "10")
    page.click("#viewer .tv-play")
    page.wait_for_function("() => { const v = document.getElementById('viewer');"
                           " return v.dataset.pos === v.dataset.end && !v.dataset.playing; }", timeout=60_000)
    assert page.get_attribute("#viewer .tv-pot", "data-amount") == str(sum(p["chips"] for p in record["pots"]))
    assert requests == [target.as_uri()]
    watched.close()
    bad = CliRunner().invoke(app, ["replay", str(contest), "--html", str(tmp_path / "x.html")])
    assert bad.exit_code == 2 and "--html" in bad.output and not (tmp_path / "x.html").exists()


def test_a_replay_page_of_harness_match_is_titled_by_its_players() -> None:
    """``harness match`` names every match "match": its page is not "Match match"."""
    from harness.report.viewer import replay_title

    assert replay_title("match", ["caller", "raiser"]) == "caller vs raiser"
    assert replay_title("r0-t1", ["caller", "raiser"]) == "caller vs raiser, match r0-t1"


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
                twin = raw[c.match_id][c.hand_id]  # the hand of that rotation's own (secret) order that dealt it
                assert twin["seed"] == record["seed"]  # the same deal
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
