"""`attnsheet serve`: the web app, for teachers who never open a terminal."""

from __future__ import annotations

import errno
import secrets
import socket
import threading
import webbrowser
from pathlib import Path
from typing import Optional

import click

from generator.app.errors import InputError
from generator.app.reading import MAX_PAGES
from generator.app.links import opens_only_here
from generator.cli.common import OutPath, data_store, emit, open_store, say

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any other than this machine's needs the printed access token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Folder for batches, answers and grades (default: your user data folder).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option("--public-url", default="", metavar="URL",
              help="The address students' phones reach this server at, for their links and QR codes "
                   "(default: this machine's network address with --host 0.0.0.0, else the teacher's page's).")
@click.option("--database", default=None, metavar="URL",
              help="A PostgreSQL database (postgresql://…) for a school server run as several processes "
                   "(default: SQLite, one file in --data).")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A host name the server answers to (repeatable), e.g. the school's name for this machine; "
                   "addresses, localhost and --host's name always are.")
@click.option("--forwarded-allow-ips", "forwarded", default="", metavar="ADDRESSES",
              help="A reverse proxy's addresses (comma-separated) whose X-Forwarded-For and -Proto headers are "
                   "believed; off by default, so no client can claim another's address.")
@click.option("--accounts", is_flag=True,
              help="Teachers sign in, each to their own classes, even before the first account exists (then made "
                   "at /setup on this machine). On once `attnsheet user add` has made a teacher.")
@click.option("--workers", "processes", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes answering on the one port (more than one needs --database postgresql://…: "
                   "everything a request needs is in the database and the data folder).")
@click.option("--no-jobs", is_flag=True,
              help="Run no jobs here (making batches, reading scans): leave them to `attnsheet worker` processes "
                   "on the same PostgreSQL database.")
@click.option("--max-scan-pages", "scan_pages", type=click.IntRange(1, 100_000), default=MAX_PAGES,
              show_default=True, help="The most pages one upload of scans may hold (a larger pile is refused "
                                      "before a page is read).")
def serve_command(host: str, port: int, data, no_browser: bool, public_url: str, database,
                  allowed_hosts: tuple[str, ...], forwarded: str, accounts: bool, processes: int,
                  no_jobs: bool, scan_pages: int) -> None:
    """Serve the web app: make batches, enter students' answers and grade them, in a browser.

    Batches are the CLI's own files (PDFs, manifest.json) under --data/batches; the answers
    and grades saved live in the database (`attnsheet export` writes them as files for the CLI).

    \b
    Example:
      attnsheet serve --data ~/classes
      attnsheet serve --host 0.0.0.0 --port 8080 --no-browser --allowed-host attnsheet.school.example
      attnsheet serve --database postgresql://attnsheet@db/attnsheet --workers 4 --no-jobs
    """
    import uvicorn

    from generator.app.folders import folder_of
    from generator.app.serving import recover, single_threaded, warm
    from generator.web.app import create_app

    store = open_store(folder_of(data), database)  # a data folder or database that cannot be had fails here, in one line
    shared = store.db.dialect == "postgresql"
    if (processes > 1 or no_jobs) and not shared:
        store.close()
        raise InputError(f"{'--workers' if processes > 1 else '--no-jobs'} needs a PostgreSQL database "
                         "(--database postgresql://…): the SQLite default is one process's")
    jobs = "workers" if no_jobs else "shared" if shared else "here"
    for line in recover(store):  # what a stopped server left
        say(line)
    listener = bind(host, port)  # as does a port in use or a host that does not resolve
    port = listener.getsockname()[1]  # the one the system chose, for --port 0
    accounts = accounts or store.accounts_on()
    # A teacher's session is the key to a server of accounts; without them, an access token is.
    token = None if host in LOOPBACK or accounts else secrets.token_urlsafe(24)
    # Names a browser may use for this server: a page of another name is refused (DNS rebinding).
    names = {*allowed_hosts, host}
    if host not in LOOPBACK:
        names |= {socket.gethostname(), socket.getfqdn()}
    if processes > 1:
        single_threaded()  # before the processes are forked: each keeps it (one process: warm() does it)
    workers = warm() if processes == 1 else None  # several processes: each renders in its own
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    say(f"serving {store.root} at {address} (Ctrl-C stops)")
    if not no_browser:
        threading.Timer(1.0, webbrowser.open, args=(address,)).start()
    try:
        if not public_url and host in ("0.0.0.0", "::"):
            public_url = f"http://{network_address()}:{port}"
        if processes == 1:
            app = create_app(store, token, workers, allowed_hosts=names, public_url=public_url, accounts=accounts,
                             jobs=jobs, scan_pages=scan_pages)
        if accounts and not store.accounts_on():
            say(f"no account yet: make the first (an admin) at http://127.0.0.1:{port}/setup on this machine, "
                "or with `attnsheet user add NAME --admin`")
        elif accounts:
            say("teachers sign in with their accounts (attnsheet user add NAME adds one)")
        if public_url and not opens_only_here(public_url):
            say(f"students reach their sheets at {public_url.rstrip('/')}/s (each worksheet's QR opens its own link)")
        else:  # said before the class is printed, not found out after
            say("the worksheets' QR codes will open only on this computer: for students' phones, start with "
                "--host 0.0.0.0 or --public-url URL")
        if processes > 1:
            root = store.root
            store.close()  # each process opens its own: a connection is never shared across a fork

            def make_app():
                from generator.app.store import Store

                return create_app(Store(root, database), token, None, allowed_hosts=names, public_url=public_url,
                                  accounts=accounts, jobs=jobs, scan_pages=scan_pages)

            say(f"{processes} server processes answer on port {port}")
            serve_processes(processes, listener, make_app, forwarded)
            return
        server = uvicorn.Server(server_config(app, forwarded))
        try:
            server.run(sockets=[listener])
        except KeyboardInterrupt:
            pass  # Ctrl-C, once the server has shut down cleanly: a normal end
    finally:
        listener.close()
        if workers is not None:
            workers.close()


def serve_processes(count: int, listener: socket.socket, make_app, forwarded: str) -> None:
    """`count` processes forked from this one, each serving its own app (`make_app()`) on the one
    listening socket; one that dies is replaced; Ctrl-C or SIGTERM stops them all."""
    import os
    import signal
    import time

    import uvicorn

    from generator.web.connections import Ledger

    children: dict[int, int] = {}  # pid -> its slot in the ledger
    stopping = []
    ledger = Ledger(count)  # made before the processes are forked: they all count in it

    def start(slot: int) -> None:
        ledger.clear(slot)  # what a process that died there left
        pid = os.fork()
        if pid == 0:  # the child: its own app, its own database connections
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                ledger.use(slot)
                uvicorn.Server(server_config(make_app(), forwarded, ledger)).run(sockets=[listener])
            except KeyboardInterrupt:
                pass
            except BaseException:  # said by the child, which ends; the parent starts another
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                os._exit(code)
        children[pid] = slot

    def stop(signum, frame) -> None:
        stopping.append(signum)
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    for slot in range(count):
        start(slot)
    while children:
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        slot = children.pop(pid, None)
        if not stopping and slot is not None:
            time.sleep(0.5)  # a process that dies at once is not restarted in a tight loop
            start(slot)


def server_config(app, forwarded: str = "", ledger=None):
    """uvicorn's settings for the app: bounded (idle connections closed after 5 s; past the
    ledger's capacity, or an address's share, the idlest is shed for a newcomer), every request's
    headers in time and its body at a minimum rate; proxy headers believed only from
    `forwarded`'s addresses. `ledger`: the connections every process of the server counts."""
    import uvicorn

    from generator.web.connections import guarded_protocol

    trusted = [a.strip() for a in forwarded.split(",") if a.strip()]
    return uvicorn.Config(app, log_level="warning", limit_concurrency=1000, timeout_keep_alive=5,
                          http=guarded_protocol(trusted, ledger=ledger), proxy_headers=bool(trusted),
                          forwarded_allow_ips=trusted or None)


def network_address() -> str:
    """This machine's address on its network (the one a route out would use; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port`, or one line on why there cannot be one: the server
    binds before it says "serving", so a port in use never prints an address that is not ours."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        why = error.strerror if isinstance(error, socket.gaierror) else "not a host name"
        raise InputError(f"cannot listen on {host[:80]!r}: the host does not resolve ({why}); "
                         "give an address such as 127.0.0.1 or 0.0.0.0") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(2048)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise InputError(f"port {port} is in use on {host}; choose another with --port "
                             f"(say --port {port + 1 if port < 65535 else 8000})") from None
        if error.errno == errno.EACCES:
            raise InputError(f"port {port} needs administrator rights; choose one above 1023 with --port") from None
        if error.errno == errno.EADDRNOTAVAIL:
            raise InputError(f"cannot listen on {host}: not an address of this machine") from None
        raise InputError(f"cannot listen on {host} port {port}: {error.strerror or error}") from None
    return listener


@click.command("export")
@click.argument("batch")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="The web app's data folder (default: your user data folder).")
@click.option("--database", default=None, metavar="URL", help="The server's PostgreSQL database, if it uses one.")
@click.option("--out", type=OutPath(file_okay=False, path_type=Path), required=True,
              help="Folder to write manifest.json, answers/NNN.json and grades/NNN.json into.")
@click.option("--force", is_flag=True, help="Overwrite files in --out that already exist.")
def export_command(batch: str, data, database, out: Path, force: bool) -> None:
    """Write a web batch's saved answers and grades as answers@1 and grade@1 files, for the CLI.

    \b
    Example:
      attnsheet export batch-0003 --data ~/classes --out period3
      attnsheet grade period3/answers/*.json --manifest period3/manifest.json --out period3/grades
    """
    from generator.app.folders import export_batch

    store = data_store(data, database)
    try:
        saves = export_batch(store, batch, out, force)
    finally:
        store.close()
    say(f"wrote manifest.json and {saves} answers and grade{'s' if saves != 1 else ''} of {batch} to {out}")


@click.command("jobs")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="The web app's data folder (default: your user data folder).")
@click.option("--database", default=None, metavar="URL", help="The server's PostgreSQL database, if it uses one.")
@click.option("--cancel", "cancel", type=click.IntRange(1), default=None, metavar="ID",
              help="Cancel job ID: waiting, it never starts; running, it stops at its next page or part, "
                   "keeping nothing of it.")
def jobs_command(data, database, cancel: Optional[int]) -> None:
    """List the server's unfinished jobs (batches being made, piles being read), or cancel one.

    \b
    Example:
      attnsheet jobs --data ~/classes
      attnsheet jobs --data ~/classes --cancel 12
    """
    from generator.app.runner import cancel_job

    store = data_store(data, database)
    try:
        if cancel is not None:
            if store.job(cancel).finished:
                raise InputError(f"job {cancel} is {store.job(cancel).state} already: nothing was changed")
            job = cancel_job(store, cancel)
            say({"cancelled": f"job {job.id} is cancelled: nothing of it was kept",
                 "running": f"job {job.id} will stop at its next page or part: nothing of it will be kept"}.get(
                job.state, f"job {job.id} is {job.state} already: nothing was changed"))
            return
        jobs = store.unfinished()
        for job in jobs:
            progress = f"{job.done} of {job.total}" if job.total else "not begun"
            emit(f"{job.id:>6}  {job.kind:<7} {job.state:<8} {job.batch:<14} {progress}\n")
        if not jobs:
            say("no job is waiting or running")
    finally:
        store.close()


@click.command("worker")
@click.option("--database", required=True, metavar="URL",
              help="The server's PostgreSQL database (postgresql://…): its jobs are shared by every worker.")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="The server's data folder, shared with it (default: your user data folder).")
def worker_command(database: str, data) -> None:
    """Run the server's long work (batches to render, piles of scans to read) beside it, on any machine.

    Every worker on any machine that shares the server's PostgreSQL database and its data folder
    (a network share) takes jobs in turn, and renders parts of a batch another worker took, so
    one batch is spread over them all. A worker killed in the middle of a job leaves it to the
    others: it is done again from its start, once. Ctrl-C or SIGTERM stops it after its job.

    \b
    Example:
      attnsheet worker --database postgresql://attnsheet@db/attnsheet --data /srv/attnsheet
    """
    import os

    from generator.app.folders import folder_of
    from generator.app.queue import run_worker

    if not database.startswith(("postgresql://", "postgres://")):
        raise click.BadParameter("a PostgreSQL URL (postgresql://…): workers share its jobs; on the SQLite default "
                                 "the server runs its jobs itself", param_hint="--database")
    store = open_store(folder_of(data), database)
    try:
        run_worker(store, database, on_start=lambda: say(f"worker {os.getpid()}: running the jobs of {store.root} "
                                                         "(Ctrl-C stops)"))
    except KeyboardInterrupt:
        pass
    finally:
        store.close()
