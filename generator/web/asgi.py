"""The web app for any ASGI server (`uvicorn --factory generator.web.asgi:app`, gunicorn's uvicorn
worker, Hypercorn), set up from the environment as `attnsheet serve` is from its options.

ATTNSHEET_DATA        the data folder (default: the user data folder)
ATTNSHEET_DATABASE    postgresql://… (default: SQLite in the data folder: then run one process)
ATTNSHEET_PUBLIC_URL  where students' phones reach the server (their links and QR codes)
ATTNSHEET_HOSTS       host names it answers to, comma-separated (addresses and localhost always)
ATTNSHEET_JOBS        here (this process runs jobs), shared (it and `attnsheet worker`s: the
                      default on PostgreSQL) or workers (they alone)
ATTNSHEET_ACCOUNTS    1: teachers sign in even before the first account exists
ATTNSHEET_TOKEN       without accounts, the access token every teacher's request needs
ATTNSHEET_MAX_SCAN_PAGES  the most pages one upload of scans may hold (default 2,000)

The ASGI server cannot say whether it listens beyond this machine, so the app refuses to start
with neither accounts (`attnsheet user add NAME --admin`, or ATTNSHEET_ACCOUNTS=1) nor a token.
Behind a proxy, the proxy headers are believed as the ASGI server is told (uvicorn's
`--forwarded-allow-ips`).
"""

from __future__ import annotations

import os
from pathlib import Path


def app():
    """The app of the environment's settings (a factory: each process calls it once)."""
    from generator.app.folders import folder_of
    from generator.app.store import Store
    from generator.web.app import create_app

    data = os.environ.get("ATTNSHEET_DATA", "")
    database = os.environ.get("ATTNSHEET_DATABASE", "") or None
    store = Store(folder_of(Path(data) if data else None), database)
    shared = store.db.dialect == "postgresql"
    jobs = os.environ.get("ATTNSHEET_JOBS", "shared" if shared else "here")
    if jobs not in ("here", "shared", "workers") or (jobs != "here" and not shared):
        raise SystemExit("ATTNSHEET_JOBS: here, shared or workers (the last two on a PostgreSQL database)")
    hosts = [name.strip() for name in os.environ.get("ATTNSHEET_HOSTS", "").split(",") if name.strip()]
    accounts = os.environ.get("ATTNSHEET_ACCOUNTS", "") == "1" or store.accounts_on()
    token = os.environ.get("ATTNSHEET_TOKEN", "") or None
    if not accounts and token is None:
        store.close()
        raise SystemExit(
            "attnsheet under an ASGI server: turn accounts on (attnsheet user add NAME --admin, or "
            "ATTNSHEET_ACCOUNTS=1) or give ATTNSHEET_TOKEN: it may be reached from anywhere"
        )
    pages = os.environ.get("ATTNSHEET_MAX_SCAN_PAGES", "")
    if pages and not (pages.isdigit() and 1 <= int(pages) <= 100_000):
        store.close()
        raise SystemExit("ATTNSHEET_MAX_SCAN_PAGES: a whole number of pages from 1 to 100000")
    return create_app(
        store,
        None if accounts else token,
        None,
        allowed_hosts=hosts,
        public_url=os.environ.get("ATTNSHEET_PUBLIC_URL", ""),
        accounts=accounts,
        jobs=jobs,
        **({"scan_pages": int(pages)} if pages else {}),
    )
