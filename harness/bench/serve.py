"""``harness bench serve``: the contest server under a class's load (figures only, never asserts).

A contest of 100 students with 300 stored versions (100 active) and 10,000
recorded matches (5,000 heads-up blocks of synthetic results) is served by a
real ``harness serve`` on 127.0.0.1 while its ladder plays real matches of the
active versions (the raiser's code). Figures: the p95 answer time of every
page and API route (ms), the share of the ladder's job-slot time spent in
jobs while the requests are made (``slots_busy_pct``; ``..._since_start`` with
the server's start-up), and the seconds from a new version's upload to its
first complete block.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
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
from sqlalchemy import insert

from harness.server import db, store
from harness.server.contest import load_contest
from harness.server.unpack import content_hash
from harness.specs import MatchResult
from harness.tournament.config import toml_value
from harness.tournament.results import MatchRecord

STUDENTS, VERSIONS, MATCHES = 100, 300, 10_000
REQUESTS = 20
#: Seconds of requests at least, from the new version's upload: the slots' occupancy is measured over them.
STEADY_S = 30.0
_ROOT = Path(__file__).resolve().parents[2]


def _contest(folder: Path) -> Path:
    text = ('[contest]\nname = "bench"\n[ladder]\nhands = 50\ntable_size = 2\njobs = 2\n[sandbox]\nmode = "off"\n'
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
            conn.execute(insert(db.blocks).values(id=bid, kind="ladder", seats=json.dumps([]), seed="0" * 64,
                                                  state=store.DONE, created=now + b, finished=now + b))
            net = rng.randint(-500, 500)
            for r in range(2):
                order = seats if r == 0 else seats[::-1]
                nets = [net, -net] if r == 0 else [net // 2, -(net // 2)]
                res = MatchResult(match_id=f"b{bid}-r{r}", seed=b, hands_played=50, bots=order, net=nets,
                                  hand_nets=[], faults=[{}, {}], status=["ok", "ok"])
                rec = MatchRecord(table=f"b{bid}", rotation=r, big_blind=contest.game.unit, result=res, rotations=2)
                pk = bid * 2 + r - 1
                conn.execute(insert(db.matches).values(id=pk, block_id=bid, rotation=r, match_id=f"b{bid}-r{r}",
                                                       state=store.DONE, record=json.dumps(rec.to_dict()), error="",
                                                       finished=now + b))
                conn.execute(insert(db.match_bots), [{"match_pk": pk, "bot": bot} for bot in order])
    engine.dispose()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run() -> dict[str, Any]:
    """The figures (see the module docstring)."""
    harness = [sys.executable, "-c", "from harness.cli import app; app()"]
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        folder = Path(tmp)
        contest = _contest(folder)
        port = _free_port()
        out = subprocess.run([*harness, "serve", str(contest), "--links", "--port", str(port)], capture_output=True,
                             text=True, check=True, cwd=folder)
        urls = dict(list(csv.reader(io.StringIO(out.stdout)))[1:])
        start = time.monotonic()
        _populate(contest)
        populate_s = time.monotonic() - start
        proc = subprocess.Popen([*harness, "serve", str(contest), "--port", str(port)], cwd=folder,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            student = httpx.Client(base_url=base, follow_redirects=True, timeout=60)
            student.get(urls["s000"])
            admin = httpx.Client(base_url=base, follow_redirects=True, timeout=60)
            admin.get(urls["admin"])
            first = time.monotonic()
            admin.get("/api/leaderboard")  # the first computation of the board (cold)
            cold_ms = (time.monotonic() - first) * 1000
            # a new version: seconds to its first complete block
            code = (_ROOT / "bots" / "raiser.py").read_bytes() + b"\n# new\n"
            slots_before = _slot_seconds(admin)
            sent = time.monotonic()
            vid = student.post("/submit", files={"file": ("bot.py", code)},
                               headers={"Accept": "application/json"}).json()["id"]
            routes = {"/": student, "/api/leaderboard": student, "/students/s001": student,
                      f"/versions/{vid}": student, f"/api/versions/{vid}": student, "/matches/b1-r0": student,
                      "/matches/b1-r0/logs/0": admin, "/admin": admin}
            times: dict[str, list[float]] = {r: [] for r in routes}
            first_block_s = None
            admitted_s = None
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and (first_block_s is None or min(map(len, times.values())) < REQUESTS
                                                   or time.monotonic() - sent < STEADY_S):
                for route, client in routes.items():
                    t0 = time.monotonic()
                    client.get(route)
                    times[route].append((time.monotonic() - t0) * 1000)
                if admitted_s is None and student.get(f"/api/versions/{vid}").json()["state"] != "checking":
                    admitted_s = time.monotonic() - sent
                if first_block_s is None:
                    rows = {r["bot"]: r for r in student.get("/api/leaderboard").json()}
                    if rows.get("s000.v4", {}).get("blocks", 0) > 0:
                        first_block_s = time.monotonic() - sent
            slots_after = _slot_seconds(admin)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def p95(values: list[float]) -> float:
        return round(statistics.quantiles(values, n=20)[-1], 1) if len(values) >= 2 else round(values[0], 1)

    figures: dict[str, Any] = {"students": STUDENTS, "versions": VERSIONS, "matches": MATCHES,
                               "populate_s": round(populate_s, 1), "leaderboard_cold_ms": round(cold_ms, 1)}
    for route, values in times.items():
        figures[f"p95_ms {route}"] = p95(values)
    figures["p95_ms_worst"] = max(p95(v) for v in times.values())
    figures["admitted_s"] = None if admitted_s is None else round(admitted_s, 1)
    figures["first_block_s"] = None if first_block_s is None else round(first_block_s, 1)
    busy, available = (after - before for after, before in zip(slots_after, slots_before, strict=True))
    figures["slots_busy_pct"] = round(100 * busy / available, 1) if available > 0 else None
    figures["slots_busy_pct_since_start"] = round(100 * slots_after[0] / slots_after[1], 1) if slots_after[1] else None
    return figures


def _slot_seconds(admin: Any) -> tuple[float, float]:
    """``(busy, available)`` job-slot seconds of the ladder so far, from the admin page."""
    page = admin.get("/admin").text
    found = re.search(r'id="busy-slot-s">([0-9.]+)</span> of <span id="slot-s">([0-9.]+)<', page)
    return (float(found[1]), float(found[2])) if found else (0.0, 0.0)
