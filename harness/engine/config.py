"""Game settings (RULES.md R2, R3.6, R3.7, R4.4), validated at construction."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

from harness.engine.errors import GameConfigError
from harness.engine.games import GAMES, SEVEN_CARD_DRAW, GameDefinition

MIN_PLAYERS = SEVEN_CARD_DRAW.min_seats  # 2
MAX_PLAYERS = SEVEN_CARD_DRAW.max_seats  # 6, R1.2: with 7 the stock can run dry during the draw
#: The largest table of any game (R6.8: Five Card Draw seats up to 8, R7.1): the bound of whatever does not
#: know the game (the protocol's arrays, a record's seats); a game's own table is ``seat_count_problem``'s.
MAX_TABLE = max(g.max_seats for g in GAMES.values())
#: Every table size the rules allow (R1.2), for loops and choices.
TABLE_SIZES = range(MIN_PLAYERS, MAX_PLAYERS + 1)
MAX_PER_SEAT_PLAYERS = 4  # per-seat replacements need 7n + 4n <= 52 cards
#: Largest chip amount of a setting (blind, ante, min_bet) or a starting stack: every chip of a full
#: table (six stacks, whoever wins them in a freezeout) must fit the protocol's bound on an amount,
#: 2**40 (protocol/PROTOCOL.md section 8; the engine does not import ``protocol``, a test pins the two).
MAX_CHIPS = 2**40 // MAX_PLAYERS
#: Largest fixed-limit cap (bets per round, R3.7); 0 is no cap.
MAX_CAP = 1000


def seat_count_problem(n: object, definition: GameDefinition = SEVEN_CARD_DRAW) -> str | None:
    """Why ``n`` players cannot sit at one table of ``definition``'s game, or None when they can: the one
    wording of R1.2 (Seven Card Draw) and R6.8 (the other games, e.g. 2 to 8 in Five Card Draw, R7.1).

    Returns:
        e.g. ``"R1.2: a table seats 2 to 6 players, got 7; with 7 or more the stock can run dry in the
        draw (R4.4)"`` or ``"R6.8: a table of five-card-draw seats 2 to 8 players, got 9"``; callers prefix
        what they were checking.
    """
    if definition != SEVEN_CARD_DRAW:
        return definition.seat_problem(n)
    if type(n) is int and MIN_PLAYERS <= n <= MAX_PLAYERS:
        return None
    why = f"R1.2: a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n!r}"
    if type(n) is int and n > MAX_PLAYERS:
        why += "; with 7 or more the stock can run dry in the draw (R4.4)"
    return why


class Structure(StrEnum):
    """Betting structure (R3.6, R3.7)."""

    NO_LIMIT = "no-limit"
    FIXED_LIMIT = "fixed-limit"


class Replacements(StrEnum):
    """Where the draw's replacement cards come from (R4.4).

    ``stock``: the physical order; each player in draw order takes the next
    cards of the stock, with the R4.4 reshuffle of the muck when it runs out.

    ``per-seat`` (duplicate play, tables of at most 4): the i-th seat after
    the button receives cards ``7n+4i .. 7n+4i+k-1`` of the shuffled deck for
    a draw of k. A bot in that seat then sees the same replacements whatever
    the others discard, which removes draw luck between duplicate sets.

    Both are fair: the deck is a uniform shuffle, so every card a player has
    not seen is equally likely to be any of their replacements.
    """

    STOCK = "stock"
    PER_SEAT = "per-seat"


def _check_int(name: str, value: Any, low: int, rule: str, high: int = MAX_CHIPS) -> None:
    if type(value) is not int or value < low:
        raise GameConfigError(f"{rule}: {name} must be a whole number >= {low}, got {value!r}")
    if value > high:
        raise GameConfigError(f"{rule}: {name} must be at most {high:,}, got {value}")


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Settings of a game; invalid settings raise ``GameConfigError`` here.

    Attributes:
        structure: ``no-limit`` (R3.6) or ``fixed-limit`` (R3.7); a plain
            string is accepted and converted.
        small_blind: chips, half the big blind (R2.2).
        big_blind: chips, even, >= 2 (R2.2). Ignored when ``blinds`` is False.
        ante: chips every player posts before the deal, dead money (R2.4).
        blinds: False for an ante-only game (R2.5; then ``ante`` >= 1).
        min_bet: chips, even, >= 2; required in an ante-only game, where it
            takes the big blind's place in R3.6/R3.7; must be None otherwise.
        cap: fixed-limit bets per round, the big blind counts as the first
            bet of round 1; 0 = no cap (R3.7).
        replacements: ``stock`` or ``per-seat`` (see ``Replacements``).

    Raises:
        GameConfigError: naming the field and the rule id; chip amounts above
            :data:`MAX_CHIPS` and a cap above :data:`MAX_CAP` are refused.
    """

    structure: Structure = Structure.NO_LIMIT
    small_blind: int = 5
    big_blind: int = 10
    ante: int = 0
    blinds: bool = True
    min_bet: int | None = None
    cap: int = 4
    replacements: Replacements = Replacements.STOCK

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "structure", Structure(self.structure))
        except ValueError:
            raise GameConfigError(
                f"R3.6/R3.7: structure must be 'no-limit' or 'fixed-limit', got {self.structure!r}"
            ) from None
        try:
            object.__setattr__(self, "replacements", Replacements(self.replacements))
        except ValueError:
            raise GameConfigError(
                f"R4.4: replacements must be 'stock' or 'per-seat', got {self.replacements!r}"
            ) from None
        if type(self.blinds) is not bool:
            raise GameConfigError(f"R2.5: blinds must be true or false, got {self.blinds!r}")
        _check_int("ante", self.ante, 0, "R2.4")
        _check_int("cap", self.cap, 0, "R3.7", MAX_CAP)
        if self.blinds:
            _check_int("big_blind", self.big_blind, 2, "R2.2")
            if self.big_blind % 2:
                raise GameConfigError(f"R2.2: big_blind must be even, got {self.big_blind}")
            _check_int("small_blind", self.small_blind, 1, "R2.2")
            if self.small_blind * 2 != self.big_blind:
                raise GameConfigError(
                    f"R2.2: small_blind must be half the big blind ({self.big_blind // 2}), "
                    f"got {self.small_blind}"
                )
            if self.min_bet is not None:
                raise GameConfigError(
                    "R2.5: min_bet applies only to ante-only games (blinds = false); "
                    "remove it or set blinds = false"
                )
        else:
            if self.min_bet is None:
                raise GameConfigError("R2.5: an ante-only game (blinds = false) needs min_bet")
            _check_int("min_bet", self.min_bet, 2, "R2.5")
            if self.min_bet % 2:
                raise GameConfigError(f"R2.5: min_bet must be even, got {self.min_bet}")
            if self.ante < 1:
                raise GameConfigError("R2.5: an ante-only game (blinds = false) needs ante >= 1")

    @property
    def unit(self) -> int:
        """Chips of the big blind, or of ``min_bet`` in an ante-only game (R2.5)."""
        return self.big_blind if self.blinds else self.min_bet  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings (enums as their strings); a fresh dict each call."""
        return dict(_settings_dict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameConfig:
        """Settings from ``to_dict()`` output (or a TOML table).

        Raises:
            GameConfigError: unknown keys or invalid values.
        """
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise GameConfigError(
                f"unknown game setting(s) {sorted(unknown)}; known: {sorted(cls.__dataclass_fields__)}"
            )
        return cls(**data)


@lru_cache(maxsize=64)
def _settings_dict(config: GameConfig) -> dict[str, Any]:
    # Every hand record carries the settings: build the dict once per config, not per hand.
    d = asdict(config)
    d["structure"] = str(config.structure)
    d["replacements"] = str(config.replacements)
    return d
