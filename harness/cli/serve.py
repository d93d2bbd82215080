"""``harness serve`` and ``harness submit``: the contest server, and a submission from the command line."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli.boundary import EXIT_FAILED, UsageError
from harness.cli.common import app
from harness.cli.voice import echo, usage


@app.command()
def serve(
    contest: Path = typer.Argument(..., help="The contest file (TOML)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
    links: bool = typer.Option(False, "--links", help="Print CSV student,url of new login links and exit "
                               "(earlier links stop working)."),
    student: list[str] = typer.Option([], "--student", help="With --links: only these students' links (an unknown "
                                      "name: nothing is issued, exit status 2)."),
    url: str = typer.Option("", "--url", help="With --links: the address students use (default http://HOST:PORT)."),
) -> None:
    """Run a contest server: submissions, admission checks, a ladder that never stops, live pages.

    Runs until Ctrl-C (exit status 130) or SIGTERM (143); the ladder's running matches are played again next time.
    """
    try:
        from harness.server.contest import load_contest
        from harness.server.serve import base_url, print_links
        from harness.server.serve import serve as run_server
        from harness.server.store import UnknownStudents
    except ImportError as exc:
        raise usage("serve", f"the server needs its libraries: make server, or pip install --config-settings "
                     f"editable_mode=compat -e '.[server]' in the harness's folder "
                     f"({exc})") from None
    if not 0 < port < 65536:
        raise UsageError(f"--port must be 1..65535, got {port}")
    if not links:  # options of --links alone would be ignored by a server that then runs for weeks
        for given, name in ((student, "--student"), (url, "--url")):
            if given:
                raise UsageError(f"{name} goes with --links (it chooses which login links to print)")
    try:  # a bad contest file (2) and an unreachable database (1) are the boundary's
        if links:
            cfg = load_contest(contest)
            try:
                print_links(cfg, url or base_url(host, port), only=tuple(student))
            except UnknownStudents as exc:
                raise UsageError(f"--student {', '.join(exc.names)}: no such student in {contest} "
                                 "(its [[students]]); no link was issued") from None
            return
        run_server(contest, host, port)
    except OSError as exc:
        raise usage("serve", f"cannot start: {exc.strerror or exc}", code=EXIT_FAILED) from None


@app.command()
def submit(
    path: Path = typer.Argument(..., help="The bot: a folder, a .zip, a .tar.gz or a single file."),
    server: str = typer.Option(..., "--server", help="The contest server, e.g. http://lab-server:8000"),
    token: str = typer.Option(..., "--token", help="Your token (the last part of your login link)."),
    command: str = typer.Option("", "--command", help="How to start the bot (default: its bot.toml)."),
    build: str = typer.Option("", "--build", help="A build command run once in the sandbox (default: bot.toml)."),
) -> None:
    """Submit a version to a contest server and wait for its admission check (exit 0 admitted, 1 refused)."""
    from harness.server.client import submit as send

    if not path.exists():
        raise UsageError(f"{path} does not exist")
    token = token.rsplit("/login/", 1)[-1]  # the whole login link works too
    ok = send(server, token, path, command, build, say=echo)  # its SubmitError: the boundary's (exit status 2)
    raise typer.Exit(0 if ok else 1)
