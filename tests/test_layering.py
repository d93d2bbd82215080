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
  and, for the referee's hot path (ZMTP framing, reply decoding), ``harness/match/native_wire.py``
  alone: the rest of the harness reaches it through them (``harness/rl/native_vector.py`` takes its
  ``NativeTables`` there), bots never (they have the evaluator), nor ``protocol``; the engine's package
  imports it only on request (the engine works without it). Its Rust has no ``unsafe``.
- Outside the CLI, an import inside a function is listed with its reason in docs/developers.md
  ("Imports inside functions"); the rest sit at the top of their module.
- Only the CLI and the contest server print or write to stdout/stderr (and the few modules of
  :data:`MAY_PRINT`, each with its reason): library code reports through what it is handed.
- No module imports another module's ``_``-prefixed name: what modules share is public (and documented);
  a private module is imported only by its own package (:data:`PRIVATE_MODULES`, each with its reason).
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
NATIVE_DOOR = ("harness/engine/native.py", "harness/match/native_wire.py")


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


def imports_inside_functions(path: Path) -> list[tuple[int, str]]:
    """The modules a file imports inside its functions, with their lines (``from harness.rl import features``
    names ``harness.rl.features``, the module it brings)."""
    found = []
    for func in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                found += [(node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    where = ROOT / sub.replace(".", "/")
                    is_module = where.with_suffix(".py").exists() or where.is_dir()
                    found.append((node.lineno, sub if is_module else node.module))
    return sorted(set(found))


def inner_import_table() -> dict[str, set[str]]:
    """docs/developers.md's table "Imports inside functions": file -> the modules it may import inside a function."""
    text = (ROOT / "docs" / "developers.md").read_text(encoding="utf-8")
    section = text.split("## Imports inside functions", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.findall(r"^\|(.+)\|$", section, flags=re.M):
        cells = row.split("|")
        if len(cells) < 3 or not cells[0].strip().startswith("`"):
            continue
        for path in re.findall(r"`([^`]+)`", cells[0]):
            table.setdefault(path, set()).update(re.findall(r"`([^`]+)`", cells[1]))
    assert table, "docs/developers.md has no table under 'Imports inside functions'"
    return table


INNER_SCOPE = [p for p in files("harness") + files("protocol") + files("bots")
               if p.relative_to(ROOT).parts[:2] != ("harness", "cli")]


@pytest.mark.parametrize("path", INNER_SCOPE, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_inside_a_function_has_its_reason(path: Path) -> None:
    """Outside the CLI (which imports inside commands to keep ``harness --help`` fast), an import inside a
    function hides what a module needs: each one is listed, with its reason, in docs/developers.md."""
    allowed = inner_import_table().get(path.relative_to(ROOT).as_posix(), set())
    for line, module in imports_inside_functions(path):
        assert module in allowed, (f"{path.relative_to(ROOT)}:{line} imports {module} inside a function: move it "
                                   "to the top, or add it with its reason to docs/developers.md "
                                   "('Imports inside functions')")


def test_the_table_of_imports_inside_functions_lists_only_real_ones() -> None:
    for path, modules in inner_import_table().items():
        assert (ROOT / path).is_file(), f"docs/developers.md lists {path}, which does not exist"
        real = {module for _, module in imports_inside_functions(ROOT / path)}
        assert modules <= real, f"docs/developers.md lists {sorted(modules - real)} for {path}: not imported there"


def test_the_inner_import_checker_names_the_module_brought(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\ndef f():\n    import zmq\n    from harness.rl import features\n"
                      "    from harness.engine.cards import cards_str\n")
    assert imports_inside_functions(sample) == [(4, "zmq"), (5, "harness.rl.features"), (6, "harness.engine.cards")]


#: The modules outside the CLI and the server that print or touch stdout/stderr, each with its reason. Everything
#: else reports through what it is handed (a :class:`harness.tournament.voice.Voice`, a callback, ``logging``).
MAY_PRINT = {
    "harness/tournament/voice.py": "StderrVoice, the default channel when the caller hands none",
    "harness/tournament/cluster.py": "the local:N cluster's child tells its parent the scheduler's address on stdout",
    "harness/rl/aec.py": "PettingZoo's render_mode='human' prints the table (its API)",
    "harness/play/terminal.py": "the terminal table is a person's interface: it asks whether stdout is a terminal",
    "harness/rl/bot.py": "as_bot runs as a bot process, whose stderr is its log: it says there it leaves another game",
}
_STREAMS = ("stdout", "stderr", "__stdout__", "__stderr__")


def output_uses(path: Path) -> list[tuple[int, str]]:
    """Every ``print(...)`` call and every use of ``sys.stdout``/``sys.stderr`` in a file, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append((node.lineno, "print()"))
        elif (isinstance(node, ast.Attribute) and node.attr in _STREAMS and isinstance(node.value, ast.Name)
              and node.value.id == "sys"):
            found.append((node.lineno, f"sys.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and any(a.name in _STREAMS for a in node.names):
            found.append((node.lineno, "from sys import stdout/stderr"))
    return sorted(found)


@pytest.mark.parametrize("path", [p for p in files("harness") if p.relative_to(ROOT).parts[1] not in ("cli", "server")],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_cli_and_the_server_print(path: Path) -> None:
    """Library code does not write to the terminal: the CLI (and the contest server, a program of its own) says
    what happened, so every stderr line has one style (``harness COMMAND: ...``)."""
    if path.relative_to(ROOT).as_posix() in MAY_PRINT:
        return
    for line, what in output_uses(path):
        raise AssertionError(f"{path.relative_to(ROOT)}:{line} uses {what}: report through a Voice, a callback or "
                             "logging handed in by the CLI (or add the module to MAY_PRINT with its reason)")


def test_the_print_allow_list_is_needed() -> None:
    for name in MAY_PRINT:
        assert output_uses(ROOT / name), f"{name} no longer prints: take it off MAY_PRINT"


def test_the_output_checker_sees_prints_and_streams(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import sys\nprint('x')\nsys.stderr.write('y')\nconsole.print('z')\nw = sys.stdout\n")
    assert output_uses(sample) == [(2, "print()"), (3, "sys.stderr"), (5, "sys.stdout")]


#: Private modules that others import, with the reason: only these, and only from where the reason says.
PRIVATE_MODULES = {
    "bots._cards": "the example bots' shared card helpers: private to the bots package (imported by its bots only)",
    "typer._click": "typer's vendored click, whose exceptions the CLI's boundary catches (a library's layout)",
}


def private_imports(path: Path) -> list[tuple[int, str]]:
    """Every ``from M import _name`` and every import of a module with a ``_``-prefixed part, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
        found += [(node.lineno, name) for name in names
                  if any(part.startswith("_") and not part.startswith("__") for part in name.split("."))]
    return found


SOURCES = ("harness", "protocol", "bots", "examples", "tools")


@pytest.mark.parametrize("path", [p for where in SOURCES for p in files(where)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_private_names(path: Path) -> None:
    for line, name in private_imports(path):
        if name in PRIVATE_MODULES:
            package = name.split(".")[0]
            assert package != "bots" or path.relative_to(ROOT).parts[0] == "bots", f"{path}:{line} imports {name}"
            continue
        raise AssertionError(f"{path.relative_to(ROOT)}:{line} imports {name}: make it public (and documented) "
                             "where it is defined, or keep it in one module")


def test_the_private_import_checker_sees_names_and_modules(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from a.b import _c, d, __version__\nimport x._y\nfrom p._q import r\n")
    assert private_imports(sample) == [(1, "a.b._c"), (2, "x._y"), (3, "p._q")]
