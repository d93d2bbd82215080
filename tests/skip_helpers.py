"""One way to skip a test that cannot run here: loudly (a warning and a line the run shows), never quietly."""

from __future__ import annotations

import warnings
from typing import NoReturn

import pytest


def skip_loudly(message: str) -> NoReturn:
    """Skip the calling test with ``message`` as a warning, a ``*** ... ***`` line and the skip reason."""
    warnings.warn(message, stacklevel=2)
    print(f"\n*** {message} ***\n")
    pytest.skip(message)
