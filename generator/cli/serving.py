"""`attnsheet serve`: the web app, for teachers who never open a terminal."""

from __future__ import annotations

import errno
import secrets
import socket
import threading
import webbrowser
from pathlib import Path

import click

from generator.cli.common import OutPath, say
from generator.core.errors import InputError

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any other than this machine's needs the printed access token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Folder for batches, answers and grades (default: your user data folder).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A host name the server answers to (repeatable), e.g. the school's name for this machine; "
                   "addresses, localhost and --host's name always are.")
def serve_command(host: str, port: int, data, no_browser: bool, allowed_hosts: tuple[str, ...]) -> None:
    """Serve the web app: make batches, enter students' answers and grade them, in a browser.

    The batches, answers and grades are the CLI's own files (manifest.json, answers@1,
    grade@1) under --data/batches: `attnsheet grade` reads what the web app saved.

    \b
    Example:
      attnsheet serve --data ~/classes
      attnsheet serve --host 0.0.0.0 --port 8080 --no-browser --allowed-host attnsheet.school.example
    """
    import os

    import uvicorn

    from generator.output.batch import warm_renderer
    from generator.output.jobs import Workers
    from generator.output.pdf import renderer
    from generator.web.app import create_app, folder_of
    from generator.web.store import Store

    store = Store(folder_of(data))  # a data folder that cannot be made fails here, in one line
    listener = bind(host, port)  # as does a port in use or a host that does not resolve
    port = listener.getsockname()[1]  # the one the system chose, for --port 0
    token = None if host in LOOPBACK else secrets.token_urlsafe(24)
    # Names a browser may use for this server: a page of another name is refused (DNS rebinding).
    names = {*allowed_hosts, host}
    if host not in LOOPBACK:
        names |= {socket.gethostname(), socket.getfqdn()}
    # The warm process: WeasyPrint, the fonts and the stylesheet, loaded once; and a job process
    # per other CPU, as warm, so a batch is rendered on every core without any start-up.
    cpus = os.cpu_count() or 1
    workers = Workers(cpus - 1, warm_renderer) if cpus > 1 else None
    renderer()
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    say(f"serving {store.root} at {address} (Ctrl-C stops)")
    if not no_browser:
        threading.Timer(1.0, webbrowser.open, args=(address,)).start()
    try:
        app = create_app(store, token, workers, allowed_hosts=names)
        # Bounded: at most this many connections at once (beyond, 503), idle ones closed after 5 s.
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", limit_concurrency=1000,
                                               timeout_keep_alive=5))
        try:
            server.run(sockets=[listener])
        except KeyboardInterrupt:
            pass  # Ctrl-C, once the server has shut down cleanly: a normal end
    finally:
        listener.close()
        if workers is not None:
            workers.close()


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
