"""``harness plan`` and ``harness run`` agree on the bots an entry check left out (trial finding E).

The trial's plan said "12 bots, 132 matches, playing 102" of a directory whose
run had left 4 bots out at the entry check and played 56.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from harness.tournament.estimate import DEFAULT_RATES
from harness.tournament.runner import preview, run_tournament
from tests.runner_helpers import fake_config, fake_play


def fake_check(bot: Any, game: Any, limits: Any, starting_stack: int, directory: Path, **_: Any) -> dict[str, Any]:
    """An entry check that fails the bots named bad*."""
    ok = not bot.name.startswith("bad")
    return {"ok": ok, "reason": "" if ok else "failed to start (exit status 1)", "stderr_tail": "",
            "log": str(directory / "err"), "wall_s": 0.1, "decision_ms": 1.0, "idle_s": 0.0, "decisions_per_hand": 1.0}


def test_plan_leaves_out_unchanged_bots_that_failed_their_entry_check(tmp_path: Path) -> None:
    config = fake_config(tmp_path / "out", ["a", "b", "c", "bad1", "bad2"], hands=3, jobs=1, entry_check=True)
    first = run_tournament(config, play=fake_play, check=fake_check, quiet=True)
    assert set(first.entries.failed) == {"bad1", "bad2"} and first.matches_run == 6

    view = preview(config, DEFAULT_RATES)
    assert view.plan.bots == first.plan.bots == ("a", "b", "c")
    assert len(view.plan.matches) == 6 and (view.reuse.reused, view.reuse.playing) == (6, 0)
    assert set(view.left_out) == {"bad1", "bad2"}
    again = run_tournament(config, play=fake_play, check=fake_check, quiet=True)
    assert again.matches_run == view.reuse.playing == 0

    # A bot whose setup changed is checked again by the run: the plan counts it in.
    bots = tuple(dataclasses.replace(b, env={"FIXED": "1"}) if b.name == "bad1" else b for b in config.bots)
    changed = preview(dataclasses.replace(config, bots=bots), DEFAULT_RATES)
    assert set(changed.left_out) == {"bad2"} and "bad1" in changed.plan.bots
    # Without the entry check every bot plays.
    unchecked = dataclasses.replace(config, tournament=dataclasses.replace(config.tournament, entry_check=False))
    assert preview(unchecked, DEFAULT_RATES).left_out == {}
