"""``python -m harness.cli``: the ``harness`` command."""

from harness.cli import app

app()
