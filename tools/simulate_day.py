"""A class day in a few minutes: 30 students submit at random times (some versions broken) to a real server.

Usage: python tools/simulate_day.py [--students 30] [--minutes 4] [--seed 1]
Prints one line per submission and a summary (admitted, refused, blocks, the longest wait for a first block).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.server_helpers import BROKEN, Served, contest_file, free_port, links  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names = tuple(f"st{i:02d}" for i in range(args.students))
    bots = [(ROOT / "bots" / f).read_text() for f in ("raiser.py", "caller.py", "solid.py", "random_bot.py")]
    with tempfile.TemporaryDirectory(prefix="day-") as tmp:
        contest = contest_file(Path(tmp), students=names, hands=50, jobs=2)
        port = free_port()
        urls = links(contest, port)
        plan = sorted((rng.uniform(0, args.minutes * 60), n) for n in names for _ in range(rng.randint(1, 3)))
        server = Served(contest, port)
        clients = {}
        sent: dict[str, float] = {}
        first_block: dict[str, float] = {}
        counts = {"admitted": 0, "refused": 0}
        start = time.monotonic()
        try:
            pending: list[tuple[str, int, float]] = []
            while plan or pending or time.monotonic() - start < args.minutes * 60 + 30:
                now = time.monotonic() - start
                while plan and plan[0][0] <= now:
                    _, name = plan.pop(0)
                    client = clients.setdefault(name, server.client(urls[name]))
                    broken = rng.random() < 0.25
                    body = (BROKEN if broken else rng.choice(bots)) + f"\n# {name} {rng.random()}\n"
                    answer = client.post("/submit", files={"file": ("bot.py", body.encode())},
                                         headers={"Accept": "application/json"}).json()
                    pending.append((name, answer["id"], time.monotonic()))
                for item in list(pending):
                    name, vid, t0 = item
                    state = clients[name].get(f"/api/versions/{vid}").json()
                    if state["state"] != "checking":
                        pending.remove(item)
                        counts[state["state"]] += 1
                        print(f"{now:6.1f}s {state['bot']:>10} {state['state']:8} after {time.monotonic() - t0:4.1f} s"
                              + (f": {state['reason'][:200]}" if state["state"] == "refused" else ""), flush=True)
                        if state["state"] == "admitted":
                            sent[state["bot"]] = time.monotonic()
                rows = {r["bot"]: r for r in server.client(urls["admin"]).get("/api/leaderboard").json()}
                for bot, t0 in sent.items():
                    if bot not in first_block and rows.get(bot, {}).get("blocks", 0) > 0:
                        first_block[bot] = time.monotonic() - t0
                time.sleep(1)
            rows = server.client(urls["admin"]).get("/api/leaderboard").json()
        finally:
            server.stop()
    waits = sorted(first_block.values())
    print(f"summary: {counts['admitted']} admitted, {counts['refused']} refused; "
          f"{sum(r['blocks'] for r in rows if r['status'] == 'reference')} blocks with the house bot, "
          f"{len(first_block)}/{len(sent)} admitted versions had a first block; wait for it: "
          f"median {waits[len(waits) // 2] if waits else 0:.1f} s, longest {waits[-1] if waits else 0:.1f} s")


if __name__ == "__main__":
    main()
