"""The native tables (harness.rl.native_vector.NativeVectorEnv) against the Python VectorEnv: the same seed and
actions give the same arrays on every step (observations, masks, seats, rewards, every seat's net, the finished
hands' last views), in every table size and game the environments take; illegal actions are refused alike."""

from __future__ import annotations

from typing import Any

import pytest

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from harness.rl import encoding  # noqa: E402
from harness.rl.native_vector import NativeVectorEnv  # noqa: E402
from harness.rl.vector import VectorEnv  # noqa: E402

GAMES: list[dict[str, Any]] = [
    {},  # no-limit, blinds 5/10, 1000 chips
    {"structure": "fixed-limit", "ante": 1},
    {"starting_stack": 37, "ante": 3},  # short stacks: all-ins, side pots
    {"blinds": False, "min_bet": 10, "ante": 5, "starting_stack": 200},  # ante-only (R2.5)
    {"starting_stack": 4, "ante": 5},  # every stack all-in on its ante: hands over before anyone acts
    {"structure": "fixed-limit", "cap": 0, "starting_stack": 300},
]


def assert_same(a: Any, b: Any, where: str) -> None:
    """Equal values of the same types, dtypes and shapes, down through dicts and object arrays."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x is None:
                assert y is None, f"{where}[{i}]"
            else:
                assert_same(x, y, f"{where}[{i}]")
    else:
        assert isinstance(b, np.ndarray), f"{where}: {type(b).__name__}"
        assert (a.dtype, a.shape) == (b.dtype, b.shape), f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        bad = np.argwhere(a != b)
        assert not len(bad), f"{where}: differ at {bad[:3].tolist()}: {a[tuple(bad[0])]} != {b[tuple(bad[0])]}"


def play_both(players: int, seed: int, tables: int, steps: int, game: dict[str, Any], chooser: str) -> int:
    """Step both environments with the same actions; returns the hands that ended."""
    py, native = VectorEnv(tables, num_players=players, **game), NativeVectorEnv(tables, num_players=players, **game)
    a, b = py.reset(seed=seed), native.reset(seed=seed)
    assert_same(a[0], b[0], "reset observations")
    assert_same(a[1], b[1], "reset infos")
    rng = np.random.default_rng(seed % 2**32)
    masks = a[0]["action_mask"]
    ended = 0
    for step in range(steps):
        if chooser == "native":
            actions = native.random_actions()
            assert masks[np.arange(tables), actions].all(), "random_actions drew an illegal index"
        else:
            actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        got_py, got_native = py.step(actions), native.step(actions)
        for name, x, y in zip(("obs", "rewards", "terminated", "truncated", "infos"), got_py, got_native, strict=True):
            assert_same(x, y, f"{players} seats {game} step {step} {name}")
        for i, t in enumerate(py.tables):
            assert native.hand_number(i) == t.hand
        masks = got_py[0]["action_mask"]
        ended += int(got_py[2].sum())
    return ended


@pytest.mark.parametrize("game", GAMES, ids=lambda g: ",".join(f"{k}={v}" for k, v in g.items()) or "default")
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_native_tables_step_as_the_python_ones(players: int, game: dict[str, Any]) -> None:
    ended = play_both(players, seed=1000 + players, tables=12, steps=120, game=game, chooser="numpy")
    assert ended > 12  # hands ended, and the next ones were dealt


@pytest.mark.parametrize("players", [2, 3, 4])
def test_per_seat_replacements_and_the_rust_chooser(players: int) -> None:
    ended = play_both(players, seed=7, tables=16, steps=150, game={"replacements": "per-seat"}, chooser="native")
    assert ended > 16


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**256 - 1), players=st.integers(2, 6))
def test_any_seed_deals_the_same_hands(seed: int, players: int) -> None:
    """256-bit seeds: the match and hand seeds (HMAC-SHA256) and the Mersenne Twister agree in Rust and Python."""
    play_both(players, seed=seed, tables=4, steps=40, game={}, chooser="native")


def test_illegal_actions_are_refused_as_vector_env_refuses_them_and_no_table_moves() -> None:
    py, native = VectorEnv(4, num_players=3), NativeVectorEnv(4, num_players=3)
    masks = py.reset(seed=3)[0]["action_mask"]
    native.reset(seed=3)
    illegal = int(np.flatnonzero(masks[2] == 0)[0])
    legal = [int(np.flatnonzero(row)[0]) for row in masks]
    bad_rows: list[Any] = [
        legal[:2] + [illegal] + legal[3:],
        legal[:1] + [-1] + legal[2:],
        legal[:1] + [10**30] + legal[2:],
        legal[:1] + [encoding.N_ACTIONS] + legal[2:],
        legal[:3] + [1.0],
        legal[:3] + [None],
        np.array(legal, dtype=np.float64),
        legal[:3],
        np.array(legal[:3] + [illegal, 0], dtype=np.int64),
    ]
    for actions in bad_rows:
        with pytest.raises(ValueError) as expected:
            py.step(actions)
        with pytest.raises(ValueError) as got:
            native.step(actions)
        assert str(got.value) == str(expected.value)
        assert "no table moved" in str(got.value) or "one per table" in str(got.value)
    # nothing moved: the next legal step still agrees, with every kind of index the VectorEnv takes
    for actions in (np.array(legal, dtype=np.int32), legal, tuple(np.int64(a) for a in legal)):
        got_py, got_native = py.step(actions), native.step(actions)
        for x, y in zip(got_py, got_native, strict=True):
            assert_same(x, y, "after the refusals")
        legal = [int(np.flatnonzero(row)[0]) for row in got_py[0]["action_mask"]]


def test_usage_mistakes_are_named() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        NativeVectorEnv(0)
    with pytest.raises(ValueError, match="features=True"):
        NativeVectorEnv(2, features=True)
    with pytest.raises(ValueError, match="num_players"):
        NativeVectorEnv(2, num_players=7)
    with pytest.raises(ValueError, match="chooser_seed"):
        NativeVectorEnv(2, chooser_seed=-1)
    env = NativeVectorEnv(2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step([1, 1])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-5)
    obs, info = env.reset()  # a fresh secret seed
    assert obs["observation"].shape == (2, encoding.obs_size(2)) and info["seat"].shape == (2,)
    assert env.observation_space.contains(obs)
    for bad in (5, -1):
        with pytest.raises(ValueError, match=f"table {bad}"):
            env.hand(bad)
        with pytest.raises(ValueError, match=f"table {bad}"):
            env.hand_number(bad)
    env.close()
    env.close()
