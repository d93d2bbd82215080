"""``--ante`` and ``--min-bet`` on ``harness play`` and ``harness sprt`` as on ``harness match``: Five Card Draw
(antes only, RULES.md R7.1) plays from each command; the options are declared once (harness/cli/options.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.options import ante_option, min_bet_option
from harness.engine.games import FIVE_CARD_DRAW
from tests.draw_game_helpers import ROOT, run_cli

FIVE = FIVE_CARD_DRAW.name
CALLER = f"{sys.executable} -m bots.caller"


def test_harness_play_deals_five_card_draw_with_antes(tmp_path: Path) -> None:
    out = tmp_path / "p"
    done = subprocess.run([sys.executable, "-m", "harness.cli", "play", "--bot", f"a={CALLER}", "--bot",
                           f"b={sys.executable} -m bots.raiser", "--game", FIVE, "--ante", "1", "--min-bet", "2",
                           "--stack", "100", "--hands", "4", "--pace-ms", "0", "--sandbox", "off", "--out", str(out)],
                          input="\n" * 400, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "hands.jsonl").read_text().splitlines()]
    assert len(records) == 4
    assert {(r["game"]["name"], r["game"]["ante"], r["game"]["min_bet"]) for r in records} == {(FIVE, 1, 2)}
    assert all("jackpot" in r for r in records)


def test_harness_sprt_plays_five_card_draw_with_antes(tmp_path: Path) -> None:
    out = tmp_path / "s"
    done = run_cli("sprt", "--bot", f"new={CALLER}", "--bot", f"old={CALLER}", "--game", FIVE, "--ante", "1",
                   "--min-bet", "2", "--stack", "100", "--hands", "4", "--min-blocks", "2", "--max-hands", "16",
                   "--sandbox", "off", "--seed", "9", "--out", str(out))
    assert done.returncode in (0, 3), done.stderr
    settings = json.loads((out / "sprt.json").read_text())
    assert (settings["game"]["ante"], settings["game"]["blinds"], settings["game"]["min_bet"]) == (1, False, 2)
    files = sorted(out.glob("blocks/*/*/hands.jsonl"))
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert records and {r["game"]["name"] for r in records} == {FIVE}


@pytest.mark.parametrize("command", ["play", "sprt", "match"])
@pytest.mark.parametrize(("options", "words"), [
    ([], "R7.1: five-card-draw is played with antes only"),
    (["--ante", "1", "--min-bet", "0"], "--min-bet"),
    (["--ante", "0", "--min-bet", "4"], "game options: "),
    (["--ante", "-1"], "--ante"),
])
def test_the_forced_bets_are_refused_alike_in_one_line(command: str, options: list[str], words: str) -> None:
    bots = ["--bot", f"a={CALLER}", "--bot", f"b={CALLER}"]
    done = run_cli(command, *bots, "--game", FIVE, *options, "--sandbox", "off")
    assert done.returncode == 2 and done.stderr.startswith(f"harness {command}: ") and words in done.stderr, \
        done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_the_options_are_declared_once() -> None:
    """Each command's --ante and --min-bet is the shared declaration (same flags, default and help)."""
    import inspect

    from harness.cli import checkbot, match, play, sprt

    for module in (match, play, sprt, checkbot):
        command = next(f for name, f in vars(module).items() if inspect.isfunction(f) and name in (
            "match", "play", "sprt", "check_bot", "checkbot"))
        params = inspect.signature(command).parameters
        for name, option in (("ante", ante_option()), ("min_bet", min_bet_option())):
            got = params[name].default
            assert (got.param_decls, got.default, got.help) == (option.param_decls, option.default, option.help), \
                (module.__name__, name)
