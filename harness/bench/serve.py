"""``harness bench serve``: the contest server under a class's load (figures only, never asserts).

A contest of 100 students with 300 stored versions (100 active) and 10,000
recorded matches (5,000 heads-up blocks of synthetic results) is served by a
real ``harness serve`` on 127.0.0.1 while its ladder plays real matches of the
active versions (the raiser's code). ``clients`` signed-in clients (asyncio +
httpx, one connection each, a tenth of them the admin) each ask for one page
every 2 s, in turn over the pages a student (or the teacher) keeps open, each
page again with ``If-None-Match`` and its last ETag, as a browser does (a
304 counts as an answer; ``not_modified_pct``: the share of them); 10 s
in, 30 students upload a new version at once. Figures: the p95 answer time per
route (ms), answers per second, errors by kind, the seconds from the burst to
each new version's first complete block (median, max, how many never came
within the limit; read from the database, ``first_block_s``, and as the
leaderboard shows it, ``first_on_board_s``, once the board is recomputed),
the share of the ladder's job-slot time spent in jobs since the server
started, and the machine's load average at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, text

from harness.bench.postgres import TemporaryPostgres
from harness.errors import HarnessError
from harness.server import db, store
from harness.server.app import COOKIE
from harness.server.contest import load_contest
from harness.server.unpack import content_hash
from harness.specs import MatchResult
from harness.tournament.config import toml_value
from harness.tournament.results import MatchRecord

STUDENTS, VERSIONS, MATCHES = 100, 300, 10_000
_ROOT = Path(__file__).resolve().parents[2]


def _contest(folder: Path, database: str = "") -> Path:
    db_line = f"database = {toml_value(database)}\n" if database else ""
    text = (f'[contest]\nname = "bench"\n{db_line}'
            '[ladder]\nhands = 50\ntable_size = 2\njobs = 2\n[sandbox]\nmode = "off"\n'
            f'[[reference]]\nname = "caller"\ncommand = "python -m bots.caller"\ncwd = {toml_value(str(_ROOT))}\n'
            + "".join(f'[[students]]\nname = "s{i:03d}"\n' for i in range(STUDENTS)))
    path = folder / "contest.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _populate(contest_path: Path) -> None:
    """Store the versions (with their files) and the matches directly in the database."""

    contest = load_contest(contest_path)
    engine = db.open_database(contest.database)
    store.sync_roster(engine, contest)
    code = (_ROOT / "bots" / "raiser.py").read_text(encoding="utf-8")
    rng = random.Random(1)
    now = time.time() - 86400
    labels = []
    with engine.begin() as conn:
        ids = dict(conn.execute(db.students.select().with_only_columns(db.students.c.name, db.students.c.id)).all())
        vid = 0
        for n in range(VERSIONS):
            name = f"s{n % STUDENTS:03d}"
            number = n // STUDENTS + 1
            body = code + f"\n# {name} v{number}\n"
            folder = Path(tempfile.mkdtemp(dir=contest.data))
            (folder / "bot.py").write_text(body, encoding="utf-8")
            sha = content_hash(folder)
            key, where = store.bot_identity(sha, "python bot.py", "")
            target = store.version_dir(contest, name, where)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(folder, target)
            vid += 1
            active = number == VERSIONS // STUDENTS
            conn.execute(insert(db.versions).values(
                id=vid, student_id=ids[name], number=number, sha256=sha, command="python bot.py", build="",
                bot_key=key, folder=where,
                state=store.ADMITTED, reason="", report="{}", created=now + n, checked=now + n, active=active))
            labels.append(store.label(name, number))
        for b in range(MATCHES // 2):
            a = rng.choice(labels)
            seats = [a, "caller"]
            bid = b + 1
            # the seat codes the ladder counts blocks by (store.tally): every old version has played
            codes = [f"v{labels.index(a) + 1}", "rcaller"]
            conn.execute(insert(db.blocks).values(id=bid, kind="ladder", seats=json.dumps(codes), seed="0" * 64,
                                                  state=store.DONE, created=now + b, finished=now + b))
            net = rng.randint(-500, 500)
            for r in range(2):
                order = seats if r == 0 else seats[::-1]
                nets = [net, -net] if r == 0 else [net // 2, -(net // 2)]
                res = MatchResult(match_id=f"b{bid}-r{r}", seed=b, hands_played=50, bots=order, net=nets,
                                  hand_nets=[], faults=[{}, {}], status=["ok", "ok"])
                rec = MatchRecord(table=f"b{bid}", rotation=r, unit=contest.game.unit, result=res, rotations=2)
                pk = bid * 2 + r - 1
                conn.execute(insert(db.matches).values(id=pk, block_id=bid, rotation=r, match_id=f"b{bid}-r{r}",
                                                       state=store.DONE, record=json.dumps(rec.to_dict()), error="",
                                                       finished=now + b))
                conn.execute(insert(db.match_bots), [{"match_pk": pk, "bot": bot} for bot in order])
        if engine.dialect.name == "postgresql":  # ids given explicitly leave the sequences behind: the next
            for table in (db.versions, db.blocks, db.matches):  # upload would take version id 1 again
                conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                  f"(SELECT max(id) FROM {table.name}))"))
    engine.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class BenchServeError(HarnessError):
    """The bench could not run (the server did not start, nobody could sign in): one line saying why."""


#: The pages each kind of client polls in turn, as route templates (``{me}``: its name, ``{vid}``: its version).
STUDENT_ROUTES = ("/", "/students/{me}", "/api/leaderboard", "/versions/{vid}", "/api/versions/{vid}",
                  "/matches/b1-r0")
ADMIN_ROUTES = ("/admin", "/admin/slots", "/", "/api/leaderboard", "/matches/b1-r0/logs/0")


def run(clients: int = 100, uploads: int = 30, burst_after_s: float = 10.0, limit_s: float = 300.0,
        every_s: float = 2.0, database: str = "sqlite") -> dict[str, Any]:
    """The figures (see the module docstring) with ``clients`` concurrent clients.

    Args:
        clients: signed-in clients polling at once (asyncio + httpx), a tenth of them the admin.
        uploads: students uploading a new version at once, ``burst_after_s`` seconds into the polling.
        limit_s: the longest the bench waits after the burst for every first block (those missing are counted).
        every_s: each client's request interval (s, start to start; at once when an answer took longer).
        database: ``sqlite`` (a file in the contest's folder) or ``postgres`` (a throw-away PostgreSQL cluster,
            :class:`harness.bench.postgres.TemporaryPostgres`).

    Raises:
        BenchServeError: the server did not start or answer, or no client could sign in.
        PostgresUnavailable: ``postgres`` where no PostgreSQL can be made.
    """
    if database == "postgres":
        cluster = TemporaryPostgres()
        try:
            figures = _run(clients, uploads, burst_after_s, limit_s, every_s, cluster.database())
        finally:
            cluster.stop()
        return {"db": "postgres", **figures}
    return {"db": "sqlite", **_run(clients, uploads, burst_after_s, limit_s, every_s, "")}


def _run(clients: int, uploads: int, burst_after_s: float, limit_s: float, every_s: float,
         database: str) -> dict[str, Any]:

    harness = [sys.executable, "-c", "from harness.cli import app; app()"]
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        folder = Path(tmp)
        contest = _contest(folder, database)
        port = _free_port()
        out = subprocess.run([*harness, "serve", str(contest), "--links", "--port", str(port)], capture_output=True,
                             text=True, check=False, cwd=folder)
        if out.returncode != 0:
            raise BenchServeError(f"harness serve --links failed: {_last_line(out.stderr)}")
        urls = dict(list(csv.reader(io.StringIO(out.stdout)))[1:])
        start = time.monotonic()
        _populate(contest)
        populate_s = time.monotonic() - start
        log = folder / "server.log"
        with open(log, "wb") as sink:
            proc = subprocess.Popen([*harness, "serve", str(contest), "--port", str(port)], cwd=folder,
                                    stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(base, proc, log)

            figures = asyncio.run(_load(base, urls, clients, uploads, burst_after_s, limit_s, every_s,
                                        load_contest(contest).database))
        finally:
            _stop(proc)
    load1, load5, _ = os.getloadavg()
    return {"students": STUDENTS, "versions": VERSIONS, "matches": MATCHES, "populate_s": round(populate_s, 1),
            **figures, "load_1min": round(load1, 1), "load_5min": round(load5, 1), "cpus": os.cpu_count()}


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "(no output)"


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], log: Path, limit_s: float = 300.0) -> None:
    """Until ``/healthz`` answers 200. Raises BenchServeError if the server exits or does not answer in time."""

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BenchServeError(f"the server exited with status {proc.returncode}: "
                                  f"{_last_line(log.read_text(errors='replace'))}")
        try:
            if httpx.get(base + "/healthz", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise BenchServeError(f"the server did not answer /healthz within {limit_s:.0f} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, 30 s, then SIGKILL of the server's whole process group (its ladder's matches too)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


class _Tally:
    """Answer times per route template (ms), errors by kind, answers counted."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.answers = 0
        #: answers 304 Not Modified (the client's If-None-Match named the page's tag: nothing rendered)
        self.unchanged = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def _error_kind(exc: BaseException) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    return type(exc).__name__


async def _load(base: str, urls: dict[str, str], clients: int, uploads: int, burst_after_s: float, limit_s: float,
                every_s: float, database: str) -> dict[str, Any]:
    """Sign ``clients`` clients in, poll, upload ``uploads`` versions at once, wait for their first blocks (read
    from ``database`` itself, and from the leaderboard: a student sees it there once the board is recomputed)."""

    admins = max(1, clients // 10) if clients > 1 else 0
    students = clients - admins
    if students > STUDENTS:
        raise BenchServeError(f"at most {STUDENTS + STUDENTS // 9} clients (the contest has {STUDENTS} students)")
    uploads = min(uploads, students)
    timeout = httpx.Timeout(60.0)
    limits = httpx.Limits(max_connections=2)
    tally = _Tally()
    pool: list[tuple[httpx.AsyncClient, tuple[str, ...], dict[str, str]]] = []
    try:
        for i in range(clients):
            is_admin = i >= students
            name = "admin" if is_admin else f"s{i:03d}"
            client = httpx.AsyncClient(base_url=base, timeout=timeout, limits=limits)
            pool.append((client, ADMIN_ROUTES if is_admin else STUDENT_ROUTES,
                         {"me": name, "vid": str(201 + i % STUDENTS)}))

        async def sign_in(client: httpx.AsyncClient, name: str) -> bool:
            try:
                answer = await client.post(urls[name])
            except httpx.HTTPError as exc:
                tally.error(f"login {_error_kind(exc)}")
                return False
            if answer.status_code != 200 or COOKIE not in client.cookies:
                tally.error(f"login {answer.status_code}")
                return False
            return True

        signed = await asyncio.gather(*(sign_in(c, "admin" if r is ADMIN_ROUTES else v["me"]) for c, r, v in pool))
        if not any(signed):
            raise BenchServeError(f"no client could sign in ({_summary(tally.errors)})")
        t0 = time.monotonic()
        stop = asyncio.Event()

        async def poll(k: int, client: httpx.AsyncClient, routes: tuple[str, ...], values: dict[str, str]) -> None:
            rng = random.Random(k)
            await asyncio.sleep(rng.uniform(0, every_s))
            turn = rng.randrange(len(routes))
            tags: dict[str, str] = {}  # url -> its last ETag: asked again with If-None-Match, as a browser does
            while not stop.is_set():
                began = time.monotonic()
                route = routes[turn % len(routes)]
                turn += 1
                url = route.format(**values)
                try:
                    answer = await client.get(url, headers={"If-None-Match": tags[url]} if url in tags else None)
                except httpx.HTTPError as exc:
                    tally.error(f"{route} {_error_kind(exc)}")
                else:
                    if answer.status_code >= 400:
                        tally.error(f"{route} {answer.status_code}")
                    else:
                        if "etag" in answer.headers:
                            tags[url] = answer.headers["etag"]
                        tally.answers += 1
                        tally.unchanged += answer.status_code == 304
                        tally.times.setdefault(route, []).append((time.monotonic() - began) * 1000)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), max(0.0, every_s - (time.monotonic() - began)))

        pollers = [asyncio.create_task(poll(k, c, r, v)) for k, (c, r, v), ok in zip(
            range(len(pool)), pool, signed, strict=True) if ok]
        await asyncio.sleep(burst_after_s)
        code = (_ROOT / "bots" / "raiser.py").read_bytes()
        uploaders = [(c, v["me"]) for (c, r, v), ok in zip(pool, signed, strict=True) if ok and r is STUDENT_ROUTES]
        uploaders = uploaders[:uploads]

        async def upload(client: httpx.AsyncClient, name: str) -> tuple[str, str] | None:
            try:
                answer = await client.post("/submit", files={"file": ("bot.py", code + f"\n# {name} new\n".encode())},
                                           headers={"Accept": "application/json"})
                made = answer.json() if answer.status_code < 400 else None
            except (httpx.HTTPError, ValueError) as exc:
                tally.error(f"upload {_error_kind(exc)}")
                return None
            if made is None:
                tally.error(f"upload {answer.status_code}")
                return None
            return f"v{made['id']}", str(made["bot"])

        sent = time.monotonic()
        labels = dict(x for x in await asyncio.gather(*(upload(c, n) for c, n in uploaders)) if x is not None)
        first: dict[str, float] = {}  # seat code -> seconds to its first complete block (the database's)
        shown: dict[str, float] = {}  # bot -> seconds until the leaderboard counts that block
        watcher = pool[-1][0]
        engine = db.make_engine(database)
        try:
            while len(shown) < len(labels) and time.monotonic() - sent < limit_s:
                complete = (await asyncio.to_thread(store.tally, engine)).complete
                try:
                    rows = (await watcher.get("/api/leaderboard")).json()
                except (httpx.HTTPError, ValueError):
                    rows = []
                now = time.monotonic()
                for seat in labels:
                    if complete.get(seat, 0) > 0 and seat not in first:
                        first[seat] = now - sent
                bots = set(labels.values())
                for row in rows:
                    if row.get("bot") in bots and row.get("blocks", 0) > 0 and row["bot"] not in shown:
                        shown[row["bot"]] = now - sent
                await asyncio.sleep(1.0)
        finally:
            engine.dispose()
        polled_s = time.monotonic() - t0
        stop.set()
        await asyncio.gather(*pollers)
        slots = _slot_seconds((await watcher.get("/admin/slots")).json()) if admins else (0.0, 0.0)
    finally:
        await asyncio.gather(*(c.aclose() for c, _, _ in pool), return_exceptions=True)

    def p95(values: list[float]) -> float:
        return round(statistics.quantiles(values, n=20)[-1], 1) if len(values) >= 2 else round(values[0], 1)

    figures: dict[str, Any] = {"clients": clients, "admins": admins, "signed_in": sum(signed),
                               "every_s": every_s, "seconds": round(polled_s, 1)}
    for route in (*STUDENT_ROUTES, *ADMIN_ROUTES):
        if route in tally.times and f"p95_ms {route}" not in figures:
            figures[f"p95_ms {route}"] = p95(tally.times[route])
    every = [t for values in tally.times.values() for t in values]
    figures["p95_ms_all"] = p95(every) if every else None
    figures["p95_ms_worst"] = max((p95(v) for v in tally.times.values()), default=None)
    figures["answers_per_s"] = round(tally.answers / polled_s, 1) if polled_s else None
    figures["not_modified_pct"] = round(100 * tally.unchanged / tally.answers, 1) if tally.answers else None
    figures["errors"] = sum(tally.errors.values())
    figures["error_kinds"] = _summary(tally.errors) or "-"
    figures["uploads"] = len(labels)
    for name, got in (("first_block_s", first), ("first_on_board_s", shown)):
        waits = sorted(got.values())
        figures[f"{name}_median"] = round(statistics.median(waits), 1) if waits else None
        figures[f"{name}_max"] = round(waits[-1], 1) if len(waits) == len(labels) and waits else None
        figures[f"{name}_missing"] = len(labels) - len(waits)
    figures["slots_busy_pct_since_start"] = round(100 * slots[0] / slots[1], 1) if slots[1] else None
    return figures


def _summary(errors: dict[str, int]) -> str:
    return ", ".join(f"{kind} x{n}" for kind, n in sorted(errors.items(), key=lambda kv: -kv[1]))


def _slot_seconds(slots: object) -> tuple[float, float]:
    """``(busy, available)`` job-slot seconds of the ladder so far, from ``/admin/slots``'s JSON."""
    try:
        return float(slots["busy_s"]), float(slots["available_s"])  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return 0.0, 0.0
