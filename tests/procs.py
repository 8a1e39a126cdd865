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


class Served:
    """The web app over `store` served by uvicorn in a thread, on a free port of 127.0.0.1 (`url`)."""

    def __init__(self, store) -> None:
        import socket
        import threading
        import time

        import uvicorn

        from generator.web.app import create_app

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.url, self.port, self.store = f"http://127.0.0.1:{port}", port, store
        self.server = uvicorn.Server(
            uvicorn.Config(create_app(store), host="127.0.0.1", port=port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert self.server.started, "the server did not start"

    def stop(self) -> None:
        """Stop serving (the thread ends with it)."""
        self.server.should_exit = True
        self.thread.join(timeout=10)


def free_port() -> int:
    """A port of 127.0.0.1 nothing listens on now."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(data, *extra: str, port: int = 0):
    """`attnsheet serve` in its own process on 127.0.0.1 (a free port unless given), once it
    answers: (the process, its port, its home page's HTML)."""
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from generator.draw.private import write_secret

    port = port or free_port()
    root = Path(__file__).resolve().parent.parent
    secret = Path(data) / "secret"
    if not secret.exists():
        # Made here, not by the server: drawn from the test's name (tests/conftest.py), so the class
        # it draws has the same numbers every run, and a test's premise on them (a minus sign in the
        # key) holds in every run or in none. The server keeps a secret it finds.
        Path(data).mkdir(parents=True, exist_ok=True)
        write_secret(secret)
    server = subprocess.Popen(
        [sys.executable, "-m", "generator", "serve", "--port", str(port), "--no-browser", "--data", str(data), *extra],
        cwd=root,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            return server, port, urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise AssertionError(f"the server did not start: {server.stderr.read()[-2000:]}") from None
            time.sleep(0.1)
