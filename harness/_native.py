"""The compiled hot path: which modules have a compiled twin, and when it may run.

``setup.py`` compiles the modules of :data:`COMPILED` with Cython (the same
``.py`` source, plain Python semantics: nothing is written twice) into
extension modules beside them, when Cython and a C compiler are at hand, and
records in ``harness/_native.sha256`` the SHA-256 of the source each one was
built from. Without a compiler the install still succeeds and every module
runs from its ``.py``.

Python imports an extension module in preference to the ``.py`` beside it,
so a compiled module would keep running after its source was edited (an
editable install is the usual case). :func:`install`, run when ``harness`` is
imported, puts a finder first on ``sys.meta_path`` that checks each of these
modules as it is imported: if its extension was built from another source
(or from an unknown one), the module is imported from its ``.py`` instead.
``make native`` (or ``pip install -e .``) rebuilds what changed.
``HARNESS_PURE_PYTHON=1`` in the environment makes every one of them run
from its ``.py`` (what a machine without a compiler runs; the tests use it to
check both paths play the same).

Run as a script, prints the sources of :data:`COMPILED` (the Makefile's list).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

# No pathlib or importlib.machinery here: every process that imports harness (bots using the
# evaluator too) imports this module first, and those cost milliseconds of start-up.

#: The modules of the referee's hot path that setup.py compiles, by import name.
COMPILED: tuple[str, ...] = (
    "harness.engine.cards",
    "harness.engine.evaluator",
    "harness.engine.pots",
    "harness.engine.state",
    "harness.match.clock",
    "harness.match.connection",
    "harness.match.handrecord",
    "harness.match.referee",
    "harness.match.wire",
)
#: Set to ``1`` to run every module of :data:`COMPILED` from its Python source.
PURE_ENV = "HARNESS_PURE_PYTHON"

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: ``<module name> <sha256 of the source its extension was built from>``, one a line (written by setup.py).
MANIFEST = os.path.join(_ROOT, "harness", "_native.sha256")


def source(name: str) -> str:
    """The path of the ``.py`` of module ``name`` (one of :data:`COMPILED`)."""
    return os.path.join(_ROOT, *name.split(".")) + ".py"


def digest(path: str) -> str:
    """SHA-256 (hex) of a file's bytes.

    Raises:
        OSError: the file cannot be read.
    """
    import hashlib  # here: most imports of harness never hash (nothing compiled, or no module of COMPILED)

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def extension(name: str) -> str | None:
    """The path of the extension module built for ``name`` beside its source, or None."""
    import importlib.machinery

    base = source(name)[: -len(".py")]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if os.path.exists(base + suffix):
            return base + suffix
    return None


def read_manifest(path: str | None = None) -> dict[str, str]:
    """The manifest's ``{module: source sha256}`` (empty if missing or unreadable)."""
    try:
        with open(path or MANIFEST, encoding="ascii") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    return dict(line.split(" ", 1) for line in lines if line.count(" ") == 1)


def write_manifest(built: dict[str, str], path: str | None = None) -> None:
    """Record ``{module: source sha256}`` for the extensions just built, keeping the other entries."""
    entries = read_manifest(path)
    entries.update(built)
    with open(path or MANIFEST, "w", encoding="ascii") as f:
        f.write("".join(f"{k} {entries[k]}\n" for k in sorted(entries)))


def fresh(name: str, manifest: dict[str, str] | None = None) -> bool:
    """True if ``name`` has an extension built from its current source (so it may run compiled)."""
    if extension(name) is None:
        return False
    built = (read_manifest() if manifest is None else manifest).get(name)
    try:
        return built is not None and built == digest(source(name))
    except OSError:
        return False


def stale() -> list[str]:
    """The modules whose extension exists but was built from another source (they run from ``.py``)."""
    manifest = read_manifest()
    return [n for n in COMPILED if extension(n) is not None and not fresh(n, manifest)]


class SourceFirst:
    """A ``sys.meta_path`` finder: a module of :data:`COMPILED` that must not run compiled imports from its ``.py``.

    Each module is judged once, as it is imported: all of them with
    ``HARNESS_PURE_PYTHON=1``, else those whose extension is stale (hashing
    only their source). Others are left to the normal import (the extension).
    """

    def __init__(self, pure: bool) -> None:
        self.pure = pure
        self._manifest: dict[str, str] | None = None

    def find_spec(self, fullname: str, path: object = None, target: ModuleType | None = None) -> object:
        if fullname not in COMPILED:
            return None
        if not self.pure:
            if extension(fullname) is None:
                return None  # nothing compiled: the normal import finds the .py
            if self._manifest is None:
                self._manifest = read_manifest()
            if fresh(fullname, self._manifest):
                return None
        import importlib.util

        return importlib.util.spec_from_file_location(fullname, source(fullname))


def install() -> SourceFirst:
    """Put the :class:`SourceFirst` finder first on ``sys.meta_path`` (once); return it.

    Called by ``harness/__init__.py``, before any module of :data:`COMPILED` is imported.
    """
    for finder in sys.meta_path:
        if isinstance(finder, SourceFirst):
            return finder
    finder = SourceFirst(os.environ.get(PURE_ENV) == "1")
    sys.meta_path.insert(0, finder)
    return finder


def compiled() -> list[str]:
    """The modules of :data:`COMPILED` imported in this process that run compiled (from an extension)."""
    return [
        name for name in COMPILED
        if name in sys.modules and not str(getattr(sys.modules[name], "__file__", "")).endswith(".py")
    ]


if __name__ == "__main__":
    print(" ".join(os.path.relpath(source(n), _ROOT) for n in COMPILED))
