#!/usr/bin/env python3
"""Take the report's screenshots for docs/ from a finished tournament (e.g. `make league`'s output).

    .venv/bin/python tools/report_screenshots.py results/league [--docs docs]

Writes docs/report.png (the leaderboard page), docs/report-bot.png (the top bot's page: statistics and
where its chips went) and docs/report-hand.png (the viewer, mid-hand, on the top bot's costliest hand),
at 1,300 px wide, with Debian's chromium through Playwright (as tests/test_report.py does).
Exit 2 with one line when the directory has no report or no browser is found.
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import sys
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a tournament output directory with its report")
    parser.add_argument("--docs", type=Path, default=Path(__file__).resolve().parents[1] / "docs")
    args = parser.parse_args()
    report = args.out.resolve() / "report"
    if not (report / "index.html").is_file() or not (args.out / "leaderboard.csv").is_file():
        print(f"report_screenshots: {report}/index.html or leaderboard.csv not found: run harness report first",
              file=sys.stderr)
        return 2
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("report_screenshots: no chromium found (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with open(args.out / "leaderboard.csv", newline="") as fh:
        top = next(csv.DictReader(fh))["bot"]
    safe = re.sub(r"[^A-Za-z0-9_.+~-]", "_", top)
    bot_md = (args.out / "reports" / f"{safe}.md").read_text()
    link = re.search(r"\(\.\./report/(hand\.html\?match=[^)&]+&hand=\d+)\)", bot_md.split("cost it most", 1)[-1])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.goto((report / "index.html").as_uri())
        page.wait_for_selector("[data-figure='bb_history'] .main-svg")
        page.screenshot(path=str(args.docs / "report.png"), clip={"x": 0, "y": 0, "width": 1300, "height": 1500},
                        full_page=True)
        page.goto((report / "bots" / f"{safe}.html").as_uri())
        page.wait_for_timeout(500)
        start = page.eval_on_selector("h2:text-is('Poker statistics')", "h => h.getBoundingClientRect().top")
        page.screenshot(path=str(args.docs / "report-bot.png"), full_page=True,
                        clip={"x": 0, "y": max(0, start - 10), "width": 1300, "height": 1500})
        if link:
            page.goto(report.as_uri() + "/" + link.group(1))
            page.wait_for_selector("#viewer .tv-seat")
            for _ in range(4):
                page.click("#viewer .tv-next")
            page.screenshot(path=str(args.docs / "report-hand.png"), full_page=True,
                            clip={"x": 0, "y": 0, "width": 1300, "height": 1000})
        browser.close()
    print(f"screenshots: {args.docs}/report.png, report-bot.png, report-hand.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
