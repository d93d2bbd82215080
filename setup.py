"""Build step of the compiled hot path (pyproject.toml holds everything else).

The modules of ``harness._native.COMPILED`` are plain Python. When Cython
and a C compiler are at hand, each is also compiled (Cython, from the same
``.py``, with Python's semantics: annotations are not types) into an
extension module beside it, which Python then imports instead. Each step may
fail without failing the install: no Cython, a module Cython refuses, no C
compiler or a compile error leave that module running from its ``.py``.
Every extension built is recorded with the SHA-256 of its source in
``harness/_native.sha256``; at import, ``harness._native`` runs a module from
its ``.py`` when its extension was built from another source. A module whose
extension is already built from its current source is not rebuilt.

``HARNESS_PURE_PYTHON=1`` at build time builds nothing (and at run time runs
everything from source).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _load_native():  # by path: importing the package would run its finder before the build
    spec = importlib.util.spec_from_file_location("_harness_native", ROOT / "harness" / "_native.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


native = _load_native()


def _note(text: str) -> None:
    print(f"harness: {text}", file=sys.stderr)


def _extensions() -> list[Extension]:
    """One Cython extension per module of COMPILED that is not built from its current source yet."""
    if os.environ.get(native.PURE_ENV) == "1":
        _note(f"{native.PURE_ENV}=1: nothing compiled; every module runs from its .py")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _note("Cython is not installed: nothing compiled; every module runs from its .py")
        return []
    os.chdir(ROOT)  # cythonize names the C files by the relative paths given
    built = native.read_manifest()
    out = []
    for name in native.COMPILED:
        src = native.source(name)
        sha = native.digest(src)
        if native.extension(name) is not None and built.get(name) == sha:
            continue  # its extension is this source's: nothing to do
        try:
            [ext] = cythonize(
                [Extension(name, [os.path.relpath(src, ROOT)])],
                compiler_directives={
                    "language_level": 3,
                    "binding": True,  # functions keep their signatures and docstrings (inspect, typer)
                    "annotation_typing": False,  # annotations stay documentation: Python's semantics
                    "embedsignature": True,
                },
                quiet=True,
                force=True,
            )
        except Exception as exc:  # noqa: BLE001 - a module Cython refuses runs from its .py
            _note(f"{name} not compiled ({type(exc).__name__}: {exc}); it runs from its .py")
            continue
        ext.optional = True  # cythonize's copy drops it: a module that fails to build is not copied in place
        ext.source_sha256 = sha
        out.append(ext)
    return out


class BuildExt(build_ext):
    """``build_ext`` that records, for each extension that did build, the SHA-256 of its source."""

    def run(self) -> None:
        self._built: dict[str, str] = {}
        super().run()
        if self._built:
            native.write_manifest(self._built)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 - no C compiler (OSError), no Python.h, a compile error
            _note(f"{ext.name} not compiled ({type(exc).__name__}: {exc}); it runs from its .py")
            return
        self._built[ext.name] = ext.source_sha256


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildExt},
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
