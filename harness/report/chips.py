"""Where a bot's chips went: its net by how hands ended and by opponent, its costliest and best hands.

Fed one hand view at a time (:meth:`ChipsTally.add`); the hands kept (:data:`TOP_HANDS` each way)
are only named then (match, hand, position) and described from a second reading of their matches
(:func:`hand_line`), with, in duplicate play, what the bots of the table's other rotations did with
the same cards (:func:`counterpart`): the deal is the same (R2.7 and the per-seat replacements
of duplicate play, docs/HISTORY.md), so the difference is the bots' play.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.report.pokerstats import category_before_draw

#: Hands listed each way (costliest, best) on a bot's page.
TOP_HANDS = 20
#: How a hand ended for the bot, in the order the pages list them.
ENDINGS: tuple[str, ...] = ("before the draw", "after the draw", "at showdown")
_NAMES = {"fold": "fold", "check": "check", "call": "call", "bet": "bet", "raise": "raise to"}


@dataclass(slots=True)
class EndSplit:
    """Hands won and lost (counts) and their chips (won >= 0, lost <= 0) for one way of ending."""

    won_hands: int = 0
    won_chips: int = 0
    lost_hands: int = 0
    lost_chips: int = 0

    @property
    def net(self) -> int:
        """Chips won minus chips lost."""
        return self.won_chips + self.lost_chips


@dataclass(frozen=True, slots=True)
class Counterpart:
    """The seat that held the same cards in another rotation of the table (duplicate play).

    Attributes:
        match_id, rotation, hand_id: where (the hand of that rotation that dealt the same deal:
            each rotation has its own secret order, ``MatchResult.deals``).
        bot, seat: who held them (match seat).
        net: its net in chips in that hand.
        summary: what it did (:func:`actions_summary`), and how the hand ended.
    """

    match_id: str
    rotation: int
    hand_id: int
    bot: str
    seat: int
    net: int
    summary: str


@dataclass(slots=True)
class HandLine:
    """One of a bot's costliest or best hands, as its page lists it.

    Attributes:
        match_id, hand_id, table, rotation: where.
        seat: the bot's match seat; bot: its name.
        net: its net in chips; ending: one of :data:`ENDINGS`.
        opponents: the other bots dealt in.
        dealt: its seven cards; category: their best five's category before the draw.
        summary: what it did (:func:`actions_summary`).
        counterparts: the same cards in the table's other rotations (duplicate), in rotation order.
    """

    match_id: str
    hand_id: int
    table: str
    rotation: int
    seat: int
    bot: str
    net: int
    ending: str
    opponents: list[str]
    dealt: list[str]
    category: str
    summary: str
    counterparts: list[Counterpart] = field(default_factory=list)


def ending_of(view: Mapping[str, Any]) -> str:
    """How a hand ended (:data:`ENDINGS`): shown down, or folded to one player before or after the draw."""
    if view["shown"]:
        return "at showdown"
    if any(step["action"] == "draw" for step in view["steps"]):
        return "after the draw"
    return "before the draw"


def actions_summary(view: Mapping[str, Any], pos: int) -> str:
    """What the player at position ``pos`` of a view did, round by round, e.g.
    ``"round 1: raise to 30, call; draw 2; round 2: bet 40; showdown: two pair"``."""
    parts: dict[str, list[str]] = {"bet1": [], "draw": [], "bet2": []}
    for step in view["steps"]:
        if step["seat"] != pos or step["action"] in ("ante", "small_blind", "big_blind"):
            continue
        kind = step["action"]
        if kind == "draw":
            count = int(step.get("count", 0))
            parts["draw"].append(f"draw {count}" if count else "stand pat")
            continue
        word = _NAMES.get(kind, kind)
        if kind in ("bet", "raise"):
            word += f" {step['to']}"
        elif kind == "call":
            word += f" {step['added']}"
        if step.get("all_in"):
            word += " all-in"
        if step.get("by") == "fault":
            word += f" (default after {step.get('fault') or 'a fault'})"
        parts[step["phase"]].append(word)
    out = []
    if parts["bet1"]:
        out.append("round 1: " + ", ".join(parts["bet1"]))
    if parts["draw"]:
        out.append(parts["draw"][0])
    if parts["bet2"]:
        out.append("round 2: " + ", ".join(parts["bet2"]))
    shown = next((s for s in view["shown"] if s["seat"] == pos), None)
    if shown is not None:
        out.append(f"showdown: {shown['category']}")
    return "; ".join(out) or "no decision"


@dataclass(slots=True)
class ChipsTally:
    """One bot's chips over the hands added: by ending, by opponent, and its extreme hands.

    Attributes:
        by_end: ending -> :class:`EndSplit`.
        by_opponent: opponent -> ending -> :class:`EndSplit` (hands that opponent was dealt in).
        costly, best: heaps of (key, match_id, hand_id, pos) of the :data:`TOP_HANDS` hands lost/won most.
    """

    by_end: dict[str, EndSplit] = field(default_factory=lambda: {e: EndSplit() for e in ENDINGS})
    by_opponent: dict[str, dict[str, EndSplit]] = field(default_factory=dict)
    costly: list[tuple[int, int, str, int, int]] = field(default_factory=list)
    best: list[tuple[int, int, str, int, int]] = field(default_factory=list)
    _order: int = 0

    def add(self, view: Mapping[str, Any], pos: int, *, listed: bool = True) -> None:
        """Count the hand for the player at position ``pos``; ``listed`` False keeps it off the hand lists
        (a duplicate table still being played: its deals are not shown yet)."""
        net = int(view["net"][pos])
        ending = ending_of(view)
        splits = [self.by_end[ending]]
        for k, other in enumerate(view["bots"]):
            if k != pos:
                splits.append(self.by_opponent.setdefault(other, {e: EndSplit() for e in ENDINGS})[ending])
        for split in splits:
            if net > 0:
                split.won_hands += 1
                split.won_chips += net
            elif net < 0:
                split.lost_hands += 1
                split.lost_chips += net
        if not listed or net == 0:
            return
        self._order += 1
        # Heaps keep the TOP_HANDS largest keys; earlier hands win ties (a larger -order).
        heap, key = (self.costly, -net) if net < 0 else (self.best, net)
        item = (key, -self._order, str(view["match_id"]), int(view["hand_id"]), pos)
        if len(heap) < TOP_HANDS:
            heapq.heappush(heap, item)
        else:
            heapq.heappushpop(heap, item)

    def extremes(self, which: str) -> list[tuple[str, int, int]]:
        """The listed hands ``"costly"`` (most lost first) or ``"best"`` (most won first): (match, hand, pos)."""
        heap = self.costly if which == "costly" else self.best
        return [(m, h, p) for _, _, m, h, p in sorted(heap, reverse=True)]


def hand_line(view: Mapping[str, Any], pos: int, *, table: str, rotation: int) -> HandLine:
    """Describe the player at ``pos`` of a hand view (with steps and cards) for a bot's page."""
    seats = view.get("seats") or list(range(len(view["bots"])))
    dealt = list(view["hole"][pos]) if view.get("hole") else []
    return HandLine(
        match_id=str(view["match_id"]), hand_id=int(view["hand_id"]), table=table, rotation=rotation,
        seat=int(seats[pos]), bot=view["bots"][pos], net=int(view["net"][pos]), ending=ending_of(view),
        opponents=[b for k, b in enumerate(view["bots"]) if k != pos], dealt=dealt,
        category=category_before_draw(dealt), summary=actions_summary(view, pos))


def counterpart(twin: Mapping[str, Any], dealt: Sequence[str], *, rotation: int) -> Counterpart | None:
    """The player of ``twin`` (the same hand of another rotation) dealt the cards ``dealt``, or None
    when no player was (a freezeout's seats left the table, or a deal not duplicated)."""
    seats = twin.get("seats") or list(range(len(twin["bots"])))
    for pos, cards in enumerate(twin.get("hole") or []):
        if sorted(cards) == sorted(dealt):
            return Counterpart(str(twin["match_id"]), rotation, int(twin["hand_id"]), twin["bots"][pos],
                               int(seats[pos]), int(twin["net"][pos]),
                               f"{actions_summary(twin, pos)} ({ending_of(twin)})")
    return None
