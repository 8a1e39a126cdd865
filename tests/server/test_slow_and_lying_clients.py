"""A slow or lying client cannot stop the class (issue 32): a thousand slow connections, a body trickled a byte at a time, X-Forwarded-For not believed unless the teacher says so."""

from __future__ import annotations

import re
import socket
import time
import urllib.request

import pytest
from schoolclient import new_school
from procs import serve


@pytest.fixture
def school(tmp_path):
    """A web class of three sheets and its teacher's client."""
    return new_school(tmp_path)


# --- 2. a slow client cannot stop the class --------------------------------------------------------


def _raise_open_files() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


def test_a_thousand_slow_connections_from_one_address_leave_every_other_client_served(tmp_path):
    _raise_open_files()
    server, port, _ = serve(tmp_path / "data")
    slow = []
    try:
        for _ in range(1000):  # bounded: a thousand connections, each a request line and half a header
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(s)
        for address in ("127.0.0.2", "127.0.0.3"):  # other clients: served at once
            other = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(address, 0))
            other.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            assert other.recv(64).startswith(b"HTTP/1.1 200"), address
            other.close()
        # The slow ones are cut: the connections over the address's share at once, the rest when
        # their headers are late (≤ 10 s).
        deadline = time.monotonic() + 20
        for s in slow:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                while s.recv(4096):
                    pass
            except socket.timeout:
                pytest.fail("a connection with half a header is still open after 20 s")
            except OSError:
                pass
    finally:
        for s in slow:
            s.close()
        server.terminate()
        server.wait(timeout=30)


def test_a_body_trickled_a_byte_at_a_time_is_cut(tmp_path):
    server, port, _ = serve(tmp_path / "data")
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.4", 0))
        s.sendall(
            b"POST /api/uploads/roster HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
            b"Content-Type: text/csv\r\n\r\n"
        )
        start, cut = time.monotonic(), False
        while time.monotonic() - start < 40:
            try:
                s.sendall(b"x")
                time.sleep(2)
                s.setblocking(False)
                try:
                    data = s.recv(4096)
                    if data == b"" or data.startswith(b"HTTP/1.1 408"):
                        cut = True
                        break
                except BlockingIOError:
                    pass
                finally:
                    s.setblocking(True)
            except OSError:
                cut = True
                break
        assert cut and time.monotonic() - start < 30, "a body at a byte every 2 s was never cut"
        s.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


# --- 5. the PIN limit and X-Forwarded-For ----------------------------------------------------------


def test_forwarded_for_is_not_believed_unless_the_teacher_says_so(tmp_path):
    server, port, home = serve(tmp_path / "data")
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        answered = refused = 0
        for n in range(300):
            body = f"csrf={csrf}&code=ABCD-EF&pin=000000".encode()
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/s",
                data=body,
                method="POST",
                headers={
                    "Content-Type": "application/x-www-form-urlencoded",
                    "X-Forwarded-For": f"10.9.{n // 250}.{n % 250}",
                },
            )
            try:
                urllib.request.urlopen(request, timeout=10)
                answered += 1
            except urllib.error.HTTPError as error:
                if error.code == 429:
                    refused += 1
                else:
                    answered += 1
        assert refused >= 270, (answered, refused)
    finally:
        server.terminate()
        server.wait(timeout=30)
