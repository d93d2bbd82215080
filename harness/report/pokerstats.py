"""Poker statistics of each bot from its hands: the player statistics of a poker HUD, for Seven Card Draw.

Everything is counted from hand views (:func:`harness.report.hands.hand_view`, with steps), so
every hand-history version gives the same numbers. One :class:`Counts` per bot, and one per
(bot, opponent) over the hands both were dealt in; :meth:`Counts.row` turns counts into the
statistics of ``stats.csv`` (:data:`COLUMNS`). docs/STATISTICS.md defines each one and names
its source; the short form:

- ``vpip``, ``pfr``, ``three_bet``: of the hands in which the bot made a decision in round 1
  (PokerTracker 4's "voluntarily put money in pot", "pre-flop raise", "3Bet": round 1, before
  the draw, is Hold'em's pre-flop); the big blind counts as the first bet, so a raise of it is a
  2-bet and a re-raise of that a 3-bet.
- ``aggression_factor``: (bets + raises) / calls over both betting rounds (PokerTracker's AF;
  it counts Hold'em's post-flop rounds, here both rounds are counted); None without a call.
- ``cbet``: the last bettor or raiser of round 1 bets first in round 2 (continuation bet).
- ``wtsd``: showdowns / hands in which the bot was still in at the draw (Hold'em: saw the flop);
  ``won_at_showdown``: showdowns in which it won chips from a pot (W$SD).
- ``fold_to_bet_after_draw``: the bot folded the first time it faced a bet in round 2.
- ``stand_pat``, ``mean_discards``: of its draws, the share with no discard and the mean number
  of cards drawn (R4.2); also by position and by the category of its best five before the draw.

All fractions are in [0, 1] (None when the bot never had the chance: an empty denominator).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from harness.engine.actions import POSTS
from harness.engine.cards import parse_cards
from harness.engine.evaluator import best_hand

#: The columns of ``stats.csv``, in order (``bot`` first).
COLUMNS: tuple[str, ...] = ("bot", "hands", "vpip", "pfr", "three_bet", "aggression_factor", "cbet", "wtsd",
                            "won_at_showdown", "fold_to_bet_after_draw", "stand_pat", "mean_discards",
                            "showdowns", "draws")
#: Headings of the statistics on the pages, with the tooltip that defines each (docs/STATISTICS.md).
HEADINGS: dict[str, tuple[str, str]] = {
    "hands": ("hands", "Hands the bot was dealt in."),
    "vpip": ("VPIP", "Voluntarily put chips in the pot: share of its hands in which it called, bet or raised in "
                     "round 1 (posting a blind is not voluntary). Source: PokerTracker 4."),
    "pfr": ("PFR", "Pre-draw raise: share of its hands in which it bet or raised in round 1. PFR <= VPIP."),
    "three_bet": ("3-bet", "Re-raised a raise of the big blind in round 1, when it had the chance."),
    "aggression_factor": ("AF", "Aggression factor: (bets + raises) / calls, both betting rounds."),
    "cbet": ("c-bet", "Continuation bet: as the last raiser of round 1, bet first in round 2, when it could."),
    "wtsd": ("WTSD", "Went to showdown: share of the hands it was still in at the draw that reached a showdown."),
    "won_at_showdown": ("W$SD", "Won money at showdown: share of its showdowns in which it won chips from a pot."),
    "fold_to_bet_after_draw": ("fold to bet", "Folded the first time it faced a bet or raise after the draw."),
    "stand_pat": ("stand pat", "Share of its draws with no discard (R4.2)."),
    "mean_discards": ("cards drawn", "Mean number of cards it drew (0-4) per draw."),
    "showdowns": ("showdowns", "Hands it showed down."),
    "draws": ("draws", "Hands in which it drew (it was still in at the draw)."),
}
#: Decisions of the bot itself or the referee's default for it (not "out", not "unsent", not a post).
_DECIDED = ("bot", "fault", None)
_AGGRESSIVE = ("bet", "raise")


@dataclass(slots=True)
class DrawCounts:
    """Draws of one bot in one group (a position or a category): count, stood pat, cards drawn."""

    draws: int = 0
    stand_pat: int = 0
    discarded: int = 0

    def add(self, other: DrawCounts) -> None:
        """Add another group's counts to this one."""
        self.draws += other.draws
        self.stand_pat += other.stand_pat
        self.discarded += other.discarded


@dataclass(slots=True)
class Counts:
    """What one bot did over some hands: the numerators and denominators of every statistic.

    Attributes (all counts of hands, except calls/aggressive: of decisions; discarded: of cards):
        hands: hands dealt in.
        round1: hands with a decision of its own in round 1 (the VPIP/PFR denominator).
        vpip, pfr: of those, hands it called/bet/raised, hands it bet/raised.
        three_bet_chances, three_bets: faced exactly one raise of the big blind; re-raised then.
        aggressive, calls: bets plus raises, calls, over both rounds.
        cbet_chances, cbets: last aggressor of round 1, first to bet in round 2; bet then.
        saw_draw, showdowns, won_showdown: in at the draw; shown down; won chips at showdown.
        faced_bet2, folded_bet2: faced a bet in round 2; folded at the first such decision.
        draws, stand_pat, discarded: its draws, those without a discard, cards thrown.
        by_position, by_category: the draws by position and by category before the draw.
    """

    hands: int = 0
    round1: int = 0
    vpip: int = 0
    pfr: int = 0
    three_bet_chances: int = 0
    three_bets: int = 0
    aggressive: int = 0
    calls: int = 0
    cbet_chances: int = 0
    cbets: int = 0
    saw_draw: int = 0
    showdowns: int = 0
    won_showdown: int = 0
    faced_bet2: int = 0
    folded_bet2: int = 0
    draws: int = 0
    stand_pat: int = 0
    discarded: int = 0
    by_position: dict[str, DrawCounts] = field(default_factory=dict)
    by_category: dict[str, DrawCounts] = field(default_factory=dict)

    def add(self, other: Counts) -> None:
        """Add the counts of other hands to these."""
        for name in _COUNT_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for mine, theirs in ((self.by_position, other.by_position), (self.by_category, other.by_category)):
            for key, value in theirs.items():
                mine.setdefault(key, DrawCounts()).add(value)

    def row(self, bot: str) -> dict[str, Any]:
        """The bot's statistics keyed by :data:`COLUMNS` (fractions in [0, 1]; None: no chance to measure)."""
        return {
            "bot": bot, "hands": self.hands,
            "vpip": _share(self.vpip, self.round1), "pfr": _share(self.pfr, self.round1),
            "three_bet": _share(self.three_bets, self.three_bet_chances),
            "aggression_factor": None if not self.calls else self.aggressive / self.calls,
            "cbet": _share(self.cbets, self.cbet_chances),
            "wtsd": _share(self.showdowns, self.saw_draw), "won_at_showdown": _share(self.won_showdown, self.showdowns),
            "fold_to_bet_after_draw": _share(self.folded_bet2, self.faced_bet2),
            "stand_pat": _share(self.stand_pat, self.draws),
            "mean_discards": None if not self.draws else self.discarded / self.draws,
            "showdowns": self.showdowns, "draws": self.draws,
        }


_COUNT_FIELDS = tuple(f.name for f in fields(Counts) if f.name not in ("by_position", "by_category"))


def _share(part: int, whole: int) -> float | None:
    return None if not whole else part / whole


def position_name(position: int, players: int) -> str:
    """The name of a position: 0 is the button, then clockwise (R2.1-R2.3; heads-up the button is the small blind)."""
    if players == 2:
        return "button (small blind)" if position == 0 else "big blind"
    names = ("button", "small blind", "big blind")
    return names[position] if position < 3 else f"{position}{'rd' if position == 3 else 'th'} after the button"


def category_before_draw(cards: Sequence[str]) -> str:
    """The category of the best five of the cards dealt (e.g. ``"one pair"``), R5.2; "" without 5 cards."""
    if len(cards) < 5:
        return ""
    return best_hand(parse_cards(cards)).label


def hand_counts(view: Mapping[str, Any]) -> list[Counts]:
    """The counts of one hand, one :class:`Counts` per player of the view (its seat order).

    Args:
        view: a hand view with steps (:func:`harness.report.hands.hand_view`).
    """
    n = len(view["bots"])
    out = [Counts(hands=1) for _ in range(n)]
    bets = [0] * n
    level = 0  # bets in round 1, the big blind counting as the first (PokerTracker's 3-bet numbering)
    phase = "bet1"
    last_raiser: int | None = None
    first2: set[int] = set()  # seats that made their first round-2 decision
    round1: set[int] = set()
    raised_before2 = False  # someone bet in round 2 before a seat's first decision there
    drew: set[int] = set()
    for step in view["steps"]:
        seat, kind = step["seat"], step["action"]
        counts = out[seat]
        if step["phase"] != phase:
            phase = step["phase"]
            bets = [0] * n
        if kind in POSTS:
            if kind == "big_blind":
                level = max(level, 1)
            if kind != "ante":
                bets[seat] = step["to"]
            continue
        decided = step.get("by") in _DECIDED
        facing = max(bets) > bets[seat]
        if phase == "draw":
            if step.get("by") != "out":
                drew.add(seat)
                drawn = int(step.get("count", len(step.get("discards") or [])))
                group = DrawCounts(1, int(drawn == 0), drawn)
                counts.draws += 1
                counts.stand_pat += drawn == 0
                counts.discarded += drawn
                counts.by_position.setdefault(position_name((seat - view["button"]) % n, n), DrawCounts()).add(group)
                holes = view.get("hole") or []
                category = category_before_draw(holes[seat]) if seat < len(holes) else ""
                if category:
                    counts.by_category.setdefault(category, DrawCounts()).add(group)
            continue
        if phase == "bet1":
            if decided and seat not in round1:
                round1.add(seat)
                counts.round1 += 1
            if decided and level == 2 and not counts.three_bet_chances:
                counts.three_bet_chances = 1
                counts.three_bets = int(kind in _AGGRESSIVE)
            if decided and kind in ("call", "bet", "raise") and not counts.vpip:
                counts.vpip = 1
            if decided and kind in _AGGRESSIVE and not counts.pfr:
                counts.pfr = 1
            if kind in _AGGRESSIVE:
                level += 1
                last_raiser = seat
        else:  # bet2
            if decided and seat not in first2:
                first2.add(seat)
                if seat == last_raiser and not raised_before2:
                    counts.cbet_chances = 1
                    counts.cbets = int(kind in _AGGRESSIVE)
            if decided and facing and not counts.faced_bet2:
                counts.faced_bet2 = 1
                counts.folded_bet2 = int(kind == "fold")
            if kind in _AGGRESSIVE:
                raised_before2 = True
        if decided and kind in _AGGRESSIVE:
            counts.aggressive += 1
        elif decided and kind == "call":
            counts.calls += 1
        if kind not in ("fold", "check"):
            bets[seat] = step["to"]
    shown = {s["seat"] for s in view["shown"]}
    winners = {w for p in view["pots"] for w, share in zip(p["winners"], p["shares"], strict=False) if share > 0}
    for seat in range(n):
        counts = out[seat]
        counts.saw_draw = int(seat in drew)
        if seat in shown:
            counts.showdowns = 1
            counts.won_showdown = int(seat in winners)
    return out


@dataclass(slots=True)
class PokerStats:
    """Counts per bot and per (bot, opponent) over every hand added (:meth:`add_hand`)."""

    bots: dict[str, Counts] = field(default_factory=dict)
    versus: dict[tuple[str, str], Counts] = field(default_factory=dict)

    def add_hand(self, view: Mapping[str, Any]) -> None:
        """Count one hand (a view with steps) for each of its players and each pair of them."""
        names = view["bots"]
        for seat, counts in enumerate(hand_counts(view)):
            name = names[seat]
            self.bots.setdefault(name, Counts()).add(counts)
            for other in names:
                if other != name:
                    self.versus.setdefault((name, other), Counts()).add(counts)

    def rows(self, order: Sequence[str]) -> list[dict[str, Any]]:
        """One row of :data:`COLUMNS` per bot of ``order`` (a bot without hands: zero hands, blanks)."""
        return [self.bots.get(bot, Counts()).row(bot) for bot in order]


def stats_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """``stats.csv``: a header of :data:`COLUMNS`, fractions to 4 decimals, blank where not measured."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(["" if row[c] is None else f"{row[c]:.4f}" if isinstance(row[c], float) else row[c]
                         for c in COLUMNS])
    return buf.getvalue()


def percent(value: float | None) -> str:
    """A fraction as a page shows it: ``"24.5%"``, "" when not measured."""
    return "" if value is None else f"{100 * value:.1f}%"


def shown_cells(row: Mapping[str, Any]) -> dict[str, str]:
    """A statistics row as the pages show it (percentages, AF and cards drawn to 2 decimals)."""
    out: dict[str, str] = {}
    for column in COLUMNS[1:]:
        value = row[column]
        if column in ("hands", "showdowns", "draws"):
            out[column] = str(value)
        elif column in ("aggression_factor", "mean_discards"):
            out[column] = "" if value is None else f"{value:.2f}"
        else:
            out[column] = percent(value)
    return out
