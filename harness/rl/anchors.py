"""``harness bench env --anchors``: the AEC environment beside two other projects' poker environments, measured in the
same loop and the same run (figures, not tests).

The anchors: OpenSpiel's ``universal_poker`` with the ACPC heads-up limit hold'em game (pip ``open_spiel``; blinds
10/5, bets 10/10/20/20, at most 3/4/4/4 raises, 2 hole cards, boards 0/3/1/1) and RLCard's ``limit-holdem`` (pip
``rlcard``): both heads-up limit hold'em, the nearest each has to a heads-up draw game with fixed bet sizes. Each
loop plays random legal actions and reads the acting seat's observation and legal actions every step (OpenSpiel:
``observation_tensor`` and ``legal_actions_mask``, chance nodes sampled from ``chance_outcomes`` and not counted as
steps; RLCard: ``env.step`` returns the next observation, a random key of its ``legal_actions`` is played). The
rounds alternate ours and each anchor, ``seconds / rounds`` of CPU (``time.thread_time``, one core) each, so a
change of the machine's load falls on all of them; the figures are steps per CPU second over all rounds.
The anchors are the optional extra ``bench``; one that cannot be imported is left out with a note.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from harness.rl.aec import SevenCardDrawEnv

__all__ = ["LIMIT_HOLDEM", "run"]

#: OpenSpiel's ``universal_poker`` parameters of the ACPC heads-up limit hold'em game (its ``holdem.limit.2p``).
LIMIT_HOLDEM: dict[str, Any] = {
    "betting": "limit", "numPlayers": 2, "numRounds": 4, "blind": "10 5", "raiseSize": "10 10 20 20",
    "firstPlayer": "2 1 1 1", "maxRaises": "3 4 4 4", "numSuits": 4, "numRanks": 13, "numHoleCards": 2,
    "numBoardCards": "0 3 1 1", "stack": "20000 20000",
}

#: A loop: ``seconds`` of CPU -> (steps, CPU seconds used).
Loop = Callable[[float], tuple[int, float]]


def ours() -> Loop:
    """The AEC environment heads-up (the default engine), as ``harness bench env``'s ``steps_per_s``."""
    env = SevenCardDrawEnv(num_players=2)
    rng = random.Random(1)
    env.reset(seed=1)

    def loop(seconds: float) -> tuple[int, float]:
        steps = 0
        cpu = time.thread_time()
        end = cpu + seconds
        while True:
            for _ in range(500):
                agent = env.agent_selection
                if env.terminations[agent]:
                    env.reset()
                    continue
                legal = env.observe(agent)["action_mask"].nonzero()[0]
                env.step(int(legal[rng.randrange(len(legal))]))
                steps += 1
            now = time.thread_time()
            if now >= end:
                return steps, now - cpu

    return loop


def openspiel() -> Loop:
    """OpenSpiel's universal_poker limit hold'em (:data:`LIMIT_HOLDEM`).

    Raises:
        ImportError: pyspiel (pip ``open_spiel``) is not installed.
    """
    import pyspiel

    game = pyspiel.load_game("universal_poker", LIMIT_HOLDEM)
    rng = random.Random(1)
    holder = [game.new_initial_state()]

    def loop(seconds: float) -> tuple[int, float]:
        state = holder[0]
        steps = 0
        cpu = time.thread_time()
        end = cpu + seconds
        while True:
            for _ in range(500):
                if state.is_terminal():
                    state.returns()
                    state = game.new_initial_state()
                    continue
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                player = state.current_player()
                state.observation_tensor(player)
                state.legal_actions_mask(player)
                legal = state.legal_actions(player)
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
            now = time.thread_time()
            if now >= end:
                holder[0] = state
                return steps, now - cpu

    return loop


def rlcard() -> Loop:
    """RLCard's limit hold'em (``rlcard.make("limit-holdem")``).

    Raises:
        ImportError: rlcard is not installed.
    """
    import rlcard as rlcard_package

    env = rlcard_package.make("limit-holdem", config={"seed": 1})
    rng = random.Random(1)
    holder = [env.reset()[0]]

    def loop(seconds: float) -> tuple[int, float]:
        state = holder[0]
        steps = 0
        cpu = time.thread_time()
        end = cpu + seconds
        while True:
            for _ in range(500):
                if env.is_over():
                    env.get_payoffs()
                    state = env.reset()[0]
                    continue
                legal = list(state["legal_actions"])
                state = env.step(legal[rng.randrange(len(legal))])[0]
                steps += 1
            now = time.thread_time()
            if now >= end:
                holder[0] = state
                return steps, now - cpu

    return loop


#: name in the figures -> (how to say it, the pip package, its loop).
ANCHORS: dict[str, tuple[str, str, Callable[[], Loop]]] = {
    "openspiel_limit": ("OpenSpiel's universal_poker", "open_spiel", openspiel),
    "rlcard_limit_holdem": ("RLCard's limit hold'em", "rlcard", rlcard),
}


def run(seconds: float = 3.0, rounds: int = 3) -> tuple[dict[str, Any], list[str]]:
    """The figures and the notes (one line per anchor left out).

    Figures: ``anchors_ours_steps_per_s`` (the AEC environment in these rounds), ``<anchor>_steps_per_s`` and
    ``over_<anchor>`` (ours over the anchor's, both per CPU second) for each anchor measured.
    """
    loops: dict[str, Loop] = {"anchors_ours": ours()}
    notes = []
    for name, (label, package, make) in ANCHORS.items():
        try:
            loops[name] = make()
        except ImportError as exc:
            notes.append(f"{label} not measured: {exc.name or package} is not installed "
                         f"(pip install {package}, or the extra 'bench')")
    totals = {name: [0, 0.0] for name in loops}
    for _ in range(rounds):
        for name, loop in loops.items():
            steps, cpu = loop(seconds / rounds)
            totals[name][0] += steps
            totals[name][1] += cpu
    rates = {name: steps / cpu for name, (steps, cpu) in totals.items()}
    figures: dict[str, Any] = {f"{name}_steps_per_s": round(rate) for name, rate in rates.items()}
    for name in ANCHORS:
        if name in rates:
            figures[f"over_{name}"] = round(rates["anchors_ours"] / rates[name], 2)
    return figures, notes
