"""Games a logged-in student plays in the browser against a reference bot or one of their own versions.

The same table as ``harness play --web`` (:class:`harness.play.channel.TableChannel`, the same page and
script), served under ``/play/<id>/`` by the contest server. The bot runs as in a ladder match (the
contest's game, limits and sandbox); the person's seat is a :class:`~harness.match.human.HumanSpec` whose
idle limit is the contest's ``[play] idle_s``. Bounds (``[play]``): one game per student at a time,
``max_games`` on the server, and a game whose player has not answered for ``idle_s`` ends: the seat leaves
the table, the referee stops the bot. Each game writes its hand history to
``<data>/games/<student>/<id>/``, which only that student (and the admin) can download.

Only reference bots and the student's own admitted versions are offered: a game shows every card of the
bot's hands in its history, which another student's bot must not give away.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.deals import new_seed
from harness.errors import HarnessError
from harness.history.files import find_history
from harness.match.human import HumanLink, HumanSpec
from harness.play.channel import TableChannel
from harness.play.session import play_with_human
from harness.server.contest import Contest
from harness.server.hostpaths import for_student, host_roots
from harness.specs import BotSpec, MatchResult, MatchSpec

__all__ = ["Game", "GameRefused", "Games"]

#: How often the idle watch looks at the games (s).
_WATCH_S = 1.0
#: Finished games kept in memory (their pages still show the last table), per server.
_KEEP_FINISHED = 200
#: A game id (``secrets.token_urlsafe``).
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class GameRefused(HarnessError, ValueError):
    """A game that cannot start now; the message says why (shown to the student)."""


@dataclass(eq=False)
class Game:
    """One game: who plays whom, its table and its files.

    Attributes:
        id: a random id (URL-safe), the game's address ``/play/<id>/``.
        student: the player's login name (their seat's name at the table).
        opponent: the bot's name.
        directory: the game's files (hand history, the bot's stderr).
        channel: the table the page draws and answers through.
    """

    id: str
    student: str
    opponent: str
    directory: Path
    channel: TableChannel
    link: HumanLink
    started: float = field(default_factory=time.time)
    thread: threading.Thread | None = None
    result: MatchResult | None = None
    error: str = ""

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def history(self) -> Path | None:
        """The game's hand history file, once the first hand is written."""
        return find_history(self.directory)


class Games:
    """The server's games (module doc). Thread-safe; :meth:`stop` ends every game and its bot.

    Args:
        contest: the contest (game, limits, sandbox, ``[play]``).
        pace_ms: pause after each bot event so the page can follow it (ms).
    """

    def __init__(self, contest: Contest, pace_ms: int = 300) -> None:
        self.contest = contest
        self.pace_ms = pace_ms
        self._lock = threading.Lock()
        self._games: dict[str, Game] = {}
        self._stopping = threading.Event()
        self._watch: threading.Thread | None = None

    def start(self, student: str, opponent: BotSpec) -> Game:
        """Start a game of ``student`` against ``opponent`` (the caller checked the student may play it).

        Raises:
            GameRefused: games are off, the student already plays one, or the server's games are all taken.
        """
        settings = self.contest.play
        with self._lock:
            if settings.max_games == 0:
                raise GameRefused("games are turned off in this contest")
            running = [g for g in self._games.values() if g.running]
            mine = [g for g in running if g.student == student]
            if mine:
                raise GameRefused(f"you already play a game (/play/{mine[0].id}/): finish it or leave it first")
            if len(running) >= settings.max_games:
                raise GameRefused(f"all {settings.max_games} game tables are taken; try again in a few minutes")
            game_id = secrets.token_urlsafe(9)
            directory = self.contest.data / "games" / student / game_id
            directory.mkdir(parents=True)
            link = HumanLink()
            game = Game(game_id, student, opponent.name, directory, TableChannel(self.pace_ms), link)
            game.thread = threading.Thread(target=self._play, args=(game, opponent), name=f"game-{game_id}",
                                           daemon=True)
            self._games[game_id] = game
            self._forget_old()
            game.thread.start()
            if self._watch is None:
                self._watch = threading.Thread(target=self._idle_watch, name="games-idle", daemon=True)
                self._watch.start()
        return game

    def get(self, game_id: str) -> Game | None:
        """The game with this id, running or finished (None if unknown)."""
        with self._lock:
            return self._games.get(game_id)

    def past_history(self, student: str, game_id: str) -> Path | None:
        """The hand history a game of ``student`` left on disk (None: no such game, or no hand played): what is
        left of a game this server no longer holds (it ended when the server restarted, or long ago)."""
        if not _GAME_ID.fullmatch(game_id):  # an id names a folder: nothing else is looked up
            return None
        directory = self.contest.data / "games" / student / game_id
        return find_history(directory) if directory.is_dir() else None

    def stop(self, timeout_s: float = 30.0) -> None:
        """Every player leaves: each referee stops its bot and ends the match; wait for them."""
        self._stopping.set()
        with self._lock:
            games = list(self._games.values())
        for game in games:
            game.link.leave()
        for game in games:
            if game.thread is not None:
                game.thread.join(timeout_s)

    # ---- threads

    def _play(self, game: Game, opponent: BotSpec) -> None:
        c = self.contest
        spec = MatchSpec(game=c.game, hands=c.play.hands, seed=new_seed(), starting_stack=c.starting_stack,
                         match_id=f"game-{game.id}", stack_mode=c.stack_mode, definition=c.definition)
        human = HumanSpec(game.student, game.link, idle_ms=c.play.idle_s * 1000)
        try:
            game.result = play_with_human([opponent], human, 0, spec, c.limits, game.directory, game.channel,
                                          sandbox=c.sandbox)
        except Exception as exc:  # noqa: BLE001 - the page says it; the server keeps serving
            roots = host_roots(c.data, c.path.resolve().parent)  # the page shows it: no path of the server
            game.error = for_student(f"the game could not be played: {exc}", roots)
            game.link.leave()

    def _idle_watch(self) -> None:
        idle_s = self.contest.play.idle_s
        while not self._stopping.wait(_WATCH_S):
            now = time.monotonic()
            with self._lock:
                games = [g for g in self._games.values() if g.running]
            for game in games:
                if now - game.channel.last_answer > idle_s:
                    game.link.leave()  # the referee puts the seat out: the game ends, the bot is stopped

    def _forget_old(self) -> None:
        done = [g for g in self._games.values() if not g.running]
        for game in done[:-_KEEP_FINISHED] if len(done) > _KEEP_FINISHED else []:
            del self._games[game.id]
