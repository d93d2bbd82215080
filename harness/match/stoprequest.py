"""Stop requests for a match played in a thread: the referee's check between hands.

A running match is stopped by raising ``KeyboardInterrupt`` in its thread: a
signal handler does so in a local worker process (SIGTERM), and a Dask task
is interrupted with ``PyThreadState_SetAsyncExc``. Either exception can be
lost: when it is raised while the thread runs a finalizer (a ``__del__`` or a
weakref callback run by the garbage collector), Python prints "Exception
ignored" and goes on, and the match would play to its last hand. So whoever
interrupts a thread also asks it here, and the referee checks at the start of
every hand (:func:`raise_if_asked`), where raising is always safe.

Ask *after* raising the asynchronous exception: the referee never checks once
it is cleaning up, so a request seen first can never be followed by a second
interrupt that cuts the cleanup short.
"""

from __future__ import annotations

import threading

#: Thread idents asked to stop. A set of ints: adding and testing are atomic under the GIL.
_ASKED: set[int] = set()


def ask_stop(ident: int) -> None:
    """Ask the match running in thread ``ident`` (``threading.get_ident()``) to stop at its next hand."""
    _ASKED.add(ident)


def forget(ident: int) -> None:
    """Drop thread ``ident``'s request (its job ended: the thread's next job must not stop at once)."""
    _ASKED.discard(ident)


def raise_if_asked() -> None:
    """Raise ``KeyboardInterrupt`` if this thread was asked to stop (the referee's check between hands).

    Raises:
        KeyboardInterrupt: :func:`ask_stop` was called for this thread and not yet :func:`forget`.
    """
    if _ASKED and threading.get_ident() in _ASKED:
        raise KeyboardInterrupt
