"""A throw-away PostgreSQL cluster for the server's tests (:class:`harness.bench.postgres.TemporaryPostgres`:
Debian's ``postgresql``, ``initdb`` in a temporary folder), or a loud skip where it cannot be made."""

from __future__ import annotations

from typing import NoReturn

from harness.bench.postgres import PostgresUnavailable, TemporaryPostgres
from tests.skip_helpers import skip_loudly as skip_loudly_with


def skip_loudly(reason: str) -> NoReturn:
    message = (f"POSTGRESQL TESTS NOT RUN: {reason}. Install Debian's postgresql (apt-get install -y postgresql), "
               "as make test does when run as root.")
    skip_loudly_with(message)


class Cluster(TemporaryPostgres):
    """A running cluster for a module's tests; :meth:`database` makes a fresh, empty database and returns its URL."""

    def __init__(self) -> None:
        try:
            super().__init__()
        except PostgresUnavailable as exc:
            skip_loudly(str(exc))
