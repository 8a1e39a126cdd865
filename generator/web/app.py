"""The web app's routes: parse the request, call the library, render a template; nothing else.

Safe by default: every response carries a strict Content-Security-Policy; a state-changing
request needs the page's CSRF token; with a public host every request needs the access token;
bodies are capped; ids are looked up in the store, never joined into paths.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Iterable, Optional

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from generator.app.classroom import Closed, save_sheet
from generator.app.database import DatabaseError
from generator.app.errors import AttnsheetError, OutputError
from generator.app.queue import Procrastinated
from generator.app.runner import Runner
from generator.app.links import opens_only_here
from generator.app.photos import photo_files
from generator.app.scans import MAX_PAGES, scanned_sheets
from generator.app.screens import templates_dir
from generator.app.settings import kind_titles
from generator.app.serving import Workers
from generator.app.store import NotFound, Store
from generator.web.batches import (
    FIELDS,
    MAX_UPLOAD,
    UPLOADS,
    blank_pdf,
    field_info,
    grouped,
    queue_batch,
    preview_html,
    ticked,
    upload_info,
    upload_summary,
    worded,
)
from generator.web.accounts import Signing
from generator.web.manage import Managing
from generator.web.guard import STATIC, Guard, SlowClient
from generator.web.classes import Classes
from generator.app.turns import Turns
from generator.web.pages import server_trouble
from generator.web.practice import Practice
from generator.web.review import Review
from generator.web.sheets import Sheets
from generator.web.students import LINK_RATE, PIN_RATE, PIN_SHEET_RATE, Limiter, RateLimited, SharedLimiter, Students

READ_POSTS = {"/api/batches/{batch_id}/sheets/{index}/grade"}
"""A batch's POST routes that change nothing (a grade of what is typed): reading the class is enough."""
OWN = {"/batches/{batch_id}/shares", "/batches/{batch_id}/manage"}
"""A batch's routes for its owner alone."""


class App(Classes, Sheets, Practice, Students, Review, Signing, Managing):
    """The routes over one store, with the process's tokens."""

    def __init__(self, store: Store, token: Optional[str] = None, workers: Optional[Workers] = None,
                 allowed_hosts: Iterable[str] = (), public_url: str = "", accounts: bool = False,
                 jobs: str = "here", scan_pages: int = MAX_PAGES) -> None:
        self.store = store
        self.scan_pages = scan_pages
        """The most pages one upload of scans may hold (`serve --max-scan-pages`)."""
        self.accounts = accounts
        """Sign-in required even before the first account exists (`serve --accounts`): the first is made at /setup."""
        self.public_url = public_url
        """The address students' phones reach this server at (their links and QR codes); '' for the page's own."""
        self.allowed_hosts = frozenset(name.lower() for name in allowed_hosts)
        """Host names this server answers to besides addresses and localhost (DNS rebinding is refused)."""
        self.workers = workers
        """Job processes kept warm, rendering batches beside this one."""
        self.token = token
        """Required on every request when the server listens beyond this machine (and has no accounts)."""
        self.lock = Turns()  # one render at a time, in turn: WeasyPrint's objects are per process
        self.runner = Runner(store, self.lock, workers, lambda: self.lock.hand_on())
        """Runs the jobs queued (a batch to render, a pile to read) in this process, beside the requests."""
        if store.queue is None:  # "here": this process runs them; on PostgreSQL the workers too, or only them
            store.queue = self.runner if jobs == "here" else \
                Procrastinated(store, store.db.where, self.runner if jobs == "shared" else None)
        if store.db.dialect == "postgresql":  # several processes may serve: they count in the database together
            self.per_link, self.per_client = SharedLimiter(store, "link", LINK_RATE), SharedLimiter(store, "pin",
                                                                                                     PIN_RATE)
            self.per_sheet = SharedLimiter(store, "pin-sheet", PIN_SHEET_RATE)
        else:
            self.per_link, self.per_client = Limiter(LINK_RATE), Limiter(PIN_RATE)
            self.per_sheet = Limiter(PIN_SHEET_RATE)

    def signed_in(self, cookie: str) -> tuple[bool, Optional[object]]:
        """Whether teachers sign in on this server, and the teacher whose session `cookie` carries."""
        on = self.accounts or self.store.accounts_on()
        return on, (self.store.session(cookie) if on and cookie else None)

    def _locked(self, work, *args):
        """`work` under the render lock (WeasyPrint's objects are per process): for a pool thread."""
        with self.lock:
            return work(*args)

    # --- routes -------------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        # A reader who reads Spanish prints Spanish sheets unless they choose otherwise.
        lang = self.language(request)
        return self._home(request, {"lang": lang} if lang != "en" else {}, {}, {}, fresh=True)

    def _home(self, request: Request, values: dict, errors: dict, held: dict, status: int = 200,
              fresh: bool = False) -> Response:
        """The batch form (with what the teacher gave it: values, and the files the server holds) and the batches."""
        teacher = self.teacher(request)
        every = [self.store.batch(batch_id) for batch_id in self.store.visible(teacher)]
        archived = request.query_params.get("archived") == "1"
        batches = [b for b in every if b.archived == archived]
        making = [job for job in self.store.unfinished(teacher.id if teacher else None) if job.kind == "batch"]
        lang = self.language(request)
        errors = {name: worded(message, lang) for name, message in errors.items()}  # the form's words, not flags
        return self.page(request, "home.html", status, lang, fields=FIELDS, values=values, errors=errors,
                         batches=batches, field_info=lambda name: field_info(name, lang),
                         grouped=lambda fields: grouped(fields, lang), uploads=UPLOADS,
                         upload_info=lambda name: upload_info(name, lang), held=held, fresh=fresh, making=making,
                         archived=archived, put_away=sum(b.archived for b in every), kinds=kind_titles(),
                         handed={b.id: len(self.store.handins(b)) for b in batches},
                         only_here=self._only_here(request))

    def _only_here(self, request: Request) -> str:
        """The address students' QR codes would hold when it opens on this computer only, else ""."""
        base = (self.public_url or str(request.base_url)).rstrip("/")
        return base if opens_only_here(base) else ""

    async def create_batch(self, request: Request) -> Response:
        data = await request.form(max_files=len(UPLOADS), max_fields=64, max_part_size=MAX_UPLOAD)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            return self.error(request, 403, "the form is stale or was not sent by this app: reload the page")
        values = {name: str(data.get(name, "")) for name, _ in FIELDS}
        values["label"] = str(data.get("label", ""))[:400]
        roster = data.get("roster")
        values["roster_name"] = str(getattr(roster, "filename", "") or data.get("roster_name", ""))[:200]
        uploads, held, errors = {}, {}, {}
        for name, _ in UPLOADS:  # a file chosen now, else the one the server holds from before
            upload, held_id = data.get(name), str(data.get(f"held_{name}", ""))
            content = await upload.read(MAX_UPLOAD + 1) if hasattr(upload, "read") else b""
            if len(content) > MAX_UPLOAD:
                return self.error(request, 413, f"the {name} file is larger than {MAX_UPLOAD // 1024} KB")
            try:
                if content:
                    held_id = self.store.hold(content)
                elif held_id:
                    content = self.store.held(held_id)
                if content:
                    uploads[name] = content
                    held[name] = {"id": held_id, "summary": _summary(name, content, self.language(request))}
            except AttnsheetError as error:
                errors[name] = str(error)
        blank = ticked(values, "blank")
        if not errors:
            if blank:
                data, errors = await self.off_loop(self._locked, blank_pdf, values, uploads)
            else:
                teacher = self.teacher(request)
                batch_id, errors = await self.off_loop(queue_batch, self.store, values, uploads,
                                                       self.public_url or str(request.base_url),
                                                       teacher.id if teacher else None)
        if errors:
            return self._home(request, values, errors, held, 400)
        if blank:  # a template is not stored: no key, no manifest, nothing to grade
            return Response(data, media_type="application/pdf",
                            headers={"content-disposition": 'attachment; filename="blank-templates.pdf"'})
        return RedirectResponse(f"/batches/{batch_id}", status_code=303)

    async def hold_upload(self, request: Request) -> Response:
        """Keep a file the form chose (as soon as it is chosen): its id, for the preview and the form, and what it holds."""
        self._check_csrf(request)
        name = request.path_params["name"]
        if name not in dict(UPLOADS):
            raise NotFound("no such file field")
        content = await request.body()
        summary = _summary(name, content, self.language(request))
        return JSONResponse({"id": self.store.hold(content), "summary": summary})

    async def batch(self, request: Request) -> Response:
        try:
            batch = self.store.batch(request.path_params["batch_id"])
        except NotFound:  # queued or being rendered: its progress, until it is listed
            job = self.store.batch_job(request.path_params["batch_id"])
            if job is None or job.kind != "batch":
                raise
            return self.page(request, "job.html", 500 if job.state == "failed" else 200, job=job,
                             title=request.path_params["batch_id"], back="/", may_cancel=True)
        teacher = self.teacher(request)
        access = self.store.access(batch, teacher)
        return self.page(request, "batch.html", lang=self.language(request, batch), batch=batch,
                         saved=self.store.saved(batch), links=self.store.links(batch), scanned=scanned_sheets(batch),
                         base=(self.public_url or str(request.base_url)).rstrip("/"),
                         only_here=self._only_here(request), access=access,
                         owner=self.store.owner_name(batch) if teacher else "",
                         shares=self.store.shares(batch) if teacher and access == "own" else [],
                         colleagues=[t.name for t in self.store.teachers() if t.id != teacher.id and not t.disabled]
                         if teacher and access == "own" else [])

    async def batch_zip(self, request: Request) -> Response:
        """Every file of a batch in one zip (the split files of a class, say)."""
        batch = self.store.batch(request.path_params["batch_id"])
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name in batch.files():
                try:
                    archive.write(self.store.file(batch.id, name), f"{batch.id}/{name}")
                except NotFound:  # a name its manifest lists that leads out of the batch: not in the zip
                    continue
            for name in photo_files(batch):  # the students' photos, and what was read from each
                archive.write(batch.folder / "photos" / name, f"{batch.id}/photos/{name}")
        return Response(buffer.getvalue(), media_type="application/zip",
                        headers={"content-disposition": f'attachment; filename="{batch.file_name("files.zip")}"'})

    async def batch_file(self, request: Request) -> Response:
        path = self.store.file(request.path_params["batch_id"], request.path_params["name"])
        kind = "application/pdf" if path.suffix == ".pdf" else "application/json"
        return FileResponse(path, media_type=kind, content_disposition_type="inline")

    async def save(self, request: Request) -> Response:
        self._check_csrf(request)
        batch, sheet = self.store.sheet(request.path_params["batch_id"], request.path_params["index"])
        written = await self._json(request)
        base = written.pop("base", None)  # the revision the page was showing: a newer one is never lost unseen
        # "" or 0: the page showed no save; absent: a script that says nothing of what it saw.
        base = int(base or 0) if isinstance(base, int) or (isinstance(base, str) and (base.isdigit() or not base)) \
            else None
        graded = await self.off_db(save_sheet, self.store, batch, sheet, written, "teacher", base)
        return JSONResponse({"saved": True, "points": graded.grade["points"], "total": graded.grade["total"],
                             "rev": graded.saved.rev, "kept_newer": bool(await self.off_db(
                                 self._conflicted, batch, sheet))})

    async def preview(self, request: Request) -> Response:
        """One worksheet (or its key) of the form's options, as the sheet's own HTML: same layout."""
        values = {name: request.query_params.get(name, "") for name, _ in FIELDS}
        uploads = {name: self.store.held(request.query_params[f"held_{name}"]) for name, _ in UPLOADS
                   if request.query_params.get(f"held_{name}")}
        html, errors = await self.off_loop(preview_html, values, request.query_params.get("key") == "1", uploads)
        if errors:  # framed like the preview: the form reads the errors off it and shows each beside its field
            errors = {name: worded(message, self.language(request)) for name, message in errors.items()}
            response = self.page(request, "preview-errors.html", 400, errors=errors, errors_json=json.dumps(errors))
        else:
            response = HTMLResponse(html)
        response.headers["x-frame"] = "preview"  # the guard lets only this page be framed, by the app
        return response

    async def preview_font(self, request: Request) -> Response:
        fonts = {p.name: p for p in (templates_dir() / "fonts").iterdir() if p.suffix in (".otf", ".ttf")}
        name = request.path_params["name"]
        if name not in fonts:
            raise NotFound("no such font")
        return FileResponse(fonts[name], media_type="font/otf" if name.endswith(".otf") else "font/ttf")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            raise NotFound("no such file")
        return FileResponse(templates_dir() / "web" / "static" / name, media_type=STATIC[name])


def create_app(store: Store, token: Optional[str] = None, workers: Optional[Workers] = None,
               allowed_hosts: Iterable[str] = (), public_url: str = "", accounts: bool = False,
               jobs: str = "here", scan_pages: int = MAX_PAGES) -> Starlette:
    """The ASGI app over `store`; `token`, when given, is required on every request (of a server
    without accounts); `workers`, when given, render batches beside the server's own process;
    `allowed_hosts`: names it answers to besides its addresses and localhost; `public_url`: where
    students reach it (their QR codes); `accounts`: teachers sign in even before the first account
    exists (which is made at /setup); with an account in the store they always do. `jobs`: "here"
    (this process runs the jobs queued), "shared" (and `attnsheet worker` processes, on PostgreSQL)
    or "workers" (they alone); `scan_pages`: the most pages one upload of scans may hold."""
    app = App(store, token, workers, allowed_hosts, public_url, accounts, jobs, scan_pages)
    if store.unfinished():  # what a stopped server had queued or begun goes on
        store.queue.start()
    routes = [
        Route("/", app.home),
        Route("/batches", app.create_batch, methods=["POST"]),
        Route("/batches/{batch_id}", app.batch),
        Route("/batches/{batch_id}/files.zip", app.batch_zip),
        Route("/batches/{batch_id}/files/{name:path}", app.batch_file),
        Route("/batches/{batch_id}/class", app.class_page),
        Route("/batches/{batch_id}/class/{name}", app.class_file),
        Route("/batches/{batch_id}/sheets/{index}", app.entry),
        Route("/api/batches/{batch_id}/sheets/{index}/grade", app.grade_api, methods=["POST"]),
        Route("/api/batches/{batch_id}/sheets/{index}/save", app.save, methods=["POST"]),
        Route("/static/{name}", app.static),
        Route("/favicon.ico", lambda request: RedirectResponse("/static/favicon.svg", status_code=301)),
        Route("/api/csrf", lambda request: JSONResponse({"csrf": app.csrf_for(request)})),  # same-origin pages only
        Route("/signin", app.sign_in, methods=["GET", "POST"]),
        Route("/signout", app.sign_out, methods=["POST"]),
        Route("/setup", app.setup, methods=["GET", "POST"]),
        Route("/account", app.account, methods=["GET", "POST"]),
        Route("/batches/{batch_id}/shares", app.share, methods=["POST"]),
        Route("/api/jobs/{job_id}", app.job_api),
        Route("/batches/{batch_id}/jobs/{job_id}/cancel", app.cancel_job, methods=["POST"]),
        Route("/batches/{batch_id}/manage", app.manage, methods=["POST"]),
        Route("/batches/{batch_id}/handout.pdf", app.handout),
        Route("/preview", app.preview),
        Route("/api/uploads/{name}", app.hold_upload, methods=["POST"]),
        Route("/practice", app.practice),
        Route("/practice/{code}", app.practice_sheet),
        Route("/present/{code}", app.present),
        Route("/batches/{batch_id}/present/{index}", app.present),
        Route("/api/practice/{code}/grade", app.practice_grade, methods=["POST"]),
        Route("/s", app.find_sheet, methods=["GET", "POST"]),
        Route("/s/{token}", app.student_sheet),
        Route("/api/s/{token}/handin", app.hand_in, methods=["POST"]),
        Route("/api/s/{token}/photo", app.photo, methods=["POST"]),
        Route("/api/s/{token}/photo/{job_id:int}", app.photo_read),
        Route("/batches/{batch_id}/photos/{name}", app.batch_photo),
        Route("/api/s/{token}/feedback", app.feedback),
        Route("/batches/{batch_id}/policy", app.policy, methods=["POST"]),
        Route("/batches/{batch_id}/revisions/{rev}", app.decide, methods=["POST"]),
        Route("/api/batches/{batch_id}/status", app.status),
        Route("/preview/fonts/{name}", app.preview_font),
        Route("/batches/{batch_id}/scans", app.upload_scans, methods=["POST"]),
        Route("/batches/{batch_id}/review", app.review),
        Route("/api/batches/{batch_id}/review", app.review_api, methods=["POST"]),
        Route("/batches/{batch_id}/scans/{run}/assign", app.assign, methods=["POST"]),
        Route("/batches/{batch_id}/scans/{run}/{kind}/{name}", app.scan_file),
        Route("/batches/{batch_id}/scanned/{index}", app.scanned_sheet),
    ]
    routes = [guarded(app, route) for route in routes]

    def answer(status: int, words: Optional[str] = None):
        """A handler: the error's own one line (or `words`), as a page or JSON, with `status`."""
        async def handler(request: Request, exc: Exception) -> Response:
            return app.error(request, status, words or str(exc))
        return handler

    async def closed(request: Request, exc: Exception) -> Response:
        answer = app.error(request, 409, str(exc))
        if isinstance(answer, JSONResponse):  # the student's page says why in the sheet's language
            return JSONResponse({"error": str(exc), "reason": getattr(exc, "reason", "closed")}, status_code=409)
        return answer

    async def not_found(request: Request, exc: Exception) -> Response:
        return app.error(request, 404, str(exc) if isinstance(exc, NotFound) else "no such page")

    async def trouble(request: Request, exc: Exception) -> Response:
        # The server's own trouble (its disk, its files): said in words, never with its paths.
        status, words = server_trouble(exc)
        return app.error(request, status, words)

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, OutputError) or isinstance(exc, DatabaseError):
            return await trouble(request, exc)
        return app.error(request, 400, str(exc))

    handlers = {404: not_found, NotFound: not_found, PermissionError: answer(403), AttnsheetError: refused,
                SlowClient: answer(408, "the request took too long to arrive; send it again"),
                RateLimited: answer(429), Closed: closed, OSError: trouble, Exception: trouble}
    return Starlette(routes=routes, exception_handlers=handlers, middleware=[Middleware(Guard, app=app)])


def guarded(app: App, route: Route) -> Route:
    """A batch's route refused, before it runs, to a teacher whose class it is not (or who may only
    read it, for a change): what it needs is said by its method, READ_POSTS and OWN."""
    if "{batch_id}" not in route.path:
        return route
    methods = route.methods or {"GET"}
    need = "own" if route.path in OWN else "read" if "POST" not in methods or route.path in READ_POSTS else "write"
    handler = route.endpoint

    async def checked(request: Request) -> Response:
        await app.allow(request, need)
        return await handler(request)

    return Route(route.path, checked, methods=sorted(methods - {"HEAD"}))


def _summary(name: str, content: bytes, lang: str) -> str:
    """A file's summary for the form, or why it cannot be used (the same words as making the batch)."""
    try:
        return upload_summary(name, content, lang)
    except AttnsheetError as error:
        raise AttnsheetError(f"the {name} file: {error}") from None
