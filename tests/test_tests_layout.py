"""The tests' own layout: no test module imports another (what several share lives in *_helpers.py or
conftest.py), and a helper module holds no tests."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _imported(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # imports inside functions too
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def test_no_test_module_imports_another() -> None:
    bad = [f"{p.name}:{line} imports {module}" for p in sorted(HERE.glob("*.py"))
           for line, module in _imported(p) if module.startswith("tests.test_") or module == "tests.conftest"]
    assert bad == [], "move what is shared to a tests/*_helpers.py module (or a conftest.py fixture)"


def test_helper_modules_hold_no_tests() -> None:
    bad = [f"{p.name}: {node.name}" for p in sorted(HERE.glob("*_helpers.py"))
           for node in ast.parse(p.read_text(encoding="utf-8")).body
           if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name.lower().startswith("test")]
    assert bad == []
