"""A match's chips in the middle between deals: passed-out deals' antes (RULES.md R7.4).

In a game of openers (Five Card Draw, R7) a deal nobody opens is passed out: its antes
stay in the middle and the next deal is dealt with them as dead money (``carried``).
The engine's nets of such hands do not sum to zero (``sum(net) + carried_out ==
carried_in``, R1.4). A match keeps its accounting exact (every hand's row of nets sums
to 0, the match's nets sum to 0, chips are conserved) this way:

- a passed-out deal's row is all zeros: each seat's antes are still its own chips,
  *held* in the middle (they are not lost until someone wins them);
- the hand that wins the carried chips charges them: its row is the engine's nets
  less each seat's held chips (the winner's net includes the whole carried pot, R7.4),
  and the held chips are cleared;
- chips still held when the match ends (its last deals passed out) were never won:
  they go back to the seats that anted them, i.e. nobody is ever charged for them.

The same in both stack modes. In a freezeout the stacks the hands are dealt with are
the real ones (the antes left them); only the rows of nets defer the antes, so a seat
whose ante put it all in on a passed-out deal leaves the table with its share still
held, charged in the hand that wins the pot (R7.4: it loses its share).

>>> chips = CarriedChips(3)
>>> chips.settle((-1, -1, -1), passed_out=True)      # passed out: 3 antes held
[0, 0, 0]
>>> chips.held, chips.carried
([1, 1, 1], 3)
>>> chips.settle((5, -2, -2), passed_out=False)      # seat 0 wins 3 carried + 2 + 2 (its own ante back)
[4, -3, -1]
>>> chips.carried
0
"""

from __future__ import annotations

from collections.abc import Sequence


class CarriedChips:
    """The chips each match seat has in the middle from passed-out deals (R7.4), and each hand's row of nets.

    Args:
        seats: match seats (2..).
    """

    def __init__(self, seats: int) -> None:
        #: Chips each match seat has in the middle, anted in passed-out deals not yet won.
        self.held = [0] * seats

    @property
    def carried(self) -> int:
        """Chips in the middle for the next deal: its ``carried`` (R7.4)."""
        return sum(self.held)

    def settle(self, net: Sequence[int], passed_out: bool) -> list[int]:
        """The match's row of nets for one hand, by match seat (sums to 0).

        Args:
            net: the engine's nets of the hand by match seat (0 for a seat not dealt in); they sum to
                ``carried_in - carried_out`` (R1.4, R7.4), ``carried_in`` being :attr:`carried` before.
            passed_out: the deal was passed out (``result().passed_out``): its antes are held.

        Returns:
            the hand's nets by match seat: 0 each when passed out, else the engine's less the chips held.

        Raises:
            ValueError: ``net`` of another length, or nets that do not add up to the chips held (a hand
                dealt without this match's carried chips).
        """
        if len(net) != len(self.held):
            raise ValueError(f"R7.4: {len(net)} nets for {len(self.held)} match seats")
        if passed_out:
            if any(x > 0 for x in net):
                raise ValueError(f"R7.4: a passed-out deal wins no chips, nets {list(net)}")
            self.held = [h - x for h, x in zip(self.held, net, strict=True)]
            return [0] * len(net)
        if sum(net) != self.carried:
            raise ValueError(f"R7.4: nets {list(net)} do not add up to the {self.carried} chips carried in")
        row = [x - h for x, h in zip(net, self.held, strict=True)]
        self.held = [0] * len(net)
        return row
