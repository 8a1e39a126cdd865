"""The processes the tests look for, from /proc: whose child, still running."""

from __future__ import annotations

import os


def parent(pid: int) -> int:
    """The parent of `pid`, or -1 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def children(pid: int) -> set[int]:
    """The processes whose parent is `pid`."""
    return {int(entry) for entry in os.listdir("/proc") if entry.isdigit() and parent(int(entry)) == pid}


def running(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
