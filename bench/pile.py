"""The wait of a batch asked for while a long pile of scans is read (row (y)).

`python bench/pile.py [PAGES]` serves the web app as a real server on 127.0.0.1 (`attnsheet
serve`): a class of 2, then a pile of PAGES empty pages (default 2,000, the page limit) uploaded
into it; once the pile is being read, a 2-sheet batch is asked for, and the seconds until it is
listed are the wait. Then the same on a throwaway PostgreSQL server (tests/pgserver.py) with the
server running no jobs and two `attnsheet worker` processes. The pile is cancelled after each
measure. Bounded: every wait gives up after ten minutes.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "server"), str(ROOT / "bench")]

from bombs import pdf_pages  # noqa: E402
from procs import serve  # noqa: E402
from test_jobs import post_form, stop_all, worker  # noqa: E402

from generator.app.store import Store  # noqa: E402


def until(test, seconds: float = 600.0):
    deadline = time.monotonic() + seconds
    while not (value := test()):
        if time.monotonic() > deadline:
            raise SystemExit("gave up waiting")
        time.sleep(0.05)
    return value


def measure(data: Path, pile: Path, pages: int, database=None, extra=(), workers=0, piles=1) -> tuple[float, int]:
    """Seconds from asking for a 2-sheet batch to its being listed, while `piles` piles are read;
    pages of the first read by then."""
    args = ("--database", database, *extra) if database else extra
    server, port, home = serve(data, *args)
    helpers = [worker(data, database) for _ in range(workers)]
    store = Store(data, database)
    try:
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        first = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "2", "seed": "6"}), timeout=600
        ).url.rsplit("/", 1)[1]
        until(lambda: first in store.ids())
        for _ in range(piles):
            urllib.request.urlopen(
                post_form(port, f"/batches/{first}/scans", {"csrf": csrf}, (("scans", "pile.pdf", pile.read_bytes()),)),
                timeout=600,
            )
        numbers = [job.id for job in store.jobs_of(first, "scan")]
        number = numbers[0]
        until(lambda: all(store.job(n).state == "running" and store.job(n).done >= 16 for n in numbers))
        start = time.monotonic()
        second = urllib.request.urlopen(
            post_form(port, "/batches", {"csrf": csrf, "count": "2", "seed": "7"}), timeout=600
        ).url.rsplit("/", 1)[1]
        until(lambda: second in store.ids())
        wait, done = time.monotonic() - start, store.job(number).done
        for n in numbers:
            store.cancel(n)
        until(lambda: all(store.job(n).finished for n in numbers))
        return wait, done
    finally:
        store.close()
        stop_all(server, *helpers)


def main() -> None:
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as folder:
        pile = pdf_pages(Path(folder) / "pile.pdf", pages)
        wait, done = measure(Path(folder) / "sqlite", pile, pages)
        print(
            f"(y) SQLite, one process: a 2-sheet batch listed {wait:.1f} s after it was asked for, "
            f"{done} of {pages} pages read by then"
        )
        from pgserver import Server, Unavailable

        try:
            pg = Server()
        except Unavailable as why:
            print(f"(y) PostgreSQL: skipped ({why})")
            return
        try:
            wait, done = measure(Path(folder) / "pg", pile, pages, pg.fresh(), ("--no-jobs",), workers=2)
            print(
                f"(y) PostgreSQL, two workers: a 2-sheet batch listed {wait:.1f} s after it was asked for, "
                f"{done} of {pages} pages read by then"
            )
            wait, done = measure(Path(folder) / "pg2", pile, pages, pg.fresh(), ("--no-jobs",), workers=2, piles=2)
            print(
                f"(y) PostgreSQL, two workers each reading a pile: a 2-sheet batch listed {wait:.1f} s after it "
                f"was asked for, {done} of {pages} pages of the first pile read by then"
            )
        finally:
            pg.stop()


if __name__ == "__main__":
    main()
