"""``harness serve``: open the database (migrations), then print the links or run uvicorn with the ladder."""

from __future__ import annotations

import csv
import socket
import sys
from pathlib import Path
from typing import TextIO

from harness.host.build import build_problem
from harness.match.untrusted import visible
from harness.server import store
from harness.server.contest import Contest, load_contest
from harness.server.db import open_database
from harness.server.ladderproc import LadderStartError
from harness.server.places import prepare_places
from harness.tournament.config import ConfigError

#: What the server says when the sandbox cannot run builds (at start and on the admin page).
BUILDS_OFF = "no build command is run: the sandbox cannot run here, so a submission with a build is refused"


def base_url(host: str, port: int) -> str:
    """The address students use (``http://HOST:PORT``; 0.0.0.0 and :: are shown as this machine's name)."""
    shown = socket.gethostname() if host in ("0.0.0.0", "::") else host
    return f"http://{shown}:{port}"


def started_line(contest: Contest, host: str, port: int) -> str:
    """The line ``harness serve`` prints once it listens: the contest, its address and its data folder, whose path
    (``[contest] data``, any text) is shown with its control characters escaped (an escape sequence in the contest
    file must not reach the terminal raw)."""
    return f"harness serve: {contest.name} at {base_url(host, port)} (data: {visible(str(contest.data))})"


def print_links(contest: Contest, url: str, out: TextIO = sys.stdout, only: tuple[str, ...] = ()) -> int:
    """Issue new login links (every earlier one of those named is revoked) and print CSV ``student,url``.

    Raises:
        ConfigError: the data folder or the SQLite file cannot be used (:func:`prepare_places`).
        DatabaseError: the database cannot be opened.
        harness.server.store.UnknownStudents: a name of ``only`` is no student (nothing is printed or revoked).
    """
    prepare_places(contest)
    engine = open_database(contest.database)
    try:
        rows = store.issue_links(engine, contest, url, only=only)
    finally:
        engine.dispose()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "url"])
    writer.writerows(rows)
    return len(rows)


def serve(path: Path, host: str, port: int, *, log_level: str = "warning") -> None:
    """Run the server until Ctrl-C / SIGTERM (the ladder stops its matches; they are played again next time).

    Raises:
        ConfigError: a mistake in the contest file, a path of it that cannot be used, or an unreachable
            ``[ladder] cluster``.
        DatabaseError: the database cannot be opened.
        OSError: the address cannot be listened on.
    """
    import uvicorn

    from harness.server.app import Server, create_app

    contest = load_contest(path)
    prepare_places(contest)
    engine = open_database(contest.database)
    store.sync_roster(engine, contest)
    server = Server(contest, engine)
    ladder = server.ladder
    assert ladder is not None
    try:
        ladder.start()  # its own process (harness.server.ladderproc), behind the pages for the CPU
    except LadderStartError as exc:
        if exc.cluster:  # the Dask cluster of [ladder] cluster cannot be reached
            raise ConfigError(contest.path, "[ladder] cluster", str(exc)) from None
        raise ConfigError(contest.path, None, f"the ladder did not start: {exc}") from None
    try:
        print(started_line(contest, host, port), flush=True)
        problem = build_problem(contest.sandbox)
        if problem:
            print(f"harness serve: warning: {BUILDS_OFF} ({visible(problem)})", file=sys.stderr, flush=True)
        uvicorn.run(create_app(server), host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5,
                    lifespan="on")
    finally:
        ladder.stop()  # idempotent: the lifespan stops it first
