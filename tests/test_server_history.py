"""The contest server's match page over a damaged hand history: the hands it can show and a notice naming the
line and the problem (a real ``harness serve``, tests/server_helpers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, insert

from harness.engine import GameConfig
from tests.history_helpers import random_match
from tests.server_helpers import Served, contest_file, free_port, links

pytestmark = pytest.mark.slow  # processes, servers or browsers: outside the fast set (pytest -m "not slow")


def test_a_match_page_names_a_damaged_line_of_its_history(tmp_path: Path) -> None:
    from harness.server import db as schema
    from harness.server.contest import load_contest
    from harness.server.ladder import match_dir

    contest = contest_file(tmp_path)
    port = free_port()
    urls = links(contest, port)  # makes the database
    loaded = load_contest(contest)
    records = random_match(GameConfig(), seats=2, hands=3, seed=8, match_id="b1-r0")
    result = {"match_id": "b1-r0", "seed": 1, "hands_played": 3, "bots": records[0]["match"]["bots"],
              "net": [0, 0], "hand_nets": [], "faults": [{}, {}], "status": ["ok", "ok"]}
    engine = create_engine(loaded.database)
    with engine.begin() as conn:
        conn.execute(insert(schema.blocks).values(id=1, kind="ladder", seats="[]", seed="0" * 64, state="done",
                                                  created=0.0, finished=1.0))
        conn.execute(insert(schema.matches).values(
            id=1, block_id=1, rotation=0, match_id="b1-r0", state="done", error="", finished=1.0,
            record=json.dumps({"table": "b1", "rotation": 0, "big_blind": 10, "rotations": 1, "result": result})))
    engine.dispose()
    folder = match_dir(loaded, 1, 0)
    folder.mkdir(parents=True)
    (folder / "hands.jsonl").write_text(json.dumps(records[0]) + "\n{oops\n" + json.dumps(records[2]) + "\n",
                                        encoding="utf-8")
    server = Served(contest, port)

    def notice_of(page: str) -> str:
        return page.split('class="notice history-notice">', 1)[1].split("</p>", 1)[0]

    try:
        admin = server.client(urls["admin"])
        page = admin.get("/matches/b1-r0").text
        hands = json.loads(page.split('id="hands-data">', 1)[1].split("</script>", 1)[0])
        assert [h["hand_id"] for h in hands] == [0, 2]
        assert notice_of(page).startswith("The hand history: hands.jsonl line 2: not valid JSON"), notice_of(page)
        assert str(folder) not in page  # the server's folders are not shown
        # A finished match whose history is emptied or gone says so (not "shown once the block is stored").
        (folder / "hands.jsonl").write_text("", encoding="utf-8")
        assert notice_of(admin.get("/matches/b1-r0").text) == \
            "The hand history: hands.jsonl holds no hand, though the match is finished"
        (folder / "hands.jsonl").unlink()
        assert notice_of(admin.get("/matches/b1-r0").text) == "The hand history: no hand history: hands.jsonl " \
            "(or hands.jsonl.gz) is missing from this finished match"
    finally:
        server.stop()
