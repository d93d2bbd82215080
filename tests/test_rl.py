"""harness.rl: the PettingZoo AEC environment, its encodings, clone(), the Gymnasium wrapper, the referee's deals."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from harness.history.v1 import build_record

_EXTRA = "harness.rl needs the 'rl' extra (in the test extra too): pip install -e '.[test]'"
pytest.importorskip("pettingzoo", reason=_EXTRA)
pytest.importorskip("gymnasium", reason=_EXTRA)

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from harness.deals import hand_seed  # noqa: E402
from harness.engine import Action, ActionKind, GameConfig, HandState  # noqa: E402
from harness.engine.cards import parse_cards  # noqa: E402
from harness.rl import encoding, env, raw_env  # noqa: E402
from harness.rl.gym import SdkOpponent, SingleAgentEnv, random_policy  # noqa: E402
from protocol.sdk import Action as SdkAction  # noqa: E402
from protocol.sdk import Bot, DecisionState  # noqa: E402
from tests.rl_helpers import assert_as_bot_sees_the_environments_view  # noqa: E402

GAMES = {
    "no-limit": GameConfig(),
    "fixed-limit": GameConfig(structure="fixed-limit", cap=4),
    "ante-only": GameConfig(blinds=False, ante=2, min_bet=10, small_blind=0, big_blind=0),
    "no-limit-ante-per-seat": GameConfig(ante=1, replacements="per-seat"),
}


# Every structure and setting at 2, 3 and 6 seats (per-seat replacements seat at most 4, R4.4).
TABLES = [(n, g) for n in (2, 3, 6) for g in GAMES if n <= 4 or GAMES[g].replacements != "per-seat"]


@pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's advice to flatten Dict observations
@pytest.mark.parametrize(("n", "game"), TABLES)
def test_pettingzoo_api_and_seed_tests(n: int, game: str) -> None:
    api_test(env(num_players=n, game=GAMES[game], starting_stack=300), num_cycles=300, verbose_progress=False)
    seed_test(lambda: env(num_players=n, game=GAMES[game], starting_stack=300), num_cycles=100)


def test_the_action_encoding() -> None:
    assert encoding.N_ACTIONS == 2 + len(encoding.SIZES) + 99
    assert encoding.DISCARDS[0] == () and encoding.DISCARDS[-1] == (3, 4, 5, 6)
    assert len(set(encoding.DISCARDS)) == 99 and max(map(len, encoding.DISCARDS)) == 4
    state = HandState.start(GameConfig(), [1000, 1000], 0, 7)  # the button (small blind) to act, 5 to call
    m = encoding.mask(state)
    assert m[encoding.FOLD] and m[encoding.CALL] and not m[encoding.DRAW_BASE:].any()
    amounts = {encoding.decode(state, i)[1] for i in np.flatnonzero(m) if i >= encoding.BET_BASE}
    lg = state.legal()
    assert lg.min_to in amounts and lg.max_to in amounts  # the minimum and the all-in are always offered
    assert encoding.decode(state, 2 + encoding.SIZES.index("pot")) == ("raise", 5 + 5 + 20)  # 5 + call + pot 20
    fl = HandState.start(GameConfig(structure="fixed-limit"), [1000, 1000], 0, 7)
    m = encoding.mask(fl)
    assert [encoding.decode(fl, i) for i in np.flatnonzero(m)][2:] == [("raise", 20)]  # the one exact amount


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), n=st.integers(2, 6), game=st.sampled_from(list(GAMES)),
       stack=st.sampled_from([15, 40, 300, 1000]), choice=st.randoms(use_true_random=False))
def test_masks_never_allow_an_illegal_action(seed: int, n: int, game: str, stack: int, choice: random.Random) -> None:
    config = GAMES[game]
    if n > 4 and config.replacements == "per-seat":
        config = GameConfig(ante=1)
    e = raw_env(num_players=n, game=config, starting_stack=stack)
    for hand in range(3):
        e.reset(seed=seed, options={"hand": hand})
        while not e.state.is_complete:
            agent = e.agent_selection
            mask = e.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            assert len(legal) >= 1
            for i in legal:  # every allowed index decodes to an action the engine accepts (apply raises if not)
                e.clone()._apply(i)
            for i in np.flatnonzero(mask == 0):  # and every other index is refused
                with pytest.raises(ValueError):
                    encoding.decode(e.state, i)
            for other in e.agents:  # only the agent to act has a legal action
                if other != agent:
                    assert not e.observe(other)["action_mask"].any()
            e.step(int(choice.choice(legal.tolist())))


def test_clone_then_different_actions_leave_the_original_untouched() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=99)
    e.step(1)
    before = (build_record(e.state), e.observe(e.agent_selection)["observation"].copy(), e.agent_selection)
    copy = e.clone()
    while not copy.state.is_complete:  # the copy plays to the end, folding where it can
        m = copy.observe(copy.agent_selection)["action_mask"]
        copy.step(0 if m[0] else int(np.flatnonzero(m)[-1]))
    after = (build_record(e.state), e.observe(e.agent_selection)["observation"], e.agent_selection)
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2] == after[2]
    assert not any(e.terminations.values()) and all(copy.terminations.values())
    # and the same actions on a copy give the same hand as on the original
    twin = e.clone()
    for x in (e, twin):
        while not x.state.is_complete:
            m = x.observe(x.agent_selection)["action_mask"]
            x.step(int(np.flatnonzero(m)[len(np.flatnonzero(m)) // 2]))
    assert build_record(e.state) == build_record(twin.state)


def test_engine_clone_deals_what_the_original_deals() -> None:
    # Six players discarding four each exhaust the stock: the copy's R4.4 reshuffle is the original's.
    for seed in range(50):
        a = HandState.start(GameConfig(), [1000] * 6, seed % 6, seed)
        while a.phase != "draw":
            a.call() if "call" in a.legal().actions else a.check()
        b = a.clone()
        c = b.clone()
        for x in (a, b, c):
            while not x.is_complete:
                if x.phase == "draw":
                    x.draw(x.cards[x.to_act][:4])
                else:
                    x.check() if "check" in x.legal().actions else x.call()
        assert build_record(a) == build_record(b) == build_record(c)


def test_seeded_reset_deals_the_referees_hands() -> None:
    e = raw_env(num_players=3, starting_stack=500)
    e.reset(seed=1234)
    first = e.state.hole_cards
    e.reset()
    assert e.hand == 1 and e.state.seed == hand_seed(1234, 1) and e.state.button == 1
    e.reset(seed=1234)
    assert e.hand == 0 and e.state.hole_cards == first
    e.reset(seed=1234, options={"hand": 7})
    assert e.state.seed == hand_seed(1234, 7) and e.state.button == 7 % 3


def test_a_referee_match_replays_in_the_environment(tmp_path: Path) -> None:
    from harness.match.referee import BotSpec, Limits, MatchSpec, play_match

    seed = 0xC0FFEE
    bots = [BotSpec(f"r{i}", (sys.executable, "-m", "bots.random_bot"), env={"RANDOM_BOT_SEED": str(i)})
            for i in range(3)]
    game = GameConfig(ante=1)
    spec = MatchSpec(game=game, hands=12, seed=seed, starting_stack=400)
    result = play_match(bots, spec, Limits(decision_ms=5000, startup_ms=20000), tmp_path)
    assert result.hands_played == 12
    e = raw_env(num_players=3, game=game, starting_stack=400)
    e.reset(seed=seed)
    lines = (tmp_path / "hands.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    records = [r for r in records if "hand_id" in r]
    assert len(records) == 12
    for h, rec in enumerate(records):
        if h:
            e.reset()
        players = rec["players"]
        assert rec["seed"] == e.state.seed and rec["button"] == e.state.button
        assert [list(parse_cards(p["dealt"])) for p in players] == [list(c) for c in e.state.hole_cards]
        for entry in rec["actions"]:  # the referee's actions (docs/HISTORY.md), replayed in the environment
            assert e.state.to_act == entry["seat"]
            kind = ActionKind(entry["kind"])
            if kind is ActionKind.DRAW:
                e.state.apply(Action(kind, 0, tuple(parse_cards(entry["discards"]))))
            else:
                e.state.apply(Action(kind, entry["to"] if kind in (ActionKind.BET, ActionKind.RAISE) else 0))
        assert e.state.is_complete
        assert list(e.state.result().net) == [p["net"] for p in players] == result.hand_nets[h]
        assert [list(parse_cards(p["final_cards"])) for p in players] == [list(c) for c in e.state.cards]


def test_single_agent_env_with_policies_and_an_sdk_bot() -> None:
    from bots.solid import Solid

    gym_env = SingleAgentEnv([SdkOpponent(Solid()), random_policy(1)], seat="rotate", starting_stack=200)
    learner = random_policy(2)
    obs, info = gym_env.reset(seed=5)
    assert gym_env.observation_space.contains(obs)
    hands, seats = 0, set()
    while hands < 30:
        obs, reward, terminated, truncated, info = gym_env.step(learner(obs))
        if terminated:
            hands += 1
            seats.add(gym_env.seat)
            obs, info = gym_env.reset()
        assert obs["action_mask"].any() or terminated
    assert seats == {0, 1, 2} and gym_env.opponents[0].faults == 0
    with pytest.raises(ValueError):
        gym_env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def test_unseeded_random_opponents_follow_the_environments_seed() -> None:
    """random_policy() without a seed draws from the environment's generator: reset(seed=) reproduces a run."""
    def run(env: SingleAgentEnv, seed: int) -> list[tuple[int, float]]:
        learner = random_policy(2)
        obs, _ = env.reset(seed=seed)
        seen = []
        while len(seen) < 40:
            action = learner(obs)
            obs, reward, terminated, _, info = env.step(action)
            seen.append((action, reward))
            if terminated:
                obs, _ = env.reset()
        return seen

    first = run(SingleAgentEnv([random_policy(), random_policy()], starting_stack=200), 5)
    assert run(SingleAgentEnv([random_policy(), random_policy()], starting_stack=200), 5) == first
    again = SingleAgentEnv([random_policy(), random_policy()], starting_stack=200)
    run(again, 9)
    assert run(again, 5) == first  # the same environment, seeded again
    learner = random_policy(env=again)  # a learner can follow the environment too
    again.reset(seed=5)
    picks = [learner({"action_mask": np.ones(8, dtype=np.int8)}) for _ in range(5)]
    again.reset(seed=5)
    assert [learner({"action_mask": np.ones(8, dtype=np.int8)}) for _ in range(5)] == picks


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=7)
    with pytest.raises(ValueError, match="per-seat"):
        raw_env(num_players=5, replacements="per-seat")
    from harness.engine import GameConfigError

    with pytest.raises(GameConfigError):
        raw_env(big_blind=3)


def test_as_bot_sees_what_the_environment_shows() -> None:
    assert_as_bot_sees_the_environments_view([GAMES[game] for game in ("no-limit", "fixed-limit", "ante-only")], 77)


def test_a_policy_runs_through_as_bot_in_a_real_match(tmp_path: Path) -> None:
    import subprocess

    bot = tmp_path / "policy_bot.py"
    bot.write_text(
        "import numpy as np\n"
        "from harness.rl import as_bot\n\n"
        "from harness.rl.encoding import DRAW_BASE\n\n"
        "def policy(view):  # scripted: the largest legal bet (else call); in the draw, stand pat\n"
        "    legal = np.flatnonzero(view['action_mask'])\n"
        "    return DRAW_BASE if legal[0] >= DRAW_BASE else int(legal[-1])\n\n"
        "if __name__ == '__main__':\n"
        "    as_bot(policy).run()\n"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "match", "--sandbox", "off", "--hands", "20", "--seed", "9",
         "--bot", f"policy={sys.executable} {bot}", "--bot", f"caller={sys.executable} -m bots.caller",
         "--out", str(tmp_path / "m")], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in (tmp_path / "m" / "logs" / "0-policy.err").read_text()
    table = done.stdout
    assert "policy" in table and "ok" in table
    assert all(line.split()[-1] == "ok" for line in table.splitlines() if line.startswith(("policy", "caller")))


@pytest.mark.parametrize(("game", "settings"), [("deuce-to-seven-triple-draw", ["--structure", "fixed-limit"]),
                                               ("five-card-draw", ["--ante", "1", "--min-bet", "10"])])
def test_a_policy_bot_refuses_another_game_in_one_line(tmp_path: Path, game: str, settings: list[str]) -> None:
    """Its observation is Seven Card Draw's: told another game at match_start, it says so and leaves."""
    import subprocess

    bot = tmp_path / "policy_bot.py"
    bot.write_text(POLICY_BOT.replace("seats=2", ""))
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "match", "--sandbox", "off", "--hands", "2", "--seed", "9",
         "--game", game, *settings, "--bot", f"policy={sys.executable} {bot}",
         "--bot", f"caller={sys.executable} -m bots.caller", "--out", str(tmp_path / "m")],
        cwd=root, capture_output=True, text=True, timeout=120)
    err = (tmp_path / "m" / "logs" / "0-policy.err").read_text()
    assert err.strip().splitlines() == [f"as_bot: this policy plays seven-card-draw only (its observation is that "
                                        f"game's), not {game}; leaving the match"], err
    assert "bot 'policy' was put out" in done.stderr, done.stderr


def test_vector_env_steps_many_tables_like_single_ones() -> None:
    from harness.rl.vector import VectorEnv

    venv = VectorEnv(4, num_players=3, starting_stack=200)
    views, _ = venv.reset(seed=21)
    obs, masks = views["observation"], views["action_mask"]
    assert obs.shape == (4, encoding.obs_size(3)) and masks.shape == (4, encoding.N_ACTIONS)
    singles = [raw_env(num_players=3, starting_stack=200) for _ in range(4)]
    from harness.deals import match_seed

    for i, t in enumerate(singles):
        t.reset(seed=match_seed(21, ["vector", str(i)]))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(300):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        for i, t in enumerate(singles):  # the same action on a single table gives the same row
            assert np.array_equal(obs[i], t.observe(t.agent_selection)["observation"])
            assert np.array_equal(masks[i], t.observe(t.agent_selection)["action_mask"])
            assert masks[i][actions[i]] == 1
        acting = [t.agent_selection for t in singles]
        views, reward, done, truncated, info = venv.step(actions)
        obs, masks = views["observation"], views["action_mask"]
        assert not truncated.any()
        for i, t in enumerate(singles):
            t.step(int(actions[i]))
            if done[i]:
                ended += 1
                assert all(t.terminations.values())
                assert info["rewards"][i].tolist() == pytest.approx([t.rewards[a] for a in t.possible_agents])
                assert reward[i] == pytest.approx(t.rewards[acting[i]])
                # the finished hand's last observation (shown cards included) is returned, not lost
                assert info["_final_obs"][i]
                assert np.array_equal(info["final_obs"][i]["observation"], t.observe(acting[i])["observation"])
                for s, agent in enumerate(t.possible_agents):
                    assert np.array_equal(info["final_info"]["observations"][i][s], t.observe(agent)["observation"])
                t.reset()
            else:
                assert reward[i] == 0 and not info.get("_final_obs", np.zeros(4, bool))[i]
    assert ended > 20


def test_the_env_bench_reports_the_rules_share_and_the_ceiling() -> None:
    from harness.rl import bench

    figures = bench.run(seconds=0.05)
    assert figures["rules_us_per_step"] > 0
    # the ceiling divides the rules' rate by the single table's: a vector form that did no work but the rules
    expected = 1e6 / figures["rules_us_per_step"] / figures["steps_per_s"]
    assert figures["vector_over_single_ceiling"] == pytest.approx(expected, rel=0.02)


def test_usage_mistakes_are_named() -> None:
    """Each mistake of a caller of the Python API is a ValueError/KeyError/RuntimeError saying what was wrong."""
    from harness.rl.vector import VectorEnv

    e = raw_env(num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        e.clone()
    with pytest.raises(ValueError, match="options must be a dict"):
        e.reset(seed=1, options=[1])  # type: ignore[arg-type]
    e.reset(seed=1)
    with pytest.raises(KeyError, match="player_0, player_1"):
        e.observe("player_9")
    for bad in (1.7, "x", None, 1.0):  # a float is never cut to a whole number
        with pytest.raises(ValueError, match="an action is an index"):
            e.step(bad)  # type: ignore[arg-type]
    e.step(np.int64(1))  # a numpy integer is an index
    with pytest.raises(ValueError, match="game must be a GameConfig"):
        raw_env(game=5)  # type: ignore[arg-type]
    as_mapping = raw_env(game={"structure": "fixed-limit", "cap": 3})
    assert as_mapping.game == GameConfig(structure="fixed-limit", cap=3)

    venv = VectorEnv(4, num_players=2)
    venv.reset(seed=1)
    before = [len(t.state.history) for t in venv.tables]
    for wrong in ([1, 1, 1], [1] * 5):
        with pytest.raises(ValueError, match=f"expected one per table, 4, got {len(wrong)}"):
            venv.step(wrong)
        assert [len(t.state.history) for t in venv.tables] == before  # no table moved


def test_seeds_are_read_alike_by_every_environment() -> None:
    from harness.rl.vector import VectorEnv

    a, b = raw_env(num_players=2), raw_env(num_players=2)
    a.reset(seed=16)
    b.reset(seed="0x10")
    assert a.state.cards == b.state.cards
    ga, gb = SingleAgentEnv([random_policy(1)]), SingleAgentEnv([random_policy(1)])
    assert np.array_equal(ga.reset(seed=16)[0]["observation"], gb.reset(seed="0x10")[0]["observation"])
    va, vb = VectorEnv(2), VectorEnv(2)
    assert np.array_equal(va.reset(seed=16)[0]["observation"], vb.reset(seed="0x10")[0]["observation"])
    with pytest.raises(ValueError, match="seed"):
        vb.reset(seed=-1)


def test_an_opponent_policys_illegal_action_names_its_seat() -> None:
    g = SingleAgentEnv([lambda view: 999], seat=1)
    with pytest.raises(ValueError, match="opponent policy at seat 0: action 999 is not legal"):
        g.reset(seed=3)


def test_as_bot_of_a_policy_for_another_table_size_says_so() -> None:
    from harness.rl import as_bot

    with pytest.raises(ValueError, match="seats must be a table size"):
        as_bot(lambda view: 1, seats=7)
    e = raw_env(num_players=3)
    e.reset(seed=5)
    s, names = e.state.to_act, ["a", "b", "c"]
    bot = SdkOpponent(as_bot(lambda view: 1, seats=2))  # made for heads-up, seated at three
    bot.start_match(e, s, names)
    bot.start_hand(e.state, s, names)
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        bot.decide(e.state, s)  # the SDK prints what the bot raised and answers the default action
    assert "this policy plays 2 seats (observations of 140 values); this table has 3" in err.getvalue()


POLICY_BOT = (
    "import numpy as np\n"
    "from harness.rl import as_bot\n\n"
    "def policy(view):  # scripted: the largest legal action index\n"
    "    return int(np.flatnonzero(view['action_mask'])[-1])\n\n"
    "if __name__ == '__main__':\n"
    "    as_bot(policy, seats=2).run()\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["required", "off"])
def test_a_policy_bot_outside_the_repository_passes_its_heads_up_entry_check(tmp_path: Path, mode: str) -> None:
    """The sandbox shows a bot ``harness.rl`` (as it shows the SDK); at a table of another size the bot says so."""
    import os
    import subprocess

    from harness.host.sandbox import support

    sup = support()
    if mode == "required" and not (sup.namespaces and sup.cgroups.available):
        from tests.skip_helpers import skip_loudly

        skip_loudly("SANDBOX NOT AVAILABLE HERE: install bubblewrap (apt-get install bubblewrap), run as root")
    home = tmp_path / "policy"
    home.mkdir()
    (home / "policy_bot.py").write_text(POLICY_BOT)
    for p in (tmp_path, home):
        os.chmod(p, 0o755)  # the sandbox runs the bot as a uid of its own
    root = Path(__file__).resolve().parents[1]

    def check(*opponents: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harness.cli", "check-bot", "--sandbox", mode, "--cwd", str(home),
             *[a for o in opponents for a in ("--opponent", o)], "--", sys.executable, "policy_bot.py"],
            cwd=root, capture_output=True, text=True, timeout=120)

    heads_up = check("caller")
    assert heads_up.returncode == 0, heads_up.stdout + heads_up.stderr
    three = check()  # the default entry check seats three
    assert three.returncode == 1
    assert "this policy plays 2 seats (observations of 140 values); this table has 3" in three.stdout


def test_an_in_process_bot_that_raises_past_max_to_goes_all_in_as_at_the_referee() -> None:
    """R3.10: a raise above ``max_to`` is the all-in the bot meant, capped (E15), never a fault; the in-process
    opponent answers as the referee does."""
    class Shover(Bot):
        def act(self, state: DecisionState) -> SdkAction:
            kind = "raise" if state.can("raise") else "bet" if state.can("bet") else None
            return SdkAction(kind, 10**6) if kind else super().act(state)

    e = raw_env(num_players=2)
    e.reset(seed=3)
    s, names = e.state.to_act, ["a", "b"]
    bot = SdkOpponent(Shover())
    bot.start_match(e, s, names)
    bot.start_hand(e.state, s, names)
    action = bot.decide(e.state, s)
    assert bot.faults == 0 and action == e.state.capped(Action(action.kind, 10**6))
    assert action.kind in (ActionKind.BET, ActionKind.RAISE) and action.amount == e.state.legal().max_to
