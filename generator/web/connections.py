"""Connections that cannot hold the server: a request's headers in time, its body at a minimum rate, a few per client.

uvicorn cuts an idle keep-alive connection, and the app cuts a body that stops (guard.py), but
neither cuts a client that sends its headers a byte at a time, or a body a byte every few
seconds; and uvicorn answers 503 to everyone once its connection limit is reached. So one
address could hold every connection with a thousand slow ones. This protocol (uvicorn's own
HTTP/1.1 protocol, with three checks) gives each request HEADER_TIMEOUT seconds for its
headers, wants its body at MIN_BODY_RATE after a short grace, and lets one address hold at
most PER_CLIENT connections: beyond that it is closed at once, so every other client is served.
"""

from __future__ import annotations

import asyncio
from collections import Counter
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


def _plain(status: str, words: str) -> bytes:
    """A whole HTTP/1.1 response of one line of text, after which the connection closes."""
    body = (words + "\n").encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
            f"content-length: {len(body)}\r\n\r\n").encode() + body


TIMEOUT_RESPONSE = _plain("408 Request Timeout", "the request took too long to arrive; send it again")
BUSY_RESPONSE = _plain("429 Too Many Requests", "too many connections from your address at once; wait a little")


def guarded_protocol(trusted: Iterable[str] = (), per_client: int = PER_CLIENT, header_timeout: float = HEADER_TIMEOUT,
                     grace: float = BODY_GRACE, min_rate: float = MIN_BODY_RATE) -> type:
    """uvicorn's HTTP/1.1 protocol with the three checks, for one server: its own count of each
    address's connections; addresses in `trusted` (a reverse proxy's) are not limited."""
    open_by: Counter[str] = Counter()
    exempt = frozenset(trusted)

    class Guarded(H11Protocol):
        """One connection: counted against its address, its requests' progress checked."""

        _address: Optional[str] = None
        _timer: Optional[asyncio.TimerHandle] = None
        _since: float = 0.0
        _body_since: Optional[float] = None
        _body_bytes: int = 0

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else None
            if address is not None and address not in exempt and "*" not in exempt:
                if open_by[address] >= per_client:
                    transport.write(BUSY_RESPONSE)
                    transport.close()
                    return
                open_by[address] += 1
                self._address = address
            self._since = self.loop.time()
            self._arm()

        def connection_lost(self, exc) -> None:
            if self._address is not None:
                open_by[self._address] -= 1
                if open_by[self._address] <= 0:
                    del open_by[self._address]
                self._address = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            super().connection_lost(exc)

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
            self.transport.close()

    return Guarded
