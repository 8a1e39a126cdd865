"""Connections that cannot hold the server: a request's headers in time, its body at a minimum rate,
a bounded share per client and in all, the idlest shed first.

uvicorn cuts an idle keep-alive connection, and the app cuts a body that stops (guard.py), but
neither cuts a client that sends its headers a byte at a time, or a body a byte every few
seconds; and uvicorn answers 503 to everyone once its connection limit is reached. So a few
addresses could hold every connection with slow ones. This protocol (uvicorn's own HTTP/1.1
protocol, with its checks) gives each request HEADER_TIMEOUT seconds for its headers, wants its
body at MIN_BODY_RATE after a short grace, and counts connections in a Ledger every process of
the server shares: past PER_CLIENT from one address, or CAPACITY in all, the newcomer takes the
place of the idlest connection (the one waiting longest for its request), then of the slowest
body; only when every connection is busy is it refused. A newcomer is always the newest, so no
fixed number of slow connections keeps anyone out.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import zlib
from typing import Iterable, Optional

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0
"""Seconds a client has to send a request's line and headers."""
BODY_GRACE = 10.0
"""Seconds a body may take before its rate is checked."""
MIN_BODY_RATE = 2048
"""Bytes a second a body must arrive at, on average, after the grace (a phone on a poor network
sends a hundred times more)."""
PER_CLIENT = 64
"""Connections one address may hold at once (a browser opens six; a class behind one address
should use a reverse proxy, whose address is trusted with --forwarded-allow-ips)."""
CHECK_EVERY = 1.0
"""Seconds between checks of a connection's progress."""
CAPACITY = 900
"""Connections the server holds at once in all its processes (uvicorn answers 503 past 1,000 in
one): past it, the idlest is shed for a newcomer."""
ADMIT_WAIT = 0.05
"""Seconds a newcomer waits for another process to finish counting one (it takes microseconds)."""
BUCKETS = 4096
"""Addresses are counted in this many buckets (two sharing one are counted together: sooner limited, never later)."""


class Ledger:
    """Connections open, counted in memory that every process of a server shares (made before
    they are forked): each process writes its own row (its slot), and reads everyone's."""

    def __init__(self, slots: int = 1) -> None:
        self.slots, self.slot = slots, 0
        self._counts = multiprocessing.RawArray("i", slots * (BUCKETS + 1))
        self.admitting = multiprocessing.Lock()
        """Held while a process checks a newcomer against the counts and counts it: two processes
        never both take an address's last place (each saw 63 of 64, and 65 were open)."""

    def use(self, slot: int) -> None:
        """This process counts in `slot` (from zero, as a process that died left it)."""
        self.slot = slot
        self.clear(slot)

    def clear(self, slot: int) -> None:
        """A dead process's row, emptied (by the parent that starts its replacement)."""
        row = slot * (BUCKETS + 1)
        self._counts[row : row + BUCKETS + 1] = [0] * (BUCKETS + 1)

    def add(self, address: Optional[str], n: int) -> None:
        row = self.slot * (BUCKETS + 1)
        if address is not None:
            self._counts[row + _bucket(address)] += n
        self._counts[row + BUCKETS] += n

    def total(self) -> int:
        """Connections open in all processes."""
        return sum(self._counts[s * (BUCKETS + 1) + BUCKETS] for s in range(self.slots))

    def of(self, address: str) -> int:
        """Connections open from `address` (its bucket's) in all processes."""
        b = _bucket(address)
        return sum(self._counts[s * (BUCKETS + 1) + b] for s in range(self.slots))


def _bucket(address: str) -> int:
    return zlib.crc32(address.encode()) % BUCKETS


def _plain(status: str, words: str) -> bytes:
    """A whole HTTP/1.1 response of one line of text, after which the connection closes."""
    body = (words + "\n").encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


TIMEOUT_RESPONSE = _plain("408 Request Timeout", "the request took too long to arrive; send it again")
BUSY_RESPONSE = _plain("429 Too Many Requests", "too many connections from your address at once; wait a little")
FULL_RESPONSE = _plain("503 Service Unavailable", "the server is busy with every connection it holds; try again")


def guarded_protocol(
    trusted: Iterable[str] = (),
    per_client: int = PER_CLIENT,
    header_timeout: float = HEADER_TIMEOUT,
    grace: float = BODY_GRACE,
    min_rate: float = MIN_BODY_RATE,
    ledger: Optional[Ledger] = None,
    capacity: int = CAPACITY,
) -> type:
    """uvicorn's HTTP/1.1 protocol with the checks, for one server process: `ledger` counts every
    process's connections (this process's alone when none is given); addresses in `trusted` (a
    reverse proxy's) have no share of their own."""
    ledger = ledger or Ledger()
    exempt = frozenset(trusted)
    live: dict = {}  # this process's connections, oldest first

    class Guarded(H11Protocol):
        """One connection: counted in the ledger, its requests' progress checked, shed when idlest."""

        _address: Optional[str] = None
        _counted = False
        _timer: Optional[asyncio.TimerHandle] = None
        _since: float = 0.0
        _body_since: Optional[float] = None
        _body_bytes: int = 0

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._since = self.loop.time()
            address = self.client[0] if self.client else None
            limited = address is not None and address not in exempt and "*" not in exempt
            # A moment's wait at most: a process killed holding it leaves the counts as good as before the lock.
            held = ledger.admitting.acquire(timeout=ADMIT_WAIT)
            try:
                if limited and ledger.of(address) >= per_client and not _shed(lambda c: c._address == address):
                    return self._refuse(BUSY_RESPONSE)
                if ledger.total() >= capacity and not _shed(lambda c: True):
                    return self._refuse(FULL_RESPONSE)
                self._address = address if limited else None
                ledger.add(self._address, 1)
                self._counted = True
            finally:
                if held:
                    ledger.admitting.release()
            live[self] = None
            self._arm()

        def _refuse(self, response: bytes) -> None:
            self.transport.write(response)
            self.transport.close()

        def _release(self) -> None:
            """Out of the ledger (once: when shed, and again when its connection is lost)."""
            if self._counted:
                ledger.add(self._address, -1)
                self._counted = False
            live.pop(self, None)

        def connection_lost(self, exc) -> None:
            self._release()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            super().connection_lost(exc)

        def idle(self) -> bool:
            """Waiting for a request's headers (none being answered)."""
            return self.conn.their_state is h11.IDLE and (self.cycle is None or self.cycle.response_complete)

        def slow_body(self, now: float) -> Optional[float]:
            """A body's rate so far (bytes a second), while one arrives and the app is not holding it back."""
            if self.conn.their_state is h11.SEND_BODY and self._body_since is not None and not self.flow.read_paused:
                return self._body_bytes / max(now - self._body_since, 1e-3)
            return None

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.SEND_BODY:
                self._body_bytes += len(data)
            super().data_received(data)
            if self.conn.their_state is h11.SEND_BODY and self._body_since is None:
                self._body_since, self._body_bytes = self.loop.time(), 0

        def on_response_complete(self) -> None:
            # The next request's headers are timed from here (an idle connection is closed sooner,
            # by uvicorn's keep-alive timeout).
            self._since, self._body_since = self.loop.time(), None
            super().on_response_complete()

        def _arm(self) -> None:
            self._timer = self.loop.call_later(CHECK_EVERY, self._check)

        def _check(self) -> None:
            """Close a connection whose request is late: headers past their time, a body too slow."""
            self._timer = None
            if self.transport.is_closing():
                return
            now, state = self.loop.time(), self.conn.their_state
            if state is h11.IDLE and now - self._since > header_timeout:
                return self._late()
            if state is h11.SEND_BODY and self._body_since is not None and not self.flow.read_paused:
                # Paused reading is the app's doing (its buffer is full), never the client's slowness.
                elapsed = now - self._body_since
                if elapsed > grace and self._body_bytes < min_rate * (elapsed - grace):
                    return self._late()
            self._arm()

        def _late(self) -> None:
            if self.cycle is None or not self.cycle.response_started:
                self.transport.write(TIMEOUT_RESPONSE)
            self._release()
            self.transport.close()

    def _shed(match) -> bool:
        """Close this process's idlest connection that `match`es (waiting longest for its request),
        else its slowest body: whether one was, to make room."""
        candidates = [c for c in live if match(c) and not c.transport.is_closing()]
        idle = [c for c in candidates if c.idle()]
        if idle:
            min(idle, key=lambda c: c._since)._late()
            return True
        if candidates:
            now = candidates[0].loop.time()
            slow = [(rate, c) for c in candidates if (rate := c.slow_body(now)) is not None]
            if slow:
                min(slow, key=lambda pair: pair[0])[1]._late()
                return True
        return False

    return Guarded
