"""``harness bench match``: hands/s of real matches over the protocol, and the floor they sit on.

Figures (printed, never asserted):

- The anchored rounds (:mod:`harness.bench.anchored`): our referee with two
  Python callers, the MIT Pokerbots engine with its two Python example bots
  (``--mit DIR``, :mod:`harness.bench.mit`), our referee with two C example
  bots (bots/c, built here with ``make``) and the ACPC dealer with its two
  example players (``--acpc DIR``, :mod:`harness.bench.acpc`), alternated in
  :data:`ROUNDS` rounds, each pinned to one CPU. ``total_cpu_us_per_decision``
  and ``mit_total_cpu_us_per_decision``: the CPU of the referee (engine) and
  both bots per decision, ``hands_per_s_heads_up_whole`` and
  ``mit_hands_per_s_heads_up``: hands/s, each from a long and a short whole
  match (start-up cancels out); ``total_cpu_over_mit`` (target: at most 1) and
  ``hands_over_mit`` (target: at least 1.5) their ratios.
  ``decisions_per_s_heads_up_c`` / ``hands_per_s_heads_up_c`` and
  ``referee_cpu_us_per_decision_c``: the C bots' match, hand loop only;
  ``acpc_hands_per_s`` / ``acpc_decisions_per_s`` the dealer's, start to exit;
  ``c_over_acpc_decisions`` (target: at least 1). With ``--load N`` each
  round is played again beside N CPU burners, and each figure gets
  ``<figure>_load<N>`` and ``<figure>_load<N>_over_idle`` (its ratio to the
  idle rounds of the same run). ``referee_cpu_us_per_decision`` and
  ``hands_per_s_heads_up_pinned`` are then those rounds' medians too. An
  anchor that cannot be measured is one notice line; the other figures still
  print.
- ``reply_read_us_python`` / ``reply_read_us_native``: CPU per reply of
  reading one bot's ``action`` reply in this process (its ZMTP frame fed to
  the parser, the event taken, the reply decoded): the Python parser and
  codec, and the native core's twins the endpoint uses when the crate is
  built (:mod:`harness.match.native_wire`; "not built" otherwise).
- ``engine_cpu_us_per_decision``: the engine alone, in this process, per
  decision: the machine's speed during the run (the referee's CPU per
  decision moves with it on a shared VM); ``engine_cpu_us_per_decision_native``
  the same loop on the hand the referee plays when the crate is built
  (:class:`harness.engine.native_state.NativeHandState`).
- ``raw_round_trip_us``: one ZeroMQ DEALER/ROUTER request/reply over ipc
  between two Python processes (300-byte message), as the scheduler places
  them; ``raw_round_trip_pinned_us`` with both on one CPU.
- ``hands_per_s_heads_up`` / ``hands_per_s_four_handed``: matches of
  ``python -m bots.caller`` through :class:`harness.match.referee.Referee`, hand
  loop only (start-up and shutdown excluded), the better of the two
  placements (free and pinned to one CPU); each placement is also reported.
- ``referee_cpu_us_per_decision``: the referee process's CPU time (user +
  system, all its threads; there is no I/O thread: the referee speaks ZMTP
  itself) over the hand loop
  of the pinned heads-up match, per decision (µs); less sensitive to other
  load on the machine than hands/s. ``..._four_handed``: the same, pinned
  four-handed match.
- ``referee_peak_rss_mb``: peak resident memory of this (the referee's) process.
- ``overhead_ratio``: wall time per heads-up hand divided by (decisions per
  hand x ``raw_round_trip_us``), for the headline placement;
  ``overhead_ratio_same_placement`` divides by the raw round trip measured
  with the same placement instead.
- ``floor_hands_per_s_heads_up``: the same two callers, pinned, fed one
  recorded hand by a loop that only encodes, sends and receives over the
  referee's own transport (:func:`transport_floor`): what any referee could
  reach with these bots
  and this protocol here; ``floor_ratio_heads_up`` is the pinned match's
  hands/s over it: the median of :data:`ROUNDS` rounds, match and floor
  alternated (:func:`paired_floor`; each round's in ``floor_ratios_heads_up``).
  ``referee_us_per_hand_heads_up`` is the pinned match's time per hand minus
  the floor's: the referee's own work (engine, checks, clocks, hand records)
  as it costs on a shared core. ``floor_cpu_us_per_decision`` is the floor
  loop's own CPU per request (user + system): what encoding, sending,
  waiting and reading cost before any rule, the part of
  ``referee_cpu_us_per_decision`` no referee over this transport avoids.
- The figures above are without the sandbox (``[sandbox] mode = "off"``);
  ``hands_per_s_heads_up_sandboxed`` is the same heads-up match, same
  placement, with it (fair CPU by weight; ``..._freeze`` with ``cpu =
  "freeze"``), ``sandbox_start_ms`` what the sandbox adds to one bot's start
  and ``sandbox_turn_switch_us`` / ``sandbox_freeze_switch_us`` what one
  change of the bot on move costs the referee (:func:`sandbox_start`).
  Target: sandboxed >= 0.9 x unsandboxed, start < 50 ms per bot.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from harness.bench import anchored
from harness.engine import Action, ActionKind, GameConfig, HandState
from harness.engine.cards import CARD_STRS
from harness.host import cgroups, sysinfo_supervisor
from harness.host.placement import pin, restore
from harness.match import zmtp
from harness.match.connection import Connection
from harness.match.endpoint import Hub
from harness.match.referee import BotSpec, Limits, MatchSpec, Referee
from harness.match.wire import encode_hand_end_of
from harness.specs import CpuPolicy, SandboxMode, SandboxSettings
from protocol import codec
from protocol.messages import ActionReply, MatchEnd
from protocol.version import MAX_MESSAGE_BYTES, PROTOCOL_VERSION

#: Rounds of the pinned heads-up match and the floor, alternated (:func:`paired_floor`).
ROUNDS = 3
#: The echo peer of the raw round-trip measurement.
_ECHO = r"""
import sys, zmq
ctx = zmq.Context(); s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 0); s.connect(sys.argv[1])
s.send(b"hi")
while True:
    m = s.recv()
    if m == b"q":
        break
    s.send(m)
"""


def _reap(children: list[subprocess.Popen[bytes]]) -> None:
    """Wait for the benchmark's children to exit (they were told to), killing any still there after 5 s."""
    for child in children:
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def raw_round_trip_us(pinned: bool, n: int = 5000) -> float:
    """Mean µs of one request/reply between this process and a child, DEALER/ROUTER over ipc."""
    old = os.sched_getaffinity(0)
    tmp = tempfile.mkdtemp(prefix="harness-bench-")
    ctx = zmq.Context()
    try:
        if pinned:
            os.sched_setaffinity(0, {anchored.pin_cpu()})
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        endpoint = f"ipc://{tmp}/rt.sock"
        sock.bind(endpoint)
        child = subprocess.Popen([sys.executable, "-c", _ECHO, endpoint])
        try:
            if not sock.poll(20_000):
                raise RuntimeError("the echo process did not connect")
            ident, _ = sock.recv_multipart()
            msg = b"x" * 300
            for _ in range(500):  # warm up
                sock.send_multipart((ident, msg))
                sock.recv_multipart()
            t = time.perf_counter()
            for _ in range(n):
                sock.send_multipart((ident, msg))
                sock.recv_multipart()
            elapsed = time.perf_counter() - t
            sock.send_multipart((ident, b"q"))
        finally:
            _reap([child])
        return elapsed / n * 1e6
    finally:
        ctx.destroy(linger=0)
        os.sched_setaffinity(0, old)
        shutil.rmtree(tmp, ignore_errors=True)


def _sample_hand() -> tuple[list[tuple[int, bool, dict[str, Any], Any]], HandState]:
    """One heads-up hand played to showdown (check/call, stand pat): its decisions (seat, draw, view, legal) and end."""
    state = HandState.start(GameConfig(), [1000, 1000], 0, 12345, 0)
    steps = []
    while state.to_act is not None:
        seat, legal, draw = state.to_act, state.legal(), state.phase == "draw"
        steps.append((seat, draw, state.observation(seat), legal))
        free = draw or ActionKind.CHECK in legal.actions
        state.apply(state.default_action() if free else Action(ActionKind.CALL))
    return steps, state


def transport_floor(hands: int = 3000) -> dict[str, float]:
    """Heads-up hands/s of two ``bots.caller`` fed one recorded hand over and over, pinned to one CPU.

    The loop does only what no referee can skip: per hand a ``hand_start``
    and ``hand_end`` per bot and six requests, each encoded with its own
    ``seq`` and answered, over the referee's own transport
    (:class:`harness.match.connection.Connection`: its ZMTP, sockets and
    handshake; :meth:`~harness.match.connection.Connection.exchange` per
    request). No engine, checks, clocks or hand records: the ceiling of any
    referee with these bots, this protocol, this transport and this machine,
    and the gap to ``hands_per_s_heads_up`` is the referee's own work.

    Returns:
        ``hands_per_s``, ``us_per_hand`` (wall) and ``cpu_us_per_decision``: this
        process's CPU (user + system) per request over the loop, the least any
        referee written over this transport pays per decision before any rule.
    """
    root = Path(__file__).resolve().parents[2]
    steps, final = _sample_hand()
    before = pin({anchored.pin_cpu()})  # as a pinned match: the bots inherit it
    tmp = tempfile.mkdtemp(prefix="harness-bench-")
    hub = Hub()
    children: list[subprocess.Popen[bytes]] = []
    conns: list[Connection] = []
    try:
        for seat in range(2):
            conn = Connection(f"ipc://{tmp}/{seat}.sock", "floor", f"caller{seat}", 65536, lambda _line: None, hub)
            conns.append(conn)
            env = dict(
                os.environ,
                HARNESS_ENDPOINT=conn.endpoint,
                HARNESS_SECRET="floor",
                HARNESS_BOT_NAME=f"caller{seat}",
                HARNESS_PROTOCOL_VERSION=str(PROTOCOL_VERSION),
            )
            children.append(subprocess.Popen([sys.executable, "-m", "bots.caller"], env=env, cwd=root))
        give_up = time.monotonic() + 20
        while not all(c.poll_handshake() for c in conns):  # each answered welcome
            if time.monotonic() > give_up:
                raise RuntimeError("the floor's bots did not say hello")
            hub.poll(20)
        names, stacks = ("caller0", "caller1"), (1000, 1000)
        end = encode_hand_end_of(final, 0)
        hole = [[CARD_STRS[c] for c in final.hole_cards[seat]] for seat in range(2)]
        seqs = [0, 0]
        t = time.perf_counter()
        cpu = _process_cpu()
        for h in range(hands):
            for seat, conn in enumerate(conns):
                if h:
                    conn.send(end)
                conn.send(codec.encode_hand_start(h, seat, 0, names, stacks, hole[seat]))
            for seat, draw, view, lg in steps:
                seqs[seat] += 1
                payload = codec.encode_request(
                    draw, seqs[seat], view, lg.actions, lg.call_amount, lg.min_to, lg.max_to, lg.max_discards,
                    1000, 30000,
                )
                conns[seat].exchange(payload)  # the reply (not judged: no referee work here)
        elapsed = time.perf_counter() - t
        cpu = _process_cpu() - cpu
        for conn in conns:
            conn.send(codec.encode(MatchEnd(hands, (0, 0), ("ok", "ok"))))
    finally:
        _reap(children)
        for conn in conns:
            conn.close()
        hub.close()
        restore(before)
        shutil.rmtree(tmp, ignore_errors=True)
    return {"hands_per_s": hands / elapsed, "us_per_hand": elapsed / hands * 1e6,
            "cpu_us_per_decision": cpu / (hands * len(steps)) * 1e6}


def _process_cpu() -> float:
    """This process's CPU seconds so far, user + system, all its threads (as the referee's figures count)."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


def build_c_bot(into: str) -> tuple[str | None, str]:
    """Build the C example bot (bots/c, ``make``) into the directory ``into``: (its path, "") or (None, why not)."""
    root = Path(__file__).resolve().parents[2]
    if shutil.which("make") is None or shutil.which("cc") is None:
        return None, "no make or C compiler (cc)"
    src = root / "bots" / "c"
    work = Path(into) / "c"
    shutil.copytree(src, work, ignore=shutil.ignore_patterns("bot"))
    done = subprocess.run(["make", "-C", str(work)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return None, f"make -C bots/c failed (libzmq3-dev, libmsgpack-dev?): {done.stderr.strip()[-200:]}"
    return str(work / "bot"), ""


#: The unsandboxed figures: bots as plain subprocesses (rlimits only).
UNSANDBOXED = SandboxSettings(mode=SandboxMode.OFF)


def match_speed(
    n_bots: int,
    hands: int,
    pinned: bool,
    sandbox: SandboxSettings = UNSANDBOXED,
    command: tuple[str, ...] | None = None,
) -> dict[str, float]:
    """Play one match of ``n_bots`` callers (``python -m bots.caller``, or ``command``: e.g. the C bot).

    Returns:
        ``hands_per_s`` and ``us_per_hand`` (hand loop only), ``decisions_per_hand``,
        ``decisions_per_s`` and ``cpu_us_per_decision`` (the referee's CPU, all its threads, µs;
        ``user_us_per_decision`` its user-space part).
    """
    root = Path(__file__).resolve().parents[2]
    argv = command or (sys.executable, "-m", "bots.caller")
    bots = [BotSpec(f"caller{i}", argv, cwd=str(root)) for i in range(n_bots)]
    spec = MatchSpec(GameConfig(), hands=hands, seed=12345, match_id=f"bench-{n_bots}")
    with tempfile.TemporaryDirectory(prefix="harness-bench-") as out:
        ref = Referee(bots, spec, Limits(), Path(out), cpus={anchored.pin_cpu()} if pinned else None, sandbox=sandbox)
        result = ref.run()
    if result.status != ["ok"] * n_bots:
        raise RuntimeError(f"benchmark bots failed: {result.status}")
    return {
        "hands_per_s": hands / ref.hands_seconds,
        "us_per_hand": ref.hands_seconds / hands * 1e6,
        "decisions_per_hand": ref.decisions / hands,
        "decisions_per_s": ref.decisions / ref.hands_seconds,
        "cpu_us_per_decision": ref.hands_cpu_seconds / max(1, ref.decisions) * 1e6,
        "user_us_per_decision": ref.hands_user_seconds / max(1, ref.decisions) * 1e6,
    }


def _join(fds: tuple[int, ...], answering: Any = None) -> None:
    """Between fork and exec: join the control group and load the sysinfo filter (as
    :mod:`harness.host.botproc` does; ``answering`` a :class:`harness.host.sysinfo_supervisor.Prepared`)."""
    for fd in fds:
        os.write(fd, b"0")
    if answering is not None:
        answering.child()


def sandbox_start(n: int = 20) -> dict[str, float]:
    """What the sandbox adds to one bot's start (ms), and what its fair-CPU switches cost (µs).

    ``start_ms``: the mean over ``n`` launches of a bot that exits at once
    (``true``) in its sandbox (control group made and joined, bubblewrap
    namespaces and mounts, a uid of its own, the sysinfo filter and its
    supervisor thread, the group killed and removed),
    minus the same launch without the sandbox. ``turn_switch_us``: one
    change of the bot on move under ``cpu = "weight"`` (two writes);
    ``freeze_switch_us``: the same under ``cpu = "freeze"``.

    Raises:
        harness.host.sandbox.SandboxError: the sandbox cannot run here.
    """
    from harness.host.sandbox import BotJail, SandboxError, UidLease, support

    sup = support()
    if not (sup.namespaces and sup.cgroups.available):
        raise SandboxError(f"the sandbox cannot run here: {sup.namespaces_problem or sup.cgroups.reason}")
    true = shutil.which("true") or "/bin/true"
    tmp = tempfile.mkdtemp(prefix="harness-bench-")
    seat = os.path.join(tmp, "seat0")
    os.mkdir(seat, 0o700)
    settings = SandboxSettings()
    lease = UidLease(1, settings.uid_range) if sup.root else None
    match = cgroups.MatchGroup(sup.cgroups)
    try:
        plain = boxed = 0.0
        for i in range(n):
            t0 = time.perf_counter()
            subprocess.run([true], check=True)
            t1 = time.perf_counter()
            group = match.add_bot(f"bench{i}", memory_bytes=1 << 30, pids_max=256, cpus=os.sched_getaffinity(0))
            jail = BotJail(seat_dir=seat, cwd=tmp, settings=settings, hidden=(), uid=lease.uids[0] if lease else None)
            argv, env = jail.wrap([true], {"PATH": os.defpath})
            answering = sysinfo_supervisor.prepare() if jail.answer_sysinfo else None  # as BotProcess does
            proc = subprocess.Popen(argv, env=env, pass_fds=jail.pass_fds,
                                    preexec_fn=functools.partial(_join, group.join_fds, answering))
            jail.close_fds()
            listener = answering.listener() if answering is not None else None
            supervisor = sysinfo_supervisor.Supervisor(listener, 1 << 30, "bench") if listener is not None else None
            if proc.wait() != 0:
                raise SandboxError(f"a sandboxed `true` failed (exit status {proc.returncode})")
            if supervisor is not None:
                supervisor.close()
            group.close()
            t2 = time.perf_counter()
            plain += t1 - t0
            boxed += t2 - t1
        bot = match.add_bot("bench-switch", memory_bytes=1 << 30, pids_max=256)
        switches = 2000
        t0 = time.perf_counter()
        for i in range(switches):
            bot.set_turn(i % 2 == 0)
            bot.set_turn(i % 2 == 1)
        turn = (time.perf_counter() - t0) / switches * 1e6
        t0 = time.perf_counter()
        for i in range(switches // 10):
            bot.freeze(i % 2 == 0)
            bot.freeze(i % 2 == 1)
        frozen = (time.perf_counter() - t0) / (switches // 10) * 1e6
        bot.freeze(False)
    finally:
        match.close()
        if lease is not None:
            lease.release()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"start_ms": (boxed - plain) / n * 1000, "turn_switch_us": turn, "freeze_switch_us": frozen}


def paired_floor(hands: int, rounds: int = ROUNDS) -> tuple[dict[str, float], dict[str, float], list[float]]:
    """The pinned heads-up match and the floor, alternated in ``rounds`` rounds of ``hands / rounds`` hands each.

    On a machine others load, two runs minutes apart see different machines;
    side by side, each round's ratio (match hands/s over floor hands/s) sees
    about the same one.

    Returns:
        the match's figures (:func:`match_speed`'s keys, means over the rounds), the floor's
        (:func:`transport_floor`'s), and each round's ratio.
    """
    per = max(1, hands // rounds)
    matches, floors = [], []
    for _ in range(rounds):
        matches.append(match_speed(2, per, True))
        floors.append(transport_floor(per))
    ratios = [m["hands_per_s"] / f["hands_per_s"] for m, f in zip(matches, floors, strict=True)]

    def mean(runs: list[dict[str, float]]) -> dict[str, float]:
        out = {k: statistics.fmean(r[k] for r in runs) for k in runs[0]}
        out["hands_per_s"] = 1e6 / out["us_per_hand"]
        if "decisions_per_s" in out:
            out["decisions_per_s"] = out["hands_per_s"] * out["decisions_per_hand"]
        return out

    return mean(matches), mean(floors), ratios


def reply_read_us(n: int = 100_000) -> dict[str, float | str]:
    """CPU per reply (us) of reading a bot's action reply, with each parser and decoder (module docstring)."""
    reply = codec.encode(ActionReply(seq=12345, action="call", amount=0))
    frame = zmtp.frame(reply)
    opening = zmtp.GREETING + zmtp.ready(b"DEALER")

    def one(parser_cls: Any, decode: Any) -> float:
        parser = parser_cls(MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES)
        parser.feed(opening)
        parser.next(), parser.next()  # the greeting, the READY
        start = time.process_time()
        for _ in range(n):
            parser.feed(frame)
            decode(parser.next()[1], MAX_MESSAGE_BYTES)
        return (time.process_time() - start) / n * 1e6

    figures: dict[str, float | str] = {"reply_read_us_python": round(one(zmtp.Parser, codec.decode_reply), 2)}
    try:
        from harness.match import native_wire
    except ImportError:
        figures["reply_read_us_native"] = "not built"
    else:
        figures["reply_read_us_native"] = round(one(native_wire.Parser, native_wire.decode_reply), 2)
    return figures


def engine_cpu_us_per_decision(hands: int = 600, start: Callable[..., Any] = HandState.start) -> float:
    """CPU µs per decision of the engine alone (check/call, stand pat; heads-up), in this process.

    The machine's speed at the moment, for reading the referee's CPU per
    decision: on a shared VM both move together with the load. ``start`` deals the hands
    (``HandState.start``'s arguments): the Python engine, or the referee's native hand.
    """
    t = time.process_time()
    n = 0
    for h in range(hands):
        state = start(GameConfig(), [1000, 1000], h % 2, h, h)
        while state.to_act is not None:
            legal = state.legal()
            free = state.phase == "draw" or ActionKind.CHECK in legal.actions
            state.apply(state.default_action() if free else Action(ActionKind.CALL))
            n += 1
        state.result()
    return (time.process_time() - t) / n * 1e6


def _native_engine_us() -> float | str:
    """``engine_cpu_us_per_decision`` of the hand the referee plays when the crate is built (NativeHandState)."""
    try:
        from harness.engine.native_state import NativeHandState
    except ImportError:
        return "not built"
    return round(engine_cpu_us_per_decision(start=NativeHandState.start), 1)


def run(
    hands_heads_up: int = 4000,
    hands_four: int = 2000,
    acpc_dir: str | None = None,
    mit_dir: str | None = None,
    load: int = 0,
    notice: Callable[[str], None] = lambda _line: None,
) -> dict[str, Any]:
    """Measure everything; returns the JSON-ready figures (see the module docstring).

    ``acpc_dir``: a built ``project_acpc_server`` (:mod:`harness.bench.acpc`); ``mit_dir``: a checkout of
    the MIT Pokerbots engine (:mod:`harness.bench.mit`): each measured in the anchored rounds
    (:mod:`harness.bench.anchored`), with ``load`` > 0 also beside that many CPU burners; an anchor that
    cannot be measured is left out and said in one line to ``notice``.
    """
    rt_free = raw_round_trip_us(False)
    rt_pinned = raw_round_trip_us(True)
    pinned, floor, ratios = paired_floor(hands_heads_up)
    hu = {"free": match_speed(2, hands_heads_up, False), "pinned": pinned}
    four = {mode: match_speed(4, hands_four, mode == "pinned") for mode in ("free", "pinned")}
    with tempfile.TemporaryDirectory(prefix="harness-bench-c-") as build:
        c_bot, why = build_c_bot(build)
        if c_bot is None:
            notice(f"the C bots are not measured: {why}")
        found, notes = anchored.probes(mit_dir, c_bot, acpc_dir)
        for line in notes:
            notice(line)
        anchors = anchored.measure(found, hands_heads_up, ROUNDS, load, notice)
    engine_us = engine_cpu_us_per_decision()
    native_engine_us = _native_engine_us()
    best = max(hu, key=lambda m: hu[m]["hands_per_s"])
    boxed = _sandboxed(hands_heads_up, best == "pinned", hu[best]["hands_per_s"])
    rt_same = rt_pinned if best == "pinned" else rt_free
    per_hand = hu[best]["us_per_hand"]
    decisions = hu[best]["decisions_per_hand"]
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    headline = {
        "hands_per_s_heads_up": round(hu[best]["hands_per_s"], 1),
        "hands_per_s_four_handed": round(max(f["hands_per_s"] for f in four.values()), 1),
        "referee_cpu_us_per_decision": round(hu["pinned"]["cpu_us_per_decision"], 1),
        "referee_cpu_us_per_decision_four_handed": round(four["pinned"]["cpu_us_per_decision"], 1),
        "referee_peak_rss_mb": round(rss_mb, 1),
        "raw_round_trip_us": round(rt_free, 1),
        "overhead_ratio": round(per_hand / (decisions * rt_free), 3),
        "placement": best,
        "overhead_ratio_same_placement": round(per_hand / (decisions * rt_same), 3),
        "raw_round_trip_pinned_us": round(rt_pinned, 1),
        "decisions_per_hand_heads_up": round(decisions, 2),
        "hands_per_s_heads_up_free": round(hu["free"]["hands_per_s"], 1),
        "hands_per_s_heads_up_pinned": round(hu["pinned"]["hands_per_s"], 1),
        "hands_per_s_four_handed_free": round(four["free"]["hands_per_s"], 1),
        "hands_per_s_four_handed_pinned": round(four["pinned"]["hands_per_s"], 1),
        "floor_hands_per_s_heads_up": round(floor["hands_per_s"], 1),
        "floor_ratio_heads_up": round(statistics.median(ratios), 3),
        "floor_ratios_heads_up": [round(r, 3) for r in ratios],
        "referee_us_per_hand_heads_up": round(hu["pinned"]["us_per_hand"] - floor["us_per_hand"], 1),
        "floor_cpu_us_per_decision": round(floor["cpu_us_per_decision"], 1),
        **reply_read_us(),
        "engine_cpu_us_per_decision": round(engine_us, 1),
        "engine_cpu_us_per_decision_native": native_engine_us,
        **boxed,
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    # the pinned heads-up match's figures: the anchored rounds' medians, the base of their ratios under load
    return {**headline, **anchors}


def _sandboxed(hands: int, pinned: bool, unsandboxed: float) -> dict[str, Any]:
    """The sandbox's figures, the heads-up match in the headline placement; None where it cannot run."""
    from harness.host.sandbox import SandboxError, decide_isolation

    required = SandboxSettings(mode=SandboxMode.REQUIRED)
    try:
        summary = decide_isolation(required).summary
        weight = match_speed(2, hands, pinned, required)
        freeze = match_speed(2, hands, pinned, SandboxSettings(mode=SandboxMode.REQUIRED, cpu=CpuPolicy.FREEZE))
        start = sandbox_start()
    except SandboxError as exc:
        return {"sandbox": f"not measured: {exc}", "hands_per_s_heads_up_sandboxed": None, "sandbox_start_ms": None}
    return {
        "sandbox": summary,
        "hands_per_s_heads_up_sandboxed": round(weight["hands_per_s"], 1),
        "sandboxed_ratio_heads_up": round(weight["hands_per_s"] / unsandboxed, 3),
        "hands_per_s_heads_up_sandboxed_freeze": round(freeze["hands_per_s"], 1),
        "sandbox_start_ms": round(start["start_ms"], 1),
        "sandbox_turn_switch_us": round(start["turn_switch_us"], 2),
        "sandbox_freeze_switch_us": round(start["freeze_switch_us"], 1),
    }
