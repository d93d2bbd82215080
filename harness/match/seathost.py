"""The seats of one match and the host that runs them (:class:`SeatHost`): the referee keeps the hand loop.

A :class:`MatchSeat` is what the referee knows of one seat (its channel, clock, faults, status); its
:attr:`MatchSeat.occupant` is whatever answers it, a :class:`~harness.match.seat.Seat` (a bot process in its
sandbox, :class:`~harness.match.botseat.BotSeat`, or a person, :class:`~harness.match.human.HumanSeat`),
chosen by :func:`seat_for`, the one place that tells the kinds apart. A :class:`SeatHost` owns what the
seats of one match share (control groups, uids, the page-cache pass), binds each seat's channel, launches,
times and stops the seats through the protocol.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from harness.host import cgroups
from harness.host.residency import Residency
from harness.host.sandbox import DEFAULT_PIDS, BotJail, Isolation, SandboxError, UidLease, support
from harness.host.treelimits import TreeBot, TreeMatch
from harness.match.botseat import BotSeat
from harness.match.clock import Clock
from harness.match.connection import Connection
from harness.match.endpoint import Hub
from harness.match.human import HumanSeat, HumanSpec
from harness.match.seat import QUIT_GRACE_MS, Seat, SeatLaunch, SeatStartError, stop_seats
from harness.match.trace import WireTrace
from harness.specs import BotSpec, CpuPolicy, FaultKind, Limits, SandboxMode, SandboxSettings
from protocol.version import PROTOCOL_VERSION

__all__ = ["STARTUP_WALL_FACTOR", "MatchSeat", "SeatHost", "seat_for"]

#: Wall-time cap of the start-up wait, in multiples of ``startup_ms``, when the machine keeps
#: a bot from a CPU (its own time is what ``startup_ms`` limits: :meth:`SeatHost.handshake`).
STARTUP_WALL_FACTOR = 5


def seat_for(spec: BotSpec | HumanSpec | Seat) -> Seat:
    """The :class:`~harness.match.seat.Seat` that answers a launch spec: the one place that tells seat kinds
    apart. A :class:`~harness.match.seat.Seat` given as it is (a third kind, docs/INTERNALS.md "Seats") is
    used as it is.

    Raises:
        ValueError: a bot with an empty command.
    """
    if isinstance(spec, HumanSpec):
        return HumanSeat(spec)
    if isinstance(spec, BotSpec):
        return BotSeat(spec)
    return spec


class MatchSeat:
    """Everything the referee keeps about one match seat: what answers it (:attr:`occupant`), its channel,
    clock, faults and status, and the notifications not sent yet.

    Args:
        index: the match seat.
        occupant: what answers it (:func:`seat_for`).
        limits: the match's limits (the seat chooses its clock from them).
    """

    __slots__ = (
        "index", "occupant", "name", "conn", "clock", "faults", "total_faults", "out", "status", "seq", "notes",
        "group", "hits",
    )

    def __init__(self, index: int, occupant: Seat, limits: Limits) -> None:
        self.index = index
        #: Whatever answers the seat (:class:`~harness.match.seat.Seat`).
        self.occupant = occupant
        self.name = occupant.name
        self.conn: Connection | None = None
        self.clock: Clock = occupant.clock(limits)
        self.faults: dict[str, int] = {}
        self.total_faults = 0
        self.out = False
        self.status = "ok"
        self.seq = 0
        #: Encoded notifications (hand_start, hand_end) not sent yet: they go out, in order,
        #: right before this bot's next request, so the bot wakes once for all of them.
        self.notes: list[bytes] = []
        #: The bot's control group, or its limits per process tree without cgroups (None with the sandbox
        #: off), and its limit counters seen so far.
        self.group: cgroups.BotGroup | TreeBot | None = None
        self.hits = (0, 0)

    def flush_notes(self, with_request: bool = False) -> None:
        """Send the queued notifications (dropped for a bot that is out).

        ``with_request``: they leave in one write with the request that follows (one wake-up of the bot).
        """
        notes = self.notes
        if notes:
            if not self.out and self.conn is not None:
                send = self.conn.hold if with_request else self.conn.send
                for payload in notes:
                    send(payload)
            notes.clear()

    def is_dead(self) -> bool:
        """True when nothing answers the seat any more (never started, or ended)."""
        occupant = self.occupant
        return not occupant.has_process or occupant.poll() is not None


class SeatHost:
    """Hosts the seats of one match: the seam between the referee's hand loop and whatever answers a seat.

    Owns the match's control groups (or per-tree limits), the seats' uid lease and jails, binds each seat's
    channel and launches what answers it through the :class:`~harness.match.seat.Seat` protocol (a bot
    process confined in the sandbox made here, or the thread that relays to a person), waits for every hello,
    gives the CPU to the bot on move (fair CPU, PROTOCOL.md section 7), stops a bot at its group's limit,
    and stops and cleans up everything at the end. It never asks what kind a seat is: a remote bot would
    be a third :class:`~harness.match.seat.Seat` (docs/INTERNALS.md, "Seats").

    Args:
        seats: the match's seats (the referee's, shared).
        bots: the launch specs by match seat.
        limits: the limits every bot runs under.
        sandbox: how bots are isolated; ``isolation`` what this machine can do of it
            (:func:`harness.host.sandbox.decide_isolation`).
        out_dir: the match's output directory (hidden from the bots; ``logs/`` receives their stderr).
        log: appends one line to the referee's log.
        fault: the referee's fault counter (seat, kind, detail, the hand's faults or None).
    """

    def __init__(self, seats: list[MatchSeat], bots: Sequence[BotSpec | HumanSpec | Seat], limits: Limits,
                 sandbox: SandboxSettings, isolation: Isolation, out_dir: Path, log: Callable[[str], None],
                 fault: Callable[..., None]) -> None:
        self.seats, self.bots, self.limits, self.sandbox, self.isolation = seats, list(bots), limits, sandbox, isolation
        self.out_dir = out_dir
        self._log, self._fault = log, fault
        self._groups: cgroups.MatchGroup | TreeMatch | None = None
        self._lease: UidLease | None = None
        self._residency: Residency | None = None
        #: The seat whose bot has the CPU (fair CPU policy).
        self.turn: MatchSeat | None = None

    def setup(self) -> None:
        """The match's control groups and the seats' uids, as the isolation decided says (before any bot starts).

        Raises:
            SandboxError: the uids cannot be leased, or (mode required) the groups cannot be made.
        """
        if self.isolation.cgroups:
            try:
                self._groups = cgroups.MatchGroup(support().cgroups)
            except cgroups.CgroupError as exc:
                if self.sandbox.mode is SandboxMode.REQUIRED:
                    raise SandboxError(f"control groups: {exc}") from None
                self._log(f"WARNING: no control groups for this match ({exc}): limits are per process tree")
                self._groups = TreeMatch()
        elif self.isolation.tree:
            self._groups = TreeMatch()
        if self.isolation.namespaces and support().root:
            self._lease = UidLease(len(self.seats), self.sandbox.uid_range)

    def confine(
        self, seat: MatchSeat, seat_dir: str | None, tmpdir: str
    ) -> tuple[BotJail | None, cgroups.BotGroup | TreeBot | None]:
        """The seat's sandbox (:attr:`harness.match.seat.SeatLaunch.confine`): its control group or per-tree
        limits (also kept in ``seat.group``) and its bubblewrap jail (None: no namespaces here).

        Raises:
            SandboxError, harness.host.cgroups.CgroupError: the sandbox cannot be made.
        """
        return self.jail(seat, seat_dir, tmpdir), seat.group

    def jail(self, seat: MatchSeat, seat_dir: str | None, tmpdir: str) -> BotJail | None:
        """The seat's sandbox: its control group (into ``seat.group``) and bubblewrap jail."""
        label = f"{seat.index}-{seat.name}"
        if self._groups is not None:
            pids = self.limits.max_processes or DEFAULT_PIDS
            seat.group = self._groups.add_bot(
                label, memory_bytes=self.limits.memory_mb * 1024 * 1024, pids_max=pids,
                cpus=os.sched_getaffinity(0),
            )
        in_jail = isinstance(seat.group, TreeBot) and self.isolation.nproc_in_jail
        if isinstance(seat.group, TreeBot):
            seat.group.nproc_in_jail = in_jail
        if not self.isolation.namespaces or seat_dir is None:
            return None
        cwd = getattr(self.bots[seat.index], "cwd", None)  # a seat of a third kind may have no directory here
        own = os.path.realpath(cwd or os.getcwd())
        others = []  # the other bots' directories, unless this bot's lies inside one (then it sees its own)
        for i, b in enumerate(self.bots):
            theirs = os.path.realpath(getattr(b, "cwd", None) or os.getcwd())
            if i != seat.index and theirs != own and not own.startswith(theirs.rstrip("/") + "/"):
                others.append(theirs)
        hidden = [str(self.out_dir), tmpdir, *self.sandbox.hidden, *others]
        uid = self._lease.uids[seat.index] if self._lease is not None else None
        jail = BotJail(seat_dir=seat_dir, cwd=cwd, settings=self.sandbox, hidden=hidden, uid=uid,
                       memory_mb=self.limits.memory_mb or None)
        jail.residency = self._residency
        if in_jail:  # no control group: the process limit is RLIMIT_NPROC in the bot's user namespace
            # One above the watch's limit (harness.host.treelimits): a fork refused there leaves the tree
            # at the watch's limit even if a task ends before its next look, so it is always seen.
            jail.nproc = (self.limits.max_processes or DEFAULT_PIDS) + 1
        elif seat.group is not None and not isinstance(seat.group, TreeBot):
            jail.cgroup_dirs = dict(seat.group.dirs)  # shown at /sys/fs/cgroup: runtimes size themselves
            jail.cgroup_version = seat.group.version
        return jail

    def launch(self, tmpdir: str, hub: Hub, transport: str, trace: WireTrace | None = None) -> None:
        """Bind each seat's endpoint and start what answers it (:meth:`Seat.launch`); each seat has its own
        secret and directory. ``trace``: every message of every channel is written there too."""
        log_dir = self.out_dir / "logs"
        self.setup()
        # One walk of the shared views per match, before the first bot starts (harness.host.residency).
        self._residency = (Residency(others_only=self._lease is not None)
                           if self.sandbox.resident and self.isolation.namespaces else None)
        for seat in self.seats:
            i, name = seat.index, seat.name
            # Per seat: a secret (a bot that learns another seat's cannot use its own) and a
            # directory holding only that seat's socket (what a sandbox shows the bot).
            secret = secrets.token_hex(16)
            seat_dir = None
            if transport == "ipc":
                seat_dir = os.path.join(tmpdir, f"seat{i}")
                os.mkdir(seat_dir, 0o700)
                endpoint = f"ipc://{seat_dir}/bot.sock"
            else:
                endpoint = "tcp://127.0.0.1:0"
            seat.conn = Connection(
                endpoint, secret, f"seat {i} {name}", self.limits.max_message_bytes, self._log, hub
            )
            if trace is not None:
                seat.conn.trace = trace.seat(i, name, secret)
            env = {
                "HARNESS_ENDPOINT": seat.conn.endpoint,
                "HARNESS_SECRET": secret,
                "HARNESS_BOT_NAME": name,
                "HARNESS_PROTOCOL_VERSION": str(PROTOCOL_VERSION),
            }
            how = SeatLaunch(env, f"{i}-{name}", log_dir, self.limits, partial(self.confine, seat, seat_dir, tmpdir))
            try:
                seat.occupant.launch(how)
            except SeatStartError as exc:
                self._fault(seat, FaultKind.FAILED_START, exc.detail, None)

    def residency_summary(self) -> str:
        """What this match's page-cache pass did ('' when there was none)."""
        return self._residency.report.summary() if self._residency is not None else ""

    def handshake(self, hub: Hub) -> None:
        """Wait for every launched bot's valid hello, up to ``startup_ms`` of its own time each.

        Time a bot's processes spent waiting for a CPU that others held (an
        overloaded machine, not the bot) is not counted, up to
        :data:`STARTUP_WALL_FACTOR` x ``startup_ms`` of wall time (PROTOCOL.md
        section 7): a sleeping or blocked bot is judged at ``startup_ms`` as before.
        """
        started = time.monotonic()
        limit_s = self.limits.startup_ms / 1000.0
        cap = started + STARTUP_WALL_FACTOR * limit_s
        deadline = started + limit_s
        extended = False
        waiting = [s for s in self.seats if not s.out]
        while waiting:
            for s in list(waiting):
                conn = s.conn
                assert conn is not None
                if conn.poll_handshake():
                    waiting.remove(s)
                    self._log(f"seat {s.index} {s.name}: hello accepted")
                elif conn.failure is not None:
                    waiting.remove(s)
                    self._fault(s, FaultKind.FAILED_START, conn.failure.detail, None)
                elif (code := s.occupant.poll()) is not None:
                    waiting.remove(s)
                    hint = s.occupant.startup_hint(code)
                    self._fault(
                        s, FaultKind.FAILED_START, f"exited before its hello ({s.occupant.describe_exit()}){hint}", None
                    )
            if not waiting:
                break
            now = time.monotonic()
            if now >= deadline:
                # Judge each bot on its own time: wall time less what it waited for a CPU.
                starved = {s.index: s.occupant.cpu_wait_s() for s in waiting}
                late = [s for s in waiting if now >= cap or now - started - starved[s.index] >= limit_s]
                for s in late:
                    waiting.remove(s)
                    self._fault(s, FaultKind.FAILED_START, self._no_hello(s, starved[s.index], now - started), None)
                if not waiting:
                    break
                own = max(now - started - starved[s.index] for s in waiting)
                deadline = min(cap, now + max(0.01, limit_s - own))
                if not extended:
                    extended = True
                    names = ", ".join(f"seat {s.index} {s.name}" for s in waiting)
                    self._log(f"start-up: {names} kept from a CPU by others; waiting on, counting only their own time")
            # Every ready socket is served (a welcomed bot's PINGs too), so the poll never spins.
            hub.serve(min(50, int((deadline - time.monotonic()) * 1000) + 1))
        failed = [s for s in self.seats if s.out and s.status.startswith(FaultKind.FAILED_START.value)]
        # A bot told why (a fatal error: version_mismatch) gets the exit grace to log and exit, as promised;
        # the others will never play: their CPU is freed now.
        told = [s.occupant for s in failed
                if s.occupant.has_process and s.conn is not None and s.conn.failure is not None]
        stop_seats(told, QUIT_GRACE_MS)
        for s in failed:
            if s.occupant.has_process:
                s.occupant.stop(0)
            if s.conn is not None and s.conn.identity is None:
                s.conn.close()  # nobody is listened to on its endpoint any more

    def _no_hello(self, s: MatchSeat, starved_s: float, wall_s: float) -> str:
        """The detail of a ``failed_start`` for want of a hello: what was ignored, and any starvation."""
        assert s.conn is not None
        detail = f"no valid hello within {self.limits.startup_ms} ms"
        if starved_s >= 0.1:
            detail += (
                f" of its own time ({wall_s:.1f} s on the clock, {starved_s:.1f} s of it waiting for a CPU that"
                " others held: the machine is overloaded)"
            )
        if s.conn.ignored:
            detail += f"; {s.conn.ignored} message(s) ignored (wrong secret or not a hello)"
            if s.conn.last_drop:
                detail += f"; the last connection dropped: {s.conn.last_drop}"
        detail += s.occupant.startup_hint()
        return detail

    def give_turn(self, seat: MatchSeat | None) -> None:
        """Fair CPU (PROTOCOL.md section 7): the bot on move runs at full weight (or thawed), the others do not.

        One write per bot whose state changes (``cgroup`` files opened once), made
        only when the seat on move changes. ``seat`` None: nobody is on move.
        """
        policy = self.isolation.cpu
        if policy is CpuPolicy.NONE:
            self.turn = seat
            return
        old = self.turn
        self.turn = seat
        for s, on_move in ((old, False), (seat, True)):
            if s is not None and s.group is not None:
                if policy is CpuPolicy.WEIGHT:
                    s.group.set_turn(on_move)
                else:
                    s.group.freeze(not on_move)

    def all_waiting(self, waiting: bool) -> None:
        """Every bot at the waiting weight (or frozen) once play starts; all back on at the end."""
        if self.isolation.cpu is CpuPolicy.NONE:
            return
        self.turn = None
        for s in self.seats:
            if s.group is not None:
                try:
                    if self.isolation.cpu is CpuPolicy.WEIGHT:
                        s.group.set_turn(not waiting)
                    else:
                        s.group.freeze(waiting)
                except OSError:  # a group being torn down
                    pass

    def limit_hit(self, seat: MatchSeat, faults: list[list[Any]]) -> None:
        """The bot's processes hit the memory or process limit of its group: stop them all, put the bot out."""
        assert seat.group is not None
        oom, forks = seat.hits = seat.group.limit_hits()
        what = (
            f"its processes reached the memory limit ({self.limits.memory_mb} MiB for all of them together)"
            if oom else f"its processes reached the process limit ({seat.group.pids_max} processes and threads)"
        )
        seat.group.kill()
        self._fault(seat, FaultKind.CRASH, f"{what}: all of them were killed", faults)

    def stop(self) -> None:
        """Stop every seat (for bots: quit, SIGTERM, SIGKILL, one shared wait per step: :func:`stop_seats`)."""
        seated = [s for s in self.seats if s.occupant.has_process]
        steps = stop_seats([s.occupant for s in seated], QUIT_GRACE_MS)
        for s, step in zip(seated, steps, strict=True):
            if step != "exited":
                self._log(f"seat {s.index} {s.name}: stopped by {step}")
        for s in self.seats:
            if s.group is not None:
                self._log(f"seat {s.index} {s.name}: {s.group.cpu_seconds():.2f} s of CPU in all")

    def log_error(self) -> OSError | None:
        """The first write to a bot's log files that failed (a full disk), once the bots are stopped; or None."""
        for s in self.seats:
            if s.occupant.log_error is not None:
                return s.occupant.log_error
        return None

    def close(self) -> None:
        """Kill what is left in the bots' groups, remove the groups, give the uids back. Idempotent."""
        if self._groups is not None:  # whatever is left in a bot's group is killed, the groups removed
            self._groups.close()
            self._groups = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None
