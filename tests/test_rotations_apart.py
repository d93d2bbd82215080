"""``[schedule] rotations_apart``: each rotation of a table on a machine none of its other rotations ran on.

The Dask executor is driven with a stand-in client (no cluster needed): what
it is asked to submit, and where it may run, is what is checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.tournament.cluster import DaskExecutor, apart_workers, worker_host
from harness.tournament.config import ConfigError, load_config
from harness.tournament.workers import Job

WORKERS = {"tcp://10.0.0.1:40001": 1, "tcp://10.0.0.1:40002": 1, "tcp://10.0.0.2:40003": 1}


class Future:
    def __init__(self) -> None:
        self.callbacks: list[Any] = []

    def add_done_callback(self, callback: Any) -> None:
        self.callbacks.append(callback)


class Client:
    """What DaskExecutor uses of ``distributed.Client``; ``submitted`` holds each task's allowed workers."""

    status = "running"

    def __init__(self) -> None:
        self.submitted: list[list[str] | None] = []

    def nthreads(self) -> dict[str, int]:
        return dict(WORKERS)

    def subscribe_topic(self, *args: Any) -> None:
        pass

    def run(self, *args: Any, **kwargs: Any) -> None:
        pass

    def cancel(self, futures: Any) -> None:
        pass

    def submit(self, *args: Any, workers: list[str] | None = None, **kwargs: Any) -> Future:
        self.submitted.append(workers)
        return Future()


def job(tmp_path: Path, key: str, group: str | None) -> Job:
    directory = tmp_path / key
    directory.mkdir()
    return Job(key=key, func=worker_host, args=("tcp://x:1",), directory=directory, group=group)


def finish(executor: DaskExecutor, key: str, worker: str) -> None:
    """The task of job ``key`` ran on ``worker`` and succeeded."""
    task = next(t for t in executor._tasks.values() if t.job.key == key)
    del executor._tasks[task.key]
    executor._outcome(task, "finished", {"result": {"ok": True}, "worker": worker, "files": [], "seconds": 0.1})


def test_worker_hosts_and_the_workers_left() -> None:
    assert worker_host("tcp://10.0.0.5:40123") == "10.0.0.5" and worker_host("tls://[::1]:8786") == "[::1]"
    assert apart_workers(WORKERS, {"10.0.0.1"}) == ["tcp://10.0.0.2:40003"]
    assert apart_workers(WORKERS, {"10.0.0.1", "10.0.0.2"}) == []


def test_a_tables_next_rotation_goes_to_another_machine_and_fails_when_none_is_left(tmp_path: Path) -> None:
    client = Client()
    executor = DaskExecutor(client, "tcp://scheduler:8786", rotations_apart=True)
    executor.submit(job(tmp_path, "t0-r0", "table0"))
    assert client.submitted == [None]  # the first rotation anywhere
    finish(executor, "t0-r0", "tcp://10.0.0.1:40002")
    executor.submit(job(tmp_path, "t0-r1", "table0"))
    assert client.submitted[-1] == ["tcp://10.0.0.2:40003"]  # not 10.0.0.1's other worker either
    executor.submit(job(tmp_path, "t1-r0", "table1"))  # another table: anywhere
    assert client.submitted[-1] is None
    finish(executor, "t0-r1", "tcp://10.0.0.2:40003")
    executor.submit(job(tmp_path, "t0-r2", "table0"))  # a third rotation, two machines
    done = executor.wait(0.1)
    assert [d.job.key for d in done] == ["t0-r2"] and done[0].result is None
    assert "rotations_apart" in (tmp_path / "t0-r2" / "error.txt").read_text()
    # Without the setting the same rotation may run anywhere.
    plain = DaskExecutor(Client(), "tcp://scheduler:8786")
    plain.submit(job(tmp_path, "u0-r0", "table9"))
    finish(plain, "u0-r0", "tcp://10.0.0.1:40001")
    plain.submit(job(tmp_path, "u0-r1", "table9"))
    assert plain.client.submitted == [None, None]


def test_rotations_apart_is_read_from_the_schedule_and_only_for_dask(tmp_path: Path) -> None:
    base = ('[tournament]\nname = "t"\n[[bots]]\nname = "a"\ncommand = "python -m bots.caller"\n'
            '[[bots]]\nname = "b"\ncommand = "python -m bots.raiser"\n')
    path = tmp_path / "t.toml"
    path.write_text(base + '[schedule]\nscheduler = "tcp://h:8786"\nrotations_apart = true\n')
    assert load_config(path).schedule.rotations_apart
    path.write_text(base + "[schedule]\nrotations_apart = true\n")
    with pytest.raises(ConfigError, match="rotations_apart"):
        load_config(path)
