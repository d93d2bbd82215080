"""A hostile student against a real contest server (``harness serve``, uvicorn on 127.0.0.1): each hole found,
with the attack that opened it.

- Uploads and challenges sent at once pass exactly the quota (one lock per student in the database).
- A file name that cannot be shown as it is (not UTF-8, bidi, zero-width, a line separator) is refused at upload
  with one sentence; one a build made is shown escaped on the version page, never a 500.
- After the freeze a student can no longer change the active version (403, a page with a way back).
- Logout ends the session on the server: a copy of the cookie no longer works.
- A bot's logs count in its student's ``[submissions] disk_mb``; every line a bot wrote is marked where shown,
  so a line that imitates the harness's own reads as the bot's (over HTTP and in Chromium).
- The final report's page of another student's bot (its stderr's end, its first traceback) is not shown.
- A command or build with a bidi override or zero-width character, a bot.toml nested thousands deep or past
  64 KiB, a version id past 64 bits, and a student named ``admin`` are refused in one sentence (no 500).
- What held, kept by tests: another student's private routes and every admin route (cookie, bearer, forged,
  signed out), a replaced login link and its sessions.
"""

from __future__ import annotations

import io
import json
import os
import re
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("starlette")

from harness.server.contest import load_contest  # noqa: E402
from harness.server.unpack import UnpackError, unpack  # noqa: E402
from tests.browser_helpers import launch_browser, require_chromium  # noqa: E402
from tests.server_helpers import RAISER, served_contest, upload, version_state, wait_for  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

#: A line a bot writes to look like the harness's own (the truncation note of a log, a build's notes).
FORGED = "[log truncated: the bot wrote more than 1000000 bytes]"
#: A bot that writes 700 kB to stdout and to stderr as it starts (each under the 1 MB a log holds), then the
#: forged line, and plays as the raiser.
LOUD = RAISER.replace('if __name__ == "__main__":',
                      "import sys\nsys.stdout.write('x' * 700_000 + '\\n')\nsys.stderr.write('x' * 700_000 + '\\n')\n"
                      f"print({FORGED!r}, file=sys.stderr, flush=True)\n"
                      'if __name__ == "__main__":')
STUDENTS = ("alice", "bob", "carol", "dave", "erin")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("attacks")
    with served_contest(folder, students=STUDENTS, quota=2,
                        extra="[submissions]\nper_hour = 2\ndisk_mb = 2\n") as (server, urls):
        yield server, urls


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def quota_served(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, str]]]:
    """A server whose quotas are counted under SQLite, then under PostgreSQL (its own lock each)."""
    database = request.getfixturevalue("pg_cluster").database() if request.param == "postgresql" else ""
    folder = tmp_path_factory.mktemp(f"quota-{request.param}")
    with served_contest(folder, students=("carol", "dave"), quota=2, database=database,
                        extra="[submissions]\nper_hour = 2\n") as (server, urls):
        yield server, urls


def _at_once(n: int, send: Any) -> list[httpx.Response]:
    """``send(i)`` from ``n`` threads released together; their answers in order."""
    barrier = threading.Barrier(n)
    answers: list[Any] = [None] * n

    def run(i: int) -> None:
        barrier.wait()
        answers[i] = send(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_uploads_sent_at_once_pass_exactly_the_quota(quota_served: tuple[Any, dict[str, str]]) -> None:
    server, urls = quota_served
    cookie = server.client(urls["carol"]).cookies["harness_session"]
    clients = [httpx.Client(base_url=server.url, timeout=300, cookies={"harness_session": cookie}) for _ in range(8)]
    try:
        answers = _at_once(8, lambda i: upload(clients[i], "bot.py", (RAISER + f"\n# {i}\n").encode()))
    finally:
        for c in clients:
            c.close()
    codes = sorted(a.status_code for a in answers)
    assert codes == [201, 201] + [429] * 6, [a.text for a in answers]


def test_challenges_sent_at_once_pass_exactly_the_quota(quota_served: tuple[Any, dict[str, str]]) -> None:
    server, urls = quota_served
    dave = server.client(urls["dave"])
    vid = upload(dave, "bot.py", RAISER.encode()).json()["id"]
    assert wait_for(lambda: (s := version_state(dave, vid))["state"] != "checking" and s)["state"] == "admitted"
    cookie = dave.cookies["harness_session"]
    clients = [httpx.Client(base_url=server.url, timeout=300, cookies={"harness_session": cookie}) for _ in range(8)]
    try:
        answers = _at_once(8, lambda i: clients[i].post("/challenge", data={"opponent": "caller"}))
    finally:
        for c in clients:
            c.close()
    codes = sorted(a.status_code for a in answers)
    assert codes == [303, 303] + [429] * 6, codes


def _tar(names: list[str | bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        for name in names:
            info = tarfile.TarInfo(name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else name)
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
    return buf.getvalue()


def _zip(names: list[str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in names:
            z.writestr(name, "x")
    return buf.getvalue()


#: Names that would show as something else: not UTF-8, bidi overrides and isolates, zero-width characters,
#: line and paragraph separators, a byte-order mark.
UNSHOWABLE = [b"bot\xff.py", "gpj.\u202eexe.py", "a\u2066b.py", "bot\u200b.py", "a\u200db.py", "a\u2028b.py",
              "a\u2029b.py", "\ufeffbot.py", "a\u061cb.py"]


@pytest.mark.parametrize("name", UNSHOWABLE, ids=[repr(n) for n in UNSHOWABLE])
def test_names_that_cannot_be_shown_as_they_are_are_refused(tmp_path: Path, name: str | bytes) -> None:
    archives = [("a.tar.gz", _tar([name]))]
    if isinstance(name, str):
        archives.append(("a.zip", _zip([name])))
    for i, (filename, data) in enumerate(archives):
        with pytest.raises(UnpackError) as caught:
            unpack(data, filename, tmp_path / str(i))
        text = str(caught.value)
        assert text.startswith("refused: the file name ") and "\n" not in text and text.isprintable(), text
        assert "cannot be shown as it is" in text


def test_a_non_utf8_name_in_a_tar_is_refused_not_a_500(served: tuple[Any, dict[str, str]]) -> None:
    server, urls = served
    erin = server.client(urls["erin"])
    answer = upload(erin, "bot.tar.gz", _tar([b"bot\xff.py"]), command="python bot.py")
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith("refused: the file name 'bot\\xff.py' cannot be shown as it is (it is "
                                             "not UTF-8)")


def test_a_name_a_build_made_is_shown_escaped(served: tuple[Any, dict[str, str]]) -> None:
    """A build may leave any bytes as a file name (a build runs in the sandbox; here the file is made where a
    build would make it): the version page shows it escaped, to its owner and to the teacher."""
    server, urls = served
    erin = server.client(urls["erin"])
    vid = upload(erin, "bot.py", (RAISER + "\n# names\n").encode()).json()["id"]
    wait_for(lambda: version_state(erin, vid)["state"] != "checking")
    uploads = load_contest(server.contest).data / "uploads" / "erin"
    folder = next(p for p in uploads.iterdir() if (p / "bot.py").read_text().endswith("# names\n"))
    for raw in (b"made\xff\xfe.txt", "made\u202etxt.exe".encode(), "made\u2028line".encode()):
        with open(os.fsencode(folder) + b"/" + raw, "wb") as f:
            f.write(b"x")
    # the build's note on a FIFO it made and the harness removed, as stored: the name is not UTF-8
    from sqlalchemy import create_engine, update

    from harness.server import db

    engine = create_engine(load_contest(server.contest).database)
    note = "[harness: removed fifo\udcff: not a file, folder or link inside the folder]\n"
    with engine.begin() as conn:
        conn.execute(update(db.versions).where(db.versions.c.id == vid).values(report=json.dumps({"build": note})))
    engine.dispose()
    for who in (erin, server.client(urls["admin"])):
        page = who.get(f"/versions/{vid}")
        assert page.status_code == 200, page.text
        assert "made\\xff\\xfe.txt" in page.text and "made\\u202etxt.exe" in page.text
        assert "made\\u2028line" in page.text and "\u202e" not in page.text and "\u2028" not in page.text
        assert "removed fifo\\udcff: not a file" in page.text


def test_after_the_freeze_the_active_version_cannot_change(served: tuple[Any, dict[str, str]]) -> None:
    server, urls = served
    bob, admin = server.client(urls["bob"]), server.client(urls["admin"])
    first = upload(bob, "bot.py", (RAISER + "\n# one\n").encode()).json()["id"]
    second = upload(bob, "bot.py", (RAISER + "\n# two\n").encode()).json()["id"]
    for vid in (first, second):
        assert wait_for(lambda v=vid: (s := version_state(bob, v))["state"] != "checking" and s)["state"] == "admitted"
    wait_for(lambda: version_state(bob, second)["active"])
    assert admin.post("/admin/freeze", data={"value": "1"}).status_code == 303
    try:
        answer = bob.post(f"/versions/{first}/activate")
        assert answer.status_code == 403, answer.text
        assert "froze" in answer.text and 'href="/students/bob"' in answer.text
        assert version_state(bob, second)["active"] and not version_state(bob, first)["active"]
        assert admin.post(f"/versions/{first}/activate").status_code == 303  # the teacher still may
    finally:
        admin.post("/admin/freeze", data={"value": "0"})


def test_logout_ends_the_session_on_the_server(served: tuple[Any, dict[str, str]]) -> None:
    server, urls = served
    erin = server.client(urls["erin"])
    stolen = erin.cookies["harness_session"]
    assert erin.get("/").status_code == 200
    assert erin.post("/logout").status_code == 303
    with httpx.Client(base_url=server.url, timeout=300, cookies={"harness_session": stolen}) as thief:
        assert thief.get("/").status_code == 401
        assert thief.get("/students/erin").status_code == 401
    again = server.client(urls["erin"])  # the link itself still signs in
    assert again.get("/").status_code == 200


def test_a_bots_logs_count_in_its_disk_quota_and_its_lines_are_marked(served: tuple[Any, dict[str, str]]) -> None:
    server, urls = served
    alice = server.client(urls["alice"])
    vid = upload(alice, "bot.py", LOUD.encode()).json()["id"]
    assert wait_for(lambda: (s := version_state(alice, vid))["state"] != "checking" and s)["state"] == "admitted"
    page = alice.get(f"/versions/{vid}").text
    forged = [line for line in page.splitlines() if FORGED in line]
    assert forged and all(re.search(r"\| \[log truncated", line) for line in forged), forged

    def match() -> str | None:
        found = re.search(r'href="/matches/(b\d+-r\d+)"', alice.get("/students/alice").text)
        return found.group(1) if found else None

    match_id = wait_for(match)
    page = alice.get(f"/matches/{match_id}").text
    forged = [line for line in page.splitlines() if FORGED in line]
    assert forged and all(re.search(r"\| \[log truncated", line) for line in forged), forged
    seat = re.search(rf'href="/matches/{match_id}/logs/(\d)"', page)
    assert seat
    log = alice.get(f"/matches/{match_id}/logs/{seat.group(1)}").text
    assert f"| {FORGED}\n" in log and all(line.startswith("| ") for line in log.splitlines())
    # alice's files are 2 KiB, her bot's logs more than 2 MiB: her next upload is refused
    answer = upload(alice, "bot.py", (RAISER + "\n# after\n").encode())
    assert answer.status_code == 429 and "at most 2 MiB" in answer.json()["error"], answer.text


def test_only_the_harnesss_own_truncation_note_is_unmarked(tmp_path: Path) -> None:
    """A log cut at its cap ends with the harness's note (the bot wrote at most the cap): shown unmarked. The
    same words written by the bot, escape sequences and bidi overrides are the bot's: marked and escaped."""
    from harness.host.botproc import TRUNCATED_NOTE
    from harness.server.botlog import shown_log

    cap = 64
    cut = tmp_path / "cut.err"
    cut.write_bytes(b"\x1b[2J\xe2\x80\xae".ljust(cap, b"y") + TRUNCATED_NOTE % cap)
    forged = tmp_path / "forged.err"
    forged.write_bytes(b"x\n" + (TRUNCATED_NOTE % cap)[1:])
    assert shown_log(cut, 1000, cap, str) == f"| \\x1b[2J\\u202e{'y' * (cap - 7)}\n[log truncated: the bot wrote " \
                                              f"more than {cap} bytes]\n"
    assert shown_log(forged, 1000, cap, str) == f"| x\n| [log truncated: the bot wrote more than {cap} bytes]\n"
    assert shown_log(tmp_path / "missing.err", 1000, cap, str) == ""


def test_another_students_page_of_the_final_report_is_not_shown(served: tuple[Any, dict[str, str]]) -> None:
    """The final's report has a page per bot with the end of its stderr and its first traceback (whose lines
    quote its code): a student reads the pages of the report, their own bots' and the house bots', never
    another student's; the teacher reads all."""
    server, urls = served
    report = load_contest(server.contest).data / "final" / "report"
    (report / "bots").mkdir(parents=True)
    (report / "index.html").write_text("<p>standings</p>", encoding="utf-8")
    for bot in ("carol.v1", "bob.v1", "caller"):
        (report / "bots" / f"{bot}.html").write_text(f"<p>secret traceback of {bot}</p>", encoding="utf-8")
    carol, admin = server.client(urls["carol"]), server.client(urls["admin"])
    assert upload(admin, "bot.py", (RAISER + "\n# carol\n").encode(), student="carol").status_code == 201
    assert carol.get("/final/index.html").status_code == 200
    assert "secret traceback of carol.v1" in carol.get("/final/bots/carol.v1.html").text
    assert carol.get("/final/bots/caller.html").status_code == 200
    for path in ("/final/bots/bob.v1.html", "/final/bots/../bots/bob.v1.html", "/final/bots//bob.v1.html"):
        answer = carol.get(path)
        assert answer.status_code == 404 and "bob.v1" not in answer.text, path
    assert "secret traceback of bob.v1" in admin.get("/final/bots/bob.v1.html").text


@pytest.mark.parametrize("field", ["command", "build"])
def test_a_command_that_would_not_show_as_itself_is_refused(served: tuple[Any, dict[str, str]], field: str) -> None:
    """A command (or build) the teacher reads on the pages cannot hide what it runs behind a bidi override or a
    zero-width character."""
    server, urls = served
    erin = server.client(urls["erin"])
    for text in ("python bot.py #\u202e txt.tob", "python\u200b bot.py", "python bot.py\u2028rm -rf x"):
        answer = upload(erin, "bot.py", b"print(1)\n", **{field: text})
        assert answer.status_code == 400, answer.text
        assert f"the {field} holds an invisible or direction-changing character" in answer.json()["error"]


def test_no_student_is_named_admin(tmp_path: Path) -> None:
    """The links file names the admin's link 'admin': a student of that name would get a row that reads the
    same, and the teacher could mail the wrong one."""
    from harness.server.contest import load_contest as load
    from tests.server_helpers import contest_file

    path = contest_file(tmp_path, students=("alice", "admin"))
    with pytest.raises(ValueError, match=r"students\[1\]\.name: 'admin' is the teacher's row"):
        load(path)


def test_another_students_private_routes_and_the_admins_answer_nothing(served: tuple[Any, dict[str, str]]) -> None:
    """IDOR and privilege: bob, signed in (cookie or bearer token), asks for dave's version, code, state and
    match logs, makes dave's version active, and calls every admin route: each answers 404 and changes nothing;
    a forged cookie, a forged bearer token and signed-out requests answer 401."""
    server, urls = served
    admin, bob = server.client(urls["admin"]), server.client(urls["bob"])
    dave = server.client(urls["dave"])
    vid = upload(admin, "bot.py", (RAISER + "\n# dave\n").encode(), student="dave").json()["id"]
    wait_for(lambda: version_state(dave, vid)["state"] == "admitted")

    def dave_match() -> str | None:
        found = re.search(r'href="/matches/(b\d+-r\d+)"', dave.get("/students/dave").text)
        return found.group(1) if found else None

    match_id = wait_for(dave_match)
    page = dave.get(f"/matches/{match_id}").text
    seat = re.search(rf'href="/matches/{match_id}/logs/(\d)"', page)
    assert seat
    token = urls["bob"].rsplit("/", 1)[1]
    bearer = httpx.Client(base_url=server.url, timeout=300, headers={"Authorization": f"Bearer {token}"})
    forged = httpx.Client(base_url=server.url, timeout=300, cookies={"harness_session": "x" * 43},
                          headers={"Authorization": "Bearer " + "y" * 43})
    nobody = httpx.Client(base_url=server.url, timeout=300)
    private = [f"/versions/{vid}", f"/versions/{vid}/code", f"/api/versions/{vid}",
               f"/matches/{match_id}/logs/{seat.group(1)}", f"/matches/{match_id}/logs/{seat.group(1)}?stream=out",
               "/admin", "/admin/export"]
    try:
        for path in private:
            assert bob.get(path).status_code == 404, path
            assert forged.get(path).status_code == 401 and nobody.get(path).status_code == 401, path
        assert bearer.get(f"/api/versions/{vid}").status_code == 404
        for path, form in [(f"/versions/{vid}/activate", {}), ("/admin/freeze", {"value": "1"}),
                           ("/admin/challenges", {"value": "0"}), ("/admin/final", {}), ("/admin/roster", {}),
                           ("/admin/resume", {"value": str(vid)})]:
            assert bob.post(path, data=form).status_code == 404, path
            assert forged.post(path, data=form).status_code == 401 and nobody.post(path, data=form).status_code == 401
        # bob submitting "for" dave makes a version of bob's, never dave's
        answer = upload(bob, "bot.py", (RAISER + "\n# for dave?\n").encode(), student="dave")
        assert answer.status_code in (201, 429) and (answer.status_code == 429 or answer.json()["student"] == "bob")
        page = admin.get("/admin").text
        assert "open for submissions" in page and "Switch challenges off" in page
        assert bob.get(f"/matches/{match_id}").status_code == 200  # the match's public page
    finally:
        for c in (bearer, forged, nobody):
            c.close()


def test_bot_lines_and_build_made_names_read_as_such_in_chromium(served: tuple[Any, dict[str, str]],
                                                                 tmp_path: Path) -> None:
    """What the teacher's browser shows: on the version page the names a build made escaped (no bidi override
    reorders the list), and on the version and match pages every line the bot wrote to stderr, the forged
    harness line included, begins with '| '."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    server, urls = served
    admin = server.client(urls["admin"])
    vid = upload(admin, "bot.py", (LOUD + "\n# chromium\n").encode(), student="carol").json()["id"]
    assert wait_for(lambda: (s := version_state(admin, vid))["state"] != "checking" and s)["state"] == "admitted"
    uploads = load_contest(server.contest).data / "uploads" / "carol"
    folder = next(p for p in uploads.iterdir() if (p / "bot.py").read_text().endswith("# chromium\n"))
    with open(os.fsencode(folder) + "/made\u202etxt.exe".encode(), "wb") as f:
        f.write(b"x")
    label = version_state(admin, vid)["bot"]

    def match() -> str | None:
        found = re.search(r'href="/matches/(b\d+-r\d+)"', admin.get("/students/carol").text)
        return found.group(1) if found and label in admin.get(f"/matches/{found.group(1)}").text else None

    match_id = wait_for(match)
    with sync_playwright() as pw:
        browser = launch_browser(pw, executable, tmp_path / "profile")
        try:
            page = browser.new_page()
            page.goto(urls["admin"])
            page.wait_for_url(server.url + "/")
            page.goto(f"{server.url}/versions/{vid}")
            text = page.inner_text("body")
            assert "made\\u202etxt.exe" in text and "\u202e" not in text
            lines = [line for line in text.splitlines() if FORGED in line]
            assert lines and all(line.startswith("| ") for line in lines), lines
            page.goto(f"{server.url}/matches/{match_id}")
            seats = page.locator("pre[id^=stderr-]")
            assert seats.count() >= 1
            for i in range(seats.count()):
                shown = seats.nth(i).inner_text().splitlines()
                assert shown and all(line.startswith("| ") for line in shown), shown[:3]
        finally:
            browser.close()


def test_a_replaced_login_link_and_its_sessions_sign_in_nobody(served: tuple[Any, dict[str, str]]) -> None:
    """Replay: once the teacher issues dave a new link, the old one, a session it opened and its bearer token
    answer 'not valid' / 401; the new link signs in. (Last: it replaces dave's link of the module.)"""
    import csv
    import subprocess

    from tests.server_helpers import HARNESS

    server, urls = served
    old = server.client(urls["dave"])
    assert old.get("/").status_code == 200
    done = subprocess.run([*HARNESS, "serve", str(server.contest), "--links", "--student", "dave", "--port",
                           str(server.port)], capture_output=True, text=True, check=True, cwd=server.contest.parent,
                          timeout=300)
    fresh = dict(list(csv.reader(io.StringIO(done.stdout)))[1:])["dave"]
    assert fresh != urls["dave"]
    assert old.get("/").status_code == 401
    with httpx.Client(base_url=server.url, timeout=300) as replay:
        assert replay.get(urls["dave"]).status_code == 403 and replay.post(urls["dave"]).status_code == 403
        token = urls["dave"].rsplit("/", 1)[1]
        assert replay.get("/api/versions/1", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert server.client(fresh).get("/students/dave").status_code == 200


@pytest.mark.parametrize(("toml", "words"), [
    ("command = " + "[" * 10_000 + "]" * 10_000, "nested too deeply"),
    ("a = " + "{b = " * 5_000 + "1" + "}" * 5_000, "nested too deeply"),
    ('command = "python bot.py"\n' + "#" * 200_000, "more than 64 KiB"),
])
def test_a_hostile_bot_toml_is_refused_in_one_sentence(served: tuple[Any, dict[str, str]], toml: str,
                                                       words: str) -> None:
    """A bot.toml nested 5,000 deep made tomllib's parser recurse past Python's limit: a 500 before."""
    server, urls = served
    erin = server.client(urls["erin"])
    body = _zip_files({"bot.toml": toml, "bot.py": "print(1)\n"})
    answer = upload(erin, "bot.zip", body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith("refused: bot.toml ") and words in answer.json()["error"]


def _zip_files(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()


@pytest.mark.parametrize("vid", ["9" * 30, "9" * 5000, "-1", "1e3", "\u0661"])
def test_a_version_id_out_of_range_answers_not_found(served: tuple[Any, dict[str, str]], vid: str) -> None:
    """An id past the database's integers (SQLite's are 64-bit) or past Python's digits limit for int():
    a 500 before."""
    server, urls = served
    erin = server.client(urls["erin"])
    token = urls["erin"].rsplit("/", 1)[1]
    for path in (f"/versions/{vid}", f"/versions/{vid}/code", f"/api/versions/{vid}"):
        assert erin.get(path).status_code == 404, path[:60]
        assert erin.get(path, headers={"Authorization": f"Bearer {token}"}).status_code == 404, path[:60]
    assert erin.post(f"/versions/{vid}/activate").status_code == 404
    admin = server.client(urls["admin"])
    assert admin.post("/admin/resume", data={"value": vid}).status_code == 404
