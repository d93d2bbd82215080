"""The web application (Starlette): login links, submissions, the leaderboard, student, version and match pages.

Who may see what (:func:`_who`: the session; :func:`_owns`: the owner or the admin): without a
session nothing but the login route; a student sees every public result (the leaderboard, each version's
results, each match's chips and the cards shown down) and, of their own bot
only, its code, admission report, stderr logs and hole cards; the admin sees
everything. A private page of someone else answers 404 (its existence is not
given away). Every page is rendered on the server (Jinja2, every template
autoescaped whatever its file name); the leaderboard updates itself through
server-sent events (``/events``), and the pages a class polls answer ``304`` when nothing they show changed
(:mod:`harness.server.etag`). Every response carries the
Content-Security-Policy of :mod:`harness.play.guard` (scripts are files of
``static/``, never inline), and a request that changes state from another
site's page is refused whatever the cookie's SameSite says.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import json
import os
import shutil
import tarfile
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import quote

import jinja2
from sqlalchemy import Engine, select
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from harness.errors import HarnessError
from harness.host.build import build_problem
from harness.match.untrusted import quoted
from harness.play.guard import PageGuard
from harness.play.web import page_html, static_response
from harness.report.collect import safe_name
from harness.report.html import history_figure
from harness.report.trend import rating_points_history
from harness.report.viewer import script_json
from harness.server import db, etag, store
from harness.server.board import BOARD_FILE, LiveBoard
from harness.server.botlog import shown_log
from harness.server.contest import Contest, load_contest
from harness.server.db import metadata
from harness.server.final import finished_race, resume_final, start_final
from harness.server.final import page_stamp as final_stamp
from harness.server.final import plan as final_plan
from harness.server.final import progress as final_progress
from harness.server.folders import Listing, export_tree, list_files, tar_stream
from harness.server.games import Game, GameRefused, Games
from harness.server.hostpaths import for_student, hide_paths, host_roots
from harness.server.ladder import match_dir
from harness.server.ladderproc import LadderProcess
from harness.server.matchhands import match_hands
from harness.server.submission import prepare
from harness.server.tokens import token_hash
from harness.server.unpack import MAX_UPLOAD, UnpackError
from harness.tournament.results import MatchRecord
from harness.tournament.stats import bb_per_100, duplicate_sets, estimate

T = TypeVar("T")
COOKIE = "harness_session"
#: Seconds between two looks at the leaderboard by the event stream.
EVENTS_POLL_S = 1.0
TEMPLATES = Path(__file__).with_name("templates")
#: The server's own scripts (served at /assets/).
SERVER_STATIC = Path(__file__).with_name("static")
REPORT_STATIC = Path(__file__).parents[1] / "report" / "static"


class Sessions:
    """Whose each session is (:func:`harness.server.store.session_of`), remembered: a page asks the database once
    per session, not once per request.

    Everything is forgotten at once when this process ends a session or signs one in (:meth:`forget`), and when the
    login links were issued again, by this process or another (``harness serve --links`` revokes the old ones:
    :data:`harness.server.store.LINKS_STAMP`, one ``stat`` a request).
    """

    #: Sessions remembered at most (then all are forgotten: a class has fewer).
    LIMIT = 10_000

    def __init__(self, engine: Engine, stamp: Path) -> None:
        self.engine = engine
        self.stamp = stamp
        self._lock = threading.Lock()
        self._known: dict[str, store.Who | None] = {}
        self._seen: tuple[int, int, int] | None = None
        self._writes = 0

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.stamp)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def who(self, secret: str | None) -> store.Who | None:
        """The session's person (None: no such session, or its link was revoked)."""
        if not secret:
            return None
        stamp = self._stamp()
        with self._lock:
            if stamp != self._seen:
                self._known.clear()
                self._seen = stamp
                self._writes += 1
            if secret in self._known:
                return self._known[secret]
            writes = self._writes
        who = store.session_of(self.engine, secret)
        with self._lock:
            if writes == self._writes:  # nothing was forgotten meanwhile: what was read still holds
                if len(self._known) >= self.LIMIT:
                    self._known.clear()
                self._known[secret] = who
        return who

    def forget(self) -> None:
        """Forget every session (after this process changed sessions or tokens)."""
        with self._lock:
            self._known.clear()
            self._writes += 1


class Server:
    """The state one server process shares between requests: contest, database, board and ladder.

    With ``ladder``, the ladder runs in a process of its own (:class:`~harness.server.ladderproc.LadderProcess`,
    started by :func:`harness.server.serve.serve`, stopped by the application's lifespan), which publishes the
    board this process reads; without, this process computes the board itself.
    """

    def __init__(self, contest: Contest, engine: Engine, *, ladder: bool = True,
                 events_poll_s: float = EVENTS_POLL_S) -> None:
        self.contest = contest
        self.engine = engine
        self.board = LiveBoard(contest, engine, stored=contest.data / BOARD_FILE if ladder else None)
        self.ladder = LadderProcess(contest, engine) if ladder else None
        self.sessions = Sessions(engine, contest.data / store.LINKS_STAMP)
        self._settings: dict[str, str] = {}
        self._settings_writes = 0
        self._settings_lock = threading.Lock()
        self._per_board: dict[Hashable, tuple[int, Any]] = {}
        #: Games students play in the browser (:mod:`harness.server.games`).
        self.games = Games(contest)
        self.events_poll_s = events_poll_s
        self.stopping = False
        #: The final's ``harness run`` child process (:mod:`harness.server.final`), or None.
        self.final_proc: Any = None

    def setting(self, key: str, default: str = "") -> str:
        """A setting only this process writes (``frozen``, ``challenges``: :meth:`set_setting`), read from the
        database once and remembered until this process writes one: every page shows whether submissions are
        frozen."""
        with self._settings_lock:
            if key in self._settings:
                return self._settings[key]
            writes = self._settings_writes
        value = store.setting(self.engine, key, default)
        with self._settings_lock:
            if writes == self._settings_writes:
                self._settings[key] = value
        return value

    def per_board(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()`` (public figures read from the complete blocks), remembered under ``key`` until the board
        changes (:attr:`LiveBoard.computed`: a block completed): a student's page is polled every few seconds."""
        self.board.rows()  # takes a board published since
        board = self.board.computed
        if board is None:
            return make()
        with self._settings_lock:
            hit = self._per_board.get(key)
            if hit is not None and hit[0] == board:
                return cast(T, hit[1])
        value = make()
        with self._settings_lock:
            if len(self._per_board) >= Sessions.LIMIT:
                self._per_board.clear()
            self._per_board[key] = (board, value)
        return value

    def set_setting(self, key: str, value: str) -> None:
        """Write a setting of :meth:`setting` (what was remembered is forgotten once it is stored)."""
        store.set_setting(self.engine, key, value)
        with self._settings_lock:
            self._settings.clear()
            self._settings_writes += 1


def _who(request: Request) -> store.Who | None:
    server: Server = request.app.state.server
    return server.sessions.who(request.cookies.get(COOKIE))


def _page(request: Request, name: str, who: store.Who | None, **context: Any) -> Response:
    server: Server = request.app.state.server
    templates: Jinja2Templates = request.app.state.templates
    frozen = server.setting("frozen") == "1"
    return templates.TemplateResponse(request, name, {"contest": server.contest.name, "who": who, "frozen": frozen,
                                                      **context})


def refusal(request: Request, who: store.Who | None, reason: str, status: int, *, title: str = "Refused",
            back: str = "", back_label: str = "") -> Response:
    """A refusal as a page (``status``: its HTTP status): ``title``, the one-line ``reason`` and a way back
    (``back``: a link, labelled ``back_label``; default the leaderboard and the student's own page)."""
    page = _page(request, "refused.html.j2", who, reason=reason, title=title, back=back, back_label=back_label)
    page.status_code = status
    return page


def _forbidden(text: str = "Follow your login link first (it was mailed to you).") -> Response:
    return PlainTextResponse(text, status_code=401)


def _not_found() -> Response:
    return PlainTextResponse("Not found.", status_code=404)


# ---------------------------------------------------------------- login


#: The login link's answer: a page of the server's own that moves on to the leaderboard. A redirect would not
#: do: clicked in web mail, the whole redirect chain counts as another site's navigation, and Chromium then
#: withholds the SameSite=Strict cookie it just stored, so the student would land signed out. A refresh is a
#: navigation this page starts (same site: the cookie goes), and it replaces the link in the tab's history.
LOGIN_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/">
<title>Signed in</title></head>
<body><p>Signed in. <a href="/" id="continue">Continue to the contest</a>.</p></body></html>
"""


#: The login link's answer when it must not sign in at once: a page of the server's own naming whose link it is
#: (and who is signed in now), with a button that posts to the link from this origin. Without it, a page of
#: another site could navigate a student's tab to another student's link and swap the session silently (login
#: CSRF): the victim's next upload would land in the other account. The policy's frame-ancestors 'none' keeps
#: the page out of frames, so the button cannot be clicked through a disguise.
CONFIRM_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in as {whom}?</title></head>
<body><h1>Sign in as {whom}?</h1>{now}
<p>This is the login link of <strong>{whom}</strong>. Sign in only if it is yours.</p>
<form method="post" action="{action}"><button type="submit" id="sign-in">Sign in as {whom}</button></form>
<p><a href="/">No, go to the contest</a></p></body></html>
"""


def _whom(who: store.Who) -> str:
    return "the admin" if who.admin else who.name


def _same_person(a: store.Who, b: store.Who) -> bool:
    return a.role == b.role and a.student_id == b.student_id


def _login_check(server: Server, token: str, cookie: str | None) -> tuple[store.Who | None, store.Who | None]:
    return store.token_owner(server.engine, token), store.session_of(server.engine, cookie)


async def login(request: Request) -> Response:
    """The login link. Opened from this server's own pages or typed (``Sec-Fetch-Site`` ``same-origin`` or
    ``none``) with no other session signed in, it signs in at once; opened from another site (web mail), by a
    client that does not say, or over another session, it answers :data:`CONFIRM_PAGE`, whose button POSTs
    here (the page guard refuses a POST from another origin). Source: W3C Fetch Metadata Request Headers."""
    server: Server = request.app.state.server
    token = request.path_params["token"]
    owner, current = await run_in_threadpool(_login_check, server, token, request.cookies.get(COOKIE))
    if owner is None:
        return PlainTextResponse("This login link is not valid (it may have been replaced by a newer one); "
                                 "ask your teacher for a new link.", status_code=403)
    site = request.headers.get("sec-fetch-site")
    at_once = site in ("same-origin", "none") and (current is None or _same_person(current, owner))
    if request.method == "GET" and not at_once:
        now = (f"<p id=\"signed-in-now\">You are signed in as <strong>{html.escape(_whom(current))}</strong>; "
               "signing in replaces that session in this browser.</p>" if current and not _same_person(current, owner)
               else "")
        page = CONFIRM_PAGE.format(whom=html.escape(_whom(owner)), now=now,
                                   action=html.escape("/login/" + quote(token, safe="")))
        return HTMLResponse(page, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
    secret = await run_in_threadpool(store.login, server.engine, token)
    server.sessions.forget()
    if secret is None:
        return PlainTextResponse("This login link is not valid (it may have been replaced by a newer one); "
                                 "ask your teacher for a new link.", status_code=403)
    response = HTMLResponse(LOGIN_PAGE, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
    response.set_cookie(COOKIE, secret, httponly=True, samesite="strict", max_age=180 * 86400,
                        secure=request.url.scheme == "https")
    return response


async def logout(request: Request) -> Response:
    """End the session on the server (a copy of its cookie signs in nobody afterwards), then forget the cookie."""
    server: Server = request.app.state.server
    await run_in_threadpool(store.logout, server.engine, request.cookies.get(COOKIE))
    server.sessions.forget()  # a copy of the cookie signs in nobody from now on
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE)
    return response


# ---------------------------------------------------------------- leaderboard


def _board_rows(server: Server) -> list[dict[str, Any]]:
    return server.board.dicts()


def index(request: Request) -> Response:
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    current = etag.tag("index", _who_key(who), server.setting("frozen"), server.board.stamp(), final_stamp(server))
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    rows = _board_rows(server)
    return etag.tagged(_page(request, "leaderboard.html.j2", who, rows=rows, final_progress=final_progress(server)),
                       current)


def _who_key(who: store.Who) -> tuple[str, int | None, str]:
    """The session's person as part of a page's entity tag (:mod:`harness.server.etag`)."""
    return who.role, who.student_id, who.name


def api_leaderboard(request: Request) -> Response:
    """The board as JSON, in its order (:func:`harness.server.board.ranked`): one object per bot with ``rank`` (by
    rating; null: not ranked yet, or an older version), ``bb_rank`` (by bb/100), ``rating`` and ``rating_sigma``
    (its standard deviation), ``bb_per_100`` with ``ci95_low``/``ci95_high``, ``faults`` by kind and ``paused``.
    Tagged by the board's stamp (:meth:`LiveBoard.stamp`): a poll while no block completed is a ``304``."""
    if _who(request) is None:
        return _forbidden()
    server: Server = request.app.state.server
    current = etag.tag("api_leaderboard", server.board.stamp())  # the same JSON for every session
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    rows = _board_rows(server)
    keep = ("bot", "student", "version", "hands", "bb_per_100", "ci95_low", "ci95_high", "rating", "status")
    more = ("blocks", "rating_sigma", "rank", "bb_rank", "faults")
    return etag.tagged(JSONResponse([{k: r[k] for k in (*keep, *more)} | {"paused": bool(r["paused"])}
                                     for r in rows]), current)


async def events(request: Request) -> Response:
    """Server-sent events: one ``leaderboard`` event (the rows as JSON) whenever a block completes."""
    if await run_in_threadpool(_who, request) is None:
        return _forbidden()
    server: Server = request.app.state.server

    async def stream() -> AsyncIterator[str]:
        last = None
        yield "retry: 2000\n\n"
        while not server.stopping and not await request.is_disconnected():
            rows = await run_in_threadpool(_board_rows, server)  # starts a recomputation when a block completed
            if server.board.computed != last:
                last = server.board.computed
                yield f"event: leaderboard\ndata: {json.dumps(rows)}\n\n"
            else:
                yield ": idle\n\n"
            await asyncio.sleep(server.events_poll_s)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


# ---------------------------------------------------------------- students and versions


def _student(engine: Engine, name: str) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = conn.execute(select(db.students).where(db.students.c.name == name)).mappings().first()
    return dict(row) if row else None


def _versions(engine: Engine, student_id: int) -> list[dict[str, Any]]:
    v = db.versions
    with engine.connect() as conn:
        rows = conn.execute(select(v).where(v.c.student_id == student_id).order_by(v.c.number.desc())).mappings()
        return [dict(r) for r in rows]


async def plotly_js(request: Request) -> Response:
    """plotly.js from the installed ``plotly`` package (as the report bundles it): no CDN, the server may be
    offline; cached by browsers for a day. (Async: FileResponse reads the file in a worker thread.)"""
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    return FileResponse(path, media_type="text/javascript", headers={"Cache-Control": "public, max-age=86400"})


def _owns(who: store.Who, student_id: int) -> bool:
    return who.admin or who.student_id == student_id


def _results_of(server: Server, bots: set[str]) -> dict[str, Any]:
    """Per-opponent results and the latest matches of some bots (public figures), from their complete blocks.

    ``opponents``: one row per (bot of ``bots``, opponent): chips and hands of the matches they shared, and bb/100
    with its 95% interval over the duplicate sets they shared (:func:`harness.tournament.stats.estimate`; no
    interval below two sets). ``matches``: the last 50, newest first, each with its block's ``kind``.
    """
    mine = [MatchRecord.from_dict(r) for r in store.records_of(server.engine, bots)]
    pairs: dict[tuple[str, str], list[int]] = {}
    matches: list[dict[str, Any]] = []
    for rec in mine:
        res = rec.result
        seats = [i for i, b in enumerate(res.bots) if b in bots]
        for i in seats:
            for j, other in enumerate(res.bots):
                if j not in seats:
                    pair = pairs.setdefault((res.bots[i], other), [0, 0])
                    pair[0] += res.net[i]
                    pair[1] += res.hands_played
        matches.append({"match_id": res.match_id, "bots": list(res.bots), "net": list(res.net),
                        "hands": res.hands_played, "url": "/matches/" + res.match_id, "block": rec.table})
    matches = matches[-50:][::-1]
    blocks = [str(m["block"])[1:] for m in matches]  # the record's table: "b<block id>"
    kinds = store.block_kinds(server.engine, [int(b) for b in blocks if b.isdigit()])
    for m, b in zip(matches, blocks, strict=True):
        m["kind"] = kinds.get(int(b), "") if b.isdigit() else ""
    unit = server.contest.game.unit
    opponents = []
    for (me, other), (chips, hands) in sorted(pairs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        est = estimate(duplicate_sets(mine, me, with_bot=other))
        opponents.append({"bot": other, "version": me, "chips": chips, "hands": hands, "sets": est.sets,
                          "bb_per_100": round(est.bb_per_100 if est.hands else bb_per_100(chips, hands, unit), 2),
                          "low": None if est.low is None else round(est.low, 2),
                          "high": None if est.high is None else round(est.high, 2)})
    return {"opponents": opponents, "matches": matches}


#: The kinds of :func:`fault_text` in the order shown: put out first, then the protocol's faults, slow last.
_FAULT_ORDER = ("out", "timeout", "crash", "failed_start", "disconnected", "malformed", "illegal", "oversized",
                "slow")


def fault_text(faults: dict[str, int]) -> str:
    """A version's faults in a cell: ``"out 2 · timeout 12 · slow 30"`` (``"–"``: none); ``out`` counts the matches
    it was put out of, ``slow`` its decisions paid from the time bank."""
    order = {k: i for i, k in enumerate(_FAULT_ORDER)}
    shown = [f"{k} {n}" for k, n in sorted(faults.items(), key=lambda kv: (order.get(kv[0], 50), kv[0])) if n]
    return " · ".join(shown) or "–"


def _utc(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t))


def rating_chart(points: list[dict[str, Any]], uploads: list[tuple[float, str]]) -> str | None:
    """The student page's chart: each version's rating after each of its blocks, drawn by the report's
    :func:`harness.report.html.history_figure` (a plotly figure as JSON), None before any block.

    Args:
        points: the board's rating points (:meth:`harness.server.board.LiveBoard.history`).
        uploads: ``(time, version label)`` of the student's versions: a dashed line where each came in.
    """
    if not points:
        return None
    steps, lines = rating_points_history(points, _utc)
    times = sorted({p["t"] for p in points})
    # an upload between the blocks finished at steps k and k+1 (counted from 1) is drawn at k + 0.5
    marks = [(sum(t < u for t in times) + 0.5, label) for u, label in uploads if times[0] <= u <= times[-1]]
    figure = json.loads(history_figure(steps, lines, x_title="blocks finished (oldest first)",
                                       y_title="rating mu (band: +- 1.96 sigma)", marks=marks))
    # whole block numbers on the axis (plotly's own ticks fall on halves for a few blocks), at most about 10
    figure["layout"].setdefault("xaxis", {}).update(tickmode="linear", tick0=1, dtick=max(1, -(-len(steps) // 10)),
                                                    tickformat="d")
    return script_json(figure)  # safe inside a <script> element, as history_figure made it


def student_page(request: Request) -> Response:
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    seen = store.student_stamp(server.engine, request.path_params["name"])
    if seen is None:
        return _not_found()
    current = etag.tag("student", request.path_params["name"], _who_key(who), server.setting("frozen"),
                       server.setting("challenges", "1"), server.board.stamp(), seen)
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    st = _student(server.engine, request.path_params["name"])
    if st is None:
        return _not_found()
    own = _owns(who, st["id"])
    vers = _versions(server.engine, st["id"])
    if not own:  # others' refused versions, reasons and commands are theirs
        vers = [v for v in vers if v["state"] == store.ADMITTED]
    labels = {store.label(st["name"], v["number"]) for v in vers if v["state"] == store.ADMITTED}
    mine = frozenset(labels)
    results = server.per_board(("results", mine), lambda: _results_of(server, labels))
    faults = store.fault_totals(server.engine, labels)
    for v in vers:
        v["faults"] = faults.get(store.label(st["name"], v["number"]), {})
    uploads = [(v["created"], store.label(st["name"], v["number"])) for v in vers]
    chart = server.per_board(("chart", mine, tuple(uploads)),
                             lambda: rating_chart(server.board.history(labels), uploads))
    quota = server.contest.ladder.challenges_per_hour
    board = server.board.rows()
    targets = [r.bot for r in board if r.status != "inactive" and r.student != st["name"]]
    standing = next((r for r in board if r.student == st["name"] and r.status == "active"), None)
    placed = sum(r.rank is not None for r in board)
    pending: list[dict[str, Any]] = []
    if own:
        pending = store.pending_challenges(server.engine, st["id"])
        names = store.seat_names(server.engine, [r.name for r in server.contest.references],
                                 [c for p in pending for c in p["seats"]])
        for p in pending:
            p["bots"] = [names.get(c, c) for c in p["seats"]]
    play_bots: list[str] = []
    if own and not who.admin and server.contest.play.max_games:
        play_bots = list(play_opponents(server, st["id"], st["name"]))
    return etag.tagged(_page(request, "student.html.j2", who, student=st, own=own, versions=vers, results=results,
                             chart=chart,
                             quota=quota, targets=targets, play_bots=play_bots,
                             play_hands=server.contest.play.hands,
                             standing=standing, placed=placed, pending=pending,
                             play_idle_s=server.contest.play.idle_s,
                             challenges=server.setting("challenges", "1") == "1"), current)


def row_id(text: str) -> int | None:
    """A database id given in a URL or a form: ASCII digits, at most 18 (a 64-bit integer: SQLite's and
    PostgreSQL's largest); None for anything else (``-1``, ``\u0661``, 30 digits: a 500 before)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def _version(engine: Engine, vid: int) -> dict[str, Any] | None:
    v, st = db.versions, db.students
    with engine.connect() as conn:
        row = conn.execute(select(v, st.c.name.label("student")).join(st, v.c.student_id == st.c.id)
                           .where(v.c.id == vid)).mappings().first()
    return dict(row) if row else None


def _version_json(v: dict[str, Any]) -> dict[str, Any]:
    report = json.loads(v["report"] or "{}")
    return {"id": v["id"], "student": v["student"], "version": v["number"], "bot": store.label(v["student"],
                                                                                                 v["number"]),
            "state": v["state"], "active": bool(v["active"]), "sha256": v["sha256"], "command": v["command"],
            "build": v["build"], "reason": v["reason"], "stderr_tail": report.get("stderr_tail", ""),
            "build_output": report.get("build", ""), "url": f"/versions/{v['id']}"}


def _own_version(request: Request) -> tuple[store.Who | None, dict[str, Any] | None]:
    who = _who(request)
    if who is None:
        return None, None
    server: Server = request.app.state.server
    vid = row_id(request.path_params["vid"])
    if vid is None:
        return who, None
    v = _version(server.engine, vid)
    if v is None or not _owns(who, v["student_id"]):
        return who, None
    return who, v


def version_page(request: Request) -> Response:
    who, v = _own_version(request)
    if who is None:
        return _forbidden()
    if v is None:
        return _not_found()
    report = json.loads(v["report"] or "{}")
    files = _files(request.app.state.server.contest, v)
    notice = ""
    if request.query_params.get("same") == "1":  # the upload that led here was this bot again
        notice = repeat_notice(store.label(v["student"], v["number"]), v["state"], v["reason"])
    shown = _version_json(v)
    # the check's stderr tail, marked as the bot's (a build's refusal gives its output here: shown once, above)
    shown["stderr_tail"] = "" if shown["stderr_tail"] == shown["build_output"] else quoted(shown["stderr_tail"])
    return _page(request, "version.html.j2", who, v=shown, report=report, files=files, notice=notice)


def _files(contest: Contest, v: dict[str, Any]) -> Listing:
    return list_files(store.version_dir(contest, v["student"], v["folder"]))


def version_code(request: Request) -> Response:
    """The version's files as a .tar.gz (the owner and the admin only)."""
    who, v = _own_version(request)
    if who is None:
        return _forbidden()
    if v is None:
        return _not_found()
    folder = store.version_dir(request.app.state.server.contest, v["student"], v["folder"])
    if not folder.is_dir():
        return PlainTextResponse("This version's files are no longer on the server.", status_code=404)
    name = store.label(v["student"], v["number"]) + ".tar.gz"
    # a sync iterator: Starlette reads it in its thread pool, and the archive is written as it is sent
    return StreamingResponse(tar_stream(folder, store.label(v["student"], v["number"])),
                             media_type="application/gzip",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


def activate(request: Request) -> Response:
    who, v = _own_version(request)
    if who is None:
        return _forbidden()
    if v is None:
        return _not_found()
    server: Server = request.app.state.server
    if not who.admin and server.setting("frozen") == "1":  # the final plays the active versions
        return refusal(request, who, "The contest is frozen: the teacher froze it, so your active version stays "
                       "as it is.", 403, title="Not made active", back=f"/students/{v['student']}",
                       back_label="Back to the versions")
    if not store.activate(server.engine, v["student_id"], v["id"]):
        return refusal(request, who, "Only an admitted version can be made active.", 409,
                       title="Not made active", back=f"/students/{v['student']}", back_label="Back to the versions")
    return RedirectResponse(f"/students/{v['student']}", status_code=303)


async def submit(request: Request) -> Response:
    """POST a submission (multipart: ``file``, optional ``command``, ``build``; admin: ``student``).

    Answers JSON (``Accept: application/json``, as ``harness submit`` sends) or redirects to the version page.
    """
    who = await run_in_threadpool(_auth, request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    wants_json = "application/json" in request.headers.get("accept", "")

    async def refuse(text: str, code: int = 400, link: str = "") -> Response:
        if wants_json:
            return JSONResponse({"error": text}, status_code=code)
        page = await run_in_threadpool(_page, request, "refused.html.j2", who, reason=text, link=link)
        page.status_code = code
        return page

    if await run_in_threadpool(server.setting, "frozen") == "1" and not who.admin:
        return await refuse("Submissions are closed: the teacher froze the contest.", 403)
    too_big = (f"refused: the upload is more than {MAX_UPLOAD // 2**20} MiB; at most {MAX_UPLOAD // 2**20} MiB "
               "are accepted.")
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > MAX_REQUEST:
        return await refuse(too_big, 413)
    try:  # a chunked body has no length: it is cut where it passes the limit, never spooled whole
        async with _capped(request, MAX_REQUEST).form(max_files=1, max_fields=10) as form:
            upload = form.get("file")
            command = str(form.get("command") or "")
            build = str(form.get("build") or "")
            student_name = str(form.get("student") or "")
            if upload is None or isinstance(upload, str):
                return await refuse("refused: no file; choose a .zip, a .tar.gz or a single file.")
            data = await upload.read(MAX_UPLOAD + 1)
            filename = upload.filename or "bot"
    except _TooLarge:
        return await refuse(too_big, 413)
    student_id = who.student_id
    name = who.name
    if who.admin:
        st = await run_in_threadpool(_student, server.engine, student_name)
        if st is None:
            return await refuse("The admin submits for a student: give the student's name.")
        student_id, name = st["id"], st["name"]
    if student_id is None:  # a session that is neither the admin nor a student's
        return _forbidden()
    logs = 0
    if not who.admin:  # the logs grow only with matches: counted once, outside the lock below
        logs = await run_in_threadpool(_log_bytes, server, server.engine, student_id)
        over = await run_in_threadpool(_over_limit, server, student_id, name, logs)
        if over:
            return await refuse(over, 429)
    try:
        unpacked, placed = await run_in_threadpool(_unpack_into_place, server.contest, name, data, filename,
                                                   command, build)
    except UnpackError as exc:
        return await refuse(str(exc))
    # the limits again, the student locked: of uploads sent at once exactly the quota passes
    sid = student_id
    limit: store.Limit | None = None if who.admin else (lambda conn: _over_limit(server, sid, name, logs, conn,
                                                                                 placed))
    try:
        added = await run_in_threadpool(store.add_version, server.engine, student_id, unpacked.sha256,
                                        unpacked.command, unpacked.build, limit)
    except store.OverLimit as exc:
        if placed is not None:  # its folder is no earlier version's
            await run_in_threadpool(shutil.rmtree, placed, True)
        return await refuse(str(exc), 429)
    v = await run_in_threadpool(_version, server.engine, added.id)
    assert v is not None  # just stored or found
    notice = repeat_notice(store.label(name, added.number), added.state, v["reason"]) if added.same else ""
    if added.same and added.state == store.REFUSED:
        await run_in_threadpool(store.drop_refused_files, server.contest, name, v["folder"])
        return await refuse(notice, 409, link=f"/versions/{added.id}")
    if wants_json:
        return JSONResponse(_version_json(v) | {"notice": notice}, status_code=200 if added.same else 201)
    return RedirectResponse(f"/versions/{added.id}" + ("?same=1" if added.same else ""), status_code=303)


def _unpack_into_place(contest: Contest, name: str, data: bytes, filename: str, command: str,
                       build: str) -> tuple[Any, Path | None]:
    """Unpack an upload (:func:`prepare`) and move its folder to the version's place (blocking file work).

    Returns:
        The :class:`harness.server.submission.Unpacked` and the folder it was moved to (None: an earlier
        version of the same files and build has that folder already).
    """
    staging = contest.data / "staging"
    staging.mkdir(parents=True, exist_ok=True)
    unpacked = prepare(data, filename, staging, command, build)
    _, where = store.bot_identity(unpacked.sha256, unpacked.command, unpacked.build)
    target = store.version_dir(contest, name, where)
    if target.exists():  # the same files (and build) as an earlier version: its folder is theirs
        shutil.rmtree(unpacked.folder, ignore_errors=True)
        return unpacked, None
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(unpacked.folder, target)
    return unpacked, target


def _over_limit(server: Server, student_id: int, name: str, logs: int, conn: Any = None,
                new: Path | None = None) -> str:
    """Why a student may not submit now (``[submissions]``: new versions per hour, disk of the kept versions and
    of their bots' match logs), or ``""``. (The ladder checks one version of a student at a time:
    :meth:`Ladder.fill`.)

    Args:
        logs: bytes of their bots' match logs (:func:`_log_bytes`).
        conn: the transaction that holds the student locked (:func:`harness.server.store.lock_student`), or None.
        new: the upload's own folder, already in place: not counted (the limit is on what was kept before).
    """
    contest = server.contest
    limits = contest.submissions
    recent = store.submission_counts(conn if conn is not None else server.engine, student_id, time.time() - 3600)
    if recent >= limits.per_hour:
        return (f"refused: at most {limits.per_hour} new versions an hour; you have submitted {recent} in the "
                "last hour, try again later.")
    used = store.folder_bytes(contest.data / "uploads" / name) - (store.folder_bytes(new) if new else 0)
    used += logs
    if used >= limits.disk_mb * 2**20:
        return (f"refused: your kept versions and their bots' match logs hold {used / 2**20:,.0f} MiB on the "
                f"server, at most {limits.disk_mb:,} MiB are allowed; ask your teacher.")
    return ""


def _log_bytes(server: Server, conn: Any, student_id: int) -> int:
    """Bytes of the logs (stdout, stderr: up to ``[limits] log_bytes`` each a match) that the student's bots
    wrote in their matches: they count in ``[submissions] disk_mb``."""
    total = 0
    for block_id, rotation, bot in store.played(conn, student_id):
        logs = match_dir(server.contest, block_id, rotation) / "logs"
        try:
            with os.scandir(logs) as entries:
                total += sum(e.stat(follow_symlinks=False).st_size for e in entries
                             if e.name.split("-", 1)[-1] in (f"{bot}.out", f"{bot}.err"))
        except OSError:
            continue
    return total


#: Largest submission request (bytes): the upload and its form's other fields and boundaries.
MAX_REQUEST = MAX_UPLOAD + 64 * 1024


class _TooLarge(HarnessError):
    """The request's body passed :data:`MAX_REQUEST` bytes."""


def _capped(request: Request, limit: int) -> Request:
    """``request`` whose body stops with :class:`_TooLarge` once more than ``limit`` bytes came."""
    received = 0

    async def receive() -> dict[str, Any]:
        nonlocal received
        message = await request.receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _TooLarge
        return dict(message)

    return Request(request.scope, receive)


def repeat_notice(bot: str, state: str, reason: str) -> str:
    """What a student is told when an upload is a bot they submitted before (the same files, command and
    build): no new version is made, and that version's state says what happens."""
    same = f"the same bot as {bot} (the same files, command and build)"
    if state == store.REFUSED:
        return (f"refused: {same}, which was refused: {reason}. Change a file, the command or the build to "
                "submit a new version.")
    if state == store.ADMITTED:
        return f"No new version: {same}; {bot} is your active version again."
    return f"No new version: {same}, whose admission check is still running."


def _bearer(request: Request) -> store.Who | None:
    """``harness submit``'s ``Authorization: Bearer TOKEN`` (the login link's token)."""
    auth = request.headers.get("authorization", "")
    if not auth.startswith("Bearer "):
        return None
    server: Server = request.app.state.server

    t, st = db.tokens, db.students
    with server.engine.connect() as conn:
        row = conn.execute(select(t.c.role, t.c.student_id, st.c.name).outerjoin(st, t.c.student_id == st.c.id)
                           .where(t.c.token_hash == token_hash(auth.removeprefix("Bearer ").strip()),
                                  t.c.revoked.is_(None))).first()
    return None if row is None else store.Who(row.role, row.student_id, row.name or "")


def _auth(request: Request) -> store.Who | None:
    return _who(request) or _bearer(request)


def api_version_bearer(request: Request) -> Response:
    who = _auth(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    vid = row_id(request.path_params["vid"])
    v = _version(server.engine, vid) if vid is not None else None
    if v is None or not _owns(who, v["student_id"]):
        return JSONResponse({"error": "no such version of yours"}, status_code=404)
    return JSONResponse(_version_json(v))


# ---------------------------------------------------------------- matches


def _match_row(engine: Engine, match_id: str) -> dict[str, Any] | None:
    m, b = db.matches, db.blocks
    with engine.connect() as conn:
        row = conn.execute(select(m, b.c.seats, b.c.state.label("block_state"), b.c.kind)
                           .join(b, m.c.block_id == b.c.id).where(m.c.match_id == match_id)).mappings().first()
    return dict(row) if row else None


def _seat_owners(server: Server, bots: list[str]) -> list[int | None]:
    """The student id behind each seat's bot (None: a reference bot)."""
    names = {}
    with server.engine.connect() as conn:
        for sid, name in conn.execute(select(db.students.c.id, db.students.c.name)).all():
            names[name] = sid
    out = []
    for bot in bots:
        student = bot.rsplit(".v", 1)[0] if ".v" in bot else None
        out.append(names.get(student) if student else None)
    return out


def match_page(request: Request) -> Response:
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    m = _match_row(server.engine, request.path_params["match_id"])
    if m is None or (m["state"] != store.DONE and not who.admin):
        return _not_found()
    record = json.loads(m["record"]) if m["record"] else None
    bots = record["result"]["bots"] if record else []
    owners = _seat_owners(server, bots)
    mine = {i for i, o in enumerate(owners) if o is not None and o == who.student_id}
    # a block's hands stay private until every rotation is stored (they share the deals)
    hands: list[dict[str, Any]] = []
    notices: list[str] = []
    if m["block_state"] == store.DONE or who.admin:
        directory = match_dir(server.contest, m["block_id"], m["rotation"])
        hands, notices = match_hands(directory, mine, who.admin, running=m["state"] != store.DONE)
    logs = [i for i in range(len(bots)) if who.admin or i in mine]
    faults = store.match_faults(server.engine, m["id"])
    tails = {i: {stream: _log_text(server, m, bots, i, owners[i], stream, LOG_TAIL) for stream in LOG_STREAMS}
             for i in logs}
    return _page(request, "match.html.j2", who, m=m, record=record, hands=hands, logs=logs, mine=mine,
                 hands_json=script_json(hands), notices=notices, faults=[faults.get(b, {}) for b in bots],
                 tails=tails, log_tail=LOG_TAIL)


#: A bot's output streams in a match (``logs/<seat>-<bot>.<suffix>``) and their names on the pages.
LOG_STREAMS = {"out": "stdout", "err": "stderr"}
#: Characters of each stream a match page shows (the end); the log's own route gives up to :data:`LOG_MAX`.
LOG_TAIL = 4000
LOG_MAX = 200_000


def _log_text(server: Server, m: dict[str, Any], bots: list[str], seat: int, owner: int | None, stream: str,
              limit: int) -> str:
    """The last ``limit`` characters of a seat's stdout (``stream`` "out") or stderr ("err") in a match, without
    the server's paths (:func:`for_student`), each line marked as the bot's (:func:`shown_log`); "" when it wrote
    nothing. The caller checks who may read it."""
    path = match_dir(server.contest, m["block_id"], m["rotation"]) / "logs" / f"{seat}-{bots[seat]}.{stream}"
    own = server.contest.data / "uploads" / bots[seat].rsplit(".v", 1)[0]  # the student's versions' folders
    roots = _roots(server)
    return shown_log(path, limit, server.contest.limits.log_bytes,
                     lambda text: for_student(text, roots, own if owner is not None else None))


def match_log(request: Request) -> Response:
    """A seat's stderr in a match (``?stream=out``: its stdout), the last :data:`LOG_MAX` characters, as plain
    text: its owner's and the admin's only."""
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    m = _match_row(server.engine, request.path_params["match_id"])
    if m is None or not m["record"]:
        return _not_found()
    bots = json.loads(m["record"])["result"]["bots"]
    try:
        seat = int(request.path_params["seat"])
    except ValueError:
        return _not_found()
    if not 0 <= seat < len(bots):
        return _not_found()
    owner = _seat_owners(server, bots)[seat]
    if not (who.admin or (owner is not None and owner == who.student_id)):
        return _not_found()
    stream = request.query_params.get("stream", "err")
    if stream not in LOG_STREAMS:
        return _not_found()
    return PlainTextResponse(_log_text(server, m, bots, seat, owner, stream, LOG_MAX))


# ---------------------------------------------------------------- challenges


async def challenge(request: Request) -> Response:
    """A student asks for a block of their active version against a named bot (quota per hour); every refusal
    is a page with a way back to their page."""
    who = await run_in_threadpool(_who, request)
    if who is None or who.admin or who.student_id is None:
        return _forbidden("Challenges are asked for by students.")
    server: Server = request.app.state.server
    async with request.form() as form:
        target = str(form.get("opponent") or "")
    result = await run_in_threadpool(_challenge, server, who, target)
    if isinstance(result, tuple):
        reason, status = result
        return await run_in_threadpool(lambda: refusal(request, who, reason, status, title="Challenge refused",
                                                       back=f"/students/{who.name}", back_label="Back to your page"))
    return RedirectResponse(f"/students/{who.name}", status_code=303)


def _challenge(server: Server, who: store.Who, target: str) -> int | tuple[str, int]:
    """Open the challenge block (its id), or why not and the HTTP status."""
    assert who.student_id is not None
    if server.setting("challenges", "1") != "1":
        return "Challenges are switched off by the teacher.", 403
    quota = server.contest.ladder.challenges_per_hour

    sid = who.student_id

    def over_quota(conn: Any) -> str:
        used = store.challenges_since(conn if conn is not None else server.engine, sid, time.time() - 3600)
        return f"Quota reached: {quota} challenges per hour; try again later." if used >= quota else ""

    if over_quota(None):
        return over_quota(None), 429
    active = {store.label(a["student"], a["number"]): a for a in store.active_versions(server.engine)}
    me = next((a for a in active.values() if a["student_id"] == who.student_id), None)
    if me is None:
        return "You have no admitted active version yet.", 409
    refs = {r.name for r in server.contest.references}
    seats = server.contest.ladder.table_size
    if target in refs:
        opp = f"r{target}"
    elif target in active and active[target]["student_id"] != who.student_id:
        opp = f"v{active[target]['id']}"
    else:
        return f"No opponent {target!r}: name a reference bot or another student's active version.", 400
    table = [f"v{me['id']}", opp]
    fill = [f"r{r}" for r in sorted(refs) if f"r{r}" not in table]
    table += fill[: seats - 2]
    if len(table) < seats:
        return "Not enough bots for a table of this contest.", 409
    try:  # counted again with the student locked: of challenges sent at once exactly the quota passes
        return store.new_block(server.engine, "challenge", table, seats, server.contest.name, who.student_id,
                               limit=over_quota)
    except store.OverLimit as exc:
        return str(exc), 429


# ---------------------------------------------------------------- admin


def admin_page(request: Request) -> Response:
    who = _who(request)
    if who is None or not who.admin:
        return _not_found() if who else _forbidden()
    server: Server = request.app.state.server
    current = etag.tag("admin", _who_key(who), store.admin_stamp(server.engine), final_stamp(server))
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    with server.engine.connect() as conn:
        people = [dict(r) for r in conn.execute(select(db.students).order_by(db.students.c.name)).mappings()]
    active = {a["student_id"]: a for a in store.active_versions(server.engine)}
    from harness.server.serve import BUILDS_OFF

    problem = build_problem(server.contest.sandbox)
    faults = store.fault_totals(server.engine, [store.label(a["student"], a["number"]) for a in active.values()])
    for a in active.values():
        a["faults"] = faults.get(store.label(a["student"], a["number"]), {})
    page = _page(request, "admin.html.j2", who, people=people, active=active,
                 paused=store.paused_versions(server.engine),
                 builds=f"{BUILDS_OFF} ({problem})" if problem else "",
                 challenges=server.setting("challenges", "1") == "1",
                 final_plan=final_plan(server).describe(), final_progress=final_progress(server),
                 final_race=finished_race(server),
                 final=server.setting("final", ""), ladder_error=server.ladder.error if server.ladder
                 else "")
    return etag.tagged(page, current)


def _occupancy(server: Server) -> tuple[float, float]:
    """``(busy, available)`` slot-seconds of the ladder since it started (:meth:`Ladder.occupancy`)."""
    return server.ladder.occupancy() if server.ladder is not None else (0.0, 0.0)


def admin_slots(request: Request) -> Response:
    """The ladder's job slots as JSON, ``{"busy_s": .., "available_s": ..}`` (slot-seconds since it started): the
    admin page fetches it itself (``static/admin.js``), so that the page, whose figures a teacher acts on, keeps
    its tag while the ladder rewrites these every few seconds (:data:`harness.server.ladderproc.STATUS_S`)."""
    who = _who(request)
    if who is None or not who.admin:
        return _not_found() if who else _forbidden()
    busy, available = _occupancy(request.app.state.server)
    current = etag.tag("slots", busy, available)
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    return etag.tagged(JSONResponse({"busy_s": busy, "available_s": available}), current)


async def admin_action(request: Request) -> Response:
    who = await run_in_threadpool(_who, request)
    if who is None or not who.admin:
        return _not_found() if who else _forbidden()
    server: Server = request.app.state.server
    action = request.path_params["action"]
    async with request.form() as form:
        value = str(form.get("value") or "")
    answer = await run_in_threadpool(_admin_act, server, action, value)
    if isinstance(answer, tuple):
        reason, status = answer
        return await run_in_threadpool(lambda: refusal(request, who, reason, status, title="Not done",
                                                       back="/admin", back_label="Back to the admin page"))
    return answer


def _admin_act(server: Server, action: str, value: str) -> Response | tuple[str, int]:
    """Do an admin's action (blocking: the database, the contest file, the final's start); a refusal is its
    reason and HTTP status."""
    if action == "freeze":
        server.set_setting("frozen", "1" if value == "1" else "0")
    elif action == "challenges":
        server.set_setting("challenges", "1" if value == "1" else "0")
    elif action == "roster":
        try:
            fresh = load_contest(server.contest.path)
        except ValueError as exc:
            return str(exc), 400
        store.sync_roster(server.engine, fresh)
        server.sessions.forget()
    elif action == "resume":
        vid = row_id(value)
        if vid is None or not store.resume(server.engine, vid):
            return _not_found()
    elif action == "final":
        started = start_final(server)
        if not started:
            return "The final is already running.", 409
    else:
        return _not_found()
    return RedirectResponse("/admin", status_code=303)


def _export(server: Server) -> Path:
    """A .tar.gz of the contest's files: uploads, matches (hand histories, logs), checks, the final, a JSON dump."""
    data = server.contest.data
    dump: dict[str, list[dict[str, Any]]] = {}
    with server.engine.connect() as conn:
        for table in metadata.sorted_tables:
            if table.name in ("tokens", "sessions"):  # secrets (hashed) stay on the server
                continue
            dump[table.name] = [dict(r) for r in conn.execute(select(table)).mappings()]
    fd, name = tempfile.mkstemp(prefix="export-", suffix=".tar.gz", dir=data)
    os.close(fd)
    with tarfile.open(name, "w:gz") as tar:
        body = json.dumps(dump, default=str).encode()
        info = tarfile.TarInfo(f"{server.contest.name}/database.json")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
        for part in ("uploads", "matches", "checks", "final"):
            if (data / part).exists():
                export_tree(tar, data / part, f"{server.contest.name}/{part}", skip_suffix="seed.secret")
    return Path(name)


def admin_export(request: Request) -> Response:
    """Everything, for the admin: ``<name>/database.json`` and the uploads, matches, checks and final folders."""
    who = _who(request)
    if who is None or not who.admin:
        return _not_found() if who else _forbidden()
    server: Server = request.app.state.server
    path = _export(server)

    return FileResponse(path, media_type="application/gzip", filename=f"{server.contest.name}-export.tar.gz",
                        background=BackgroundTask(path.unlink))


def final_page(request: Request) -> Response:
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    if "path" not in request.path_params:  # the report's links are relative to its folder
        return RedirectResponse("/final/", status_code=307)
    rel = request.path_params.get("path", "") or "index.html"
    root = (server.contest.data / "final" / "report").resolve()
    path = (root / rel).resolve()
    if not path.is_relative_to(root) or not path.is_file() or path.name.endswith((".jsonl", ".gz", ".err", ".out")):
        state = server.setting("final", "")
        running = final_progress(server)
        if running is not None:
            state = f"running: {running.describe()}"
        return PlainTextResponse(f"No final report yet{' (' + state + ')' if state else ''}.", status_code=404)
    if not who.admin and path.parent == root / "bots" and path.stem not in _own_report_pages(server, who):
        return _not_found()  # a bot's page holds its stderr's end and its first traceback (quoting its code)
    # the report's files change only when the final's run writes them again: a poll of an unchanged one is a 304
    current = etag.tag("final", str(path), _who_key(who), etag.file_stamp(path))
    unchanged = etag.not_modified(request, current)
    if unchanged is not None:
        return unchanged
    if path.suffix in _TEXT_TYPES:  # the report names the server's paths (its footer, logs, replay commands)
        text = path.read_text(encoding="utf-8", errors="replace")
        return etag.tagged(Response(hide_paths(text, _roots(server)), media_type=_TEXT_TYPES[path.suffix]), current)
    return etag.tagged(FileResponse(path), current)


def _own_report_pages(server: Server, who: store.Who) -> set[str]:
    """The names (without ``.html``) of the final report's bot pages a student may read: their own versions'
    and the house bots'."""
    mine = [store.label(who.name, v["number"]) for v in _versions(server.engine, who.student_id)] \
        if who.student_id is not None else []
    return {safe_name(b) for b in [*mine, *(r.name for r in server.contest.references)]}


#: Files of the final's report shown with the server's paths hidden (:func:`hide_paths`), and their types.
_TEXT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".md": "text/markdown; charset=utf-8", ".csv": "text/csv; charset=utf-8",
               ".txt": "text/plain; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml"}


def _roots(server: Server) -> tuple[tuple[str, str], ...]:
    """The server's paths no student is shown (:func:`harness.server.hostpaths.host_roots`)."""
    return host_roots(server.contest.data, server.contest.path.resolve().parent)


# ---------------------------------------------------------------- play against a bot


def play_opponents(server: Server, student_id: int, student: str) -> dict[str, Any]:
    """``{bot name: BotSpec}`` a student may play: the reference bots and their own admitted versions
    (:mod:`harness.server.games` says why not others')."""
    out: dict[str, Any] = {r.name: r for r in server.contest.references}
    for v in _versions(server.engine, student_id):
        if v["state"] == store.ADMITTED:
            bot = store.bot_spec(server.contest, student, v["number"], v["folder"], v["command"])
            out[bot.name] = bot
    return out


async def play_start(request: Request) -> Response:
    """A student starts a game against a bot they may play (form field ``opponent``)."""
    who = await run_in_threadpool(_who, request)
    if who is None or who.admin or who.student_id is None:
        return _forbidden("Games are played by students.")
    server: Server = request.app.state.server
    async with request.form() as form:
        target = str(form.get("opponent") or "")
    bots = await run_in_threadpool(play_opponents, server, who.student_id, who.name)
    back = {"title": "Game refused", "back": f"/students/{who.name}#play", "back_label": "Back to your page"}
    if target not in bots:
        reason = f"No opponent {target!r}: pick a reference bot or one of your admitted versions."
        return await run_in_threadpool(lambda: refusal(request, who, reason, 400, **back))
    try:
        game = await run_in_threadpool(server.games.start, who.name, bots[target])
    except GameRefused as exc:
        refused = str(exc)
        return await run_in_threadpool(lambda: refusal(request, who, refused, 409, **back))
    return RedirectResponse(f"/play/{game.id}/", status_code=303)


def _game_of(request: Request, *, player: bool = False) -> Game | Response:
    """The game of the URL if the session may see it (its player, or the admin unless ``player``); else the
    404 of :func:`_game_gone` (another student's game answers as an unknown one)."""
    who = _who(request)
    if who is None:
        return _forbidden()
    server: Server = request.app.state.server
    game = server.games.get(request.path_params["gid"])
    if game is None or not (who.name == game.student and not who.admin or who.admin and not player):
        return _game_gone(request, who)
    return game


def _game_gone(request: Request, who: store.Who) -> Response:
    """A game this server does not hold: it ended when the server restarted (games live in its memory), or
    long ago, or the address is wrong. The table's page says so and links to a new game (the student's page)
    and to the hands played, if any; its other routes answer the same words as JSON (the table shows them)."""
    server: Server = request.app.state.server
    gid = request.path_params["gid"]
    text = ("This game is no longer on the server: it ended when the server restarted (or long ago, or the "
            "address is wrong).")
    start = f"/students/{who.name}#play" if not who.admin else "/"
    if not request.url.path.endswith(f"/play/{gid}/"):
        return JSONResponse({"error": f"{text} Start a new game from your page: {start}", "over": True},
                            status_code=404)
    hands = not who.admin and server.games.past_history(who.name, gid) is not None
    page = _page(request, "game_gone.html.j2", who, text=text, start=start, hands=hands)
    page.status_code = 404
    return page


def play_static(request: Request) -> Response:
    return static_response(request.path_params["name"])


def play_page(request: Request) -> Response:
    game = _game_of(request)
    if not isinstance(game, Game):
        return game

    link = 'style="color: #cfe3ff"'
    footer = (f'<p class="game-links" style="padding: 0 16px; color: #cfe3ff">'
              f'<a href="hands" download {link}>download the hand history</a> · '
              f'<a href="/students/{html.escape(quote(game.student))}" {link}>back to your page</a></p>')
    return HTMLResponse(page_html(base=f"/play/{game.id}/", static="/play/static/", footer=footer))


def play_state(request: Request) -> Response:
    game = _game_of(request)
    if not isinstance(game, Game):
        return game
    return JSONResponse({**game.channel.state(), "error_text": game.error})


async def play_events(request: Request) -> Response:
    game = await run_in_threadpool(_game_of, request)
    if not isinstance(game, Game):
        return game
    return EventSourceResponse(game.channel.events(request.is_disconnected), ping=15)


async def play_answer(request: Request) -> Response:
    """The player's decision (JSON; :class:`harness.play.guard.PageGuard` refuses one posted by another site)."""
    game = await run_in_threadpool(lambda: _game_of(request, player=True))
    if not isinstance(game, Game):
        return game
    status, payload = game.channel.answer_json(request.headers.get("content-type", ""), await request.body())
    return JSONResponse(payload, status)


def play_hands(request: Request) -> Response:
    """The game's hand history (JSON lines, gzip if so written), for its player or the admin."""
    game = _game_of(request)
    if not isinstance(game, Game):
        who = _who(request)
        path = request.app.state.server.games.past_history(who.name, request.path_params["gid"]) if who else None
        if who is None or who.admin or path is None:
            return game
        return FileResponse(path, filename=f"game-{request.path_params['gid']}-{path.name}")
    path = game.history()
    if path is None:
        return PlainTextResponse("No hand has been played yet.", status_code=404)
    return FileResponse(path, filename=f"game-{game.id}-{path.name}")


async def health(request: Request) -> Response:
    return PlainTextResponse("ok")


def routes() -> list[BaseRoute]:
    """Every route of the application (tests/test_server_hostile.py renders each one with hostile values)."""
    return [
        Route("/", index),
        Route("/healthz", health),
        Route("/login/{token}", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/api/leaderboard", api_leaderboard),
        Route("/events", events),
        Route("/students/{name}", student_page),
        Route("/submit", submit, methods=["POST"]),
        Route("/versions/{vid}", version_page),
        Route("/versions/{vid}/code", version_code),
        Route("/versions/{vid}/activate", activate, methods=["POST"]),
        Route("/api/versions/{vid}", api_version_bearer),
        Route("/matches/{match_id}", match_page),
        Route("/matches/{match_id}/logs/{seat}", match_log),
        Route("/challenge", challenge, methods=["POST"]),
        Route("/admin", admin_page),
        Route("/admin/export", admin_export),
        Route("/admin/slots", admin_slots),
        Route("/admin/{action}", admin_action, methods=["POST"]),
        Route("/play", play_start, methods=["POST"]),
        Route("/play/static/{name}", play_static),
        Route("/play/{gid}/", play_page),
        Route("/play/{gid}/state", play_state),
        Route("/play/{gid}/events", play_events),
        Route("/play/{gid}/answer", play_answer, methods=["POST"]),
        Route("/play/{gid}/hands", play_hands),
        Route("/final", final_page),
        Route("/final/{path:path}", final_page),
        Route("/static/plotly.min.js", plotly_js),
        Mount("/static", StaticFiles(directory=REPORT_STATIC), name="static"),
        Mount("/assets", StaticFiles(directory=SERVER_STATIC), name="assets"),
    ]


def _encodable(value: Any) -> Any:
    """What a template prints, with each lone surrogate (a byte of a file name that is not UTF-8, say in a build's
    notes) as its escape: UTF-8 cannot hold one, and the whole page would fail."""
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return type(value)(value.encode("utf-8", "backslashreplace").decode("utf-8"))  # Markup stays Markup
    return value


def create_app(server: Server) -> Starlette:
    """The ASGI application of ``server``; its lifespan resumes a final cut short and stops the ladder (started
    before: :func:`harness.server.serve.serve`)."""
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if server.ladder is not None:
            await run_in_threadpool(resume_final, server)  # a final a stop or a kill cut short goes on
        try:
            yield
        finally:
            server.stopping = True
            await run_in_threadpool(server.games.stop)
            if server.ladder is not None:
                await run_in_threadpool(server.ladder.stop)
            await run_in_threadpool(server.board.close)
            final = server.final_proc
            if final is not None and final.poll() is None:  # the runner stops its matches on SIGTERM
                final.terminate()
                try:
                    await run_in_threadpool(final.wait, 30)
                except Exception:  # noqa: BLE001 - a stuck runner is killed
                    final.kill()

    app = Starlette(routes=routes(), lifespan=lifespan, middleware=[Middleware(PageGuard)])
    app.state.server = server
    # autoescape on every template, whatever its name: Jinja2Templates' default escapes .html/.htm/.xml only,
    # and these are .html.j2

    templates = Jinja2Templates(env=jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                                                       finalize=_encodable))
    templates.env.filters["faults"] = fault_text
    templates.env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)) if t else ""
    app.state.templates = templates
    return app

