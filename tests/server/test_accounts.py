"""Teachers' accounts, on both stores: each teacher sees only their own classes (and those shared),
a disabled teacher is out at once, passwords are never kept or shown in clear, sign-in is limited."""

from __future__ import annotations

import json
import logging
import re

import pytest
from waiting import made
from starlette.routing import Route
from starlette.testclient import TestClient

from generator.app.accounts import SESSION_FOR, AccountError
from generator.app.store import Store
from generator.web.app import create_app

ANA, BO = "ana-Secret-4711-pw", "bo-Hidden-0815-pw"
"""The teachers' passwords: strings that appear nowhere else, so that finding one anywhere is a leak."""


def client(app, local: bool = False) -> TestClient:
    return TestClient(
        app,
        base_url="http://127.0.0.1",
        follow_redirects=False,
        client=("127.0.0.1", 50000) if local else ("198.51.100.7", 50000),
    )


def csrf(web: TestClient, path: str = "/") -> str:
    page = web.get(path)
    assert page.status_code == 200, (path, page.status_code, page.text[:300])
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def sign_in(app, name: str, password: str) -> TestClient:
    web = client(app)
    r = web.post("/signin", data={"csrf": csrf(web, "/signin"), "name": name, "password": password, "next": "/"})
    assert r.status_code == 303 and r.headers["location"] == "/", r.text[:300]
    web.csrf = csrf(web)
    return web


def make(web: TestClient) -> str:
    return made(web, web.post("/batches", data={"csrf": web.csrf, "count": "2", "seed": "5"})).rsplit("/", 1)[1]


@pytest.fixture
def school(tmp_path, database):
    """A store with a class made before accounts, then two teachers (ana the first admin), and its app."""
    store = Store(tmp_path / "data", database)
    app = create_app(store)
    before = make_unsigned(app)
    store.add_teacher("ana", ANA, admin=True)
    store.add_teacher("bo", BO)
    yield store, app, before
    store.close()


def make_unsigned(app) -> str:
    web = client(app)
    web.csrf = csrf(web)
    return make(web)


def batch_routes(app) -> list[Route]:
    return [route for route in app.routes if isinstance(route, Route) and "{batch_id}" in route.path]


def filled(path: str, batch: str) -> str:
    values = {
        "batch_id": batch,
        "index": "1",
        "name": "worksheets.pdf",
        "rev": "1",
        "run": "run-1",
        "job_id": "1",
        "kind": "crops",
        "name:path": "worksheets.pdf",
    }
    return re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], path)


def test_two_teachers_see_only_their_own_classes(school):
    store, app, before = school
    ana, bo = sign_in(app, "ana", ANA), sign_in(app, "bo", BO)
    mine, theirs = make(ana), make(bo)
    assert store.batch(mine).owner == store.teacher("ana").id and store.batch(theirs).owner == store.teacher("bo").id
    home_ana, home_bo = ana.get("/").text, bo.get("/").text
    # The class made before accounts is the first admin's.
    assert mine in home_ana and before in home_ana and theirs not in home_ana
    assert theirs in home_bo and mine not in home_bo and before not in home_bo
    code = store.batch(mine).sheets[0]["code"]
    routes = batch_routes(app)
    assert len(routes) >= 18  # every batch route of the app, none left out
    for route in routes:
        path = filled(route.path, mine)
        for method in sorted(route.methods - {"HEAD"}):
            r = bo.request(method, path, data={"csrf": bo.csrf, "feedback": "full"}, headers={"x-csrf-token": bo.csrf})
            assert r.status_code in (403, 404), (method, path, r.status_code)
            assert code not in r.text and mine not in r.text.replace(path, "")
    # Their owner reaches them all the same.
    for path in ("", "/class", "/sheets/1", "/review", "/files/manifest.json", "/files.zip"):
        assert ana.get(f"/batches/{mine}{path}").status_code == 200, path
    assert ana.get(f"/batches/{theirs}").status_code == 404


def test_a_class_shared_to_read_then_to_write_then_no_longer(school):
    store, app, _ = school
    ana, bo = sign_in(app, "ana", ANA), sign_in(app, "bo", BO)
    mine = make(ana)
    page = ana.get(f"/batches/{mine}").text
    assert "Shared with no one." in page and "<option>bo</option>" in page
    share = ana.post(f"/batches/{mine}/shares", data={"csrf": ana.csrf, "name": "bo", "mode": "read"})
    assert share.status_code == 303
    assert "bo</b> (to read)" in ana.get(f"/batches/{mine}").text
    assert mine in bo.get("/").text
    shown = bo.get(f"/batches/{mine}")
    assert shown.status_code == 200 and "ana's class, shared with you to read." in shown.text
    assert bo.get(f"/batches/{mine}/class").status_code == 200
    # No control that would fail after the click (issue 56, item 5): said instead what reading allows.
    pages = {
        "batch": shown.text,
        "class": bo.get(f"/batches/{mine}/class").text,
        "entry": bo.get(f"/batches/{mine}/sheets/1").text,
    }
    assert all('id="read-only"' in page for page in pages.values())
    assert 'action="/batches/%s/scans"' % mine not in pages["batch"]
    assert 'name="action" value="save"' not in pages["class"] and 'value="close"' not in pages["class"]
    assert (
        'id="save"' not in pages["entry"] and 'id="fromkey"' not in pages["entry"] and 'data-save=""' in pages["entry"]
    )
    owner = {
        "batch": ana.get(f"/batches/{mine}").text,
        "class": ana.get(f"/batches/{mine}/class").text,
        "entry": ana.get(f"/batches/{mine}/sheets/1").text,
    }
    assert not any('id="read-only"' in page for page in owner.values())
    assert 'id="save"' in owner["entry"] and 'value="close"' in owner["class"] and "/scans" in owner["batch"]
    graded = bo.post(f"/api/batches/{mine}/sheets/1/grade", content=json.dumps({}), headers={"x-csrf-token": bo.csrf})
    assert graded.status_code == 200  # grading what is typed changes nothing
    policy = bo.post(f"/batches/{mine}/policy", data={"csrf": bo.csrf, "feedback": "full"})
    assert policy.status_code == 403 and "read only" in policy.text
    saved = bo.post(f"/api/batches/{mine}/sheets/1/save", content=json.dumps({}), headers={"x-csrf-token": bo.csrf})
    assert saved.status_code == 403 and store.saved(store.batch(mine)) == {}
    # Only the owner shares.
    assert bo.post(f"/batches/{mine}/shares", data={"csrf": bo.csrf, "name": "bo", "mode": "write"}).status_code == 403
    ana.post(f"/batches/{mine}/shares", data={"csrf": ana.csrf, "name": "bo", "mode": "write"})
    assert bo.post(f"/batches/{mine}/policy", data={"csrf": bo.csrf, "feedback": "full"}).status_code in (200, 303)
    assert store.batch(mine).feedback == "full"
    ana.post(f"/batches/{mine}/shares", data={"csrf": ana.csrf, "name": "bo", "mode": "none"})
    assert bo.get(f"/batches/{mine}").status_code == 404 and mine not in bo.get("/").text
    refused = ana.post(f"/batches/{mine}/shares", data={"csrf": ana.csrf, "name": "nobody", "mode": "read"})
    assert refused.status_code == 400 and "no teacher is named nobody" in refused.text


def test_a_disabled_teacher_is_out_at_once(school):
    store, app, _ = school
    ana, bo = sign_in(app, "ana", ANA), sign_in(app, "bo", BO)
    assert bo.get("/").status_code == 200
    r = ana.post("/account", data={"csrf": ana.csrf, "action": "disable", "name": "bo"})
    assert r.status_code == 200 and "bo is disabled" in r.text
    gone = bo.get("/")
    assert gone.status_code == 303 and gone.headers["location"].startswith("/signin")
    assert bo.post("/api/uploads/roster", content=b"x", headers={"x-csrf-token": bo.csrf}).status_code == 401
    again = client(app)
    r = again.post("/signin", data={"csrf": csrf(again, "/signin"), "name": "bo", "password": BO})
    assert r.status_code == 400 and "disabled" in r.text
    # Only an admin disables, and the last admin stays.
    bo_store = ana.post("/account", data={"csrf": ana.csrf, "action": "enable", "name": "bo"})
    assert "bo may sign in again" in bo_store.text
    bo = sign_in(app, "bo", BO)
    assert bo.post("/account", data={"csrf": bo.csrf, "action": "disable", "name": "ana"}).status_code == 403
    with pytest.raises(AccountError, match="only admin"):
        store.set_disabled("ana", True)


def test_passwords_are_never_kept_shown_or_logged_in_clear(school, caplog, tmp_path, run):
    store, app, _ = school
    caplog.set_level(logging.DEBUG)
    pages = []
    ana = sign_in(app, "ana", ANA)
    pages.append(
        ana.post("/account", data={"csrf": ana.csrf, "action": "add", "name": "cy", "password": "cy-Pass-2024-x"})
    )
    pages.append(ana.post("/signin", data={"csrf": ana.csrf, "name": "bo", "password": BO + "wrong"}))
    pages += [ana.get("/"), ana.get("/account")]
    new = "ana-Renewed-9999-pw"
    pages.append(
        ana.post(
            "/account", data={"csrf": ana.csrf, "action": "password", "current": ANA, "password": new, "again": new}
        )
    )
    assert pages[-1].status_code == 303  # every session of hers ended: she signs in again
    assert ana.get("/").status_code == 303
    sign_in(app, "ana", new)
    secrets_ = (ANA, BO, new, "cy-Pass-2024-x", BO + "wrong")
    for page in pages:
        assert not any(s in page.text or s in str(page.headers) for s in secrets_)
    assert not any(s in caplog.text for s in secrets_)
    kept = "\n".join(
        repr(row)
        for table in ("teachers", "sessions", "limits", "meta")
        for row in store.db.query(f"SELECT * FROM {table}")
    )
    assert "$argon2id$" in kept and not any(s in kept for s in secrets_)
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert not any(s.encode() in content for s in secrets_), path
    # A session's id is kept only as its hash: the cookie's value is not in the database.
    cookie = ana.cookies.get("attnsheet_session") or ""
    assert cookie and cookie.split(".")[0] not in kept


def test_sign_in_is_limited_and_its_cookie_is_strict(school):
    store, app, _ = school
    web = client(app)
    token = csrf(web, "/signin")
    for _ in range(10):
        assert web.post("/signin", data={"csrf": token, "name": "ana", "password": "guess-guess-1"}).status_code == 400
    limited = web.post("/signin", data={"csrf": token, "name": "ana", "password": ANA})
    assert limited.status_code == 429 and "Too many tries" in limited.text
    other = client(app)
    r = other.post("/signin", data={"csrf": csrf(other, "/signin"), "name": "bo", "password": BO})
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and f"Max-Age={SESSION_FOR}" in cookie
    assert "Path=/" in cookie
    value = other.cookies["attnsheet_session"]
    forged = client(app)
    session, _, signature = value.partition(".")
    forged.cookies.set("attnsheet_session", f"{session}.{'0' * len(signature)}")
    assert forged.get("/").status_code == 303
    other.csrf = csrf(other)
    out = other.post("/signout", data={"csrf": other.csrf})
    assert out.status_code == 303
    reused = client(app)
    reused.cookies.set("attnsheet_session", value)
    assert reused.get("/").status_code == 303  # the session ended with the sign-out, not only its cookie
    # Another site's page is never where a sign-in sends the teacher.
    r = other.post(
        "/signin", data={"csrf": csrf(other, "/signin"), "name": "bo", "password": BO, "next": "//evil.example/x"}
    )
    assert r.headers["location"] == "/"


def test_students_reach_their_sheet_without_signing_in(school):
    store, app, _ = school
    ana = sign_in(app, "ana", ANA)
    mine = make(ana)
    token = store.links(store.batch(mine))[1].token
    student = client(app)
    page = student.get(f"/s/{token}")
    assert page.status_code == 200
    hand = re.search(r'name="csrf" content="([^"]+)"|data-csrf="([^"]+)"', page.text)
    token_csrf = next(g for g in hand.groups() if g) if hand else csrf(student, "/s")
    r = student.post(f"/api/s/{token}/handin", content=json.dumps({}), headers={"x-csrf-token": token_csrf})
    assert r.status_code == 200, r.text
    assert student.get(f"/batches/{mine}").status_code == 303  # the teacher's pages: sign in first


def test_the_first_account_is_made_on_the_servers_own_machine(tmp_path, database):
    store = Store(tmp_path / "data", database)
    try:
        before = make_unsigned(create_app(store))
        app = create_app(store, accounts=True)
        remote, local = client(app), client(app, local=True)
        r = remote.get("/")
        assert r.status_code == 303 and r.headers["location"] == "/signin?next=/"
        assert "no teachers' accounts yet" in remote.get("/signin").text
        assert remote.get("/setup").status_code == 403
        # A proxy on this machine makes every request look local: a forwarded one is not.
        token = csrf(local, "/setup")
        proxied = local.post(
            "/setup",
            data={"csrf": token, "name": "ana", "password": ANA, "again": ANA},
            headers={"x-forwarded-for": "203.0.113.9"},
        )
        assert proxied.status_code == 403 and not store.accounts_on()
        differ = local.post("/setup", data={"csrf": token, "name": "ana", "password": ANA, "again": ANA + "x"})
        assert differ.status_code == 400 and "differ" in differ.text
        made = local.post("/setup", data={"csrf": token, "name": "ana", "password": ANA, "again": ANA})
        assert made.status_code == 303 and store.teacher("ana").admin
        local.csrf = csrf(local)
        assert before in local.get("/").text  # the classes made so far are hers
        assert local.get("/setup").status_code == 404
    finally:
        store.close()


def test_every_process_takes_the_others_pages_and_counts_the_same_tries(tmp_path, database):
    first = Store(tmp_path / "data", database)
    second = Store(tmp_path / "data", database)
    try:
        first.add_teacher("ana", ANA, admin=True)
        one, two = create_app(first), create_app(second)
        web = sign_in(one, "ana", ANA)
        other = client(two)
        other.cookies.set("attnsheet_session", web.cookies["attnsheet_session"])
        made(other, other.post("/batches", data={"csrf": web.csrf, "count": "1", "seed": "3"}))  # the first's page
        assert all(first.hit("k", 3) for _ in range(2)) and second.hit("k", 3) and not first.hit("k", 3)
    finally:
        first.close()
        second.close()


def test_names_and_passwords_that_cannot_be(tmp_path, database):
    store = Store(tmp_path / "data", database)
    try:
        for name in ("", "a b", "../x", "x" * 41, "<b>"):
            with pytest.raises(AccountError, match="a teacher's name"):
                store.add_teacher(name, ANA)
        with pytest.raises(AccountError, match="at least 10"):
            store.add_teacher("ana", "short")
        store.add_teacher("ana", ANA, admin=True)
        with pytest.raises(AccountError, match="exists already"):
            store.add_teacher("ANA", BO)
        with pytest.raises(AccountError, match="set up already"):
            store.add_teacher("bo", BO, first=True)
        assert store.sign_in("ana", "x" * 100_000) is None and store.sign_in("nobody", ANA) is None
    finally:
        store.close()


def test_the_user_commands(run, tmp_path):
    data = str(tmp_path / "data")
    r = run("user", "add", "ana", "--admin", "--password-stdin", "--data", data, stdin=ANA + "\n")
    assert r.code == 0 and "added ana (an admin)" in r.err and ANA not in r.out + r.err
    r = run("user", "add", "bo", "--password-stdin", "--data", data, stdin="short\n")
    assert r.code == 1 and r.err.strip().count("\n") == 0 and "at least 10" in r.err
    r = run("user", "add", "b o", "--password-stdin", "--data", data, stdin=BO + "\n")
    assert r.code == 1 and "a teacher's name" in r.err
    assert run("user", "add", "bo", "--password-stdin", "--data", data, stdin=BO + "\n").code == 0
    r = run("user", "list", "--data", data)
    assert r.out.splitlines() == ["ana\tadmin\tenabled", "bo\tteacher\tenabled"]
    r = run("user", "disable", "ana", "--data", data)
    assert r.code == 1 and "only admin" in r.err
    assert run("user", "disable", "bo", "--data", data).code == 0
    assert "bo\tteacher\tdisabled" in run("user", "list", "--data", data).out
    r = run("user", "password", "nobody", "--password-stdin", "--data", data, stdin=BO + "\n")
    assert r.code == 1 and "no teacher is named nobody" in r.err
    store = Store(tmp_path / "data")
    try:
        assert store.sign_in("bo", BO) is None  # disabled
        run("user", "enable", "bo", "--data", data)
        assert store.sign_in("bo", BO) is not None
    finally:
        store.close()


def test_any_asgi_server_takes_the_app_from_the_environment(tmp_path, monkeypatch):
    from generator.web.asgi import app as factory

    monkeypatch.setenv("ATTNSHEET_DATA", str(tmp_path / "data"))
    with pytest.raises(SystemExit, match="turn accounts on"):  # open to anyone: refused
        factory()
    monkeypatch.setenv("ATTNSHEET_ACCOUNTS", "1")
    web = client(factory())
    assert web.get("/").headers["location"] == "/signin?next=/"
    monkeypatch.setenv("ATTNSHEET_JOBS", "workers")
    with pytest.raises(SystemExit, match="PostgreSQL"):
        factory()
