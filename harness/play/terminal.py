"""``harness play`` in the terminal: the table drawn with rich, commands read line by line.

On a terminal (stdin and stdout both TTYs) the screen is redrawn after every
event (a short pause between the bots' events so they can be followed): the
table, the last events, your cards with their positions, the legal actions
with exact amounts, the prompt. Otherwise (``printf ... | harness play``) the
output is plain text for scripts and transcripts: one line per event, the
table before each of your decisions and at the end of each hand, and every
command echoed after its prompt.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from harness.match.human import LEFT, HumanLink
from harness.play.table import CommandError, TableView
from protocol.messages import ActRequest, DrawRequest, Error, HandEnd

__all__ = ["TerminalTable", "card_text"]

_SUITS = {"h": ("♥", "bold red"), "d": ("♦", "bold red"), "c": ("♣", "bold"), "s": ("♠", "bold")}


def card_text(card: str, colour: bool) -> Text:
    """A card as text: ``A♥`` in red on a colour terminal, ``Ah`` in plain text."""
    if not colour:
        return Text(card)
    symbol, style = _SUITS[card[1]]
    return Text(("10" if card[0] == "T" else card[0]) + symbol, style=style)


def _cards(cards: list[str], colour: bool, numbered: bool = False) -> Text:
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append("  " if numbered else " ")
        if numbered:
            out.append(f"{i + 1}:", style="dim" if colour else "")
        out.append_text(card_text(c, colour))
    return out


class TerminalTable:
    """The person's interface in a terminal (see the module docstring).

    Args:
        console: where to draw; default stdout (colour only when stdin and stdout are terminals).
        read_line: reads one line of input, '' at the end of input; default stdin.
        pace_ms: pause after each event of another seat on a terminal (ms); 0 in plain mode.
    """

    def __init__(self, console: Console | None = None, read_line: Callable[[], str] | None = None,
                 pace_ms: int | None = None, stdin: IO[str] | None = None) -> None:
        self.stdin = stdin or sys.stdin
        tty = self.stdin.isatty() and sys.stdout.isatty()
        self.console = console or (Console(highlight=False) if tty else
                                   Console(highlight=False, no_color=True, force_terminal=False, width=100,
                                           emoji=False, soft_wrap=True))
        self.live = tty and console is None
        self.colour = self.live
        self.pace_s = (250 if self.live else 0) / 1000.0 if pace_ms is None else pace_ms / 1000.0
        self.read_line = read_line or self._read
        self.view = TableView()
        self.gone = False
        self._waiting = False
        self._said: Error | None = None

    # ---- input

    def _read(self) -> str:
        if self.live:
            try:
                return self.console.input("[bold]> [/]") + "\n"
            except EOFError:
                return ""
        # The prompt, then the command echoed after it: a piped session's transcript reads like a typed one.
        self.console.print("> ", end="", markup=False)
        self.console.file.flush()
        line = self.stdin.readline()
        self.console.print(line.rstrip() if line else "", markup=False)
        return line

    # ---- drawing

    def table(self) -> Group:
        """The table now: seats, stacks, bets, the button, pots, your cards, the legal actions."""
        v = self.view
        snap = v.snapshot()
        colour = self.colour
        pots = snap["pots"]
        pot_text = f"pot {snap['pot']}"
        if len(pots) > 1:
            pot_text += " (" + ", ".join(
                f"{'main' if i == 0 else f'side {i}'} {p['chips']}" for i, p in enumerate(pots)
            ) + ")"
        hand = snap["hand_id"]
        title = f"hand {hand + 1 if hand is not None else '-'}/{snap['hands']} · {snap['phase']} · {pot_text}"
        t = Table(title=title, box=box.ROUNDED if colour else box.ASCII, title_justify="left", expand=False)
        for col, just in (("seat", "right"), ("player", "left"), ("stack", "right"), ("bet", "right"),
                          ("drew", "right"), ("last", "left"), ("cards", "left")):
            t.add_column(col, justify=just)  # type: ignore[arg-type]
        for k, s in enumerate(snap["seats"]):
            you = " (you)" if s["me"] and s["name"] != "you" else ""
            name = Text(("D " if k == snap["button"] else "  ") + s["name"] + you)
            if s["me"] and colour:
                name.stylize("bold cyan")
            state = s["last"]
            if s["folded"]:
                state = "folded"
            elif s["all_in"]:
                state = f"{state} · all-in" if state else "all-in"
            if s["net"] is not None:
                state = f"{state} · {s['net']:+d}"
            shown = s["five"] or (s["cards"] if s["me"] else [])
            cards = _cards(shown, colour)
            if s["category"]:
                cards.append(f"  {s['category']}")
            t.add_row(str(k), name, str(s["stack"]), str(s["bet"]) if s["bet"] else "",
                      "" if s["drew"] is None else str(s["drew"]), state, cards)
        parts: list[Any] = [t]
        me = snap["seats"][snap["me"]] if snap["seats"] else None
        if me is not None and snap["phase"] != "complete":
            line = Text("your cards  ")
            line.append_text(_cards(me["cards"], colour, numbered=True))
            best = snap["best"]
            if best["category"]:
                line.append(f"   best five: {best['category']}")
            opening = snap["openers"]
            if opening is not None and opening["waiting"]:  # round 1 of a game of openers, nobody opened (R7.2)
                mine = opening["mine"]
                line.append(f"   openers: {' '.join(mine)}" if mine else f"   no openers ({opening['words']} opens)")
            parts.append(line)
        if snap["legal"] is not None:
            line = Text("your move   ")
            for i, (cmd, what) in enumerate(snap["legal"]["choices"]):
                if i:
                    line.append(" · ")
                line.append(cmd, style="bold yellow" if colour else "")
                line.append(f" {what}")
            parts.append(line)
            parts.append(Text("            empty line: " + (
                "stand pat" if snap["legal"]["kind"] == "draw" else
                ("check" if "check" in snap["legal"]["actions"] else "call")) + " · ? help"))
        return Group(*parts)

    def _screen(self) -> None:
        """A terminal's whole screen: the last events, then the table."""
        self.console.clear()
        for line in self.view.log[-10:]:
            self.console.print(line, markup=False, style="dim" if not line.startswith("—") else "bold")
        self.console.print(self.table())

    def _event(self, line: str) -> None:
        """One event of the hand applied: on a terminal the table as it is now, else the event's line."""
        if self.live:
            self._screen()
            if self.pace_s:
                time.sleep(self.pace_s)
        else:
            self.console.print(line, markup=False)

    def _lines(self, lines: list[str]) -> None:
        for line in lines:
            if self.live:
                self._screen()
            else:
                self.console.print(line, markup=False)

    # ---- the loop

    def __call__(self, link: HumanLink) -> None:
        """Play the seat until the match is over (see :func:`harness.play.session.play_with_human`)."""
        view = self.view
        link.on_error = self._told
        while True:
            msg = link.next(None)
            if msg is None:
                continue
            if msg == LEFT:
                return
            # The hand's events are drawn one by one as they are applied (_event); the message's other lines after.
            before = view.applied
            lines = view.update(msg, self._event)  # type: ignore[arg-type]
            events = view.applied - before if isinstance(msg, (ActRequest, DrawRequest, HandEnd)) else 0
            if msg is not self._said:  # an error already said at once (_told) is not said twice
                self._lines(lines[events:])
            if isinstance(msg, (ActRequest, DrawRequest)):
                if not self.gone:
                    self._decide(link, msg)
            elif isinstance(msg, HandEnd):
                if self.live:
                    self._screen()
                else:
                    self.console.print(self.table())

    def _told(self, msg: Error) -> None:
        """The referee's word while the person may be typing (the idle limit passed): said at once."""
        if self._waiting:
            self._said = msg
            self.console.print(f"\n! {msg.message}; type a command for the next decision", markup=False)

    def _decide(self, link: HumanLink, request: ActRequest | DrawRequest) -> None:
        """Draw the table, read commands until one is legal, send it."""
        if self.live:
            self._screen()
        else:
            self.console.print(self.table())
        while True:
            self._waiting = True
            try:
                line = self.read_line()
            finally:
                self._waiting = False
            if line == "":  # end of input: the person leaves (the referee puts the seat out)
                self.gone = True
                self.console.print("end of input: you leave the table; the bots play on without you", markup=False)
                link.leave()
                return
            try:
                reply = self.view.parse(line)
            except CommandError as exc:
                self.console.print(str(exc) if "\n" in str(exc) else f"? {exc}", markup=False)
                continue
            if not link.answer(reply):
                self.console.print("too late: the idle limit passed and the referee played the default action",
                                   markup=False)
            self.view.answered()
            return
