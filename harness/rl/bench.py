"""``harness bench env``: steps per second of the environments and the cost of a clone (figures, not tests).

Rates are per CPU second of this thread (``time.thread_time``: "one core"; the environments are
single-threaded, and on a shared machine wall-clock time mostly measures the other processes); the
``_wall`` figures give the same runs per wall-clock second, ``load_average`` the machine's 1-minute load
when the figures were taken. The evaluator's table is filled before timing (``build_tables``, as a
training run of any length has it filled).

``game=`` (``harness bench env --game``) measures another game's environments: Deuce-to-Seven Triple Draw plays
on the Python engine only (the native core plays Seven Card Draw), so its figures are the AEC environment's, the
Python vector form's (64 tables), the rules' share and ``clone()``, with no targets.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import numpy as np

from harness.engine import Phase
from harness.engine.evaluator import build_tables
from harness.engine.games import SEVEN_CARD_DRAW
from harness.rl.aec import SevenCardDrawEnv
from harness.rl.native_vector import NativeVectorEnv
from harness.rl.vector import VectorEnv

#: What the figures should reach (docs/speed.md).
TARGETS = {"steps_per_s": ">= 150,000", "steps_per_s_vector": ">= 1,000,000"}


def _aec_steps(seconds: float, engine: str = "native", game: str = SEVEN_CARD_DRAW.name) -> tuple[float, float]:
    """(steps per CPU second, per wall second) of random legal play, observation and mask every step, the hands
    played on ``engine`` (:class:`SevenCardDrawEnv`'s argument)."""
    env = SevenCardDrawEnv(num_players=2, engine=engine, game=game)
    rng = random.Random(1)
    env.reset(seed=1)
    steps = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    end = cpu + seconds
    while True:
        for _ in range(500):
            agent = env.agent_selection
            if env.terminations[agent]:
                env.reset()
                continue
            legal = env.observe(agent)["action_mask"].nonzero()[0]  # np.flatnonzero, without its ravel
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        now = time.thread_time()
        if now >= end:
            return steps / (now - cpu), steps / (time.perf_counter() - wall)


def _native_vector_steps(seconds: float, tables: int = 64) -> tuple[float, float]:
    """(table steps per CPU second, per wall second) of ``tables`` native tables (:class:`NativeVectorEnv`) stepped
    together, a random legal index per table drawn in Rust (``random_actions``)."""
    venv = NativeVectorEnv(tables, num_players=2)
    venv.reset(seed=1)
    step, choose = venv.step, venv.random_actions
    steps = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    end = cpu + seconds
    while True:
        for _ in range(20):
            step(choose())
        steps += 20 * tables
        now = time.thread_time()
        if now >= end:
            return steps / (now - cpu), steps / (time.perf_counter() - wall)


def _vector_steps(seconds: float, tables: int = 64, game: str = SEVEN_CARD_DRAW.name) -> tuple[float, float]:
    """(table steps per CPU second, per wall second) of ``tables`` Python tables (:class:`VectorEnv`) stepped
    together."""
    venv = VectorEnv(tables, num_players=2, game=game)
    rng = np.random.default_rng(1)
    masks = venv.reset(seed=1)[0]["action_mask"]
    steps = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    end = cpu + seconds
    while True:
        # a random legal index per row: argmax of random scores where the mask allows
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        masks = venv.step(actions)[0]["action_mask"]
        steps += tables
        now = time.thread_time()
        if now >= end:
            return steps / (now - cpu), steps / (time.perf_counter() - wall)


def _rules_us_per_step(seconds: float, tables: int = 64, game: str = SEVEN_CARD_DRAW.name) -> float:
    """CPU µs per table step of the rules alone, on the vector form's tables: the decision (legal moves, bet
    sizes), a random legal index (from a list per mask key), the engine's ``apply`` and the next hand's deal;
    no observation, mask array or reward. Every environment pays this per step, vectorised or not: the
    vector form can only save the rest, so ``1e6 / (this * steps_per_s)`` bounds its gain over one table."""
    venv = VectorEnv(tables, num_players=2, game=game)
    venv.reset(seed=1)
    codec = venv.tables[0].codec
    legal_of = [row.nonzero()[0].tolist() for row in codec.MASKS]
    rng = random.Random(1)
    decision, action_of, next_hand = codec.decision, codec.action_of, VectorEnv._next_hand
    complete = Phase.COMPLETE
    steps = 0
    cpu = time.thread_time()
    end = cpu + seconds
    while True:
        for t in venv.tables:
            state = t.state
            found = decision(state)
            legal = legal_of[found[0]]
            state.apply(action_of(state, found, legal[rng.randrange(len(legal))]))
            if state.phase is complete:
                state.result()
                next_hand(t)
        steps += tables
        now = time.thread_time()
        if now >= end:
            return (now - cpu) / steps * 1e6


def _clone_us(count: int = 20000, game: str = SEVEN_CARD_DRAW.name) -> float:
    """CPU microseconds of ``clone()`` mid-hand, the hand on the native core (the default engine) where it plays
    the game."""
    env = SevenCardDrawEnv(num_players=2, game=game)
    env.reset(seed=3)
    env.step(1)
    start = time.thread_time()
    for _ in range(count):
        env.clone()
    return (time.thread_time() - start) / count * 1e6


def run(seconds: float = 3.0, game: str = SEVEN_CARD_DRAW.name) -> dict[str, Any]:
    """``steps_per_s`` (random legal actions, heads-up, one core, the AEC environment with its observation and
    mask every step, on the native core), ``steps_per_s_python_engine`` (the same on the Python engine,
    ``engine="python"``) and their ratio ``aec_native_over_python``, ``steps_per_s_vector`` (64 native tables
    stepped together, :class:`NativeVectorEnv`), ``steps_per_s_vector_python`` (64 Python tables,
    :class:`VectorEnv`), ``clone_us`` (microseconds of CPU), ``rules_us_per_step`` (:func:`_rules_us_per_step`)
    and ``vector_over_single_ceiling``, the ratio the Python vector form would reach over the AEC environment
    (``steps_per_s``) if its observations, masks, rewards and the policy's choice cost nothing
    (``vector_python_over_single`` is its measured ratio: below 1 now that the AEC environment plays on the native
    core), the same rates per wall second and the load average (module doc). Another ``game``: the figures of
    :func:`run_game`.

    Raises:
        ValueError: a game the environments do not play (named).
    """
    build_tables()
    if game != SEVEN_CARD_DRAW.name:
        return run_game(seconds, game)
    aec, aec_wall = _aec_steps(seconds)
    aec_python, aec_python_wall = _aec_steps(seconds, "python")
    native, native_wall = _native_vector_steps(seconds)
    vector, vector_wall = _vector_steps(seconds)
    rules_us = _rules_us_per_step(seconds)
    return {
        "steps_per_s": round(aec),
        "steps_per_s_python_engine": round(aec_python),
        "aec_native_over_python": round(aec / aec_python, 2),
        "steps_per_s_vector": round(native),
        "steps_per_s_vector_python": round(vector),
        "vector_over_single": round(native / aec, 2),
        "vector_python_over_single": round(vector / aec, 2),
        "native_over_python_vector": round(native / vector, 2),
        "rules_us_per_step": round(rules_us, 2),
        "vector_over_single_ceiling": round(1e6 / rules_us / aec, 2),
        "clone_us": round(_clone_us(), 2),
        "steps_per_s_wall": round(aec_wall),
        "steps_per_s_python_engine_wall": round(aec_python_wall),
        "steps_per_s_vector_wall": round(native_wall),
        "steps_per_s_vector_python_wall": round(vector_wall),
        "load_average": round(os.getloadavg()[0], 2),
    }


def run_game(seconds: float, game: str) -> dict[str, Any]:
    """The figures of a game the native core does not play (module doc): ``steps_per_s`` (the AEC environment on
    the Python engine, heads-up, random legal actions, observation and mask every step),
    ``steps_per_s_vector_python`` (64 tables, :class:`VectorEnv`) and its ratio ``vector_python_over_single``,
    ``rules_us_per_step`` (:func:`_rules_us_per_step`) with ``vector_over_single_ceiling``, ``clone_us``, the
    rates per wall second and the load average.

    Raises:
        ValueError: a game the environments do not play (named).
    """
    aec, aec_wall = _aec_steps(seconds, "python", game)
    vector, vector_wall = _vector_steps(seconds, game=game)
    rules_us = _rules_us_per_step(seconds, game=game)
    return {
        "game": game,
        "steps_per_s": round(aec),
        "steps_per_s_vector_python": round(vector),
        "vector_python_over_single": round(vector / aec, 2),
        "rules_us_per_step": round(rules_us, 2),
        "vector_over_single_ceiling": round(1e6 / rules_us / aec, 2),
        "clone_us": round(_clone_us(game=game), 2),
        "steps_per_s_wall": round(aec_wall),
        "steps_per_s_vector_python_wall": round(vector_wall),
        "load_average": round(os.getloadavg()[0], 2),
    }
