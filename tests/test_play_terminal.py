"""``harness play`` in the terminal: a piped game of 20 hands against bots.raiser, and a real terminal (tmux).

The piped game is driven by this test through stdin and stdout pipes, as a
script would (``printf ... | harness play``), answering each prompt from the
legal actions the table shows, so that every command is used where it is
legal (and a mistyped command and an illegal amount where they are not). The
hand history must then validate against the schema and replay, the human
seat's actions be its replies (``by: "bot"`` with decision times, no faults),
and the chips be conserved.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.history.files import read_history
from harness.history.replay import check_history
from tests.history_helpers import schema_errors
from tests.play_helpers import Driver, harness_cmd
from tests.play_helpers import choices as read_choices

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]
HARNESS = [sys.executable, "-m", "harness.cli"]
RAISER = f"raiser={sys.executable} -m bots.raiser"


@pytest.mark.slow
def test_a_piped_game_of_20_hands_uses_every_command(tmp_path: Path) -> None:
    out = tmp_path / "game"
    proc = subprocess.Popen(
        [*harness_cmd(), "play", "--bot", RAISER, "--hands", "20", "--seed", "7", "--out", str(out),
         "--sandbox", "off"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    drive = Driver(proc)
    wanted = ["?", "x", "illegal", "f", "c", "b", "r", "a", "d-pos", "d-name", ""]
    used: list[str] = []
    responses: dict[str, str] = {}
    last_sent = None
    choices: dict[str, str] = {}
    try:
        while True:
            screen = drive.until_prompt()
            if screen is None:
                break
            if last_sent is not None:
                responses.setdefault(last_sent, screen)
            choices = read_choices(screen) or choices
            draw = "d" in choices
            pick = None
            for want in wanted:
                if want in used:
                    continue
                ok = {
                    "?": True, "x": True, "": True,
                    "illegal": "b" in choices or "r" in choices,
                    "f": "f" in choices, "c": "c" in choices and not draw, "b": "b" in choices,
                    "r": "r" in choices, "a": "a" in choices, "d-pos": draw, "d-name": draw,
                }[want]
                if ok:
                    pick = want
                    break
            if pick is None:
                pick = ""
            line = pick
            if pick == "illegal":
                line = ("b" if "b" in choices else "r") + " 1"
            elif pick in ("b", "r"):
                line = f"{pick} {choices[pick].split()[2]}"  # "bet to 20 to 1000": the minimum
            elif pick == "d-pos":
                line = "d 6 7"
            elif pick == "d-name":
                cards = re.search(r"your cards\s+(.*?)(\s{3}best five|$)", screen, re.M)
                assert cards, screen
                names = [c.split(":")[1] for c in cards.group(1).split()]
                line = f"d {names[0].lower()} {names[1]}"
            if pick not in used:
                used.append(pick)
            last_sent = pick
            drive.send(line)
        assert proc.wait(300) == 0, proc.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = drive.transcript
    assert sorted(used) == sorted(wanted), f"commands not used: {set(wanted) - set(used)}\n{text[-3000:]}"
    assert responses["x"].startswith("x\n? unknown command 'x'")
    assert "is not legal" in responses["illegal"] and "to 1 is not legal" in responses["illegal"]
    assert "betting: f fold" in responses["?"]
    for good in ("f", "c", "b", "r", "a", "d-pos", "d-name"):
        assert "\n? " not in responses.get(good, "")[:200], (good, responses.get(good))
    assert "hand history:" in text and "20 hands in" in text
    history = out / "hands.jsonl"
    records = list(read_history(history))
    assert len(records) == 20
    mine = []
    for r in records:
        assert schema_errors(r) == []
        assert r["faults"] == []
        assert sum(p["net"] for p in r["players"]) == 0
        assert sum(p["stack"] for p in r["players"]) == sum(p["final_stack"] for p in r["players"])
        assert r["match"]["humans"][0]["seat"] == 0
        mine += [a for a in r["actions"] if a["seat"] == 0]
    assert all(a["by"] == "bot" and a["fault"] is None and a["ms"] is not None for a in mine)
    kinds = {a["kind"] for a in mine}
    assert {"fold", "call", "bet", "raise", "draw"} <= kinds, kinds
    assert any(a.get("all_in") for a in mine)
    assert any(a["kind"] == "draw" and len(a["discards"]) == 2 for a in mine)
    assert all(v.ok for v in check_history(history, match_seed=7))
    result = json.loads((out / "result.json").read_text())
    assert sum(result["net"]) == 0 and result["status"] == ["ok", "ok"]
    (ROOT / "docs" / "play-transcript.txt").write_text(text, encoding="utf-8") if os.environ.get(
        "HARNESS_WRITE_DOCS") else None


def _tmux() -> str:
    path = shutil.which("tmux")
    if path is None:
        message = ("TMUX TEST NOT RUN: tmux is not installed (tools/install-system-deps.sh installs it; "
                   "apt-get install -y tmux)")
        print(message, file=sys.stderr)
        pytest.skip(message)
    return path


def _screenshot(ansi: str, png: Path) -> None:
    """The README's picture of the terminal: tmux's screen (with its colours) drawn by rich, shot by chromium."""
    from playwright.sync_api import sync_playwright
    from rich.console import Console
    from rich.text import Text

    from tests.browser_helpers import CHROMIUM_FLAGS, chromium_path

    console = Console(record=True, width=130, file=open(os.devnull, "w"), force_terminal=True)  # noqa: SIM115
    console.print(Text.from_ansi(ansi.rstrip() + "\n"))
    svg = console.export_svg(title="harness play")
    png.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_content(f"<html><body style='margin:0;background:#fff'>{svg}</body></html>")
            page.locator("svg").first.screenshot(path=str(png))
        finally:
            browser.close()


def test_play_in_a_real_terminal_under_tmux(tmp_path: Path) -> None:
    tmux = _tmux()
    sock = str(tmp_path / "tmux.sock")
    out = tmp_path / "game"
    cmd = " ".join([*harness_cmd(), "play", "--bot", f"'{RAISER}'", "--hands", "2", "--seed", "7", "--out", str(out),
                    "--sandbox", "off", "--pace-ms", "0", ";", "echo", "PLAY-EXITED-$?", ";", "sleep", "30"])
    env = {**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "xterm-256color"}
    base = [tmux, "-u", "-S", sock]
    subprocess.run([*base, "new-session", "-d", "-s", "play", "-x", "130", "-y", "45", "-c", str(ROOT), cmd],
                   check=True, env=env)

    def screen() -> str:
        return subprocess.run([*base, "capture-pane", "-p", "-t", "play"], capture_output=True, text=True,
                              check=True).stdout

    def wait_for(pattern: str, timeout_s: float = 300.0) -> str:
        end = time.monotonic() + timeout_s
        while True:
            text = screen()
            if re.search(pattern, text):
                return text
            assert time.monotonic() < end, f"{pattern!r} never showed; the screen:\n{text}"
            time.sleep(0.2)

    try:
        first = wait_for(r"your move")
        coloured = subprocess.run([*base, "capture-pane", "-e", "-p", "-t", "play"], capture_output=True, text=True,
                                  check=True).stdout
        assert re.search(r"your cards\s+1:\S+[♥♦♣♠]", first), first
        assert "f fold" in first and re.search(r"c (call|check)", first), first
        shots = [first]
        seen = 0
        for _ in range(40):
            text = screen()
            if "PLAY-EXITED-" in text:
                break
            if "your move" in text and text != shots[-1]:
                shots.append(text)
            subprocess.run([*base, "send-keys", "-t", "play", "" if seen % 3 else "c", "Enter"], check=True)
            seen += 1
            time.sleep(0.5)
        final = wait_for(r"PLAY-EXITED-0", 60)
        assert "hand history:" in final
        assert any("draw" in s and "discard up to" in s for s in shots), "never saw the draw's legal action"
        if os.environ.get("HARNESS_WRITE_DOCS"):
            _screenshot(coloured, ROOT / "docs" / "img" / "play-terminal.png")
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
    records = list(read_history(out / "hands.jsonl"))
    assert len(records) == 2
    assert all(a["by"] == "bot" for r in records for a in r["actions"] if a["seat"] == 0)


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "--bot", "raiser"], "harness play: --bot 'raiser' must be NAME=COMMAND"),
    (["play", "--bot", RAISER, "--seat", "2"], "harness play: --seat 2: with 1 bot(s) the seats are 0 to 1"),
    (["play", "--bot", RAISER, "--name", "raiser"], "harness play: --name 'raiser' is also a bot's name"),
    (["play", "--bot", RAISER, "--idle-ms", "0"], "harness play: --idle-ms must be at least 1, got 0"),
    (["play", "--bot", RAISER, "--hands", "0"], "harness play: --hands must be at least 1, got 0"),
    (["watch", "/no/such/dir"], "harness watch: /no/such/dir is not a directory"),
])
def test_usage_errors_are_one_line(argv: list[str], message: str, tmp_path: Path) -> None:
    done = subprocess.run([*harness_cmd(), *argv], capture_output=True, text=True, cwd=tmp_path,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.strip() == message or done.stderr.startswith(message), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "results").exists()
