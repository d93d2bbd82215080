"""Every exception class the harness defines derives from ``harness.errors.HarnessError`` (one root)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import harness
from harness.errors import HarnessError

# Optional extras: a module that needs one is checked where the extra is installed.
OPTIONAL = ("dask", "distributed", "pettingzoo", "gymnasium", "playwright")


def _harness_modules() -> list[object]:
    found = []
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name.endswith(".__main__"):  # runs the program when imported
            continue
        try:
            found.append(importlib.import_module(info.name))
        except ImportError as exc:
            if not (exc.name or "").startswith(OPTIONAL):
                raise
    return found


def test_every_harness_exception_class_has_the_one_root() -> None:
    classes = {
        cls
        for module in _harness_modules()
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseException) and cls.__module__.startswith("harness.")
    }
    assert len(classes) >= 20, sorted(c.__qualname__ for c in classes)
    # An interrupt (Ctrl-C, SIGTERM) is no error: it stays a KeyboardInterrupt, which `except Exception` never catches.
    strays = sorted(f"{c.__module__}.{c.__qualname__}" for c in classes
                    if not issubclass(c, (HarnessError, KeyboardInterrupt)))
    assert strays == [], f"exception classes outside HarnessError: {strays}"


def test_the_standard_bases_are_kept_for_callers_that_catch_them() -> None:
    from harness.engine.errors import IllegalActionError
    from harness.tournament.config import ConfigError

    assert issubclass(IllegalActionError, ValueError) and issubclass(ConfigError, ValueError)
