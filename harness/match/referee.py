"""The referee: one match between bot subprocesses; it never blocks forever on one.

:func:`play_match` launches every bot (harness.host.botproc), binds one private
ZeroMQ (ZMTP) channel per bot (harness.match.connection), checks each bot's ``hello``,
then plays ``spec.hands`` hands with the engine deciding everything about
the rules (harness.engine). Each bot's thinking time is charged to its clock
(harness.match.clock); a late, malformed, illegal or oversized reply is a fault and
the engine's default action is played instead; a bot that crashes or reaches
``limits.max_faults`` is *out*: it still posts blinds and antes and is folded
at its first decision of each hand. Every hand is appended to
``out_dir/hands.jsonl`` (``hands.jsonl.gz`` with ``spec.compress``) as it finishes
(harness.history.files; one name from the first hand to the last). The match always
finishes, and whatever happens (match end, a referee error, Ctrl-C) every bot
is told ``match_end`` and then stopped (quit, SIGTERM, SIGKILL of its whole
process group), the sockets are closed and the private directory removed.

Seats and the button: ``bots[i]`` sits in match seat i for the whole match.
In the default reset mode every hand is played by all seats with the
starting stack and the button at seat ``h % n`` (hand h). In a freezeout
stacks carry over; a bot with no chips leaves the table, the engine is given
only the seated bots (hand seats 0..k-1 in match-seat order) and the button
moves to the next seat still in the match (R2.1; heads-up R2.3 then follows
from the engine). Hand h is dealt from :func:`harness.deals.hand_seed`
``(spec.seed, d)`` only (keyed: the match seed is a secret), where d is the
deal of hand h: h itself, or, for a rotation of a duplicate set
(``spec.rotation``), :func:`harness.deals.deal_of`, that rotation's secret
order of the same deals, each with the button on the same seat. So a
duplicate set (the same spec with the bots rotated) deals the same cards to
the same seats, in an order a bot cannot line up across rotations.

Passed-out deals (a game of openers, RULES.md R7.4): the next hand is dealt with the
antes left in the middle (``carried``); the button moves one seat left every hand in
both stack modes, as R7.4 asks. How the match's nets stay exact (every row sums to 0):
:mod:`harness.match.carry`.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, cast

from harness.deals import commitment, deals_of, hand_seed, hand_seeds
from harness.engine import (
    Action,
    ActionKind,
    CardError,
    HandResult,
    HandState,
    IllegalActionError,
    InvalidActionError,
    Phase,
    parse_cards,
)
from harness.engine.actions import CALL_ACTION, CHECK_ACTION, FOLD_ACTION
from harness.engine.games import SEVEN_CARD_DRAW, game_problem, start_hand
from harness.history import record as handrecord
from harness.history.files import HistoryWriter, history_name
from harness.history.record import BY_BOT, BY_FAULT, BY_OUT, BY_UNSENT, Decision
from harness.host.placement import Placement, pin, restore
from harness.host.sandbox import decide_isolation, non_dumpable
from harness.match.carry import CarriedChips
from harness.match.connection import Connection
from harness.match.endpoint import ChannelFault, Disconnected, Hub
from harness.match.human import HumanSpec
from harness.match.msgsize import message_problem
from harness.match.privatedir import PRIVATE_DIR_PREFIX, private_parent, remove_stale_private_dirs
from harness.match.seat import Seat
from harness.match.seathost import MatchSeat, SeatHost, seat_for
from harness.match.stoprequest import raise_if_asked
from harness.match.trace import WireTrace
from harness.match.untrusted import visible
from harness.match.wire import HandWire, MatchWire

try:  # Seven Card Draw's hands played in the native core, when the crate is built
    from harness.match import native_wire
except ImportError:
    native_wire = None  # type: ignore[assignment]
from harness.specs import (
    BotSpec,
    FaultKind,
    Limits,
    MatchResult,
    MatchSpec,
    SandboxSettings,
    StackMode,
)
from protocol import codec
from protocol.messages import (
    ActionReply,
    DiscardReply,
    Error,
    GameSettings,
    MatchEnd,
    MatchLimits,
    MatchStart,
)
from protocol.version import MAX_MESSAGE_BYTES

__all__ = [
    "BotSpec",
    "FaultKind",
    "Limits",
    "MatchResult",
    "MatchSpec",
    "Referee",
    "StackMode",
    "hand_seed",
    "play_match",
]

#: How long to wait for a disconnected bot's process to show up as exited (s).
_EXIT_WAIT_S = 0.3
_NAME_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_FOLD = FOLD_ACTION
#: A decision of a bot that is out: folded (or stood pat) without being asked.
_OUT_DECISION: Decision = (BY_OUT, None, None)
#: Queued notifications after which they are sent without waiting for a request.
_MAX_QUEUED_NOTES = 4
#: Hand seeds derived at a time (harness.deals.hand_seeds): one tight loop per block.
_SEED_BLOCK = 64
#: Longest fault detail kept (characters): details quote what a bot sent, and a hand
#: history line must stay one that ``harness replay`` reads.
MAX_DETAIL_CHARS = 400
_DRAW = Phase.DRAW
_ACTION_KINDS = {k.value: k for k in ActionKind if k is not ActionKind.DRAW}
#: Replies without an amount map to shared Action objects (one fewer object per decision).
_PLAIN_ACTIONS = {"fold": FOLD_ACTION, "check": CHECK_ACTION, "call": CALL_ACTION}
#: The hand factory of every match (``start_hand``'s arguments): a Seven Card Draw hand is played in the
#: native core when the crate is built (``native_wire.start_hand``: a ``NativeHandState``, which has
#: ``HandState``'s API, hence the cast), on the Python engine otherwise and in the other games. Both give
#: the same hands and hand histories (tests/test_native_state.py).
_start_hand: Callable[..., HandState] = start_hand if native_wire is None else cast(
    "Callable[..., HandState]", native_wire.start_hand)


def clip_detail(detail: str) -> str:
    """``detail`` in at most :data:`MAX_DETAIL_CHARS` characters: its start (what happened) and its end (the
    harness's note on what to do, after paths of any length) kept, `` ... `` between them."""
    if len(detail) <= MAX_DETAIL_CHARS:
        return detail
    head = (MAX_DETAIL_CHARS - 5) // 2
    return detail[:head] + " ... " + detail[len(detail) - (MAX_DETAIL_CHARS - 5 - head):]


def _with_strays(detail: str, conn: Connection) -> str:
    """A failed request's detail, with the messages sent out of turn meanwhile (one record per request)."""
    stray = conn.take_strays()
    return detail if stray is None else f"{detail}; {stray.detail}"


def _seat_bots(bots: Sequence[BotSpec | HumanSpec | Seat], spec: MatchSpec, limits: Limits) -> list[MatchSeat]:
    """The match's seats, each answered by the :class:`~harness.match.seat.Seat` its spec gets.

    Raises:
        ValueError: a seat count, name, command, hand count, stack or game the match cannot have.
    """
    seats: list[MatchSeat] = []
    game = spec.definition
    if not game.min_seats <= len(bots) <= game.max_seats:  # R1.2; R6.8 (Five Card Draw seats 8, R7.1)
        rule = "R1.2" if game == SEVEN_CARD_DRAW else f"R6.8: {game.name}"
        raise ValueError(f"a match needs {game.min_seats} to {game.max_seats} bots ({rule}), got {len(bots)}")
    if spec.definition != SEVEN_CARD_DRAW:
        problem = game_problem(spec.definition, spec.game, len(bots))
        if problem:
            raise ValueError(problem)
    seen: set[str] = set()
    for b in bots:
        if not b.name or not set(b.name) <= _NAME_OK:
            raise ValueError(f"bot name {b.name!r} may contain only letters, digits and '-_.'")
        if b.name in seen:
            raise ValueError(f"bot name {b.name!r} appears twice; give every seat its own name")
        seen.add(b.name)
        seats.append(MatchSeat(len(seats), seat_for(b), limits))  # ValueError: an empty command
    if spec.hands < 0:
        raise ValueError(f"hands must be >= 0, got {spec.hands}")
    if spec.starting_stack < 1:
        raise ValueError(f"starting_stack must be >= 1 chip, got {spec.starting_stack}")
    problem = message_problem(spec.game, len(bots), spec.starting_stack, definition=spec.definition)
    if problem:  # PROTOCOL.md section 7: no legal hand may need a message over the limit
        raise ValueError(problem)
    return seats


def _send_match_start(seats: Sequence[MatchSeat], bots: Sequence[BotSpec | HumanSpec | Seat], spec: MatchSpec,
                      lim: Limits) -> None:
    """``match_start`` to every seat still in (PROTOCOL.md section 4): its seat, the names, the game, the limits."""
    names = tuple(b.name for b in bots)
    game = GameSettings.of(spec.game, spec.definition.name)
    limits = MatchLimits(lim.decision_ms, lim.time_bank_ms, lim.startup_ms, lim.max_faults, lim.max_message_bytes)
    for s in seats:
        if not s.out:
            s.conn.send(  # type: ignore[union-attr]
                codec.encode(
                    MatchStart(
                        match_id=spec.match_id,
                        seat=s.index,
                        names=names,
                        game=game,
                        hands=spec.hands,
                        starting_stack=spec.starting_stack,
                        stack_mode=str(spec.stack_mode),
                        limits=limits,
                    )
                )
            )


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a match: every bot is stopped, the hands played are in the history and in
    :attr:`result` (a :class:`MatchResult` marked ``interrupted``). A KeyboardInterrupt, so callers that
    only stop on one behave as before."""

    def __init__(self, result: MatchResult) -> None:
        super().__init__()
        self.result = result


class Referee:
    """Plays one match; use :func:`play_match` unless you need the timing figures.

    Args:
        bots: bot launch specs, by match seat (2..6); a :class:`~harness.match.human.HumanSpec`
            is a seat a person answers (no process, no sandbox, its own clock); a
            :class:`~harness.match.seat.Seat` is used as it is (a seat of another kind).
        spec: hands, seed, game, stack mode.
        limits: time, fault and resource limits for every bot.
        out_dir: receives ``hands.jsonl`` (or ``hands.jsonl.gz``) and ``logs/`` (created).
        cpus: pin the referee and its bots to these CPUs (``os.sched_setaffinity``)
            and run them under ``SCHED_BATCH`` (no wake-up preemption); None
            leaves placement to the scheduler. On a VM one core for a whole
            match is often faster: waking another core is costly.
        transport: ``"ipc"`` (default, endpoints in a private 0700 directory)
            or ``"tcp"`` (loopback, a free port per bot; not with the sandbox).
        sandbox: how bots are isolated (default :class:`SandboxSettings`: mode
            auto); the isolation is decided at once (:attr:`isolation`).
        stop_after: play at most this many hands, then end the match as a
            freezeout ends early (``match_end`` with the hands played), while
            ``match_start`` announces ``spec.hands``: a tournament's entry check
            looks like one of its matches (None: play ``spec.hands``).
        trace: write every message to and from every seat there (:mod:`harness.match.trace`); None
            (the default): no trace, at no cost.

    Raises:
        harness.host.sandbox.SandboxError: ``mode = "required"`` and the sandbox
            cannot run here.

    Attributes (after :meth:`run`):
        hands_seconds: wall time of the hand loop alone (s).
        hands_cpu_seconds: CPU time of this process (user + system, all its
            threads) over the hand loop (s); ``hands_user_seconds`` the user part.
        decisions: bot decisions asked over the match.
    """

    def __init__(
        self,
        bots: Sequence[BotSpec | HumanSpec | Seat],
        spec: MatchSpec,
        limits: Limits,
        out_dir: Path,
        *,
        cpus: Iterable[int] | None = None,
        transport: str = "ipc",
        sandbox: SandboxSettings | None = None,
        stop_after: int | None = None,
        trace: WireTrace | None = None,
    ) -> None:
        self.seats = _seat_bots(bots, spec, limits)
        self.stop_after = spec.hands if stop_after is None else max(0, min(spec.hands, stop_after))
        if transport not in ("ipc", "tcp"):
            raise ValueError(f"transport must be 'ipc' or 'tcp', got {transport!r}")
        self.sandbox = sandbox or SandboxSettings()
        self.isolation = decide_isolation(self.sandbox, transport=transport)
        self.bots = list(bots)
        self.spec = spec
        self.limits = limits
        self.out_dir = Path(out_dir)
        self.cpus = None if cpus is None else set(cpus)
        self.transport = transport
        self.trace = trace
        #: The seats' launches, jails, control groups, fair CPU and stops (:class:`harness.match.seathost.SeatHost`).
        self.host = SeatHost(self.seats, self.bots, limits, self.sandbox, self.isolation, self.out_dir, self._log,
                             self._fault)
        self.hands_seconds = 0.0
        self.hands_cpu_seconds = 0.0
        self.hands_user_seconds = 0.0
        self.decisions = 0
        self._log_file: Any = None
        self._log_bytes = 0
        #: Faults not yet in a hand record: ``[match seat, kind, detail, action index, put_out]``.
        self._pending_faults: list[list[Any]] = []
        #: The one poll over every seat's sockets (harness.match.endpoint.Hub).
        self._hub = Hub()
        self._ended = False
        self._history: HistoryWriter | None = None
        #: What every hand record says of the match (docs/HISTORY.md ``match``).
        self._match = handrecord.match_dict(
            bots=[b.name for b in self.bots], hands=spec.hands, stack_mode=str(spec.stack_mode),
            starting_stack=spec.starting_stack, seed_sha256=commitment(spec.seed), decision_ms=limits.decision_ms,
            time_bank_ms=limits.time_bank_ms, max_faults=limits.max_faults,
            humans=[c for s in self.seats if (c := s.occupant.own_clock(s.index)) is not None],
        )
        #: The seeds of hands ``_seeds_from ..``, derived a block at a time.
        self._seeds: list[int] = []
        self._seeds_from = 0
        #: The deal of every hand played, when the order is a rotation's (harness.deals.deal_of).
        self._deals: list[int] = []
        self._block_deals: list[int] = []
        #: The match's constant parts of every request (the game settings, the decision limit).
        self._wire = MatchWire(spec.game, limits.decision_ms, spec.definition)
        #: The finished hand whose record is not written yet: (state, match seats, out, decisions, faults).
        self._pending_record: (
            tuple[HandState, list[int], list[bool], list[Decision], list[list[Any]]] | None
        ) = None

    # ------------------------------------------------------------------ logging and faults

    def _log(self, line: str) -> None:
        """Append a line to ``referee.log``, capped at ``limits.log_bytes`` like the bots' logs."""
        f = self._log_file
        if f is None:
            return
        text = f"{time.strftime('%H:%M:%S')} {visible(line)}\n"  # details quote bots: no control characters
        size = len(text.encode("utf-8", "replace"))
        if self._log_bytes + size > self.limits.log_bytes:
            f.write(f"[log truncated: the referee's log reached {self.limits.log_bytes} bytes]\n")
            f.close()
            self._log_file = None
            return
        self._log_bytes += size
        f.write(text)

    def _fault(
        self, seat: MatchSeat, kind: FaultKind, detail: str, hand_faults: list[list[Any]] | None, fatal: bool = False
    ) -> None:
        """Count a fault; put the bot out on a crash, a lost connection, a failed start, too many faults
        or (``fatal``) a bound of the transport broken.

        The fault is recorded as ``[match seat, kind, detail, None, put_out]``; the caller sets the
        action index (the decision it happened in) once the decision is applied.
        """
        detail = clip_detail(detail)
        seat.faults[kind.value] = seat.faults.get(kind.value, 0) + 1
        seat.total_faults += 1
        self._log(f"seat {seat.index} {seat.name}: {kind.value}: {detail}")
        row: list[Any] = [seat.index, kind.value, detail, None, False]
        (hand_faults if hand_faults is not None else self._pending_faults).append(row)
        if seat.out:
            return
        if fatal or kind is FaultKind.CRASH or kind is FaultKind.FAILED_START or kind is FaultKind.DISCONNECTED:
            self._put_out(seat, f"{kind.value}: {detail}")  # it cannot talk any more
        elif seat.total_faults >= self.limits.max_faults:
            summary = ", ".join(f"{k} {v}" for k, v in sorted(seat.faults.items()))
            self._put_out(seat, f"max_faults: {seat.total_faults} faults ({summary})")
        elif seat.conn is not None:
            seat.conn.send(codec.encode(Error(reason=kind.value, message=detail, seq=seat.seq, fatal=False)))
        row[4] = seat.out  # this fault put the bot out

    def _violations(self, faults: list[list[Any]]) -> None:
        """Record the faults of seats that broke a bound of the transport while another was on move; out they go."""
        for s in self.seats:
            if s.conn is not None and s.conn.violation is not None:
                f = s.conn.take_violation()
                assert f is not None
                self._fault(s, f.kind, f.detail, faults, fatal=True)
        self._hub.pending.clear()

    def _put_out(self, seat: MatchSeat, why: str) -> None:
        seat.out = True
        seat.status = why
        self._log(f"seat {seat.index} {seat.name} is out: {why}")
        if seat.conn is not None and not seat.conn.gone:
            seat.conn.send(codec.encode(Error(reason="out", message=why, fatal=True)))

    # ------------------------------------------------------------------ start

    # ------------------------------------------------------------------ one decision

    def _decide(
        self, state: HandState, wire: HandWire, seat: MatchSeat, hs: int, faults: list[list[Any]]
    ) -> tuple[str, float | None]:
        """Ask the bot at hand seat ``hs`` for its decision, apply it (or the default action).

        Returns:
            who decided (``BY_BOT``; ``BY_FAULT``: the default action for the last fault
            recorded; ``BY_UNSENT``) and the time charged to the bot (ms; None if not asked).
        """
        conn = seat.conn
        assert conn is not None
        host = self.host
        if seat is not host.turn:
            host.give_turn(seat)
        if seat.notes:
            seat.flush_notes(with_request=True)
        clock = seat.clock
        seat.seq = seq = seat.seq + 1
        legal = state.legal()
        draw = state.phase is _DRAW
        payload = wire.request(draw, seq, hs, legal, clock.bank_left_ms)
        if len(payload) > MAX_MESSAGE_BYTES:
            # PROTOCOL.md section 7: no referee message is larger. A hand whose history grew that
            # long (thousands of raises) is played on with the default action, no fault.
            self._log(f"seat {seat.index} {seat.name}: request {seq} of {len(payload)} bytes not sent "
                      f"(over {MAX_MESSAGE_BYTES}); default action, no fault")
            state.apply(state.default_action())
            return BY_UNSENT, None
        if conn.behind is not None:  # its last request timed out: let it catch up first (PROTOCOL.md section 8)
            caught = conn.catch_up(seat.occupant.catch_up_ms(self.limits.decision_ms), seat.is_dead)
            self._log(f"seat {seat.index} {seat.name}: {'caught up' if caught else 'did not catch up'} "
                      f"before request {seq}")
        clock.start()
        try:
            reply = conn.request(
                payload,
                seq,
                DiscardReply if draw else ActionReply,
                clock.remaining_ms,
                seat.is_dead,
                self._write_record if self._pending_record is not None else None,
                clock.start,  # again from just before the write: a stall of the referee before it is not the bot's
            )
        except ChannelFault as f:
            ms = clock.expire() if f.kind is FaultKind.TIMEOUT else clock.stop(conn.answered_at)
            detail = seat.occupant.timeout_detail(f.detail) if f.kind is FaultKind.TIMEOUT else f.detail
            self._fault(seat, f.kind, _with_strays(detail, conn), faults, fatal=f.fatal)
            state.apply(state.default_action())
            if self._hub.pending:
                self._violations(faults)
            return BY_FAULT, ms
        except Disconnected:
            ms = clock.stop()
            self._disconnected(seat, faults, conn)
            state.apply(state.default_action())
            if self._hub.pending:
                self._violations(faults)
            return BY_FAULT, ms
        ms = clock.stop(conn.answered_at)
        if self._hub.pending:  # another seat broke a bound of the transport while this one was on move
            self._violations(faults)
        if conn.has_strays:  # one record per request, however many messages (PROTOCOL.md section 8)
            stray = conn.take_strays()
            assert stray is not None
            self._fault(seat, stray.kind, stray.detail, faults)
        if isinstance(reply, DiscardReply):  # the reply to a draw (the connection checked it answers the request)
            try:
                action = Action(ActionKind.DRAW, 0, tuple(parse_cards(reply.cards)))
            except CardError as exc:  # the codec already checks card strings; keep the engine's word
                self._fault(seat, FaultKind.MALFORMED, str(exc), faults)
                state.apply(state.default_action())
                return BY_FAULT, ms
        else:
            plain = _PLAIN_ACTIONS.get(reply.action)
            # bet or raise: the codec has checked the name; one above max_to is the all-in meant, capped (R3.10)
            action = plain if plain is not None else state.capped(Action(_ACTION_KINDS[reply.action], reply.amount))
        try:
            state.apply(action)  # checks first; a refused action leaves the state unchanged
        except (InvalidActionError, IllegalActionError) as exc:
            self._fault(seat, FaultKind.ILLEGAL, str(exc), faults)
            state.apply(state.default_action())
            return BY_FAULT, ms
        return BY_BOT, ms

    def _disconnected(self, seat: MatchSeat, faults: list[list[Any]], conn: Connection) -> None:
        """Classify a lost connection: the process ended (``crash``) or it runs on (``disconnected``)."""
        conn.gone = True
        end = time.monotonic() + _EXIT_WAIT_S
        runner = seat.occupant
        code = runner.poll()
        while code is None and runner.has_process and time.monotonic() < end:
            time.sleep(0.005)
            code = runner.poll()
        if code is None and seat.group is not None and seat.group.limit_hits() != seat.hits:
            self.host.limit_hit(seat, faults)  # killed at a limit: its sandbox may take a moment to end
            return
        if code is not None:
            detail = runner.describe_exit()
            kind = FaultKind.CRASH
        else:
            detail = (
                "the connection dropped while the bot's process runs: it closed its socket (keep one socket open "
                "until match_end)"
            )
            kind = FaultKind.DISCONNECTED
        self._fault(seat, kind, _with_strays(detail, conn), faults)

    # ------------------------------------------------------------------ one hand

    def _write_record(self) -> None:
        """Build and append the finished hand's record (deferred: runs while a bot thinks)."""
        pending = self._pending_record
        if pending is None:
            return
        self._pending_record = None
        state, seated, out, decisions, faults = pending
        record = handrecord.build(state, match_id=self.spec.match_id, match=self._match, seated=seated, out=out,
                                  decisions=decisions, faults=faults)
        self._history.write(record)  # type: ignore[union-attr]

    def _flush_notes(self) -> None:
        """Send every queued notification now (match end, or a bot not asked for a while)."""
        for s in self.seats:
            s.flush_notes()

    def _play_hand(self, h: int, seated: list[int], stacks: list[int], button: int, carried: int = 0) -> HandResult:
        """Play hand ``h`` with the match seats ``seated`` (``carried`` chips in the middle, R7.4); return its
        result (final stacks and nets by hand seat).

        To save the bots wake-ups, a bot's notifications (the previous hand's
        ``hand_end``, this hand's ``hand_start``) are queued and sent, in order,
        right before its next request (:meth:`MatchSeat.flush_notes`), and the
        previous hand's record is written while the first bot thinks.
        """
        spec = self.spec
        seats = self.seats
        players = [seats[m] for m in seated]
        i = h - self._seeds_from
        if not 0 <= i < len(self._seeds):
            self._seeds_from, i = h, 0
            count = min(_SEED_BLOCK, max(1, spec.hands - h))
            if spec.rotation is None:
                self._seeds = hand_seeds(spec.seed, h, count)
            else:
                self._block_deals = deals_of(spec.seed, spec.rotation, spec.hands, len(seats), h, count)
                self._seeds = [hand_seed(spec.seed, d) for d in self._block_deals]
        if spec.rotation is not None:
            self._deals.append(self._block_deals[i])
        state = _start_hand(spec.definition, spec.game, stacks, button, self._seeds[i], h, carried=carried)
        faults: list[list[Any]] = []
        if self._pending_faults:
            faults.extend(self._pending_faults)
            self._pending_faults = []
        if self._hub.pending:  # a bound of the wire broken between hands: that, not the exit that followed it
            self._violations(faults)
        # A bot that died between hands is a crash now, before it is dealt in.
        for p in players:
            if not p.out and p.occupant.has_process and p.occupant.poll() is not None:
                self._fault(p, FaultKind.CRASH, p.occupant.describe_exit(), faults)
            elif not p.out and p.group is not None and p.group.limit_hits() != p.hits:
                self.host.limit_hit(p, faults)
        names = [p.name for p in players]
        out = [p.out for p in players]
        wire = HandWire(self._wire, state)
        for k, p in enumerate(players):
            if not p.out:
                if len(p.notes) >= _MAX_QUEUED_NOTES:  # not asked for hands: do not hold its news back
                    p.flush_notes()
                p.notes.append(wire.hand_start(k, names, stacks))
        decisions: list[Decision] = []
        decide = self._decide
        asked = 0
        while state.to_act is not None:
            hs = state.to_act
            p = players[hs]
            if p.out:
                legal = state.legal()
                state.apply(_FOLD if ActionKind.FOLD in legal.actions else state.default_action())
                decisions.append(_OUT_DECISION)
                continue
            before = len(faults)
            by, ms = decide(state, wire, p, hs, faults)
            asked += 1
            if ms is not None:
                ms = round(ms * 1000.0) / 1000.0  # to the µs (round(ms, 3) formats a string: 10x the cost)
            if len(faults) > before:  # faults of this request: they name its decision
                index = len(decisions)
                for row in faults[before:]:
                    row[3] = index
                decisions.append((by, len(faults) - 1 if by == BY_FAULT else None, ms))
            else:
                decisions.append((by, None, ms))
        self._write_record()  # the previous hand's, if no request carried it
        self.decisions += asked
        result = state.result()
        self._pending_record = (state, list(seated), out, decisions, faults)
        try:
            end = wire.hand_end()
        except ValueError as exc:  # a history too long for one message: the bots miss this hand_end
            self._log(f"hand {h}: hand_end not sent: {exc}")
        else:
            for p in players:
                if not p.out:
                    p.notes.append(end)
        return result

    # ------------------------------------------------------------------ the match

    def run(self) -> MatchResult:
        """Play the match and return its result; always stops every bot and cleans up.

        Raises:
            MatchInterrupted: Ctrl-C (a KeyboardInterrupt), after cleanup, with the hands played.
            OSError: ``out_dir`` cannot be written (the hand history, or a bot's log: its ``filename``).
            harness.engine.GameConfigError: the game settings or stack are unusable.
        """
        t0 = time.monotonic()
        spec = self.spec
        n = len(self.seats)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        (self.out_dir / "logs").mkdir(exist_ok=True)
        before: Placement | None = None
        dumpable: Any = None
        tmpdir = None
        history: HistoryWriter | None = None
        net = [0] * n
        hand_nets: list[list[int]] = []
        interrupted = False
        try:
            self._log_file = open(self.out_dir / "logs" / "referee.log", "a", buffering=1, encoding="utf-8")
            self._log(f"sandbox: {self.isolation.summary}")
            if self.isolation.warning:
                self._log(f"WARNING: {self.isolation.warning}")
            if self.isolation.active:  # no process of our user may read our memory while bots run
                dumpable = non_dumpable()
                dumpable.__enter__()
            if self.cpus is not None:
                before = pin(self.cpus)  # before the context and the bots exist: they inherit it
            remove_stale_private_dirs()
            # Mode 0700: no other user reaches the endpoints. The pid in the name lets a later
            # match remove the directory if this process is killed before its cleanup.
            tmpdir = tempfile.mkdtemp(prefix=f"{PRIVATE_DIR_PREFIX}{os.getpid()}-", dir=private_parent())
            history = self._history = HistoryWriter(self.out_dir / history_name(spec.compress))
            self.host.launch(tmpdir, self._hub, self.transport, self.trace)
            if self.host.residency_summary():
                self._log(self.host.residency_summary())
            self.host.handshake(self._hub)
            _send_match_start(self.seats, self.bots, self.spec, self.limits)
            self.host.all_waiting(True)  # from now on only the bot on move gets the CPU (or runs at all)

            freeze = spec.stack_mode is StackMode.FREEZEOUT
            stacks = [spec.starting_stack] * n
            middle = CarriedChips(n)  # passed-out deals' antes (R7.4); nothing in other games
            button = -1
            t_hands = time.perf_counter()
            cpu_hands = resource.getrusage(resource.RUSAGE_SELF)  # µs resolution (os.times: clock ticks)
            for h in range(self.stop_after):
                raise_if_asked()  # a stop whose KeyboardInterrupt was lost (harness.match.stoprequest)
                if freeze:
                    seated = [m for m in range(n) if stacks[m] > 0]
                    if len(seated) < 2:
                        break
                    # R2.1: the button moves to the next seat still in the match.
                    button = next(m for k in range(1, n + 1) if stacks[m := (button + k) % n] > 0)
                    hand = self._play_hand(h, seated, [stacks[m] for m in seated], seated.index(button),
                                             middle.carried)
                    row = [0] * n
                    for k, m in enumerate(seated):
                        row[m] = hand.final_stacks[k] - stacks[m]
                        stacks[m] = hand.final_stacks[k]
                else:
                    start = spec.starting_stack
                    hand = self._play_hand(h, list(range(n)), [start] * n, h % n, middle.carried)
                    row = [f - start for f in hand.final_stacks]
                if hand.carried_in or hand.passed_out:  # R7.4: every row sums to 0 (harness.match.carry)
                    row = middle.settle(row, hand.passed_out)
                hand_nets.append(row)
                for m in range(n):
                    net[m] += row[m]
            self._write_record()
            self._flush_notes()
            self.hands_seconds = time.perf_counter() - t_hands
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            self.hands_user_seconds = cpu.ru_utime - cpu_hands.ru_utime
            self.hands_cpu_seconds = self.hands_user_seconds + cpu.ru_stime - cpu_hands.ru_stime
            if self._pending_faults:  # faults of a match with no hand played
                self._log(f"faults before any hand: {self._pending_faults}")
            self._end_match(len(hand_nets), net)
        except KeyboardInterrupt:
            interrupted = True  # raised with the hands played, once everything is stopped
        finally:
            try:
                self._cleanup(tmpdir, history, before)
            finally:
                if dumpable is not None:
                    dumpable.__exit__(None, None, None)
        lost = self.host.log_error()
        if lost is not None:  # a bot's log did not fit on the disk: the match is not whole (raised as the history's)
            raise lost
        result = MatchResult(
            match_id=spec.match_id,
            seed=spec.seed,
            hands_played=len(hand_nets),
            bots=[b.name for b in self.bots],
            net=net,
            hand_nets=hand_nets,
            faults=[dict(s.faults) for s in self.seats],
            status=[s.status for s in self.seats],
            duration_s=round(time.monotonic() - t0, 3),
            deals=None if spec.rotation is None else self._deals[:len(hand_nets)],
            interrupted=interrupted,
        )
        if interrupted:
            raise MatchInterrupted(result)
        return result

    def _end_match(self, hands_played: int, net: list[int]) -> None:
        self._ended = True
        self.host.all_waiting(False)  # every bot may run again, to read match_end and exit
        msg = codec.encode(MatchEnd(hands_played, tuple(net), tuple(s.status for s in self.seats)))
        for s in self.seats:
            if s.conn is not None and s.conn.identity is not None and not s.conn.gone:
                s.conn.send(msg)

    def _cleanup(
        self,
        tmpdir: str | None,
        history: HistoryWriter | None,
        before: Placement | None,
    ) -> None:
        """Stop every bot (quit, SIGTERM, SIGKILL), close sockets, remove the private directory."""
        try:
            if not self._ended:  # a referee error or Ctrl-C: still ask the bots to quit
                self._ended = True
                self.host.all_waiting(False)
                try:
                    msg = codec.encode(MatchEnd(0, tuple(0 for _ in self.seats), tuple("aborted" for _ in self.seats)))
                    for s in self.seats:
                        if s.conn is not None and s.conn.identity is not None and not s.conn.gone:
                            s.conn.send(msg)
                except Exception:  # never let a message stop the cleanup
                    pass
            self.host.stop()
        finally:
            self.host.close()
            for s in self.seats:
                if s.conn is not None:
                    s.conn.close()
            self._hub.close()
            if tmpdir is not None:
                shutil.rmtree(tmpdir, ignore_errors=True)
            if history is not None:
                try:
                    self._write_record()  # the last finished hand, if an error cut the match short
                except Exception:  # the error being raised matters more
                    pass
                history.close()
            if before is not None:
                restore(before)
            if self.trace is not None:
                self.trace.flush()
                if self.trace.error is not None:  # the match went on without it
                    self._log(f"WARNING: the wire trace stopped: {self.trace.error}")
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None


def play_match(
    bots: Sequence[BotSpec | HumanSpec | Seat],
    spec: MatchSpec,
    limits: Limits,
    out_dir: Path,
    *,
    cpus: Iterable[int] | None = None,
    transport: str = "ipc",
    sandbox: SandboxSettings | None = None,
    trace: WireTrace | None = None,
) -> MatchResult:
    """Play one match between bot subprocesses and return its result.

    Args:
        bots: who plays, by match seat (2..6 bots, unique names of letters,
            digits and ``-_.``).
        spec: game settings, hands, seed, starting stack, stack mode, id.
        limits: time, fault, size and resource limits for every bot.
        out_dir: receives ``hands.jsonl`` (``hands.jsonl.gz`` with ``spec.compress``; one hand
            record per line, docs/HISTORY.md, appended
            as hands finish) and ``logs/<seat>-<name>.{out,err}`` plus
            ``logs/referee.log``.
        cpus: optional CPU set to pin the referee and its bots to (speed on VMs).
        transport: ``"ipc"`` (default) or ``"tcp"`` (loopback; not with the sandbox).
        sandbox: how the bots are isolated (:mod:`harness.host.sandbox`);
            default: mode auto, fair CPU by weight.
        trace: the wire trace to write every message to and from every seat to (:mod:`harness.match.trace`);
            None: none.

    Returns:
        The :class:`MatchResult`: net chips and per-hand nets by match seat,
        fault counts by kind, each bot's status ("ok" or why it was put out).

    Raises:
        ValueError: fewer than 2 or more than 6 bots, a bad or repeated name,
            an empty command, a negative hand count.
        MatchInterrupted: Ctrl-C (a KeyboardInterrupt), after every bot has been stopped; its ``result``
            holds the hands played, marked ``interrupted``.
        harness.host.sandbox.SandboxError: the sandbox is required and cannot run here.
    """
    return Referee(bots, spec, limits, out_dir, cpus=cpus, transport=transport, sandbox=sandbox, trace=trace).run()
