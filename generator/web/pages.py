"""What every route of the web app shares: its pages in the reader's language, its errors, its checks."""

from __future__ import annotations

import errno
import functools
import hmac
import json
from typing import Callable, Optional, TypeVar

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from generator.app.errors import AttnsheetError
from generator.app.screens import TONES, environment, languages

T = TypeVar("T")
HEAVY_THREADS = 2
"""Long work at once (a batch, a big preview or practice shape, a report): beyond this it queues,
in threads, so the event loop — and every student's save — never waits behind it."""
SESSION_COOKIE = "attnsheet_session"
"""The cookie that carries a teacher's signed session (web/accounts)."""
LANG_COOKIE = "attnsheet_lang"
"""Keeps the language a reader chose with ?ui= (the browser's otherwise); `lang` is a sheet's language."""


def browser_language(header: str) -> str:
    """The language a browser asks for first (Accept-Language) among those the app speaks; English if none."""
    ranked = []
    for place, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        primary = tag.strip().split("-")[0].lower()
        if primary in languages() and weight > 0:
            ranked.append((-weight, place, primary))
    return min(ranked)[2] if ranked else "en"


class Pages:
    """Rendering and checking, for the routes (over the subclass's `store`)."""

    store: object
    _heavy: Optional[anyio.CapacityLimiter] = None

    async def off_db(self, work: Callable[..., T], *args) -> T:
        """Run a store call in a thread (anyio's own pool, not the long work's): a save waits for
        its database, never for a batch being made."""
        return await anyio.to_thread.run_sync(functools.partial(work, *args))

    async def off_loop(self, work: Callable[..., T], *args, **kwargs) -> T:
        """Run `work` in a thread of the bounded pool for long work, off the event loop."""
        if self._heavy is None:  # made inside the running loop, as anyio wants
            self._heavy = anyio.CapacityLimiter(HEAVY_THREADS)
        return await anyio.to_thread.run_sync(functools.partial(work, *args, **kwargs), limiter=self._heavy)

    def language(self, request: Request, batch=None) -> str:
        """A page's language: its batch's; else ?ui=, the reader's cookie, or the browser's."""
        if batch is not None:
            return batch.manifest["settings"]["lang"]
        for asked in (request.query_params.get("ui", ""), request.cookies.get(LANG_COOKIE, "")):
            if asked in languages():
                return asked
        return browser_language(request.headers.get("accept-language", ""))

    def page(
        self, request: Request, name: str, status: int = 200, lang: Optional[str] = None, **values
    ) -> HTMLResponse:
        """A template of templates/web, in `lang` (the reader's by default)."""
        lang = lang or self.language(request)
        values.setdefault("teacher", getattr(request.state, "teacher", None))
        html = (
            environment(lang)
            .get_template(f"web/{name}")
            .render(csrf=self.csrf_for(request), tones=TONES, lang=lang, languages=languages(), **values)
        )
        response = HTMLResponse(html, status_code=status)
        if request.query_params.get("ui", "") in languages():
            response.set_cookie(
                LANG_COOKIE, request.query_params["ui"], max_age=365 * 86400, httponly=True, samesite="strict"
            )
        return response

    def error(self, request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/") or "json" in request.headers.get("accept", ""):
            return JSONResponse({"error": message}, status_code=status)
        return self.page(request, "error.html", status, message=message)

    def may_change(self, request: Request, batch) -> bool:
        """Whether the request's teacher may change `batch` (theirs, or shared to change): a page
        shows a colleague who may only read it no control that would fail."""
        return self.store.access(batch, self.teacher(request)) in ("own", "write")

    def csrf_for(self, request: Request) -> str:
        """The CSRF token of the request's pages: its session's (or the server's, with no session),
        made from the server's secret, so a page served by one process is taken by every other."""
        return self.store.csrf_token(request.cookies.get(SESSION_COOKIE, ""))

    def _csrf_ok(self, supplied: str, request: Request) -> bool:
        return hmac.compare_digest(supplied.encode(), self.csrf_for(request).encode())

    def _check_csrf(self, request: Request) -> None:
        if not self._csrf_ok(request.headers.get("x-csrf-token", ""), request):
            raise PermissionError("missing or wrong CSRF token: reload the page")

    async def _json(self, request: Request) -> dict:
        """The request's answers@1 object (its `problem`, if any, dropped: the server knows the sheet's)."""
        try:
            value = json.loads(await request.body())
        except (ValueError, RecursionError):
            raise AttnsheetError("the answers are not JSON") from None
        if not isinstance(value, dict):
            raise AttnsheetError("expected an answers@1 object")
        if _depth(value) > MAX_DEPTH:
            raise AttnsheetError(f"the answers are nested deeper than an answers@1 file ({MAX_DEPTH} levels)")
        value.pop("problem", None)
        return value


MAX_DEPTH = 8
"""An answers@1 object nests 4 deep (heads, steps, rows, cells); anything much deeper is not one."""


def _depth(value, level: int = 1) -> int:
    """How deep `value` nests (lists and objects), counted without recursion beyond MAX_DEPTH + 1."""
    if level > MAX_DEPTH or not isinstance(value, (dict, list)):
        return level - (not isinstance(value, (dict, list)))
    children = value.values() if isinstance(value, dict) else value
    return max((_depth(child, level + 1) for child in children), default=level)


DISK_FULL = "the disk is full: nothing was saved; ask whoever runs this server to free some space, then try again"
TROUBLE = "something went wrong on the server; nothing was saved"


def server_trouble(exc: BaseException) -> tuple[int, str]:
    """What a page says of the server's own failure: a full disk (507) in words, anything else
    a plain 500; never a path of the server's or a message of its libraries."""
    full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)
    text = str(exc).lower()
    full = full or "no space left" in text or "disk is full" in text or "disk full" in text
    full = full or type(exc).__name__ == "DiskFull"  # psycopg's, for PostgreSQL's own disk
    return (507, DISK_FULL) if full else (500, TROUBLE)
