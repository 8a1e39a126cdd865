"""`attnsheet serve`: the web app, for teachers who never open a terminal."""

from __future__ import annotations

import secrets
import threading
import webbrowser
from pathlib import Path

import click

from generator.cli.common import OutPath, say

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; any other than this machine's needs the printed access token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--data", type=OutPath(file_okay=False, path_type=Path), default=None,
              help="Folder for batches, answers and grades (default: your user data folder).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
def serve_command(host: str, port: int, data, no_browser: bool) -> None:
    """Serve the web app: make batches, enter students' answers and grade them, in a browser.

    The batches, answers and grades are the CLI's own files (manifest.json, answers@1,
    grade@1) under --data/batches: `attnsheet grade` reads what the web app saved.

    \b
    Example:
      attnsheet serve --data ~/classes
      attnsheet serve --host 0.0.0.0 --port 8080 --no-browser
    """
    import os

    import uvicorn

    from generator.output.batch import warm_renderer
    from generator.output.jobs import Workers
    from generator.output.pdf import renderer
    from generator.web.app import create_app, folder_of
    from generator.web.store import Store

    store = Store(folder_of(data))
    token = None if host in LOOPBACK else secrets.token_urlsafe(24)
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
        uvicorn.run(create_app(store, token, workers), host=host, port=port, log_level="warning")
    finally:
        if workers is not None:
            workers.close()
