"""One render at a time, in turn: WeasyPrint's objects are per process, and long work hands on between its slices."""

from __future__ import annotations

import threading


class Turns:
    """A lock taken in turn (first come, first served), which a long holder can hand on between
    pieces of its work: a pile of scans read under it lets a batch waiting behind it go first
    after each slice of pages, never after the whole pile."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._next = 0  # the next ticket to hand out
        self._serving = 0  # the ticket whose turn it is

    def __enter__(self) -> "Turns":
        with self._cond:
            ticket = self._next
            self._next += 1
            self._cond.wait_for(lambda: self._serving == ticket)
        return self

    def __exit__(self, *exc) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()

    def waiting(self) -> bool:
        """Whether someone is waiting for a turn."""
        with self._cond:
            return self._next > self._serving + 1

    def hand_on(self) -> None:
        """From inside a turn: let whoever is waiting go first, then take a turn again at the end of the line."""
        if self.waiting():
            self.__exit__()
            self.__enter__()
