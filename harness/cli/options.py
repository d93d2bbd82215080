"""The options several commands share, declared once, and their conversion to the library's values.

``--seed`` is a deal seed everywhere, decimal or hex (:func:`harness.deals.parse_seed`); only its default
differs: a secret one for a match, a test or a tournament, 1 for ``check-bot`` (the same check every time).
``--structure`` is the betting structure (R3.6, R3.7), ``--sandbox`` the isolation of bots
(docs/security.md), ``--bot NAME=COMMAND`` a seat, ``--ante`` and ``--min-bet`` the forced bets (R2.4,
R2.5), ``--openers`` the opening requirement of a game of openers (R7.2). A converter raises
:class:`harness.cli.boundary.UsageError` naming the option; the boundary says it (exit status 2).
Imports only typer at the top (``harness --help`` stays fast).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from harness.cli.boundary import UsageError

__all__ = [
    "CLUSTER_HELP", "ante_option", "bot_option", "bot_specs", "bots_cwd_option", "bots_problem", "fixed_seed_option",
    "forced_bets_game", "game_definition", "game_of", "game_option", "match_seed", "min_bet_option", "openers_option",
    "out_dir", "out_of_bounds", "pin_problem", "sandbox_option", "sandbox_settings", "secret_seed_option",
    "stack_problem", "structure_option",
]

#: The sandbox's modes, as ``--sandbox`` takes them.
SANDBOX_MODES = ("auto", "required", "off")

CLUSTER_HELP = ("Play the matches on a Dask cluster: tcp://HOST:8786 (a running `dask scheduler`) or local:N "
                "(N worker processes on this machine); overrides [schedule] backend and scheduler.")


def secret_seed_option(help_text: str = "Match seed (deals), decimal or hex; default: a secret one, printed "
                       "after the match.") -> Any:
    """``--seed``: a deal seed, decimal or hex (:func:`match_seed`); None when not given (a secret one)."""
    return typer.Option(None, "--seed", help=help_text)


def bot_option(how_many: str) -> Any:
    """``--bot NAME=COMMAND`` (``NAME@DIR=COMMAND``), repeated ``how_many`` (e.g. "once per seat (2-6)"); see
    :func:`bot_specs`."""
    return typer.Option(..., "--bot", metavar="NAME=COMMAND",
                        help=f"NAME=COMMAND, {how_many}; COMMAND is split like a shell does. NAME@DIR=COMMAND runs "
                             "that bot in DIR.")


def bots_cwd_option(help_text: str = "Working directory of every bot without its own @DIR (default: this one); "
                    "under the sandbox a bot sees only its directory.") -> Any:
    """``--cwd``: the working directory of every ``--bot`` without its own ``@DIR``; see :func:`bot_specs`."""
    return typer.Option(None, "--cwd", help=help_text)


def fixed_seed_option(help_text: str) -> Any:
    """``--seed`` with the default 1 (the same run every time: ``check-bot``, ``lbr``, ``bench engine``), decimal
    or hex as everywhere (:func:`match_seed` converts it)."""
    return typer.Option("1", "--seed", help=help_text)


def structure_option() -> Any:
    """``--structure``: the betting structure, no-limit (R3.6) or fixed-limit (R3.7); see :func:`game_of`."""
    return typer.Option("no-limit", "--structure", help="no-limit or fixed-limit (R3.6, R3.7).")


def game_option() -> Any:
    """``--game``: the game played (RULES.md R6); see :func:`game_definition`."""
    return typer.Option("seven-card-draw", "--game", help="seven-card-draw, five-card-draw (antes only: "
                        "--ante and --min-bet, R7.1) or deuce-to-seven-triple-draw (RULES.md R6-R8).")


def openers_option() -> Any:
    """``--openers``: the opening requirement of a game of openers (R7.2), None for the game's own; see
    :func:`game_definition`."""
    return typer.Option(None, "--openers", help="What opening needs in five-card-draw (R7.2): jacks (a pair of "
                        "jacks or better, the default), jack-card (any jack or better card) or none.")


def ante_option() -> Any:
    """``--ante``: the ante in chips (R2.4), 0 = none; see :func:`forced_bets_game`."""
    return typer.Option(0, "--ante", help="Ante in chips (R2.4).")


def min_bet_option() -> Any:
    """``--min-bet``: an ante-only game (no blinds, R2.5) with this minimum bet; see :func:`forced_bets_game`."""
    return typer.Option(None, "--min-bet", help="Ante-only game (no blinds, R2.5) with this minimum bet; needs --ante "
                        "(five-card-draw, R7.1).")


def forced_bets_game(structure: str, ante: int, min_bet: int | None) -> Any:
    """The :class:`harness.engine.GameConfig` of ``--structure``, ``--ante`` and ``--min-bet``: blinds (with the
    ante) without ``--min-bet``, an ante-only game with it (R2.4, R2.5).

    Raises:
        UsageError: an option out of its bounds, or settings the engine refuses (``game options: ...``, its rule).
    """
    from harness.engine import GameConfigError

    problem = out_of_bounds(("--ante", "ante", ante), ("--min-bet", "min_bet", min_bet))
    if problem:
        raise UsageError(problem)
    try:  # from the options as given: GameConfigError names what is wrong
        if min_bet is None:
            return game_of(structure, ante=ante) if ante else game_of(structure)
        return game_of(structure, ante=ante, blinds=False, min_bet=min_bet)
    except GameConfigError as exc:
        raise UsageError(f"game options: {exc}") from None


def game_definition(name: str, config: Any, players: int, openers: str | None = None) -> Any:
    """The :class:`harness.engine.GameDefinition` of ``--game`` under ``--openers`` (None: the game's own rule),
    checked against the settings and the seats.

    Raises:
        UsageError: a game that does not exist, or that these settings or this many players cannot play
            (its rule named, e.g. ``--game deuce-to-seven-triple-draw: R8.1: ... blinds``); ``--openers`` in a
            game with no opening requirement (R6.3) or naming an unknown rule (R7.2).
    """
    from harness.engine.games import GAMES, SEVEN_CARD_DRAW, Openers, game_problem, with_openers

    definition = GAMES.get(name)
    if definition is None:
        raise UsageError(f"--game must be one of {', '.join(GAMES)}, got {name!r}")
    if openers is not None:
        if not definition.passed_out:  # R6.3, R6.10: only a game of openers has an opening requirement
            with_rule = ", ".join(n for n, g in GAMES.items() if g.passed_out)
            raise UsageError(f"--openers: {name} has no opening requirement (R6.3); only {with_rule} takes it")
        if openers not in tuple(Openers):
            raise UsageError(f"--openers must be one of {', '.join(Openers)} (R7.2), got {openers!r}")
        definition = with_openers(definition, openers)
    problem = None if definition == SEVEN_CARD_DRAW else game_problem(definition, config, players)
    if problem:
        raise UsageError(f"--game {name}: {problem}")
    return definition


def sandbox_option(default: str | None = "auto", help_text: str = "Isolate each bot: auto, required or off.") -> Any:
    """``--sandbox``: how bots are isolated (docs/security.md); see :func:`sandbox_settings`."""
    return typer.Option(default, "--sandbox", help=help_text)


def match_seed(seed: str | None) -> int:
    """The deal seed of ``--seed`` (decimal or hex), or a new secret one when not given.

    Raises:
        UsageError: not a seed (:func:`harness.deals.parse_seed`'s message, after ``--seed:``).
    """
    from harness.deals import new_seed, parse_seed

    try:
        return new_seed() if seed is None else parse_seed(seed)
    except ValueError as exc:  # parse_seed's answer on the text given
        raise UsageError(f"--seed: {exc}") from None


def sandbox_problem(sandbox: str | None) -> str | None:
    """Why ``--sandbox`` is not one of its modes, or None (not given: None too)."""
    if sandbox is None or sandbox in SANDBOX_MODES:
        return None
    return f"--sandbox must be auto, required or off, got {sandbox!r}"


def sandbox_settings(sandbox: str) -> Any:
    """``--sandbox`` as the :class:`harness.specs.SandboxSettings` of a command's bots (the one conversion).

    Raises:
        UsageError: not auto, required or off.
    """
    from harness.specs import SandboxMode, SandboxSettings

    problem = sandbox_problem(sandbox)
    if problem:
        raise UsageError(problem)
    return SandboxSettings(mode=SandboxMode(sandbox))


def game_of(structure: str, **rules: Any) -> Any:
    """The :class:`harness.engine.GameConfig` of ``--structure`` (and any other rules given), from the text
    as given, so that :class:`harness.engine.GameConfigError` (exit status 2) names what is wrong."""
    from harness.engine import GameConfig

    return GameConfig.from_dict({"structure": structure, **rules})


def out_of_bounds(*options: tuple[str, str, int | None]) -> str | None:
    """The first ``(option, setting, value)`` outside its bounds (:data:`harness.specs.BOUNDS`), as an error."""
    from harness.specs import bound_problem

    for option, setting, value in options:
        problem = None if value is None else bound_problem(setting, value, option)
        if problem:
            return problem
    return None


def bots_problem(specs: list[Any], sandbox: str) -> str | None:
    """The first problem of ``--bot`` commands (not found, not executable) or of ``--sandbox``, as an error."""
    from harness.host.botproc import BotStartError, resolve_command

    for spec in specs:
        try:
            resolve_command(spec)
        except BotStartError as exc:
            return str(exc)
    return sandbox_problem(sandbox)


def bot_specs(items: list[str], cwd: Path | None, *, allow_dir: bool = True) -> list[Any]:
    """The ``--bot NAME=COMMAND`` / ``NAME@DIR=COMMAND`` options as BotSpecs (parsed by
    :func:`harness.specs.parse_named_command`).

    Raises:
        harness.specs.SettingsError: a malformed option (no ``=``, a bad name, a command that cannot be split).
        UsageError: a folder that is not one, a name given twice.
    """
    from harness.specs import BotSpec, parse_named_command

    specs: list[Any] = []
    for item in items:
        name, folder, argv = parse_named_command(item, allow_dir=allow_dir)  # SettingsError: the boundary's
        bot_dir = Path(folder).expanduser() if folder else cwd
        if bot_dir is not None and not bot_dir.is_dir():
            where = f"--bot {name}@{folder}" if folder else "--cwd"
            raise UsageError(f"{where}: {bot_dir} is not a directory")
        if any(s.name == name for s in specs):
            raise UsageError(f"--bot {name!r} is given twice; every bot needs its own name")
        specs.append(BotSpec(name, argv, cwd=None if bot_dir is None else os.fspath(bot_dir.resolve())))
    return specs


def pin_problem(pin: int | None) -> str | None:
    """Why ``--pin CPU`` cannot be used here (a CPU this process may not run on), or None."""
    allowed = sorted(os.sched_getaffinity(0))
    if pin is None or pin in allowed:
        return None
    return f"--pin {pin}: no such CPU available here; use one of {', '.join(map(str, allowed))}"


def out_dir(out: Path | None, kind: str) -> Path:
    """The new output directory of ``--out`` (or ``results/KIND-DATE-TIME``).

    Raises:
        harness.match.outdir.OutDirError: it exists and is not empty, or cannot be made (exit status 2).
    """
    from harness.match.outdir import default_out_dir, prepare_out_dir

    return prepare_out_dir(out) if out is not None else default_out_dir(kind)


def stack_problem(players: int, stack: int, game: Any = None, definition: Any = None) -> str | None:
    """Why ``--stack`` is too deep for every message of a hand of ``definition`` (default Seven Card Draw)
    to fit (PROTOCOL.md section 7), or None."""
    from harness.engine import GameConfig
    from harness.engine.games import SEVEN_CARD_DRAW
    from harness.match.msgsize import message_problem

    return message_problem(game if game is not None else GameConfig(), players, stack, "--stack",
                           definition=definition or SEVEN_CARD_DRAW)
