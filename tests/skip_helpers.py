"""One way to skip a test that cannot run here: loudly (a warning and a line the run shows), never quietly."""

from __future__ import annotations

import warnings
from typing import NoReturn

import pytest


def skip_loudly(message: str, *, module: bool = False) -> NoReturn:
    """Skip the calling test (with ``module``, the whole module being collected) with ``message`` as a warning,
    a ``*** ... ***`` line and the skip reason."""
    warnings.warn(message, stacklevel=2)
    print(f"\n*** {message} ***\n")
    pytest.skip(message, allow_module_level=module)


#: Why the native core's tests cannot run: ``harness_core`` is built by the Makefile, not by a bare pip install.
NATIVE_CORE_MISSING = ("the native core (harness_core) is not built: `make install` builds native/ with cargo "
                       "(Rust 1.85+); by hand: pip install ./native")


def native_core_missing() -> bool:
    """True when ``harness_core`` cannot be imported (``make install`` / ``make test`` always build it)."""
    try:
        import harness_core  # noqa: F401
    except ImportError:
        return True
    return False
