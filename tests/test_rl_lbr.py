"""Local best response (harness.rl.lbr, ``harness lbr``): validated on bots whose exploitability is known by
construction, its range update checked against the public cards and the bot's own answers."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.engine import GameConfig
from harness.engine.evaluator import Category, best_hand
from harness.rl import lbr
from harness.rl.best_response import BotSpecError, load_bot
from protocol.sdk import Action, Bot, DecisionState, raise_to


class PairRaiser(Bot):
    """Before the draw: raises the minimum with a pair or better among its seven cards, else checks or calls;
    stands pat; after the draw checks or calls. What it holds is read from what it does."""

    def act(self, state: DecisionState) -> Action:
        paired = best_hand([_card(c) for c in state.cards]).category >= Category.ONE_PAIR
        if state.phase == "bet1" and paired and state.can("raise"):
            return raise_to(state.min_to)
        return Action("check") if state.can("check") else Action("call")


def _card(text: str) -> int:
    return "23456789TJQKA".index(text[0]) * 4 + "cdhs".index(text[1])


def _low(result: object) -> float:
    low = result.estimate.low  # type: ignore[attr-defined]
    assert low is not None
    return low


def test_check_fold_loses_exactly_its_blinds() -> None:
    """Check/fold never puts a chip in by choice: the most anyone wins from it is its blinds, 0.75 big blind
    a hand heads-up (the small blind folded on the button, the big blind folded to a raise). LBR takes them all."""
    result = lbr("check_fold", hands=30, seed=5, particles=20)
    e = result.estimate
    assert e.hands == 60 and e.sets == 30
    assert e.bb_per_100 == pytest.approx(75.0) and _low(result) == pytest.approx(75.0)


@pytest.mark.parametrize("bot", ["caller", "raiser", "always_call"])
def test_lbr_beats_calling_and_raising_stations_clearly(bot: str) -> None:
    """Always-call (bots.caller, the always_call policy) and always-raise (bots.raiser) never fold: LBR bets its
    strong hands to the hilt and folds or checks its weak ones. 30 duplicate deals: the whole interval lies
    above 300 bb/100 (3 big blinds a hand; about 20-30 is typical)."""
    result = lbr(bot, hands=30, seed=5, particles=20)
    assert result.estimate.hands == 60
    assert _low(result) > 300, result.summary()
    assert result.range_lost == 0


def test_a_policy_a_bot_instance_and_a_factory_are_the_same_bot() -> None:
    """A policy given as text, as_bot(policy), and the factory load_bot returns all play the policy (a factory
    is not taken for a policy)."""
    from harness.rl import as_bot
    from harness.rl.strength import always_call

    first = lbr("always_call", hands=3, particles=5).as_dict()
    for bot in (as_bot(always_call, seats=2), load_bot("always_call"), lambda: as_bot(always_call, seats=2)):
        assert lbr(bot, hands=3, particles=5, name="always_call").as_dict() == first
    assert first["bb_per_100"] != 75.0  # not check/fold's blinds: it calls


def test_the_same_arguments_give_the_same_figures() -> None:
    """Seeded: LBR's samples and the bot's own generators (random_bot seeds itself from entropy) follow the seed."""
    first = lbr("random_bot", hands=4, seed=11, particles=10).as_dict()
    assert lbr("random_bot", hands=4, seed=11, particles=10).as_dict() == first
    assert lbr("random_bot", hands=4, seed=12, particles=10).as_dict() != first


def _check_range(state, seat, particles) -> None:  # noqa: ANN001 - the observer's arguments
    """Every holding of the range is consistent with the public cards and LBR's own (module doc)."""
    other = 1 - seat
    mine = set(state.hole_cards[seat]) | set(state.cards[seat])
    drawn = state.draws[other]
    assert particles
    for p in particles:
        assert len(p.hole) == 7 and len(set(p.hole)) == 7 and not set(p.hole) & mine
        if drawn is None:
            assert p.kept is None and p.new is None
            continue
        assert p.kept is not None and set(p.kept) <= set(p.hole) and len(p.hole) - len(p.kept) == drawn
        if p.new is not None:
            assert len(p.new) == drawn and not set(p.new) & (mine | set(p.hole))
            assert len(set(p.cards())) == 7
        elif state.phase.value == "bet2":
            raise AssertionError("replacements not sampled once both draws are done")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), bot=st.sampled_from(["caller", "raiser", "random_bot"]))
def test_the_range_never_holds_a_card_lbr_has_seen(seed: int, bot: str) -> None:
    lbr(bot, hands=3, seed=seed, particles=12, observer=_check_range)


def test_the_range_follows_what_the_bot_did() -> None:
    """Against a bot whose pre-draw action says whether it holds a pair: after its raise every holding of the
    range has a pair or better, after its check or call none has. Also the public draw count (it stands pat)."""
    seen = {"raised": 0, "passive": 0}

    def check(state, seat, particles) -> None:  # noqa: ANN001 - the observer's arguments
        _check_range(state, seat, particles)
        other = 1 - seat
        events = state.history
        first = next((i for i, e in enumerate(events)
                      if e["seat"] == other and e["action"] in ("raise", "call", "check")), None)
        if first is None or any(e.get("all_in") for e in events[:first]):  # facing an all-in it can only call
            return
        paired = [best_hand(list(p.hole)).category >= Category.ONE_PAIR for p in particles]
        if events[first]["action"] == "raise":
            seen["raised"] += 1
            assert all(paired)
        else:
            seen["passive"] += 1
            assert not any(paired)

    result = lbr(PairRaiser, hands=12, seed=3, particles=30, observer=check)
    assert seen["raised"] and seen["passive"], seen
    assert result.range_lost == 0 and result.refills > 0  # a pair is 4 in 5 of seven-card hands: no pair is rare


class Unseeded(Bot):
    """Calls or folds at random from the operating system's entropy: no generator LBR can put back."""

    def act(self, state: DecisionState) -> Action:
        if state.can("check"):
            return Action("check")
        return Action("call") if random.SystemRandom().random() < 0.5 else Action("fold")


def test_solid_is_asked_with_its_memory_and_generator_restored() -> None:
    """The house bot that draws on a generator at every decision: a copy asked with its own cards answers what
    it did, every time (unfaithful 0), and the range is never lost. A bot drawing on entropy is caught."""
    result = lbr("solid", hands=3, seed=1, particles=10)
    assert result.unfaithful == 0 and result.range_lost == 0
    assert lbr("random_bot", hands=3, seed=1, particles=10).unfaithful == 0
    unseeded = lbr(Unseeded, hands=12, seed=1, particles=10)
    assert unseeded.unfaithful > 0 and "not what a copy of it answered" in unseeded.summary()


@pytest.mark.parametrize("spec", ["java -jar bot.jar", "./mybot", "node bot.js", "python -m bots.solid --fast"])
def test_a_bot_over_the_protocol_is_refused_with_the_reason(spec: str) -> None:
    with pytest.raises(BotSpecError, match="cannot answer"):
        load_bot(spec)


@pytest.mark.parametrize("spec", ["solid", "bots.solid", "python -m bots.solid", "python3 -m bots.caller",
                                  "harness.rl.strength:check_fold", "check_fold", "bots.raiser:Raiser"])
def test_the_forms_of_a_bot(spec: str) -> None:
    assert isinstance(load_bot(spec)(), Bot)


def test_a_bot_file(tmp_path) -> None:  # noqa: ANN001 - pytest's fixture
    path = tmp_path / "mybot.py"
    path.write_text("from protocol.sdk import Bot\nclass Mine(Bot):\n    pass\n")
    assert type(load_bot(str(path))()).__name__ == "Mine"
    assert type(load_bot(f"python {path}")()).__name__ == "Mine"
    (tmp_path / "two.py").write_text("from protocol.sdk import Bot\nclass A(Bot): pass\nclass B(Bot): pass\n")
    with pytest.raises(BotSpecError, match="exactly one"):
        load_bot(str(tmp_path / "two.py"))


@pytest.mark.parametrize(("spec", "says"), [("nosuch_module_x", "no module named"), ("bots.solid:Nope", "has no"),
                                            ("no/such.py", "no such file"), ("", "empty")])
def test_a_bot_that_cannot_be_loaded_is_named(spec: str, says: str) -> None:
    with pytest.raises(BotSpecError, match=says):
        load_bot(spec)


def test_cli_json_and_usage_errors() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["lbr", "--bot", "check_fold", "--hands", "4", "--particles", "5", "--json"])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["bb_per_100"] == 75.0 and figures["hands"] == 8 and figures["deals"] == 4
    assert "harness lbr: 3/4 deals, +75.0 bb/100 so far" in done.stderr  # progress, on stderr
    done = runner.invoke(app, ["lbr", "--bot", "always_call", "--hands", "4", "--particles", "5", "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout.strip().splitlines()[-1]) == lbr("always_call", hands=4, particles=5).as_dict()
    done = runner.invoke(app, ["lbr", "--bot", "java -jar bot.jar"])
    assert done.exit_code == 2
    assert done.stderr.startswith("harness lbr: --bot 'java -jar bot.jar' is a command")
    assert "Traceback" not in done.output
    for args, says in ((["--hands", "1"], "--hands"), (["--particles", "1"], "--particles"),
                       (["--seed", "x"], "--seed"), (["--structure", "pot-limit"], "structure")):
        done = runner.invoke(app, ["lbr", "--bot", "caller", *args])
        assert done.exit_code == 2 and done.stderr.startswith("harness lbr: ") and says in done.stderr, done.output


def test_fixed_limit_and_bad_arguments() -> None:
    result = lbr("caller", hands=3, particles=5, game=GameConfig.from_dict({"structure": "fixed-limit"}))
    assert result.estimate.hands == 6
    for kwargs in ({"hands": 1}, {"particles": 1}, {"rollouts": 0}, {"starting_stack": 0}):
        with pytest.raises(ValueError):
            lbr("caller", **kwargs)  # type: ignore[arg-type]
