"""``harness replay``: re-run a hand history (or a whole tournament) from its seeds and check it."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli.boundary import UsageError
from harness.cli.common import app
from harness.cli.options import match_seed
from harness.cli.voice import echo, usage


@app.command()
def replay(
    file: Path = typer.Argument(
        ...,
        help="A hand history (JSON Lines, .jsonl or .jsonl.gz), a match's directory (harness match --out), "
        "or a finished tournament's directory.",
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every hand, not only those that differ."),
    seed: str | None = typer.Option(
        None, "--seed", help="The match seed (revealed after the match): also check each hand's deal derives from it."
    ),
    html_file: Path | None = typer.Option(
        None, "--html", help="Also write FILE: one self-contained HTML page with every hand of the match in the "
        "table viewer (data, script and styles inline; opens from disk, fetches nothing), to attach to a mail or "
        "a ticket.",
    ),
) -> None:
    """Re-run every hand of a hand history through the engine and report differences.

    Prints each hand that differs (every hand with --verbose) and a summary. Exit status 0 when
    every hand replays identically, 1 if any hand differs, 2 if the file is not a hand history.
    Given a tournament directory, checks its revealed seed against the commitment made before
    play and every match's deals against the seed: every match is checked, each one that differs
    or whose hand history is damaged is named (file, line, field), and the exit status is 1 if any
    failed (2 when the tournament's results or reveal are missing or damaged). With --html FILE (a match's directory or
    hand history), also writes the match's hands as one HTML page.
    """
    from harness.history.files import HistoryError
    from harness.history.replay import check_history

    if file.is_dir():
        histories = [file / name for name in ("hands.jsonl", "hands.jsonl.gz") if (file / name).is_file()]
        if not histories:  # a tournament's directory: its deals against the revealed seed
            if html_file is not None:
                raise UsageError(f"--html: {file} holds no hands.jsonl or hands.jsonl.gz: give a match's "
                                 "directory (a tournament's are under matches/) or a hand history")
            _replay_tournament(file, verbose)
            return
        file = histories[0]  # a match's directory (harness match --out DIR)
    if html_file is not None:
        _write_replay_html(file, html_file)
    deal_seed = None if seed is None else match_seed(seed)
    bad = total = earlier = 0

    def summary(where: str = "") -> str:
        differ = f"; {bad} differ{'s' if bad == 1 else ''}" if bad else ""
        rule = f" ({earlier} under the earlier raise rule, RULES.md E14)" if earlier else ""
        return f"{total - bad} of {total} hands{where} replay identically{rule}{differ}"

    try:
        for check in check_history(file, match_seed=deal_seed):
            total += 1
            if not check.ok:
                bad += 1
                echo(f"hand {check.hand_id}: DIFFERS: {check.detail}")
            elif check.note:
                earlier += 1
                echo(f"hand {check.hand_id}: OK with {check.note}")
            elif verbose:
                echo(f"hand {check.hand_id}: OK")
    except BrokenPipeError:
        raise  # stdout's reader is gone: not a problem with the file
    except OSError as exc:
        raise usage("replay", f"cannot read {file}: {exc.strerror or exc}") from None
    except HistoryError as exc:  # said by the boundary, after what was checked before it
        if total:
            where = f" before line {exc.line}" if exc.line is not None else ""
            echo(summary(where))
        raise
    if not total:
        raise UsageError(f"no hands in {file} (the file is empty)")
    echo(summary())
    raise typer.Exit(1 if bad else 0)


def _write_replay_html(history: Path, target: Path) -> None:
    """``harness replay --html``: every hand of ``history`` as one self-contained page (exit 2 on bad input)."""
    from harness.report.hands import read_hand_views
    from harness.report.viewer import replay_html, replay_title

    try:
        hands = list(read_hand_views(history))
    except OSError as exc:
        raise usage("replay", f"cannot read {history}: {exc.strerror or exc}") from None
    if not hands:
        raise UsageError(f"no hands in {history} (the file is empty)")
    players = list(dict.fromkeys(b for h in hands for b in h["bots"]))
    bots = " vs ".join(players)
    page = replay_html(hands, title=replay_title(str(hands[0]["match_id"]), players),
                       note=f"{bots}: {len(hands)} hands, from {history.name}. Written by harness replay --html.")
    try:
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise usage("replay", f"--html: cannot write {target}: {exc.strerror or exc}") from None
    echo(f"replay page: {target} ({len(hands)} hands, {len(page.encode()) / 1e6:.1f} MB)")


def _replay_tournament(directory: Path, verbose: bool) -> None:
    """``harness replay DIR``: verify a finished tournament's deals (exit 0 / 1 / 2)."""
    from harness.tournament.seeds import verify_deals

    bad = matches = hands = unreadable = failed = 0
    try:
        for verdict in verify_deals(directory):
            matches += 1
            hands += verdict.hands
            failed += not verdict.ok
            if verdict.problems:
                bad += 1
                echo(f"match {verdict.match_id}: DIFFERS: " + "; ".join(verdict.problems[:5]))
            if verdict.unreadable:  # said, and the other matches are still checked
                unreadable += 1
                echo(f"match {verdict.match_id}: CANNOT BE CHECKED after {verdict.hands} hands: "
                      f"{verdict.unreadable}")
            elif verbose and verdict.ok:
                echo(f"match {verdict.match_id}: OK ({verdict.hands} hands)")
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise usage("replay", f"cannot read {directory}: {exc.strerror or exc}") from None
    echo(
        f"{matches - failed} of {matches} matches ({hands} hands) were dealt from the committed seed(s) "
        f"and replay identically" + (f"; {bad} differ" if bad else "")
        + (f"; {unreadable} cannot be checked (damaged hand history)" if unreadable else "")
    )
    raise typer.Exit(1 if failed else 0)
