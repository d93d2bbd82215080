"""``harness sprt``: the GSPRT on duplicate blocks (harness/tournament/sprt.py) and the command."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.engine import GameConfig
from harness.specs import BotSpec, Limits, MatchResult
from harness.tournament.sprt import (
    BLOCKS_FILE,
    MIN_BLOCKS,
    Block,
    BlockFailed,
    SprtError,
    SprtSettings,
    Status,
    block_seed,
    bounds,
    decide,
    llr,
    llr_moments,
    lock_test,
    run_sprt,
    status,
)
from tests.fault_helpers import assert_nothing_left
from tests.sandbox_helpers import JAIL_MODE, without_isolation_warning

ROOT = Path(__file__).resolve().parents[1]
HARNESS = [sys.executable, "-m", "harness.cli"]

# --- the statistics --------------------------------------------------------------------------------------------


def test_wald_bounds_and_the_normal_approximation() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    # n (mu1 - mu0) (2 x_bar - mu0 - mu1) / (2 var): x = (0, 10), mean 5, var 25
    assert llr([0.0, 10.0], 0.0, 5.0) == pytest.approx(2 * 5 * (10 - 5) / 50)
    assert llr([0.0, 10.0], 0.0, 10.0) == pytest.approx(0.0)  # the mean at the midpoint: no evidence either way
    assert llr([3.0], 0.0, 5.0) == 0.0  # one block: no variance yet
    assert llr([0.0] * 5, 0.0, 5.0) == -math.inf and llr([9.0] * 5, 0.0, 5.0) == math.inf


@pytest.mark.parametrize("bad", [dict(alpha=0.0), dict(beta=1.0), dict(alpha=0.6, beta=0.5), dict(mu0=5.0)])
def test_bad_settings_are_refused(bad: dict) -> None:
    args = dict(mu0=0.0, mu1=5.0, alpha=0.05, beta=0.05) | bad
    with pytest.raises(SprtError):
        status([], 0, **args)


def _simulate(true_diff: float, rng: random.Random, heavy: bool, min_blocks: int) -> str:
    """One test on simulated blocks of known mean ``true_diff`` (bb/100), sd 30 (normal or Student t, 3 dof)."""
    lower, upper = bounds(0.05, 0.05)
    n, total, squares = 0, 0.0, 0.0  # running sums: status() over the whole list each block would be quadratic
    while True:
        z = rng.gauss(0.0, 1.0)
        if heavy:  # t(3) scaled to sd 1: the heavy tails of all-in pots
            z /= math.sqrt(sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3)) / 3) * math.sqrt(3)
        x = true_diff + 30.0 * z
        n, total, squares = n + 1, total + x, squares + x * x
        mean = total / n
        value = llr_moments(n, mean, max(squares / n - mean * mean, 0.0), 0.0, 5.0)
        result = decide(value, n, 200 * n, lower, upper, None, min_blocks)
        if result != "continue":
            return result


RUNS = 300
#: Wrong decisions allowed above alpha (beta): 0.04, about 3.2 standard errors of a rate of 0.05 over 300 runs.
TOLERANCE = 0.04


@pytest.mark.parametrize("heavy", [False, True], ids=["normal", "heavy-tailed"])
@pytest.mark.parametrize(("true_diff", "wrong"), [(0.0, "H1"), (5.0, "H0")], ids=["at-bb0", "at-bb1"])
def test_wrong_decisions_stay_within_alpha_and_beta(true_diff: float, wrong: str, heavy: bool) -> None:
    rng = random.Random(f"sprt-{true_diff}-{heavy}")
    results = [_simulate(true_diff, rng, heavy, MIN_BLOCKS) for _ in range(RUNS)]
    assert results.count(wrong) / RUNS <= 0.05 + TOLERANCE, results.count(wrong)


def test_stopping_too_early_breaks_the_error_rates() -> None:
    # Why MIN_BLOCKS: with the variance estimated from 2 blocks, H1 is accepted far more often than alpha.
    rng = random.Random(3)
    results = [_simulate(0.0, rng, False, 2) for _ in range(RUNS)]
    assert results.count("H1") / RUNS > 0.05 + TOLERANCE


def test_identical_bots_accept_h0() -> None:
    # Identical deterministic bots on duplicate deals: every block is exactly 0.
    assert status([0.0] * MIN_BLOCKS, 3200, 0.0, 5.0, 0.05, 0.05).result == "H0"
    assert status([0.0] * (MIN_BLOCKS - 1), 3000, 0.0, 5.0, 0.05, 0.05).result == "continue"
    # Identical random bots: true difference 0 = bb0, decided H0 at least 1 - alpha - TOLERANCE of the time.
    rng = random.Random(11)
    results = [_simulate(0.0, rng, True, MIN_BLOCKS) for _ in range(RUNS)]
    assert results.count("H0") / RUNS >= 1 - 0.05 - TOLERANCE


def test_the_verdicts_words_are_true_of_what_was_accepted() -> None:
    """H0 bounds nothing from below: a new bot 320 bb/100 worse is "not better by bb1", never "better by at most"."""
    worse = Status("H0", -3.1, -2.9, 2.9, 40, 8000, -320.0, (-400.0, -240.0))
    line = worse.verdict("new", "old", 0.0, 5.0)
    assert "better than old by at most" not in line
    assert line.startswith("H0 accepted: new is not better than old by 5 bb/100")
    assert "its estimate -320.0 bb/100 [-400.0, -240.0]" in line
    better = Status("H1", 3.0, -2.9, 2.9, 40, 8000, 9.5, (6.0, 13.0))
    assert better.verdict("new", "old", 0.0, 5.0).startswith("H1 accepted: new is better than old by at least 5 bb/100")
    assert Status("continue", 0.0, -2.9, 2.9, 3, 600, 1.0, (-5.0, 7.0)).verdict("new", "old", 0.0, 5.0) == ""


def test_max_hands_makes_it_inconclusive() -> None:
    st = status([10.0, -10.0] * 10, 4000, 0.0, 5.0, 0.05, 0.05, max_hands=4000)
    assert st.result == "inconclusive" and st.to_dict()["hands"] == 4000
    assert st.ci95[0] < 0.0 < st.ci95[1]


def test_running_moments_match_the_list_form() -> None:
    rng = random.Random(5)
    scores = [rng.gauss(3.0, 20.0) for _ in range(40)]
    st = status(scores, 8000, 0.0, 5.0, 0.05, 0.05)
    mean = sum(scores) / 40
    var = sum(x * x for x in scores) / 40 - mean * mean
    assert llr_moments(40, mean, var, 0.0, 5.0) == pytest.approx(st.llr)
    assert decide(st.llr, 40, 8000, st.lower, st.upper) == st.result


def test_block_seeds_are_keyed_and_distinct() -> None:
    assert block_seed(1, 0) == block_seed(1, 0) != block_seed(1, 1) != block_seed(2, 1)


# --- the loop: storing and resuming, with a simulated match -----------------------------------------------------


class FakePlay:
    """A match function without processes: new wins a deterministic amount drawn from the deal seed.

    ``put_out``: from that call on (0-based), the old bot is put out of every match.
    """

    def __init__(self, stop_after: int | None = None, put_out: int | None = None) -> None:
        self.calls = 0
        self.stop_after = stop_after
        self.put_out = put_out

    def __call__(self, bots: list[BotSpec], spec, limits, match_dir: Path) -> MatchResult:  # noqa: ANN001
        if self.stop_after is not None and self.calls == self.stop_after:
            raise KeyboardInterrupt
        self.calls += 1
        rotation = int(spec.match_id[-1])
        luck = int.from_bytes(hashlib.sha256(b"%d" % spec.seed).digest()[:4], "big") % 2001 - 1000
        edge = 40 + int.from_bytes(hashlib.sha256(b"%d/%d" % (spec.seed, rotation)).digest()[:4], "big") % 200
        new_seat = [b.name for b in bots].index("new")
        net_new = edge + (luck if new_seat == 0 else -luck)  # duplicate: the deal's luck cancels over the block
        net = [0, 0]
        net[new_seat], net[1 - new_seat] = net_new, -net_new
        states = ["ok", "ok"]
        if self.put_out is not None and self.calls > self.put_out:
            states[1 - new_seat] = "crash: exited with status 3"
        return MatchResult(spec.match_id, spec.seed, spec.hands, [b.name for b in bots], net,
                           [], [{}, {}], states)


def _settings(**kw) -> SprtSettings:  # noqa: ANN003
    base = dict(new=BotSpec("new", ("x",)), old=BotSpec("old", ("y",)), bb0=0.0, bb1=5.0, alpha=0.05, beta=0.05,
                hands=20, seed=12345, game=GameConfig())
    return SprtSettings(**(base | kw))


def test_an_interrupted_test_resumes_to_the_same_result(tmp_path: Path) -> None:
    whole = run_sprt(_settings(), tmp_path / "whole", FakePlay())
    assert whole.result == "H1" and whole.blocks >= MIN_BLOCKS
    cut = tmp_path / "cut"
    first = FakePlay(stop_after=2 * 5 + 1)  # in the middle of block 5
    with pytest.raises(KeyboardInterrupt):
        run_sprt(_settings(), cut, first)
    assert len((cut / BLOCKS_FILE).read_text().splitlines()) == 5
    with (cut / BLOCKS_FILE).open("a") as f:  # a line cut by the interruption is dropped, its block played again
        f.write('{"block": 5, "ne')
    second = FakePlay()
    seen = []
    resumed = run_sprt(_settings(), cut, second, report=seen.append)
    assert resumed == whole
    assert second.calls == 2 * (whole.blocks - 5)  # only the blocks not stored were played
    assert seen[0].blocks == 5
    lines = (cut / BLOCKS_FILE).read_text().splitlines()
    assert [Block.from_dict(json.loads(x)).index for x in lines] == list(range(whole.blocks))
    # Run again once decided: nothing is played, the same result.
    assert run_sprt(_settings(), cut, FakePlay(stop_after=0)) == whole


def test_a_block_where_a_bot_was_put_out_is_not_counted(tmp_path: Path) -> None:
    with pytest.raises(BlockFailed, match=r"block 3 \(rotation 1\) not counted: bot 'old' was put out: crash"):
        run_sprt(_settings(), tmp_path, FakePlay(put_out=5))  # block 3's second rotation is the 6th match
    assert len((tmp_path / BLOCKS_FILE).read_text().splitlines()) == 2  # the blocks before it are kept
    assert run_sprt(_settings(), tmp_path, FakePlay()) == run_sprt(_settings(), tmp_path / "whole", FakePlay())


def test_a_second_run_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    from harness.tournament.results import LOCK_FILE

    with lock_test(tmp_path):  # what a first run holds for its life
        with pytest.raises(SprtError, match=rf"is in use by another harness run \(pid {os.getpid()}\)"):
            run_sprt(_settings(), tmp_path, FakePlay(stop_after=0))
        # A real second run: one line naming the holder, before any bot starts; nothing of the first touched.
        done = _sprt("--bot", "new=python -m bots.caller", "--bot", "old=python -m bots.caller", "--out",
                     str(tmp_path))
        assert done.returncode == 2 and done.stderr == (
            f"harness sprt: {tmp_path} is in use by another harness run (pid {os.getpid()}); wait for it to end, "
            "or use another --out\n"), done.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE]
    assert run_sprt(_settings(), tmp_path, FakePlay()).result == "H1"  # the lock file is no other test's


def test_another_test_in_the_directory_is_refused(tmp_path: Path) -> None:
    run_sprt(_settings(max_hands=100), tmp_path, FakePlay())
    with pytest.raises(SprtError, match=r"different --bb1 \(5.0 there, 10.0 here\)"):
        run_sprt(_settings(bb1=10.0), tmp_path, FakePlay())
    for changed, said in [(dict(min_blocks=20), "--min-blocks (16 there, 20 here)"),
                          (dict(limits=Limits(decision_ms=50)), "--decision-ms (1000 there, 50 here)"),
                          (dict(limits=Limits(max_faults=3)), "limits.max_faults (10 there, 3 here)"),
                          (dict(sandbox="off"), '--sandbox ("auto" there, "off" here)')]:
        with pytest.raises(SprtError, match=re.escape(f"holds another test (different {said})")):
            run_sprt(_settings(**changed), tmp_path, FakePlay())
    # max_hands may change: the test plays on
    assert run_sprt(_settings(max_hands=None), tmp_path, FakePlay()).result == "H1"
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("x")
    with pytest.raises(SprtError, match="not empty"):
        run_sprt(_settings(), other, FakePlay())


# --- the command, with real bots ---------------------------------------------------------------------------------


def _sprt(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:  # an outer limit only
    return subprocess.run([*HARNESS, "sprt", "--sandbox", "off", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def _errors(stderr: str) -> list[str]:
    """stderr without the lines every run that starts bots prints (the test, the sandbox's notice)."""
    return [line for line in stderr.splitlines()
            if not line.startswith(("harness sprt: test in ", "harness sprt: notice: the sandbox is off"))]


def test_usage_errors_are_one_line(tmp_path: Path) -> None:
    for args, words in [(["--bot", "a=python -m bots.caller"], "two bots"),
                        (["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", "--bb0", "5",
                          "--bb1", "5"], "--bb0 must be below --bb1"),
                        (["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", "--alpha", "0"],
                         "--alpha"),
                        (["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", "--min-blocks",
                          "1"], "--min-blocks"),
                        (["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", "--stack",
                          "183251937962"], "--stack 183251937962 is too deep for the protocol's")]:
        done = _sprt(*args, "--out", str(tmp_path / "x"))
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_seed_is_refused_for_what_it_is_and_a_short_one_is_warned_of(tmp_path: Path) -> None:
    bots = ["--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", "--hands", "2", "--min-blocks",
            "2"]
    done = _sprt(*bots, "--seed", "-5", "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and done.stderr == \
        "harness sprt: --seed: a seed is a whole number from 0 up, not negative, got '-5'\n", done.stderr
    for more in (["--seed", "7"], []):  # given, then read back from the test on resume
        done = _sprt(*bots, *more, "--out", str(tmp_path / "t"))
        assert done.returncode == 0, done.stderr
        warned = [line for line in done.stderr.splitlines() if "warning:" in line]
        where = "--seed" if more else f"the seed in {tmp_path / 't' / 'sprt.json'}"
        assert warned == [f"harness sprt: warning: {where} = 7 is short enough to guess: a bot that finds it can "
                          "deal every hand in advance. Fine for repeatable research; for a contest leave the seed "
                          "out (a secret 256-bit seed is drawn, committed before play and revealed after the last "
                          "match)."], done.stderr


@pytest.mark.parametrize(("args", "said"), [
    (["--bb1", "inf"], "--bb1 must be a finite number of bb/100, got inf"),
    (["--bb0", "-inf"], "--bb0 must be a finite number of bb/100, got -inf"),
    (["--bb0", "nan"], "--bb0 must be a finite number of bb/100, got nan"),
    (["--bb1", "1e400"], "--bb1 must be a finite number of bb/100, got inf"),
    (["--bb0", "-1e308", "--bb1", "1e308"], "--bb0 must be between -10000 and 10000 bb/100, got -1e+308"),
    (["--bb1", "20000"], "--bb1 must be between -10000 and 10000 bb/100, got 20000"),
    (["--alpha", "5e-324"], "--alpha must be at least 1e-300 and below 1, got 5e-324"),
    (["--beta", "5e-324"], "--beta must be at least 1e-300 and below 1, got 5e-324"),
    (["--alpha", "nan"], "--alpha must be at least 1e-300 and below 1, got nan"),
], ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_hypotheses_and_error_rates_must_give_finite_bounds(tmp_path: Path, args: list[str], said: str) -> None:
    done = _sprt("--bot", "a=python -m bots.caller", "--bot", "b=python -m bots.caller", *args, "--out",
                 str(tmp_path / "x"))
    assert done.returncode == 2 and done.stderr.startswith(f"harness sprt: {said}"), done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "x").exists()  # nothing written


def test_the_json_object_is_standard_json() -> None:
    st = status([0.0] * 3, 30, 0.0, 5.0, 0.05, 0.05)
    assert st.to_dict()["llr"] == "-inf" and st.to_dict()["ci95"] == [0.0, 0.0]
    odd = dataclasses.replace(st, llr=math.nan, ci95=(-math.inf, math.nan))
    assert odd.to_dict()["llr"] is None and odd.to_dict()["ci95"] == ["-inf", None]  # a NaN is never "-inf"
    json.dumps(odd.to_dict(), allow_nan=False)


def test_identical_real_bots_accept_h0_and_the_command_resumes(tmp_path: Path) -> None:
    out = tmp_path / "same"
    common = ["--bot", "new=python -m bots.caller", "--bot", "old=python -m bots.caller", "--hands", "5",
              "--min-blocks", "2", "--seed", "0x51", "--out", str(out), "--json"]
    first = _sprt(*common, "--max-hands", "10")  # one block, then inconclusive (exit 3)
    assert first.returncode == 3, first.stderr
    assert json.loads(first.stdout.splitlines()[-1])["result"] == "inconclusive"
    assert "to play on" in first.stdout
    assert "--max-hands 20" in first.stdout.split("raise it:")[1]  # the hint plays on: twice the hands, not the same
    done = _sprt(*common)
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["result"] == "H0" and final["hands"] == 20 and final["bb_per_100"] == 0.0
    assert final["llr"] == "-inf" and final["lower"] == pytest.approx(math.log(0.05 / 0.95), abs=1e-4)
    assert set(final) == {"result", "llr", "lower", "upper", "blocks", "hands", "bb_per_100", "ci95"}
    assert done.stdout.splitlines()[0].startswith("block    1")  # the stored block is shown, then block 2


ALWAYS_RAISES = ("from protocol.sdk import Bot\n\nclass Always(Bot):\n    def act(self, state):\n"
                 "        raise KeyError('x')\n\n    def draw(self, state):\n        raise KeyError('y')\n\n"
                 "raise SystemExit(Always().run())\n")


@pytest.mark.parametrize(("old", "said"), [
    ("python -m tests.fixtures.broken_bots.crash_mid_hand", "bot 'old' was put out: crash"),
    ("python {always}", "bot 'old' raised an error in every one of its "),
    ("python -m tests.fixtures.broken_bots.exit_at_start", "bot 'old' failed to start: "),
    ("python -m bots.nosuch", "bot 'old' failed to start: exited before its hello (exit status 1); the cause: the "
                              "Python module bots.nosuch is not installed"),
], ids=["put-out", "raises-always", "failed-start", "failed-start-cause"])
def test_a_block_that_means_nothing_for_a_bot_stops_the_test(tmp_path: Path, old: str, said: str) -> None:
    always = tmp_path / "always.py"
    always.write_text(ALWAYS_RAISES)
    out = tmp_path / "t"
    done = _sprt("--bot", "new=python -m bots.caller", "--bot", f"old={old.format(always=always)}", "--hands", "2",
                 "--min-blocks", "2", "--seed", "5eed" * 16, "--out", str(out), "--json")
    assert done.returncode == 1, (done.stdout, done.stderr)
    errors = _errors(done.stderr)
    assert len(errors) == 1 and errors[0].startswith("harness sprt: block 1 (rotation 0) not counted: " + said), \
        done.stderr
    assert "Traceback" not in done.stderr and "to play it again: harness sprt " in errors[0]
    last = json.loads(done.stdout.splitlines()[-1])
    assert last["result"] == "error" and last["blocks"] == 0 and said in last["error"]
    assert (out / BLOCKS_FILE).read_text() == ""  # not an observation
    assert_nothing_left()


def test_resuming_with_settings_that_change_the_test_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "t"
    common = ["--bot", "new=python -m bots.caller", "--bot", "old=python -m bots.caller", "--hands", "2",
              "--min-blocks", "2", "--max-hands", "4", "--out", str(out)]
    assert _sprt(*common).returncode == 3
    for more, said in [(["--decision-ms", "500"], "--decision-ms (1000 there, 500 here)"),
                       (["--min-blocks", "3"], "--min-blocks (2 there, 3 here)"),
                       (["--sandbox", JAIL_MODE.value], f'--sandbox ("off" there, "{JAIL_MODE.value}" here)')]:
        done = _sprt(*common, *more)
        assert done.returncode == 2 and "".join(without_isolation_warning(done.stderr.splitlines(keepends=True))) == (
            f"harness sprt: {out} holds another test (different {said}); give the same options to continue it, "
            "or another --out\n"), done.stderr
    done = _sprt(*common[:-4], "--max-hands", "8", "--out", str(out))  # raising --max-hands plays on
    assert done.returncode == 0 and "block    2" in done.stdout, done.stderr  # H0: identical bots


def test_damaged_files_of_a_test_are_one_line_naming_file_and_line(tmp_path: Path) -> None:
    out = tmp_path / "t"
    common = ["--bot", "new=python -m bots.caller", "--bot", "old=python -m bots.caller", "--hands", "2",
              "--min-blocks", "2", "--max-hands", "4", "--out", str(out)]
    assert _sprt(*common).returncode == 3  # one block played, kept
    settings, blocks = (out / "sprt.json").read_bytes(), (out / BLOCKS_FILE).read_bytes()
    stored = json.loads(settings)
    for text, said in [("[]", 'sprt.json: expected the test\'s settings (a JSON object), got []'),
                       ('"x"', 'sprt.json: expected the test\'s settings (a JSON object), got "x"'),
                       ("[1, 2]", "sprt.json: expected the test's settings (a JSON object), got [1, 2]"),
                       ("null", "sprt.json: expected the test's settings (a JSON object), got null"),
                       ('{"seed": 5}', 'sprt.json: "seed" must be the test\'s seed in hex digits, got 5'),
                       ('{"seed": "abc"}', "sprt.json: not a whole test's settings (no alpha, bb0, bb1, "),
                       (json.dumps(stored | {"seed": None}),
                        'sprt.json: "seed" must be the test\'s seed in hex digits, got null'),
                       ("{", "sprt.json: not a JSON file"),
                       ("[" * 100_000, "sprt.json: not a JSON file"),
                       (b'{"seed": "\xff"}', "sprt.json:1: not UTF-8 text (byte 0xff)")]:
        (out / "sprt.json").write_bytes(text if isinstance(text, bytes) else text.encode())
        done = _sprt(*common)
        assert done.returncode == 2 and done.stderr.startswith(f"harness sprt: {out}/{said}"), (text, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "--seed" not in done.stderr, done.stderr  # not given
    (out / "sprt.json").write_bytes(settings)
    line = blocks.decode().strip()
    bad = "blocks.jsonl:2: not a block result line"
    for text, said in [(line + '\n{"block": 1, "net": [1e400, 35], "hands": [2, 2]}\n' + line,
                        bad + ' ("net" must be two whole numbers, got [Infinity, 35])'),
                       (line + '\n{"block": 1, "net": [1' + "0" * 400 + ', 35], "hands": [2, 2]}\n',
                        "blocks.jsonl:2: block 1: 1" + "0" * 19 + "... (401 characters) chips over 2 hands of "
                        "1000-chip stacks"),
                       (line + '\n{"block": 1, "net": [0, 0], "hands": [2, 3]}\n',
                        "blocks.jsonl:2: block 1: 3 hands in a rotation of 2"),
                       (line + '\n{"block": 1, "net": [0, 0], "hands": [-2, 2]}\n',
                        bad + ' ("hands" cannot be negative, got [-2, 2])'),
                       (line + '\n[1, 2]\n', bad + " (expected an object, got [1, 2])"),
                       (line + "\n\xff\n", "blocks.jsonl:2: not UTF-8 text (byte 0xff)"),
                       (line + "\n" + line + "\n", "blocks.jsonl:2: block 0 where block 1 was expected"),
                       (line + "\n" + "[" * 100_000 + "\n", bad)]:
        (out / BLOCKS_FILE).write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
        before = (out / BLOCKS_FILE).read_bytes()
        done = _sprt(*common)
        assert done.returncode == 2 and done.stderr.startswith(f"harness sprt: {out}/{said}"), (text, done.stderr)
        assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
        assert (out / BLOCKS_FILE).read_bytes() == before  # nothing recorded is lost
    # A last line cut by an interruption (no newline) is the one thing left out: its block is played again.
    (out / BLOCKS_FILE).write_bytes(blocks + b'{"block": 1, "net": [0, 0], "hands": [2, 2]}')
    done = _sprt(*common)
    assert done.returncode == 3 and done.stdout.startswith("block    1"), done.stderr
    assert (out / BLOCKS_FILE).read_bytes() == blocks


def _piped(args: list[str], lines: int) -> tuple[int, str]:
    """``harness sprt ARGS | head -LINES``: the exit status and stderr once the reader has closed the pipe."""
    proc = subprocess.Popen([*HARNESS, "sprt", "--sandbox", "off", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(lines):
            proc.stdout.readline()
        proc.stdout.close()
        return proc.wait(timeout=300), proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()


def test_output_piped_into_head_ends_quietly_and_stops_playing(tmp_path: Path) -> None:
    common = ["--bot", "new=python -m bots.caller", "--bot", "old=python -m bots.random_bot", "--hands", "2",
              "--min-blocks", "50", "--seed", "5eed" * 16, "--json"]
    # The reader gone before the first block ends: no block is started after it, no "Broken pipe".
    code, err = _piped([*common, "--out", str(tmp_path / "none")], 0)
    assert code == 1 and _errors(err) == [], err
    assert not list((tmp_path / "none").rglob("hands.jsonl")) and (tmp_path / "none" / BLOCKS_FILE).read_text() == ""
    # `| head -1`: the first block's line read; at most the block then under way is finished, and kept.
    code, err = _piped([*common, "--out", str(tmp_path / "one")], 1)
    assert code == 1 and _errors(err) == [], err
    assert len((tmp_path / "one" / BLOCKS_FILE).read_text().splitlines()) in (1, 2)
    assert_nothing_left()


def test_ctrl_c_keeps_the_blocks_and_still_ends_with_the_json_object(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = subprocess.Popen([*HARNESS, "sprt", "--sandbox", "off", "--bot", "new=python -m bots.caller", "--bot",
                             "old=python -m bots.random_bot", "--hands", "2", "--min-blocks", "50", "--seed",
                             "5eed" * 16, "--out", str(out), "--json"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()  # block 1 is stored; block 2 is under way
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=900)  # an outer limit only
    finally:
        proc.kill()
        proc.wait()
    assert first.startswith("block    1") and proc.returncode == 130, (first, rest, err)
    assert _errors(err)[-1].startswith("harness sprt: interrupted; bots stopped; to continue: harness sprt "), err
    last = json.loads(rest.splitlines()[-1])
    assert last["result"] == "interrupted" and last["blocks"] >= 1 and last["error"].startswith("interrupted")
    # the blocks last reported (Ctrl-C may fall between a block's storing and its line)
    assert len((out / BLOCKS_FILE).read_text().splitlines()) in (last["blocks"], last["blocks"] + 1)
    assert_nothing_left()


@pytest.mark.parametrize("form", ["--cwd", "@DIR"])
def test_a_bot_runs_from_its_folder_and_the_folder_is_part_of_the_test(tmp_path: Path, form: str) -> None:
    folder = tmp_path / "newbot"
    folder.mkdir()
    (folder / "impl.py").write_text("from bots.caller import Caller\nraise SystemExit(Caller().run())\n")
    new = ["--cwd", str(folder), "--bot", "new=python impl.py"] if form == "--cwd" else \
        ["--bot", f"new@{folder}=python impl.py"]
    common = ["--bot", f"old@{ROOT}=python -m bots.caller", "--hands", "2", "--min-blocks", "2", "--max-hands", "4",
              "--out", str(tmp_path / "t")]
    done = _sprt(*new, *common)
    assert done.returncode == 3 and "block    1" in done.stdout, done.stderr
    other = tmp_path / "other"
    other.mkdir()
    (other / "impl.py").write_text((folder / "impl.py").read_text())
    moved = ["--cwd", str(other), "--bot", "new=python impl.py"] if form == "--cwd" else \
        ["--bot", f"new@{other}=python impl.py"]
    done = _sprt(*moved, *common)  # the same command in another folder is another bot
    assert done.returncode == 2 and "holds another test (different --bot (new) (" in done.stderr, done.stderr


def test_help_names_the_bot_option_form() -> None:
    done = subprocess.run([*HARNESS, "sprt", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "--bot NAME=COMMAND" in done.stdout and "--cwd" in done.stdout and "list[str]" not in done.stdout


@pytest.mark.slow
def test_solid_beats_random_in_a_real_run(tmp_path: Path) -> None:
    done = _sprt("--bot", "new=python -m bots.solid", "--bot", "old=python -m bots.random_bot", "--hands", "30",
                 "--bb0", "0", "--bb1", "200", "--min-blocks", "4", "--seed", "0x7", "--out", str(tmp_path / "t"),
                 "--json", timeout=600)
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["result"] == "H1" and final["bb_per_100"] > 200, done.stdout
    assert final["llr"] >= final["upper"] and final["ci95"][0] > 0


def test_a_test_started_before_its_limits_were_recorded_continues(tmp_path: Path) -> None:
    """An earlier harness kept neither the bots' limits, the sandbox, min_blocks nor the bots' folders: such a
    test continues with this run's values for them, records them, and checks them from then on."""
    from harness.tournament.sprt import SETTINGS_FILE

    whole = run_sprt(_settings(), tmp_path / "whole", FakePlay())
    cut = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        run_sprt(_settings(), cut, FakePlay(stop_after=2 * 3))
    earlier = json.loads((cut / SETTINGS_FILE).read_text())
    for key in ("limits", "sandbox", "min_blocks"):
        del earlier[key]
    for bot in ("new", "old"):
        del earlier[bot]["cwd"]
    (cut / SETTINGS_FILE).write_text(json.dumps(earlier))
    assert run_sprt(_settings(), cut, FakePlay()) == whole
    recorded = json.loads((cut / SETTINGS_FILE).read_text())
    assert recorded["min_blocks"] == _settings().min_blocks and "cwd" in recorded["new"]
    with pytest.raises(SprtError, match="different --min-blocks"):
        run_sprt(_settings(min_blocks=_settings().min_blocks + 1), cut, FakePlay())
