"""The table as the human seat sees it, event by event, and the commands a person types.

:class:`TableView` is fed the seat's messages in order (``match_start``,
``hand_start``, requests, ``hand_end``, ``error``) and keeps the public state
of the hand after every event (PROTOCOL.md section 6): stacks, bets of the
round, pot and side pots (R5.5), folds, all-ins, cards drawn (R4.3), the
button, this seat's cards, and at the end the showdown (R5.7). It never
holds another seat's cards before the hand shows them. In a game of openers
(Five Card Draw, R7) it also follows the open: which cards of this seat would
open (R7.2), who opened, the chips carried in, and a deal nobody opened, passed
out with its pot carried to the next deal (R7.4).

:func:`parse_command` turns a typed line into the reply to the pending request
(``f``, ``c``, ``b 40``, ``r 120``, ``a``; ``d 2 5 7`` or ``d 7h Kc``; an empty
line checks if free, else calls, and stands pat in the draw; ``o`` opens, in a
game of openers), or raises :class:`CommandError` with a one-line message naming
the legal choices (and, for an open without openers, what opens: R7.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.engine.actions import POSTS
from harness.engine.cards import card_str, parse_card
from harness.engine.errors import CardError
from harness.engine.evaluator import best_hand
from harness.engine.games import GAMES, Openers
from harness.engine.openers import openers as opening_cards
from harness.engine.pots import build_pots
from harness.errors import HarnessError
from protocol.messages import (
    ActionReply,
    ActRequest,
    DiscardReply,
    DrawRequest,
    Error,
    HandEnd,
    HandStart,
    MatchEnd,
    MatchStart,
    Message,
)

__all__ = ["HELP", "OPENERS_WORDS", "CommandError", "Seat", "TableView", "legal_choices", "my_openers",
           "no_openers_line", "parse_command", "sort_cards", "unopened"]

_CATEGORY_WORDS = {
    "high_card": "high card", "one_pair": "one pair", "two_pair": "two pair", "three_of_a_kind": "three of a kind",
    "straight": "straight", "flush": "flush", "full_house": "full house", "four_of_a_kind": "four of a kind",
    "straight_flush": "straight flush",
}

#: The commands, as ``?`` shows them.
HELP = (
    "betting: f fold · c check (or call) · b N bet to N · r N raise to N · a all-in · empty line: check if free, "
    "else call\n"
    "draw:    d 2 5 7 discard the cards at those positions · d 7h Kc discard those cards · empty line or d: "
    "stand pat\n"
    "amounts are 'to' totals of this round (R3.6); ? this help; Ctrl-D leave the table; Ctrl-C stop the match\n"
    "openers: o N (or b N) opens, in Five Card Draw only with openers (R7.2); o alone opens for the least"
)

#: What opens round 1 under each rule of a game of openers, in words (R7.2).
OPENERS_WORDS = {
    Openers.JACKS: "a pair of jacks or better",
    Openers.JACK_CARD: "a jack or higher card",
    Openers.NONE: "any cards",
}


class CommandError(HarnessError, ValueError):
    """A typed command that is not a legal reply; the message is one line saying what is legal."""


def sort_cards(cards: list[str] | tuple[str, ...]) -> list[str]:
    """Cards highest rank first (suits break ties in the engine's order); the positions ``d 2 5`` refers to."""
    return [card_str(c) for c in sorted((parse_card(c) for c in cards), reverse=True)]


def _verb(who: str, verb: str) -> str:
    """``you fold`` / ``raiser folds``."""
    return f"{who} {verb}" if who == "you" else f"{who} {verb}s"


def _words(category: str) -> str:
    return _CATEGORY_WORDS.get(category, category.replace("_", " "))


def unopened(request: ActRequest | DrawRequest) -> str | None:
    """The opening rule (``jacks``, ``jack-card``, ``none``) while round 1 of a game of openers waits for its
    open (nobody has bet yet, R7.2), else None."""
    st = request.state
    rule = st.get("openers")
    if rule is None or isinstance(request, DrawRequest) or st.get("phase") != "bet1":
        return None
    return None if any(e.get("action") in ("bet", "raise") for e in st["history"]) else str(rule)


def my_openers(cards: list[str] | tuple[str, ...], rule: str) -> list[str] | None:
    """The cards of a five-card hand that open under ``rule`` (R7.2, R7.7), or None: it may not open."""
    if len(cards) != 5:
        return None
    found = opening_cards([parse_card(c) for c in cards], Openers(rule))
    return None if found is None else [card_str(c) for c in found]


def no_openers_line(rule: str) -> str:
    """The refusal of an open without openers (R7.3), naming what opens."""
    return (f"you may not open: your cards hold no openers ({OPENERS_WORDS[Openers(rule)]} opens, R7.2, "
            "R7.3); check or fold")


def legal_choices(request: ActRequest | DrawRequest, stack: int, bet: int) -> list[tuple[str, str]]:
    """The legal replies of a request as ``(command, what it does)`` with exact chips.

    Args:
        request: the pending request.
        stack: this seat's chips behind; ``bet``: its chips bet this round (for the all-in line).
    """
    legal = request.legal
    if isinstance(request, DrawRequest):
        return [("d …", f"discard up to {legal.max_discards} cards, by position (d 2 5) or name (d 7h Kc)")]
    acts = legal.actions
    out: list[tuple[str, str]] = []
    if "fold" in acts:
        out.append(("f", "fold"))
    if "check" in acts:
        out.append(("c", "check"))
    if "call" in acts:
        allin = " (all-in)" if legal.call_amount >= stack else ""
        out.append(("c", f"call {legal.call_amount}{allin}"))
    opening = unopened(request) is not None
    for kind, letter in (("bet", "b"), ("raise", "r")):
        if kind in acts:
            span = f"{legal.min_to}" if legal.min_to == legal.max_to else f"{legal.min_to} to {legal.max_to}"
            out.append((f"{letter} N", f"{kind} to {span}" + (" (to open: o N too)" if opening else "")))
    target = _all_in(request, stack, bet)
    if target is not None:
        out.append(("a", target[1]))
    return out


def _all_in(request: ActRequest, stack: int, bet: int) -> tuple[ActionReply, str] | None:
    """What ``a`` does: the largest legal wager (all-in, or what the deepest opponent can match, R3.4)."""
    legal = request.legal
    for kind in ("raise", "bet"):
        if kind in legal.actions:
            what = "all-in" if legal.max_to >= stack + bet else "the most anyone can match"
            return ActionReply(seq=request.seq, action=kind, amount=legal.max_to), f"{kind} to {legal.max_to} ({what})"
    if "call" in legal.actions and legal.call_amount >= stack:
        return ActionReply(seq=request.seq, action="call"), f"call {legal.call_amount} (all-in)"
    return None


def _amount(text: str, command: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise CommandError(f"'{command}': {text!r} is not a number of chips") from None
    if value < 0:
        raise CommandError(f"'{command}': chips cannot be negative")
    return value


def _discards(args: list[str], request: DrawRequest) -> tuple[str, ...]:
    """The cards named by positions (1-7 in the sorted hand) or by name (``7h``, ``Kc``, ``10d``)."""
    shown = sort_cards(request.state["cards"])
    held = set(shown)
    picked: list[str] = []
    for arg in args:
        if arg.isdigit():
            pos = int(arg)
            if not 1 <= pos <= len(shown):
                raise CommandError(f"position {pos}: the positions of your cards are 1 to {len(shown)}")
            card = shown[pos - 1]
        else:
            text = arg[:-1].upper().replace("10", "T") + arg[-1:].lower()
            try:
                card = card_str(parse_card(text))
            except CardError:
                raise CommandError(
                    f"{arg!r} is neither a position (1-{len(shown)}) nor a card such as 7h or Kc"
                ) from None
            if card not in held:
                raise CommandError(f"{card} is not in your hand ({' '.join(shown)})")
        if card in picked:
            raise CommandError(f"{card} is named twice")
        picked.append(card)
    most = request.legal.max_discards
    if len(picked) > most:
        raise CommandError(f"{len(picked)} cards: you may discard at most {most} (R4.1)")
    return tuple(picked)


def parse_command(line: str, request: ActRequest | DrawRequest, stack: int, bet: int) -> ActionReply | DiscardReply:
    """The reply a typed line means for ``request``.

    Args:
        line: what the person typed (one line; case and extra spaces do not matter).
        request: the pending request.
        stack, bet: this seat's chips behind and bet this round (for ``a``).

    Returns:
        The :class:`ActionReply` or :class:`DiscardReply` to send.

    Raises:
        CommandError: an unknown command, one for the other kind of decision, an
            amount outside ``min_to..max_to`` (R3.4, R3.6), a card not held, too
            many discards (R4.1). ``?`` raises it too, with :data:`HELP`.
    """
    words = line.strip().split()
    legal = request.legal
    acts = legal.actions
    seq = request.seq
    head = words[0].lower() if words else ""
    args = words[1:]
    if head in ("?", "h", "help"):
        raise CommandError(HELP)
    if isinstance(request, DrawRequest):
        if head in ("", "d", "draw", "discard", "s", "stand"):
            return DiscardReply(seq=seq, cards=_discards(args, request) if head not in ("s", "stand") else ())
        if head in ("f", "c", "b", "r", "a", "fold", "check", "call", "bet", "raise", "allin"):
            raise CommandError("this is the draw: discard with d 2 5 7 or d 7h Kc; an empty line stands pat")
        raise CommandError(
            f"unknown command {words[0]!r}: in the draw type d 2 5 7, d 7h Kc or an empty line; ? for help"
        )
    if head == "":
        return ActionReply(seq=seq, action="check" if "check" in acts else "call")
    if head in ("f", "fold"):
        if "fold" not in acts:
            raise CommandError("nothing to fold against: check with c")
        return ActionReply(seq=seq, action="fold")
    if head in ("c", "k", "check", "call"):
        return ActionReply(seq=seq, action="check" if "check" in acts else "call")
    if head in ("a", "allin", "all-in"):
        target = _all_in(request, stack, bet)
        if target is None:
            raise CommandError(f"no all-in here: the choices are {_summary(request, stack, bet)}")
        return target[0]
    rule = unopened(request)
    if head in ("o", "open"):
        if rule is None:
            raise CommandError(f"'{head}' is the first bet of round 1 in a game of openers, and there is none to "
                               f"make now: {_summary(request, stack, bet)}")
        head = "b"
    if head in ("b", "r", "bet", "raise"):
        kind = "bet" if "bet" in acts else "raise" if "raise" in acts else None
        if kind is None and rule is not None and my_openers(request.state["cards"], rule) is None:
            raise CommandError(no_openers_line(rule))
        if kind is None:
            raise CommandError(f"no bet or raise is legal now: {_summary(request, stack, bet)}")
        if len(args) > 1:
            raise CommandError(f"'{head}' takes one amount, the 'to' total, e.g. {kind[0]} {legal.min_to}")
        to = _amount(args[0], head) if args else legal.min_to
        if not legal.min_to <= to <= legal.max_to:
            span = f"exactly {legal.min_to}" if legal.min_to == legal.max_to else f"{legal.min_to} to {legal.max_to}"
            raise CommandError(f"{kind} to {to} is not legal: {kind} to {span} (R3.4, R3.6)")
        return ActionReply(seq=seq, action=kind, amount=to)
    if head in ("d", "draw", "discard"):
        raise CommandError(f"no draw now, this is a betting round: {_summary(request, stack, bet)}")
    raise CommandError(f"unknown command {words[0]!r}: {_summary(request, stack, bet)}; ? for help")


def _summary(request: ActRequest | DrawRequest, stack: int, bet: int) -> str:
    return ", ".join(f"{cmd} {what}" for cmd, what in legal_choices(request, stack, bet))


@dataclass(slots=True)
class Seat:
    """One seat of the hand as the human seat sees it (chips in chips)."""

    name: str
    stack: int
    bet: int = 0
    contrib: int = 0
    folded: bool = False
    all_in: bool = False
    drew: int | None = None
    last: str = ""
    cards: list[str] = field(default_factory=list)  # own cards, or shown at showdown
    five: list[str] = field(default_factory=list)
    category: str = ""
    net: int | None = None


class TableView:
    """The hand as the human seat follows it (see the module docstring).

    Feed every message to :meth:`update`; it returns the lines that tell what
    happened, one per event, in order. :meth:`snapshot` is the state now, as a
    JSON-ready dict (the web page's and the terminal's drawing).
    """

    def __init__(self) -> None:
        self.match: MatchStart | None = None
        self.hand: HandStart | None = None
        self.seats: list[Seat] = []
        self.me = 0
        self.button = 0
        self.phase = ""
        self.applied = 0  # events of the hand applied so far
        self.request: ActRequest | DrawRequest | None = None
        self.shown: bool = False
        self.pots_won: list[dict[str, Any]] = []
        self.log: list[str] = []
        self.totals: list[int] = []
        self.hands_done = 0
        self.notice = ""
        self._on_event: Any = None
        # A game of openers (R7): its rule, the chips carried in, the open, a passed-out deal.
        self.jackpots = False
        self.openers_rule: str | None = None
        self.carried = 0
        self.carried_out = 0
        self.passed_out = False
        self.opener: int | None = None
        self.my_proof: list[str] = []
        self.proof: list[str] | None = None  # the openers shown at the hand's end (hand_end.opener, R7.7)

    # ---- feeding

    def update(self, msg: Message, on_event: Any = None) -> list[str]:
        """Apply one message; return a line per event it brought (oldest first).

        ``on_event(line)``, if given, is called after each event of the hand is applied, the
        table then showing the state right after that event (the interfaces draw it).
        """
        self._on_event = on_event
        lines: list[str] = []
        if isinstance(msg, MatchStart):
            self.match = msg
            self.totals = [0] * len(msg.names)
            g = msg.game
            blinds = f"blinds {g.small_blind}/{g.big_blind}" if g.blinds else f"ante {g.ante}, min bet {g.min_bet}"
            game = GAMES.get(g.name)
            self.jackpots = game is not None and game.passed_out
            named = "" if g.name == "seven-card-draw" else f"{g.name}, "
            lines.append(f"match {msg.match_id}: {msg.hands} hands, {named}{g.structure}, {blinds}, "
                         f"{msg.starting_stack} chips, you are seat {msg.seat} ({msg.names[msg.seat]})")
        elif isinstance(msg, HandStart):
            self.hand = msg
            self.me = msg.seat
            self.button = msg.button
            self.seats = [Seat(n, s) for n, s in zip(msg.names, msg.stacks, strict=True)]
            self.seats[self.me].cards = list(msg.cards)
            self.phase = "bet1"
            self.applied = 0
            self.request = None
            self.shown = False
            self.pots_won = []
            self.notice = ""
            # R7.4: a passed-out deal's pot is carried into this one (the request's state confirms it).
            self.carried, self.carried_out, self.passed_out = self.carried_out, 0, False
            self.opener, self.my_proof, self.proof = None, [], None
            lines.append(f"— hand {msg.hand_id + 1}: button {msg.names[msg.button]}; your cards "
                         f"{' '.join(sort_cards(msg.cards))}")
            if self.jackpots and self.carried:
                lines.append(f"{self.carried} chips carried in from passed-out deals are in the pot (R7.4)")
        elif isinstance(msg, (ActRequest, DrawRequest)):
            st = msg.state
            self.openers_rule = st.get("openers", self.openers_rule)
            self.carried = st.get("carried", self.carried)
            lines += self._events(st["history"])
            self.request = msg
            self.phase = st["phase"]
            self.seats[self.me].cards = list(st["cards"])
            # The request's own figures are the referee's word (the human may draw first: bets reset).
            for k, seat in enumerate(self.seats):
                seat.stack, seat.bet = st["stacks"][k], st["bets"][k]
                seat.folded, seat.all_in, seat.drew = st["folded"][k], st["all_in"][k], st["draws"][k]
        elif isinstance(msg, HandEnd):
            lines += self._events(msg.history)
            lines += self._end(msg)
        elif isinstance(msg, Error):
            if self.request is not None and msg.seq == self.request.seq:
                self.request = None
            self.notice = msg.message
            lines.append(f"! {msg.message}")
        elif isinstance(msg, MatchEnd):
            lines.append(f"match over after {msg.hands_played} hands")
        self.log += lines
        del self.log[:-200]
        return lines

    def answered(self) -> None:
        """The pending request has been answered."""
        self.request = None

    def _events(self, history: Any) -> list[str]:
        lines = []
        for event in list(history)[self.applied:]:
            lines.append(self._apply(event))
            self.applied += 1
            if self._on_event is not None:
                self.log.append(lines[-1])
                self._on_event(lines[-1])
                self.log.pop()
        return lines

    def _apply(self, e: Any) -> str:
        s = self.seats[e["seat"]]
        kind = e["action"]
        who = "you" if e["seat"] == self.me else s.name
        amount = e.get("amount", 0)
        if kind in POSTS:
            s.stack -= amount
            s.contrib += amount
            if kind != "ante":  # antes are not bets of the round (R2.4)
                s.bet += amount
            text = f"{_verb(who, 'post')} the {kind.replace('_', ' ')} ({amount})"
            last = f"{kind.replace('_', ' ')} {amount}"
        elif kind == "fold":
            s.folded = True
            text = last = _verb(who, "fold")
        elif kind == "check":
            text = last = _verb(who, "check")
        elif kind == "call":
            s.stack -= amount
            s.contrib += amount
            s.bet += amount
            text = f"{_verb(who, 'call')} {amount}"
            last = f"call {amount}"
        elif kind in ("bet", "raise"):
            add = amount - s.bet
            s.stack -= add
            s.contrib += add
            s.bet = amount
            text = f"{_verb(who, kind)} to {amount}"
            last = f"{kind} to {amount}"
            if self.jackpots and self.opener is None and self.phase == "bet1":  # the open (R7.2)
                self.opener = e["seat"]
                text, last = f"{_verb(who, 'open')}: bet to {amount}", f"open to {amount}"
                if e["seat"] == self.me and self.openers_rule is not None:
                    self.my_proof = my_openers(s.cards, self.openers_rule) or []
        elif kind == "draw":
            if self.phase != "draw":
                self.phase = "draw"
                for seat in self.seats:
                    seat.bet = 0
            s.drew = e.get("count", 0)
            text = f"{_verb(who, 'draw')} {s.drew}" if s.drew else f"{_verb(who, 'stand')} pat"
            last = f"draw {s.drew}" if s.drew else "stand pat"
        else:
            text = last = f"{who}: {kind}"
        if e.get("all_in"):
            s.all_in = True
            text += " (all-in)"
        s.last = last.removeprefix(f"{who} ")
        return text

    def _end(self, msg: HandEnd) -> list[str]:
        lines = []
        self.phase = "complete"
        self.request = None
        self.shown = True
        for sh in msg.shown:
            seat = self.seats[sh.seat]
            seat.cards, seat.five, seat.category = list(sh.cards), list(sh.five), _words(sh.category)
            who = "you" if sh.seat == self.me else seat.name
            lines.append(f"{_verb(who, 'show')} {' '.join(sh.five)}: {seat.category}")
        self.pots_won = []
        for i, p in enumerate(msg.pots):
            name = "main pot" if i == 0 else f"side pot {i}"
            winners = ", ".join(f"{self._who(w)} {c}" for w, c in zip(p.winners, p.shares, strict=True))
            self.pots_won.append({"name": name, "chips": p.amount, "winners": winners})
            lines.append(f"{name} {p.amount}: {winners}")
        for k, (net, stack) in enumerate(zip(msg.net, msg.stacks, strict=True)):
            self.seats[k].net = net
            self.seats[k].stack = stack
            self.seats[k].bet = 0
        if self.match is not None and self.hand is not None:
            names = list(self.match.names)
            for k, net in enumerate(msg.net):
                m = names.index(self.hand.names[k])
                self.totals[m] += net
        if self.jackpots and not msg.pots:  # nobody opened (R7.4): no draw, no showdown, the pot stays
            self.passed_out = True
            self.carried_out = self.carried - sum(msg.net)
            lines.append(f"nobody opened: the deal is passed out (R7.4); the pot of {self.carried_out} is carried "
                         "to the next deal, and everyone antes again")
        elif msg.opener is not None:  # R7.7: the opener shows openers, even when nobody called
            self.opener, self.proof = msg.opener.seat, list(msg.opener.cards)
            who = self._who(msg.opener.seat)
            if self.proof:
                lines.append(f"{_verb(who, 'show')} {'your' if who == 'you' else 'their'} openers: "
                             f"{' '.join(self.proof)} (R7.7)")
            else:
                lines.append(f"{who} opened (anyone may open: no openers to show, R7.2)")
        self.hands_done += 1
        mine = msg.net[self.me]
        lines.append(f"you {'win' if mine > 0 else 'lose'} {abs(mine)}" if mine else "you break even")
        return lines

    def _who(self, seat: int) -> str:
        return "you" if seat == self.me else self.seats[seat].name

    # ---- reading

    @property
    def my_stack(self) -> int:
        return self.seats[self.me].stack if self.seats else 0

    @property
    def my_bet(self) -> int:
        return self.seats[self.me].bet if self.seats else 0

    def pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """Main pot and side pots of the chips in so far (R5.5): ``[(chips, eligible seats)]``.

        Side pots exist only once someone is all-in; before that the chips in are one pot. The part of
        a bet nobody has matched yet is in no pot (it may still be returned, R3.9).
        """
        if not self.seats:
            return []
        live = [not s.folded for s in self.seats]
        if not any(s.all_in for s in self.seats):
            total = sum(s.contrib for s in self.seats)
            return [(total, tuple(k for k, ok in enumerate(live) if ok))] if total else []
        contrib = [s.contrib for s in self.seats]
        top = sorted((c for c, ok in zip(contrib, live, strict=True) if ok), reverse=True)
        matched = top[1] if len(top) > 1 else top[0] if top else 0
        return build_pots([min(c, matched) for c in contrib], live)

    def best_five(self) -> tuple[list[str], str]:
        """This seat's best five now and its category in words (R5.1)."""
        cards = self.seats[self.me].cards if self.seats else []
        if len(cards) < 5:
            return [], ""
        rank = best_hand([parse_card(c) for c in cards])
        if self.match is not None and self.match.game.name == "deuce-to-seven-triple-draw":
            return [card_str(c) for c in rank.five], f"{rank.label} (the lowest hand wins, R8.2)"
        return [card_str(c) for c in rank.five], rank.label

    def choices(self) -> list[tuple[str, str]]:
        """The legal replies now, ``(command, what)`` (empty when nothing is asked)."""
        if self.request is None:
            return []
        return legal_choices(self.request, self.my_stack, self.my_bet)

    def parse(self, line: str) -> ActionReply | DiscardReply:
        """:func:`parse_command` for the pending request. Raises CommandError (also when nothing is asked)."""
        if self.request is None:
            raise CommandError("nothing to answer now: wait for your turn")
        return parse_command(line, self.request, self.my_stack, self.my_bet)

    def snapshot(self) -> dict[str, Any]:
        """The table now, JSON-ready: what the terminal and the web page draw."""
        five, category = self.best_five()
        req = self.request
        legal = None
        if req is not None:
            legal = {
                "kind": "draw" if isinstance(req, DrawRequest) else "act",
                "seq": req.seq,
                "actions": list(req.legal.actions),
                "call_amount": req.legal.call_amount,
                "min_to": req.legal.min_to,
                "max_to": req.legal.max_to,
                "max_discards": req.legal.max_discards,
                "choices": [list(c) for c in self.choices()],
            }
        return {
            "hand_id": self.hand.hand_id if self.hand else None,
            "hands": self.match.hands if self.match else None,
            "phase": self.phase,
            "me": self.me,
            "button": self.button,
            "seats": [
                {"name": s.name, "stack": s.stack, "bet": s.bet, "folded": s.folded, "all_in": s.all_in,
                 "drew": s.drew, "last": s.last, "net": s.net, "me": k == self.me,
                 "cards": sort_cards(s.cards) if k == self.me else list(s.cards),
                 "five": s.five, "category": s.category}
                for k, s in enumerate(self.seats)
            ],
            # At the end, what the pots held: an uncalled bet went back to its owner (R3.9).
            "pot": (self.carried_out if self.passed_out else sum(p["chips"] for p in self.pots_won)) if self.shown
            else sum(s.contrib for s in self.seats) + self.carried,
            "pots": [{"chips": c, "eligible": [self.seats[e].name for e in el]} for c, el in self.pots()],
            "won": self.pots_won,
            "best": {"five": five, "category": category},
            "legal": legal,
            "log": self.log[-12:],
            "notice": self.notice,
            "totals": dict(zip(self.match.names, self.totals, strict=True)) if self.match else {},
            "openers": self._openers_view(),
        }

    def _openers_view(self) -> dict[str, Any] | None:
        """A game of openers (R7): the rule in words, this seat's opening cards (None: it may not open) while
        round 1 waits for its open, who opened, the openers shown at the hand's end (``proof``, R7.7; None before),
        the chips carried in and whether the deal was passed out."""
        if not self.jackpots or self.openers_rule is None:
            return None
        rule = self.openers_rule
        waiting = self.opener is None and self.phase == "bet1"
        return {
            "rule": rule, "words": OPENERS_WORDS[Openers(rule)], "waiting": waiting,
            "mine": my_openers(self.seats[self.me].cards, rule) if waiting and self.seats else None,
            "opener": None if self.opener is None else self.seats[self.opener].name, "proof": self.proof,
            "carried": self.carried, "passed_out": self.passed_out,
        }
