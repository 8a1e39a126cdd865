"""The web app against an attacker: DNS rebinding, planted manifests, deep JSON, slow clients, long work."""

from __future__ import annotations

import io
import json
import re
import socket
import threading
import time
import urllib.request
import zipfile

import pytest
from waiting import made
import uvicorn
from starlette.testclient import TestClient

from generator.app.store import Store
from generator.web import app as web_app
from generator.web import guard
from generator.web.app import create_app


@pytest.fixture
def web(tmp_path):
    client = TestClient(
        create_app(Store(tmp_path / "data"), allowed_hosts=["attnsheet.school.example"]),
        base_url="http://127.0.0.1:8000",
        follow_redirects=False,
    )
    client.csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    return client


def make(web) -> str:
    return made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "5"}))


def test_a_page_under_another_name_is_refused_dns_rebinding(web):
    # The attacker's name resolves to 127.0.0.1: the page, its CSRF token, and every change are refused.
    r = web.get("/", headers={"host": "attacker.example:8000"})
    assert r.status_code == 421 and "csrf" not in r.text and "--allowed-host" in r.json()["error"]
    assert (
        web.post(
            "/batches", data={"csrf": web.csrf, "count": "1"}, headers={"host": "attacker.example:8000"}
        ).status_code
        == 421
    )
    # Addresses, localhost and the names the teacher allowed are this server.
    for host in (
        "127.0.0.1:8000",
        "[::1]:8000",
        "localhost:8000",
        "app.localhost",
        "ATTNSHEET.school.example",
        "192.168.1.20:8000",
    ):
        assert web.get("/", headers={"host": host}).status_code == 200, host


def test_a_change_from_another_sites_page_is_refused_even_with_the_token(web):
    for headers in (
        {"origin": "http://attacker.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"origin": "http://127.0.0.1:9999"},
    ):
        r = web.post("/batches", data={"csrf": web.csrf, "count": "1"}, headers=headers)
        assert r.status_code == 403 and "another site" in r.json()["error"], headers
    r = web.post("/batches", data={"csrf": web.csrf, "count": "1"}, headers={"origin": "http://127.0.0.1:8000"})
    assert r.status_code == 303  # the app's own page


def test_a_planted_manifest_names_no_file_outside_its_batch(tmp_path, run):
    # A folder planted in the data folder (as an older attnsheet kept batches), imported on start.
    folder = tmp_path / "data" / "batches" / "batch-0002"
    assert run("generate", "--count", "2", "--seed", "5", "--out", str(folder)).code == 0
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["sheets"][0]["worksheet"]["file"] = "/etc/passwd"
    manifest["sheets"][1]["worksheet"]["file"] = "../../../../../etc/hostname"
    manifest["sheets"][1]["key"]["file"] = "keys/../../../../etc/hostname"
    (folder / "link.pdf").symlink_to("/etc/hostname")
    manifest["sheets"][0]["key"]["file"] = "link.pdf"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    client = TestClient(create_app(Store(tmp_path / "data")), base_url="http://127.0.0.1")
    location = "/batches/batch-0002"
    assert client.get(location).status_code == 200
    for name in ("/etc/passwd", "%2Fetc%2Fpasswd", "../../../../../etc/hostname", "link.pdf"):
        assert client.get(f"{location}/files/{name}").status_code == 404, name
    page = client.get(location).text
    assert "/etc/passwd" not in page and "hostname" not in page
    names = zipfile.ZipFile(io.BytesIO(client.get(location + "/files.zip").content)).namelist()
    assert names == ["batch-0002/manifest.json"]  # plain names only: the planted ones are no files of the batch


def test_answers_nested_too_deep_are_one_clear_line(web):
    location = make(web)
    deep = b'{"heads": ' + b"[" * 50 + b"]" * 50 + b"}"
    r = web.post(
        f"/api{location}/sheets/1/grade",
        content=deep,
        headers={"x-csrf-token": web.csrf, "content-type": "application/json"},
    )
    assert r.status_code == 400 and "nested deeper" in r.json()["error"]
    deeper = b"[" * 200_000 + b"]" * 200_000  # past Python's recursion limit
    r = web.post(f"/api{location}/sheets/1/grade", content=deeper, headers={"x-csrf-token": web.csrf})
    assert r.status_code == 400 and r.json()["error"] == "the answers are not JSON"


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setattr(guard, "BODY_TIMEOUT", 0.5)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(Store(tmp_path / "data")), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def test_a_client_that_stops_sending_its_body_is_cut_off(served):
    with socket.create_connection(("127.0.0.1", served), timeout=10) as client:
        client.sendall(
            b"POST /batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\ncsrf="
        )
        reply = client.recv(4096).decode()  # answered within the bounded wait, not held open
    assert reply.startswith("HTTP/1.1 408")


def test_long_work_runs_beside_the_event_loop_not_on_it(served, monkeypatch):
    # A preview that takes as long as the test wants: meanwhile, static files and pages still answer.
    release, entered = threading.Event(), threading.Event()
    real = web_app.preview_html

    def slow_preview(*args, **kwargs):
        entered.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(web_app, "preview_html", slow_preview)
    base = f"http://127.0.0.1:{served}"
    results = {}
    worker = threading.Thread(
        target=lambda: results.update(preview=urllib.request.urlopen(base + "/preview?seed=2", timeout=60).status)
    )
    worker.start()
    assert entered.wait(30)
    try:
        assert urllib.request.urlopen(base + "/static/web.css", timeout=10).status == 200
        assert urllib.request.urlopen(base + "/", timeout=10).status == 200
    finally:
        release.set()
        worker.join(60)
    assert results["preview"] == 200


def test_practice_never_states_a_value_before_the_student_has_worked_for_it(web):
    """POST {} gives no value away; a cell's value is said only once the student has written it
    and every box of the grids it is made from (whatever is typed, right or wrong)."""
    import random

    from generator.core.registry import solve, step_inputs
    from generator.draw.rebuild import rebuild

    code = web.get("/practice?preset=easy").headers["location"].rsplit("/", 1)[1]
    problem = rebuild(code)
    url, headers = f"/api/practice/{code}/grade", {"x-csrf-token": web.csrf}
    nothing = web.post(url, json={}, headers=headers).json()
    said = [
        text
        for grids in nothing["explain"]["heads"]
        for grid in grids.values()
        for row in grid
        for text in (row if isinstance(row, list) else [row])
        if "from your own cells" in text
    ]
    assert said == []
    head = solve(problem).heads[0]
    true = {name: getattr(head, name) for name in ("Q", "K", "V", "scores", "scaled", "powers", "A", "Z")}
    true.update(Q_copy=head.Q, V_copy=head.V, K_T=[list(r) for r in zip(*head.K)], sums=list(head.sums))
    inputs = {
        name: [k[1] for k in ks if k[0] is not None and k[1] in true]
        for (h, name), ks in step_inputs(problem).items()
        if h == 1
    }
    rng, stated = random.Random(7), 0
    for _ in range(6):  # partly filled sheets, some cells wrong
        grids = {}
        for name, value in true.items():
            if name == "sums":
                grids[name] = [str(v) if rng.random() < 0.7 else None for v in value]
            else:
                grids[name] = [
                    [(str(v + 1) if rng.random() < 0.1 else str(v)) if rng.random() < 0.7 else None for v in row]
                    for row in value
                ]
        explain = web.post(url, json={"heads": [grids]}, headers=headers).json()["explain"]["heads"][0]

        def full(name):
            cells = grids[name] if name == "sums" else [v for row in grids[name] for v in row]
            return all(v is not None for v in cells)

        for name, grid in explain.items():
            rows = [grid] if name == "sums" else grid
            for i, row in enumerate(rows):
                for j, text in enumerate(row):
                    if "from your own cells" in text:
                        stated += 1
                        written = grids[name][j] if name == "sums" else grids[name][i][j]
                        assert written is not None and all(full(k) for k in inputs[name]), (name, i, j, text)
    assert stated > 0  # where the student has worked for it, the value is said


def test_a_web_batch_has_private_codes_only_the_servers_secret_rebuilds(web, tmp_path, run):
    location = make(web)
    manifest = json.loads(web.get(location + "/files/manifest.json").text)
    code = manifest["sheets"][0]["code"]
    assert web.get(f"/present/{code}").status_code == 404 and web.get(f"/practice/{code}").status_code == 404
    assert web.get(location + "/present/1").status_code == 200  # the teacher's projector: from the manifest
    secret = tmp_path / "data" / "secret"
    assert oct(secret.stat().st_mode & 0o777) == "0o600"
    assert run("key", code, "--out", str(tmp_path / "k")).code == 1
    r = run("key", code, "--secret-file", str(secret), "--out", str(tmp_path / "k"))
    assert r.code == 0, r.err
    rebuilt = json.loads(next((tmp_path / "k").glob("*-manifest.json")).read_text())["sheets"][0]
    assert rebuilt["problem"] == manifest["sheets"][0]["problem"]
    # A second server on the same folder keeps the same secret.
    assert Store(tmp_path / "data").secret == Store(tmp_path / "data").secret
