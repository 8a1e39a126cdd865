"""Load, bounded, on 127.0.0.1: students handing in at once (issue: the classroom server).

(l) 300 students hand in within a minute to one `attnsheet serve` (SQLite): every hand-in kept,
    p95 latency; the same against two server processes sharing a throwaway PostgreSQL server;
    and a student's hand-in p95 while a 200-sheet batch is being made.

Timings on shared machines are noisy: this is a bench, never a test. Exit 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the throwaway PostgreSQL server of the store's tests
ATTNSHEET = [sys.executable, "-m", "generator"]
TARGET_MS = 200.0


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Served:
    """An `attnsheet serve` process on a free port of 127.0.0.1, stopped by `stop`."""

    def __init__(self, data: str, database: str = "") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        extra = ["--database", database] if database else []
        self.process = subprocess.Popen([*ATTNSHEET, "serve", "--port", str(self.port), "--no-browser", "--data", data,
                                         *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        for _ in range(600):
            try:
                home = urllib.request.urlopen(self.base + "/", timeout=5).read().decode()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit(f"attnsheet serve did not start: {self.process.stderr.read().decode()}")
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)

    def post(self, path: str, body: bytes, kind: str = "application/json") -> tuple[int, bytes]:
        request = urllib.request.Request(self.base + path, data=body, method="POST",
                                         headers={"content-type": kind, "x-csrf-token": self.csrf})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def make_batch(self, count: int, seed: int) -> str:
        form = urllib.parse.urlencode({"csrf": self.csrf, "count": str(count), "seed": str(seed)}).encode()
        status, _ = self.post("/batches", form, "application/x-www-form-urlencoded")
        if status not in (200, 303):
            raise SystemExit(f"making a batch failed: {status}")
        return "made"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(20)


def students(data: str, database: str = "") -> list[tuple[str, dict]]:
    """Each sheet of the newest batch: its link's token and what its student hands in (Q, K, V, one slip)."""
    from generator.app.store import Store
    from generator.core.formats import problem_from_json
    from generator.core.kinds import solve
    from generator.core.numbers import sheet_value

    store = Store(Path(data), database or None)
    batch = store.batch(store.ids()[0])
    links = store.links(batch)
    out = []
    for sheet in batch.sheets:
        head = solve(problem_from_json(sheet["problem"])).heads[0]
        grids = {name: [[sheet_value(v) for v in row] for row in getattr(head, name)] for name in ("Q", "K", "V")}
        grids["Q"][0][0] = "99"
        out.append((links[int(sheet["index"])].token, {"heads": [grids]}))
    store.close()
    return out


def hand_in_all(servers: list[Served], work: list[tuple[str, dict]], spread: float, workers: int = 64) -> list[float]:
    """Every student hands in once, their arrivals spread over `spread` seconds: the latencies, in ms."""
    start = time.perf_counter()
    rng = random.Random(7)
    arrivals = sorted(rng.uniform(0, spread) for _ in work)

    def one(k: int) -> float:
        delay = arrivals[k] - (time.perf_counter() - start)
        if delay > 0:
            time.sleep(delay)
        token, answers = work[k]
        server = servers[k % len(servers)]
        t0 = time.perf_counter()
        status, body = server.post(f"/api/s/{token}/handin", json.dumps(answers).encode())
        elapsed = (time.perf_counter() - t0) * 1000
        if status != 200 or not json.loads(body).get("handed_in"):
            raise SystemExit(f"a hand-in failed: {status} {body[:200]!r}")
        return elapsed

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, range(len(work))))


def kept(data: str, database: str = "") -> int:
    from generator.app.store import Store

    store = Store(Path(data), database or None)
    batch = store.batch(store.ids()[0])
    count = len(store.handins(batch))
    store.close()
    return count


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--spread", type=float, default=60.0, help="seconds over which they hand in")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as data:  # SQLite, one process
        server = Served(data)
        try:
            server.make_batch(args.students, 11)
            work = students(data)
            latencies = hand_in_all([server], work, args.spread)
            lost = args.students - kept(data)
            rows.append(("(l) SQLite, 1 process: hand-in p95", p95(latencies), "ms", lost))
            # A student's hand-in while a 200-sheet batch is being made.
            maker = threading.Thread(target=server.make_batch, args=(200, 12))
            maker.start()
            time.sleep(0.3)
            during = []
            while maker.is_alive():
                during += hand_in_all([server], random.Random(len(during)).sample(work, 5), 0.5, workers=5)
            maker.join()
            rows.append(("(l) SQLite: hand-in p95 while a 200-sheet batch is made", p95(during), "ms", 0))
        finally:
            server.stop()
    try:
        from pgserver import Server, Unavailable
    except ImportError as error:
        print(f"PostgreSQL rows skipped: {error}")
    else:
        try:
            pg = Server()
        except Unavailable as why:
            print(f"PostgreSQL rows skipped: {why}")
        else:
            try:
                url = pg.fresh()
                with tempfile.TemporaryDirectory() as data:
                    servers = [Served(data, url), Served(data, url)]
                    try:
                        servers[0].make_batch(args.students, 13)
                        work = students(data, url)
                        latencies = hand_in_all(servers, work, args.spread)
                        lost = args.students - kept(data, url)
                        rows.append(("(l) PostgreSQL, 2 processes: hand-in p95", p95(latencies), "ms", lost))
                    finally:
                        for s in servers:
                            s.stop()
            finally:
                pg.stop()
    failed = False
    print(f"{'row':<60} {'value':>9}  {'target':>8}  lost")
    for name, value, unit, lost in rows:
        ok = value <= TARGET_MS and lost == 0
        failed |= not ok
        print(f"{name:<60} {value:>7.1f}{unit}  {'<= 200ms':>8}  {lost}{'' if ok else '  MISSED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
