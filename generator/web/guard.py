"""What every request to the web app passes first: its teacher's sign-in (or the access token), a
capped body, strict security headers."""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
from typing import Optional
from urllib.parse import quote, urlsplit

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from generator.web.pages import SESSION_COOKIE
from generator.web.students import student_path

MAX_BODY = 1024 * 1024
"""Largest request body: a roster, a problem file or a sheet's answers is far smaller."""
MAX_SCANS_BODY = 256 * 1024 * 1024
"""Largest upload of scans: a class's copier PDF at 200–300 dpi is 10–60 MB."""
MAX_PHOTO_BODY = 21 * 1024 * 1024
"""Largest photo upload of a student (app/photos.MAX_PHOTO_BYTES, with the form's own bytes)."""
STATIC = {
    "entry.js": "text/javascript",
    "home.js": "text/javascript",
    "present.js": "text/javascript",
    "student.js": "text/javascript",
    "class.js": "text/javascript",
    "sheetdoc.js": "text/javascript",
    "review.js": "text/javascript",
    "progress.js": "text/javascript",
    "web.css": "text/css",
    "favicon.svg": "image/svg+xml",
    **{f"v-{v}.svg": "image/svg+xml" for v in ("correct", "carried", "trivial", "wrong", "unreadable")},
}  # the only files under /static (templates/web/static)
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; "
    "connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
"""Scripts only from the app itself (no inline script); inline styles place the form's boxes;
frames only of the app's own preview."""
PREVIEW_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; font-src 'self'; img-src 'self'; "
    "frame-ancestors 'self'; base-uri 'none'; form-action 'none'"
)
"""The preview is the sheet's own HTML: its styles inline, its fonts from the app, no script."""


BODY_TIMEOUT = 20.0
"""Seconds a client may take to send each piece of a request body: a slow client is cut off (408)."""


def host_name(header: str) -> str:
    """The name in a Host header (or an Origin's netloc), without its port, lower-cased."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rpartition(":")[0] if header.count(":") == 1 else header


def host_allowed(header: str, allowed: frozenset[str]) -> bool:
    """Whether a request's Host is this server: an address (a rebinding attack needs a name), a
    name of this machine (localhost), or a name the teacher allowed (`serve --allowed-host`)."""
    name = host_name(header)
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name == "localhost" or name.endswith(".localhost") or name in allowed


def same_origin(request: Request) -> bool:
    """Whether a state-changing request comes from one of this app's own pages (or from no browser page at all)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False  # the browser says: another site's page sent it
    origin = request.headers.get("origin")
    if origin is None:
        return True  # not a browser's cross-origin request (curl, a script): the CSRF token decides
    if origin == "null":  # an opaque origin: only when the browser vouches that it is this site's page
        return site == "same-origin"
    return urlsplit(origin).netloc.lower() == request.headers.get("host", "").lower()


OPEN_PATHS = ("/signin", "/setup")
"""A teacher's pages reached before signing in (besides the students' and the static files)."""


def local_request(request: Request) -> bool:
    """Whether a request comes from this machine itself, asked by its own name: no proxy in between
    (a proxy on this machine would make every school's request look local)."""
    if any(h in request.headers for h in ("x-forwarded-for", "forwarded", "x-real-ip")):
        return False
    try:
        client = ipaddress.ip_address(request.client.host if request.client else "")
    except ValueError:
        return False
    host = host_name(request.headers.get("host", ""))
    return client.is_loopback and host in ("127.0.0.1", "::1", "localhost")


def safe_next(target: str) -> str:
    """Where to go after signing in: a path of this site only, never another site's address."""
    parts = urlsplit(target or "/")
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target[:500]


def sign_in_path(target: str) -> str:
    """The sign-in page's address that comes back to `target` after."""
    return "/signin?next=" + quote(safe_next(target), safe="/")


class SlowClient(Exception):
    """A request body that did not arrive in time."""


class Guard:
    """Every request: the teacher's session (accounts on) or the access token (public hosts), a
    capped body, security headers."""

    def __init__(self, asgi, app) -> None:  # app: web.app.App, whose token it checks
        self.asgi, self.app = asgi, app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.asgi(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        if refusal is None and not student_path(request.url.path):
            refusal = await self._signed_in(request)
        if refusal is not None:
            await self._headers(refusal)(scope, receive, send)
            return

        async def timed_receive():  # a client that stops sending mid-body holds no worker for long
            try:
                return await asyncio.wait_for(receive(), BODY_TIMEOUT)
            except asyncio.TimeoutError:
                raise SlowClient() from None

        # A token given once in the address (as the server prints it) is kept in a cookie.
        keep = (
            self.app.token is not None
            and request.query_params.get("token") == self.app.token
            and not getattr(request.state, "accounts", False)
        )

        async def send_secured(message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v)
                    for k, v in message.get("headers", [])
                    if k.lower() not in (b"content-security-policy", b"x-frame")
                ]
                framed = any(k.lower() == b"x-frame" for k, _ in message.get("headers", []))
                policy = PREVIEW_CSP if framed else CSP
                headers += [
                    (b"content-security-policy", policy.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"same-origin"),
                    (b"x-frame-options", b"SAMEORIGIN" if framed else b"DENY"),
                ]
                if keep:
                    headers.append(
                        (b"set-cookie", f"attnsheet_token={self.app.token}; HttpOnly; SameSite=Strict; Path=/".encode())
                    )
                message = {**message, "headers": headers}
            await send(message)

        await self.asgi(scope, timed_receive, send_secured)

    def _refusal(self, request: Request) -> Optional[Response]:
        if not host_allowed(request.headers.get("host", ""), self.app.allowed_hosts):
            return JSONResponse(
                {
                    "error": "this server does not answer to that host name; its teacher can allow it "
                    "with `attnsheet serve --allowed-host NAME`"
                },
                status_code=421,
            )
        if request.method not in ("GET", "HEAD", "OPTIONS") and not same_origin(request):
            return JSONResponse({"error": "a change sent from another site's page is refused"}, status_code=403)
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            length = request.headers.get("content-length")
            if length is None or not length.isdigit():
                return JSONResponse({"error": "a request body needs its length"}, status_code=411)
            limit = (
                MAX_SCANS_BODY
                if _scans_upload(request.url.path)
                else MAX_PHOTO_BODY
                if _photo_upload(request.url.path)
                else MAX_BODY
            )
            if int(length) > limit:
                return JSONResponse({"error": f"too large: at most {limit // 1024} KB"}, status_code=413)
        return None

    async def _signed_in(self, request: Request) -> Optional[Response]:
        """A teacher's request: who signed in (request.state.teacher), or the way to sign in; with
        accounts off, the access token of a public server. A student's link is their own key."""
        cookie = request.cookies.get(SESSION_COOKIE, "")
        on, teacher = await anyio.to_thread.run_sync(self.app.signed_in, cookie)
        request.state.accounts, request.state.teacher = on, teacher
        path = request.url.path
        if not on:
            if self.app.token is None:
                return None
            supplied = (
                request.query_params.get("token")
                or request.cookies.get("attnsheet_token")
                or request.headers.get("x-attnsheet-token")
                or ""
            )
            if not hmac.compare_digest(supplied.encode(), self.app.token.encode()):
                return JSONResponse(
                    {"error": "this server needs its access token (printed when it started)"}, status_code=401
                )
            return None
        if teacher is not None or path in OPEN_PATHS:
            return None
        if request.method in ("GET", "HEAD") and not path.startswith("/api/"):
            target = path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(sign_in_path(target), status_code=303)
        return JSONResponse({"error": "sign in first (your session ended or was never begun)"}, status_code=401)

    @staticmethod
    def _headers(response: Response) -> Response:
        response.headers["content-security-policy"] = CSP
        response.headers["x-content-type-options"] = "nosniff"
        return response


def _photo_upload(path: str) -> bool:
    """Whether a request is a student's photo of their sheet (`/api/s/TOKEN/photo`)."""
    parts = path.strip("/").split("/")
    return len(parts) == 4 and parts[:2] == ["api", "s"] and parts[3] == "photo"


def _scans_upload(path: str) -> bool:
    """Whether a request uploads a batch's scans (`/batches/NAME/scans`): its body may be big."""
    parts = path.strip("/").split("/")
    return len(parts) == 3 and parts[0] == "batches" and parts[2] == "scans"
