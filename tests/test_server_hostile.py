"""The contest server against a hostile student: markup in every string a student or a bot controls, writes from
another origin, and the login link clicked in another site's page (a real ``harness serve``, real Chromium).

The database is filled with payloads everywhere a student or a bot writes (student name and e-mail, a version's
command, build, refusal reason, build output, stderr, its files' names, bot names in match results and hand
histories, a fault's words, the match id, the final's state), then every route of
:func:`harness.server.app.routes` is fetched as the admin, as the owner, as another student and signed out:
no HTML answer holds a payload unescaped, and every answer carries the Content-Security-Policy. A route added
later is fetched too (its path parameters must be given a hostile value here, or the test fails), so a new
template cannot forget. In Chromium the same pages show the payloads as text, run nothing, and make no request
the page did not mean to make.
"""

from __future__ import annotations

import html
import http.server
import io
import json
import re
import shlex
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest

pytest.importorskip("starlette")

from harness.engine import GameConfig  # noqa: E402
from harness.play.guard import PAGE_CSP  # noqa: E402
from tests.browser_helpers import launch_browser, require_chromium  # noqa: E402
from tests.history_helpers import random_match  # noqa: E402
from tests.server_helpers import Served, contest_file, free_port, links  # noqa: E402

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

#: Fits the 32 characters of a student's name.
NAME = "<img src=n onerror=alert(1)>"
#: A script that would freeze the contest if it ran in the admin's page.
SCRIPT = "<script>fetch('/admin/freeze',{method:'POST',body:'value=1'})</script>"
#: Breaks out of an attribute, then an event handler.
ATTR = "\"'><svg onload=\"fetch('/admin/freeze',{method:'POST'})\">"
#: Would make a <script> element swallow the rest of the page.
COMMENT = "<!--<script>"
PAYLOADS = (NAME, SCRIPT, ATTR, COMMENT)
LONG = " ".join(PAYLOADS)
#: A command as an upload can give it (it must split into words: submission.prepare checks).
COMMAND = "python bot.py " + shlex.quote(LONG)
#: A file name (no slash, no control character): shown raw on the version page before.
FILE = "<img src=x onerror=alert(2)> \"'><b>.txt"
MATCH = "b1-r0<svg onload=alert(3)>"  # no slash: a match id is one path segment
ESCAPED = html.escape(NAME)


def _fill(contest_path: Path) -> dict[str, Any]:
    """Payloads everywhere; returns the ids the routes need."""
    from sqlalchemy import create_engine, insert, update

    from harness.server import db as schema
    from harness.server import store
    from harness.server.contest import load_contest
    from harness.server.ladder import match_dir

    contest = load_contest(contest_path)
    engine = create_engine(contest.database)
    records = random_match(GameConfig(), seats=2, hands=3, seed=8, match_id=MATCH)
    bots = ["alice.v2", NAME + ".v1"]
    for record in records:
        record["match"]["bots"] = bots
        for player in record["players"]:
            player["bot"] = bots[player["seat"]]
    records[0]["faults"] = [{"seat": 1, "kind": "malformed", "detail": LONG[:400], "action": None,
                             "put_out": False}]
    result = {"match_id": MATCH, "seed": 1, "hands_played": 3, "bots": bots, "net": [5, -5], "hand_nets": [],
              "faults": [{}, {"malformed": 1}], "status": ["ok", LONG]}
    report = {"stderr_tail": LONG, "build": LONG, "stderr": LONG, "decision_ms": LONG}
    with engine.begin() as conn:
        conn.execute(update(schema.students).where(schema.students.c.name == "alice").values(email=LONG[:200]))
        hostile = conn.execute(insert(schema.students).values(name=NAME, email=LONG[:200], created=0.0))
        hostile_id = hostile.inserted_primary_key[0]
        alice_id = conn.execute(schema.students.select().where(schema.students.c.name == "alice")).first().id
        ids = []
        for number, (who, state) in enumerate([(alice_id, "refused"), (alice_id, "admitted"),
                                               (hostile_id, "admitted")], start=1):
            row = conn.execute(insert(schema.versions).values(
                student_id=who, number=number if who == alice_id else 1, sha256="0" * 64, command=COMMAND,
                build=LONG, state=state, reason=LONG, report=json.dumps(report), created=float(number),
                checked=float(number), active=False, bot_key=f"k{number}", folder=f"f{number}"))
            ids.append(row.inserted_primary_key[0])
        conn.execute(insert(schema.blocks).values(id=1, kind="ladder", seats=json.dumps(bots), seed="0" * 64,
                                                  state="done", created=0.0, finished=1.0))
        conn.execute(insert(schema.matches).values(
            id=1, block_id=1, rotation=0, match_id=MATCH, state="done", error=LONG, finished=1.0,
            record=json.dumps({"table": "b1", "rotation": 0, "big_blind": 10, "rotations": 1, "result": result})))
        for bot in bots:
            conn.execute(insert(schema.match_bots).values(match_pk=1, bot=bot))
        conn.execute(insert(schema.settings).values(key="final", value=LONG))
    engine.dispose()
    for number in (1, 2):
        folder = store.version_dir(contest, "alice", f"f{number}")
        folder.mkdir(parents=True)
        (folder / FILE).write_text(LONG, encoding="utf-8")
    folder = match_dir(contest, 1, 0)
    (folder / "logs").mkdir(parents=True)
    (folder / "hands.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for seat, bot in enumerate(bots):
        (folder / "logs" / f"{seat}-{bot}.err").write_text(LONG, encoding="utf-8")
    return {"alice_versions": ids[:2], "hostile_version": ids[2]}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A running server over the filled database: ``server``, ``urls`` (login links) and the ids."""
    folder = tmp_path_factory.mktemp("hostile")
    contest = contest_file(folder, students=("alice", "bob"))
    port = free_port()
    urls = links(contest, port)
    ids = _fill(contest)
    server = Served(contest, port)
    try:
        yield {"server": server, "urls": urls, **ids}
    finally:
        server.stop()


def _values(param: str, ids: dict[str, Any]) -> list[str]:
    """The values a route's path parameter is fetched with: real ones (so the page renders the payloads) and
    hostile ones."""
    vids = [str(v) for v in (*ids["alice_versions"], ids["hostile_version"])]
    known = {
        "name": ["alice", "bob", NAME],
        "vid": [*vids, NAME],
        "match_id": [MATCH, NAME],
        "seat": ["0", "1", NAME],
        "gid": [NAME],
        "action": [NAME],
        "token": [NAME],
        "path": ["", NAME, "index.html"],
    }
    assert param in known, f"give the path parameter {param!r} a hostile value in tests/test_server_hostile.py"
    return known[param]


def _paths(ids: dict[str, Any]) -> list[str]:
    """Every GET path of the application, each path parameter filled with each of its values."""
    from starlette.routing import Mount, Route

    from harness.server.app import routes

    out = []
    for route in routes():
        if isinstance(route, Mount):
            out += [route.path + "/" + name for name in ("report.css", "leaderboard.js", "match.js", NAME)]
            continue
        assert isinstance(route, Route)
        if route.methods is not None and "GET" not in route.methods:
            continue
        paths = [route.path]
        for param in re.findall(r"{(\w+)(?::\w+)?}", route.path):
            paths = [re.sub(r"{" + param + r"(?::\w+)?}", quote(v, safe=""), p) for p in paths
                     for v in _values(param, ids)]
        out += paths
    out += [f"/versions/{ids['alice_versions'][0]}?same=1"]
    return out


def _assert_safe(path: str, answer: Any) -> None:
    assert answer.headers.get("content-security-policy") == PAGE_CSP, path
    assert answer.headers.get("x-content-type-options") == "nosniff", path
    kind = answer.headers.get("content-type", "")
    if kind.startswith("text/html"):
        for payload in (*PAYLOADS, FILE, MATCH):
            assert payload not in answer.text, f"{path}: {payload!r} unescaped"
    elif kind or not 300 <= answer.status_code < 400:  # a redirect has no body; else the payloads are data
        assert kind.split(";")[0] in ("application/json", "text/plain", "text/event-stream", "application/gzip",
                                      "text/javascript", "text/css", "application/octet-stream"), (path, kind)


def test_every_route_escapes_every_hostile_string(hostile: dict[str, Any]) -> None:
    server, urls = hostile["server"], hostile["urls"]
    clients = {"admin": server.client(urls["admin"]), "alice": server.client(urls["alice"]),
               "bob": server.client(urls["bob"]), "nobody": server.client()}
    seen_escaped = set()
    fetched = 0
    for path in _paths(hostile):
        for who, client in clients.items():
            with client.stream("GET", path) as answer:
                if answer.headers.get("content-type", "").startswith("text/event-stream"):
                    _assert_safe(path, answer)
                    continue
                answer.read()
            assert answer.status_code != 500, f"{who} {path}: 500"
            _assert_safe(path, answer)
            fetched += 1
            if ESCAPED in answer.text and answer.headers.get("content-type", "").startswith("text/html"):
                seen_escaped.add((who, path.split("/")[1]))
    # the payloads did reach the pages (escaped): the leaderboard, student, version and match pages
    for who, part in [("admin", ""), ("admin", "students"), ("admin", "versions"), ("admin", "matches"),
                      ("alice", "versions"), ("alice", "matches"), ("admin", "admin")]:
        assert (who, part) in seen_escaped, (who, part, sorted(seen_escaped))
    assert fetched > 100
    # a refusal page (POST /submit, the form's answer) quotes the archive's member name: escaped too
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("../" + NAME, b"x")
    answer = clients["alice"].post("/submit", files={"file": (FILE + ".zip", bad.getvalue())},
                                   data={"command": LONG})
    _assert_safe("/submit", answer)
    assert answer.status_code == 400 and ESCAPED in answer.text


def test_a_write_from_another_origin_changes_nothing(hostile: dict[str, Any]) -> None:
    """The admin's session cookie, sent by a page of another origin (as a same-site page or a Lax cookie
    would let it): refused 403 before the route runs, by Sec-Fetch-Site or, without it, by Origin."""
    server, urls = hostile["server"], hostile["urls"]
    admin = server.client(urls["admin"])
    alice = server.client(urls["alice"])
    own = server.url
    for headers in ({"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.test"},
                    {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"},
                    {"Origin": "http://evil.test"}, {"Origin": "null"}):
        for client, path, data in ((admin, "/admin/freeze", {"value": "1"}), (admin, "/admin/challenges",
                                                                               {"value": "0"}),
                                   (alice, "/challenge", {"opponent": "caller"}), (alice, "/logout", {}),
                                   (alice, f"/versions/{hostile['alice_versions'][1]}/activate", {})):
            answer = client.post(path, data=data, headers=headers)
            assert answer.status_code == 403 and "another site" in answer.text, (path, headers, answer.text)
        answer = alice.post("/submit", files={"file": ("bot.py", b"print(1)")}, data={"command": "python bot.py"},
                            headers=headers)
        assert answer.status_code == 403
    page = admin.get("/admin").text
    assert "open for submissions" in page and "Switch challenges off" in page  # nothing changed
    assert alice.get("/students/alice").status_code == 200  # still signed in: the logout was refused
    assert alice.get("/api/versions/3").status_code == 404  # no version was added
    # the page's own origin (as a browser sends it) and a client without browser headers still work
    answer = admin.post("/admin/challenges", data={"value": "1"}, headers={"Origin": own,
                                                                          "Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 303
    assert admin.post("/admin/challenges", data={"value": "1"}).status_code == 303


class _LinkPage:
    """A page of another origin (a second local port): ``/`` holds a link (``href``) and a form posting
    ``fields`` to ``action`` (submitted by ``/post``)."""

    def __init__(self, href: str, action: str, fields: dict[str, str]) -> None:
        inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
        link = (f'<!DOCTYPE html><html><body><p>Your grade is ready: <a id="go" href="{href}">sign in</a></p>'
                f'<form id="f" method="post" action="{action}">{inputs}<button id="send">send</button></form>'
                '</body></html>').encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(link)))
                self.end_headers()
                self.wfile.write(link)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


def _browser(pw: Any, executable: str, profile: Path, extra: list[str] | None = None) -> Any:
    return launch_browser(pw, executable, profile, extra=extra)


def test_the_login_link_clicked_in_another_sites_page_signs_in(hostile: dict[str, Any], tmp_path: Path) -> None:
    """As in web mail: the link is on a page of another site (evil.test, mapped to 127.0.0.1), clicked; the
    server's page asks "Sign in as ...?", one click of its button and the student lands on the leaderboard
    signed in, the token gone from the address bar. A form of a same-site page
    of another origin (127.0.0.1 on another port: the SameSite cookie goes with it) posting to the admin's
    freeze changes nothing."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    server, urls = hostile["server"], hostile["urls"]
    mail = _LinkPage(urls["admin"], server.url + "/admin/freeze", {"value": "1"})
    try:
        with sync_playwright() as pw:
            browser = _browser(pw, executable, tmp_path / "profile", ["--host-resolver-rules=MAP evil.test 127.0.0.1"])
            try:
                page = browser.new_page()
                page.goto(f"http://evil.test:{mail.port}/")
                page.click("#go")
                # another site's link signs in nobody at once: the server's own page names whose link it is
                page.wait_for_selector("#sign-in")
                assert "Sign in as the admin?" in page.inner_text("h1")
                assert not [c for c in browser.cookies() if c["name"] == "harness_session"]
                page.click("#sign-in")
                page.wait_for_url(server.url + "/")
                page.wait_for_selector("h1:text-is('Leaderboard')")
                assert "signed in as the admin" in page.inner_text("header")
                cookie = next(c for c in browser.cookies() if c["name"] == "harness_session")
                assert cookie["httpOnly"]
                # a same-site page of another origin posts the freeze form: the cookie goes, the guard refuses
                forged = browser.new_page()
                forged.goto(f"http://127.0.0.1:{mail.port}/")
                forged.click("#send")
                forged.wait_for_load_state()
                assert "came from another site" in forged.inner_text("body")
                page.goto(server.url + "/admin")
                assert "open for submissions" in page.inner_text("header")
            finally:
                browser.close()
    finally:
        mail.close()


def test_another_students_link_from_another_site_does_not_swap_the_session(hostile: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    """Login CSRF: alice is signed in; a page of another site sends her tab to bob's link. She sees the server's
    page naming bob (Chromium withholds her SameSite cookie from that navigation, so the page cannot name her);
    her session is untouched until she clicks. Opened over her session, the page names her too."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    server, urls = hostile["server"], hostile["urls"]
    mail = _LinkPage(urls["bob"], server.url + "/admin/freeze", {"value": "1"})
    try:
        with sync_playwright() as pw:
            browser = _browser(pw, executable, tmp_path / "profile", ["--host-resolver-rules=MAP evil.test 127.0.0.1"])
            try:
                page = browser.new_page()
                page.goto(urls["alice"])  # typed into the address bar: signs in at once
                page.wait_for_url(server.url + "/")
                assert "alice" in page.inner_text("header")
                before = next(c["value"] for c in browser.cookies() if c["name"] == "harness_session")
                page.goto(f"http://evil.test:{mail.port}/")
                page.click("#go")
                page.wait_for_selector("#sign-in")
                assert "Sign in as bob?" in page.inner_text("h1")
                assert next(c["value"] for c in browser.cookies() if c["name"] == "harness_session") == before
                page.goto(server.url + "/")
                assert "alice" in page.inner_text("header") and "bob" not in page.inner_text("header")
                # typed over alice's session (her SameSite cookie goes now): the page says who is signed in
                page.goto(urls["bob"])
                assert "You are signed in as alice" in page.inner_text("#signed-in-now")
                assert next(c["value"] for c in browser.cookies() if c["name"] == "harness_session") == before
            finally:
                browser.close()
    finally:
        mail.close()


def test_a_login_link_over_http_signs_in_only_by_a_same_origin_post(hostile: dict[str, Any]) -> None:
    """The same over plain HTTP: a cross-site GET of bob's link, or a GET over alice's session, sets no cookie
    and names both; the page cannot be framed; a POST from another origin is refused; a same-origin POST
    signs in."""
    server, urls = hostile["server"], hostile["urls"]
    alice = server.client(urls["alice"])
    mine = alice.cookies["harness_session"]
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-origin"}, {}):
        answer = alice.get(urls["bob"], headers=headers)
        assert answer.status_code == 200 and "set-cookie" not in answer.headers
        assert "Sign in as bob?" in answer.text and "You are signed in as <strong>alice</strong>" in answer.text
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert alice.cookies["harness_session"] == mine
    answer = alice.post(urls["bob"], headers={"Origin": "http://evil.test", "Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 403 and alice.cookies["harness_session"] == mine
    assert "alice" in alice.get("/").text.split("</header>")[0]
    fresh = httpx.Client(base_url=server.url, timeout=300)
    try:  # typed into the address bar, no session yet: signs in at once
        answer = fresh.get(urls["bob"], headers={"Sec-Fetch-Site": "none"})
        assert 'http-equiv="refresh"' in answer.text and "harness_session" in fresh.cookies
    finally:
        fresh.close()
    answer = alice.post(urls["bob"], headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin"})
    assert answer.status_code == 200 and alice.cookies["harness_session"] != mine
    assert "bob" in alice.get("/").text.split("</header>")[0]
    alice.close()


def _pages(hostile: dict[str, Any], who: str) -> list[str]:
    a1, a2 = hostile["alice_versions"]
    pages = ["/", "/students/alice", f"/students/{quote(NAME, safe='')}", f"/versions/{a1}?same=1",
             f"/versions/{a2}", f"/matches/{quote(MATCH, safe='')}"]
    return pages + (["/admin", f"/versions/{hostile['hostile_version']}"] if who == "admin" else [])


def test_hostile_strings_show_as_text_and_run_nothing_in_chromium(hostile: dict[str, Any], tmp_path: Path) -> None:
    """The admin and the student open every page holding payloads, and the student's upload is refused with a
    hostile member name: each payload shows as text, no script of it runs (no CSP report either: nothing was
    even tried), and the browser makes no request but the page's own (no /n, /x, no POST to /admin/freeze)."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    server, urls = hostile["server"], hostile["urls"]
    allowed = re.compile(r"^/(static/|assets/|events$|admin/slots$|favicon\.ico$)")  # what pages fetch themselves
    bad = tmp_path / "bot.zip"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("../" + NAME, b"x")
    with sync_playwright() as pw:
        browser = _browser(pw, executable, tmp_path / "profile")
        try:
            for who in ("admin", "alice"):
                page = browser.new_page()
                problems: list[str] = []
                wanted: set[str] = set()
                page.on("pageerror", lambda exc, p=problems: p.append(f"page error: {exc}"))
                page.on("console", lambda msg, p=problems: p.append(f"console: {msg.text}")
                        if msg.type in ("error", "warning") and "Failed to load resource" not in msg.text else None)
                page.on("response", lambda r, p=problems: p.append(f"{r.status}: {r.request.method} {r.url}")
                        if r.status >= 400 else None)
                page.on("dialog", lambda d, p=problems: p.append(f"dialog: {d.message}"))

                def request(req: Any, p: list[str] = problems, w: set[str] = wanted) -> None:
                    parts = urlsplit(req.url)
                    target = f"{req.method} {parts.path}" + (f"?{parts.query}" if parts.query else "")
                    if f"{parts.scheme}://{parts.netloc}" != server.url or not (
                            target in w or req.method == "GET" and allowed.match(parts.path)):
                        p.append(f"unexpected request: {req.method} {req.url}")

                page.on("request", request)
                wanted.add("GET " + urlsplit(urls[who]).path)
                wanted.add("GET /")  # before the click: the signed-in page moves on at once
                page.goto(urls[who])
                if who == "alice":  # over the admin's session the link asks first; its button posts to the link
                    wanted.add("POST " + urlsplit(urls[who]).path)
                    page.click("#sign-in")
                page.wait_for_url(server.url + "/")
                for path in _pages(hostile, who):
                    wanted.add("GET " + path)
                    page.goto(server.url + path)
                    page.wait_for_load_state("networkidle")
                    text = page.inner_text("body")
                    if path.startswith(("/versions/", "/students/alice")):
                        assert NAME in text and SCRIPT in text and ATTR in text, (who, path)
                    if path.startswith("/versions/") and who == "alice":
                        assert FILE in text
                    if path == "/admin":  # the job slots, fetched by the page's own script
                        page.wait_for_function("() => /^[0-9.]+$/.test(document.querySelector('#slot-s').textContent)")
                    if path.startswith("/matches/"):
                        page.wait_for_selector("#viewer .tv-seat")
                        assert NAME + ".v1" in page.inner_text("#viewer")
                    # no element of a payload was made: none with an inline handler, no <b> of the file name
                    assert page.evaluate("document.querySelectorAll('[onerror], [onload], main b').length") == 0
                if who == "alice":
                    page.goto(server.url + "/students/alice")
                    wanted.add("POST /submit")
                    page.set_input_files("#upload input[type=file]", str(bad))
                    page.fill("#upload input[name=command]", LONG)
                    page.click("#upload button[type=submit]")
                    page.wait_for_selector("#reason")
                    assert NAME in page.inner_text("#reason")
                    refused = f"400: POST {server.url}/submit"
                    assert refused in problems  # the refusal page's own status
                    problems.remove(refused)
                assert problems == [], (who, problems)
                page.close()
            assert "open for submissions" in server.client(urls["admin"]).get("/admin").text  # nothing froze it
        finally:
            browser.close()
