"""``harness play --game five-card-draw``: a person plays Five Card Draw with openers (RULES.md R7) in the
terminal, driven through stdin and stdout pipes as a script would, against two bots.caller (they never bet,
so a deal the person cannot open is passed out). The table must say which of the person's cards open (R7.2),
refuse an open without openers in one line naming what opens (R7.3), say a passed-out deal and the chips it
carries into the next (R7.4), serve the draw, and show the person's openers at the end (R7.7); the hand
history must then hold the person's replies, the passed-out deals and their carried chips."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.history.files import read_history
from harness.play.table import parse_command
from protocol.messages import ActionReply, ActRequest, Legal, TimeLeft
from tests.play_helpers import Driver, harness_cmd
from tests.play_helpers import choices as read_choices

pytestmark = pytest.mark.slow  # processes: outside the fast set (pytest -m "not slow")

ROOT = Path(__file__).resolve().parents[1]
CALLERS = [f"--bot=c{k}={sys.executable} -m bots.caller" for k in (1, 2)]
TIME = TimeLeft(1000, 0)
REFUSED = "? you may not open: your cards hold no openers (a pair of jacks or better opens, R7.2, R7.3)"


def test_a_person_plays_five_card_draw_in_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "game"
    proc = subprocess.Popen(
        [*harness_cmd(), "play", "--game", "five-card-draw", "--ante", "1", "--min-bet", "10", *CALLERS,
         "--hands", "6", "--seed", "5", "--out", str(out), "--sandbox", "off"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    drive = Driver(proc)
    said: dict[str, str] = {}  # what we typed -> the text up to the next prompt
    last: str | None = None
    tried_to_open = False
    try:
        while (screen := drive.until_prompt()) is not None:
            if last is not None:
                said.setdefault(last, screen)
            mine = ([line for line in screen.splitlines() if line.startswith("your cards")] or [""])[-1]
            choices = read_choices(screen)
            last = line = ""
            if "d" in choices:
                last = line = "d 1 2"
            elif "   openers: " in mine:
                last, line = "o-opened", "o"  # the open for the least (R7.2)
            elif "   no openers (" in mine and not tried_to_open:
                assert set(choices) == {"f", "c"}, screen  # no bet offered without openers (R7.3)
                last, line, tried_to_open = "o-refused", "o", True
            drive.send(line)
        assert proc.wait(300) == 0, proc.stderr.read().decode()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = drive.transcript
    assert "match play: 6 hands, five-card-draw, no-limit, ante 1, min bet 10" in text
    assert said["o-refused"].startswith("o\n" + REFUSED), said["o-refused"]
    assert said["o-opened"].startswith("o\nyou open: bet to 10\n"), said["o-opened"]
    assert "nobody opened: the deal is passed out (R7.4); the pot of 3 is carried to the next deal" in text
    assert "3 chips carried in from passed-out deals are in the pot (R7.4)" in text
    assert "you draw 2" in text and "you show your openers: " in text
    records = list(read_history(out / "hands.jsonl"))
    assert len(records) == 6
    passed = [r for r in records if r["jackpot"]["passed_out"]]
    opened = [r for r in records if r["jackpot"]["opener"] == 0]
    assert passed and opened
    carried = 0
    for r in records:
        assert r["faults"] == [] and r["jackpot"]["carried_in"] == carried  # R7.4: carried deal to deal
        nets = sum(p["net"] for p in r["players"])
        assert nets + r["jackpot"]["carried_out"] == r["jackpot"]["carried_in"]  # R1.4
        carried = r["jackpot"]["carried_out"]
    mine = [a for r in opened for a in r["actions"] if a["seat"] == 0]
    assert all(a["by"] == "bot" and a["fault"] is None for a in mine)
    assert any(a["kind"] == "bet" for a in mine) and any(a["kind"] == "draw" and len(a["discards"]) == 2
                                                          for a in mine)


def test_open_is_a_command_of_round_one_only() -> None:
    state = {"phase": "bet1", "openers": "jacks", "history": [], "cards": ["Jh", "Jd", "7c", "4s", "2d"]}
    opening = ActRequest(seq=3, state=state, legal=Legal(("fold", "check", "bet"), 0, 10, 990, 0), time=TIME)
    assert parse_command("o", opening, 990, 0) == ActionReply(seq=3, action="bet", amount=10)
    assert parse_command("open 30", opening, 990, 0) == ActionReply(seq=3, action="bet", amount=30)
    refused = ActRequest(seq=3, state={**state, "cards": ["Th", "Td", "Ac", "Ks", "Qd"]},
                         legal=Legal(("fold", "check"), 0, 0, 0, 0), time=TIME)
    for line in ("o", "b 10"):
        with pytest.raises(ValueError, match=r"^you may not open: your cards hold no openers \(a pair of jacks"):
            parse_command(line, refused, 990, 0)
    opened = ActRequest(seq=4, state={**state, "history": [{"seat": 1, "action": "bet", "amount": 10}]},
                        legal=Legal(("fold", "call", "raise"), 10, 20, 990, 0), time=TIME)
    with pytest.raises(ValueError, match=r"^'o' is the first bet of round 1 in a game of openers"):
        parse_command("o", opened, 990, 0)
