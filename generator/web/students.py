"""The student's side of the web app: their own sheet by its link (or code and PIN), hand-in, feedback.

A student reaches one sheet and nothing else: no key, no other sheet, no batch page. What they
see after handing in is what the batch's policy allows (app/classroom.feedback_for); nothing on
these pages or in these answers states a value the policy hides.
"""

from __future__ import annotations

import asyncio
import hmac
import threading
import time
from collections import OrderedDict

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from generator.app.classroom import Closed, feedback_now, hand_in
from generator.app.photos import MAX_PHOTO_BYTES, PhotoError, photo_answer, queue_photo
from generator.app.links import code_key
from generator.app.screens import sheet_form, translations
from generator.app.store import NotFound, Store
from generator.web.pages import Pages
from generator.web.practice import shapes_of

PHOTO_WAIT, PHOTO_LOOK = 5.0, 0.1
"""Seconds a student's page is held waiting for its photo to be read (then it asks again), and
between looks at the photo's job meanwhile."""


class RateLimited(Exception):
    """Too many requests from one student link (or one client) in a short time."""


class Limiter:
    """At most `rate` requests a minute per key (a token, a client), in a bounded table of this process."""

    shared = False

    def __init__(self, rate: int, keys: int = 10_000) -> None:
        self.rate, self.keys = rate, keys
        self.seen: OrderedDict[str, list[float]] = OrderedDict()
        self.lock = threading.Lock()

    def check(self, key: str) -> None:
        """Count one request of `key`; RateLimited past the rate."""
        now = time.monotonic()
        with self.lock:
            recent = [t for t in self.seen.pop(key, []) if now - t < 60.0]
            if len(recent) >= self.rate:
                self.seen[key] = recent
                raise RateLimited("too many requests: wait a minute, then try again")
            recent.append(now)
            self.seen[key] = recent
            while len(self.seen) > self.keys:  # bounded: the oldest keys go first
                self.seen.popitem(last=False)


class SharedLimiter:
    """At most `rate` requests a minute per key, counted in the store's database: every process of a
    server counts the same requests (an in-memory count would let each process allow the rate)."""

    shared = True

    def __init__(self, store: Store, name: str, rate: int) -> None:
        self.store, self.name, self.rate = store, name, rate

    def check(self, key: str) -> None:
        """Count one request of `key`; RateLimited past the rate."""
        if not self.store.hit(f"{self.name}:{key}", self.rate):
            raise RateLimited("too many requests: wait a minute, then try again")


LINK_RATE = 60
"""Requests a minute per student link: a phone retrying never reaches it, a script does."""
PIN_RATE = 20
"""Code-and-PIN tries a minute per client: a PIN cannot be guessed by trying."""
PIN_SHEET_RATE = 10
"""Code-and-PIN tries a minute per sheet, from every client together: many addresses guess no faster."""


class Students(Pages):
    """A student's routes: /s (code and PIN), /s/<token>, hand-in and feedback."""

    store: Store
    per_link: Limiter
    """Hand-ins and page loads per student link a minute (LINK_RATE)."""
    per_client: Limiter
    per_sheet: Limiter
    """Code-and-PIN tries per client a minute (PIN_RATE)."""

    async def student_sheet(self, request: Request) -> Response:
        """The student's own sheet: its boxes in the sheet's arrangement (stacked on a phone), their
        answers as handed in, and the feedback the teacher allows."""
        token = request.path_params["token"]
        await self.limited(self.per_link, token)
        batch, sheet = await self.off_db(self.store.by_token, token)
        lang = self.language(request, batch)
        entry_form = await self.off_loop(sheet_form, sheet, lang)
        # Their own last hand-in (never what the teacher typed or a scan read: those are the teacher's records).
        latest = await self.off_db(self.store.latest, batch, sheet, "student")
        answers = latest[1] if latest else None
        return self.page(
            request,
            "student.html",
            lang=lang,
            batch=batch,
            own=True,
            sheet=sheet,
            form=entry_form,
            shapes_json=shapes_of(entry_form),
            token=token,
            closed=batch.closed,
            pages=int((sheet.get("worksheet") or {}).get("pages", 1) or 1),
            answers=answers or {},
            handed_in=answers is not None,
        )

    async def hand_in(self, request: Request) -> Response:
        """Keep what the student typed (again, until the batch is closed); the feedback allowed."""
        self._check_csrf(request)
        token = request.path_params["token"]
        await self.limited(self.per_link, token)
        batch, sheet = await self.off_db(self.store.by_token, token)
        written = await self._json(request)
        photos = written.pop("photos", None)  # the photos it was read from, kept beside what it hands in
        photos = [str(name) for name in photos[:8]] if isinstance(photos, list) else []
        return JSONResponse(await self.off_db(hand_in, self.store, batch, sheet, written, photos))

    async def photo(self, request: Request) -> Response:
        """A photo of the student's paper sheet (multipart: photo, and page for a sheet of several),
        read: each box as read, sure or to confirm; refused in one line, nothing kept, where it
        cannot be used (another sheet, another page, no picture, too large, too dark…)."""
        self._check_csrf(request)
        token = request.path_params["token"]
        await self.limited(self.per_link, token)
        batch, sheet = await self.off_db(self.store.by_token, token)
        if batch.closed:
            raise Closed("hand-ins for this sheet are closed: ask your teacher")
        data = await request.form(max_files=1, max_fields=4, max_part_size=MAX_PHOTO_BYTES + 1)
        upload, page = data.get("photo"), str(data.get("page", "1"))
        if not hasattr(upload, "read"):
            raise PhotoError("no photo came with the request: choose one and send it again")
        content = await upload.read(MAX_PHOTO_BYTES + 1)
        number = int(page) if page.isdigit() and len(page) < 3 else 0
        if not number:
            raise PhotoError("page: a page number of the sheet")
        # Read on the server's queue (its own process on SQLite, the workers on PostgreSQL): the page asks for the answer.
        job = await self.off_db(queue_photo, self.store, batch, sheet, token, content, number)
        return JSONResponse({"job": job, "poll": f"/api/s/{token}/photo/{job}"}, status_code=202)

    async def photo_read(self, request: Request) -> Response:
        """What became of a photo the student sent: 202 while it is read, then what was read (or its refusal)."""
        token = request.path_params["token"]
        await self.off_db(self.store.by_token, token)
        job, until = int(request.path_params["job_id"]), time.monotonic() + PHOTO_WAIT
        # Held here while it is read: the answer goes out as soon as it is there, and a class of
        # phones asking costs the server a look at a row each, not a request each.
        while (read := await self.off_db(photo_answer, self.store, token, job)) is None and time.monotonic() < until:
            await asyncio.sleep(PHOTO_LOOK)
        return JSONResponse({"state": "reading"}, status_code=202) if read is None else JSONResponse(read)

    async def feedback(self, request: Request) -> Response:
        """The feedback of the sheet as last handed in (the teacher may have released it since)."""
        token = request.path_params["token"]
        await self.limited(self.per_link, token)
        batch, sheet = await self.off_db(self.store.by_token, token)
        return JSONResponse(await self.off_db(feedback_now, self.store, batch, sheet))

    async def find_sheet(self, request: Request) -> Response:
        """A student without a phone: the code and PIN printed on the sheet open its page."""
        if request.method == "GET":
            return self.page(request, "find.html", batch=None, own=True, error="")
        await self.limited(self.per_client, request.client.host if request.client else "?")
        data = await request.form(max_files=0, max_fields=8)
        if not self._csrf_ok(str(data.get("csrf", "")), request):
            raise PermissionError("the form is stale: reload the page")
        code, pin = code_key(str(data.get("code", ""))[:40]), "".join(str(data.get("pin", "")).split())[:12]
        await self.limited(self.per_sheet, code)
        found = [
            token
            for _, _, token, right in await self.off_db(self.store.by_code, code)
            if hmac.compare_digest(right.encode(), pin.encode())
        ]
        if not found:
            _ = self.words(request)
            return self.page(
                request,
                "find.html",
                400,
                batch=None,
                own=True,
                error=_("No sheet has this code and PIN: check both on your sheet."),
            )
        return RedirectResponse(f"/s/{found[-1]}", status_code=303)

    async def limited(self, limiter, key: str) -> None:
        """Count a request against `limiter` (in a thread when it counts in the database)."""
        if limiter.shared:
            await self.off_db(limiter.check, key)
        else:
            limiter.check(key)

    def words(self, request: Request):
        return translations(self.language(request)).gettext


STUDENT_PATHS = ("/s", "/s/", "/api/s/", "/static/", "/favicon.ico")
"""Paths a student reaches without the teacher's access token (a public server's pages need it)."""


def student_path(path: str) -> bool:
    """Whether `path` is one of a student's routes (or a file every page loads)."""
    return path == "/s" or any(path.startswith(p) for p in STUDENT_PATHS[1:])


__all__ = ["Students", "RateLimited", "NotFound", "SharedLimiter", "student_path"]
