"""A version is its files, command and build: what an upload of a bot submitted before does, and the migration
that made versions so (0003) on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

from tests.server_helpers import (  # noqa: E402
    BROKEN,
    RAISER,
    Served,
    contest_file,
    free_port,
    links,
    upload,
    version_state,
    wait_for,
)

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def _checked(client, vid: int) -> dict:  # noqa: ANN001 - an httpx client
    return wait_for(lambda: (v := version_state(client, vid))["state"] != "checking" and v, timeout=600)


def test_the_same_bot_again_is_said_and_another_command_is_a_new_version(tmp_path: Path) -> None:
    contest = contest_file(tmp_path)
    port = free_port()
    urls = links(contest, port)
    server = Served(contest, port)
    try:
        alice = server.client(urls["alice"])
        v1 = upload(alice, "bot.py", RAISER.encode())
        assert v1.status_code == 201 and v1.json()["notice"] == ""
        v1 = v1.json()
        assert _checked(alice, v1["id"])["state"] == "admitted"
        # the same file with another command: a new version, checked on its own
        v2 = upload(alice, "bot.py", RAISER.encode(), "python3 bot.py")
        assert v2.status_code == 201, v2.text
        v2 = v2.json()
        assert v2["bot"] == "alice.v2" and v2["command"] == "python3 bot.py"
        assert _checked(alice, v2["id"])["active"]
        assert version_state(alice, v1["id"])["command"] == "python bot.py"  # v1 untouched
        # the same file and command as v1: no new version, v1 active again, and the answer says so
        again = upload(alice, "bot.py", RAISER.encode())
        assert again.status_code == 200 and again.json()["id"] == v1["id"]
        assert "the same bot as alice.v1" in again.json()["notice"] and "active version again" in again.json()["notice"]
        assert version_state(alice, v1["id"])["active"] and not version_state(alice, v2["id"])["active"]
        # by the web form: the version page says it
        form = alice.post("/submit", files={"file": ("bot.py", RAISER.encode())}, follow_redirects=False)
        assert form.status_code == 303 and form.headers["location"] == f"/versions/{v1['id']}?same=1"
        page = alice.get(form.headers["location"]).text
        assert 'id="same"' in page and "No new version: the same bot as alice.v1" in page
        # a refused bot again: refused, naming the earlier version and its reason, which is kept
        v3 = upload(alice, "bot.py", BROKEN.encode()).json()
        refused = _checked(alice, v3["id"])
        assert refused["state"] == "refused"
        again = upload(alice, "bot.py", BROKEN.encode())
        assert again.status_code == 409
        error = again.json()["error"]
        assert "the same bot as alice.v3" in error and "which was refused" in error and "\n" not in error
        page = alice.post("/submit", files={"file": ("bot.py", BROKEN.encode())})
        assert page.status_code == 409 and "the same bot as alice.v3" in page.text
        assert f'href="/versions/{v3["id"]}"' in page.text
        assert version_state(alice, v3["id"]) == refused  # nothing recorded is changed
        # the refused file with another command is a new version; v3's command is kept
        v4 = upload(alice, "bot.py", BROKEN.encode(), "python -X dev bot.py")
        assert v4.status_code == 201 and v4.json()["bot"] == "alice.v4"
        assert version_state(alice, v3["id"])["command"] == "python bot.py"
        _checked(alice, v4.json()["id"])
    finally:
        server.stop()


def test_a_version_with_a_build_has_a_folder_of_its_own() -> None:
    from harness.server.store import bot_identity

    sha = "ab" * 32
    key, folder = bot_identity(sha, "python bot.py", "")
    assert folder == sha[:16] and len(key) == 64
    assert bot_identity(sha, "python3 bot.py", "")[1] == folder  # the same files, shared
    built = {bot_identity(sha, "python bot.py", "make")[1], bot_identity(sha, "./bot", "make")[1]}
    assert len(built) == 2 and folder not in built  # no build writes into another version's files


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'contest.db'}"
    return request.getfixturevalue("pg_cluster").database().replace("postgresql://", "postgresql+psycopg://")


def test_migration_0003_keys_versions_by_bot_and_keeps_them(database: str) -> None:
    from sqlalchemy import insert, select, text
    from sqlalchemy.exc import IntegrityError

    from harness.server import db as schema
    from harness.server import store
    from harness.server.db import current_revision, make_engine, upgrade

    engine = make_engine(database)
    try:
        upgrade(engine, "0002")  # a database of the previous release, with versions in it
        old = {"number": 1, "sha256": "c" * 64, "command": "python bot.py", "build": "", "state": "admitted",
               "reason": "", "report": json.dumps({"decision_ms": 1}), "created": 1.0, "checked": 2.0, "active": True}
        with engine.begin() as conn:
            conn.exec_driver_sql("insert into students (id, name, email, created) values (1, 'alice', '', 0)")
            columns = ", ".join(old)
            values = ", ".join(f":{k}" for k in old)
            conn.execute(text(f"insert into versions (id, student_id, {columns}) values (1, 1, {values})"), old)
            conn.execute(text(f"insert into versions (id, student_id, {columns}) values (2, 1, {values})"),
                         old | {"number": 2, "sha256": "d" * 64, "build": "make", "state": "refused",
                                "reason": "no", "active": False})
        upgrade(engine)
        assert current_revision(engine) == "0004"
        with engine.connect() as conn:
            rows = {r.id: r for r in conn.execute(select(schema.versions))}
        assert rows[1].bot_key == store.bot_identity("c" * 64, "python bot.py", "")[0]
        assert rows[1].folder == "c" * 16 and rows[2].folder == "d" * 16  # where their files already are
        assert (rows[1].state, rows[1].active, rows[1].report, rows[2].reason) == ("admitted", True, old["report"],
                                                                                 "no")
        # the same files with another command: a new version; the same bot again: the old one
        added = store.add_version(engine, 1, "c" * 64, "python3 bot.py", "")
        assert (added.number, added.same) == (3, False)
        assert store.add_version(engine, 1, "c" * 64, "python bot.py", "") == store.Added(1, 1, "admitted", True)
        with pytest.raises(IntegrityError), engine.begin() as conn:
            key, folder = store.bot_identity("c" * 64, "python bot.py", "")
            conn.execute(insert(schema.versions).values(old | {"student_id": 1, "number": 9, "bot_key": key,
                                                               "folder": folder}))
        with engine.begin() as conn:  # versions still have the ids the next one follows
            key, folder = store.bot_identity("e" * 64, "x", "")
            conn.execute(insert(schema.versions).values(old | {"student_id": 1, "number": 10, "bot_key": key,
                                                               "folder": folder, "sha256": "e" * 64}))
        upgrade(engine)  # a second start-up keeps everything
        assert current_revision(engine) == "0004"
    finally:
        engine.dispose()
