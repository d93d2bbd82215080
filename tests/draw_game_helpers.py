"""What the draw-game tests share: a tournament file of a game, a run's hand records, the CLI in a subprocess,
a hand played out at random."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness.engine import Action, ActionKind, HandState

ROOT = Path(__file__).resolve().parents[1]


def game_toml(tmp_path: Path, game: str, *, table_size: int = 2, hands: int = 6, bots: tuple[str, ...] = (
        "random_bot", "caller", "raiser")) -> Path:
    """A tournament file of the starters at ``tmp_path/t.toml``, its ``[game]`` table's lines ``game``, sandbox off."""
    entries = "".join(f'[[bots]]\nname = "{b}"\ncommand = "{sys.executable} -m bots.{b}"\ncwd = "{ROOT}"\n'
                      for b in bots)
    path = tmp_path / "t.toml"
    path.write_text(f'[tournament]\nname = "t"\noutput = "{tmp_path / "out"}"\n[game]\n{game}\n'
                    f'[schedule]\ntable_size = {table_size}\nhands = {hands}\njobs = 1\npin = false\n'
                    f'[sandbox]\nmode = "off"\n{entries}')
    return path


def hand_records(out: Path) -> list[dict[str, Any]]:
    """Every hand record of the run in ``out``, match by match."""
    rows = []
    for f in sorted(out.glob("matches/*/hands.jsonl*")):
        opener = gzip.open if f.suffix == ".gz" else open
        with opener(f, "rt") as fh:
            rows += [json.loads(line) for line in fh]
    return rows


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``harness ARGV...`` from the repository root, its output captured."""
    return subprocess.run([sys.executable, "-m", "harness.cli", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def play_out(state: HandState, rng: random.Random, check: float) -> None:
    """Legal decisions to the end: check (pass) with probability ``check`` while it is free, else a random legal
    action; in a draw, a random number of random cards up to the game's limit."""
    while state.to_act is not None:
        legal = state.legal()
        if state.phase.value == "draw":
            cards = state.cards[state.to_act]
            most = min(len(cards), legal.max_discards)
            state.apply(Action(ActionKind.DRAW, 0, tuple(rng.sample(cards, rng.randint(0, most)))))
            continue
        if ActionKind.CHECK in legal.actions and rng.random() < check:
            state.apply(Action(ActionKind.CHECK))
            continue
        kind = rng.choice(legal.actions)
        amount = rng.randint(legal.min_to, legal.max_to) if kind in (ActionKind.BET, ActionKind.RAISE) else 0
        state.apply(Action(kind, amount))
