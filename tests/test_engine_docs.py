"""The engine's documented examples run: module doctests and docs/developers.md's "## Engine" section."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

import harness.engine.evaluator
import harness.engine.pots
import harness.engine.state

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "developers.md"


@pytest.mark.parametrize("module", [harness.engine.evaluator, harness.engine.pots, harness.engine.state])
def test_module_doctests(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_the_developers_guide_engine_section_runs() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert "\n## Engine\n" in text
    section = text.split("\n## Engine\n", 1)[1].split("\n## ", 1)[0]
    test = doctest.DocTestParser().get_doctest(section, {}, "docs/developers.md ## Engine", str(GUIDE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert test.examples and runner.summarize(verbose=False).failed == 0
