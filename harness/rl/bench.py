"""``harness bench env``: steps per second of the environments and the cost of a clone (figures, not tests)."""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from harness.rl.aec import SevenCardDrawEnv
from harness.rl.vector import VectorEnv

#: What the figures should reach (README "Speed").
TARGETS = {"steps_per_s": ">= 30,000", "steps_per_s_vector": ">= 1.5x steps_per_s"}


def _aec_steps(seconds: float) -> float:
    env = SevenCardDrawEnv(num_players=2)
    rng = random.Random(1)
    env.reset(seed=1)
    steps = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(500):
            agent = env.agent_selection
            if env.terminations[agent]:
                env.reset()
                continue
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
        now = time.perf_counter()
        if now >= end:
            return steps / (now - start)


def _vector_steps(seconds: float, tables: int = 64) -> float:
    venv = VectorEnv(tables, num_players=2)
    rng = np.random.default_rng(1)
    _, masks, _ = venv.reset(seed=1)
    steps = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        # a random legal index per row: argmax of random scores where the mask allows
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        _, masks, _, _, _ = venv.step(actions)
        steps += tables
        now = time.perf_counter()
        if now >= end:
            return steps / (now - start)


def _clone_us(count: int = 20000) -> float:
    env = SevenCardDrawEnv(num_players=2)
    env.reset(seed=3)
    env.step(1)
    start = time.perf_counter()
    for _ in range(count):
        env.clone()
    return (time.perf_counter() - start) / count * 1e6


def run(seconds: float = 3.0) -> dict[str, Any]:
    """``steps_per_s`` (random legal actions, heads-up, one core, the AEC environment with its observation and
    mask every step), ``steps_per_s_vector`` (64 tables stepped together), ``clone_us`` (microseconds)."""
    return {
        "steps_per_s": round(_aec_steps(seconds)),
        "steps_per_s_vector": round(_vector_steps(seconds)),
        "clone_us": round(_clone_us(), 2),
    }
