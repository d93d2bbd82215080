"""The final: its own ``[final]`` plan (size and time before it starts), its progress, and a restart mid-way.

The plan is checked on a real database (SQLite) without a server; the restart on a real ``harness serve``
stopped with SIGTERM while the final runs, then started again.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("starlette")

from sqlalchemy import select  # noqa: E402

from harness.server import db as schema  # noqa: E402
from harness.server import store  # noqa: E402
from harness.server.contest import load_contest  # noqa: E402
from harness.server.final import MIN_HANDS, final_toml, plan  # noqa: E402
from harness.tournament.config import ConfigError  # noqa: E402
from tests.server_helpers import RAISER, Served, contest_file, free_port, links, upload, version_state, wait_for  # noqa: E402

CLASS = tuple(f"s{i:02d}" for i in range(30))


def _server(tmp_path: Path, final: str, students: tuple[str, ...] = CLASS) -> SimpleNamespace:
    """A contest whose students each have an admitted active version, and ladder matches of 200 hands that took
    2 s each (what the plan's time per hand is read from)."""
    tmp_path.mkdir(exist_ok=True)
    contest = load_contest(contest_file(tmp_path, students=students, extra=final))
    engine = schema.open_database(contest.database)
    store.sync_roster(engine, contest)
    with engine.connect() as conn:
        ids = dict(conn.execute(select(schema.students.c.name, schema.students.c.id)).all())
    for i, name in enumerate(students):
        vid = store.add_version(engine, ids[name], f"{i:064x}", "python bot.py", "").id
        store.finish_check(engine, vid, True, "", {})
    bid = store.new_block(engine, "ladder", ["v1", "rcaller"], 2, "t")
    with engine.connect() as conn:
        pks = conn.execute(select(schema.matches.c.id).where(schema.matches.c.block_id == bid)).scalars().all()
    for pk in pks:
        result = {"match_id": f"b{bid}", "seed": 1, "hands_played": 200, "bots": ["s00.v1", "caller"], "net": [0, 0],
                  "hand_nets": [], "faults": [{}, {}], "status": ["ok", "ok"], "duration_s": 2.0}
        store.finish_match(engine, pk, {"table": f"b{bid}", "rotation": 0, "big_blind": 2, "rotations": 2,
                                        "result": result})
    return SimpleNamespace(contest=contest, engine=engine)


def test_the_plan_of_a_class_of_30_gives_its_size_and_time(tmp_path: Path) -> None:
    """30 versions and the house bot, round robin heads-up: 31 * 30 matches of [final] hands; the time per hand
    is the ladder's own (2 s per 200 hands), divided among the ladder's jobs."""
    server = _server(tmp_path, "[final]\nhands = 500\n")
    try:
        p = plan(server)
        assert (p.bots, p.matches, p.hands, p.jobs) == (31, 31 * 30, 500, 2)
        assert p.seconds == pytest.approx(31 * 30 * 500 * 0.01 / 2)
        assert "930 matches of 500 hands" in p.describe() and "the ladder's last 2 matches" in p.describe()
        schedule = tomllib.loads(final_toml(server))["schedule"]
        assert (schedule["hands"], schedule["format"], schedule["table_size"]) == (500, "round-robin", 2)
    finally:
        server.engine.dispose()


def test_a_time_budget_cuts_the_hands_and_says_so(tmp_path: Path) -> None:
    server = _server(tmp_path, "[final]\nhands = 1000\nbudget_min = 60\n")
    try:
        p = plan(server)
        assert p.hands == int(3600 * 2 / (930 * 0.01)) and p.seconds <= 3600
        assert "cut from 1,000" in p.describe() and "budget of 60 min" in p.describe()
        assert tomllib.loads(final_toml(server, p))["schedule"]["hands"] == p.hands
    finally:
        server.engine.dispose()
    tight = _server(tmp_path / "tight", "[final]\nbudget_min = 1\n")
    try:
        p = plan(tight)
        assert p.hands == MIN_HANDS and "even at 20 hands" in p.describe()
    finally:
        tight.engine.dispose()


def test_sampled_tables_make_a_smaller_final(tmp_path: Path) -> None:
    server = _server(tmp_path, '[final]\nformat = "sampled"\ntables_per_bot = 4\ntable_size = 3\n')
    try:
        p = plan(server)
        assert p.format == "sampled" and p.table_size == 3 and p.matches < 31 * 30
        schedule = tomllib.loads(final_toml(server))["schedule"]
        assert (schedule["format"], schedule["tables_per_bot"], schedule["table_size"]) == ("sampled", 4, 3)
    finally:
        server.engine.dispose()


@pytest.mark.parametrize(("text", "key"), [
    ('[final]\nformat = "swiss"\n', "[final] format"),
    ("[final]\ntables_per_bot = 3\n", "[final] tables_per_bot"),
    ("[final]\nbudget_min = -1\n", "[final] budget_min"),
    ("[final]\nhandz = 3\n", "[final] handz"),
])
def test_final_settings_errors_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_contest(contest_file(tmp_path, extra=text))
    assert f": {key}: " in str(info.value) and "\n" not in str(info.value)


def _results(contest: Path) -> list[str]:
    path = load_contest(contest).data / "final" / "results.jsonl"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.exists() else []


@pytest.mark.slow
def test_a_final_shows_its_progress_and_resumes_by_itself_after_a_restart(tmp_path: Path) -> None:
    """Four bots, 12 matches of 600 hands: the admin page shows the plan, then "k of 12 matches played"; the
    server is stopped mid-way (SIGTERM) and started again: the final goes on by itself, ends "done" with 12
    records (none lost or doubled) and never reads "failed"."""
    contest = contest_file(tmp_path, hands=10, extra="[final]\nhands = 600\n")
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        for name in ("alice", "bob", "carol"):
            client = server.client(urls[name])
            vid = upload(client, "bot.py", (RAISER + f"\n# {name}\n").encode()).json()["id"]
            assert wait_for(lambda c=client, v=vid: version_state(c, v)["state"] == "admitted", timeout=600)
        admin = server.client(urls["admin"])
        planned = re.search(r'<p id="final-plan">(.*?)</p>', admin.get("/admin").text, re.S)
        assert planned and "round robin of 4 bots" in planned.group(1) and "12 matches of 600 hands" in planned.group(1)
        assert admin.post("/admin/final", follow_redirects=False).status_code == 303
        line = wait_for(lambda: (m := re.search(r'id="final-progress">([^<]*)<', admin.get("/admin").text))
                        and not m.group(1).startswith("0 of") and m.group(1), timeout=600)
        assert re.match(r"\d+ of 12 matches played", line)
        standings = admin.get("/admin").text  # the complete tables so far, with their intervals
        assert 'id="final-standings"' in standings
        assert re.search(r"<td>[+-]\d+\.\d</td><td>[+-]\d+\.\d \.\. ", standings)
        shown = re.search(r'id="final-running">([^<]*)<', server.client(urls["alice"]).get("/").text)
        assert shown and re.search(r"\d+ of 12 matches played", shown.group(1))  # the students' progress line
    finally:
        server.stop()
    before = _results(contest)
    assert 1 <= len(before) < 12, len(before)  # stopped mid-way
    server = Served(contest, port)
    try:
        admin = server.client(urls["admin"])
        state = wait_for(lambda: (m := re.search(r'id="final-state">Final: (\w+)', admin.get("/admin").text))
                         and m.group(1) != "running" and m.group(1), timeout=900)
        assert state == "done"
        assert server.client(urls["alice"]).get("/final/").status_code == 200
    finally:
        server.stop()
    after = _results(contest)
    assert len(after) == 12 and after[:len(before)] == before
    assert len({json.loads(r)["result"]["match_id"] for r in after}) == 12


def test_harness_plan_of_a_contest_file_gives_the_finals_size_and_time_before_it_starts(tmp_path: Path) -> None:
    """``harness plan CONTEST.toml``: before any upload, for the roster (nothing written: no data folder); once
    the database holds active versions, for them, with the ladder's own time per hand."""
    import subprocess

    from tests.server_helpers import HARNESS

    (tmp_path / "fresh").mkdir()
    fresh = contest_file(tmp_path / "fresh", students=CLASS)
    out = subprocess.run([*HARNESS, "plan", str(fresh)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "final: round robin of 31 bots at tables of 2: 930 matches of 10 hands" in out.stdout
    assert "entrants: 31, from the roster" in out.stdout and "lower bound" in out.stdout
    assert not (tmp_path / "fresh" / load_contest(fresh).data.name).exists(), "harness plan wrote the data folder"

    server = _server(tmp_path / "class", "[final]\nhands = 500\n", students=CLASS[:10])
    server.engine.dispose()
    out = subprocess.run([*HARNESS, "plan", str(server.contest.path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "final: round robin of 11 bots at tables of 2: 110 matches of 500 hands" in out.stdout
    assert "the ladder's last" in out.stdout and "entrants: 11, from the database's active versions" in out.stdout


def test_a_racing_final_plans_its_worst_case_and_its_least(tmp_path: Path) -> None:
    """30 versions and the house bot: 465 pairs; at most 4 tables each (2 matches a table), at least 1 (the round
    robin's size); the
    tournament file stays a round robin (the race's runner grows it round by round)."""
    server = _server(tmp_path, '[final]\nformat = "racing"\nhands = 500\nerror_rate = 0.1\n')
    try:
        p = plan(server)
        assert (p.format, p.matches, p.least_matches, p.hands) == ("racing", 465 * 4 * 2, 465 * 2, 500)
        assert p.seconds == pytest.approx(465 * 8 * 500 * 0.01 / 2)
        text = p.describe()
        assert "at most 3,720 matches of 500 hands" in text and "at least 930" in text and "0.1" in text
        assert tomllib.loads(final_toml(server))["schedule"]["format"] == "round-robin"
    finally:
        server.engine.dispose()


@pytest.mark.parametrize(("text", "key"), [
    ("[final]\nmax_tables = 3\n", "[final] max_tables"),
    ('[final]\nformat = "racing"\nerror_rate = 1.5\n', "[final] error_rate"),
    ('[final]\nformat = "racing"\ntable_size = 3\n', "[final] table_size"),
    ('[final]\nformat = "racing"\nmin_tables = 5\nmax_tables = 3\n', "[final] max_tables"),
])
def test_racing_settings_errors_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_contest(contest_file(tmp_path, extra=text))
    assert f": {key}: " in str(info.value) and "\n" not in str(info.value)


def _race_file(folder: Path) -> Path:
    """A tournament file of solid, caller and raiser, 60 hands a match, as the server writes a final's."""
    from tests.server_helpers import ROOT

    bots = "".join(f'[[bots]]\nname = "{n}"\ncommand = ["python", "-m", "bots.{n}"]\ncwd = "{ROOT}"\n\n'
                   for n in ("solid", "caller", "raiser"))
    path = folder / "final.toml"
    path.write_text(f'[tournament]\nname = "r"\noutput = "{folder / "final"}"\n\n[schedule]\nformat = "round-robin"\n'
                    f'hands = 60\ntable_size = 2\njobs = 2\n\n[sandbox]\nmode = "off"\n\n{bots}', encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_racing_final_stops_its_clear_pairs_and_resumes_after_a_kill(tmp_path: Path) -> None:
    """Real matches: solid beats caller and raiser by far (those pairs stop at their first look, 2 tables),
    caller and raiser play the same moves whatever their cards (their duplicate result is exactly 0: they play
    to the cap of 4). The runner is killed (SIGKILL, with its matches) mid-way and started again: 16 matches in
    the end, of at most 24, none lost or doubled."""
    import os
    import signal
    import subprocess
    import sys

    path = _race_file(tmp_path)
    command = [sys.executable, "-c", "from harness.server.race import main; main()", str(path), "0.05", "2", "4"]
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: len(_lines(tmp_path / "final")) >= 3 or first.poll() is not None, timeout=900)
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    before = _lines(tmp_path / "final")
    assert 3 <= len(before) < 16
    out = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-2000:]
    race = json.loads((tmp_path / "race.json").read_text(encoding="utf-8"))
    tables = {tuple(p["pair"]): (p["tables"], p["separated"]) for p in race["pairs"]}
    assert tables == {("caller", "raiser"): (4, False), ("caller", "solid"): (2, True), ("raiser", "solid"): (2, True)}
    assert race["over"] and race["standings"][0]["bot"] == "solid" and race["worst_case_matches"] == 24
    after = _lines(tmp_path / "final")
    ids = [json.loads(r)["result"]["match_id"] for r in after]
    assert len(after) == 16 == len(set(ids)) and after[:len(before)] == before
    # the report says racing and heads with the race's own standings (the final's order), the pooled table below
    assert json.loads((tmp_path / "final" / "tournament.json").read_text(encoding="utf-8"))["schedule"] == "racing"
    index = (tmp_path / "final" / "report" / "index.html").read_text(encoding="utf-8")
    assert index.index('id="race-standings"') < index.index('id="pooled-explain"') < index.index('id="leaderboard"')
    shown = re.findall(r'<tr><td>(\d*)</td><td class="bot"><a href="[^"]*">([^<]+)</a></td><td>([^<]+)</td>',
                       index.split('id="race-standings"')[1].split("</table>")[0])
    race_order = [(str(k), row["bot"], f"{row['bb_per_100']:+.2f}") for k, row in enumerate(race["standings"], 1)]
    assert shown == race_order


def _lines(out: Path) -> list[str]:
    path = out / "results.jsonl"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()] if path.exists() else []


def _race_in_chromium(server: Served, login: str, folder: Path) -> None:
    """The leaderboard in real Chromium while the race runs: its standings table, one row a bot, each with an
    interval or none yet, and the rule of the racing final's order explained."""
    from tests.browser_helpers import ARTIFACTS, launch_browser, require_chromium

    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_browser(pw, executable, folder / "profile")
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(login)
            page.wait_for_url(server.url + "/")
            page.wait_for_selector("#race-standings")
            rows = page.locator("#race-standings tr").all_inner_texts()[1:]
            assert len(rows) == 4 and {r.split("\t")[1] for r in rows} == {"alice.v1", "bob.v1", "carol.v1", "caller"}
            assert "every opponent weighing the same" in page.inner_text("#how-ranked")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "server-racing-final.png"), full_page=True)
            assert not errors, errors
        finally:
            browser.close()


@pytest.mark.slow
def test_a_racing_final_on_the_server_survives_a_kill_9(tmp_path: Path) -> None:
    """Three raisers and the caller, racing at most 2 tables a pair: the admin page shows the worst case, then
    the progress and the race's standings; the server is killed (SIGKILL) mid-final and started again: the final
    goes on by itself and ends "done" with every pair at its cap (24 matches), none lost or doubled."""
    contest = contest_file(tmp_path, hands=10, extra='[final]\nformat = "racing"\nhands = 40\nmin_tables = 1\n'
                                                      'max_tables = 2\n')
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        for name in ("alice", "bob", "carol"):
            client = server.client(urls[name])
            vid = upload(client, "bot.py", (RAISER + f"\n# {name}\n").encode()).json()["id"]
            assert wait_for(lambda c=client, v=vid: version_state(c, v)["state"] == "admitted", timeout=600)
        admin = server.client(urls["admin"])
        planned = re.search(r'<p id="final-plan">(.*?)</p>', admin.get("/admin").text, re.S)
        assert planned and "racing round robin of 4 bots heads-up: at most 24 matches of 40 hands" in planned.group(1)
        assert admin.post("/admin/final", follow_redirects=False).status_code == 303
        page = wait_for(lambda: (t := admin.get("/admin").text) and 'id="race-standings"' in t
                        and not re.search(r'id="final-progress">0 of', t) and t, timeout=900)
        assert re.search(r'id="final-progress">\d+ of at most 24 matches played; \d of 6 pairs still racing', page)
        _race_in_chromium(server, urls["alice"], tmp_path)
    finally:
        server.kill9()
    before = _results(contest)
    assert 1 <= len(before) <= 24
    server = Served(contest, port)
    try:
        admin = server.client(urls["admin"])
        state = wait_for(lambda: (m := re.search(r'id="final-state">Final: (\w+)', admin.get("/admin").text))
                         and m.group(1) != "running" and m.group(1), timeout=1200)
        assert state == "done"
        result = admin.get("/admin").text  # the race's result stays on the admin page
        assert 'id="race-standings"' in result and "Racing final, its result" in result
    finally:
        server.stop()
    after = _results(contest)
    assert len(after) == 24 and after[:len(before)] == before
    assert len({json.loads(r)["result"]["match_id"] for r in after}) == 24


def test_the_provisional_standings_are_read_again_only_when_the_results_change(tmp_path: Path) -> None:
    """Two heads-up tables recorded: both bots ranked with an interval; a third table changes the rows."""
    from harness.server.final import provisional
    from tests.leaderboard_helpers import rec

    out = tmp_path / "final"
    out.mkdir()
    assert provisional(tmp_path) == []
    lines = [rec(t, r, ["a", "b"] if r == 0 else ["b", "a"], [[10 + t, -10 - t], [-5, 5], [20, -20]]).to_dict()
             for t in range(2) for r in range(2)]
    (out / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    rows = provisional(tmp_path)
    assert [r.bot for r in rows] == ["a", "b"] or [r.bot for r in rows] == ["b", "a"]
    assert all(r.estimate.low is not None and r.rank for r in rows)
    assert provisional(tmp_path) is rows  # unchanged file: the same rows, not read again
    more = [rec(2, r, ["a", "b"] if r == 0 else ["b", "a"], [[100, -100]] * 3).to_dict() for r in range(2)]
    with open(out / "results.jsonl", "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(x) + "\n" for x in more))
    again = provisional(tmp_path)
    assert again is not rows and sum(r.hands for r in again) == sum(r.hands for r in rows) + 12


def test_a_racing_plan_predicts_its_size_from_the_ladders_gaps(tmp_path: Path) -> None:
    """Ladder blocks of four versions against the house bot, two far apart in skill and two level: the plan's
    expected size lies strictly between its least and its worst case (and is absent before any such block)."""
    import random

    server = _server(tmp_path, '[final]\nformat = "racing"\nhands = 100\n', students=CLASS[:4])
    rng = random.Random(4)
    try:
        assert plan(server).expected_matches is None  # the fixture's one block holds no hands
        for i, edge in enumerate((0, 0, 8, -8)):  # chips a hand over the caller, big blind 2
            for _ in range(3):
                bid = store.new_block(server.engine, "ladder", [f"v{i + 1}", "rcaller"], 2, "t")
                with server.engine.connect() as conn:
                    pks = conn.execute(select(schema.matches.c.id).where(schema.matches.c.block_id == bid)
                                       .order_by(schema.matches.c.id)).scalars().all()
                deals = [rng.choice((-6, -2, 2, 6)) + edge for _ in range(50)]
                for rotation, pk in enumerate(pks):
                    bots = [f"s{i:02d}.v1", "caller"] if rotation == 0 else ["caller", f"s{i:02d}.v1"]
                    # the deal's luck follows the seat, the edge follows the version: rotation 1 gives the version
                    # -luck + edge = 2 * edge - d
                    nets = [[d, -d] if rotation == 0 else [d - 2 * edge, 2 * edge - d] for d in deals]
                    result = {"match_id": f"b{bid}r{rotation}", "seed": bid, "hands_played": 50, "bots": bots,
                              "net": [sum(n[0] for n in nets), sum(n[1] for n in nets)], "hand_nets": nets,
                              "faults": [{}, {}], "status": ["ok", "ok"], "duration_s": 1.0}
                    store.finish_match(server.engine, pk, {"table": f"b{bid}", "rotation": rotation, "big_blind": 2,
                                                           "rotations": 2, "result": result})
        p = plan(server)
        assert p.expected_matches is not None and p.least_matches < p.expected_matches < p.matches, p
        assert "expected about" in p.describe() and "from the ladder's gaps and spread" in p.describe()
    finally:
        server.engine.dispose()


def test_a_contest_on_a_dask_cluster_plays_its_final_there(tmp_path: Path) -> None:
    """``[ladder] cluster``: the final's tournament file names the same scheduler (the dask backend), no jobs."""
    from tests.server_helpers import contest_file as make

    contest = load_contest(make(tmp_path, cluster="tcp://10.0.0.5:8786", extra='[final]\nformat = "racing"\n'))
    engine = schema.open_database(contest.database)
    try:
        schedule = tomllib.loads(final_toml(SimpleNamespace(contest=contest, engine=engine)))["schedule"]
    finally:
        engine.dispose()
    assert schedule["scheduler"] == "tcp://10.0.0.5:8786" and "jobs" not in schedule


def test_harness_plan_of_a_racing_contest_gives_its_worst_case_and_its_least(tmp_path: Path) -> None:
    import subprocess

    from tests.server_helpers import HARNESS

    contest = contest_file(tmp_path, students=CLASS, extra='[final]\nformat = "racing"\nhands = 100\n')
    out = subprocess.run([*HARNESS, "plan", str(contest)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "final: racing round robin of 31 bots heads-up: at most 3,720 matches of 100 hands" in out.stdout
    assert "at least 930 matches" in out.stdout and "expected: not known before the ladder has played" in out.stdout


def test_the_plan_on_a_dask_cluster_counts_its_worker_threads_or_says_why_not(tmp_path: Path) -> None:
    """``[ladder] cluster``: ``harness plan`` counts the cluster's worker threads (``local:N``: N), not the local
    ``[ladder] jobs``; a scheduler that does not answer is one line naming why, with 1 job assumed; the admin page's
    plan counts them as the ladder's process wrote them when it connected."""
    import subprocess

    from harness.server.final import CLUSTER_THREADS
    from tests.server_helpers import HARNESS

    for name, cluster in (("local", "local:3"), ("gone", f"tcp://127.0.0.1:{free_port()}")):
        (tmp_path / name).mkdir()
        path = contest_file(tmp_path / name, students=CLASS[:5], jobs=7, cluster=cluster)
        out = subprocess.run([*HARNESS, "plan", str(path)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        line = next(x for x in out.stdout.splitlines() if x.startswith("final: "))
        if name == "local":
            assert "with 3 jobs: the worker threads of the cluster local:3 " in line
        else:
            assert "with 1 job: 1 assumed: the cluster's worker threads cannot be counted (" in line
            assert f"{cluster} did not answer" in line or "distributed package" in line
        assert "7 jobs" not in out.stdout
    server = _server(tmp_path / "admin", "")
    try:
        server.contest = dataclasses.replace(server.contest, ladder=dataclasses.replace(
            server.contest.ladder, cluster="tcp://10.0.0.5:8786"))
        assert plan(server).jobs == 1 and "not known until the ladder has connected" in plan(server).describe()
        store.set_setting(server.engine, CLUSTER_THREADS, "12")
        assert plan(server).jobs == 12
        assert "with 12 jobs: the worker threads of the cluster tcp://10.0.0.5:8786, as the ladder counted them" \
            in plan(server).describe()
    finally:
        server.engine.dispose()
