"""The docs a clone can read: README is a front page, every link and anchor resolves, nothing points outside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "protocol" / "PROTOCOL.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file (lowercase, punctuation dropped, spaces as hyphens)."""
    found = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^#{1,6} (.*)", line)
        if m:
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found


def test_readme_is_a_front_page_starting_with_the_two_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; guides live in docs/"
    block = lines[2:6]
    assert block[0] == "```sh" and block[1].startswith("make league") and block[2].startswith("make test"), block


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        assert dest.exists(), f"{doc.relative_to(ROOT)}: link to {target} (no such file)"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{doc.relative_to(ROOT)}: link to {target} (no such heading)"


def _sources() -> list[Path]:
    found = []
    for folder in ("harness", "protocol", "bots", "tools", "docs", "tournaments", "tests"):
        found += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".toml", ".j2", ".js")
                  and "node_modules" not in p.parts]
    return [*found, ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]


def test_nothing_points_outside_the_repository() -> None:
    """No file a clone does not have (the team's design notes) and no issue of our own tracker."""
    outside = re.compile(r"DESIGN\.md|STYLE\.md|\.\./shared|\bissues? #?\d+\b(?! of)|\bissue N\b", re.I)
    hits = []
    for path in _sources():
        if path.name == "test_docs.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for m in outside.finditer(line):
                before = line[max(0, m.start() - 40):m.start()]
                if re.search(r"(libzmq|pyzmq|zeromq|rlcard|pettingzoo|aiarena|kaggle|battlecode|pokerkit|lux|halite|"
                             r"dask|cpython|python|bpo|openskill|typer|uvicorn|starlette|msgpack|playwright|"
                             r"chromium|bubblewrap|bwrap|github|gh)[\w\-/.]*[\s,(#]*$", before, re.I):
                    continue  # another project's issue
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert hits == []


def test_every_command_the_readme_shows_exists() -> None:
    from typer.main import get_command

    from harness.cli import app

    commands = set(get_command(app).commands)  # type: ignore[attr-defined]
    shown = set(re.findall(r"^harness ([a-z][\w-]*)", (ROOT / "README.md").read_text(encoding="utf-8"), re.M))
    assert shown and shown <= commands, sorted(shown - commands)


def test_every_editable_install_the_docs_give_keeps_compat_mode() -> None:
    """A bare `pip install -e '.[rl]'` after `make` swaps the fast path entry for setuptools' hook (~18 ms a bot
    start): every editable install the docs or the harness's messages give keeps editable_mode=compat."""
    texts = {p: p.read_text(encoding="utf-8") for p in [*DOCS, *sorted((ROOT / "harness").rglob("*.py"))]}
    bare = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p, text in texts.items()
            for m in re.finditer(r"pip install (?:-q )?-e ['\"]?\.\[?[a-z,]*\]?", text)]
    assert bare == [], "give `make rl` or `pip install --config-settings editable_mode=compat -e ...`"
    assert "rl:" in (ROOT / "Makefile").read_text(encoding="utf-8")
