"""Shared by several test modules (moved from test_leaderboard.py): rec."""

from __future__ import annotations

from harness.specs import MatchResult
from harness.tournament.results import MatchRecord


def rec(table: int, rotation: int, bots: list[str], hand_nets: list[list[int]], bb: int = 10,
        rotations: int = 2) -> MatchRecord:
    net = [sum(col) for col in zip(*hand_nets, strict=True)]
    res = MatchResult(match_id=f"t{table}r{rotation}", seed=table, hands_played=len(hand_nets), bots=bots,
                      net=net, hand_nets=hand_nets, faults=[{}, {"crash": 1}], status=["ok", "crash"])
    return MatchRecord(table=f"t{table}", rotation=rotation, unit=bb, result=res, rotations=rotations)
