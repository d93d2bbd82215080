"""Local best response (LBR) for heads-up Seven Card Draw and Deuce-to-Seven Triple Draw: a lower bound on a bot's
exploitability in bb/100.

Source: V. Lisý and M. Bowling, "Equilibrium Approximation Quality of Current No-Limit Poker Bots" (AAAI
workshops 2017). LBR plays against the bot and, at each of its decisions, estimates the bot's range (its
possible holdings, weighted by Bayes' rule from the bot's own answers to every action it took), then takes
the action of greatest expected value against that range *assuming both players only check or call to the
end of the hand* (no more bets), with a small set of bet sizes, and with the bot's chance to fold to each
bet read from the bot itself. What LBR wins is a lower bound on what a best response wins: on the bot's
exploitability (up to the interval).

Adapted to Seven Card Draw heads-up (docs/researchers.md, "How exploitable is a bot?"):

- **The range is a particle set.** A hidden holding is 7 of 45 unseen cards (45 million), so the range is
  ``particles`` holdings sampled uniformly from the cards LBR has not seen (its dealt and drawn cards are
  never the bot's; a holding with a card LBR draws later is dropped then). After each real decision of the
  bot, every particle is asked (below) what the bot would have done holding it, and kept only if the answer is
  the action taken: the Bayes update with likelihood 1 or 0, exact for a bot that is deterministic given its
  memory and its generators. The draw count is public (R4.3): a particle is kept only if the bot would have
  drawn as many cards, and then holds what the bot would have kept plus replacements sampled from the cards
  LBR cannot see. When fewer than half the particles are left, new holdings are sampled and kept if they
  replay every decision of the hand so far (rejection sampling, at most ``20 * particles`` tries); if none at
  all is consistent (a bot whose randomness LBR cannot restore), the range restarts from the prior and
  ``range_lost`` counts it.
- **Asking the bot.** The bot is a Python SDK bot (``protocol.sdk.Bot``) in this process. At each
  decision LBR copies it (``copy.deepcopy``, its memory as it is) and asks the copy ``act``/``draw`` on the
  request the referee would send, with the particle's cards instead of the bot's; every ``random.Random``
  and numpy generator of the copy (to two levels of attributes) and Python's global generator are put
  back before each question, so every holding is asked with the same randomness as the real decision.
  An answer the rules refuse counts as the referee's default action (R3.10 caps first, as the referee).
  A bot over the protocol in its own process cannot be asked such questions (each would change its
  memory, and the protocol has no "what if"): :func:`load_bot` refuses it.
- **The value of an action** (chips, relative to folding now; the hand goes to showdown with no more
  bets): check/call ``(2q - 1) m + c`` with ``q`` the chance to win at showdown (ties half), ``m`` the
  chips each side has in after the call (what a showdown wins or loses) and ``c`` LBR's chips in now; a
  bet or raise to ``t``: per particle, ``pot`` if it folds to the bet, else ``(2q - 1) m' + c`` with ``m'``
  the chips each has in once the bot calls (a raise counts as a call, as in the paper); fold 0. The
  sizes are the environments' (``harness.rl.encoding``): the minimum, half the pot, the pot, two pots and
  the all-in, clipped to the legal range. LBR plays the best; fold only when nothing is worth more than 0.
- **The showdown chance ``q``**: after both draws, the particle's hand against LBR's. Before the draw,
  ``rollouts`` samples per particle: LBR keeps :func:`harness.engine.evaluator.best_keep` (how it draws)
  and so does the particle (an approximation of the bot's draw, whose real count is not known yet), the
  replacements drawn from the cards neither holds.
- **LBR's draw**: :func:`~harness.engine.evaluator.best_keep`, the one home of the keep rule.

Deuce-to-Seven Triple Draw (R8; ``definition=DEUCE_TO_SEVEN_TRIPLE_DRAW``, ``harness lbr --game``) is the same
LBR over the game's definition: a holding is 5 cards; each of the three draws is a public count (R4.3), and a
particle kept at a draw holds what the bot would have kept plus replacements sampled once the draw is over from
the cards LBR cannot see (nor the particle's own earlier cards: heads-up the stock never runs out, 10 + 30 <= 52
cards, so no card comes back); a particle holding a card LBR draws later is dropped. The keep rule of both LBR
and the rollouts is :func:`harness.engine.lowball.keep_27`, the showdown :func:`~harness.engine.lowball.evaluate_27`,
and before the last draw each rollout plays every draw left (keep, replace) for both hands.

Duplicate deals: each deal ``h`` of match seed ``S`` (the deals of ``harness match --seed S``) is played
twice, LBR in each seat, by two fresh copies of the bot (one per seating, each playing the deals in order
as in a match); LBR's net per deal over both seats is one duplicate set, and bb/100 and its 95% interval
are the tournament's statistics over the sets (:func:`harness.tournament.stats.estimate`). LBR's own
samples come from a generator seeded by ``(S, h, seat)``, and the bot's own ``random.Random`` generators (found
as above) and Python's global one are seeded from ``S`` when the seating starts (a bot seeding itself from
entropy, as ``random_bot`` does without ``RANDOM_BOT_SEED``, plays the same every run): the same arguments give
the same figures.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import random
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from harness.deals import hand_seed, parse_seed
from harness.engine import Action, ActionKind, GameConfig, HandState, Phase
from harness.engine.cards import CARD_STRS
from harness.engine.evaluator import best_keep, evaluate
from harness.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    SEVEN_CARD_DRAW,
    Evaluation,
    GameDefinition,
    game_problem,
    start_hand,
)
from harness.engine.lowball import evaluate_27, keep_27
from harness.errors import HarnessError
from harness.match.wire import HandWire, MatchWire
from harness.tournament.stats import Estimate, estimate
from protocol import codec
from protocol.messages import GameSettings, MatchLimits, MatchStart
from protocol.sdk import Bot, DecisionState

__all__ = ["LBR_GAMES", "BotSpecError", "LbrResult", "Particle", "lbr", "load_bot"]

_DECK = tuple(range(52))
_CARD_INT = {text: card for card, text in enumerate(CARD_STRS)}
_BET1, _DRAW, _BET2, _COMPLETE = Phase.BET1, Phase.DRAW, Phase.BET2, Phase.COMPLETE
_FOLD, _CHECK, _CALL, _BET, _RAISE = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                                      ActionKind.RAISE)
_BANK_MS = 30000
_DECISION_MS = 1000
#: The names of the two baselines of harness.rl.evaluate (policies, played through as_bot).
_POLICIES = {"check_fold": "check_fold", "check-fold": "check_fold", "always_call": "always_call",
             "always-call": "always_call"}


class BotSpecError(HarnessError, ValueError):
    """A ``--bot`` that LBR cannot ask counterfactual questions: not found, not a Python SDK bot, or a command."""


@dataclass(frozen=True)
class _Rules:
    """What LBR reads of the game: cards held (R6.1), draws (R6.4), its keep rule and showdown value (R6.7)."""

    definition: GameDefinition
    keep: Callable[[Sequence[int]], list[int]]
    score: Callable[[Sequence[int]], int]

    @property
    def hole(self) -> int:
        return self.definition.hole_cards

    def draws_left(self, state: HandState) -> int:
        """The draws still to come at a betting decision of ``state`` (round r follows r - 1 draws, R6.5)."""
        return self.definition.draws - (state.betting_round - 1)


#: The games LBR plays: those without passed-out deals, with the keep rule and the showdown value of their
#: evaluation (R6.7).
_KEEP_AND_SCORE = {Evaluation.HIGH: (best_keep, evaluate), Evaluation.DEUCE_TO_SEVEN: (keep_27, evaluate_27)}
#: Their names (``harness lbr --game``).
LBR_GAMES = (SEVEN_CARD_DRAW.name, DEUCE_TO_SEVEN_TRIPLE_DRAW.name)


def _rules_of(definition: GameDefinition) -> _Rules:
    """LBR's view of ``definition``.

    Raises:
        ValueError: a game LBR does not play (passed-out deals and openers: Five Card Draw).
    """
    if definition.passed_out or definition.evaluation not in _KEEP_AND_SCORE:
        raise ValueError(f"LBR plays {' and '.join(LBR_GAMES)}, not {definition.name} "
                         "(its passed-out deals and openers are not in LBR's model)")
    keep, score = _KEEP_AND_SCORE[definition.evaluation]
    return _Rules(definition, keep, score)


# ----------------------------------------------------------------------------------------------- the bot


def _bot_class(module: Any, where: str, text: str) -> type[Bot]:
    """The one ``protocol.sdk.Bot`` subclass defined in ``module`` (``text``: the module as given)."""
    found = [v for v in vars(module).values()
             if isinstance(v, type) and issubclass(v, Bot) and v is not Bot and v.__module__ == module.__name__]
    if len(found) != 1:
        names = ", ".join(sorted(c.__name__ for c in found)) or "none"
        raise BotSpecError(f"{where} must define exactly one protocol.sdk.Bot subclass (found {names}); "
                           f"name it: --bot {text}:CLASS")
    return found[0]


def _import(name: str, where: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise BotSpecError(f"{where}: no module named {exc.name!r}") from None
        raise BotSpecError(f"{where}: importing it failed: {exc}") from None


def _from_file(path: Path, where: str, text: str) -> Any:
    if not path.is_file():
        raise BotSpecError(f"{where}: no such file {text!r}")
    name = f"_lbr_bot_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotSpecError(f"{where}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the bot's file is the user's code: say what failed in one line
        del sys.modules[name]
        raise BotSpecError(f"{where}: loading it failed: {type(exc).__name__}: {exc}") from None
    return module


def _house_bot(name: str) -> bool:
    """Whether ``bots.NAME`` is a module (a house bot)."""
    try:
        return importlib.util.find_spec(f"bots.{name}") is not None
    except ImportError:
        return False


def _factory_of(obj: Any, where: str, callable_is: str) -> Callable[[], Bot]:
    """A function returning a fresh bot, from a Bot subclass or instance, or a function: a policy (``view ->
    action index``, played through :func:`~harness.rl.bot.as_bot`) when ``callable_is`` is ``"policy"``, else a
    factory (called with no argument)."""
    if isinstance(obj, type) and issubclass(obj, Bot):
        return obj
    if isinstance(obj, Bot):
        return lambda: copy.deepcopy(obj)
    if callable(obj) and callable_is == "policy":
        from harness.rl.bot import as_bot

        return lambda: as_bot(obj, seats=2)
    if callable(obj):
        return obj  # type: ignore[no-any-return]
    raise BotSpecError(f"{where} is neither a protocol.sdk.Bot subclass nor a {callable_is} (a function)")


def load_bot(spec: str) -> Callable[[], Bot]:
    """What ``harness lbr --bot SPEC`` plays against: a function returning a fresh in-process bot.

    ``SPEC`` is one of: a module under ``bots`` (``solid``, ``caller``, ``raiser``, ``random_bot``); a baseline
    policy of :func:`harness.rl.evaluate` (``check_fold``, ``always_call``); a module (``bots.solid``,
    ``mypkg.mybot``) defining one ``protocol.sdk.Bot`` subclass; ``MODULE:NAME`` naming a Bot subclass or a
    policy (``policy(view) -> action index``, played through :func:`harness.rl.as_bot` for two seats); a
    Python file (``mybot.py``); or the command that runs one of these (``python -m bots.solid``, ``python
    mybot.py``). The bot's code runs in this process, unsandboxed: only for code you trust.

    Raises:
        BotSpecError: a command of another kind (a bot over the protocol in its own process, which cannot be
            asked what it would do with other cards), a module or file that is missing, fails to import or
            defines no (or several) Bot subclasses.
    """
    where = f"--bot {spec!r}"
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise BotSpecError(f"{where}: {exc}") from None
    if not words:
        raise BotSpecError("--bot is empty: give a module (bots.solid), MODULE:NAME or a Python SDK bot file")
    if len(words) >= 2 and Path(words[0]).name.startswith("python"):
        if words[1] == "-m" and len(words) == 3:
            words = [words[2]]
        elif len(words) == 2 and words[1].endswith(".py"):
            words = [words[1]]
    if len(words) != 1 or ("/" in words[0] and not words[0].endswith(".py")):
        raise BotSpecError(
            f"{where} is a command: LBR asks the bot what it would do with every holding its opponent might "
            "have, which a bot over the protocol in its own process cannot answer (each question would change "
            "its memory); give a Python SDK bot in-process: a module (bots.solid), MODULE:NAME, a file "
            "(mybot.py) or 'python -m MODULE'")
    text = words[0]
    if text in _POLICIES:
        from harness.rl import strength

        return _factory_of(getattr(strength, _POLICIES[text]), where, "policy")
    if text.endswith(".py"):
        return _bot_class(_from_file(Path(text), where, text), where, text)
    name, _, attr = text.partition(":")
    if not name.replace(".", "").replace("_", "").isalnum():
        raise BotSpecError(f"{where} is not a module name, MODULE:NAME or a .py file")
    if "." not in name and _house_bot(name):
        name = f"bots.{name}"
    module = _import(name, where)
    if not attr:
        return _bot_class(module, where, text)
    if not hasattr(module, attr):
        raise BotSpecError(f"{where}: module {name!r} has no {attr!r}")
    return _factory_of(getattr(module, attr), where, "policy")


def _generators(obj: Any) -> list[tuple[Any, Any]]:
    """The random generators among ``obj``'s attributes and theirs (two levels), with their states."""
    found: list[tuple[Any, Any]] = []
    seen: set[int] = set()

    def visit(value: Any, depth: int) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, random.Random):
            found.append((value, value.getstate()))
            return
        state = _numpy_state(value)
        if state is not None:
            found.append((value, state))
            return
        if depth < 2 and hasattr(value, "__dict__") and not isinstance(value, type):
            for item in vars(value).values():
                visit(item, depth + 1)

    visit(obj, 0)
    return found


def _numpy_state(value: Any) -> Any:
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if isinstance(value, np.random.Generator):
        return copy.deepcopy(value.bit_generator.state)
    if isinstance(value, np.random.RandomState):
        return value.get_state()
    return None


def _restore(found: list[tuple[Any, Any]]) -> None:
    np = sys.modules.get("numpy")
    for gen, state in found:
        if isinstance(gen, random.Random):
            gen.setstate(state)
        elif np is not None and isinstance(gen, np.random.Generator):
            gen.bit_generator.state = copy.deepcopy(state)
        else:
            gen.set_state(state)


class _Probe:
    """A copy of the bot at one of its decisions, asked what it would do with other cards (module doc)."""

    def __init__(self, bot: Bot) -> None:
        self.global_state = random.getstate()
        self.bot = copy.deepcopy(bot)
        self.generators = _generators(self.bot)

    def ask(self, state: HandState, request: dict[str, Any], cards: Sequence[int]) -> Action:
        """The action (as played, :func:`_played`) the bot would take at ``request`` holding ``cards``."""
        _restore(self.generators)
        random.setstate(self.global_state)
        return _answer(self.bot, state, request, cards)


def _answer(bot: Bot, state: HandState, request: dict[str, Any], cards: Sequence[int]) -> Action:
    """Ask ``bot`` (act or draw) at ``request`` with ``cards`` as its own; the action the referee would play."""
    raw: Any = dict(request["state"])  # the request's state map (protocol.sdk's _StateMap)
    raw["cards"] = [CARD_STRS[c] for c in cards]
    draw = request["type"] == "draw"
    decision = DecisionState(request["seq"], request["type"], raw, request["legal"], request["time"])
    try:
        reply = bot.draw(decision) if draw else bot.act(decision)
    except Exception:  # noqa: BLE001 - a bot's error is the default action, as the referee plays it
        reply = None
    return _played(state, cards, draw, reply)


def _played(state: HandState, cards: Sequence[int], draw: bool, reply: Any) -> Action:
    """The engine action the referee plays for ``reply`` (R3.10 caps, then the rules; refused: the default)."""
    if reply is None:
        return state.default_action()
    try:
        if draw:
            discards = tuple(_CARD_INT[c] for c in reply)
            if (len(discards) > state.legal().max_discards or len(set(discards)) != len(discards)
                    or not set(discards) <= set(cards)):
                return state.default_action()
            return Action(ActionKind.DRAW, 0, discards)
        kind, amount = (reply, 0) if isinstance(reply, str) else (reply[0], reply[1])
        action = Action(ActionKind(kind), int(amount) if kind in ("bet", "raise") else 0)
        action = state.capped(action)
        state.verify(action)
        return action
    except Exception:  # noqa: BLE001 - any unusable reply is the default action, as the referee plays it
        return state.default_action()


# ----------------------------------------------------------------------------------------------- the range


@dataclass
class Particle:
    """One holding the bot may have: its dealt cards (seven; five in Triple Draw), what it kept at its latest draw
    and the replacements.

    ``kept`` is None before the bot's first draw; ``new`` None until that draw is over for both (sampled then,
    from the cards LBR cannot see). In a game of several draws, the next draw starts from ``kept + new``: that
    becomes ``hole``, and what was discarded from the old ``hole`` goes to ``past`` (never the bot's again).
    ``guess`` is the game's keep rule of the cards held now (LBR's guess of the next keep), None until needed.
    """

    hole: tuple[int, ...]
    kept: tuple[int, ...] | None = None
    new: tuple[int, ...] | None = None
    guess: tuple[int, ...] | None = None
    past: tuple[int, ...] = ()

    def cards(self) -> tuple[int, ...]:
        """The cards held now (the dealt cards before the first draw, kept plus replacements after a draw)."""
        if self.kept is None:
            return self.hole
        assert self.new is not None  # sampled once the draw is over for both
        return self.kept + self.new

    def redraw(self, discards: Sequence[int]) -> None:
        """The bot's next draw from the cards held now (its replacements sampled): it discards ``discards``."""
        held = self.cards()
        if self.kept is not None:
            self.past += tuple(c for c in self.hole if c not in self.kept)
            self.hole, self.new = held, None
        self.kept = tuple(c for c in held if c not in discards)
        self.guess = None

    def every_card(self) -> set[int]:
        """Every card this holding has had (dealt, replacements, discarded)."""
        return set(self.hole) | set(self.past) | set(self.new or ())


@dataclass
class _Decision:
    """One real decision of the bot in this hand: the probe, the request (its cards aside) and what it did."""

    probe: _Probe
    state: HandState
    request: dict[str, Any]
    action: Action


def _matches(asked: Action, done: Action) -> bool:
    if done.kind is ActionKind.DRAW:
        return asked.kind is ActionKind.DRAW and len(asked.discards) == len(done.discards)
    return asked.kind is done.kind and asked.amount == done.amount


class _Range:
    """The particle set of one hand (module doc)."""

    def __init__(self, rng: random.Random, size: int, state: HandState, seat: int, rules: _Rules) -> None:
        self.rng = rng
        self.size = size
        self.state = state
        self.seat = seat
        self.rules = rules
        self.mine = set(state.hole_cards[seat])
        self.decisions: list[_Decision] = []
        self.lost = 0
        self.refills = 0
        self.unfaithful = 0
        self.particles = self._prior(size)

    def seen(self) -> set[int]:
        """LBR's cards: dealt and drawn, in every draw (never the bot's)."""
        self.mine.update(self.state.cards[self.seat])
        return self.mine

    def _prior(self, count: int) -> list[Particle]:
        pool = [c for c in _DECK if c not in self.seen()]
        hole = self.rules.hole
        return [Particle(tuple(self.rng.sample(pool, hole))) for _ in range(count)]

    def _sample_new(self, p: Particle) -> None:
        assert p.kept is not None
        hidden = self.seen() | set(p.hole) | set(p.past)
        pool = [c for c in _DECK if c not in hidden]
        p.new = tuple(self.rng.sample(pool, self.rules.hole - len(p.kept)))

    def drawn(self) -> bool:
        """No draw is under way: the bot's replacements of the draw just played can be sampled."""
        return self.state.phase is not _DRAW

    def settle(self) -> None:
        """Sample the replacements of every particle once the draw is over for both."""
        if self.drawn():
            for p in self.particles:
                if p.kept is not None and p.new is None:
                    self._sample_new(p)

    def _consistent(self, p: Particle, decision: _Decision) -> bool:
        if p.kept is not None and p.new is None:  # a decision after a draw: the replacements first
            self._sample_new(p)
        asked = decision.probe.ask(decision.state, decision.request, p.cards())
        if not _matches(asked, decision.action):
            return False
        if decision.action.kind is ActionKind.DRAW:
            p.redraw(asked.discards)
        return True

    def update(self, decision: _Decision, truth: Sequence[int]) -> None:
        """Keep the particles that would have done what the bot did; refill below half (module doc).

        ``truth``: the bot's real cards, for a diagnostic only (never for play): when the copy asked with them
        does not do what the bot did, the bot is not deterministic given its memory and generators, and
        ``unfaithful`` counts it.
        """
        saved = random.getstate()
        if decision.probe.ask(decision.state, decision.request, truth) != decision.action:
            self.unfaithful += 1
        self.decisions.append(decision)
        self.particles = [p for p in self.particles if self._consistent(p, decision)]
        if len(self.particles) < self.size // 2:
            self._refill()
        random.setstate(saved)

    def see_own_draw(self) -> None:
        """LBR's replacements are not the bot's: drop the holdings that contain one; refill below half."""
        seen = self.seen()
        self.particles = [p for p in self.particles if not seen.intersection(p.every_card())]
        if len(self.particles) < self.size // 2:
            saved = random.getstate()
            self._refill()
            random.setstate(saved)

    def _refill(self) -> None:
        self.refills += 1
        pool = [c for c in _DECK if c not in self.seen()]
        for _ in range(20 * self.size):
            if len(self.particles) >= self.size:
                break
            p = Particle(tuple(self.rng.sample(pool, self.rules.hole)))
            if all(self._consistent(p, d) for d in self.decisions):
                self.particles.append(p)
        if not self.particles:  # nothing replays the hand: a bot whose randomness could not be restored
            self.lost += 1
            self.particles = self._prior(self.size)
            drew = [d.action for d in self.decisions if d.action.kind is ActionKind.DRAW]
            for p in self.particles:  # the public draw counts still hold: keep as many cards (which is unknown)
                for i, action in enumerate(drew):
                    if i:
                        self._sample_new(p)
                    p.redraw(p.cards()[self.rules.hole - len(action.discards):])


# ----------------------------------------------------------------------------------------------- LBR's play


def _bet_sizes(state: HandState) -> list[int]:
    """The "to" totals LBR considers: minimum, half pot, pot, two pots, all-in, within the legal range."""
    lg = state.legal()
    if _BET not in lg.actions and _RAISE not in lg.actions:
        return []
    top = max(state.bets)
    after_call = state.pot + lg.call_amount
    wanted = (lg.min_to, top + after_call // 2, top + after_call, top + 2 * after_call, lg.max_to)
    return sorted({min(max(t, lg.min_to), lg.max_to) for t in wanted})


def _showdown_chance(score: Callable[[Sequence[int]], int], mine: Sequence[int], theirs: Sequence[int]) -> float:
    a, b = score(mine), score(theirs)
    return 1.0 if a > b else 0.5 if a == b else 0.0


class _Player:
    """LBR in one hand (module doc)."""

    def __init__(self, rng: random.Random, rollouts: int, match: MatchWire, rules: _Rules) -> None:
        self.rng = rng
        self.rollouts = rollouts
        self.match = match
        self.rules = rules

    def chances(self, state: HandState, seat: int, particles: Sequence[Particle], seen: set[int]) -> list[float]:
        """Per particle, LBR's chance to win at showdown with no more bets (ties half); ``seen``: every card LBR
        has held."""
        mine = state.cards[seat]
        rules = self.rules
        score, keep_of, hole = rules.score, rules.keep, rules.hole
        left = rules.draws_left(state)
        if left == 0 and all(p.kept is not None for p in particles):
            return [_showdown_chance(score, mine, p.cards()) for p in particles]
        left = max(left, 1)
        keep = keep_of(mine)
        mine_draws = hole - len(keep)
        sample = self.rng.sample
        out = []
        for p in particles:
            held_now = p.cards()
            if p.guess is None:
                p.guess = tuple(keep_of(held_now))
            held = seen | p.every_card() | set(held_now)
            pool = [c for c in _DECK if c not in held]
            theirs = hole - len(p.guess)
            total = 0.0
            for _ in range(self.rollouts):
                cards = sample(pool, mine_draws + theirs)
                a: Sequence[int] = keep + cards[:mine_draws]
                b: Sequence[int] = p.guess + tuple(cards[mine_draws:])
                if left > 1:  # the draws after the next: both keep by the rule again, from the cards left
                    a, b = self._later_draws(a, b, set(cards), pool, left - 1)
                total += _showdown_chance(score, a, b)
            out.append(total / self.rollouts)
        return out

    def _later_draws(self, a: Sequence[int], b: Sequence[int], used: set[int], pool: Sequence[int], draws: int
                     ) -> tuple[Sequence[int], Sequence[int]]:
        """Both hands after ``draws`` more draws by the keep rule, replacements from ``pool`` less ``used``."""
        keep_of, hole = self.rules.keep, self.rules.hole
        for _ in range(draws):
            ka, kb = keep_of(a), keep_of(b)
            rest = [c for c in pool if c not in used]
            cards = self.rng.sample(rest, 2 * hole - len(ka) - len(kb))
            used.update(cards)
            split = hole - len(ka)
            a, b = ka + cards[:split], kb + cards[split:]
        return a, b

    def decide(self, state: HandState, seat: int, bot: Bot, rng_range: _Range) -> Action:
        """LBR's action at its decision (module doc)."""
        if state.phase is _DRAW:
            keep = set(self.rules.keep(state.cards[seat]))
            return Action(ActionKind.DRAW, 0, tuple(c for c in state.cards[seat] if c not in keep))
        rng_range.settle()
        particles = rng_range.particles
        q = self.chances(state, seat, particles, rng_range.seen())
        n = len(particles)
        lg = state.legal()
        other = 1 - seat
        mine, theirs = state.contrib[seat], state.contrib[other]
        pot = mine + theirs
        equity = sum(q) / n
        call_in = mine + lg.call_amount
        best = (0.0, Action(_FOLD))
        kind = _CHECK if _CHECK in lg.actions else _CALL
        value = (2 * equity - 1) * min(call_in, theirs) + mine
        if kind is _CHECK or value > best[0]:
            best = (value, Action(kind))
        sizes = _bet_sizes(state)
        if sizes:
            probe = _Probe(bot)
            saved = random.getstate()
            bet_kind = _BET if _BET in lg.actions else _RAISE
            for to in sizes:
                after = state.clone()
                action = Action(bet_kind, to)
                after.apply(action)
                folds = self._folds(after, other, probe, particles)
                put_in = mine + to - state.bets[seat]
                matched = min(put_in, theirs + state.stacks[other])
                value = sum(pot if f else (2 * qi - 1) * matched + mine for f, qi in zip(folds, q, strict=True)) / n
                if value > best[0]:
                    best = (value, action)
            random.setstate(saved)
        return best[1]

    def _folds(self, after: HandState, other: int, probe: _Probe, particles: Sequence[Particle]) -> list[bool]:
        """Per particle, whether the bot folds to LBR's bet (the state ``after`` it)."""
        if after.to_act != other or after.phase not in (_BET1, _BET2):
            return [False] * len(particles)
        request = _request(HandWire(self.match, after), after, other, 0)
        return [probe.ask(after, request, p.cards()).kind is _FOLD for p in particles]


def _request(wire: HandWire, state: HandState, seat: int, seq: int) -> dict[str, Any]:
    """The request the referee sends ``seat`` now, decoded (as the bot's SDK sees it)."""
    request: dict[str, Any] = msgpack.unpackb(wire.request(state.phase is _DRAW, seq, seat, state.legal(), _BANK_MS),
                                              raw=False)
    return request


# ----------------------------------------------------------------------------------------------- the match


@dataclass(frozen=True)
class LbrResult:
    """What LBR won against a bot on duplicate deals: a lower bound on the bot's exploitability.

    Attributes:
        bot: the bot as given.
        estimate: LBR's bb/100 with its 95% interval (:class:`~harness.tournament.stats.Estimate`; sets are
            deals, each played in both seats).
        seed: the match seed of the deals (text, as ``harness match --seed`` reads it).
        particles, rollouts: LBR's settings.
        decisions: LBR's betting decisions; refills, range_lost: refills of the range and ranges lost
            (nothing consistent found: LBR then played against the prior), over all hands.
        unfaithful: the bot's decisions that a copy of it, asked with the bot's own cards, did not reproduce
            (a diagnostic: the range update assumes 0).
    """

    bot: str
    estimate: Estimate
    seed: str
    particles: int
    rollouts: int
    decisions: int
    refills: int
    range_lost: int
    unfaithful: int = 0

    def summary(self) -> str:
        """Two lines: LBR's result, and the lower bound it gives (its interval's low end)."""
        e = self.estimate
        ci = f"95% {e.low:+.1f}..{e.high:+.1f}" if e.low is not None and e.high is not None else "no interval"
        lines = [f"LBR against {self.bot}: {e.bb_per_100:+.1f} bb/100 ({ci}, {e.hands} hands on {e.sets} "
                 f"duplicate deals, seed {self.seed})"]
        if e.low is not None and e.low > 0:
            lines.append(f"exploitability of {self.bot}: at least {e.low:.1f} bb/100 (the interval's low end)")
        else:
            lines.append(f"exploitability of {self.bot}: not shown above 0 bb/100 by LBR on these hands")
        if self.unfaithful:
            lines.append(f"note: {self.unfaithful} of the bot's decisions were not what a copy of it answered with "
                         "the same cards (randomness LBR cannot put back): its range is approximate")
        if self.range_lost:
            lines.append(f"note: the range was lost {self.range_lost} times (a bot whose randomness LBR could "
                         "not restore); LBR then played against every holding")
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of ``harness lbr --json``."""
        e = self.estimate
        return {"bot": self.bot, "bb_per_100": round(e.bb_per_100, 3),
                "low": None if e.low is None else round(e.low, 3),
                "high": None if e.high is None else round(e.high, 3), "hands": e.hands, "deals": e.sets,
                "seed": self.seed, "particles": self.particles, "rollouts": self.rollouts,
                "decisions": self.decisions, "refills": self.refills, "range_lost": self.range_lost,
                "unfaithful": self.unfaithful}


class _Seating:
    """One fresh bot playing the deals in order against LBR in one seat (a match of reset stacks)."""

    def __init__(self, factory: Callable[[], Bot], root: int, seat: int, game: GameConfig, stack: int, particles: int,
                 rollouts: int, observer: Callable[[HandState, int, Sequence[Particle]], None] | None,
                 rules: _Rules) -> None:
        try:
            self.bot = factory()
        except Exception as exc:  # noqa: BLE001 - the bot's own code: say what failed in one line
            raise BotSpecError(f"creating the bot failed: {type(exc).__name__}: {exc}") from None
        for i, (gen, _) in enumerate(_generators(self.bot)):  # reproducible even if it seeded from entropy
            if isinstance(gen, random.Random):
                gen.seed(f"lbr-bot:{root}:{seat}:{i}")
        if not isinstance(self.bot, Bot):
            raise BotSpecError(f"the bot factory returned {type(self.bot).__name__}, not a protocol.sdk.Bot")
        self.seat, self.game, self.stack, self.rules = seat, game, stack, rules
        self.particles, self.rollouts, self.observer = particles, rollouts, observer
        definition = rules.definition
        self.match = MatchWire(game, _DECISION_MS, definition)
        self.names = ["lbr", "bot"] if seat == 0 else ["bot", "lbr"]
        self.decisions = self.refills = self.lost = self.unfaithful = 0
        start = codec.encode(MatchStart(
            match_id="lbr", seat=1 - seat, names=tuple(self.names), game=GameSettings.of(game, definition.name),
            hands=10_000_000, starting_stack=stack, stack_mode="reset",
            limits=MatchLimits(_DECISION_MS, _BANK_MS, 10000, 10, 65536)))
        try:
            self.bot.handle_frame(start)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the bot's code (a bot leaves a game it does not play)
            raise BotSpecError(f"the bot did not start a match of {definition.name} ({type(exc).__name__}: {exc}); "
                               "does it play that game?") from None

    def play(self, root: int, hand: int) -> float:
        """Hand ``hand`` of match ``root``; LBR's net chips in big blinds."""
        seat, other, bot = self.seat, 1 - self.seat, self.bot
        state = start_hand(self.rules.definition, self.game, [self.stack, self.stack], hand % 2, hand_seed(root, hand),
                           hand)
        wire = HandWire(self.match, state)
        bot.handle_frame(wire.hand_start(other, self.names, [self.stack, self.stack]))
        rng = random.Random(f"lbr:{root}:{hand}:{seat}")
        rng_range = _Range(rng, self.particles, state, seat, self.rules)
        player = _Player(rng, self.rollouts, self.match, self.rules)
        seq = 0
        while not state.is_complete:
            if state.to_act == seat:
                action = player.decide(state, seat, bot, rng_range)
                self.decisions += state.phase is not _DRAW
                state.apply(action)
                if action.kind is ActionKind.DRAW:
                    rng_range.see_own_draw()
            else:
                seq += 1
                request = _request(wire, state, other, seq)
                probe = _Probe(bot)
                action = _answer(bot, state, request, state.cards[other])
                rng_range.update(_Decision(probe, state.clone(), request, action), state.cards[other])
                state.apply(action)
            rng_range.settle()
            if self.observer is not None:
                self.observer(state, seat, rng_range.particles)
        bot.handle_frame(wire.hand_end())
        self.refills += rng_range.refills
        self.lost += rng_range.lost
        self.unfaithful += rng_range.unfaithful
        return state.result().net[seat] / self.game.unit


def lbr(bot: str | type[Bot] | Bot | Callable[[], Bot], hands: int = 200, seed: int | str = 1,
        particles: int = 200, rollouts: int = 2, game: GameConfig | None = None, starting_stack: int = 1000,
        observer: Callable[[HandState, int, Sequence[Particle]], None] | None = None,
        name: str | None = None, progress: Callable[[int, Sequence[float]], None] | None = None,
        definition: GameDefinition = SEVEN_CARD_DRAW) -> LbrResult:
    """Local best response against ``bot`` on ``hands`` duplicate deals (module doc): a lower bound on its
    exploitability, in bb/100 with a 95% interval.

    Args:
        bot: a ``--bot`` text (:func:`load_bot`), a ``protocol.sdk.Bot`` subclass or instance (copied per
            seating), or a function returning a fresh bot (a policy: ``as_bot(policy, seats=2)``, or its text).
        hands: deals; each is played in both seats (``2 * hands`` hands).
        seed: the match seed of the deals (``harness match --seed``).
        particles: the size of the bot's range (holdings); rollouts: showdown samples per holding before
            the draw.
        game, starting_stack: the table (heads-up; stacks reset every hand), chips.
        observer: called after every action with the state, LBR's seat and the range (for tests).
        name: the bot's name in the result (default: the text given, or the class's or function's name).
        progress: called after each deal with the deals done and LBR's net big blinds per deal so far.
        definition: the game (Seven Card Draw, or ``DEUCE_TO_SEVEN_TRIPLE_DRAW``: module doc).

    Returns:
        an :class:`LbrResult`.

    Raises:
        BotSpecError: as :func:`load_bot`; creating the bot, or its start of the match, raised or exited (a bot
            leaving a game it does not play: named in one line).
        ValueError: ``hands`` below 2, ``particles`` below 2, ``rollouts`` below 1, a bad seed or stack; a game LBR
            does not play (Five Card Draw) or settings it refuses heads-up (its rule named).
    """
    if type(hands) is not int or hands < 2:
        raise ValueError(f"hands must be a whole number >= 2 (an interval needs two duplicate deals), got {hands!r}")
    if type(particles) is not int or particles < 2:
        raise ValueError(f"particles must be a whole number >= 2, got {particles!r}")
    if type(rollouts) is not int or rollouts < 1:
        raise ValueError(f"rollouts must be a whole number >= 1, got {rollouts!r}")
    if type(starting_stack) is not int or starting_stack < 1:
        raise ValueError(f"starting_stack must be a whole number of chips >= 1, got {starting_stack!r}")
    root = parse_seed(seed)
    game = game if game is not None else GameConfig()
    rules = _rules_of(definition)
    problem = game_problem(definition, game, 2)
    if problem:
        raise ValueError(f"game {definition.name}: {problem}")
    if name is None:
        name = bot if isinstance(bot, str) else getattr(bot, "__name__", type(bot).__name__)
    factory = load_bot(bot) if isinstance(bot, str) else _factory_of(bot, "the bot", "factory")
    saved = random.getstate()
    random.seed(f"lbr:{root}")  # a bot drawing from the global generator plays the same each run
    try:
        seatings = [_Seating(factory, root, s, game, starting_stack, particles, rollouts, observer, rules)
                    for s in (0, 1)]
        nets: list[float] = []
        for h in range(hands):
            nets.append(sum(seating.play(root, h) for seating in seatings))
            if progress is not None:
                progress(h + 1, nets)
    finally:
        random.setstate(saved)
    return LbrResult(bot=str(name), estimate=estimate([(x, 2) for x in nets]), seed=str(seed), particles=particles,
                     rollouts=rollouts, decisions=sum(s.decisions for s in seatings),
                     refills=sum(s.refills for s in seatings), range_lost=sum(s.lost for s in seatings),
                     unfaithful=sum(s.unfaithful for s in seatings))
