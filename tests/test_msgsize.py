"""PROTOCOL.md section 7: no legal hand makes the referee skip or cut a message. The bound on the largest
message (harness.match.msgsize) holds for the longest hands the rules allow, and settings that could
exceed 65,536 bytes are refused before anything runs (the issue's heads-up match at 1,000,000 chips)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.match.msgsize import deepest_stack, largest_message_bytes, message_problem
from harness.match.wire import HandWire, MatchWire
from protocol.version import MAX_MESSAGE_BYTES
from tests.history_helpers import GAMES

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parent.parent
DAY_MS = 86_400_000


def play_longest(game: GameConfig, stacks: list[int], raisers: set[int] | None, seed: int = 1,
                 rng: random.Random | None = None) -> int:
    """Play one hand in which the seats in ``raisers`` bet or raise the minimum whenever they may and
    everyone else calls or checks; with ``raisers`` None, the seat that would close the round raises
    the minimum instead (about one action per big blind at the table, the longest hands); with ``rng``,
    random actions. Return the hand's largest message (requests and hand_end), bytes."""
    state = HandState.start(game, stacks, 0, seed)
    wire = HandWire(MatchWire(game, DAY_MS), state)
    largest = seq = 0
    while not state.is_complete:
        seq += 1
        legal = state.legal()
        largest = max(largest, len(wire.request(state.phase == "draw", 2**40 - seq, state.to_act, legal, DAY_MS)))
        wagers = [k for k in legal.actions if k in (ActionKind.BET, ActionKind.RAISE)]
        if legal.actions == (ActionKind.DRAW,):
            action = Action(ActionKind.DRAW)
        elif rng is not None:
            kind = rng.choice([*legal.actions, *wagers, *wagers])
            action = Action(kind, legal.min_to) if kind in wagers else Action(kind)
        elif wagers and (state.to_act in raisers if raisers is not None else closes(state)):
            action = Action(wagers[0], legal.min_to)
        else:
            action = Action(ActionKind.CALL if ActionKind.CALL in legal.actions else ActionKind.CHECK)
        state.apply(action)
    return max(largest, len(wire.hand_end()))


def closes(state: HandState) -> bool:
    """Every other player able to act has matched the highest bet: a call or check would end the round."""
    high = max(state.bets)
    return all(state.bets[o] == high for o in range(state.n)
               if o != state.to_act and not state.folded[o] and not state.all_in[o])


def test_the_issues_heads_up_match_at_a_million_chips_is_refused_naming_the_key() -> None:
    """Stacks 1,000,000 at 5/10: a min-raising hand could need a hand_end of megabytes (it reached 65,552
    bytes and was not sent); now a config error before anything runs."""
    game = GameConfig()
    assert largest_message_bytes(game, 2, 1_000_000) > 65_552
    problem = message_problem(game, 2, 1_000_000, "--stack")
    assert problem is not None and problem.startswith("--stack 1000000 is too deep for the protocol's 65,536-byte")
    most = deepest_stack(game, 2)
    assert f"at most {most:,} chips" in problem
    assert message_problem(game, 2, most) is None and message_problem(game, 2, most + 1) is not None
    assert largest_message_bytes(game, 2, most) <= MAX_MESSAGE_BYTES < largest_message_bytes(game, 2, most + 1)


def test_the_default_games_fit_at_every_table_size_and_a_fixed_limit_cap_fits_any_stack() -> None:
    for seats in range(2, 7):
        assert message_problem(GameConfig(), seats, 1000) is None  # 100 big blinds
        assert deepest_stack(GameConfig(), seats) >= 300 * 10
        capped = GameConfig(structure="fixed-limit", cap=4)
        assert message_problem(capped, seats, 2**40 // 6) is None
    assert message_problem(GameConfig(structure="fixed-limit", cap=0), 2, 1_000_000) is not None


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seats", [2, 3, 6])
def test_the_longest_hands_at_the_deepest_stack_stay_within_the_bound(name: str, seats: int) -> None:
    """Min-raise wars with callers (the hands with the most actions) at the deepest allowed stack: every
    request and the hand_end fit the bound, and the bound fits the protocol's limit."""
    game = GAMES[name]
    if name == "per-seat" and seats > 4:
        seats = 4
    stack = min(deepest_stack(game, seats), 2**40 // 6)
    bound = largest_message_bytes(game, seats, stack)
    assert bound <= MAX_MESSAGE_BYTES
    for raisers in ({0}, {0, 1}, set(range(seats)), {seats - 1}, None):
        largest = play_longest(game, [stack] * seats, raisers)
        assert largest <= bound, (raisers, largest, bound)
    if game.structure == "no-limit":  # the bound is near what the longest hand needs
        assert largest > {2: 0.98, 6: 0.7}.get(seats, 0.6) * bound


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(GAMES)),
    seats=st.integers(2, 6),
    fraction=st.floats(0.05, 1.0),
    seed=st.integers(0, 2**32),
)
def test_no_legal_hand_needs_a_message_above_the_bound(name: str, seats: int, fraction: float, seed: int) -> None:
    game = GAMES[name]
    if name == "per-seat":
        seats = min(seats, 4)
    most = min(deepest_stack(game, seats), 20_000)
    stack = max(game.unit + game.ante, int(most * fraction))
    rng = random.Random(seed)
    stacks = [rng.randint(1, stack) for _ in range(seats)]
    stacks[0] = stack
    assert play_longest(game, stacks, set(), seed, rng) <= largest_message_bytes(game, seats, stack)


# ----------------------------------------------------------------------------- refused before anything runs


def test_harness_match_refuses_the_deep_stack_before_starting_anything(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["match", "--bot", "a=python -m bots.raiser", "--bot", "b=python -m bots.caller",
                                      "--stack", "1000000", "--out", str(out)])
    assert result.exit_code == 2
    assert "--stack 1000000 is too deep for the protocol's 65,536-byte messages" in result.stderr
    assert not out.exists() or not any(out.iterdir())


def test_a_tournament_file_with_too_deep_stacks_names_the_key(tmp_path: Path) -> None:
    from harness.tournament.config import ConfigError, load_config

    path = tmp_path / "t.toml"
    path.write_text('[game]\nstarting_stack = 1000000\n[[bots]]\nname = "a"\ncommand = "python -m bots.caller"\n'
                    '[[bots]]\nname = "b"\ncommand = "python -m bots.raiser"\n')
    with pytest.raises(ConfigError, match=r"\[game\] starting_stack.*starting_stack 1000000 is too deep"):
        load_config(path)


def test_play_match_and_check_bot_refuse_it_too(tmp_path: Path) -> None:
    from harness.match.checkbot import check_bot
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    bots = [BotSpec(f"r{i}", ("python", "-m", "bots.raiser"), cwd=str(ROOT)) for i in range(2)]
    with pytest.raises(ValueError, match="starting_stack 1000000 is too deep"):
        play_match(bots, MatchSpec(GameConfig(), hands=1, seed=3, starting_stack=10**6), Limits(), tmp_path)
    assert not any(tmp_path.iterdir())
    with pytest.raises(ValueError, match="--stack 1000000 is too deep"):
        check_bot([sys.executable, "-m", "bots.raiser"], starting_stack=10**6)


# ----------------------------------------------------------------------------- a real match


@pytest.mark.slow
def test_a_real_match_at_the_deepest_stack_sends_every_message(tmp_path: Path) -> None:
    """Two min-raisers heads-up at the deepest stack the bound allows: the longest hand goes to the
    all-in one raise at a time, and every request and every hand_end is sent (none 'not sent')."""
    from harness.history.files import read_history
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    stack = deepest_stack(GameConfig(), 2)
    bots = [BotSpec(f"r{i}", ("python", "-m", "tests.fixtures.hand_end_counter"), cwd=str(ROOT)) for i in range(2)]
    spec = MatchSpec(GameConfig(), hands=2, seed=3, starting_stack=stack)
    result = play_match(bots, spec, Limits(decision_ms=2000, startup_ms=10000), tmp_path)
    assert result.faults == [{}, {}] and result.hands_played == 2
    log = (tmp_path / "logs" / "referee.log").read_text()
    assert "not sent" not in log
    records = list(read_history(tmp_path / "hands.jsonl"))
    assert all(a["by"] == "bot" for r in records for a in r["actions"])
    assert max(len(r["actions"]) for r in records) > 1000
    for seat in range(2):
        err = next((tmp_path / "logs").glob(f"{seat}-*.err")).read_text()
        sizes = [int(line.split()[2]) for line in err.splitlines() if line.startswith("hand_end ")]
        assert len(sizes) == 2, err  # one hand_end per hand
        assert max(sizes) <= largest_message_bytes(GameConfig(), 2, stack) <= MAX_MESSAGE_BYTES
