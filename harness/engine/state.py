"""The hand state machine of Seven Card Draw (RULES.md R2-R5), and of every draw game (R6): a game's
definition (:class:`harness.engine.games.GameDefinition`) drives its hooks; deal any game's hand with
:func:`harness.engine.games.start_hand`.

A hand is driven one action at a time::

    >>> from harness.engine import GameConfig, HandState
    >>> state = HandState.start(GameConfig(), stacks=[1000, 1000], button=0, seed=7)
    >>> str(state.phase), state.to_act, state.legal().call_amount   # E8: button is SB, acts first
    ('bet1', 0, 5)
    >>> state.call(); state.check()        # the big blind checks its option (R3.2)
    >>> str(state.phase), state.to_act     # the button draws first (E8)
    ('draw', 0)
    >>> state.draw([]); state.draw([])     # both stand pat
    >>> state.check(); state.check()       # round 2: the big blind acts first
    >>> state.is_complete, sum(state.result().net)
    (True, 0)

Speed matters (the tournament plays millions of hands): cards are ints, the
state mutates in place, every action is fully validated before anything
changes (so a refused action leaves the state as it was), ``legal()`` is
computed on demand and cached until the next action. The engine knows no file
format: hand records are written and read in :mod:`harness.history`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from harness.engine.actions import (
    CALL,
    CHECK,
    DRAW,
    DRAW_LEGAL,
    FOLD,
    Action,
    Legal,
    Shorthands,
)
from harness.engine.cards import CARD_STRS, DECK_SIZE, Deck, check_deck
from harness.engine.config import (
    MAX_PER_SEAT_PLAYERS,
    GameConfig,
    Replacements,
    Structure,
    seat_count_problem,
)
from harness.engine.constants import (
    BET1,
    COMPLETE,
    MAX_DISCARDS,
)
from harness.engine.errors import CardError, GameConfigError
from harness.engine.evaluator import best_hand
from harness.engine.fields import HandFields
from harness.engine.games import SEVEN_CARD_DRAW, Evaluation, GameDefinition
from harness.engine.legality import LegalMoves
from harness.engine.lowball import rank_27
from harness.engine.pots import HandResult
from harness.engine.rounds import Rounds


def checked_start(config: GameConfig, stacks: Sequence[int], button: int, seed: int,
                   deck: Sequence[int | str] | None, game: GameDefinition = SEVEN_CARD_DRAW,
                   carried: int = 0) -> list[int] | None:
    """The arguments of :meth:`HandState.start` checked (R1.2, R1.4, R2.1, R2.7, R4.4, R6); the stacked deck as ints.

    Raises:
        GameConfigError: as :meth:`HandState.start` says.
    """
    if type(config) is not GameConfig and not isinstance(config, GameConfig):
        raise GameConfigError(f"config must be a GameConfig, got {type(config).__name__}")
    n = len(stacks)
    if game is SEVEN_CARD_DRAW:
        problem = seat_count_problem(n)
    elif not isinstance(game, GameDefinition):
        raise GameConfigError(f"R6: game must be a GameDefinition, got {type(game).__name__}")
    else:
        problem = game.seat_problem(n) or game.config_problem(config)
        if problem is None and config.replacements is Replacements.PER_SEAT and game != SEVEN_CARD_DRAW:
            problem = f"R6.9: {game.name} draws from the stock: replacements = 'per-seat' is Seven Card Draw's"
    if problem:
        raise GameConfigError(problem)
    if type(carried) is not int or (carried and (carried < 0 or not game.passed_out)):
        raise GameConfigError(
            f"R7.4: carried chips must be a whole number >= 0, and 0 in a game whose deals are never "
            f"passed out ({game.name}), got {carried!r}"
        )
    for s, chips in enumerate(stacks):
        if type(chips) is not int or chips < 1:
            raise GameConfigError(
                f"R1.4: stack of seat {s} must be a whole number of chips >= 1, got {chips!r} "
                "(leave busted players out of the hand)"
            )
    if type(button) is not int or not 0 <= button < n:
        raise GameConfigError(f"R2.1: button must be a seat index 0..{n - 1}, got {button!r}")
    if type(seed) is not int:
        raise GameConfigError(f"R2.7: seed must be an int, got {seed!r}")
    if config.replacements is Replacements.PER_SEAT and n > MAX_PER_SEAT_PLAYERS:
        raise GameConfigError(
            f"R4.4: replacements = 'per-seat' needs at most {MAX_PER_SEAT_PLAYERS} players "
            f"(7n + 4n cards), got {n}; use 'stock'"
        )
    if deck is not None:
        try:
            deck = check_deck(deck)
        except CardError as exc:
            raise GameConfigError(str(exc)) from None
    return deck


class HandState(Shorthands, LegalMoves, Rounds):
    """One hand of a draw game (R6), Seven Card Draw unless told otherwise, from the posts to the pots.

    Every game runs through the same rounds (:mod:`harness.engine.rounds`) and betting rules
    (:mod:`harness.engine.legality`); its :class:`harness.engine.games.GameDefinition` (``game``) drives
    the hooks: cards dealt, forced bets allowed, the opening requirement (R7.2, R7.3), passed-out deals
    (R7.4), the number of draws and cards per draw, who draws and bets first after a draw, the fixed-limit
    sizes and the showdown's evaluation. Build any game's hand with
    :func:`harness.engine.games.start_hand`.

    Create with ``HandState.start``; read ``phase``, ``to_act``, ``legal()``;
    drive with ``apply(action)`` or ``fold()/check()/call()/bet(to)/
    raise_to(to)/draw(cards)``; when ``is_complete`` read ``result()``.
    All chip amounts are ints.

    Public attributes (read-only by convention): ``config``, ``n`` (seats),
    ``button``, ``seed``, ``hand_id``, ``phase``, ``to_act``,
    ``starting_stacks``, ``stacks`` (chips behind), ``bets`` (chips in the
    current round), ``contrib`` (chips put in this hand), ``folded``,
    ``all_in``, ``cards`` (current cards per seat), ``draws`` (cards drawn
    per seat in its latest draw, None before the first), ``history`` (public events),
    ``game`` (the definition), ``betting_round``, ``opener``, ``proof``, ``carried``.
    """

    # One declaration of the fields (harness.engine.fields, with their types); the slots follow it.
    __slots__ = tuple(HandFields.__annotations__)

    # --- construction ------------------------------------------------------

    @classmethod
    def start(
        cls,
        config: GameConfig,
        stacks: Sequence[int],
        button: int,
        seed: int,
        hand_id: int = 0,
        *,
        deck: Sequence[int | str] | None = None,
        raise_cap: bool = True,
        game: GameDefinition = SEVEN_CARD_DRAW,
        carried: int = 0,
    ) -> HandState:
        """Shuffle, post antes and blinds, deal seven cards each (R2), or the cards of ``game`` (R6.1).

        Args:
            config: the game settings.
            stacks: chips per seat (2..6 seats, each >= 1; leave busted
                players out).
            button: the button's seat index.
            seed: the hand's seed; the state makes its own
                ``random.Random(seed)`` for the deal and any R4.4 reshuffle.
            hand_id: the caller's number for the hand (records only).
            deck: a stacked deck for tests and examples: the full shuffled
                order (52 distinct cards, ints or texts) used instead of the
                seed's; the seed still drives any R4.4 reshuffle. Recorded.
            raise_cap: R3.4's bound on bets and raises (never above what the
                deepest opponent still in the hand can match, none when no
                opponent can put in more than the call). False only to replay
                histories of earlier releases, which offered raises up to the
                all-in (RULES.md E14).
            game: the draw game (R6); Seven Card Draw by default.
            carried: chips carried in from passed-out deals, dead money in the
                main pot (R7.4); only in a game whose deals can be passed out.

        Raises:
            GameConfigError: table size outside 2..6 (R1.2; the game's seats,
                R6.8), a stack that is not a whole number >= 1, a button outside
                the table, per-seat replacements with more than 4 players (R4.4)
                or in another game (R6.9), forced bets the game refuses (R7.1,
                R8.1), carried chips where deals are never passed out (R7.4).
        """
        deck = checked_start(config, stacks, button, seed, deck, game, carried)
        self = object.__new__(cls)
        self._setup(config, stacks, button, seed, hand_id, deck, raise_cap, game, carried)
        return self

    def _setup(self, config: GameConfig, stacks: Sequence[int], button: int, seed: int, hand_id: int,
               deck: list[int] | None, raise_cap: bool, game: GameDefinition, carried: int) -> None:
        """Shuffle, post, deal the game's cards (R2, R6): ``start``'s work once its arguments are checked."""
        n = len(stacks)
        hole = game.hole_cards
        self.config = config
        self.game = game
        self._round = 1
        self._rank_hand = rank_27 if game.evaluation is Evaluation.DEUCE_TO_SEVEN else best_hand
        max_discards = self._max_discards = game.max_discards
        self._draw_legal = DRAW_LEGAL if max_discards == MAX_DISCARDS else Legal((DRAW,), max_discards=max_discards)
        self._open_rule = game.openers if game.passed_out else None  # a game of openers (R7.2)
        self._opener = None
        self._proof = ()
        self._carried = carried
        self._fold_mucks = game is not SEVEN_CARD_DRAW and game != SEVEN_CARD_DRAW
        self.n = n
        self.button = button
        self.seed = seed
        self.hand_id = hand_id
        self.starting_stacks = tuple(stacks)
        self.stacks = list(stacks)
        self.bets = [0] * n
        self.contrib = [0] * n
        self.folded = [False] * n
        self.all_in = [False] * n
        self.draws = [None] * n
        self.history = []
        self._rng = rng = random.Random(seed)
        self._rng_saved = None  # the generator's state for clone(), taken once the deck is fixed
        self._deck = Deck(rng, deck)
        self._stacked = deck is not None
        self._raise_cap = raise_cap is not False
        # R2.7: one card at a time clockwise from left of the button, so the
        # k-th seat after the button holds positions k, k+n, k+2n, ...
        order = self._deck.upto(hole * n)
        cards = [order[(s - button - 1) % n : hole * n : n] for s in range(n)]
        self.cards = cards
        self.hole_cards = tuple(map(tuple, cards))
        self._pos = hole * n  # next stock position of the deck
        self._stock = []  # the stock after an R4.4 reshuffle
        self._muck = []
        self._fl = config.structure is Structure.FIXED_LIMIT
        unit = config.unit
        self._unit = unit
        self._acted = [False] * n
        self._acted_high = [0] * n
        self._n_live = n
        self._n_able = n
        self._aggressor = None
        self._draw_order = []
        self._draw_index = 0
        self._log = []
        self._received = [None] * n
        self._uncalled = []
        self._result = None
        self._legal = None
        self.phase = BET1
        self.to_act = None

        first_after = self._post_forced(config, button)
        self._inc = unit  # R3.6: a raise is at least the big blind (or min_bet)
        self._r1_high = 0
        self._begin_round(first_after)

    def _post_forced(self, config: GameConfig, button: int) -> int:
        """Post the antes and blinds (R2.3-R2.5); returns the seat the first round starts after."""
        n = self.n
        ante = config.ante
        if ante:  # R2.4: dead money, never part of a round's bet
            for k in range(n):
                s = (button + 1 + k) % n
                self._post(s, ante, "ante", False)
        if config.blinds:
            if n == 2:  # R2.3: heads-up, the button posts the small blind
                sb, bb = button, 1 - button
            else:
                sb, bb = (button + 1) % n, (button + 2) % n
            self._post(sb, config.small_blind, "small_blind", True)
            self._post(bb, config.big_blind, "big_blind", True)
            self._bb_seat = bb
            # R3.2/R2.6: the amount to call is the full big blind even if it
            # was posted short; the big blind is the first bet for the cap.
            self._high = config.big_blind
            self._nbets = 1
            first_after = bb
        else:  # R2.5: ante-only, no bet until someone bets min_bet
            self._bb_seat = button
            self._high = 0
            self._nbets = 0
            first_after = button
        return first_after

    def _post(self, s: int, amount: int, what: str, live: bool) -> None:
        """Post an ante or blind, all-in for less if short (R2.4, R2.6)."""
        stack = self.stacks[s]
        if stack <= 0:
            return
        if amount >= stack:
            amount = stack
            self.all_in[s] = True
            self._n_able -= 1
            self.history.append({"seat": s, "action": what, "amount": amount, "all_in": True})
        else:
            self.history.append({"seat": s, "action": what, "amount": amount})
        self.stacks[s] = stack - amount
        self.contrib[s] += amount
        if live:
            self.bets[s] += amount

    # --- reading -------------------------------------------------------------

    @property
    def is_complete(self) -> bool:
        """True once the hand is over and ``result()`` is available."""
        return self.phase is COMPLETE

    @property
    def raise_cap(self) -> bool:
        """Whether R3.4 bounds bets and raises by what the deepest opponent can match (``start(raise_cap=...)``).

        False only for a hand of an earlier release's history, replayed under its rule (RULES.md E14).
        """
        return self._raise_cap

    @property
    def pot(self) -> int:
        """All chips committed this hand (antes, blinds, bets), after R3.9 returns, and any carried in (R7.4)."""
        return sum(self.contrib) + self._carried

    @property
    def betting_round(self) -> int:
        """The betting round, 1 to ``game.draws + 1`` (during a draw: the round just played), R6.5."""
        return self._round

    @property
    def opener(self) -> int | None:
        """The seat that opened (R7.2), or None: nobody yet, or a game without openers."""
        return self._opener

    @property
    def proof(self) -> tuple[int, ...]:
        """The opener's opening cards as held when it opened (R7.7); () before anyone opens."""
        return self._proof

    @property
    def carried(self) -> int:
        """Chips carried into this deal from passed-out deals (R7.4); 0 in other games."""
        return self._carried

    def apply(self, action: Action) -> None:
        """Apply one action of the seat to act (``to_act``).

        Raises:
            InvalidActionError, IllegalActionError: see ``verify``; the state
                is then unchanged.
        """
        kind, checked = self._check(action)
        s: int = self.to_act  # type: ignore[assignment]
        if kind is DRAW:
            self._do_draw(s, checked)  # type: ignore[arg-type]
        elif kind is CALL:
            self._do_call(s)
        elif kind is CHECK:
            self._acted[s] = True
            self._acted_high[s] = self._high
            self.history.append({"seat": s, "action": "check"})
            self._log.append((s, CHECK, 0, 0, 0, self.bets[s], False))
            self._next(s)
        elif kind is FOLD:
            self._do_fold(s)
        else:
            self._do_raise(s, kind, checked)  # type: ignore[arg-type]

    def result(self) -> HandResult:
        """How the hand ended (pots, winners, shown hands, net per seat).

        Raises:
            RuntimeError: the hand is not complete yet.
        """
        if self._result is None:
            raise RuntimeError(f"hand {self.hand_id} is not complete (phase {self.phase}, seat {self.to_act} to act)")
        return self._result

    # --- views ----------------------------------------------------------------

    def observation(self, seat: int, *, copy: bool = True) -> dict[str, Any]:
        """What ``seat`` may see: its own cards, public actions, draw counts, shown hands.

        Never another seat's cards, except hands revealed at showdown (R5.7).
        JSON/msgpack-ready (str, int, bool, None, list, dict only). A game other than Seven Card
        Draw adds its name as ``game`` (R6; PROTOCOL.md section 6).

        Args:
            seat: the seat whose view it is.
            copy: False shares the state's own lists and history events
                instead of copying them: cheaper for a caller that serializes
                the view at once and never changes it (the referee).

        Raises:
            ValueError: ``seat`` is not a seat of this table.
        """
        if type(seat) is not int or not 0 <= seat < self.n:
            raise ValueError(f"seat must be 0..{self.n - 1}, got {seat!r}")
        cfg = self.config
        shown = []
        if self._result is not None:
            for s, rank in self._result.shown.items():
                shown.append({
                    "seat": s,
                    "cards": [CARD_STRS[c] for c in self.cards[s]],
                    "five": [CARD_STRS[c] for c in rank.five],
                    "category": rank.category.label,
                })
        view: dict[str, Any] = {
            "hand_id": self.hand_id,
            "seat": seat,
            "button": self.button,
            "phase": str(self.phase),
            "cards": [CARD_STRS[c] for c in self.cards[seat]],
            "stacks": list(self.stacks) if copy else self.stacks,
            "bets": list(self.bets) if copy else self.bets,
            "pot": sum(self.contrib) + self._carried,
            "folded": list(self.folded) if copy else self.folded,
            "all_in": list(self.all_in) if copy else self.all_in,
            "draws": list(self.draws) if copy else self.draws,
            "history": [dict(e) for e in self.history] if copy else self.history,
            "to_act": self.to_act,
            "small_blind": cfg.small_blind if cfg.blinds else 0,
            "big_blind": cfg.big_blind if cfg.blinds else 0,
            "ante": cfg.ante,
            "structure": str(cfg.structure),
            "min_bet": cfg.min_bet,  # the big blind's role in an ante-only game, else None (R2.5)
            "shown": shown,
        }
        if self.game is not SEVEN_CARD_DRAW:  # PROTOCOL.md section 6: no ``game`` key means Seven Card Draw
            view["game"] = self.game.name
        if self._open_rule is not None:  # a game of openers: the rule (R7.2) and the chips carried in (R7.4)
            view["openers"] = str(self._open_rule)
            view["carried"] = self._carried
        return view

    def action_log(self) -> list[tuple[Any, ...]]:
        """Every decision so far, in order, with the chips it moved (the state's own list: do not change it).

        A betting decision is ``(seat, kind, amount, owed, added, to, all_in)``:
        ``amount`` is the "to" total of a bet/raise and the chips added by a call
        (0 for fold/check, as in ``history``); ``owed`` the chips the seat had to
        add to call before it (the full big blind R2.6, at most what can be
        matched R3.4; 0 when it could check; not reduced to its stack, so a call
        adding less went all-in); ``added`` the chips it put in; ``to`` its total
        bet this round after it; ``all_in`` whether it left the seat all-in.
        A draw is ``(seat, ActionKind.DRAW, discards, received, reshuffled)``:
        card ints, and how many of the last ``received`` came from a reshuffled
        muck (R4.4; always 0 with per-seat replacements).
        """
        return self._log

    def clone(self) -> HandState:
        """An independent copy for search: acting on either leaves the other as it was.

        About 15x cheaper than ``copy.deepcopy``: lists are copied one level (the hands
        two), immutable values (``Legal``, ``HandResult``, history events, which are never
        changed once appended) are shared. The deck is fixed to its last position first
        (the same cards: positions are always fixed in order from the one generator, before
        any R4.4 reshuffle draws from it), so a copy needs the generator only for a
        reshuffle, and gets it then, from a state snapshot shared by the copies.
        """
        deck = self._deck
        if deck.fixed < DECK_SIZE:
            deck.upto(DECK_SIZE)
        rng = self._rng
        saved: tuple[Any, ...]
        if type(rng) is _PendingRandom:
            saved = rng.snapshot()
        else:
            kept = self._rng_saved
            saved = kept if kept is not None else rng.getstate()
            self._rng_saved = saved
        other = object.__new__(type(self))
        for name in _CLONED:
            value = getattr(self, name)
            if type(value) is list:
                value = [v[:] if type(v) is list else v for v in value]
            setattr(other, name, value)
        other._rng = pending = _PendingRandom(saved)
        other._rng_saved = None
        copy = object.__new__(Deck)
        copy.rng, copy.order, copy.fixed = pending, deck.order[:], deck.fixed
        other._deck = copy
        return other

    def __repr__(self) -> str:
        return (
            f"<HandState hand {self.hand_id} {self.phase} to_act={self.to_act} "
            f"stacks={self.stacks} bets={self.bets} pot={sum(self.contrib)}>"
        )


class _PendingRandom:
    """The generator of a cloned hand, built from the snapshot only if a reshuffle needs it (R4.4)."""

    __slots__ = ("real", "state")

    def __init__(self, state: tuple[Any, ...]) -> None:
        self.state = state
        self.real: random.Random | None = None

    def snapshot(self) -> tuple[Any, ...]:
        return self.state if self.real is None else self.real.getstate()

    def _materialize(self) -> random.Random:
        real = self.real
        if real is None:
            real = self.real = random.Random(0)
            real.setstate(self.state)
        return real

    def shuffle(self, x: list[int]) -> None:
        self._materialize().shuffle(x)

    def getrandbits(self, k: int) -> int:  # never called: a clone's deck is fixed to its end
        return self._materialize().getrandbits(k)


_CLONED = tuple(n for n in HandState.__slots__ if n not in ("_rng", "_rng_saved", "_deck"))
