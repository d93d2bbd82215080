"""The CLI answers ``--version``, ``-h``, ``COMMAND -h`` and usage mistakes without importing the heavy
libraries (numpy, the web server, the database, the cluster...): on a busy machine each costs seconds.

One Python process runs every case in turn (as ``harness`` would, through the app's own ``main``) and
says, for each, which listed module it brought into ``sys.modules``; nothing is timed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Imported only where a command does its work (see harness/cli/__init__.py).
HEAVY = ("numpy", "scipy", "starlette", "sqlalchemy", "dask", "distributed", "rich", "jinja2", "uvicorn",
         "plotly", "pandas", "openskill", "psycopg", "alembic", "markdown_it", "gymnasium", "pettingzoo",
         "harness.server", "harness.rl")

#: The root, every command's help, and one-line usage mistakes (exit status 2) of the commands.
CASES = [["--version"], ["-h"], ["nosuch"], ["match", "--bogus"], ["match", "--bot", "a=b", "--hands", "x"],
         ["run"], ["run", "/no/such/file.toml"], ["plan", "/no/such/file.toml"],
         ["leaderboard", "/no/such/dir"], ["report", "/no/such/dir"], ["replay", "/no/such/file.jsonl"],
         ["watch", "/no/such/dir"], ["watch", ".", "--port", "70000"], ["serve"], ["sprt", "--bot", "a=b"],
         ["check-bot"], ["play", "--seats", "x"], ["bench", "nosuch"]]

PROBE = textwrap.dedent("""
    import contextlib, io, json, sys
    from typer.main import get_command
    from harness.cli import app

    heavy, cases = json.loads(sys.argv[1])
    group = get_command(app)
    helps = [[name, "-h"] for name in group.commands]
    helps += [[name, sub, "-h"] for name, cmd in group.commands.items() for sub in getattr(cmd, "commands", {})]
    found = {}
    for argv in helps + cases:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                app(argv)
            except SystemExit:
                pass
        new = [m for m in heavy if m in sys.modules and m not in [x for v in found.values() for x in v]]
        found[" ".join(argv)] = new
    print(json.dumps(found))
""")


def test_help_version_and_usage_errors_import_no_heavy_module() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps([HEAVY, CASES])], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert len(found) > len(CASES) + 10, found  # every command's -h was run too
    assert {argv: mods for argv, mods in found.items() if mods} == {}
