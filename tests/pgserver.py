"""A throwaway PostgreSQL server for the store's tests: Debian's postgresql, a cluster in a
temporary folder, listening on a Unix socket in it and nowhere else, stopped at the end of the
session — or, should the test process die, by a watchdog that outlives it by a second.

PostgreSQL refuses to run as root: as root the cluster is made and run as the `postgres` user
Debian's package creates (`runuser -u postgres --`).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Optional


class Unavailable(Exception):
    """Why no PostgreSQL server can be started here."""


class Server:
    """A running throwaway cluster: fresh databases by name, stopped by `stop`."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
        if not bins:
            raise Unavailable("PostgreSQL is not installed (make test installs Debian's postgresql)")
        self.bin = Path(bins[-1]).parent
        self.prefix: list[str] = []
        owner: Optional[pwd.struct_passwd] = None
        if os.geteuid() == 0:  # the server refuses root: run it as Debian's postgres user
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                raise Unavailable("running as root and there is no postgres user to run PostgreSQL as") from None
            if shutil.which("runuser") is None:
                raise Unavailable("running as root and runuser is missing")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.dir = Path(tempfile.mkdtemp(prefix="attnsheet-pg-"))
        if owner is not None:
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        self.data, self.log = self.dir / "data", self.dir / "log"
        self._run(
            self.bin / "initdb",
            "-D",
            self.data,
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = f"-c listen_addresses='' -c unix_socket_directories={self.dir} -c fsync=off -c max_connections=200"
        self._run(self.bin / "pg_ctl", "-D", self.data, "-o", options, "-l", self.log, "-w", "-t", "60", "start")
        # A watchdog: if this process dies without stopping the server, the server stops anyway.
        stop = " ".join(self.prefix + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])
        self.watchdog = subprocess.Popen(
            [
                "sh",
                "-c",
                f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {self.dir}",
            ],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def _run(self, *args) -> None:
        done = subprocess.run(self.prefix + [str(a) for a in args], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-800:] if self.log.exists() else ""
            raise Unavailable(f"{Path(str(args[0])).name} failed: {(done.stderr or done.stdout).strip()[-400:]} {log}")

    def url(self, database: str = "postgres") -> str:
        """A URL of a database of this server, over its socket."""
        return f"postgresql://postgres@/{database}?host={self.dir}"

    def fresh(self) -> str:
        """A new, empty database's URL."""
        import psycopg

        name = f"t_{secrets.token_hex(6)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        try:
            self._run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        except Unavailable:
            pass
        self.watchdog.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
