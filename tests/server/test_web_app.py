"""The web app over HTTP: every route, its errors, and its files read back by the CLI."""

from __future__ import annotations

import json
import re
import time

import pytest
from waiting import made
from procs import children, running, serve
from starlette.testclient import TestClient

from generator.app.store import Store
from generator.web.app import create_app


@pytest.fixture
def web(tmp_path):
    client = TestClient(create_app(Store(tmp_path / "data")), base_url="http://127.0.0.1", follow_redirects=False)
    client.csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    return client


def make(web, **fields) -> str:
    form = {"csrf": web.csrf, "count": "2", "seed": "5", **fields}
    return made(web, web.post("/batches", data=form))


def test_every_page_is_locked_down(web):
    r = web.get("/")
    assert r.status_code == 200 and "New class" in r.text
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    # Each field in a teacher's words with its default, no command line's flag (issue 56, item 1).
    form = r.text[r.text.index('id="options"') : r.text.index('id="only-here"') if 'id="only-here"' in r.text else None]
    assert "Tokens n." in form and "(default: 4)" in form and not re.search(r"--[a-z]", form), re.findall(
        r".{40}--[a-z].{20}", form
    )
    assert r.text.index("Your classes") < r.text.index("New class") < r.text.index('id="options"')


def test_a_batch_made_through_the_form(web, tmp_path):
    location = make(web, title="<b>Period 3</b>")
    page = web.get(location)
    assert page.status_code == 200 and "worksheets.pdf" in page.text and "answer-keys.pdf" in page.text
    pdf = web.get(location + "/files/worksheets.pdf")
    assert (
        pdf.status_code == 200 and pdf.content.startswith(b"%PDF") and pdf.headers["content-type"] == "application/pdf"
    )
    manifest = json.loads(web.get(location + "/files/manifest.json").text)
    assert len(manifest["sheets"]) == 2 and manifest["seed"] == 5
    assert manifest["settings"]["title"] == "<b>Period 3</b>"  # data, escaped wherever it is shown


def test_bad_options_are_the_clis_messages_beside_their_fields(web):
    r = web.post("/batches", data={"csrf": web.csrf, "tokens": "13", "max_score": "", "count": "x"})
    assert r.status_code == 400
    assert "Invalid value for “Tokens”: 13 is not in the range 1&lt;=x&lt;=12." in r.text
    assert 'id="error-tokens"' in r.text and 'id="error-count"' in r.text
    r = web.post("/batches", data={"csrf": web.csrf, "tokens": "6", "max_sum": "10"})
    assert r.status_code == 400 and "cannot draw" in r.text and 'id="error-form"' in r.text


def test_state_changing_requests_need_the_csrf_token(web):
    assert web.post("/batches", data={"count": "1"}).status_code == 403
    assert web.post("/batches", data={"csrf": "forged", "count": "1"}).status_code == 403
    location = make(web)
    assert web.post(f"/api{location}/sheets/1/grade", json={}).status_code == 403


@pytest.mark.parametrize(
    "path",
    [
        "/batches/batch-9999",
        "/batches/..%2F..%2Fetc",
        "/batches/batch-0001/files/../../x",
        "/batches/batch-0001/files/answers/001.json",
        "/batches/batch-0001/sheets/99",
        "/batches/batch-0001/sheets/1x",
        "/static/../app.py",
        "/nowhere",
    ],
)
def test_unknown_and_path_like_ids_are_clean_404s(web, path):
    make(web)
    r = web.get(path)
    assert r.status_code == 404 and "Traceback" not in r.text


def test_oversized_and_lengthless_bodies_are_refused(web):
    make(web)
    r = web.post(
        "/api/batches/batch-0001/sheets/1/grade", content=b"x" * (1024 * 1024 + 1), headers={"x-csrf-token": web.csrf}
    )
    assert r.status_code == 413 and "too large" in r.json()["error"]


def test_a_public_host_needs_the_access_token(tmp_path):
    client = TestClient(create_app(Store(tmp_path / "data"), token="s3cret"), base_url="http://127.0.0.1")
    assert client.get("/").status_code == 401
    assert client.get("/?token=wrong").status_code == 401
    r = client.get("/?token=s3cret")
    assert r.status_code == 200 and "attnsheet_token" in r.headers["set-cookie"]
    assert client.get("/").status_code == 200  # the cookie carries it from then on


def test_entering_a_sheet_grades_it_and_saves_what_the_cli_reads(web, tmp_path, run):
    location = make(web)
    page = web.get(location + "/sheets/1")
    assert page.status_code == 200 and page.text.count('class="cell"') == 152
    manifest = json.loads(web.get(location + "/files/manifest.json").text)
    sheet = manifest["sheets"][0]
    h = sheet["solution"]["heads"][0]
    answers = {
        "heads": [
            {
                **{k: h[k] for k in ("Q", "K", "V", "scores", "scaled", "powers", "sums", "A", "Z")},
                "Q_copy": h["Q"],
                "K_T": [list(r) for r in zip(*h["K"])],
                "V_copy": h["V"],
            }
        ]
    }
    answers["heads"][0]["Q"] = [row[:] for row in h["Q"]]
    answers["heads"][0]["Q"][0][0] += 1  # one slip
    headers = {"x-csrf-token": web.csrf}
    graded = web.post(f"/api{location}/sheets/1/grade", json=answers, headers=headers).json()
    assert graded["format"] == "attnsheet/grade@1" and (graded["points"], graded["total"]) == (151, 152)
    assert graded["cells"]["heads"][0]["Q"][0][0] == "wrong"
    saved = web.post(f"/api{location}/sheets/1/save", json=answers, headers=headers).json()
    assert saved == {"saved": True, "points": 151, "total": 152, "rev": 1, "kept_newer": False}
    assert "151/152" in web.get(location).text  # the gradebook shows it
    # `export` writes what was saved as the CLI's files; `grade` reads them to the same grade.
    folder = tmp_path / "exported"
    r = run("export", "batch-0001", "--data", str(tmp_path / "data"), "--out", str(folder))
    assert r.code == 0, r.err
    r = run("grade", str(folder / "answers" / "001.json"), "--manifest", str(folder / "manifest.json"), "--json")
    assert r.code == 0 and json.loads(r.out) == json.loads((folder / "grades" / "001.json").read_text())
    # The class page: the gradebook, the item analysis and the class's files, from what was saved.
    page = web.get(location + "/class")
    assert page.status_code == 200 and "151/152" in page.text and "Q, copied" in page.text
    csv_text = web.get(location + "/class/gradebook.csv").text
    assert csv_text.splitlines()[1].split(",")[4:6] == ["151", "152"]
    assert web.get(location + "/class/report.pdf").content.startswith(b"%PDF")
    assert "Class report" in web.get(location + "/class/report.html").text
    assert web.get(location + "/class/001.pdf").content.startswith(b"%PDF")
    assert web.get(location + "/class/002.pdf").status_code == 404  # not saved
    assert web.get(location + "/class/../../x").status_code == 404
    again = web.get(location + "/sheets/1")
    assert json.loads(re.search(r'data-saved="([^"]*)"', again.text).group(1).replace("&#34;", '"'))["heads"]


def test_the_preview_is_the_sheets_own_html_and_follows_the_options(web):
    medium = web.get("/preview?seed=3")
    easy = web.get("/preview?seed=3&preset=easy")
    assert medium.status_code == easy.status_code == 200 and medium.text != easy.text
    # The kind is printed in capitals, as the PDF prints it (the flowing HTML's CSS capitalises it).
    assert "WORKSHEET" in medium.text.upper() and "ANSWER KEY" in web.get("/preview?seed=3&key=1").text.upper()
    assert "frame-ancestors 'self'" in medium.headers["content-security-policy"]
    assert "script-src" not in medium.headers["content-security-policy"]  # the sheet runs nothing
    assert web.get("/preview/fonts/Inter-Regular.subset.otf").status_code == 200
    assert web.get("/preview/fonts/..%2F..%2Fsheet.css").status_code == 404
    bad = web.get("/preview?tokens=99")
    assert bad.status_code == 400 and "“Tokens”" in bad.text


def test_practice_draws_a_sheet_and_explains_each_cell(web):
    r = web.get("/practice?preset=easy")
    assert r.status_code == 303 and r.headers["location"].startswith("/practice/")
    code = r.headers["location"].rsplit("/", 1)[1]
    page = web.get(f"/practice/{code}")
    assert page.status_code == 200 and page.text.count('class="cell"') == 152 and f"attnsheet key {code}" in page.text
    graded = web.post(
        f"/api/practice/{code}/grade",
        json={"heads": [{"Q": [[9, None, None, None]] + [[None] * 4] * 2}]},
        headers={"x-csrf-token": web.csrf},
    ).json()
    assert graded["cells"]["heads"][0]["Q"][0][0] in ("wrong", "correct")
    # Each cell's rule from its step's op, its inputs named as the sheet names them.
    assert graded["explain"]["heads"][0]["Q"][0][0].startswith("row 1 of W_Q · column 1 of X")
    assert graded["explain"]["heads"][0]["scores"][1][2].startswith("row 2 of Kᵀ · column 3 of Q")
    assert web.post(f"/api/practice/{code}/grade", json={}).status_code == 403
    assert web.get("/practice/NOT-A-CODE").status_code == 404
    assert web.get("/practice?preset=insane").status_code == 400


def test_rosters_own_problems_overrides_and_split_through_the_form(web, tmp_path):
    from conftest import EXAMPLES

    form = {"csrf": web.csrf, "seed": "4", "split": "on"}
    roster = ("roster", ("class.csv", b"name,group\nAna Lopez,3B\nBen Ode,3B\n", "text/csv"))
    location = made(web, web.post("/batches", data=form, files=[roster]))
    manifest = json.loads(web.get(location + "/files/manifest.json").text)
    assert [s["student"]["name"] for s in manifest["sheets"]] == ["Ana Lopez", "Ben Ode"]
    assert manifest["sheets"][0]["worksheet"]["file"] == "worksheets/01-ana-lopez.pdf"
    zipped = web.get(location + "/files.zip")
    import io
    import zipfile

    names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
    assert any(n.endswith("worksheets/01-ana-lopez.pdf") for n in names) and any(
        n.endswith("manifest.json") for n in names
    )
    problem = ("problem", ("classic.json", (EXAMPLES / "classic.json").read_bytes(), "application/json"))
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2"}, files=[problem]))
    own = json.loads(web.get(location + "/files/manifest.json").text)
    assert own["options"]["problem_file"] == "(uploaded)" and len({s["code"] for s in own["sheets"]}) == 2
    r = web.post("/batches", data={"csrf": web.csrf, "x_range": "0..10"})
    assert r.status_code == 400 and "Invalid value for “Inputs from … to …”" in r.text
    big = ("roster", ("big.csv", b"name\n" + b"x" * (1024 * 1024 + 10), "text/csv"))
    assert web.post("/batches", data={"csrf": web.csrf}, files=[big]).status_code == 413
    bad = ("roster", ("bad.csv", b"first,last\nA,B\n", "text/csv"))
    r = web.post("/batches", data={"csrf": web.csrf}, files=[bad])
    assert r.status_code == 400 and "no &#39;name&#39; column" in r.text


def test_blank_templates_download_from_the_form_and_are_not_stored(web):
    import io

    from pypdf import PdfReader

    roster = ("roster", ("class.csv", b"name\nAna Lopez\nBen Ode\n", "text/csv"))
    r = web.post("/batches", data={"csrf": web.csrf, "blank": "on", "heads": "2", "paper": "letter"}, files=[roster])
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf", r.text
    assert 'filename="blank-templates.pdf"' in r.headers["content-disposition"]
    pages = PdfReader(io.BytesIO(r.content)).pages
    text = "\n".join(page.extract_text() for page in pages)
    assert "Ana Lopez" in text and "Ben Ode" in text and "Head 2" in text
    assert round(float(pages[0].mediabox.width)) == 612  # letter
    assert "None yet" in web.get("/").text  # nothing stored: there is no key or manifest to grade
    # The preview shows the template, and its "key" is the template too (there is none).
    preview = web.get("/preview?blank=on&key=1")
    text = preview.text.split("<body>")[1].upper()  # what the page shows
    assert preview.status_code == 200 and "WORKSHEET" in text and "ANSWER KEY" not in text
    refused = web.post("/batches", data={"csrf": web.csrf, "blank": "on", "worked": "on"})
    assert (
        refused.status_code == 400
        and 'id="error-worked"' in refused.text
        and "drop “Worked example on keys”" in refused.text
    )
    from conftest import EXAMPLES

    problem = ("problem", ("classic.json", (EXAMPLES / "classic.json").read_bytes(), "application/json"))
    refused = web.post("/batches", data={"csrf": web.csrf, "blank": "on"}, files=[problem])
    assert refused.status_code == 400 and 'id="error-blank"' in refused.text


def test_kept_workers_render_the_same_bytes_and_survive_a_killed_process(tmp_path):
    import multiprocessing
    import os
    import signal

    from generator.core.student import Student
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.app.batches import make_sheets
    from generator.output.batch import Batch, generate, warm_renderer
    from generator.output.jobs import Workers
    from generator.sheet.model import Settings

    before = {p.pid for p in multiprocessing.active_children()}
    sheets = make_sheets(DrawOptions(), 8, [Student()] * 10)
    settings = Settings(timestamp=0)
    workers = Workers(1, warm_renderer)
    try:

        def made(name: str, **kw) -> bytes:
            generate(Batch(sheets=sheets, settings=settings, out=tmp_path / name, seed=8, **kw))
            return (tmp_path / name / "answer-keys.pdf").read_bytes()

        alone = made("alone", jobs=1)
        (helper,) = [p.pid for p in multiprocessing.active_children() if p.pid not in before]
        assert made("kept", jobs=1, workers=workers) == alone
        os.kill(helper, signal.SIGKILL)  # a worker dies between batches: the next batch starts a fresh one
        time.sleep(0.3)
        assert made("again", jobs=1, workers=workers) == alone
    finally:
        workers.close()


def test_a_servers_processes_run_their_libraries_on_one_thread_each():
    """A server's process (and each kept job process, each worker) reads on one core: numpy's BLAS
    and OpenCV start no threads of their own to fight the other processes for the cores."""
    import subprocess
    import sys

    probe = (
        "import numpy, cv2, threadpoolctl\n"
        "from generator.app.serving import warm_process\n"
        "warm_process()\n"
        "print(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()}), cv2.getNumThreads())\n"
    )
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert said.stdout.split("\n")[-2] == "[1] 1", said.stdout + said.stderr


def test_serve_is_a_real_server_that_ctrl_c_stops_with_its_workers(tmp_path):
    import os
    import signal
    import urllib.request

    server, port, home = serve(tmp_path / "data")
    try:
        assert "New class" in home
        workers = children(server.pid)
        assert len(workers) >= min(1, (os.cpu_count() or 1) - 1)  # warm job processes, one per other CPU
        csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)
        form = f"csrf={csrf}&count=3&seed=2".encode()
        answer = urllib.request.urlopen(
            urllib.request.Request(f"http://127.0.0.1:{port}/batches", data=form, method="POST"), timeout=60
        )
        assert answer.status == 200 and "/batches/batch-0001" in answer.url
        deadline = time.monotonic() + 60  # rendered by the server's job runner, with its warm workers
        while "answer-keys.pdf" not in urllib.request.urlopen(answer.url, timeout=60).read().decode():
            assert time.monotonic() < deadline, "the batch was not made"
            time.sleep(0.1)
        assert (tmp_path / "data" / "batches" / "batch-0001" / "answer-keys.pdf").is_file()
        server.send_signal(signal.SIGINT)
        assert server.wait(30) == 0
        said = server.stderr.read()
        assert "serving" in said and "Traceback" not in said
        time.sleep(0.5)
        assert not [pid for pid in workers if running(pid)]  # its job processes stopped with it
    finally:
        if server.poll() is None:
            server.kill()


def test_a_shape_too_big_to_print_is_the_clis_message_not_a_server_error(web):
    shape = {"heads": "4", "d_v": "6", "d_model": "16", "output_projection": "on", "seed": "3"}
    r = web.post("/batches", data={"csrf": web.csrf, **shape})
    assert r.status_code == 400 and "pt tall where a landscape page has 479" in r.text and 'id="error-form"' in r.text
    assert "None yet" in r.text  # no batch stored
    preview = web.get("/preview", params=shape)
    assert preview.status_code == 400 and "use fewer “Heads”" in preview.text


def test_the_entry_form_places_the_grids_where_the_printed_sheet_does():
    from generator.core.registry import solve
    from generator.kinds.attention.draw.presets import DrawOptions
    from generator.draw.search import draw
    from generator.sheet.entry import form

    # A big row-convention sheet prints S', the powers and the sums below the scores: so does the form.
    for options, stacked in (
        (DrawOptions(tokens=8, d_model=8, max_sum=2000, convention="row"), True),
        (DrawOptions(convention="row"), False),
    ):
        problem = draw(options, 1)[0]
        boxes = {b.step: b for b in form(problem, solve(problem)).boxes if b.head == 1}
        below = boxes["scaled"].y > boxes["scores"].y and boxes["scaled"].x == boxes["scores"].x
        beside = boxes["scaled"].y == boxes["scores"].y and boxes["scaled"].x > boxes["scores"].x
        assert (below, beside) == (stacked, not stacked), options


def test_a_form_sent_back_with_an_error_keeps_its_files_held_by_the_server(web):
    roster = ("roster", ("class.csv", "name\nZoë Álvarez\nBen Ode\n".encode(), "text/csv"))
    r = web.post("/batches", data={"csrf": web.csrf, "tokens": "13"}, files=[roster])
    assert r.status_code == 400 and 'id="error-tokens"' in r.text
    held = re.search(r'name="held_roster" id="held-roster" value="([0-9a-f]{32})"', r.text).group(1)
    assert "Kept by the server: 2 students, the first Zoë Álvarez" in r.text
    # Sent again with the field fixed and no file chosen: the held roster names the sheets.
    location = made(web, web.post("/batches", data={"csrf": web.csrf, "tokens": "4", "seed": "2", "held_roster": held}))
    manifest = json.loads(web.get(location + "/files/manifest.json").text)
    assert [s["student"]["name"] for s in manifest["sheets"]] == ["Zoë Álvarez", "Ben Ode"]
    # An id the store never gave (or a path) is no file: said beside the field, nothing read.
    for forged in ("../../etc/passwd", "0" * 32):
        r = web.post("/batches", data={"csrf": web.csrf, "held_roster": forged})
        assert r.status_code == 400 and 'id="error-roster"' in r.text and "choose it again" in r.text


def test_a_file_chosen_is_held_at_once_and_the_preview_shows_it(web):
    from conftest import EXAMPLES

    headers = {"x-csrf-token": web.csrf}
    assert web.post("/api/uploads/roster", content=b"name\nAna\n").status_code == 403  # no token
    assert web.post("/api/uploads/secrets", content=b"x", headers=headers).status_code == 404
    bad = web.post("/api/uploads/roster", content=b"first\nA\n", headers=headers)
    assert bad.status_code == 400 and "no 'name' column" in bad.json()["error"]
    roster = web.post("/api/uploads/roster", content="name\nZoë Álvarez\n".encode(), headers=headers).json()
    assert roster["summary"] == "1 student, the first Zoë Álvarez"
    preview = web.get("/preview", params={"seed": "3", "held_roster": roster["id"]})
    assert preview.status_code == 200 and "Zoë Álvarez" in preview.text
    problem = web.post("/api/uploads/problem", content=(EXAMPLES / "classic.json").read_bytes(), headers=headers).json()
    preview = web.get("/preview", params={"held_problem": problem["id"], "key": "1"})
    classic = json.loads((EXAMPLES / "classic.json").read_text())
    assert preview.status_code == 200 and str(classic["X"][0][0]) in preview.text
    # Errors come back as data for the form to place beside each field, on a page it may frame.
    bad = web.get("/preview", params={"tokens": "13", "heads": "x"})
    assert bad.status_code == 400 and bad.headers["x-frame-options"] == "SAMEORIGIN"
    errors = json.loads(
        re.search(r'data-errors="([^"]*)"', bad.text)
        .group(1)
        .replace("&#34;", '"')
        .replace("&quot;", '"')
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
    )
    assert set(errors) == {"tokens", "heads"}


def test_pages_speak_the_batch_language_or_the_browsers(web, tmp_path):
    assert "New class" in web.get("/").text
    spanish = web.get("/", headers={"accept-language": "es-ES,es;q=0.9,en;q=0.5"})
    assert "Nueva clase" in spanish.text and '<html lang="es">' in spanish.text
    assert 'value="es" selected' in spanish.text  # a Spanish reader prints Spanish sheets unless they choose
    assert "New class" in web.get("/", headers={"accept-language": "fr, en;q=0.3, es;q=0.2"}).text
    chosen = web.get("/?ui=es")
    assert "Nueva clase" in chosen.text and chosen.cookies.get("attnsheet_lang") == "es"
    assert "Nueva clase" in web.get("/").text  # the choice is kept
    web.cookies.clear()
    # A batch's pages are in its language, whatever the browser asks for.
    location = make(web, lang="es")
    batch = web.get(location, headers={"accept-language": "en"}).text
    assert "Hojas" in batch and "introducir respuestas" in batch and "Sheets" not in batch
    entry = web.get(location + "/sheets/1").text
    assert "Empezar desde el solucionario" in entry and "Cabeza" not in entry  # one head: no head titles
    assert "guardado (@)" in entry  # the page script's words too
    english = make(web, heads="2", d_k="2", d_v="2")
    entry = web.get(english + "/sheets/1").text
    assert "Head 1" in entry and "Head 2" in entry and ">x1<" in entry and ">k1<" in entry
    assert web.get(location + "/class").text.count("Clase de") == 1
    # No page shows where the server keeps its files.
    assert str(tmp_path) not in web.get(location).text and str(tmp_path) not in web.get(location + "/class").text


def test_a_batch_is_named_archived_and_deleted_with_nothing_else_lost(web, tmp_path):
    keep, gone = make(web, title="Period 3"), make(web, kind="ffn")
    home = web.get("/").text
    assert "Period 3" in home and "The feed-forward layer" in home and "Self-attention" in home  # its exercise
    r = web.post(keep + "/manage", data={"csrf": web.csrf, "action": "rename", "label": "3B <i>algebra</i>"})
    assert r.status_code == 303
    assert (
        "3B &lt;i&gt;algebra&lt;/i&gt;" in web.get("/").text and "3B &lt;i&gt;algebra&lt;/i&gt;" in web.get(keep).text
    )
    web.post(keep + "/manage", data={"csrf": web.csrf, "action": "archive"})
    home = web.get("/").text
    assert "algebra" not in home and "1 archived class" in home
    assert "algebra" in web.get("/?archived=1").text
    assert web.get(keep + "/files/manifest.json").status_code == 200  # put away, nothing changed
    web.post(keep + "/manage", data={"csrf": web.csrf, "action": "unarchive"})
    assert "algebra" in web.get("/").text
    # A delete needs the batch's id typed again; it removes that batch alone.
    name = gone.rsplit("/", 1)[1]
    refused = web.post(gone + "/manage", data={"csrf": web.csrf, "action": "delete", "confirm": "yes"})
    assert refused.status_code == 400 and "nothing was deleted" in refused.text
    assert web.get(gone).status_code == 200
    r = web.post(gone + "/manage", data={"csrf": web.csrf, "action": "delete", "confirm": name})
    assert r.status_code == 303 and r.headers["location"] == "/"
    assert web.get(gone).status_code == 404 and not (tmp_path / "data" / "batches" / name).exists()
    assert web.get(keep + "/files/worksheets.pdf").status_code == 200 and name not in web.get("/").text
    assert (
        web.post(keep + "/manage", data={"csrf": web.csrf, "action": "rename", "label": "x" * 121}).status_code == 400
    )


def test_the_spanish_form_says_every_choice_in_spanish(web):
    from generator.app.screens import translations
    from generator.app.settings import kind_choice_words
    from generator.web.batches import CHOICE_WORDS

    page = web.get("/?ui=es").text
    options = dict(re.findall(r'<option value="([^"]+)"[^>]*>([^<]+)</option>', page))
    spanish = translations("es").gettext
    for name, choices in {**CHOICE_WORDS, **kind_choice_words()}.items():
        for value, words in choices.items():
            if name in ("paper", "lang"):
                continue  # a paper's and a language's own names
            shown = re.search(rf'<select id="f-{name}"[^>]*>(.*?)</select>', page, re.S).group(1)
            assert f">{spanish(words)}</option>" in shown.replace("&#34;", '"').replace("&#39;", "'"), (name, value)
            assert spanish(words) != words or words in ("total",), (name, words)
    assert options.get("es") == "Español"
    # Nor does a field's help or default name a choice by its value (the command line's word).
    for name, choices in {**CHOICE_WORDS, **kind_choice_words()}.items():
        field = re.search(rf'<select id="f-{name}".*?<span class="help">(.*?)</span>', page, re.S).group(1)
        for value, words in choices.items():
            if spanish(words) != value:
                assert not re.search(rf"(^|[\s(;:]){re.escape(value)}(:|\))", field), (name, value, field)


def test_a_class_is_named_by_its_teacher_or_its_class_list_and_its_files_after_it(web):
    """Issue 56, item 1: classes were called batch-0001…, every gradebook gradebook*.csv."""
    import datetime

    today = datetime.date.today().isoformat()
    roster = ("roster", ("3B algebra.csv", b"name\nAna\nBen\n", "text/csv"))
    listed = made(web, web.post("/batches", data={"csrf": web.csrf, "seed": "5"}, files=[roster]))
    named = made(web, web.post("/batches", data={"csrf": web.csrf, "seed": "5", "count": "2", "label": " Monday  3B "}))
    plain = make(web)
    home = web.get("/").text
    assert f"3B algebra, {today}" in home and "Monday 3B" in home and f"Self-attention, {today}" in home
    assert "batch-0001</a>" not in home
    assert home.index("Your classes") < home.index("Monday 3B") < home.index("New class")
    files = {
        "gradebook": web.get(listed + "/class/gradebook.csv"),
        "handout": web.get(named + "/handout.pdf"),
        "zip": web.get(plain + "/files.zip"),
    }
    assert f'filename="3b-algebra-{today}-gradebook.csv"' in files["gradebook"].headers["content-disposition"]
    assert 'filename="monday-3b-handout.pdf"' in files["handout"].headers["content-disposition"]
    assert f'filename="self-attention-{today}-files.zip"' in files["zip"].headers["content-disposition"]
