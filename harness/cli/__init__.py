"""Command-line interface (``harness``): parses arguments, calls the library, prints.

Every command is a thin wrapper; the work lives in the modules it imports. Imports are deferred for
speed (a busy machine pays seconds per heavy library): this package and ``common`` import only typer at
the top; each command imports what it runs inside its body, after its usage checks where those need
nothing else (``watch`` checks its folder before the web server's imports); ``--version`` reads
:data:`harness.__version__` rather than package metadata; and :mod:`harness.tournament.ratings` imports
numpy inside the bootstrap. So ``--version``, ``-h``, ``COMMAND -h`` and usage errors import none of
numpy, starlette, uvicorn, sqlalchemy, dask, rich, jinja2... (``tests/test_cli_imports.py``). One module
per command or group: ``run`` (run, plan), ``report`` (leaderboard, report), ``match``, ``replay``,
``checkbot`` (check-bot), ``play`` (play, watch), ``sprt``, ``lbr``, ``serve`` (serve, submit) and ``bench``.
What they share has its own modules: ``common`` (the app, the steps of a match's commands), ``voice`` (stdout
and the one style of stderr, :func:`harness.cli.voice.say`), ``boundary`` (the one error boundary: error
classes to exit statuses) and ``options`` (the shared options, declared once, and their conversion).
Nothing else in ``harness`` imports this package: the CLI is the top floor. ``__main__`` runs it as
``python -m harness.cli``.
"""

import importlib

from harness.cli.common import app

__all__ = ["app"]

#: The command modules, in the order ``harness --help`` lists their commands (importing one registers them).
COMMAND_MODULES = ("run", "report", "match", "replay", "checkbot", "play", "sprt", "lbr", "serve", "bench")
for _module in COMMAND_MODULES:
    importlib.import_module(f"harness.cli.{_module}")
