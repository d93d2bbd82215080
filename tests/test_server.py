"""The contest server end to end: a real ``harness serve`` (uvicorn on 127.0.0.1), real bots, short matches.

Covers: the contest file's errors, login links, two students submitting (web
form and ``harness submit``), a broken version refused with its reason and
never replacing the active one, blocks played and the leaderboard JSON,
visibility over every route, challenges and their quota, freeze, ``kill -9``
and resume, and the migrations.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

from harness.server.contest import load_contest  # noqa: E402
from harness.tournament.config import ConfigError  # noqa: E402
from tests.server_helpers import (  # noqa: E402
    BROKEN,
    HARNESS,
    RAISER,
    ROOT,
    Served,
    Slots,
    contest_file,
    free_port,
    links,
    served_contest,
    upload,
    version_state,
    wait_for,
)

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


@pytest.mark.parametrize(("text", "where"), [
    ('[contest]\nname = "a b"\n', "[contest] name"),
    ('[contest]\nname = "x"\n[ladder]\ntable_size = 7\n', "[ladder] table_size"),
    ('[contest]\nname = "x"\n[ladder]\nhandz = 3\n', "[ladder] handz"),
    ('[contest]\nname = "x"\n[[reference]]\nname = "c"\n', "reference[0].command"),
    ('[contest]\nname = "x"\n[[reference]]\nname = "c"\ncommand = "nosuchprogram-x"\n', "reference[0].command"),
    ('[contest]\nname = "x"\n[[reference]]\nname = "c"\ncommand = "python -m bots.caller"\n'
     '[[students]]\nname = "c"\n', "students[0].name"),
    ('[contest]\nname = "x"\ndatabase = "mysql://h/db"\n', "[contest] database"),
])
def test_contest_file_errors_name_the_file_and_the_key(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_contest(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {where}: ") and "\n" not in message


def test_contest_defaults(tmp_path: Path) -> None:
    c = load_contest(contest_file(tmp_path))
    assert c.data == (tmp_path / "contest-t").resolve()
    assert c.database == f"sqlite:///{c.data / 'contest.db'}"
    assert [s.name for s in c.students] == ["alice", "bob", "carol"]
    pg = tmp_path / "pg"
    pg.mkdir()
    assert load_contest(contest_file(pg, database="postgresql://u@h/db")).database.startswith("postgresql+psycopg://")


def test_links_are_csv_tokens_stored_hashed_and_reissued(tmp_path: Path) -> None:
    contest = contest_file(tmp_path)
    first = links(contest, 8000)
    assert set(first) == {"admin", "alice", "bob", "carol"}
    assert all(u.startswith("http://127.0.0.1:8000/login/") for u in first.values())
    db = sqlite3.connect(tmp_path / "contest-t" / "contest.db")
    stored = {row[0] for row in db.execute("select token_hash from tokens")}
    for url in first.values():
        assert url.rsplit("/", 1)[1] not in stored  # only hashes are kept
    second = links(contest, 8000)
    assert not set(first.values()) & set(second.values())
    live = db.execute("select count(*) from tokens where revoked is null").fetchone()[0]
    assert live == 4
    db.close()


def test_links_for_an_unknown_student_say_so_and_issue_nothing(tmp_path: Path) -> None:
    contest = contest_file(tmp_path)
    links(contest, 8000)
    for names in (["nobody"], ["alice", "nobody", "zed"]):
        argv = [*HARNESS, "serve", str(contest), "--links"] + [a for n in names for a in ("--student", n)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 2 and done.stdout == ""
        unknown = ", ".join(n for n in names if n != "alice")
        assert done.stderr == f"harness serve: --student {unknown}: no such student in {contest} (its [[students]]); " \
                              "no link was issued\n"
    db = sqlite3.connect(tmp_path / "contest-t" / "contest.db")
    assert db.execute("select count(*) from tokens where revoked is null").fetchone()[0] == 4  # alice's kept
    db.close()


@pytest.mark.parametrize("option", [["--student", "alice"], ["--url", "https://contest.example.org"]])
def test_an_option_of_links_without_links_is_a_usage_line(tmp_path: Path, option: list[str]) -> None:
    """Without --links the server would start and run, the option silently ignored."""
    contest = contest_file(tmp_path)
    done = subprocess.run([*HARNESS, "serve", str(contest), *option], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"harness serve: {option[0]} goes with --links (it chooses which login links to print)\n"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request) -> str:
    """"" (the default SQLite file in the data folder) or a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return ""
    return request.getfixturevalue("pg_cluster").database()


def query(contest: Path, sql: str, *args: object) -> list[tuple]:
    """Rows of ``sql`` (``?`` placeholders) on the contest's database, whichever back-end."""
    from harness.server.contest import load_contest as load

    engine = create_engine(load(contest).database)
    try:
        with engine.connect() as conn:
            params = {f"p{i}": a for i, a in enumerate(args)}
            for i in range(len(args)):
                sql = sql.replace("?", f":p{i}", 1)
            return [tuple(r) for r in conn.execute(text(sql), params).all()]
    finally:
        engine.dispose()


@pytest.fixture
def served(tmp_path: Path, database: str):
    with served_contest(tmp_path, database=database) as both:
        yield both


def test_two_students_submit_broken_is_refused_blocks_played(served, tmp_path: Path) -> None:
    server, urls = served
    alice = server.client(urls["alice"])
    # alice by the web form (a single file; the command follows from its name)
    answer = alice.post("/submit", files={"file": ("bot.py", RAISER.encode())}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/versions/")
    vid = int(answer.headers["location"].rsplit("/", 1)[1])
    assert wait_for(lambda: version_state(alice, vid)["state"] != "checking")
    assert version_state(alice, vid)["state"] == "admitted"
    # bob by `harness submit` (a folder with a bot.toml), exit 0
    folder = tmp_path / "bobbot"
    folder.mkdir()
    (folder / "main.py").write_text(RAISER, encoding="utf-8")
    (folder / "bot.toml").write_text('command = "python main.py"\n', encoding="utf-8")
    token = urls["bob"].rsplit("/", 1)[1]
    done = subprocess.run([*HARNESS, "submit", "--server", server.url, "--token", token, str(folder)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "admitted: bob.v1" in done.stdout
    # bob's broken version: refused with its reason and traceback; exit 1; v1 stays active
    (folder / "main.py").write_text(BROKEN, encoding="utf-8")
    done = subprocess.run([*HARNESS, "submit", "--server", server.url, "--token", token, str(folder)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "refused:" in done.stdout and "ModuleNotFoundError" in done.stdout
    assert "nosuchmodule_for_the_test" in done.stdout
    bob = server.client(urls["bob"])
    v1, v2 = version_state(bob, 2), version_state(bob, 3)  # ids: alice's 1, then bob's two
    assert (v1["bot"], v2["bot"]) == ("bob.v1", "bob.v2")
    assert v2["state"] == "refused" and not v2["active"] and "ModuleNotFoundError" in v2["reason"]
    assert v1["active"]

    def both_played():
        rows = {r["bot"]: r for r in bob.get("/api/leaderboard").json()}
        return rows if all(rows.get(b, {}).get("hands", 0) > 0 for b in ("alice.v1", "bob.v1")) else None

    rows = wait_for(both_played, timeout=600)
    for bot, student in (("alice.v1", "alice"), ("bob.v1", "bob")):
        row = rows[bot]
        assert row["student"] == student and row["version"] == 1 and row["status"] == "active"
        assert set(row) >= {"bot", "student", "version", "hands", "bb_per_100", "ci95_low", "ci95_high", "rating",
                            "status"}
    assert "bob.v2" not in rows
    assert rows["caller"]["status"] == "reference"
    # alice's page: her results, per opponent and per match (read through match_bots, written as results land)
    page = alice.get("/students/alice").text
    opponents = re.findall(r'<tr><td class="bot">([^<]+)</td><td>(\d+)</td>', page.split("Results per opponent")[1])
    assert opponents and all(int(hands) > 0 for _, hands in opponents)
    assert "alice.v1" not in {bot for bot, _ in opponents} and re.search(r'href="/matches/b\d+-r\d"', page)
    # the admin page's job slots (fetched by the page itself): busy and available seconds so far
    slots = server.client(urls["admin"]).get("/admin/slots").json()
    assert 0 < slots["busy_s"] <= slots["available_s"]
    assert alice.get("/admin/slots").status_code == 404  # the admin's only
    # the same content again is the same version, re-activated
    (folder / "main.py").write_text(RAISER, encoding="utf-8")
    done = subprocess.run([*HARNESS, "submit", "--server", server.url, "--token", token, str(folder)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and "bob.v1" in done.stdout


def test_refusals_of_hostile_uploads_over_http(served) -> None:
    server, urls = served
    alice = server.client(urls["alice"])
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("../../escape.py", "x")
    answer = upload(alice, "evil.zip", buf.getvalue(), "python bot.py")
    assert answer.status_code == 400 and "goes up a folder" in answer.json()["error"]
    assert not (server.contest.parent / "escape.py").exists()
    answer = upload(alice, "big.bin", b"x" * (21 * 1024 * 1024))
    assert answer.status_code == 413 and "at most 20 MiB" in answer.json()["error"]


# Every route: (method, path template, expected status for: nobody, another student, the owner, the admin).
# {vid} is alice's version, {mid} a match of alice's, {seat} alice's seat in it, {other} the caller's seat.
ROUTES = [
    ("GET", "/", 401, 200, 200, 200),
    ("GET", "/healthz", 200, 200, 200, 200),
    ("GET", "/api/leaderboard", 401, 200, 200, 200),
    ("GET", "/students/alice", 401, 200, 200, 200),
    ("GET", "/versions/{vid}", 401, 404, 200, 200),
    ("GET", "/api/versions/{vid}", 401, 404, 200, 200),
    ("GET", "/versions/{vid}/code", 401, 404, 200, 200),
    ("POST", "/versions/{vid}/activate", 401, 404, 303, 303),
    ("GET", "/matches/{mid}", 401, 200, 200, 200),
    ("GET", "/matches/{mid}/logs/{seat}", 401, 404, 200, 200),
    ("GET", "/matches/{mid}/logs/{other}", 401, 404, 404, 200),
    ("GET", "/admin", 401, 404, 404, 200),
    ("GET", "/admin/slots", 401, 404, 404, 200),
    ("POST", "/admin/roster", 401, 404, 404, 303),
    ("GET", "/admin/export", 401, 404, 404, 200),
    ("GET", "/final", 401, 307, 307, 307),
    ("GET", "/final/", 401, 404, 404, 404),
    ("GET", "/final/%2e%2e%2f%2e%2e%2fcontest.db", 401, 404, 404, 404),
    ("GET", "/events", 401, None, None, None),
    ("POST", "/submit", 401, 400, 400, 400),
    ("POST", "/challenge", 401, 409, 303, 401),
]
SECRET_MARK = "ALICE-SECRET-STDERR-MARK"


def test_every_route_by_who_asks(served) -> None:
    server, urls = served
    alice = server.client(urls["alice"])
    bot = RAISER.replace("if __name__ == \"__main__\":",
                         f"import sys\nprint({SECRET_MARK!r}, file=sys.stderr)\nif __name__ == \"__main__\":")
    answer = upload(alice, "bot.py", bot.encode())
    vid = answer.json()["id"]
    assert wait_for(lambda: version_state(alice, vid)["state"] == "admitted")

    def alice_match():
        for r in alice.get("/api/leaderboard").json():
            if r["bot"] == "alice.v1" and r["blocks"] > 0:
                return True
        return False

    wait_for(alice_match, timeout=600)
    page = alice.get("/students/alice").text
    mid = page.split('href="/matches/', 1)[1].split('"', 1)[0]
    record = json.loads(query(server.contest, "select record from matches where match_id = ?", mid)[0][0])
    seat = record["result"]["bots"].index("alice.v1")
    people = {"nobody": server.client(), "other": server.client(urls["bob"]), "owner": alice,
              "admin": server.client(urls["admin"])}
    for method, template, *expected in ROUTES:
        path = template.format(vid=vid, mid=mid, seat=seat, other=1 - seat)
        for (who, client), status in zip(people.items(), expected, strict=True):
            if path == "/events":  # a stream: only its status is read
                with client.stream("GET", path) as got:
                    assert got.status_code == (401 if who == "nobody" else 200), (path, who)
                continue
            if method == "GET":
                got = client.get(path, follow_redirects=False)
            elif path == "/challenge":
                got = client.post(path, data={"opponent": "caller" if who != "other" else "alice.v1"},
                                  follow_redirects=False)
            elif path == "/submit":
                got = client.post(path, data={"student": "alice"}, follow_redirects=False)
            else:
                got = client.post(path, data={}, follow_redirects=False)
            assert got.status_code == status, (method, path, who, got.status_code, got.text[:200])
            if who in ("nobody", "other"):
                assert SECRET_MARK not in got.text, (path, who)
    # the admin's export holds the database's rows and the hand histories, never the tokens
    import tarfile as tar_module

    export = people["admin"].get("/admin/export")
    with tar_module.open(fileobj=io.BytesIO(export.content), mode="r:gz") as tar:
        names = tar.getnames()
        dump = json.loads(tar.extractfile("t/database.json").read())
    assert "tokens" not in dump and dump["versions"][0]["id"] == vid
    assert any(n.endswith("hands.jsonl.gz") for n in names)
    # the match page: bob sees no hole cards of alice's seat, alice does
    # (the filtering is done on the server, in the hands given to the page's table viewer)
    def viewer_hands(client) -> list[dict]:
        text = client.get(f"/matches/{mid}").text
        assert "/assets/match.js" in text and "/static/table-viewer.js" in text
        return json.loads(text.split('id="hands-data">', 1)[1].split("</script>", 1)[0])

    hands_bob, hands_alice, hands_admin = (viewer_hands(people[w]) for w in ("other", "owner", "admin"))
    assert hands_bob and len(hands_bob) == len(hands_alice) == len(hands_admin)
    for bob, own, full in zip(hands_bob, hands_alice, hands_admin, strict=True):
        here = full["seats"].index(seat)
        assert all(c is not None for c in full["hole"][here] + full["hole"][1 - here])
        assert own["hole"][here] == full["hole"][here] and own["final"][here] == full["final"][here]
        for view, hidden in ((bob, (here, 1 - here)), (own, (1 - here,))):
            assert view["shown"] == full["shown"]  # cards shown down are public
            for k in hidden:
                assert all(c is None for c in view["hole"][k] + view["final"][k])
                assert all("discards" not in s and "received" not in s for s in view["steps"] if s["seat"] == k)
        text = json.dumps(bob)
        secret = set(full["hole"][here] + full["final"][here]) - {c for x in full["shown"] for c in x["five"]}
        assert not any(f'"{c}"' in text for c in secret)
    assert SECRET_MARK in alice.get(f"/matches/{mid}/logs/{seat}").text
    # bob (no version) cannot challenge; alice's quota is 2 per hour (one used above)
    assert alice.post("/challenge", data={"opponent": "caller"}, follow_redirects=False).status_code == 303
    assert alice.post("/challenge", data={"opponent": "caller"}, follow_redirects=False).status_code == 429
    # freeze: students' uploads refused with the reason
    admin = people["admin"]
    assert admin.post("/admin/freeze", data={"value": "1"}, follow_redirects=False).status_code == 303
    answer = upload(alice, "bot.py", RAISER.encode() + b"\n# v2\n")
    assert answer.status_code == 403 and "froze" in answer.json()["error"]


def test_kill9_mid_block_resumes_without_counting_twice(tmp_path: Path, database: str) -> None:
    contest = contest_file(tmp_path, hands=400, jobs=1, database=database)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice = server.client(urls["alice"])
        vid = upload(alice, "bot.py", RAISER.encode()).json()["id"]
        wait_for(lambda: version_state(alice, vid)["state"] == "admitted")

        def running():
            return query(contest, "select id from matches where state = 'running'")

        wait_for(running, timeout=600, every=0.05)
        server.kill9()
    finally:
        server.stop()
    before = query(contest, "select count(*) from matches where state = 'done'")[0][0]
    interrupted = query(contest, "select match_id from matches where state = 'running'")
    assert interrupted
    server = Served(contest, port)
    try:
        def redone():
            states = dict(query(contest, "select match_id, state from matches"))
            return all(states[m] == "done" for (m,) in interrupted)

        wait_for(redone, timeout=600)
    finally:
        server.stop()
    rows = query(contest, "select m.match_id, m.record, b.state from matches m join blocks b on b.id = m.block_id"
                          " where m.state = 'done'")
    assert query(contest, "select count(*) from versions")[0][0] == 1  # the submission is kept
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids)) and len(ids) > before
    for match_id, record, _state in rows:  # one record per match, its own
        assert json.loads(record)["match_id"] == match_id


def test_migrations_upgrade_in_place(tmp_path: Path, database: str) -> None:
    from sqlalchemy import insert, inspect, select

    from harness.server import db as schema
    from harness.server import store
    from harness.server.contest import load_contest as load
    from harness.server.db import current_revision, make_engine, upgrade

    engine = make_engine(load(contest_file(tmp_path, database=database)).database)
    assert current_revision(engine) is None
    upgrade(engine, "0001")  # a database made by the first release of the server, with results in it
    assert set(inspect(engine).get_table_names()) >= {"students", "tokens", "sessions", "versions", "blocks",
                                                      "matches", "settings", "alembic_version"}
    record = {"table": "b1", "rotation": 0, "big_blind": 2, "rotations": 1,
              "result": {"match_id": "b1-r0", "seed": 1, "hands_played": 10, "bots": ["alice.v1", "house"],
                         "net": [5, -5], "hand_nets": [], "faults": [{}, {"timeout": 3}],
                         "status": ["ok", "put out: 3 timeouts"]}}
    with engine.begin() as conn:
        conn.execute(insert(schema.students).values(name="alice", email="", created=0.0))
        conn.execute(insert(schema.blocks).values(id=1, kind="ladder", seats="[]", seed="0" * 64, state="done",
                                                  created=0.0, finished=1.0))
        conn.execute(insert(schema.matches).values(id=1, block_id=1, rotation=0, match_id="b1-r0", state="done",
                                                   record=json.dumps(record), error="", finished=1.0))
    upgrade(engine)  # the next start-up upgrades it in place
    assert current_revision(engine) == "0004"
    with engine.connect() as conn:
        assert conn.execute(select(schema.students.c.name)).scalars().all() == ["alice"]
        assert sorted(conn.execute(select(schema.match_bots.c.bot)).scalars()) == ["alice.v1", "house"]
        if engine.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    assert [r["result"]["match_id"] for r in store.records_of(engine, {"alice.v1"})] == ["b1-r0"]
    assert store.records_of(engine, {"bob.v1"}) == []
    assert store.fault_totals(engine) == {"house": {"timeout": 3, "out": 1}}  # 0004: faults from the records
    upgrade(engine)  # a second start-up keeps everything
    assert current_revision(engine) == "0004"
    engine.dispose()


def test_the_final_publishes_the_usual_report(tmp_path: Path) -> None:
    contest = contest_file(tmp_path)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        for name, extra in (("alice", ""), ("bob", "\n# bob\n")):
            client = server.client(urls[name])
            vid = upload(client, "bot.py", (RAISER + extra).encode()).json()["id"]
            wait_for(lambda c=client, v=vid: version_state(c, v)["state"] == "admitted")
        admin = server.client(urls["admin"])
        assert admin.get("/final/").status_code == 404
        assert admin.post("/admin/final", follow_redirects=False).status_code == 303
        alice = server.client(urls["alice"])
        page = wait_for(lambda: (r := alice.get("/final/")).status_code == 200 and r.text, timeout=600)
        assert "alice.v1" in page and "bob.v1" in page and "caller" in page
        assert alice.get("/final/../seed.secret").status_code == 404
    finally:
        server.stop()


def test_serve_with_a_bad_contest_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[contest]\nname = "x"\n[ladder]\ntable_size = 9\n', encoding="utf-8")
    done = subprocess.run([*HARNESS, "serve", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "[ladder] table_size" in done.stderr and str(path) in done.stderr
    done = subprocess.run([*HARNESS, "submit", "--server", "http://127.0.0.1:9", "--token", "x", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "cannot reach" in done.stderr and done.stderr.strip().count("\n") == 0


@pytest.mark.parametrize(("contest", "more", "key", "where", "reason"), [
    ('data = "/proc/nope"', "", "[contest] data", "/proc/nope", "No such file or directory"),
    ('data = "afile/sub"', "", "[contest] data", "afile/sub", "Not a directory"),
    ('data = "afile"', "", "[contest] data", "afile", "Not a directory"),
    ('database = "/proc/nope/c.db"', "", "[contest] database", "/proc/nope", "No such file or directory"),
    ('database = "afile/c.db"', "", "[contest] database", "afile", "Not a directory"),
    ("", 'cwd = "nowhere"', "reference[0].cwd", "nowhere", "No such file or directory"),
    ("", 'cwd = "afile"', "reference[0].cwd", "afile", "Not a directory"),
    ("", 'files = ["afile/x"]', "reference[0].files", "afile/x", "Not a directory"),
    ("", '[sandbox]\npaths = ["afile/x"]', "[sandbox] paths", "afile/x", "Not a directory"),
], ids=["data-missing", "data-under-a-file", "data-a-file", "db-missing", "db-under-a-file", "cwd-missing",
        "cwd-a-file", "files", "sandbox-paths"])
@pytest.mark.parametrize("links_only", [False, True], ids=["serve", "links"])
def test_an_unusable_path_of_the_contest_file_is_one_line(tmp_path: Path, contest: str, more: str, key: str,
                                                          where: str, reason: str, links_only: bool) -> None:
    """Every path key: one line naming the file, the key, the path and the OS's reason; exit status 2."""
    (tmp_path / "afile").write_text("not a folder", encoding="utf-8")
    path = tmp_path / "c.toml"
    path.write_text(f'[contest]\nname = "x"\n{contest}\n\n[[reference]]\nname = "caller"\n'
                    f'command = "python -m bots.caller"\n{more}\n\n[[students]]\nname = "alice"\n', encoding="utf-8")
    if "cwd" not in more:
        path.write_text(path.read_text().replace('[[reference]]\n', f'[[reference]]\ncwd = "{tmp_path}"\n'))
    argv = [*HARNESS, "serve", str(path), "--port", str(free_port()), *(["--links"] if links_only else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=ROOT)
    shown = where if where.startswith("/") else f"{tmp_path.resolve()}/{where}"
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr.startswith(f"harness serve: {path}: {key}: ") and done.stderr.strip().count("\n") == 0
    assert shown in done.stderr and reason in done.stderr, done.stderr


@pytest.mark.parametrize("links_only", [False, True], ids=["serve", "links"])
def test_serve_with_an_unreachable_database_is_one_line(tmp_path: Path, links_only: bool) -> None:
    """An unreachable PostgreSQL: one line naming the URL (not its password) and the cause, exit status 1."""
    contest = contest_file(tmp_path, database="postgresql://u:secretpw@127.0.0.1:1/x")
    argv = [*HARNESS, "serve", str(contest), "--port", str(free_port()), *(["--links"] if links_only else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("harness serve: cannot open the database postgresql://u@127.0.0.1:1/x: ")
    assert done.stderr.strip().count("\n") == 0 and "Connection refused" in done.stderr
    assert "secretpw" not in done.stderr and "Traceback" not in done.stderr


def test_a_new_blocks_first_match_starts_in_the_turn_that_opens_it(tmp_path: Path) -> None:
    """No slot waits a poll for a block the ladder has just opened; the slots' busy time counts running jobs."""
    from sqlalchemy import select

    from harness.server import db as schema
    from harness.server import store
    from harness.server.board import LiveBoard
    from harness.server.ladder import Ladder

    contest = load_contest(contest_file(tmp_path, jobs=2))
    engine = schema.open_database(contest.database)
    store.sync_roster(engine, contest)
    with engine.connect() as conn:
        alice = conn.execute(select(schema.students.c.id).where(schema.students.c.name == "alice")).scalar_one()
    vid = store.add_version(engine, alice, "0" * 64, "python bot.py", "").id
    store.finish_check(engine, vid, True, "", {})
    board = LiveBoard(contest, engine, worker=False)
    slots = Slots()
    ladder = Ladder(contest, engine, board, executor=slots)
    try:
        ladder.fill()
        assert [job.key for job in slots.jobs] == ["b1-r0"]  # opened and started in one turn
        busy, available = ladder.occupancy()
        assert 0 <= busy <= available
    finally:
        board.close()
        engine.dispose()


def test_the_ladder_plays_on_a_dask_cluster(tmp_path: Path) -> None:
    """``[ladder] cluster``: the admission check and the blocks run as tasks of a Dask cluster (``local:1``,
    started and ended by the server), with the same results as local workers give."""
    import psutil

    pytest.importorskip("distributed", reason="the dask backend needs the cluster extra: pip install -e '.[cluster]'")
    contest = contest_file(tmp_path, cluster="local:1")
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        started = {p.pid for p in psutil.Process(server.proc.pid).children(recursive=True)}
        alice = server.client(urls["alice"])
        vid = alice.post("/submit", files={"file": ("bot.py", RAISER.encode())},
                         headers={"Accept": "application/json"}).json()["id"]
        assert wait_for(lambda: version_state(alice, vid)["state"] != "checking", timeout=600)
        assert version_state(alice, vid)["state"] == "admitted"
        rows = wait_for(lambda: {r["bot"]: r for r in alice.get("/api/leaderboard").json()
                                 if r["hands"] > 0 and r["bot"] == "alice.v1"}, timeout=600)
        assert rows["alice.v1"]["blocks"] >= 1
        admin = server.client(urls["admin"]).get("/admin").text
        assert "the ladder stopped" not in admin
        family = psutil.Process(server.proc.pid).children(recursive=True)
        started |= {p.pid for p in family}
        assert any("harness.tournament.cluster" in _command(p) for p in family)  # the local:1 cluster
    finally:
        server.stop()
    assert wait_for(lambda: not [p for p in started if _running(p)], timeout=600)


def _command(proc: Any) -> str:
    """A process's command line ("" once it is gone)."""
    import psutil

    try:
        return " ".join(proc.cmdline())
    except psutil.Error:
        return ""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_the_final_file_is_valid_toml_for_any_command_and_name(tmp_path: Path) -> None:
    """A command with an astral character, quotes, a backslash and DEL once made ``final.toml`` unreadable."""
    import tomllib
    from types import SimpleNamespace

    from harness.server import db
    from harness.server.final import final_toml
    from harness.tournament.config import toml_value

    command = 'python -m bots.caller \U0001F600 "a\\\\b" \x7f'
    path = contest_file(tmp_path, extra=f'[[reference]]\nname = "odd"\ncommand = {toml_value(command)}\n'
                                        f"cwd = {toml_value(str(ROOT))}\n")
    contest = load_contest(path)
    engine = db.open_database(contest.database)
    try:
        final = tomllib.loads(final_toml(SimpleNamespace(contest=contest, engine=engine)))
    finally:
        engine.dispose()
    odd = next(b for b in final["bots"] if b["name"] == "odd")
    assert odd["command"] == list(next(r for r in contest.references if r.name == "odd").command)
    assert "\U0001F600" in odd["command"]


def test_the_ladder_checks_one_version_of_a_student_at_a_time(tmp_path: Path) -> None:
    """A stream of one student's submissions holds one slot at most: bob's version is checked beside alice's
    first, her others wait; a refused check removes the version's files and keeps its report."""
    from sqlalchemy import select

    from harness.server import db as schema
    from harness.server import store
    from harness.server.board import LiveBoard
    from harness.server.ladder import Ladder
    from harness.tournament.workers import Done

    contest = load_contest(contest_file(tmp_path, jobs=4))
    engine = schema.open_database(contest.database)
    store.sync_roster(engine, contest)
    with engine.connect() as conn:
        ids = dict(conn.execute(select(schema.students.c.name, schema.students.c.id)).all())
    alice = [store.add_version(engine, ids["alice"], f"{i:064x}", "python bot.py", "").id for i in range(3)]
    bob = store.add_version(engine, ids["bob"], "f" * 64, "python bot.py", "").id
    board = LiveBoard(contest, engine, worker=False)
    slots = Slots()
    slots.capacity = 4
    ladder = Ladder(contest, engine, board, executor=slots)
    try:
        ladder.fill()
        assert sorted(job.key for job in slots.jobs if job.key.startswith("check:")) == [f"check:{alice[0]}",
                                                                                        f"check:{bob}"]
        job = next(j for j in slots.jobs if j.key == f"check:{alice[0]}")
        v = next(v for v in store.versions_to_check(engine) if v["id"] == alice[0])
        folder = store.version_dir(contest, "alice", v["folder"])
        (folder / "build").mkdir(parents=True)
        (folder / "build" / "junk.bin").write_bytes(b"x" * 100_000)
        report = {"ok": False, "reason": "refused: the build exited with status 1", "build_tail": "make: error"}
        slots.jobs.remove(job)
        ladder.finished(Done(job=job, result=report, error="", wall_s=1.0))
        assert not folder.exists()
        with engine.connect() as conn:
            row = conn.execute(select(schema.versions).where(schema.versions.c.id == alice[0])).mappings().one()
        assert row["state"] == store.REFUSED and json.loads(row["report"])["build_tail"] == "make: error"
        ladder.fill()  # alice's next version now takes the slot hers freed
        assert f"check:{alice[1]}" in {j.key for j in slots.jobs} and f"check:{alice[2]}" not in {
            j.key for j in slots.jobs}
    finally:
        board.close()
        engine.dispose()


def test_a_students_submissions_are_limited_per_hour_and_on_disk(tmp_path: Path) -> None:
    """``[submissions] per_hour`` and ``disk_mb``: the next upload is refused with a one-line page and a way
    back (429 and one line of JSON for ``harness submit``); another student is not held up, nor the admin."""
    import os as _os

    contest = contest_file(tmp_path, extra="[submissions]\nper_hour = 2\ndisk_mb = 1\n")
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice = server.client(urls["alice"])
        for i in range(2):
            assert upload(alice, "bot.py", (RAISER + f"\n# {i}\n").encode()).status_code == 201
        answer = upload(alice, "bot.py", (RAISER + "\n# 3\n").encode())
        assert answer.status_code == 429 and "at most 2 new versions an hour" in answer.json()["error"]
        page = alice.post("/submit", files={"file": ("bot.py", RAISER.encode())}, data={"command": ""})
        assert page.status_code == 429 and 'id="reason"' in page.text and '<a href="/">Back</a>' in page.text
        reason = re.search(r'id="reason">([^<]*)<', page.text)
        assert reason and "\n" not in reason.group(1)
        admin = server.client(urls["admin"])
        assert upload(admin, "bot.py", (RAISER + "\n# admin\n").encode(), student="alice").status_code == 201
        # bob: one version of more than the 1 MiB his kept versions may hold; the next is refused
        bob = server.client(urls["bob"])
        buf = io.BytesIO()
        import zipfile

        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("bot.py", RAISER)
            z.writestr("weights.bin", _os.urandom(1_200_000))
        vid = upload(bob, "bot.zip", buf.getvalue(), command="python bot.py").json()["id"]
        wait_for(lambda: version_state(bob, vid)["state"] != "checking")
        answer = upload(bob, "bot.py", RAISER.encode())
        assert answer.status_code == 429 and "at most 1 MiB" in answer.json()["error"]
    finally:
        server.stop()


def test_a_refused_versions_files_are_removed_and_its_report_kept(tmp_path: Path) -> None:
    """A refused version keeps its report (reason, stderr tail) but not its files; the same bot again (refused
    at once) leaves none either."""
    contest = contest_file(tmp_path, students=("alice",))
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    uploads = load_contest(contest).data / "uploads"
    try:
        alice = server.client(urls["alice"])
        vid = upload(alice, "bot.py", BROKEN.encode()).json()["id"]
        done = wait_for(lambda: (s := version_state(alice, vid))["state"] != "checking" and s)
        assert done["state"] == "refused"
        assert not [p for p in uploads.rglob("*") if p.is_file()]
        page = alice.get(f"/versions/{vid}").text
        assert "nosuchmodule_for_the_test" in page  # the stderr tail of the report
        assert alice.get(f"/versions/{vid}/code").status_code == 404
        assert upload(alice, "bot.py", BROKEN.encode()).status_code == 409
        assert not [p for p in uploads.rglob("*") if p.is_file()]
    finally:
        server.stop()


def test_the_started_line_shows_a_data_path_with_its_escapes_escaped(tmp_path: Path) -> None:
    """``[contest] data`` is any text: an escape sequence or a newline in it reaches the terminal escaped, one line."""
    from harness.server.serve import started_line

    path = contest_file(tmp_path, extra="")
    hostile = 'name = "t"\ndata = "d\\u001b]0;TITLE\\u0007\\nx"\n'
    path.write_text(path.read_text(encoding="utf-8").replace('name = "t"\n', hostile, 1), encoding="utf-8")
    line = started_line(load_contest(path), "127.0.0.1", 8000)
    assert "\x1b" not in line and "\x07" not in line and "\n" not in line, repr(line)
    assert "d\\x1b]0;TITLE\\x07\\x0ax" in line and line.startswith("harness serve: t at http://127.0.0.1:8000"), line
