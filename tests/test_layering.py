"""The import directions between the packages, checked on the source (ast), so a slip fails CI.

- ``harness/engine`` is pure: no sockets, codecs, clocks, processes or threads,
  and nothing from ``protocol`` or the rest of ``harness`` but the root exception class
  (``harness.errors``, a leaf module).
- ``protocol`` imports nothing from ``harness``.
- ``bots`` import ``protocol`` (and other ``bots`` modules) and, of ``harness``,
  only the engine's pure hand evaluator.
- ``harness/specs.py`` and ``harness/deals.py`` (values every layer uses) import only the engine;
  ``harness/history`` (hand histories) imports only those, the engine and ``protocol``: the
  engine knows no file format, and nothing about one match or many reaches down into them.
- ``harness/match`` (one match) imports nothing from ``harness/tournament``
  (many matches): the arrows point one way.
- ``harness/report`` (reports of an output directory) sits on top: neither
  ``harness/tournament`` nor ``harness/match`` imports it.
- ``harness/rl`` (the PettingZoo/Gymnasium environments, an optional extra) sits on top: nothing else in
  ``harness`` imports it, nor ``pettingzoo``/``gymnasium``, but the CLI's ``bench env`` (lazily).
- ``harness/play`` (the human seat's interfaces, ``harness play``/``watch``) sits on top: only the CLI and the
  contest server (its games in the browser) import it.
- ``examples`` (runnable examples: the masked-PPO training script and the bot playing its weights) sit above
  everything: they may import ``harness`` (its ``rl`` extra included), ``bots`` and ``protocol``; nothing in
  ``harness``, ``protocol``, ``bots`` or ``tools`` imports them.
- ``dask`` / ``distributed`` (an optional extra) are imported by the dask
  backend alone (``harness/tournament/cluster.py``).
- ``harness_core`` (the native core, the crate in ``native/``) is imported by ``harness/engine/native.py``
  alone: the rest of the harness reaches it through the engine (``harness/rl/native_vector.py`` takes its
  ``NativeTables`` there), bots never (they have the evaluator), nor ``protocol``; the engine's package
  imports it only on request (the engine works without it). Its Rust has no ``unsafe``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

ENGINE_FORBIDDEN = ("zmq", "msgpack", "orjson", "protocol", "time", "datetime", "socket", "subprocess",
                    "threading", "multiprocessing", "asyncio", "signal")
BOTS_MAY_USE_FROM_HARNESS = ("harness.engine.evaluator",)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, anywhere in it (functions included), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def files(package: str) -> list[Path]:
    paths = sorted((ROOT / package).rglob("*.py"))
    assert paths, f"no Python files under {package}/"
    return paths


def _top(module: str) -> str:
    return module.split(".")[0]


@pytest.mark.parametrize("path", files("harness/engine"), ids=lambda p: p.name)
def test_the_engine_is_pure(path: Path) -> None:
    for line, module in imported_modules(path):
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        assert _top(module) not in ENGINE_FORBIDDEN, where
        if _top(module) == "harness":
            assert module.startswith("harness.engine") or module == "harness.errors", where


@pytest.mark.parametrize("path", files("protocol"), ids=lambda p: p.name)
def test_protocol_imports_nothing_from_harness(path: Path) -> None:
    for line, module in imported_modules(path):
        assert _top(module) != "harness", f"{path.relative_to(ROOT)}:{line} imports {module}"


@pytest.mark.parametrize("path", files("bots"), ids=lambda p: p.name)
def test_bots_use_only_the_protocol_and_the_evaluator(path: Path) -> None:
    for line, module in imported_modules(path):
        if _top(module) == "harness":
            assert module in BOTS_MAY_USE_FROM_HARNESS, f"{path.relative_to(ROOT)}:{line} imports {module}"


LOWER_FLOORS = ("harness.errors", "harness.engine", "harness.specs", "harness.deals")


@pytest.mark.parametrize("path", [ROOT / "harness/specs.py", ROOT / "harness/deals.py", *files("harness/history")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_values_and_histories_sit_below_the_match(path: Path) -> None:
    allowed = LOWER_FLOORS + (("harness.history",) if "history" in path.parts else ())
    for line, module in imported_modules(path):
        if _top(module) == "harness":
            assert module.startswith(allowed), f"{path.relative_to(ROOT)}:{line} imports {module}"


@pytest.mark.parametrize("path", files("harness/match"), ids=lambda p: p.name)
def test_a_match_knows_nothing_of_tournaments(path: Path) -> None:
    for line, module in imported_modules(path):
        assert not module.startswith("harness.tournament"), f"{path.relative_to(ROOT)}:{line} imports {module}"


NOT_PLAY = [p for p in files("harness") if p.relative_to(ROOT).parts[1] not in ("play", "cli", "server")]


@pytest.mark.parametrize("path", NOT_PLAY, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_cli_and_the_server_use_the_play_interfaces(path: Path) -> None:
    for line, module in imported_modules(path):
        assert not module.startswith("harness.play"), f"{path.relative_to(ROOT)}:{line} imports {module}"


@pytest.mark.parametrize("path", files("harness/tournament") + files("harness/match"), ids=lambda p: p.name)
def test_reports_sit_on_top(path: Path) -> None:
    """harness/report reads what tournaments and matches leave; neither imports it (nor the CLI)."""
    for line, module in imported_modules(path):
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        assert not module.startswith(("harness.report", "harness.cli")), where


@pytest.mark.parametrize("path", files("harness") + files("protocol") + files("bots") + files("tools"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_sit_on_top(path: Path) -> None:
    for line, module in imported_modules(path):
        assert _top(module) != "examples", f"{path.relative_to(ROOT)}:{line} imports {module}"


DASK_MODULES = ("harness/tournament/cluster.py",)


@pytest.mark.parametrize("path", files("harness") + files("protocol") + files("bots"), ids=lambda p: p.name)
def test_only_the_dask_backend_imports_dask(path: Path) -> None:
    if path.relative_to(ROOT).as_posix() in DASK_MODULES:
        return
    for line, module in imported_modules(path):
        assert _top(module) not in ("dask", "distributed"), f"{path.relative_to(ROOT)}:{line} imports {module}"


def test_the_checker_sees_imports_inside_functions(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    import zmq\n    from harness.match.referee import play_match\n")
    assert imported_modules(sample) == [(2, "zmq"), (3, "harness.match.referee")]


RL_USERS = ("harness/cli/bench.py", "harness/cli/lbr.py")  # `harness bench env`, `harness lbr`: inside the command


@pytest.mark.parametrize("path", [p for p in files("harness") if "rl" not in p.relative_to(ROOT).parts[1:2]],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_in_the_harness_imports_the_rl_extra(path: Path) -> None:
    if path.relative_to(ROOT).as_posix() in RL_USERS:
        return
    for line, module in imported_modules(path):
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        assert not module.startswith("harness.rl") and _top(module) not in ("pettingzoo", "gymnasium"), where


@pytest.mark.parametrize("package", ["match", "tournament", "history", "cli", "play", "engine", "host"])
def test_a_package_docstring_that_lists_its_modules_lists_them_all(package: str) -> None:
    """The module map a newcomer reads first stays true: every module of the folder is named in it."""
    folder = ROOT / "harness" / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    named = set(re.findall(r"``(\w+)``", doc))
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    assert modules <= named, f"harness/{package}/__init__.py does not name {sorted(modules - named)}"


@pytest.mark.parametrize("path", [p for p in files("harness") if p.relative_to(ROOT).parts[1] != "cli"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_cli_is_the_top_floor(path: Path) -> None:
    """Nothing in harness imports harness.cli: commands call the library, never the other way."""
    for line, module in imported_modules(path):
        assert not module.startswith("harness.cli"), f"{path.relative_to(ROOT)}:{line} imports {module}"


@pytest.mark.parametrize("path", files("harness/host"), ids=lambda p: p.name)
def test_hosting_a_bot_knows_nothing_of_the_match(path: Path) -> None:
    """harness/host (processes, sandbox, limits) sits below harness/match: the referee uses it, never back."""
    for line, module in imported_modules(path):
        assert not module.startswith(("harness.match", "harness.tournament", "harness.history")), \
            f"{path.relative_to(ROOT)}:{line} imports {module}"


NATIVE_CORE = "harness_core"
NATIVE_DOOR = ("harness/engine/native.py",)


@pytest.mark.parametrize("path", files("harness") + files("protocol") + files("bots"),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_engine_opens_the_native_core(path: Path) -> None:
    if path.relative_to(ROOT).as_posix() in NATIVE_DOOR:
        return
    for line, module in imported_modules(path):
        where = f"{path.relative_to(ROOT)}:{line} imports {module}"
        assert _top(module) != NATIVE_CORE, where
        if path.relative_to(ROOT).parts[0] in ("bots", "protocol") or path.name == "__init__.py":
            assert module != "harness.engine.native", where


def test_the_native_core_has_no_unsafe_code() -> None:
    sources = sorted((ROOT / "native" / "src").glob("*.rs"))
    assert sources, "no Rust sources under native/src"
    assert "#![forbid(unsafe_code)]" in (ROOT / "native" / "src" / "lib.rs").read_text(encoding="utf-8")
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//")[0]
            assert not re.search(r"\bunsafe\b", code), f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
