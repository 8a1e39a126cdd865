"""No fixed number of slow connections stops the class (issue 53, 4): 16 loopback addresses with 63
partial-header connections each made every other client get 503 for as long as they reopened
what the header limit cut. Connections are counted across the server's processes, and past an
address's share or the server's capacity the idlest is shed for a newcomer.

Bounded: a fixed number of connections, from 127.0.0.2–127.0.0.33 to a server on 127.0.0.1."""

from __future__ import annotations

import socket
import time

import pytest
from procs import serve

from generator.web.connections import CAPACITY, PER_CLIENT, Ledger

ADDRESSES = [f"127.0.0.{n}" for n in range(2, 34)]
"""Thirty-two addresses, each holding connections with half a request's headers."""
EACH = 40
"""Connections each holds at first: 1,280 in all, past the server's capacity, each within its share."""


def _raise_open_files() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


def partial(port: int, address: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(address, 0))
    s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return s


def still_open(s: socket.socket) -> bool:
    """Whether the server holds a connection still (it has said nothing on it, nor closed it)."""
    s.setblocking(False)
    try:
        s.recv(64)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False  # answered (shed or refused) or closed


def status(port: int) -> bytes:
    """A whole request from 127.0.0.1 (a student, the teacher): its status line."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return s.recv(64).split(b"\r\n", 1)[0]


def siege(port: int) -> list[bytes]:
    """Every address holds EACH partial connections, then keeps opening more (as an attacker
    reopens what is cut) while a client asks twelve times: what the client was answered."""
    held: list[socket.socket] = []
    answered = []
    try:
        for _ in range(EACH):
            for address in ADDRESSES:
                held.append(partial(port, address))
        for _ in range(12):
            for address in ADDRESSES:
                for _ in range(4):
                    try:
                        held.append(partial(port, address))
                    except OSError:
                        pass
            answered.append(status(port))
            time.sleep(0.5)
    finally:
        for s in held:
            s.close()
    return answered


def test_thirty_two_addresses_of_slow_connections_leave_the_class_served(tmp_path):
    _raise_open_files()
    assert len(ADDRESSES) * EACH > CAPACITY and EACH < PER_CLIENT
    server, port, _ = serve(tmp_path / "data")
    try:
        answered = siege(port)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert answered == [b"HTTP/1.1 200 OK"] * 12, answered


def test_two_processes_count_and_shed_together(tmp_path, postgres_server):
    _raise_open_files()
    server, port, _ = serve(tmp_path / "data", "--database", postgres_server.fresh(), "--workers", "2")
    try:
        answered = siege(port)
        # One address's share is counted across both processes: past it, its own idlest are shed.
        mine = [partial(port, "127.0.0.40") for _ in range(PER_CLIENT + 40)]
        time.sleep(1)
        open_now = sum(still_open(s) for s in mine)
        for s in mine:
            s.close()
        assert PER_CLIENT - 4 <= open_now <= PER_CLIENT, open_now
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert answered == [b"HTTP/1.1 200 OK"] * 12, answered


def test_the_ledger_counts_every_process_and_forgets_a_dead_one():
    import os

    ledger = Ledger(2)
    ledger.use(0)
    ledger.add("198.51.100.1", 3)
    pid = os.fork()
    if pid == 0:  # a second process, counting in its own row of the same memory
        ledger.use(1)
        ledger.add("198.51.100.1", 2)
        ledger.add("198.51.100.2", 1)
        os._exit(0)
    os.waitpid(pid, 0)
    assert ledger.of("198.51.100.1") == 5 and ledger.of("198.51.100.2") == 1 and ledger.total() == 6
    ledger.clear(1)  # the process died: what it held is not held
    assert ledger.of("198.51.100.1") == 3 and ledger.total() == 3


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "2001:db8::7"])
def test_an_address_is_counted_in_its_bucket(address):
    ledger = Ledger()
    ledger.add(address, 1)
    assert ledger.of(address) == 1 and ledger.total() == 1
    ledger.add(address, -1)
    assert ledger.of(address) == 0 and ledger.total() == 0
